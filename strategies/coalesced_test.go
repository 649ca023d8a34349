package strategies

import (
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

func TestOutputCutsLongPrints(t *testing.T) {
	long := strings.Repeat("é", printCut+500)
	opts, err := Normalize(RawOptions{SystemPrompt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	req := &Request{Options: opts, Turns: []Turn{{Number: 1, Success: true, Prints: []string{long, "short"}}}}
	resp, err := coalesced{}.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	want := ";; Output:\n" + strings.Repeat("é", printCut) + "\nshort"
	if !strings.Contains(resp.Messages[1].Content, want+"\n\n") {
		t.Errorf("long print not cut at %d characters:\n%.300s", printCut, resp.Messages[1].Content)
	}
}

// TestSystemIndependentOfTurns: SYSTEM is byte-identical whatever the
// history, so a provider can cache it.
func TestSystemIndependentOfTurns(t *testing.T) {
	opts, err := Normalize(RawOptions{SystemPrompt: "static"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := coalesced{}.Render(&Request{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	b, err := coalesced{}.Render(&Request{Options: opts, Turns: []Turn{{Number: 1, Success: false, Program: "(x)"}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Messages[0].Content != b.Messages[0].Content || a.Messages[0].Content != "static" {
		t.Errorf("SYSTEM changed with the turns")
	}
}

func TestRegistry(t *testing.T) {
	for _, name := range []string{"single-user-coalesced", "full"} {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Input() != InputTurns || s.Description() == "" || len(s.Options()) == 0 {
			t.Errorf("%s: incomplete description", name)
		}
	}
	if s, err := Lookup(""); err != nil || s.Name() != DefaultStrategy {
		t.Errorf("default strategy: %v, %v", s, err)
	}
}

// TestDefaultSystemPrompt: without system_prompt, SYSTEM is the built-in
// PTC-Lisp reference, the same bytes on every call and for both strategies.
func TestDefaultSystemPrompt(t *testing.T) {
	opts, err := Normalize(RawOptions{Mission: "m"})
	if err != nil {
		t.Fatal(err)
	}
	want := lisp.SystemPrompt()
	if want == "" {
		t.Fatal("built-in system prompt is empty")
	}
	for _, s := range []Strategy{coalesced{}, full{}} {
		for _, turns := range [][]Turn{nil, {{Number: 1, Success: true, Result: lisp.Int(1)}}} {
			resp, err := s.Render(&Request{Options: opts, Turns: turns})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Messages[0].Role != RoleSystem || resp.Messages[0].Content != want {
				t.Errorf("%s: SYSTEM is not the built-in reference", s.Name())
			}
		}
	}
}

// TestPromptVariants: option prompt picks the built-in reference's variant,
// lean by default, for both turn strategies; a caller's system_prompt wins.
func TestPromptVariants(t *testing.T) {
	for _, c := range []struct {
		raw  RawOptions
		want string
	}{
		{RawOptions{Mission: "m"}, lisp.SystemPrompt()},
		{RawOptions{Mission: "m", Prompt: PromptLean}, lisp.SystemPrompt()},
		{RawOptions{Mission: "m", Prompt: PromptFull}, lisp.FullSystemPrompt()},
		{RawOptions{Mission: "m", Prompt: PromptFull, SystemPrompt: "mine"}, "mine"},
	} {
		opts, err := Normalize(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Strategy{coalesced{}, full{}} {
			resp, err := s.Render(&Request{Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			if got := resp.Messages[0].Content; got != c.want {
				t.Errorf("%s with prompt %q: SYSTEM starts %.40q, want %.40q", s.Name(), c.raw.Prompt, got, c.want)
			}
		}
	}
	if lisp.SystemPrompt() == lisp.FullSystemPrompt() {
		t.Error("the variants are the same text")
	}
}

func TestFullDoesNotListHistoryLimits(t *testing.T) {
	for _, d := range (full{}).Options() {
		if d.Name == "println_limit" || d.Name == "tool_call_limit" {
			t.Errorf("full lists %s, which it does not honour", d.Name)
		}
	}
	if len((full{}).Options()) != len(turnOptionDocs)-2 {
		t.Errorf("full lists %d options", len((full{}).Options()))
	}
}

// TestConcurrentRenders: the strategies and the token-count cache are safe
// for concurrent use (run with -race).
func TestConcurrentRenders(t *testing.T) {
	opts, err := Normalize(RawOptions{Mission: "m"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for i := range 8 {
		go func() {
			req := &Request{Options: opts, Turns: []Turn{{Number: 1, Success: true, Prints: []string{strings.Repeat("line\n", i%3+1)}}}}
			resp, err := coalesced{}.Render(req)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- resp.Messages[1].Content
		}()
	}
	seen := map[string]bool{}
	for range 8 {
		seen[<-done] = true
	}
	if len(seen) != 3 {
		t.Errorf("8 renders of 3 distinct requests gave %d distinct messages", len(seen))
	}
}
