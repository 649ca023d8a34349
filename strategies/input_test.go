package strategies

import (
	"errors"
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
