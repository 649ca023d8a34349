package server

import (
	"strings"
	"unique"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/valuecache"
)

// The request decoder (decode.go) reads a request with strings that are
// views into the transport's pooled buffer, which goes back to the pool
// when decoding ends. Before that, every string of the message is replaced
// by one the message owns: a copy, or for a wire value's text its
// canonical copy (unique.Make), which the value cache keeps alive while
// it remembers the value. An agent resends its memory and data on every
// call, so on a running agent's call nearly all of a request's megabyte is
// found canonical and not allocated again.
//
// ownRequest covers the messages methods receive, and every string field
// of each must be handled here: TestDecodedRequestsOwnTheirStrings fills
// every field of every method's request, overwrites the wire bytes after
// decoding and compares.

// ownRequest replaces the views in m and reports whether it knows m's type.
func ownRequest(m any) bool {
	switch m := m.(type) {
	case *ptcsidecarv1.ToMessagesRequest:
		ownToMessages(m)
	case *ptcsidecarv1.EvalTurnRequest:
		ownEvalTurn(m)
	case *ptcsidecarv1.EvalTurnStreamRequest:
		ownEvalTurn(m.GetStart())
		ownToolResult(m.GetToolResult())
	case *ptcsidecarv1.RenderTraceRequest:
		ownTurns(m.Turns)
		ownMemory(m.Memory)
		ownOptions(m.Options)
		own(&m.View)
		ownHistory(m.History)
	case *ptcsidecarv1.ListStrategiesRequest:
	default:
		return false
	}
	return true
}

func own(s *string) { *s = strings.Clone(*s) }

func ownAll(list []string) {
	for i := range list {
		own(&list[i])
	}
}

// ownValue makes a value's text canonical: a text the value cache holds is
// found, not copied.
func ownValue(v *ptcsidecarv1.Value) {
	switch r := v.GetRepr().(type) {
	case *ptcsidecarv1.Value_Edn:
		canonical(&r.Edn)
	case *ptcsidecarv1.Value_Json:
		canonical(&r.Json)
	}
}

// canonical replaces s by its canonical copy; a text too short for the
// value cache is copied.
func canonical(s *string) {
	if len(*s) < valuecache.MinText {
		own(s)
		return
	}
	*s = unique.Make(*s).Value()
}

func ownToMessages(m *ptcsidecarv1.ToMessagesRequest) {
	ownTurns(m.Turns)
	ownMemory(m.Memory)
	ownOptions(m.Options)
	ownHistory(m.History)
}

func ownTurns(turns []*ptcsidecarv1.Turn) {
	for _, t := range turns {
		if t == nil {
			continue
		}
		own(&t.RawResponse)
		own(&t.Program)
		ownValue(t.Result)
		ownAll(t.Prints)
		for _, c := range t.ToolCalls {
			ownToolCall(c)
		}
		ownMemory(t.Memory)
		ownAll(t.Defined)
		if e := t.Error; e != nil {
			own(&e.Type)
			own(&e.Message)
			own(&e.Hint)
		}
	}
}

func ownToolCall(c *ptcsidecarv1.ToolCall) {
	if c == nil {
		return
	}
	own(&c.Name)
	ownValue(c.Args)
	ownValue(c.Result)
	own(&c.Error)
}

func ownMemory(m *ptcsidecarv1.Memory) {
	for _, b := range m.GetBindings() {
		if b == nil {
			continue
		}
		own(&b.Name)
		ownValue(b.Value)
		ownAll(b.Params)
		own(&b.Docstring)
		own(&b.ReturnType)
	}
}

func ownOptions(o *ptcsidecarv1.Options) {
	if o == nil {
		return
	}
	own(&o.Strategy)
	own(&o.Mission)
	own(&o.SystemPrompt)
	ownTools(o.Tools)
	ownValue(o.Data)
	own(&o.Signature)
	own(&o.Tokenizer)
	ownAll(o.SnapshotToolPrefixes)
	ownAll(o.NudgeMessages)
	ownAll(o.ExcludeTools)
	own(&o.Placeholder)
}

func ownTools(tools []*ptcsidecarv1.ToolSpec) {
	for _, t := range tools {
		if t == nil {
			continue
		}
		own(&t.Name)
		own(&t.Signature)
		own(&t.Description)
	}
}

func ownHistory(history []*ptcsidecarv1.ChatMessage) {
	for _, m := range history {
		if m == nil {
			continue
		}
		own(&m.Role)
		own(&m.Content)
		own(&m.Source)
		own(&m.SenderId)
		for _, c := range m.ToolCalls {
			if c == nil {
				continue
			}
			own(&c.Id)
			own(&c.Name)
			own(&c.Arguments)
		}
		own(&m.ToolCallId)
		own(&m.Reasoning)
	}
}

func ownEvalTurn(m *ptcsidecarv1.EvalTurnRequest) {
	if m == nil {
		return
	}
	own(&m.Program)
	own(&m.RawResponse)
	ownMemory(m.Prelude)
	ownValue(m.Data)
	ownTools(m.Tools)
	for _, r := range m.ToolResults {
		ownToolResult(r)
	}
	for _, v := range m.PreviousResults {
		ownValue(v)
	}
}

func ownToolResult(r *ptcsidecarv1.ToolResult) {
	if r == nil {
		return
	}
	own(&r.Name)
	ownValue(r.Args)
	ownValue(r.Result)
	own(&r.Error)
}
