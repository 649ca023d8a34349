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
