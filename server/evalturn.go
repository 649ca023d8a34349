package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/replay"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// evaluation is an EvalTurnRequest decoded into the domain.
type evaluation struct {
	number      int
	rawResponse string
	program     string
	callID      string         // program_call's id, when the program came from it
	noProgram   bool           // raw_response holds no fenced program
	callErr     *lisp.Error    // why program_call holds no program (programcall.go)
	warnings    []lisp.Warning // what extracting the program forgave
	decoding    time.Duration  // how long decoding the request took: extracting the program, reading the values
	env         lisp.Env
	answers     []replay.Answer
	answerTimes []int64       // the caller's duration_ms per answered call
	toolTimeout time.Duration // EvalTurnStream's wait for each tool answer
}

// EvalTurn evaluates one program with the replay tool protocol: answered
// calls replay from tool_results, and the first unanswered call comes back
// as pending.
func (s *Service) EvalTurn(ctx context.Context, req *ptcsidecarv1.EvalTurnRequest) (resp *ptcsidecarv1.EvalTurnResponse, err error) {
	defer func() { spanError(ctx, err) }()
	if err := s.checkCounts(req); err != nil {
		return nil, err
	}
	ctx, done := s.during(ctx)
	defer done()
	defer func() {
		if stopped := shuttingDown(ctx, "before its evaluation finished"); stopped != nil {
			resp, err = nil, stopped
		}
	}()
	rd := s.newReader(ctx, false)
	defer rd.release() // a panic must not keep the slot
	if err := rd.admitRequest(proto.Size(req)); err != nil {
		return nil, err
	}
	ev, err := s.decodeEvaluation(rd, req, "")
	if err != nil {
		return nil, err
	}
	host := replay.NewHost(ev.answers)
	ev.env.Host = host
	if err := startClock(ev, rd); err != nil { // reading the values may have taken the slot already
		return nil, err
	}
	res, evalErr := s.evaluate(ctx, ev)
	if err := host.Check(); err != nil {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	if p := host.Pending(); p != nil {
		spanEvaluation(ctx, ev, res, p.Name)
		call := &ptcsidecarv1.ToolCall{Index: int32(p.Index), Name: p.Name, Args: encodeArgs(res, p.Index, p.Args)}
		fitCall(call)
		return &ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Pending{
			Pending: &ptcsidecarv1.PendingToolCalls{Calls: []*ptcsidecarv1.ToolCall{call}}}}, nil
	}
	if evalErr != nil {
		return nil, status.Errorf(codes.Internal, "EvalTurn: evaluation stopped without a pending call: %v", evalErr)
	}
	spanEvaluation(ctx, ev, res, "")
	return &ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Turn{Turn: encodeTurn(ev, res)}}, nil
}

// evaluate runs the request's program, reading it only when the server
// has not read the same text lately: a replayed turn sends its program on
// every round trip.
func (s *Service) evaluate(ctx context.Context, ev *evaluation) (*lisp.Result, error) {
	if ev.noProgram {
		// A failed turn like any other: the LLM reads why, memory stays.
		why := lisp.NoProgramError()
		if ev.callErr != nil {
			why = ev.callErr
		}
		return &lisp.Result{Value: lisp.Nil, Memory: ev.env.Prelude, Err: why}, nil
	}
	env := ev.env
	programs := rememberedPrograms{s.remembered.programs}
	env.Programs = programs
	res, err := lisp.Eval(ctx, ev.program, env)
	programs.recount(ev.program, env.MaxNesting)
	if res != nil && res.AllocBytes >= collectAfterBytes {
		collectGarbage()
	}
	return res, err
}

// collectAfterBytes is the allocation past which an evaluation's garbage
// is collected as it ends (collectGarbage). A program that built
// megabytes and failed, or kept only a summary, leaves them dead; the
// collector's next goal is twice what it last found live, and a cycle
// that ran while those megabytes were live sets it high, so the next
// evaluation builds its own on top of them: a million nested filters,
// sent three times, reached 24-27 MB of heap for 13 MB live, and its
// RSS peak moved with the machine's load (when the cycles fell). Typical
// programs allocate kilobytes and pay nothing.
const collectAfterBytes = 4 << 20

// collectGarbage runs a collection now, so that what the evaluation left
// dead is free before the next one starts (see collectAfterBytes). It
// costs a mark of what is live, a millisecond or two for the server's few
// megabytes at rest, on evaluations that have spent far more building
// what it frees.
func collectGarbage() { runtime.GC() }

// collectAfterRequestBytes is the request size past which ToMessages and
// RenderTrace collect their garbage as they end, as EvalTurn does after
// an evaluation that allocated collectAfterBytes: rendering allocates a
// few times its request (the texts decoded, sections written, tokens
// counted), and a 3.6 MB tool signature sent three times under a CPU hog
// built each render on the garbage of the one before, peaking at +103 MiB
// where alone it peaked at +59. Typical requests are kilobytes and pay
// nothing; a megabyte request's render costs tens of milliseconds, the
// collection one or two.
const collectAfterRequestBytes = 1 << 20

// collectAfterLargeRequest collects the garbage of a ToMessages or
// RenderTrace call of a request of size bytes, once it is large.
func collectAfterLargeRequest(size int) {
	if size >= collectAfterRequestBytes {
		collectGarbage()
	}
}

// startClock takes an evaluation slot (rd.admit) and starts ev's clock as
// if it had started when decoding the request did: the timeout counts the
// request's work, extracting the program, reading its values (by what
// their counted work allows: valueReader.readTime), reading, analysing
// and running the program. Waiting for a slot does not count.
func startClock(ev *evaluation, rd *valueReader) error {
	if err := rd.admit(); err != nil {
		return err
	}
	ev.env.Arrived = time.Now().Add(-rd.readTime(ev.decoding))
	return nil
}

// decodeEvaluation checks and converts a request, its values read by rd;
// prefix is prepended to field names ("start." inside a stream).
func (s *Service) decodeEvaluation(rd *valueReader, req *ptcsidecarv1.EvalTurnRequest, prefix string) (*evaluation, error) {
	ev := &evaluation{rawResponse: req.GetRawResponse(), program: req.GetProgram()}
	// The request's work counts against its evaluation timeout from here
	// on, and its reading against the work that timeout allows. Bad
	// limits are reported below, in their turn; the server's timeout sets
	// the read budget then.
	began := time.Now()
	defer func() { ev.decoding = time.Since(began) }()
	if limits, err := s.evalLimits(req.GetLimits(), prefix+"limits"); err == nil {
		rd.startReading(limits.Timeout)
	} else {
		rd.startReading(s.cfg.Limits.Timeout)
	}
	if call := req.GetProgramCall(); ev.program == "" && call != nil && !noCall(call) {
		var program string
		var callErr *lisp.Error
		var err error
		charge := func(work int64) error { return rd.chargeCall(work, prefix+"program_call.arguments") }
		rd.counted(func() { program, callErr, err = programFromCall(call, prefix+"program_call", charge) })
		if err != nil {
			return nil, err
		}
		ev.program, ev.callID, ev.callErr, ev.noProgram = program, call.GetId(), callErr, callErr != nil
	}
	if ev.program == "" && !ev.noProgram && ev.rawResponse != "" {
		if err := rd.chargeExtraction(ev.rawResponse, prefix+"raw_response"); err != nil {
			return nil, err
		}
		var found bool
		var err error
		rd.counted(func() {
			ev.program, found, ev.warnings, err = lisp.ExtractProgramContext(rd.readCtx(), ev.rawResponse)
		})
		if err != nil {
			return nil, rd.interrupted()
		}
		ev.noProgram = !found
	}
	if ev.program == "" && noCall(req.GetProgramCall()) {
		ev.noProgram, ev.callErr = true, noCallError() // tool-call form: the hint says to call the tool
	}
	if ev.program == "" && !ev.noProgram {
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
	prelude, preludeBytes, err := s.decodeMemory(rd, req.GetPrelude(), prefix+"prelude")
	if err != nil {
		return nil, err
	}
	data, dataTexts, err := rd.dataMap(req.GetData(), prefix+"data")
	if err != nil {
		return nil, err
	}
	tools := make([]string, 0, len(req.GetTools()))
	toolDocs := map[string]lisp.ToolDoc{}
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
		toolDocs[t.GetName()] = lisp.ToolDoc{Signature: t.GetSignature(), Description: t.GetDescription()}
	}
	limits, err := s.evalLimits(req.GetLimits(), prefix+"limits")
	if err != nil {
		return nil, err
	}
	if l := limits.MaxEmitBytes; l > 0 && preludeBytes > l {
		// Every turn would fail at the emit limit, and echo the prelude
		// whole as its unchanged memory: past a client's receive limit.
		return nil, invalidf(prefix+"prelude", "its bindings print as %d bytes, more than the %d bytes a turn's memory may hold (the emit limit, max_emit_bytes): every turn would fail; keep large data in data, which no turn echoes",
			preludeBytes, l)
	}
	if ev.toolTimeout, err = s.toolTimeout(req.GetLimits(), prefix+"limits.tool_timeout_ms"); err != nil {
		return nil, err
	}
	var previous []lisp.Value
	for i, pv := range req.GetPreviousResults() {
		v, err := rd.value(pv, fmt.Sprintf("%sprevious_results[%d]", prefix, i))
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
		a, err := decodeAnswer(rd, tr, i, field)
		if err != nil {
			return nil, err
		}
		ev.answers = append(ev.answers, a)
		ev.answerTimes = append(ev.answerTimes, tr.GetDurationMs())
	}
	ev.env = lisp.Env{Prelude: prelude, Data: data, Tools: tools, ToolDocs: toolDocs, PreviousResults: previous,
		Limits: limits, TurnNumber: ev.number, MaxNesting: s.maxValueDepth(), DataTexts: dataTexts}
	return ev, nil
}

// decodeAnswer converts the caller's answer to the call at index.
func decodeAnswer(rd *valueReader, tr *ptcsidecarv1.ToolResult, index int, field string) (replay.Answer, error) {
	if int(tr.GetIndex()) != index {
		return replay.Answer{}, invalidf(field+".index", "must be %d (answers are in call order), got %d", index, tr.GetIndex())
	}
	if tr.GetName() == "" {
		return replay.Answer{}, invalidf(field+".name", "empty")
	}
	args, err := rd.value(tr.GetArgs(), field+".args")
	if err != nil {
		return replay.Answer{}, err
	}
	result, err := rd.value(tr.GetResult(), field+".result")
	if err != nil {
		return replay.Answer{}, err
	}
	if result == nil && tr.GetError() == "" {
		// Taking this for a nil answer would turn a misspelled field into
		// one the program cannot tell from a real nil.
		return replay.Answer{}, invalidf(field+".result", "neither result nor error is set: send the tool's value as result (a nil value as the EDN text nil) or its failure as error")
	}
	if args == nil {
		args = lisp.Nil
	}
	if result == nil {
		result = lisp.Nil
	}
	return replay.Answer{Index: index, Name: tr.GetName(), Args: args, Result: result, Error: tr.GetError()}, nil
}

// decodeMemory loads a prelude from the wire. Each binding's value is
// read as every value of a request is (valueReader.read): EDN, JSON, or
// for a function or anything else EDN cannot spell its source, run under
// rd's context and evaluation slot, with the server's nesting setting.
// size is what the bindings count towards a turn's emit limit as its
// unchanged memory (lisp's checkEmitted): their texts, names and
// docstrings.
func (s *Service) decodeMemory(rd *valueReader, m *ptcsidecarv1.Memory, field string) (mem *lisp.Memory, size int64, err error) {
	wire := make([]lisp.WireBinding, len(m.GetBindings()))
	for i, b := range m.GetBindings() {
		v, err := rd.sampleAt(b.GetValue(), 0, func() string { return fmt.Sprintf("%s.bindings[%d].value", field, i) })
		if err != nil {
			return nil, 0, err
		}
		text := b.GetValue().GetEdn()
		switch {
		case v == nil:
			v, text = lisp.Nil, "nil"
		case text == "":
			// Read from JSON: kept, and sent back, as the sidecar writes
			// it, which must read back too. Checking and writing it is
			// part of reading it (a fifth of the reading's time), which
			// the clock counts by the value's read work, not by the
			// machine's speed.
			var err error
			rd.counted(func() {
				if err = lisp.ReadsBack(v, rd.svc.maxValueDepth(), "the value"); err == nil {
					text = lisp.WireText(v)
				}
			})
			if err != nil {
				return nil, 0, invalidf(fmt.Sprintf("%s.bindings[%d].value", field, i), "in its EDN text, which the turn's memory carries it in: %v", err)
			}
		}
		size += int64(len(text) + len(b.GetName()) + len(b.GetDocstring()))
		wire[i] = lisp.WireBinding{Name: b.GetName(), Value: text, Parsed: v, IsFn: b.GetIsFn(), Params: b.GetParams(),
			Docstring: b.GetDocstring(), ReturnType: b.GetReturnType(), Turn: int(b.GetTurn())}
	}
	if mem, err = lisp.DecodeMemory(context.Background(), wire); err != nil {
		return nil, 0, invalidf(field, "%v", err)
	}
	return mem, size, nil
}

// evalLimits lowers the server's limits by the request's: a field the
// caller sets below the server's limit takes effect, one above is capped,
// and 0 (unset) leaves the server's. A request cannot lift a limit, so a
// negative field is refused. The server's limits have their defaults
// filled in (New), so a negative one there is unlimited.
func (s *Service) evalLimits(l *ptcsidecarv1.Limits, field string) (lisp.Limits, error) {
	out := s.cfg.Limits
	if l == nil {
		return out, nil
	}
	wire := l.ProtoReflect()
	for _, row := range sandboxLimits {
		v := wire.Get(row.fd).Int()
		switch {
		case v < 0:
			return out, invalidf(field+"."+string(row.wire), "must not be negative, got %d", v)
		case v == 0:
			continue
		}
		limit := row.bind(&out, lisp.Limits{})
		cur, set := limit.Get(), v
		if row.millis {
			// Capped, so that no count of milliseconds overflows.
			cur, set = ceilMillis(cur), min(v, math.MaxInt64/int64(time.Millisecond))*int64(time.Millisecond)
		}
		if cur <= 0 || v < cur {
			limit.Put(set)
		}
	}
	return out, nil
}

// ceilMillis is the duration d in whole milliseconds, rounded up so that a
// request's timeout_ms never exceeds a server timeout below a millisecond;
// negative (unlimited) stays negative.
func ceilMillis(d int64) int64 {
	if d < 0 {
		return -1
	}
	return (d + int64(time.Millisecond) - 1) / int64(time.Millisecond)
}

// toolTimeout is the server's tool answer timeout, lowered by the
// request's when it asks for less.
func (s *Service) toolTimeout(l *ptcsidecarv1.Limits, field string) (time.Duration, error) {
	ms := l.GetToolTimeoutMs()
	switch {
	case ms < 0:
		return 0, invalidf(field, "must not be negative, got %d", ms)
	case ms > 0 && ms < s.cfg.ToolTimeout.Milliseconds():
		return time.Duration(ms) * time.Millisecond, nil
	}
	return s.cfg.ToolTimeout, nil
}

// encodeTurn builds the wire Turn of a finished evaluation: exactly what
// ToMessages takes back as history.
func encodeTurn(ev *evaluation, res *lisp.Result) *ptcsidecarv1.Turn {
	program, raw, cut := echoTexts(ev.program, ev.rawResponse, maxEchoBytes)
	t := &ptcsidecarv1.Turn{
		Number:        int32(ev.number),
		RawResponse:   raw,
		Program:       program,
		ProgramCallId: ev.callID,
		Prints:        res.Prints,
		Memory:        encodeMemory(res.Memory),
		Defined:       res.Defined,
		Success:       res.Err == nil,
		Returned:      res.Returned,
		Failed:        res.Failed,
		DurationMs:    res.Duration.Milliseconds(),
	}
	if res.Err == nil || res.Failed {
		t.Result = encodeValueText(res.Value, res.ValueText, res.ValueJSON)
	}
	if res.Err != nil {
		t.Error = &ptcsidecarv1.TurnError{Type: string(res.Err.Kind), Message: res.Err.Message, Hint: res.Err.Hint}
	}
	for _, w := range append(slices.Clip(ev.warnings), res.Warnings...) {
		t.Warnings = append(t.Warnings, &ptcsidecarv1.TurnWarning{Type: w.Type, Message: w.Message})
	}
	if cut {
		t.Warnings = append(t.Warnings, &ptcsidecarv1.TurnWarning{Type: warningEchoCut, Message: fmt.Sprintf(
			"the program and the reply were %d bytes; the turn carries their first %d. Send programs of a few kilobytes",
			len(ev.program)+len(ev.rawResponse), maxEchoBytes)})
	}
	for _, c := range res.ToolCalls {
		tc := &ptcsidecarv1.ToolCall{Index: int32(c.Index), Name: c.Name, Args: encodeValueText(c.Args, c.ArgsText, c.ArgsJSON),
			Result: encodeValue(c.Result), Error: c.Err, DurationMs: c.Duration.Milliseconds()}
		if c.Index < len(ev.answerTimes) {
			tc.DurationMs = ev.answerTimes[c.Index] // the tool ran on the caller's side
		}
		t.ToolCalls = append(t.ToolCalls, tc)
	}
	fitTurn(t)
	return t
}

// encodeArgs is encodeValue of args, the arguments of res's tool call at
// index, in the text and JSON the evaluation printed and was charged for,
// when it kept them.
func encodeArgs(res *lisp.Result, index int, args lisp.Value) *ptcsidecarv1.Value {
	if res != nil {
		for _, c := range res.ToolCalls {
			if c.Index == index {
				return encodeValueText(args, c.ArgsText, c.ArgsJSON)
			}
		}
	}
	return encodeValue(args)
}

// maxEchoBytes is the most of its program and raw_response a turn sends
// back. What the turn made is held to the emit limit (2 MiB by default);
// with its echo it fits the 4 MiB a gRPC client receives by default,
// however large the program it was sent. No model writes a program of a
// megabyte: a larger one is an attack or a mistake, and its turn carries
// its beginning and a warning.
const maxEchoBytes = 1 << 20

// warningEchoCut is the warning of a turn whose echo was cut.
const warningEchoCut = "echo_cut"

// echoTexts are program and raw as a turn echoes them, at most limit
// bytes together, and whether they were cut: the program keeps at least
// half, each cut text ends with a line saying what was left out.
func echoTexts(program, raw string, limit int) (string, string, bool) {
	if len(program)+len(raw) <= limit {
		return program, raw, false
	}
	program = cutEcho(program, max(limit/2, limit-len(raw)), ";; ")
	return program, cutEcho(raw, limit-len(program), ""), true
}

// cutEcho is s cut to at most n bytes, on a character boundary, with a
// last line (after prefix, a comment in a program) saying how much was
// left out.
func cutEcho(s string, n int, prefix string) string {
	if len(s) <= n {
		return s
	}
	note := fmt.Sprintf("\n%s... %d more bytes not echoed", prefix, len(s))
	cut := max(n-len(note)-20, 0) // the count shrinks as the cut grows
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n%s... %d more bytes not echoed", prefix, len(s)-cut)
}

// encodeMemory is m on the wire; its messages are made in two blocks, one
// for the bindings and one for their values, rather than two each.
func encodeMemory(m *lisp.Memory) *ptcsidecarv1.Memory {
	enc := m.Encode()
	out := &ptcsidecarv1.Memory{Bindings: make([]*ptcsidecarv1.Binding, len(enc))}
	bindings, values := make([]ptcsidecarv1.Binding, len(enc)), make([]ptcsidecarv1.Value, len(enc))
	for i, b := range enc {
		values[i].Edn = b.Value
		bd := &bindings[i]
		bd.Name, bd.Value, bd.IsFn, bd.Params = b.Name, &values[i], b.IsFn, b.Params
		bd.Docstring, bd.ReturnType, bd.Turn = b.Docstring, b.ReturnType, int32(b.Turn)
		out.Bindings[i] = bd
	}
	return out
}

// EvalTurnStream evaluates one program in a stream: the first client message
// carries the request, the server sends each tool call as the program makes
// it and waits for its answer, and the last server message is the Turn.
//
// The evaluation holds an evaluation slot (see admission) while it runs,
// and gives it up while it waits for a tool's answer; that wait is bounded
// by the tool timeout and does not count against the evaluation timeout.
func (s *Service) EvalTurnStream(stream grpc.BidiStreamingServer[ptcsidecarv1.EvalTurnStreamRequest, ptcsidecarv1.EvalTurnStreamResponse]) (err error) {
	defer func() { spanError(stream.Context(), err) }()
	ctx, done := s.during(stream.Context())
	defer done()
	var host *streamHost
	defer func() {
		doing := "before its start message came"
		switch {
		case host != nil && host.waiting != "":
			doing = "while it waited for the answer to " + host.waiting
		case host != nil:
			doing = "before its evaluation finished"
		}
		if stopped := shuttingDown(ctx, doing); stopped != nil {
			err = stopped
		}
	}()
	first, err := s.receiveStart(ctx, stream)
	if err != nil {
		return err
	}
	if err := s.checkCounts(first); err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil {
		return invalidf("start", "the first message of the stream must carry the request")
	}
	if len(start.GetToolResults()) > 0 {
		return invalidf("start.tool_results", "not used by EvalTurnStream: the server asks for each tool call on the stream")
	}
	rd := s.newReader(ctx, false)
	defer rd.release() // a panic must not keep the slot
	if err := rd.admitRequest(proto.Size(start)); err != nil {
		return err
	}
	ev, err := s.decodeEvaluation(rd, start, "start.")
	if err != nil {
		return err
	}
	if err := startClock(ev, rd); err != nil {
		return err
	}
	rd.handOver() // the host gives the slot back
	host = &streamHost{svc: s, stream: stream, toolTimeout: ev.toolTimeout, holding: true}
	defer host.release() // a panic must not keep the slot
	ev.env.Host = host
	res, evalErr := s.evaluate(ctx, ev)
	host.release() // before sending the turn, which may wait on a slow reader
	if context.Cause(ctx) == errShuttingDown {
		return nil // answered by the deferred function
	}
	if evalErr != nil {
		if host.err != nil {
			return host.err
		}
		return status.Errorf(codes.Internal, "EvalTurnStream: evaluation stopped: %v", evalErr)
	}
	ev.answerTimes = host.durations
	spanEvaluation(stream.Context(), ev, res, "")
	return stream.Send(&ptcsidecarv1.EvalTurnStreamResponse{Message: &ptcsidecarv1.EvalTurnStreamResponse_Turn{Turn: encodeTurn(ev, res)}})
}

type turnStream = grpc.BidiStreamingServer[ptcsidecarv1.EvalTurnStreamRequest, ptcsidecarv1.EvalTurnStreamResponse]

// receiveStart waits for the stream's first message, at most the stream
// start timeout: a stream that never sends one would otherwise hold its
// memory until the caller goes away.
func (s *Service) receiveStart(ctx context.Context, stream turnStream) (*ptcsidecarv1.EvalTurnStreamRequest, error) {
	timer := time.NewTimer(s.cfg.StreamStartTimeout)
	defer timer.Stop()
	var r received
	select {
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case r = <-receive(stream):
	case <-timer.C:
		return nil, status.Errorf(codes.DeadlineExceeded,
			"start: no message within %s of opening the stream; send start, the EvalTurnRequest, as the first message", s.cfg.StreamStartTimeout)
	}
	if r.err == io.EOF {
		return nil, endedEarly(ctx, invalidf("start", "the stream was closed before its first message; send start, the EvalTurnRequest, then wait for the turn"))
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := s.checkCounts(r.msg); err != nil {
		return nil, err
	}
	return r.msg, nil
}

// cancelGrace is how long a stream that ended where a message was due
// waits to be reset: see endedEarly.
const cancelGrace = 250 * time.Millisecond

// endedEarly is the answer to a stream that ended (io.EOF) where a message
// was due. A client that cancels its call may end its side of the stream
// just before it resets it (Node's HTTP/2 does: END_STREAM, then
// RST_STREAM), so the reset is waited for, briefly: if it comes the call
// was cancelled, and is logged so; if not, the client closed its side too
// early, and closed, the INVALID_ARGUMENT saying so, is the answer.
func endedEarly(ctx context.Context, closed error) error {
	t := time.NewTimer(cancelGrace)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	case <-t.C:
		return closed
	}
}

// receive reads the stream's next message in a goroutine of its own, so
// that the caller can stop waiting; the goroutine ends when a message
// comes or when the RPC ends.
func receive(stream turnStream) <-chan received {
	got := make(chan received, 1)
	go func() {
		msg, err := stream.Recv()
		got <- received{msg, err}
	}()
	return got
}

// streamHost runs each tool call as a round trip on the stream.
type streamHost struct {
	svc         *Service
	stream      turnStream
	toolTimeout time.Duration
	holding     bool   // of an evaluation slot
	waiting     string // the tool call whose answer it waits for, if any
	next        int
	durations   []int64
	err         error // why the stream was abandoned, returned as the RPC status
}

type received struct {
	msg *ptcsidecarv1.EvalTurnStreamRequest
	err error
}

// release gives the evaluation slot back, if the host holds it.
func (h *streamHost) release() {
	if h.holding {
		h.holding = false
		h.svc.evals.leave()
	}
}

// CallTool is CallToolPrinted of a call whose arguments were not printed.
func (h *streamHost) CallTool(ctx context.Context, name string, args lisp.Value) (lisp.Value, error) {
	return h.CallToolPrinted(ctx, lisp.ToolCallRecord{Name: name, Args: args})
}

// CallToolPrinted sends the call, its arguments in the text and JSON the
// emit check printed and charged (EvalTurn's turn sends the same), and
// waits for its answer, at most the tool timeout, with the evaluation's
// slot given up meanwhile. The lisp clock is stopped during the call, so
// only the tool timeout bounds the wait.
func (h *streamHost) CallToolPrinted(ctx context.Context, c lisp.ToolCallRecord) (lisp.Value, error) {
	index, name := h.next, c.Name
	h.next++
	h.release()
	call := &ptcsidecarv1.ToolCall{Index: int32(index), Name: name, Args: encodeValueText(c.Args, c.ArgsText, c.ArgsJSON)}
	fitCall(call)
	if err := h.stream.Send(&ptcsidecarv1.EvalTurnStreamResponse{Message: &ptcsidecarv1.EvalTurnStreamResponse_ToolCall{ToolCall: call}}); err != nil {
		return nil, h.abandon(err)
	}
	timer := time.NewTimer(h.toolTimeout)
	defer timer.Stop()
	h.waiting = fmt.Sprintf("tool call %d (tool/%s)", index, name)
	var r received
	select {
	case r = <-receive(h.stream):
	case <-timer.C:
		// The evaluation ends here (a program cannot catch an error), so
		// no later call receives on the stream while this receive waits.
		return nil, lisp.Errorf(lisp.ToolTimeout, "tool/%s did not answer within %s", name, h.toolTimeout).
			WithHint("the tool is slow or unavailable; ask it for less at once, or go on without it")
	case <-ctx.Done():
		// The request was cancelled, or the server is shutting down. The
		// receiving goroutine ends with the stream, when this RPC returns.
		return nil, ctx.Err()
	}
	h.waiting = ""
	if r.err == nil {
		r.err = h.svc.checkCounts(r.msg)
	}
	switch {
	case r.err == io.EOF:
		return nil, h.abandon(endedEarly(ctx, invalidf("tool_result", "the stream was closed instead of answering tool call %d (tool/%s); send its tool_result, then wait for the turn", index, name)))
	case r.err != nil:
		return nil, h.abandon(r.err)
	}
	tr := r.msg.GetToolResult()
	if tr == nil {
		return nil, h.abandon(invalidf("tool_result", "expected the answer to tool call %d", index))
	}
	// The slot first: reading the answer may run source.
	if err := h.svc.evals.resume(ctx); err != nil {
		return nil, h.abandon(err)
	}
	h.holding = true
	rd := h.svc.newReader(ctx, true)
	rd.sized(proto.Size(r.msg))
	answer, err := decodeAnswer(rd, tr, index, fmt.Sprintf("tool_result[%d]", index))
	rd.release()
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
