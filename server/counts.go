package server

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// maxListElements bounds the elements of all the lists of one request
// together (turns, bindings, tool calls, prints, ...), so that a request of
// empty elements cannot decode into far more memory than its bytes; a
// thousand-turn run with fifty bindings of memory per turn stays below it.
const maxListElements = 100_000

// requestLimits are the counts a request of this service may hold, as the
// codec checks them on the wire (codec.go) and the methods on the decoded
// request (check).
type requestLimits struct {
	maxElements int
	schemas     map[protoreflect.FullName]*wireSchema // of each method's request
}

// listLimit is the limit of one list of its own, below the request's total.
type listLimit struct {
	limit int
	noun  string // what the list holds, for the error
	flag  string // the setting that sets limit, as a flag (Config.flagOf)
}

func newRequestLimits(cfg *Config) *requestLimits {
	field := func(m protoreflect.ProtoMessage, name protoreflect.Name) protoreflect.FullName {
		return m.ProtoReflect().Descriptor().Fields().ByName(name).FullName()
	}
	turns := listLimit{cfg.MaxTurns, "turns", cfg.flagOf(&cfg.MaxTurns)}
	history := listLimit{cfg.MaxHistory, "messages", cfg.flagOf(&cfg.MaxHistory)}
	own := map[protoreflect.FullName]listLimit{
		field(&ptcsidecarv1.ToMessagesRequest{}, "turns"):          turns,
		field(&ptcsidecarv1.ToMessagesRequest{}, "history"):        history,
		field(&ptcsidecarv1.RenderTraceRequest{}, "turns"):         turns,
		field(&ptcsidecarv1.RenderTraceRequest{}, "history"):       history,
		field(&ptcsidecarv1.EvalTurnRequest{}, "previous_results"): {cfg.MaxTurns, "results", turns.flag},
		field(&ptcsidecarv1.EvalTurnRequest{}, "tool_results"):     {cfg.Limits.MaxToolCalls, "answers", cfg.flagOf(&cfg.Limits.MaxToolCalls)},
	}
	l := &requestLimits{maxElements: maxListElements, schemas: map[protoreflect.FullName]*wireSchema{}}
	built := map[protoreflect.FullName]*wireSchema{}
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	for i := range methods.Len() {
		md := methods.Get(i).Input()
		l.schemas[md.FullName()] = buildSchema(md, own, built)
	}
	return l
}

// buildSchema returns md's schema, building it and those of the messages
// it holds.
func buildSchema(md protoreflect.MessageDescriptor, own map[protoreflect.FullName]listLimit, built map[protoreflect.FullName]*wireSchema) *wireSchema {
	if s, ok := built[md.FullName()]; ok {
		return s
	}
	s := &wireSchema{}
	built[md.FullName()] = s // no message of the schema holds itself
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := &wireField{desc: fd, list: fd.IsList()}
		if fd.Kind() == protoreflect.MessageKind {
			f.sub = buildSchema(fd.Message(), own, built)
		}
		if lim, ok := own[fd.FullName()]; ok && lim.limit > 0 {
			if s.limited == maxLimitedLists {
				panic(fmt.Sprintf("%s: more than %d lists with a limit of their own", md.FullName(), maxLimitedLists))
			}
			f.limit, f.noun, f.flag, f.slot = lim.limit, lim.noun, lim.flag, s.limited
			s.limited++
		}
		s.hasLists = s.hasLists || f.list || f.sub != nil && f.sub.hasLists
		if n := int(fd.Number()); n >= len(s.fields) {
			s.fields = append(s.fields, make([]*wireField, n+1-len(s.fields))...)
		}
		s.fields[fd.Number()] = f
	}
	return s
}

// checkCounts is INVALID_ARGUMENT, naming the list, when the request m of
// one of this service's methods holds more list elements than its limits
// allow; every method checks its request with it before reading it. A
// request the codec cut short (codec.go) always fails here.
func (s *Service) checkCounts(m protoreflect.ProtoMessage) error {
	r := m.ProtoReflect()
	total := 0
	if path, problem := s.limits.count(r, s.limits.schemas[r.Descriptor().FullName()], &total); problem != "" {
		return invalidf(path, "%s", problem)
	}
	return nil
}

// count adds the list elements of m, a message of schema s, to total and
// reports the first list over a limit: its path and what is wrong.
func (l *requestLimits) count(m protoreflect.Message, s *wireSchema, total *int) (path, problem string) {
	for _, f := range s.fields {
		if f == nil || !f.list && (f.sub == nil || !f.sub.hasLists) || !m.Has(f.desc) {
			continue
		}
		name := string(f.desc.Name())
		if !f.list {
			if path, problem := l.count(m.Get(f.desc).Message(), f.sub, total); problem != "" {
				return name + "." + path, problem
			}
			continue
		}
		list := m.Get(f.desc).List()
		*total += list.Len()
		switch {
		case f.limit > 0 && list.Len() > f.limit:
			return name, f.overLimit()
		case *total > l.maxElements:
			return name, l.overTotal()
		}
		if f.sub == nil || !f.sub.hasLists {
			continue
		}
		for i := range list.Len() {
			if path, problem := l.count(list.Get(i).Message(), f.sub, total); problem != "" {
				return fmt.Sprintf("%s[%d].%s", name, i, path), problem
			}
		}
	}
	return "", ""
}

// overLimit is what is wrong with a list of f holding more than its limit.
func (f *wireField) overLimit() string {
	return fmt.Sprintf("more than the limit of %d %s (%s)", f.limit, f.noun, f.flag)
}

// overTotal is what is wrong with a request holding more list elements in
// all than the limit.
func (l *requestLimits) overTotal() string {
	return fmt.Sprintf("the request holds more than %d list elements in all, the limit", l.maxElements)
}
