package server

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// leastAllocated is the fewest bytes call allocated in three calls, and
// the error of the last.
func leastAllocated(call func() error) (uint64, error) {
	least := uint64(1<<64 - 1)
	var err error
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err = call()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least, err
}

// TestAnswerPastTheLimitIsNotRendered: an answer that passes
// options.max_response_bytes is refused as soon as what was written of
// it passes the limit, not after it was built whole. A 4 MiB request of
// programs of control characters answers 24 MiB as tool calls, and 4 MiB
// of empty lines trace to 16 MiB; with a 1 MiB limit each is refused
// naming the option, and the bytes allocated (least of three) stay near
// the request and the limit, where the whole render allocated 34 to 98
// times the limit. The turns view of a chat log boxes its messages, a
// writer other than the program's box, held by the same count; the
// compressed view stops its strategy's messages by what their boxes
// show, where it built them whole (128 times the limit).
func TestAnswerPastTheLimitIsNotRendered(t *testing.T) {
	const limit = 1 << 20
	svc := New(Config{Limits: lisp.DefaultLimits()})
	ctx := context.Background()
	var programs []*ptcsidecarv1.Turn
	for range 64 {
		programs = append(programs, &ptcsidecarv1.Turn{Program: strings.Repeat("\x01", 64<<10), Result: edn("1")})
	}
	lines := strings.Repeat("\n", 4<<20)
	options := func(strategy string) *ptcsidecarv1.Options {
		return &ptcsidecarv1.Options{Strategy: strategy, ProgramForm: "tool_call", MaxResponseBytes: i32(limit)}
	}
	requests := map[string]proto.Message{
		"trace of a program of empty lines":  &ptcsidecarv1.RenderTraceRequest{Turns: []*ptcsidecarv1.Turn{{Program: lines, Result: edn("1")}}, Options: options("")},
		"trace of a chat log of empty lines": &ptcsidecarv1.RenderTraceRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: lines}}, Options: options("summarize")},
	}
	for _, st := range strategies.All() {
		if st.Input() == strategies.InputTurns && st.Name() != "summarize-turns" { // summarize-turns sends programs fenced
			requests[st.Name()+" of programs as calls"] = &ptcsidecarv1.ToMessagesRequest{Turns: programs, Options: options(st.Name())}
			requests[st.Name()+"'s compressed view of programs as calls"] = &ptcsidecarv1.RenderTraceRequest{Turns: programs, View: "compressed", Options: options(st.Name())}
		}
	}
	for name, req := range requests {
		t.Run(name, func(t *testing.T) {
			allocated, err := leastAllocated(func() error {
				var err error
				switch r := req.(type) {
				case *ptcsidecarv1.ToMessagesRequest:
					_, err = svc.ToMessages(ctx, r)
				case *ptcsidecarv1.RenderTraceRequest:
					_, err = svc.RenderTrace(ctx, r)
				}
				return err
			})
			if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "options.max_response_bytes") {
				t.Fatalf("want RESOURCE_EXHAUSTED naming options.max_response_bytes, got %v", err)
			}
			in := proto.Size(req)
			t.Logf("a %d-byte request allocated %.1f MB", in, float64(allocated)/1e6)
			if bound := uint64(2*in + 4*limit); allocated > bound {
				t.Errorf("a %d-byte request refused at a %d-byte limit allocated %d bytes, more than %d (twice the request and 4 times the limit): the answer was built past its limit", in, limit, allocated, bound)
			}
		})
	}
}

// TestAnswerWithinTheLimitIsRendered: the count that stops an answer
// counts only bytes the answer holds. Programs of spaces are 2 MiB of
// tool-call arguments, but their boxes in RenderTrace's compressed view
// show no trailing spaces: the trace is far below a 1 MiB limit and is
// sent.
func TestAnswerWithinTheLimitIsRendered(t *testing.T) {
	var turns []*ptcsidecarv1.Turn
	for range 4 {
		turns = append(turns, &ptcsidecarv1.Turn{Program: strings.Repeat(" ", 512<<10) + "1", Result: edn("1")})
	}
	in := &ptcsidecarv1.RenderTraceRequest{Turns: turns, View: "compressed",
		Options: &ptcsidecarv1.Options{Strategy: "full", ProgramForm: "tool_call", MaxResponseBytes: i32(1 << 20)}}
	out, err := New(Config{Limits: lisp.DefaultLimits()}).RenderTrace(context.Background(), in)
	if err != nil {
		t.Fatalf("a trace of %d bytes of programs of spaces: %v", proto.Size(in), err)
	}
	if n := proto.Size(out); n > 1<<20 {
		t.Fatalf("a %d-byte trace was sent past its 1 MiB limit", n)
	}
}

// TestAnswerWithinARaisedLimitIsWrittenOnce: the tool-call form writes
// each program's arguments once, shared by the answer, the statistics'
// "before" and the bill's earlier call. 16 programs of 64 KB of control
// characters, a 1 MiB request, answer 6 MiB of arguments under a raised
// limit; the bytes allocated (least of three) stay within the answer and
// the request, where three copies, each written into a buffer that
// doubled and then copied, allocated five times the answer.
func TestAnswerWithinARaisedLimitIsWrittenOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("measures allocation, which the race detector changes")
	}
	const limit = 64 << 20
	svc := New(Config{Limits: lisp.DefaultLimits()})
	var programs []*ptcsidecarv1.Turn
	for range 16 {
		programs = append(programs, &ptcsidecarv1.Turn{Program: strings.Repeat("\x01", 64<<10), Result: edn("1")})
	}
	for _, name := range []string{"full", "cache-stable", "single-user-coalesced"} {
		t.Run(name, func(t *testing.T) {
			req := &ptcsidecarv1.ToMessagesRequest{Turns: programs,
				Options: &ptcsidecarv1.Options{Strategy: name, ProgramForm: "tool_call", MaxResponseBytes: i32(limit)}}
			var answer int
			allocated, err := leastAllocated(func() error {
				out, err := svc.ToMessages(context.Background(), req)
				answer = proto.Size(out)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			in := proto.Size(req)
			t.Logf("a %d-byte request answering %d bytes allocated %.1f MB", in, answer, float64(allocated)/1e6)
			if bound := uint64(answer + in); allocated > bound {
				t.Errorf("a %d-byte request answering %d bytes allocated %d bytes, more than %d (the answer and the request): the arguments were written more than once", in, answer, allocated, bound)
			}
		})
	}
}

// TestAnswerOfEscapesWithinTheLimitIsSent: the count made before a
// program's arguments are written is what encoding/json writes, for every
// escape: a program of 100,000 \b (written \b, two bytes, where the count
// took six) answers within a limit of the answer's own size.
func TestAnswerOfEscapesWithinTheLimitIsSent(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	for _, c := range []string{"\b", "\f", "\n", "\t", `"`, `\`, "\x01", "<"} {
		req := &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Program: strings.Repeat(c, 100_000), Result: edn("1")}},
			Options: &ptcsidecarv1.Options{Strategy: "full", ProgramForm: "tool_call"}}
		out, err := svc.ToMessages(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		req.Options.MaxResponseBytes = i32(int32(proto.Size(out)))
		if _, err := svc.ToMessages(context.Background(), req); err != nil {
			t.Errorf("a program of %q within a limit of its answer's %d bytes: %v", c, proto.Size(out), err)
		}
	}
}

// TestSignatureOfMegabytesRendersAtItsSize: a tool signature the memo does
// not keep is parsed once per render, not once for each of the answer, the
// statistics' "before" and the bill's earlier call, and a parse costs a
// few times the signature, not a list grown a quarter at a time and each
// parameter's text copied three times. A 250,000-parameter signature (4.1
// MB) rendered by cache-stable in tool-call form allocated 53 times the
// request; the bound is 30 times (least of three).
func TestSignatureOfMegabytesRendersAtItsSize(t *testing.T) {
	var sig strings.Builder
	sig.WriteString("(q {")
	for i := range 250_000 {
		if i > 0 {
			sig.WriteString(", ")
		}
		sig.WriteString("p" + strconv.Itoa(i) + " :string")
	}
	sig.WriteString("}) -> :string")
	var turns []*ptcsidecarv1.Turn
	for i := range 3 {
		turns = append(turns, &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "(tool/get {})", Success: true, Result: edn("1")})
	}
	req := &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: "cache-stable", ProgramForm: "tool_call",
		Tools: []*ptcsidecarv1.ToolSpec{{Name: "get", Signature: sig.String(), Description: "Reads a file."}}}}
	svc := New(Config{Limits: lisp.DefaultLimits()})
	allocated, err := leastAllocated(func() error {
		_, err := svc.ToMessages(context.Background(), req)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	in := proto.Size(req)
	t.Logf("a %d-byte request allocated %.1f MB, %.0f times its size", in, float64(allocated)/1e6, float64(allocated)/float64(in))
	if bound := uint64(30 * in); allocated > bound {
		t.Errorf("a %d-byte signature's render allocated %d bytes, more than 30 times the request: it was parsed more than once", in, allocated)
	}
}
