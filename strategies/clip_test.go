package strategies

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestClipKeepsWhatRunesKept: clipText and clipEnds convert only the ends
// they keep, and read as cutting the whole text's runes did, bytes that
// are no UTF-8 included (each one rune, U+FFFD).
func TestClipKeepsWhatRunesKept(t *testing.T) {
	byRunes := func(s string, head, tail int) string {
		r := []rune(s)
		if len(r) <= head+tail {
			return s
		}
		return string(r[:head]) + "..." + string(r[len(r)-tail:])
	}
	pieces := []string{"a", " ", "é", "世", "😀", "\xe4\xb8", "\xff", "\x80", "\xf0\x9f\x98", "\n"}
	rng := rand.New(rand.NewPCG(33, 1))
	for range 50_000 {
		var b strings.Builder
		for range rng.IntN(24) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s, head, tail := b.String(), rng.IntN(7), rng.IntN(7)
		if got, want := clipEnds(s, head, tail), byRunes(s, head, tail); got != want {
			t.Fatalf("clipEnds(%q, %d, %d) = %q, want %q", s, head, tail, got, want)
		}
		want := s
		if r := []rune(s); len(r) > head {
			want = string(r[:head]) + "..."
		}
		if got := clipText(s, head); got != want {
			t.Fatalf("clipText(%q, %d) = %q, want %q", s, head, got, want)
		}
	}
}
