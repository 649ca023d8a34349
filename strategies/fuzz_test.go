package strategies

import (
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// FuzzRender feeds caller-controlled text (EDN values, prints, programs,
// docstrings, signatures) through the turn strategies: nothing may panic,
// the output is deterministic, and the error block follows the last turn.
func FuzzRender(f *testing.F) {
	f.Add(`{:a [1 2 3] :_b "x"}`, `[{:x 1.5} #{:k}]`, "out\n\nline", "(def x 1)", "doc; str", "(q :string) -> [:int]", true)
	f.Add(`{"k" {:n nil}}`, `"é\n\t\"q\""`, "", "", "", "", false)
	f.Fuzz(func(t *testing.T, dataEDN, valueEDN, print, program, doc, signature string, success bool) {
		raw := RawOptions{Mission: "m", SystemPrompt: "s", SamplePrintableLimit: intp(len(print) % 100)}
		if v, err := lisp.ParseEDN(dataEDN, 0); err == nil {
			raw.Data = v
		}
		if _, err := ParseSignature(signature); err == nil {
			raw.Tools = []ToolSpec{{Name: "t", Signature: signature, Description: doc}}
		}
		opts, err := Normalize(raw)
		if err != nil {
			return // data that is not a map
		}
		val, err := lisp.ParseEDN(valueEDN, 0)
		if err != nil {
			val = lisp.String(valueEDN)
		}
		req := &Request{
			Options: opts,
			Memory: []Binding{
				{Name: "v", Value: val, Turn: 1},
				{Name: "f", Fn: &Function{Params: []string{"x"}, Docstring: doc}, Turn: 1},
			},
			Turns: []Turn{
				{Number: 1, Program: program, Prints: []string{print}, Success: success, Result: val, Defined: []string{"v", "f"},
					ToolCalls: []ToolCall{{Name: "t", Args: val}}, Error: &TurnError{Type: doc, Message: doc}, Memory: []Binding{{Name: "v", Value: val, Turn: 1}}, HasMemory: true},
				{Number: 2, Program: program, Prints: []string{print, print}, Success: !success, Result: val, Defined: []string{"v"},
					ToolCalls: []ToolCall{{Name: "t", Args: val}, {Name: "t", Args: val}}, Error: &TurnError{Type: doc, Message: doc}},
			},
		}
		for _, s := range []Strategy{coalesced{}, full{}, cacheStable{}} {
			a, err := s.Render(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := s.Render(req)
			if err != nil || a.Messages[len(a.Messages)-1].Content != b.Messages[len(b.Messages)-1].Content {
				t.Fatalf("%s: not deterministic", s.Name())
			}
		}
		for _, s := range []Strategy{coalesced{}, cacheStable{}} {
			resp, _ := s.Render(req)
			if strings.Contains(resp.Messages[1].Content, "\n---\nYour previous attempt:\n") != success && !strings.Contains(program+print+doc, "Your previous attempt") {
				t.Fatalf("%s: error block shown: %v, last turn succeeded: %v", s.Name(), success, !success)
			}
		}
	})
}
