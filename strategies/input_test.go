package strategies

import (
	"errors"
	"strconv"
	"testing"
)

// Render refuses the input a strategy does not read, for every strategy,
// naming the field that should not have been sent.
func TestRenderRefusesInputTheStrategyDoesNotRead(t *testing.T) {
	turns := []Turn{{Number: 1, Program: "(+ 1 2)", Success: true}}
	history := []ChatMessage{{Role: RoleUser, Content: "hi"}}
	for _, st := range All() {
		opts, err := Normalize(RawOptions{Strategy: st.Name(), MaxTokens: new(1000)})
		if err != nil {
			t.Fatal(err)
		}
		req := &Request{Options: opts, Turns: turns}
		want := "turns"
		if st.Input() == InputTurns {
			req = &Request{Options: opts, History: history}
			want = "history"
		}
		_, err = Render(req)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != want {
			t.Errorf("%s given %s: %v, want an InputError naming %s", st.Name(), want, err, want)
		}
	}
}

// What ListStrategies says an option defaults to is what Normalize gives
// a request that leaves it unset.
func TestOptionDocsShowNormalizeDefaults(t *testing.T) {
	defaults, err := Normalize(RawOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range All() {
		for _, d := range st.Options() {
			for _, opt := range intOptions {
				if opt.name != d.Name {
					continue
				}
				derived := opt.name == "turns_left" || opt.name == "trim_to" // defaults that depend on another option
				derived = derived || opt.name == "keep_thinking_turns" && d.Default == "all" && *opt.dst(&defaults) == -1
				if got := strconv.Itoa(*opt.dst(&defaults)); d.Default != got && d.Default != "(required)" && !derived {
					t.Errorf("%s: option %s documents default %q, Normalize gives %s", st.Name(), d.Name, d.Default, got)
				}
			}
			switch d.Name {
			case "tokenizer":
				if d.Default != defaults.Tokenizer {
					t.Errorf("%s: tokenizer documents %q, Normalize gives %q", st.Name(), d.Default, defaults.Tokenizer)
				}
			case "placeholder":
				if d.Default != defaults.Placeholder {
					t.Errorf("%s: placeholder documents %q, Normalize gives %q", st.Name(), d.Default, defaults.Placeholder)
				}
			case "prompt":
				if d.Default != defaults.Prompt {
					t.Errorf("%s: prompt documents %q, Normalize gives %q", st.Name(), d.Default, defaults.Prompt)
				}
			}
		}
	}
}
