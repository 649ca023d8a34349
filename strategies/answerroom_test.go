package strategies

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestProgramArgumentsLenIsItsLength: the size the answer's room counts
// before a program's arguments are written is the length written, and
// what is written is encoding/json's text, for texts of every byte JSON
// escapes (quotes, control characters, \b and \f in two bytes, HTML's
// <>&, U+2028, invalid UTF-8) among plain ones.
func TestProgramArgumentsLenIsItsLength(t *testing.T) {
	pieces := []string{"a", "é", "世", "\"", "\\", "\n", "\r", "\t", "\x01", "\x1f", "<", ">", "&", "\u2028", "\u2029", "\xff", "\xe4\xb8", " ", "\x7f", "\b", "\f"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var program string
		for range rng.IntN(40) {
			program += pieces[rng.IntN(len(pieces))]
		}
		args := ProgramArguments(program)
		if got, want := programArgumentsLen(program), len(args); got != want {
			t.Fatalf("programArgumentsLen(%q) = %d, ProgramArguments writes %d bytes", program, got, want)
		}
		marshalled, err := json.Marshal(struct {
			Program string `json:"program"`
		}{program})
		if err != nil || args != string(marshalled) {
			t.Fatalf("ProgramArguments(%q) = %s, encoding/json writes %s (%v)", program, args, marshalled, err)
		}
	}
}
