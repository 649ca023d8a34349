package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestProgramFromToolCall: EvalTurn runs the program a run_ptc_lisp call
// carries, by both protocols; the turn keeps the call's id and the reply's
// text, and ToMessages in tool-call form renders it as that call.
func TestProgramFromToolCall(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	call := &ptcsidecarv1.ChatToolCall{Id: "call_7Xz", Name: "run_ptc_lisp", Arguments: `{"program": "(def n (tool/count {}))\n(* n 2)"}`}
	req := &ptcsidecarv1.EvalTurnRequest{ProgramCall: call, RawResponse: "Counting.", Tools: []*ptcsidecarv1.ToolSpec{{Name: "count"}}}
	resp, err := c.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.GetPending().GetCalls(); len(p) != 1 || p[0].GetName() != "count" {
		t.Fatalf("want the pending call of count, got %v", resp)
	}
	streamed, _, err := streamTurn(t, c, req, func(c *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
		return &ptcsidecarv1.ToolResult{Index: c.GetIndex(), Name: c.GetName(), Args: c.GetArgs(), Result: edn("21")}
	})
	if err != nil {
		t.Fatal(err)
	}
	req.ToolResults = []*ptcsidecarv1.ToolResult{{Index: 0, Name: "count", Args: edn("{}"), Result: edn("21")}}
	resp, err = c.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, turn := range []*ptcsidecarv1.Turn{resp.GetTurn(), streamed} {
		if !turn.GetSuccess() || turn.GetResult().GetEdn() != "42" || turn.GetProgram() != "(def n (tool/count {}))\n(* n 2)" ||
			turn.GetProgramCallId() != "call_7Xz" || turn.GetRawResponse() != "Counting." {
			t.Fatalf("turn %v", turn)
		}
	}
	out, err := c.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{
		Turns: []*ptcsidecarv1.Turn{resp.GetTurn()}, Memory: resp.GetTurn().GetMemory(),
		Options: &ptcsidecarv1.Options{ProgramForm: "tool_call"},
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs := out.GetMessages()
	if len(msgs) < 4 || msgs[2].GetToolCalls()[0].GetId() != "call_7Xz" || msgs[3].GetToolCallId() != "call_7Xz" || msgs[2].GetContent() != "Counting." {
		t.Fatalf("messages %v", msgs)
	}
	if pt := out.GetStats().GetProgramTool(); pt.GetName() != "run_ptc_lisp" || !strings.Contains(pt.GetParameters(), `"program"`) {
		t.Errorf("program tool %v", pt)
	}
}

// TestBadProgramCall: a call of another tool is INVALID_ARGUMENT naming
// the field; arguments that do not hold a program string are the LLM's
// mistake, a failed no_program turn that names the field and says how to
// call the tool, memory unchanged, and the reply's text is not searched for
// a program instead.
func TestBadProgramCall(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	_, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{Name: "search", Arguments: `{"program": "1"}`}})
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "program_call.name: ") {
		t.Errorf("a call of another tool: %v %q", st.Code(), st.Message())
	} else {
		checkFieldViolation(t, st)
	}
	prelude := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn("1"), Turn: 1}}}
	for _, args := range []string{`{"program": "1"`, `["(+ 1 2)"]`, `null`, `{"Program": "(def x 2)"}`, `{"program": 1}`, `{"program": " "}`} {
		req := &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{Id: "c1", Arguments: args}, RawResponse: "```clojure\n(def x 3)\n```", Prelude: prelude}
		resp, err := c.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		streamed, _, err := streamTurn(t, c, req, nil)
		if err != nil {
			t.Fatalf("%s streamed: %v", args, err)
		}
		for _, turn := range []*ptcsidecarv1.Turn{resp.GetTurn(), streamed} {
			e := turn.GetError()
			if turn.GetSuccess() || e.GetType() != "no_program" || !strings.HasPrefix(e.GetMessage(), "the run_ptc_lisp call's arguments (program_call.arguments): ") || !strings.Contains(e.GetHint(), "run_ptc_lisp") {
				t.Errorf("%s: turn %v", args, turn)
			}
			if !proto.Equal(turn.GetMemory(), prelude) || turn.GetProgramCallId() != "c1" {
				t.Errorf("%s: memory %v, call id %q", args, turn.GetMemory(), turn.GetProgramCallId())
			}
		}
	}
}

// TestReplyWithoutACall: program_call set with neither id nor arguments
// says the reply, in tool-call form, made no call. A fenced program in its
// text still runs; without one the no_program turn tells the LLM to call
// run_ptc_lisp, not to write a fenced block; a fenced-form reply keeps the
// fenced hint.
func TestReplyWithoutACall(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	prelude := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn("1"), Turn: 1}}}
	for _, call := range []*ptcsidecarv1.ChatToolCall{{}, {Name: "run_ptc_lisp"}} {
		req := &ptcsidecarv1.EvalTurnRequest{ProgramCall: call, RawResponse: "Here:\n```clojure\n(+ x 2)\n```", Prelude: prelude}
		resp, err := c.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if turn := resp.GetTurn(); !turn.GetSuccess() || turn.GetResult().GetEdn() != "3" {
			t.Errorf("a fenced program beside no call: %v", turn)
		}
		for _, text := range []string{"I will sum the orders.", ""} {
			req := &ptcsidecarv1.EvalTurnRequest{ProgramCall: call, RawResponse: text, Prelude: prelude}
			resp, err := c.EvalTurn(context.Background(), req)
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			streamed, _, err := streamTurn(t, c, req, nil)
			if err != nil {
				t.Fatalf("%q streamed: %v", text, err)
			}
			for _, turn := range []*ptcsidecarv1.Turn{resp.GetTurn(), streamed} {
				e := turn.GetError()
				if turn.GetSuccess() || e.GetType() != "no_program" || !strings.Contains(e.GetMessage(), "made no run_ptc_lisp call") ||
					!strings.Contains(e.GetHint(), `call run_ptc_lisp with arguments {"program"`) || strings.Contains(e.GetHint(), "fenced") {
					t.Errorf("%q: turn %v", text, turn)
				}
				if !proto.Equal(turn.GetMemory(), prelude) {
					t.Errorf("%q: memory %v", text, turn.GetMemory())
				}
			}
		}
	}
	resp, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{RawResponse: "I will sum the orders."})
	if err != nil {
		t.Fatal(err)
	}
	if h := resp.GetTurn().GetError().GetHint(); !strings.Contains(h, "fenced block") {
		t.Errorf("fenced form's hint: %q", h)
	}
	_, err = c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{Name: "search"}})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "program_call.name: ") {
		t.Errorf("an empty call of another tool: %v", err)
	}
}

// TestProgramCallBounds: an id longer than a provider's is refused naming
// the field, since the turn echoes it; arguments are read for "program"
// alone, whatever else they hold, exactly by that key (the last when it
// repeats), building nothing for the other keys. Before, a 12 MB id made a
// 12 MB turn no default client receives, and a million other keys were
// decoded into a map: 145 MiB and 2.5 s of CPU before the evaluation's
// clock started.
func TestProgramCallBounds(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	_, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{
		Id: strings.Repeat("i", 2000), Arguments: `{"program": "1"}`}})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "program_call.id: ") {
		t.Errorf("a 2,000-byte id: %v %q", st.Code(), st.Message())
	}
	for args, want := range map[string]string{
		`{"a": {"program": "2", "b": ["}", "\""]}, "program" : "(+ 1 2)" , "c": [1, {"d": null}]}`: "(+ 1 2)",
		`{"program": "1", "program": "2"}`:         "2",
		` { "\u0070rogram" : "3" } `:               "3",
		`{"x": "program", "program": "4\"}"}`:      `4"}`,
		`{"Program": "5", "program": "6"}`:         "6",
		`{"program": "7", "tail": "{[\\\"]}\\\\"}`: "7",
	} {
		got, callErr, err := programFromCall(&ptcsidecarv1.ChatToolCall{Id: "c", Arguments: args}, "program_call", noCharge)
		if err != nil || callErr != nil || got != want {
			t.Errorf("%s: %q, %v, %v; want %q", args, got, callErr, err, want)
		}
	}
	var b strings.Builder
	b.WriteString(`{"program": "(+ 1 2)"`)
	for i := range 100_000 {
		fmt.Fprintf(&b, `,"k%d":[{"a":[]}]`, i)
	}
	b.WriteString("}")
	call := &ptcsidecarv1.ChatToolCall{Id: "c", Arguments: b.String()}
	allocs := testing.AllocsPerRun(2, func() {
		if got, callErr, err := programFromCall(call, "program_call", noCharge); got != "(+ 1 2)" || callErr != nil || err != nil {
			t.Fatalf("100,000 other keys: %q, %v, %v", got, callErr, err)
		}
	})
	if allocs > 20 {
		t.Errorf("100,000 other keys: %.0f allocations, want a few", allocs)
	}
}

// noCharge is a charge of programFromCall that bounds nothing.
func noCharge(int64) error { return nil }
