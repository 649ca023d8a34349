package main_test

// Values whose reading is all tokens, bytes and number conversions, in
// every kind of field, over both listeners: the read work counted from
// their text (lisp.ReadWork) against the budget their 1 s timeout gives
// decides them before they are read, the same way in every run, however
// busy the machine; what is under the budget reads to its value.

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

func readWorkAttacks() []inputAttack {
	cpu := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	earlier := func(name, expect, program, edn string) inputAttack {
		return inputAttack{attack{name: name, method: "EvalTurn", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Limits: evalLimits(), PreviousResults: []*ptcsidecarv1.Value{{Edn: edn}}}
		}}, cpu}
	}
	radix := "[" + strings.Repeat("36r"+strings.Repeat("Z", 100_000)+" ", 10) + "]"
	tiny := "[" + strings.Repeat("1 ", 2_000_000) + "]"
	nested := strings.Repeat("[", 999) + "1" + strings.Repeat("]", 999)
	return []inputAttack{
		earlier("10 radix-36 literals of 100,000 digits as an earlier result", "RESOURCE_EXHAUSTED", "(count *1)", radix),
		earlier("2 radix-36 literals of 100,000 digits as an earlier result", "ok", "(count *1)", "["+strings.Repeat("36r"+strings.Repeat("Z", 100_000)+" ", 2)+"]"),
		earlier("2,000,000 tiny tokens as an earlier result", "RESOURCE_EXHAUSTED", "(count *1)", tiny),
		earlier("a 6 MB string of escapes as an earlier result", "ok", "(count *1)", `"`+strings.Repeat(`\n\t\u0041\"`, 500_000)+`"`),
		{attack{name: "2,000,000 tiny tokens as data", method: "EvalTurn", expect: "RESOURCE_EXHAUSTED", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(count data/m)", Limits: evalLimits(), Data: &ptcsidecarv1.Value{Edn: "{:m " + tiny + "}"}}
		}}, cpu},
		{attack{name: "JSON of 1,000,000 tiny tokens as a tool result", method: "EvalTurn", expect: "RESOURCE_EXHAUSTED", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "(tool/f {})", Limits: evalLimits(), ToolResults: []*ptcsidecarv1.ToolResult{{Name: "f", Args: &ptcsidecarv1.Value{Edn: "{}"},
				Result: &ptcsidecarv1.Value{Json: "[" + strings.TrimSuffix(strings.Repeat("1,", 1_000_000), ",") + "]"}}}}
		}}, cpu},
		earlier("1,000 values nested 1,000 deep as an earlier result", "RESOURCE_EXHAUSTED", "(count *1)", "["+strings.Repeat(nested+" ", 1_000)+"]"),
	}
}

// TestAttacksReadWork sends each read-work attack three times over each
// listener to a server of its own (runInputAttack).
func TestAttacksReadWork(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, readWorkAttacks())
}

// historyReadWorkAttacks are the same kinds of text in the fields of
// ToMessages and RenderTrace (options.data, memory, turns), which read
// them under no evaluation timeout: the read work their request's bytes
// allow decides them before they are read (20 radix-36 literals of
// 100,000 digits cost 69 units a byte against 40), and dear text of
// ordinary tokens reads, however many bytes of it the request holds.
func historyReadWorkAttacks() []inputAttack {
	cpu := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	radix := func(n int) string { return "[" + strings.Repeat("36r"+strings.Repeat("Z", 100_000)+" ", n) + "]" }
	tiny := "[" + strings.Repeat("1 ", 2_000_000) + "]"
	nested := strings.Repeat("[", 999) + "1" + strings.Repeat("]", 999)
	memory := func(edn string) *ptcsidecarv1.Memory {
		return &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "m", Value: &ptcsidecarv1.Value{Edn: edn}, Turn: 1}}}
	}
	turns := func(edn string) []*ptcsidecarv1.Turn {
		return []*ptcsidecarv1.Turn{{Number: 1, Program: "(def m 1)", Success: true, Result: &ptcsidecarv1.Value{Edn: edn}}}
	}
	result := func(name, expect, edn string) inputAttack {
		return inputAttack{attack{name: name + " as a turn's result", method: "ToMessages", expect: expect, kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns(edn)}
		}}, cpu}
	}
	return []inputAttack{
		result("20 radix-36 literals of 100,000 digits", "RESOURCE_EXHAUSTED", radix(20)),
		{attack{name: "20 radix-36 literals of 100,000 digits as options.data", method: "ToMessages", expect: "RESOURCE_EXHAUSTED", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Data: &ptcsidecarv1.Value{Edn: "{:m " + radix(20) + "}"}}}
		}}, cpu},
		{attack{name: "20 radix-36 literals of 100,000 digits in memory", method: "ToMessages", expect: "RESOURCE_EXHAUSTED", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Memory: memory(radix(20))}
		}}, cpu},
		{attack{name: "RenderTrace of 20 such literals in a turn's memory", method: "RenderTrace", expect: "RESOURCE_EXHAUSTED", kind: kindRendered, req: func() proto.Message {
			ts := turns("1")
			ts[0].Memory = memory(radix(20))
			return &ptcsidecarv1.RenderTraceRequest{Turns: ts}
		}}, cpu},
		{attack{name: "200,000 functions in memory", method: "ToMessages", expect: "RESOURCE_EXHAUSTED", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Memory: memory("[" + strings.Repeat("(fn [] 1) ", 200_000) + "]")}
		}}, cpu},
		result("2 radix-36 literals of 100,000 digits", "ok", radix(2)),
		result("2,000,000 tiny tokens", "ok", tiny),
		{attack{name: "a 6 MB string of escapes in memory", method: "ToMessages", expect: "ok", kind: kindValues, req: func() proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Memory: memory(`"` + strings.Repeat(`\n\t\u0041\"`, 500_000) + `"`)}
		}}, cpu},
		result("1,000 values nested 1,000 deep", "INVALID_ARGUMENT", "["+strings.Repeat(nested+" ", 1_000)+"]"),
	}
}

// TestAttacksHistoryReadWork sends each attack on the reading of
// ToMessages and RenderTrace three times over each listener to a server
// of its own (runInputAttack).
func TestAttacksHistoryReadWork(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, historyReadWorkAttacks())
}
