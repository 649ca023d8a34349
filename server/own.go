package server

import (
	"strings"
	"unicode/utf8"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/valuecache"
)

// The request decoder (decode.go) reads a request with strings that are
// views into the transport's pooled buffer, which goes back to the pool
// when decoding ends. Before that, every string of the message is replaced
// by one the message owns: a copy, or for a wire value's text the copy the
// value cache already holds (valuecache.Cache.Canonical). An agent resends
// its memory and data on every call, so on a running agent's call nearly
// all of a request's megabyte is found there and not allocated again.
//
// A value's text is also where the check that it is valid UTF-8 happens
// (wireProblem leaves it out): a text the cache holds was checked when it
// was first sent, so a resent one costs one comparison, not three passes.
//
// The owner covers the messages methods receive, and every string field
// of each must be handled here: TestDecodedRequestsOwnTheirStrings fills
// every field of every method's request, overwrites the wire bytes after
// decoding and compares, and TestEveryValueTextIsChecked sends invalid
// UTF-8 in each value.

// owner replaces the views of one decoded request.
type owner struct {
	values *valuecache.Cache // may be nil
	// invalidUTF8 is set when a value's text is not valid UTF-8.
	invalidUTF8 bool
}

// request replaces the views in m and reports whether it knows m's type.
func (o *owner) request(m any) bool {
	switch m := m.(type) {
	case *ptcsidecarv1.ToMessagesRequest:
		o.toMessages(m)
	case *ptcsidecarv1.EvalTurnRequest:
		o.evalTurn(m)
	case *ptcsidecarv1.EvalTurnStreamRequest:
		o.evalTurn(m.GetStart())
		o.toolResult(m.GetToolResult())
	case *ptcsidecarv1.RenderTraceRequest:
		o.turns(m.Turns)
		o.memory(m.Memory)
		o.options(m.Options)
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

// value owns a value's text: the value cache's copy if it holds one, else
// a copy once the text is known to be valid UTF-8.
func (o *owner) value(v *ptcsidecarv1.Value) {
	if v == nil {
		return
	}
	// A value the sidecar emitted comes back with both texts; the json one
	// is not read then, but the message still holds it.
	o.text(&v.Edn)
	o.text(&v.Json)
}

func (o *owner) text(s *string) {
	if found, ok := o.values.Canonical(*s); ok {
		*s = found
		return
	}
	if !utf8.ValidString(*s) {
		o.invalidUTF8 = true
	}
	own(s)
}

func (o *owner) toMessages(m *ptcsidecarv1.ToMessagesRequest) {
	o.turns(m.Turns)
	o.memory(m.Memory)
	o.options(m.Options)
	ownHistory(m.History)
}

func (o *owner) turns(turns []*ptcsidecarv1.Turn) {
	for _, t := range turns {
		if t == nil {
			continue
		}
		own(&t.RawResponse)
		own(&t.Program)
		o.value(t.Result)
		ownAll(t.Prints)
		for _, c := range t.ToolCalls {
			o.toolCall(c)
		}
		o.memory(t.Memory)
		ownAll(t.Defined)
		if e := t.Error; e != nil {
			own(&e.Type)
			own(&e.Message)
			own(&e.Hint)
		}
	}
}

func (o *owner) toolCall(c *ptcsidecarv1.ToolCall) {
	if c == nil {
		return
	}
	own(&c.Name)
	o.value(c.Args)
	o.value(c.Result)
	own(&c.Error)
}

func (o *owner) memory(m *ptcsidecarv1.Memory) {
	for _, b := range m.GetBindings() {
		if b == nil {
			continue
		}
		own(&b.Name)
		o.value(b.Value)
		ownAll(b.Params)
		own(&b.Docstring)
		own(&b.ReturnType)
	}
}

func (o *owner) options(opts *ptcsidecarv1.Options) {
	if opts == nil {
		return
	}
	own(&opts.Strategy)
	own(&opts.Mission)
	own(&opts.SystemPrompt)
	own(&opts.Prompt)
	ownTools(opts.Tools)
	o.value(opts.Data)
	own(&opts.Signature)
	own(&opts.Tokenizer)
	ownAll(opts.SnapshotToolPrefixes)
	ownAll(opts.NudgeMessages)
	ownAll(opts.ExcludeTools)
	own(&opts.Placeholder)
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

func (o *owner) evalTurn(m *ptcsidecarv1.EvalTurnRequest) {
	if m == nil {
		return
	}
	own(&m.Program)
	own(&m.RawResponse)
	o.memory(m.Prelude)
	o.value(m.Data)
	ownTools(m.Tools)
	for _, r := range m.ToolResults {
		o.toolResult(r)
	}
	for _, v := range m.PreviousResults {
		o.value(v)
	}
}

func (o *owner) toolResult(r *ptcsidecarv1.ToolResult) {
	if r == nil {
		return
	}
	own(&r.Name)
	o.value(r.Args)
	o.value(r.Result)
	own(&r.Error)
}
