package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// openStream starts an EvalTurnStream with req and returns it after the
// server's first message, which must be a tool call.
func openStream(t *testing.T, c ptcsidecarv1.SidecarServiceClient, req *ptcsidecarv1.EvalTurnRequest) ptcsidecarv1.SidecarService_EvalTurnStreamClient {
	t.Helper()
	stream, err := c.EvalTurnStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: req}}); err != nil {
		t.Fatal(err)
	}
	if msg, err := stream.Recv(); err != nil || msg.GetToolCall() == nil {
		t.Fatalf("first message: %v %v, want a tool call", msg, err)
	}
	return stream
}

func answer(t *testing.T, stream ptcsidecarv1.SidecarService_EvalTurnStreamClient, index int32, name, result string) *ptcsidecarv1.Turn {
	t.Helper()
	tr := &ptcsidecarv1.ToolResult{Index: index, Name: name, Result: edn(result)}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: tr}}); err != nil {
		t.Fatal(err)
	}
	msg, err := stream.Recv()
	if err != nil || msg.GetTurn() == nil {
		t.Fatalf("after the answer: %v %v, want the turn", msg, err)
	}
	return msg.GetTurn()
}

var getUser = []*ptcsidecarv1.ToolSpec{{Name: "get-user"}}

// noGoErrorText fails when a turn's texts carry Go's error strings.
func noGoErrorText(t *testing.T, turn *ptcsidecarv1.Turn) {
	t.Helper()
	texts := []string{turn.GetError().GetMessage(), turn.GetError().GetHint()}
	for _, c := range turn.GetToolCalls() {
		texts = append(texts, c.GetError())
	}
	for _, text := range texts {
		for _, goText := range []string{"context deadline exceeded", "context canceled", "EOF"} {
			if strings.Contains(text, goText) {
				t.Errorf("Go error text %q reached the turn: %q", goText, text)
			}
		}
	}
}

// A tool that answers after three times the evaluation timeout does not
// make the turn a timeout: only the evaluation's own time counts, in the
// stream as in replay.
func TestToolWaitDoesNotCountAgainstTheEvalTimeout(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{Program: `(:name (tool/get-user {:id 7}))`, Tools: getUser,
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 200}}
	stream := openStream(t, c, req)
	time.Sleep(600 * time.Millisecond) // the tool runs
	turn := answer(t, stream, 0, "get-user", `{:name "Ada"}`)
	if !turn.GetSuccess() || turn.GetResult().GetEdn() != `"Ada"` {
		t.Errorf("stream: %v, want \"Ada\"", turn)
	}

	resp, err := c.EvalTurn(context.Background(), req)
	if err != nil || resp.GetPending() == nil {
		t.Fatalf("replay: %v %v, want the pending call", resp, err)
	}
	time.Sleep(600 * time.Millisecond) // the tool runs
	req.ToolResults = []*ptcsidecarv1.ToolResult{{Index: 0, Name: "get-user", Args: resp.GetPending().GetCalls()[0].GetArgs(), Result: edn(`{:name "Ada"}`)}}
	resp, err = c.EvalTurn(context.Background(), req)
	if err != nil || !resp.GetTurn().GetSuccess() || resp.GetTurn().GetResult().GetEdn() != `"Ada"` {
		t.Errorf("replay: %v %v, want \"Ada\"", resp, err)
	}
}

// An unanswered tool call ends the turn with tool_timeout after the
// request's tool timeout (the message names it: the wall clock, which a
// busy machine stretches, is not judged), in words for the LLM.
func TestUnansweredToolCallEndsAsToolTimeout(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{Program: `(tool/get-user {:id 7})`, Tools: getUser,
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 5000, ToolTimeoutMs: 100}}
	stream := openStream(t, c, req)
	msg, err := stream.Recv() // never answered
	if err != nil {
		t.Fatal(err)
	}
	turn := msg.GetTurn()
	e := turn.GetError()
	if e.GetType() != "tool_timeout" || !strings.Contains(e.GetMessage(), "tool/get-user") || !strings.Contains(e.GetMessage(), "100ms") || e.GetHint() == "" {
		t.Errorf("unanswered call: error %v, want tool_timeout naming the tool and the limit, with a hint", e)
	}
	if len(turn.GetToolCalls()) != 1 || turn.GetToolCalls()[0].GetError() != e.GetMessage() {
		t.Errorf("tool calls %v, want the call with the timeout as its error", turn.GetToolCalls())
	}
	noGoErrorText(t, turn)
}

// The request's tool timeout lowers the server's, never raises it.
func TestToolTimeoutOnlyLowers(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits(), ToolTimeout: 100 * time.Millisecond})
	req := &ptcsidecarv1.EvalTurnRequest{Program: `(tool/get-user {:id 7})`, Tools: getUser,
		Limits: &ptcsidecarv1.Limits{ToolTimeoutMs: 60_000}}
	stream := openStream(t, c, req)
	msg, err := stream.Recv()
	if err != nil || msg.GetTurn().GetError().GetType() != "tool_timeout" {
		t.Fatalf("%v %v, want the server's 100ms tool timeout", msg, err)
	}

	req.Limits.ToolTimeoutMs = -1
	_, err = c.EvalTurn(context.Background(), req)
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "limits.tool_timeout_ms: ") {
		t.Errorf("negative tool timeout: %v, want INVALID_ARGUMENT naming limits.tool_timeout_ms", err)
	}
}

// A stream closed by its caller before start, or instead of an answer,
// ends with INVALID_ARGUMENT saying so.
func TestHalfClosedStreamIsInvalidArgument(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	stream, err := c.EvalTurnStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stream.CloseSend()
	_, err = stream.Recv()
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "start: the stream was closed before its first message") {
		t.Errorf("closed before start: %v", err)
	}

	stream = openStream(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(tool/get-user {:id 7})`, Tools: getUser})
	stream.CloseSend()
	_, err = stream.Recv()
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "tool_result: the stream was closed instead of answering tool call 0 (tool/get-user)") {
		t.Errorf("closed instead of an answer: %v", err)
	}
}

// A stream that ends where a message was due and is reset (cancelled) at
// once, as Node's HTTP/2 cancels a call (END_STREAM, then RST_STREAM), was
// cancelled; one that is not reset closed its side too early.
func TestEndedEarlyTellsACancelFromAClose(t *testing.T) {
	closed := invalidf("tool_result", "the stream was closed instead of answering")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if got := endedEarly(cancelled, closed); status.Code(got) != codes.Canceled {
		t.Errorf("ended, then cancelled: %v, want CANCELED", got)
	}
	if got := endedEarly(context.Background(), closed); got != closed {
		t.Errorf("ended only: %v, want the INVALID_ARGUMENT saying it closed", got)
	}
}

// A stream that never sends start ends after the start timeout.
func TestStreamWithoutStartEnds(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits(), StreamStartTimeout: 50 * time.Millisecond})
	stream, err := c.EvalTurnStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	if st := status.Convert(err); st.Code() != codes.DeadlineExceeded || !strings.HasPrefix(st.Message(), "start: no message within 50ms") {
		t.Errorf("no start: %v, want DEADLINE_EXCEEDED naming start", err)
	}
}

// busyLimits let a loop run until the request is cancelled or its clock
// runs out.
func busyLimits(timeout time.Duration) lisp.Limits {
	l := lisp.DefaultLimits()
	l.MaxSteps = 1 << 40
	l.Timeout = timeout
	return l
}

// With one evaluation slot taken, the next request waits for the queue
// wait and gets RESOURCE_EXHAUSTED; a stream waiting for a tool answer
// holds no slot, and resumes once it has one.
func TestAdmissionBoundsRunningEvaluations(t *testing.T) {
	svc := New(Config{Limits: busyLimits(time.Minute), MaxConcurrentEvals: 1, EvalQueueWait: 50 * time.Millisecond})
	c := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc))
	quick := &ptcsidecarv1.EvalTurnRequest{Program: `(+ 1 2)`}

	// A stream waiting for its tool's answer leaves the slot free.
	stream := openStream(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(:name (tool/get-user {:id 7}))`, Tools: getUser})
	if resp, err := c.EvalTurn(context.Background(), quick); err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Fatalf("with a stream waiting on a tool: %v %v, want 3", resp, err)
	}

	busyCtx, stopBusy := context.WithCancel(context.Background())
	var busy sync.WaitGroup
	busy.Go(func() {
		c.EvalTurn(busyCtx, &ptcsidecarv1.EvalTurnRequest{Program: `(loop [i 0] (recur (inc i)))`})
	})
	// Once the loop runs, the quick request is refused after the wait.
	var err error
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); { // a hang guard only
		if _, err = c.EvalTurn(context.Background(), quick); status.Code(err) == codes.ResourceExhausted {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "most evaluations at once (1)") {
		t.Errorf("with the slot taken: %v, want RESOURCE_EXHAUSTED", err)
	}

	// The stream's answer comes while the slot is taken: it waits for the
	// slot (its clock stopped), and finishes once the loop is cancelled.
	tr := &ptcsidecarv1.ToolResult{Index: 0, Name: "get-user", Result: edn(`{:name "Ada"}`)}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: tr}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	stopBusy()
	busy.Wait()
	msg, err := stream.Recv()
	if err != nil || msg.GetTurn().GetResult().GetEdn() != `"Ada"` {
		t.Errorf("the resumed stream: %v %v, want \"Ada\"", msg, err)
	}
	// The stream gives its slot back after it sends the turn, which a
	// busy machine may delay past the 50ms queue wait.
	for svc.AdmissionStats().Running != 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if resp, err := c.EvalTurn(context.Background(), quick); err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Errorf("after the loop: %v %v, want 3", resp, err)
	}
}

// Shutdown answers every call that runs an evaluation, UNAVAILABLE saying
// what it stopped: a stream waiting for a tool's answer, one waiting for
// its start message, and an evaluation in a loop; calls after it too.
func TestShutdownAnswersEveryEvaluation(t *testing.T) {
	svc := New(Config{Limits: busyLimits(time.Minute), MaxConcurrentEvals: 4})
	c := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc))
	waiting := openStream(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(:name (tool/get-user {:id 7}))`, Tools: getUser})
	unstarted, err := c.EvalTurnStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var busy sync.WaitGroup
	var busyErr error
	busy.Go(func() {
		_, busyErr = c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: `(loop [i 0] (recur (inc i)))`})
	})
	for svc.AdmissionStats().Running != 1 {
		time.Sleep(5 * time.Millisecond)
	}

	svc.Shutdown(context.Background())
	_, err = waiting.Recv()
	want := "the server is shutting down and stopped this call while it waited for the answer to tool call 0 (tool/get-user); nothing of it was kept"
	if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.HasPrefix(st.Message(), want) {
		t.Errorf("stream waiting for a tool: %v, want UNAVAILABLE %q", err, want)
	}
	_, err = unstarted.Recv()
	if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "stopped this call before its start message came") {
		t.Errorf("stream without start: %v, want UNAVAILABLE", err)
	}
	busy.Wait()
	if st := status.Convert(busyErr); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "stopped this call before its evaluation finished") {
		t.Errorf("evaluation in a loop: %v, want UNAVAILABLE", busyErr)
	}
	if _, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: `(+ 1 2)`}); status.Code(err) != codes.Unavailable {
		t.Errorf("an evaluation after the shutdown: %v, want UNAVAILABLE", err)
	}
	if svc.AdmissionStats().Running != 0 {
		t.Errorf("%d evaluation slots still held", svc.AdmissionStats().Running)
	}
}

// TestLargeRequestsTakeASlot: a request larger than --large-request-bytes
// takes an evaluation slot before it is decoded, whatever its method, and
// gives it back once answered; a smaller one never waits for one to be
// decoded or rendered.
func TestLargeRequestsTakeASlot(t *testing.T) {
	svc := New(Config{Limits: busyLimits(time.Minute), MaxConcurrentEvals: 1, EvalQueueWait: 50 * time.Millisecond, LargeRequestBytes: 4 << 10})
	c := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc))
	mission := strings.Repeat("abehqtxz", 1<<10) // 8 KiB
	large := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: mission}}
	small := &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: mission[:1<<10]}}
	// Its values are not read before it has a slot: a bad one is not
	// what it is refused for.
	largeEval := &ptcsidecarv1.EvalTurnRequest{Program: "1", PreviousResults: []*ptcsidecarv1.Value{{Edn: "[" + mission}}}
	trace := &ptcsidecarv1.RenderTraceRequest{Options: large.Options}

	if _, err := c.ToMessages(context.Background(), large); err != nil {
		t.Fatalf("a large request with the slot free: %v", err)
	}
	if st := svc.AdmissionStats(); st.Large != 1 || st.Running != 0 {
		t.Errorf("after it: %+v, want one large request and no slot held", st)
	}

	busyCtx, stopBusy := context.WithCancel(context.Background())
	var busy sync.WaitGroup
	busy.Go(func() {
		c.EvalTurn(busyCtx, &ptcsidecarv1.EvalTurnRequest{Program: `(loop [i 0] (recur (inc i)))`})
	})
	for svc.AdmissionStats().Running == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := c.ToMessages(context.Background(), small); err != nil {
		t.Errorf("a small request with the slot taken: %v", err)
	}
	for name, call := range map[string]func() error{
		"ToMessages":  func() error { _, err := c.ToMessages(context.Background(), large); return err },
		"EvalTurn":    func() error { _, err := c.EvalTurn(context.Background(), largeEval); return err },
		"RenderTrace": func() error { _, err := c.RenderTrace(context.Background(), trace); return err },
	} {
		st := status.Convert(call())
		if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "more than 4096 (--large-request-bytes)") {
			t.Errorf("%s, large, with the slot taken: %v, want RESOURCE_EXHAUSTED naming --large-request-bytes", name, st.Err())
		}
	}
	stopBusy()
	busy.Wait()
	// The caller has gone; the server's loop gives the slot back once it
	// sees that, which a busy machine may delay past the 50ms queue wait.
	for svc.AdmissionStats().Running != 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if st := status.Convert(func() error { _, err := c.EvalTurn(context.Background(), largeEval); return err }()); st.Code() != codes.InvalidArgument {
		t.Errorf("the large EvalTurn with the slot free: %v, want its value refused", st.Err())
	}
	if st := svc.AdmissionStats(); st.Large != 5 || st.Refused != 3 || st.Running != 0 {
		t.Errorf("at the end: %+v, want 5 large requests, 3 refused, no slot held", st)
	}
}
