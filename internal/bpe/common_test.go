package bpe

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// commonByTokens is CommonTokens as Tokens gives it: both token lists whole,
// compared.
func commonByTokens(e *Encoding, a, b string) (int, int) {
	ta, tb := e.Tokens(a), e.Tokens(b)
	n, bytes := 0, 0
	for n < len(ta) && n < len(tb) && ta[n] == tb[n] {
		bytes += len(ta[n])
		n++
	}
	return n, bytes
}

// TestCommonTokensAgreesWithTokens: CommonTokens counts the leading tokens
// two texts share as comparing their Tokens does, for differences at the
// start, inside a word, inside a long piece, at the end, in invalid UTF-8,
// and for one text a prefix of the other.
func TestCommonTokensAgreesWithTokens(t *testing.T) {
	long := strings.Repeat("a", 3*window)
	pairs := [][2]string{
		{"", ""}, {"abc", ""}, {"", "abc"}, {"same text", "same text"},
		{"hello world", "hello there"}, {"hello world", "hello worlds"}, {"hello", "hello world"},
		{long + "b", long + "c"}, {long, long[:window+7]}, {"x" + long, "y" + long},
		{strings.Repeat("\x01", 5000) + "1", strings.Repeat("\x01", 5000) + "2"},
		{"caf\xe9 au lait", "caf\xe9 au lair"}, {"字字字字 ok", "字字字字 no"},
		{strings.Repeat("ab \n", 2000) + "end", strings.Repeat("ab \n", 2000) + "ends"},
	}
	// Random texts of the characters the pre-tokenizers treat apart, the
	// second a copy of the first changed at one place.
	r := rand.New(rand.NewPCG(51, 52))
	parts := []string{"a", "B", "x", " ", "  ", "\n", "\r\n", "\t", "'s", "'LL", "1", "234", ".", "?!", "/", "é", "字", "\U0001F600", "\xff", strings.Repeat("z", window+10)}
	for range 200 {
		var x strings.Builder
		for range r.IntN(40) {
			x.WriteString(parts[r.IntN(len(parts))])
		}
		a := x.String()
		at := r.IntN(len(a) + 1)
		pairs = append(pairs, [2]string{a, a[:at] + parts[r.IntN(len(parts))] + a[at:]})
	}
	for _, name := range Names() {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			wantN, wantBytes := commonByTokens(e, p[0], p[1])
			n, bytes, err := e.CommonTokens(p[0], p[1], nil)
			if err != nil || n != wantN || bytes != wantBytes {
				t.Errorf("%s: CommonTokens(%.20q…, %.20q…) = %d tokens, %d bytes, %v; Tokens agree on %d, %d bytes", name, p[0], p[1], n, bytes, err, wantN, wantBytes)
			}
		}
	}
}

// TestCommonTokensStopsAtTheDifference counts the work, not the time:
// texts of megabytes that differ at their tenth byte are merged no
// further than a piece or a window past it (the stop function is called
// once per stopEvery bytes of work), where comparing their Tokens merged
// both whole and held a string for every token. A stop that fires ends a comparison
// of texts that differ only at their end with its error.
func TestCommonTokensStopsAtTheDifference(t *testing.T) {
	errStop := errors.New("stopped")
	for _, name := range Names() {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, unit := range []string{"\x01", "ab ", "a", "字"} {
			body := strings.Repeat(unit, (4<<20)/len(unit))
			a, b := "0123456789"+body, "012345678X"+body
			// gemma3 scans a text twice, without merging, before it merges
			// its first word (for added tokens, for word ends): those scans
			// are its only work past the difference.
			most := 1
			if name == "gemma3" {
				most = 2*2*len(a)/stopEvery + 2
			}
			calls := 0
			n, _, err := e.CommonTokens(a, b, func() error { calls++; return nil })
			if err != nil || calls > most {
				t.Errorf("%s: %q×%d differing at byte 9: %d tokens, %v, after %d stop calls of work, want at most %d", name, unit, len(body)/len(unit), n, err, calls, most)
			}
			calls = 0
			if _, _, err := e.CommonTokens(body+"1", body+"2", func() error { calls++; return errStop }); err != errStop || calls > 2 {
				t.Errorf("%s: %q×%d: CommonTokens gave %v after %d stop calls, want the stop's error at once", name, unit, len(body)/len(unit), err, calls)
			}
		}
	}
}
