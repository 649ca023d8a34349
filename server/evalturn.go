package server

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/replay"
	"github.com/ptc-sidecar/ptc-sidecar/internal/valuecache"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// evaluation is an EvalTurnRequest decoded into the domain.
type evaluation struct {
	number      int
	rawResponse string
	program     string
	env         lisp.Env
	answers     []replay.Answer
	answerTimes []int64 // the caller's duration_ms per answered call
}

// EvalTurn evaluates one program with the replay tool protocol: answered
// calls replay from tool_results, and the first unanswered call comes back
// as pending.
func (s *Service) EvalTurn(ctx context.Context, req *ptcsidecarv1.EvalTurnRequest) (*ptcsidecarv1.EvalTurnResponse, error) {
	ev, err := s.decodeEvaluation(req, "")
	if err != nil {
		return nil, err
	}
	host := replay.NewHost(ev.answers)
	ev.env.Host = host
	res, evalErr := s.evaluate(ctx, ev)
	if err := host.Check(); err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	if p := host.Pending(); p != nil {
		call := &ptcsidecarv1.ToolCall{Index: int32(p.Index), Name: p.Name, Args: encodeValue(p.Args)}
		return &ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Pending{
			Pending: &ptcsidecarv1.PendingToolCalls{Calls: []*ptcsidecarv1.ToolCall{call}}}}, nil
	}
	if evalErr != nil {
		return nil, status.Errorf(codes.Internal, "EvalTurn: evaluation stopped without a pending call: %v", evalErr)
	}
	return &ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Turn{Turn: encodeTurn(ev, res)}}, nil
}

// evaluate runs the request's program, reading it only when the server
// has not read the same text lately: a replayed turn sends its program on
// every round trip.
func (s *Service) evaluate(ctx context.Context, ev *evaluation) (*lisp.Result, error) {
	p := s.programs.read(ev.program, ev.env.MaxNesting)
	if p == nil {
		// It does not read: Eval reports the parse error as the turn's.
		return lisp.Eval(ctx, ev.program, ev.env)
	}
	return lisp.EvalProgram(ctx, p, ev.env)
}

// Bounds of the program cache. Read forms, and the analysis a Program keeps
// once evaluated, take about ten times the bytes of their text each (2.5
// and 2.7 KB for a 244-byte program), so the text bound keeps the cache to
// about 5 MB.
const (
	maxCachedPrograms      = 256
	maxCachedProgramBytes  = 256 << 10 // of program text, all entries together
	maxCachedProgramLength = 16 << 10  // a longer program is read every time
)

// programCache keeps recent programs, read (and analyzed once evaluated:
// see lisp.Program), keyed by their exact text and nesting bound, and
// forgets the oldest first. Its zero value is empty and ready.
type programCache struct {
	mu       sync.Mutex
	programs map[programKey]*lisp.Program
	order    []programKey // oldest first
	bytes    int
}

type programKey struct {
	text       string
	maxNesting int
}

// read returns the program read from text, or nil when text does not read.
func (c *programCache) read(text string, maxNesting int) *lisp.Program {
	key := programKey{text, maxNesting}
	c.mu.Lock()
	p := c.programs[key]
	c.mu.Unlock()
	if p != nil {
		return p
	}
	p, err := lisp.ReadProgram(text, maxNesting)
	if err != nil {
		return nil
	}
	if len(text) > maxCachedProgramLength {
		return p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.programs[key]; ok {
		return p // another request read it meanwhile
	}
	if c.programs == nil {
		c.programs = map[programKey]*lisp.Program{}
	}
	for len(c.order) > 0 && (len(c.order) >= maxCachedPrograms || c.bytes+len(text) > maxCachedProgramBytes) {
		oldest := c.order[0]
		c.order = c.order[1:]
		delete(c.programs, oldest)
		c.bytes -= len(oldest.text)
	}
	c.programs[key] = p
	c.order = append(c.order, key)
	c.bytes += len(text)
	return p
}

// decodeEvaluation checks and converts a request; prefix is prepended to
// field names ("start." inside a stream).
func (s *Service) decodeEvaluation(req *ptcsidecarv1.EvalTurnRequest, prefix string) (*evaluation, error) {
	ev := &evaluation{rawResponse: req.GetRawResponse(), program: req.GetProgram()}
	if ev.program == "" {
		ev.program = lisp.ExtractProgram(ev.rawResponse)
	}
	if ev.program == "" {
		return nil, invalidf(prefix+"program", "empty: set program, or raw_response holding the LLM's reply")
	}
	switch n := req.GetTurnNumber(); {
	case n < 0:
		return nil, invalidf(prefix+"turn_number", "must be 1 or more, got %d", n)
	case n == 0:
		ev.number = 1 // unset: the first turn
	default:
		ev.number = int(n)
	}
	prelude, err := s.decodeMemory(req.GetPrelude(), prefix+"prelude")
	if err != nil {
		return nil, err
	}
	data, err := s.decodeMap(req.GetData(), prefix+"data")
	if err != nil {
		return nil, err
	}
	tools := make([]string, 0, len(req.GetTools()))
	seen := map[string]bool{}
	for i, t := range req.GetTools() {
		switch {
		case t.GetName() == "":
			return nil, invalidf(fmt.Sprintf("%stools[%d].name", prefix, i), "empty")
		case seen[t.GetName()]:
			return nil, invalidf(fmt.Sprintf("%stools[%d].name", prefix, i), "tool %q is declared twice", t.GetName())
		}
		seen[t.GetName()] = true
		tools = append(tools, t.GetName())
	}
	limits, err := s.evalLimits(req.GetLimits(), prefix+"limits")
	if err != nil {
		return nil, err
	}
	var previous []lisp.Value
	for i, pv := range req.GetPreviousResults() {
		v, err := s.decodeValue(pv, fmt.Sprintf("%sprevious_results[%d]", prefix, i))
		if err != nil {
			return nil, err
		}
		if v == nil {
			v = lisp.Nil
		}
		previous = append(previous, v)
	}
	for i, tr := range req.GetToolResults() {
		field := fmt.Sprintf("%stool_results[%d]", prefix, i)
		a, err := s.decodeAnswer(tr, i, field)
		if err != nil {
			return nil, err
		}
		ev.answers = append(ev.answers, a)
		ev.answerTimes = append(ev.answerTimes, tr.GetDurationMs())
	}
	ev.env = lisp.Env{Prelude: prelude, Data: data, Tools: tools, PreviousResults: previous,
		Limits: limits, TurnNumber: ev.number, MaxNesting: s.maxValueDepth()}
	return ev, nil
}

// decodeAnswer converts the caller's answer to the call at index.
func (s *Service) decodeAnswer(tr *ptcsidecarv1.ToolResult, index int, field string) (replay.Answer, error) {
	if int(tr.GetIndex()) != index {
		return replay.Answer{}, invalidf(field+".index", "must be %d (answers are in call order), got %d", index, tr.GetIndex())
	}
	if tr.GetName() == "" {
		return replay.Answer{}, invalidf(field+".name", "empty")
	}
	args, err := s.decodeValue(tr.GetArgs(), field+".args")
	if err != nil {
		return replay.Answer{}, err
	}
	result, err := s.decodeValue(tr.GetResult(), field+".result")
	if err != nil {
		return replay.Answer{}, err
	}
	if args == nil {
		args = lisp.Nil
	}
	if result == nil {
		result = lisp.Nil
	}
	return replay.Answer{Index: index, Name: tr.GetName(), Args: args, Result: result, Error: tr.GetError()}, nil
}

// decodeMemory loads a prelude from the wire.
func (s *Service) decodeMemory(m *ptcsidecarv1.Memory, field string) (*lisp.Memory, error) {
	wire := make([]lisp.WireBinding, len(m.GetBindings()))
	for i, b := range m.GetBindings() {
		var (
			text   string
			parsed lisp.Value
		)
		switch r := b.GetValue().GetRepr().(type) {
		case *ptcsidecarv1.Value_Edn:
			text = r.Edn
			if !b.GetIsFn() {
				// A value that does not read as EDN may hold functions;
				// DecodeMemory loads it as source.
				key := valuecache.Key{Format: valuecache.EDN, MaxNesting: lisp.DefaultMaxNesting, Text: text}
				parsed, _ = s.values.Decode(key, func() (lisp.Value, error) { return lisp.ParseEDN(text, lisp.DefaultMaxNesting) })
			}
		case *ptcsidecarv1.Value_Json:
			v, err := s.decodeValue(b.GetValue(), fmt.Sprintf("%s.bindings[%d].value", field, i))
			if err != nil {
				return nil, err
			}
			text = lisp.Repr(v)
		default:
			text = "nil"
		}
		wire[i] = lisp.WireBinding{Name: b.GetName(), Value: text, Parsed: parsed, IsFn: b.GetIsFn(), Params: b.GetParams(),
			Docstring: b.GetDocstring(), ReturnType: b.GetReturnType(), Turn: int(b.GetTurn())}
	}
	mem, err := lisp.DecodeMemory(wire)
	if err != nil {
		return nil, invalidf(field, "%v", err)
	}
	return mem, nil
}

// evalLimits lowers the server's limits by the request's: a field the
// caller sets below the server's limit takes effect, one above is capped.
func (s *Service) evalLimits(l *ptcsidecarv1.Limits, field string) (lisp.Limits, error) {
	out := s.cfg.Limits
	checks := []struct {
		name string
		val  int64
		dst  func(int64)
		cur  int64
	}{
		{"max_steps", l.GetMaxSteps(), func(v int64) { out.MaxSteps = v }, out.MaxSteps},
		{"max_alloc_bytes", l.GetMaxAllocBytes(), func(v int64) { out.MaxAllocBytes = v }, out.MaxAllocBytes},
		{"max_depth", int64(l.GetMaxDepth()), func(v int64) { out.MaxDepth = int(v) }, int64(out.MaxDepth)},
		{"max_output_bytes", int64(l.GetMaxOutputBytes()), func(v int64) { out.MaxOutputBytes = int(v) }, int64(out.MaxOutputBytes)},
		{"max_tool_calls", int64(l.GetMaxToolCalls()), func(v int64) { out.MaxToolCalls = int(v) }, int64(out.MaxToolCalls)},
		{"timeout_ms", l.GetTimeoutMs(), func(v int64) { out.Timeout = time.Duration(v) * time.Millisecond }, out.Timeout.Milliseconds()},
		{"max_emit_bytes", l.GetMaxEmitBytes(), func(v int64) { out.MaxEmitBytes = v }, out.MaxEmitBytes},
	}
	for _, c := range checks {
		switch {
		case c.val < 0:
			return out, invalidf(field+"."+c.name, "must not be negative, got %d", c.val)
		case c.val > 0 && (c.cur <= 0 || c.val < c.cur):
			c.dst(c.val)
		}
	}
	return out, nil
}

// encodeTurn builds the wire Turn of a finished evaluation: exactly what
// ToMessages takes back as history.
func encodeTurn(ev *evaluation, res *lisp.Result) *ptcsidecarv1.Turn {
	t := &ptcsidecarv1.Turn{
		Number:      int32(ev.number),
		RawResponse: ev.rawResponse,
		Program:     ev.program,
		Prints:      res.Prints,
		Memory:      encodeMemory(res.Memory),
		Defined:     res.Defined,
		Success:     res.Err == nil,
		Returned:    res.Returned,
		Failed:      res.Failed,
		DurationMs:  res.Duration.Milliseconds(),
	}
	if res.Err == nil || res.Failed {
		t.Result = encodeValue(res.Value)
	}
	if res.Err != nil {
		t.Error = &ptcsidecarv1.TurnError{Type: string(res.Err.Kind), Message: res.Err.Message, Hint: res.Err.Hint}
	}
	for _, c := range res.ToolCalls {
		tc := &ptcsidecarv1.ToolCall{Index: int32(c.Index), Name: c.Name, Args: encodeValue(c.Args),
			Result: encodeValue(c.Result), Error: c.Err, DurationMs: c.Duration.Milliseconds()}
		if c.Index < len(ev.answerTimes) {
			tc.DurationMs = ev.answerTimes[c.Index] // the tool ran on the caller's side
		}
		t.ToolCalls = append(t.ToolCalls, tc)
	}
	return t
}

func encodeMemory(m *lisp.Memory) *ptcsidecarv1.Memory {
	out := &ptcsidecarv1.Memory{}
	for _, b := range m.Encode() {
		out.Bindings = append(out.Bindings, &ptcsidecarv1.Binding{
			Name: b.Name, Value: &ptcsidecarv1.Value{Repr: &ptcsidecarv1.Value_Edn{Edn: b.Value}},
			IsFn: b.IsFn, Params: b.Params, Docstring: b.Docstring, ReturnType: b.ReturnType, Turn: int32(b.Turn)})
	}
	return out
}

// EvalTurnStream evaluates one program in a stream: the first client message
// carries the request, the server sends each tool call as the program makes
// it and waits for its answer, and the last server message is the Turn.
func (s *Service) EvalTurnStream(stream grpc.BidiStreamingServer[ptcsidecarv1.EvalTurnStreamRequest, ptcsidecarv1.EvalTurnStreamResponse]) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil {
		return invalidf("start", "the first message of the stream must carry the request")
	}
	if len(start.GetToolResults()) > 0 {
		return invalidf("start.tool_results", "not used by EvalTurnStream: the server asks for each tool call on the stream")
	}
	ev, err := s.decodeEvaluation(start, "start.")
	if err != nil {
		return err
	}
	host := &streamHost{svc: s, stream: stream}
	ev.env.Host = host
	res, evalErr := s.evaluate(stream.Context(), ev)
	if evalErr != nil {
		if host.err != nil {
			return host.err
		}
		return status.Errorf(codes.Internal, "EvalTurnStream: evaluation stopped: %v", evalErr)
	}
	ev.answerTimes = host.durations
	return stream.Send(&ptcsidecarv1.EvalTurnStreamResponse{Message: &ptcsidecarv1.EvalTurnStreamResponse_Turn{Turn: encodeTurn(ev, res)}})
}

// streamHost runs each tool call as a round trip on the stream.
type streamHost struct {
	svc       *Service
	stream    grpc.BidiStreamingServer[ptcsidecarv1.EvalTurnStreamRequest, ptcsidecarv1.EvalTurnStreamResponse]
	next      int
	durations []int64
	err       error // why the stream was abandoned, returned as the RPC status
}

type received struct {
	msg *ptcsidecarv1.EvalTurnStreamRequest
	err error
}

// CallTool sends the call and waits for its answer. The wait ends with the
// evaluation's context, so a caller that never answers runs into the
// evaluation timeout like any slow program.
func (h *streamHost) CallTool(ctx context.Context, name string, args lisp.Value) (lisp.Value, error) {
	index := h.next
	h.next++
	call := &ptcsidecarv1.ToolCall{Index: int32(index), Name: name, Args: encodeValue(args)}
	if err := h.stream.Send(&ptcsidecarv1.EvalTurnStreamResponse{Message: &ptcsidecarv1.EvalTurnStreamResponse_ToolCall{ToolCall: call}}); err != nil {
		return nil, h.abandon(err)
	}
	got := make(chan received, 1)
	go func() {
		msg, err := h.stream.Recv()
		got <- received{msg, err}
	}()
	var r received
	select {
	case r = <-got:
	case <-ctx.Done():
		// The receiving goroutine ends with the stream, when this RPC returns.
		return nil, ctx.Err()
	}
	if r.err != nil {
		return nil, h.abandon(r.err)
	}
	tr := r.msg.GetToolResult()
	if tr == nil {
		return nil, h.abandon(invalidf("tool_result", "expected the answer to tool call %d", index))
	}
	answer, err := h.svc.decodeAnswer(tr, index, fmt.Sprintf("tool_result[%d]", index))
	if err != nil {
		return nil, h.abandon(err)
	}
	if answer.Name != name {
		return nil, h.abandon(invalidf(fmt.Sprintf("tool_result[%d].name", index), "answers %q, but the call is to %q", answer.Name, name))
	}
	h.durations = append(h.durations, tr.GetDurationMs())
	if answer.Error != "" {
		return nil, errors.New(answer.Error)
	}
	return answer.Result, nil
}

// abandon records why the stream cannot go on and stops the evaluation.
func (h *streamHost) abandon(err error) error {
	h.err = err
	return fmt.Errorf("%w: %v", lisp.ErrSuspend, err)
}
