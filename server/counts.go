package server

import (
	"fmt"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"
	protov2 "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// maxListElements bounds the elements of all the lists of one request
// together (turns, bindings, tool calls, prints, ...), so that a request of
// empty elements cannot decode into far more memory than its bytes; a
// thousand-turn run with fifty bindings of memory per turn stays below it.
const maxListElements = 100_000

// maxUnknownFields bounds the fields of one request that the schema does
// not know (or that come with another wire type than their own), which
// protobuf-go keeps as bytes, one append each: 15 MiB of them cost 0.3 s
// of CPU to decode. A newer client's field in each of 10,000 messages
// stays below it.
const maxUnknownFields = 100_000

// What a request decodes to is bounded by its size: its estimate (below)
// may be at most decodeFactor times its bytes plus decodeSlack. A list
// element of a few bytes on the wire decodes into a message of a hundred
// to five hundred, and the server builds three to six times as much from
// it while it converts, renders and answers (collector headroom
// included), so a request of many tiny elements (10,000 history messages
// of nine one-word content parts: 1.4 MiB, 24 MB decoded) took its server
// past 16 times its size. Six times twice the request plus 3 MiB stays
// under 16 times plus 32 MiB with room to spare (docs/RELIABILITY.md).
// Real requests are far from it: ordinary texts are longer than the
// messages that hold them, 10,000 messages of the recorded conversations
// estimate to half their size, and the smallest conversation to 2 KB.
const (
	decodeFactor = 2
	decodeSlack  = 3 << 20
)

// The estimate of a request is what protobuf-go allocates to decode it,
// worked out from the schema and the Go types it generated: for each
// message inside the request its struct, rounded up to the allocator's
// size class; for each list element its slot in the list's array, twice
// its size since append doubles the array; for each text in a list its
// bytes; for each map entry three times its key and value; for a oneof's
// member or an optional number the value protobuf-go allocates for it. A
// text outside a list is left out: its bytes are no more than its bytes
// on the wire. The estimate is the same whether worked out from the wire
// (codec.go, which has only the bytes), from JSON (jsoncount.go) or from
// the decoded message (count), for any request a protobuf library writes.
// For bytes that repeat a message field, which protobuf-go merges into
// the message it already has, the wire's estimate is the lower, and a
// oneof's member sent after another takes along what was counted for
// the one it replaces; so a request the codec cuts short fails the
// decoded count (but for a map key sent again, or a oneof's member
// replaced inside a message sent twice, which the schema cannot hold
// today: the codec then refuses the bytes as INVALID_ARGUMENT, naming
// where it cut them, TestCodecRefusesWhatItCannotCount).

// requestLimits are the counts a request of this service may hold, as the
// codec checks them on the wire (codec.go) and the methods on the decoded
// request (check).
type requestLimits struct {
	maxElements int
	maxSets     int // maxSets; more in tests of what merging costs
	// factor and slack are the estimate's bound: factor times the
	// request's bytes plus slack.
	factor, slack int
	schemas       map[protoreflect.FullName]*wireSchema // of each method's request
}

// maxCost is the largest estimate of a request of size bytes.
func (l *requestLimits) maxCost(size int) int {
	return l.factor*size + l.slack
}

// tally is what a walk of a request has counted so far.
type tally struct {
	elements int // list elements
	unknown  int // fields protobuf-go keeps as unknown
	maxSets  int // how often the wire may send a singular field in one message; 0: maxSets
	// checkUTF8 makes the wire's scan refuse a string field that is not
	// UTF-8, as protobuf-go does, naming it (codec.go, locate).
	checkUTF8 bool
	cost      int // the estimate, in bytes
	maxCost   int
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
	l := &requestLimits{maxElements: maxListElements, maxSets: maxSets, factor: decodeFactor, slack: decodeSlack,
		schemas: map[protoreflect.FullName]*wireSchema{}}
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
	if !md.IsMapEntry() {
		s.alloc = allocSize(goSize(md))
	}
	built[md.FullName()] = s // no message of the schema holds itself
	fds := md.Fields()
	oneofs := map[protoreflect.FullName]int{} // a oneof's slot among singles
	onces := map[protoreflect.FullName]int{}  // a singular field's or a oneof's slot among those sent once
	for i := range fds.Len() {
		fd := fds.Get(i)
		f := &wireField{desc: fd, list: fd.IsList(), isMap: fd.IsMap(), single: -1, once: -1}
		if !f.list && !f.isMap && !md.IsMapEntry() {
			key := fd.FullName()
			if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() {
				key = o.FullName()
			}
			slot, ok := onces[key]
			if !ok {
				slot = len(onces)
				onces[key] = slot
			}
			if slot == maxSingles {
				panic(fmt.Sprintf("%s: more than %d singular fields", md.FullName(), maxSingles))
			}
			f.once = slot
		}
		if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind {
			if fd.Kind() == protoreflect.GroupKind {
				panic(fmt.Sprintf("%s: a group, which the request's estimate does not know", fd.FullName()))
			}
			f.sub = buildSchema(fd.Message(), own, built)
		}
		switch {
		case f.isMap:
			// A Go map's table keeps free slots and grows by doubling;
			// a short key's text fits in the margin.
			f.cost = 3 * (slotSize(fd.MapKey()) + slotSize(fd.MapValue()))
		case f.list && f.sub != nil:
			f.cost = 2*slotSize(fd) + f.sub.alloc
		case f.list:
			f.cost = 2 * slotSize(fd)
			f.text = fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind
			f.scalar = !f.text
		default:
			// A message, a oneof's member or an optional number or text
			// takes an allocation of its own when set: once, however often
			// the field is sent, since protobuf-go merges a repeated
			// message into the one it has. A oneof's members share a
			// slot: a member sent after another replaces it.
			key := fd.FullName()
			o := fd.ContainingOneof()
			if o != nil && !o.IsSynthetic() {
				key = o.FullName()
			}
			f.cost = ownAlloc(fd, o != nil && !o.IsSynthetic())
			if f.cost == 0 {
				break
			}
			slot, ok := oneofs[key]
			if !ok {
				slot = len(oneofs)
				oneofs[key] = slot
			}
			if slot == maxSingles {
				panic(fmt.Sprintf("%s: more than %d fields allocated when set", md.FullName(), maxSingles))
			}
			f.single = slot
		}
		if lim, ok := own[fd.FullName()]; ok && lim.limit > 0 {
			if s.limited == maxLimitedLists {
				panic(fmt.Sprintf("%s: more than %d lists with a limit of their own", md.FullName(), maxLimitedLists))
			}
			f.limit, f.noun, f.flag, f.slot = lim.limit, lim.noun, lim.flag, s.limited
			s.limited++
		}
		s.hasLists = s.hasLists || f.list || f.sub != nil && f.sub.hasLists
		s.walk = s.walk || f.once >= 0 || f.cost > 0 || f.sub != nil && f.sub.walk
		if n := int(fd.Number()); n >= len(s.fields) {
			s.fields = append(s.fields, make([]*wireField, n+1-len(s.fields))...)
		}
		s.fields[fd.Number()] = f
	}
	return s
}

// goSize is the size of the Go struct protobuf-go decodes a message of md
// into, from the types the program was built with.
func goSize(md protoreflect.MessageDescriptor) int {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		panic(fmt.Sprintf("%s: no Go type: %v", md.FullName(), err))
	}
	return int(reflect.TypeOf(mt.Zero().Interface()).Elem().Size())
}

// ownAlloc is what setting the singular field fd allocates besides its
// message: the message it holds; for a oneof's member the wrapper that
// holds its value, and its message; for an optional number or text the
// value it points to. Other fields are inside their message.
func ownAlloc(fd protoreflect.FieldDescriptor, inOneof bool) int {
	n := 0
	if inOneof || fd.HasOptionalKeyword() && fd.Kind() != protoreflect.MessageKind {
		// 16 at least: the race detector's allocator does not pack
		// allocations smaller than that together.
		n = allocSize(max(slotSize(fd), 16))
	}
	if fd.Kind() == protoreflect.MessageKind {
		n += allocSize(goSize(fd.Message()))
	}
	return n
}

// slotSize is the size of one value of fd's kind in a Go slice or map: a
// message's pointer, a text's header, a number.
func slotSize(fd protoreflect.FieldDescriptor) int {
	switch fd.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return 8
	case protoreflect.StringKind:
		return 16
	case protoreflect.BytesKind:
		return 24
	case protoreflect.BoolKind:
		return 1
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind,
		protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return 8
	}
	return 4 // 32-bit numbers, floats and enums
}

// allocSize is what an allocation of n bytes takes: the first of the Go
// allocator's size classes of at least n, or n and an eighth above 1 KiB
// (the classes there are no wider apart).
func allocSize(n int) int {
	if n == 0 {
		return 0
	}
	classes := [...]int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
		288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024}
	for _, c := range classes {
		if n <= c {
			return c
		}
	}
	return n + n/8
}

// textSize is what a text of n bytes in a list takes besides its slot.
func textSize(n int) int {
	return allocSize(n)
}

// checkCounts is INVALID_ARGUMENT, naming the list, when the request m of
// one of this service's methods holds more list elements than its limits
// allow, or decodes to more than its size allows; every method checks its
// request with it before reading it. A request the codec cut short
// (codec.go) always fails here.
func (s *Service) checkCounts(m protoreflect.ProtoMessage) error {
	r := m.ProtoReflect()
	schema := s.limits.schemas[r.Descriptor().FullName()]
	// Within the slack no request is too large for its size, so the
	// request's size, a walk of its own, is needed only beyond it.
	t := tally{maxCost: s.limits.slack}
	path, problem := s.limits.count(r, schema, &t)
	if problem == costProblem {
		t = tally{maxCost: s.limits.maxCost(protov2.Size(m))}
		path, problem = s.limits.count(r, schema, &t)
	}
	if problem == costProblem {
		problem = s.limits.overCost()
	}
	if problem != "" {
		return invalidf(path, "%s", problem)
	}
	return nil
}

// costProblem is count's problem for a request that decodes to more than
// its size allows, until its text (requestLimits.overCost) is written.
const costProblem = "over cost"

// count adds the list elements and the estimate of m, a message of schema
// s, to t and reports the first list over a limit, or where the estimate
// goes over t.maxCost: its path and what is wrong.
func (l *requestLimits) count(m protoreflect.Message, s *wireSchema, t *tally) (path, problem string) {
	if u := m.GetUnknown(); len(u) > 0 {
		if path, reason, ok := refusal(u); ok {
			return path, reason
		}
		if f := s.resentField(u); f != nil {
			return string(f.desc.Name()), "sent more than once in one message, or with another wire type than its own; a protobuf library sends a field that holds one value once"
		}
		if num := countUnknown(u, t); num != 0 {
			return fmt.Sprint(num), fmt.Sprintf("the request holds more than %d fields this server does not know, the limit", maxUnknownFields)
		}
	}
	for _, f := range s.fields {
		if f == nil || f.cost == 0 && (f.sub == nil || !f.sub.walk) || !m.Has(f.desc) {
			continue
		}
		name := string(f.desc.Name())
		switch {
		case f.isMap:
			if path, problem := l.countMap(m.Get(f.desc).Map(), f, t); problem != "" {
				return path, problem
			}
		case f.list:
			list := m.Get(f.desc).List()
			t.elements += list.Len()
			t.cost += list.Len() * f.cost
			if f.text {
				for i := range list.Len() {
					t.cost += textSize(textLen(f.desc, list.Get(i)))
				}
			}
			switch {
			case f.limit > 0 && list.Len() > f.limit:
				return name, f.overLimit()
			case t.elements > l.maxElements:
				return name, l.overTotal()
			case t.cost > t.maxCost:
				return name, costProblem
			}
			if f.sub == nil || !f.sub.walk {
				continue
			}
			for i := range list.Len() {
				if path, problem := l.count(list.Get(i).Message(), f.sub, t); problem != "" {
					return fmt.Sprintf("%s[%d].%s", name, i, path), problem
				}
			}
		default:
			t.cost += f.cost
			if t.cost > t.maxCost {
				return name, costProblem
			}
			if f.sub == nil || !f.sub.walk {
				continue
			}
			if path, problem := l.count(m.Get(f.desc).Message(), f.sub, t); problem != "" {
				return name + "." + path, problem
			}
		}
	}
	return "", ""
}

// resentField is the singular field, of a message of s, that
// the message's unknown fields u hold: the codec's mark of a field sent
// too often (codec.go), or one a caller sent with another wire type.
func (s *wireSchema) resentField(u []byte) *wireField {
	for len(u) > 0 {
		num, typ, n := protowire.ConsumeTag(u)
		if n < 0 {
			return nil
		}
		m := protowire.ConsumeFieldValue(num, typ, u[n:])
		if m < 0 {
			return nil
		}
		u = u[n+m:]
		if int(num) < len(s.fields) && s.fields[num] != nil && s.fields[num].once >= 0 {
			return s.fields[num]
		}
	}
	return nil
}

// countUnknown adds the unknown fields u to t and returns the number of
// the field that takes them over maxUnknownFields, 0 if none does.
func countUnknown(u []byte, t *tally) protowire.Number {
	for len(u) > 0 {
		num, typ, n := protowire.ConsumeTag(u)
		if n < 0 {
			return 0
		}
		m := protowire.ConsumeFieldValue(num, typ, u[n:])
		if m < 0 {
			return 0
		}
		u = u[n+m:]
		if t.unknown++; t.unknown > maxUnknownFields {
			return num
		}
	}
	return 0
}

// countMap is count of the map mp of the field f.
func (l *requestLimits) countMap(mp protoreflect.Map, f *wireField, t *tally) (path, problem string) {
	name := string(f.desc.Name())
	t.cost += mp.Len() * f.cost
	if t.cost > t.maxCost {
		return name, costProblem
	}
	value := f.sub.fields[2].sub // a map entry's value is its field 2
	if value == nil {
		return "", ""
	}
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		t.cost += value.alloc
		if t.cost > t.maxCost {
			path, problem = name, costProblem
		} else if p, pr := l.count(v.Message(), value, t); pr != "" {
			path, problem = fmt.Sprintf("%s[%v].%s", name, k.Interface(), p), pr
		}
		return problem == ""
	})
	return path, problem
}

// textLen is the length of v, a text of the list fd: a string or bytes.
func textLen(fd protoreflect.FieldDescriptor, v protoreflect.Value) int {
	if fd.Kind() == protoreflect.BytesKind {
		return len(v.Bytes())
	}
	return len(v.String())
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

// overCost is what is wrong with a request that decodes to more than its
// size allows.
func (l *requestLimits) overCost() string {
	return fmt.Sprintf("the request's elements are too small for its size: decoded, it would take more than %d times its bytes plus %d MiB; "+
		"send fewer, longer elements (join short content parts, messages, bindings or prints)", l.factor, l.slack>>20)
}
