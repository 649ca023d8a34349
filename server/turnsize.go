package server

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// A turn always fits the 4 MiB a gRPC client receives by default. What
// the turn made (its prints, warnings, tool calls' arguments, result and
// memory, the JSON forms of its values and its error) is held to the emit
// limit, 2 MiB by default (lisp's checkEmitted), and its program's echo
// to maxEchoBytes; its prelude is refused when it alone passes the emit
// limit (decodeEvaluation). The tool results the caller answered with,
// which the turn's tool calls echo, are not the turn's own and are held
// by neither; nor is the JSON of a value with no emit limit to count it
// against (a caller that sets none). When the turn would pass maxTurnBytes they
// are left out, the caller's tool results first (the caller holds them),
// then the JSON forms of the result and the arguments (the EDN is
// lossless), each the largest first, and
// an echo_cut warning names each one left out. The turn stays what
// ToMessages and the next EvalTurn take back: a tool call without its
// result, or a value without its JSON, reads as before. A call the caller
// must answer is held to the same size (fitCall).

// maxTurnBytes is the most a turn takes on the wire: a gRPC client's
// default receive limit, less room for the response's own framing.
const maxTurnBytes = 4<<20 - 16<<10

// echoPart is a part of a turn that may be left out, and what leaving it
// out saves.
type echoPart struct {
	name   string // the field's path in the turn, and where the caller has it
	size   int
	caller bool // the caller's own answer, left out before any JSON form
	drop   func()
}

// fitTurn leaves out of t what it must for t to fit maxTurnBytes.
func fitTurn(t *ptcsidecarv1.Turn) {
	if turnBytesAtMost(t) <= maxTurnBytes {
		return // most turns: no need for protobuf's exact count
	}
	over := proto.Size(t) - maxTurnBytes
	if over <= 0 {
		return
	}
	var parts []echoPart
	for i, c := range t.GetToolCalls() {
		if r := c.GetResult(); r != nil {
			parts = append(parts, echoPart{name: fmt.Sprintf("tool_calls[%d].result (your answer to tool/%s)", i, c.GetName()),
				size: proto.Size(r), caller: true, drop: func() { c.Result = nil }})
		}
		parts = appendJSONPart(parts, fmt.Sprintf("tool_calls[%d].args.json", i), c.GetArgs())
	}
	parts = appendJSONPart(parts, "result.json", t.GetResult())
	slices.SortStableFunc(parts, func(a, b echoPart) int {
		if a.caller != b.caller {
			if a.caller {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.size, a.size)
	})
	var cut []string
	saved := 0
	for _, p := range parts {
		if saved >= over {
			break
		}
		p.drop()
		saved += p.size
		cut = append(cut, p.name)
	}
	t.Warnings = append(t.Warnings, &ptcsidecarv1.TurnWarning{Type: warningEchoCut, Message: fmt.Sprintf(
		"the turn would be %d bytes, more than the %d a gRPC client receives by default; left out: %s",
		over+maxTurnBytes, maxTurnBytes, namesCut(cut))})
}

// fitCall leaves the JSON form of a call's arguments out when the call
// would not fit maxTurnBytes. A call the caller must answer travels alone
// (EvalTurn's pending response, a stream's tool_call message) and nothing
// else of it can be cut: its arguments' EDN, which the emit limit held
// when the program made the call, stays whole, and a client reads the EDN
// of a value that has no JSON. The JSON form can be six times the EDN
// (a control character is one byte in EDN, \u0001 in JSON).
func fitCall(c *ptcsidecarv1.ToolCall) {
	const framing = 64 // the call's fields besides its arguments, and the response's
	if valueBytesAtMost(c.GetArgs())+len(c.GetName())+framing <= maxTurnBytes {
		return
	}
	if proto.Size(c)+framing > maxTurnBytes {
		c.Args.Json = ""
	}
}

// appendJSONPart adds v's JSON form, when it has one, to parts.
func appendJSONPart(parts []echoPart, name string, v *ptcsidecarv1.Value) []echoPart {
	if v == nil || v.GetJson() == "" {
		return parts
	}
	size := len(v.GetJson()) + 5 // the field's tag and length
	return append(parts, echoPart{name: name + " (its edn is whole)", size: size, drop: func() { v.Json = "" }})
}

// namesCut lists what was left out, the first few by name.
func namesCut(names []string) string {
	const shown = 8
	if len(names) <= shown {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shown], ", "), len(names)-shown)
}

// turnBytesAtMost bounds t's size on the wire from above without
// protobuf's reflection: its texts, and for each field, message and
// list element more than the tag and length protobuf writes before it.
func turnBytesAtMost(t *ptcsidecarv1.Turn) int {
	const framing = 16 // a tag and a length, and a scalar field's bytes, at most
	n := 8*framing + len(t.GetRawResponse()) + len(t.GetProgram()) + valueBytesAtMost(t.GetResult())
	for _, p := range t.GetPrints() {
		n += framing + len(p)
	}
	for _, d := range t.GetDefined() {
		n += framing + len(d)
	}
	if e := t.GetError(); e != nil {
		n += 4*framing + len(e.GetType()) + len(e.GetMessage()) + len(e.GetHint())
	}
	for _, w := range t.GetWarnings() {
		n += 3*framing + len(w.GetType()) + len(w.GetMessage())
	}
	for _, c := range t.GetToolCalls() {
		n += 6*framing + len(c.GetName()) + len(c.GetError()) + valueBytesAtMost(c.GetArgs()) + valueBytesAtMost(c.GetResult())
	}
	for _, b := range t.GetMemory().GetBindings() {
		n += 8*framing + len(b.GetName()) + len(b.GetDocstring()) + len(b.GetReturnType()) + valueBytesAtMost(b.GetValue())
		for _, p := range b.GetParams() {
			n += framing + len(p)
		}
	}
	return n
}

func valueBytesAtMost(v *ptcsidecarv1.Value) int {
	if v == nil {
		return 0
	}
	return 48 + len(v.GetEdn()) + len(v.GetJson())
}
