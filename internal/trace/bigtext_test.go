package trace

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// wrap is the lines eachWrapped gives, in a list.
func wrap(s string, first, rest int) []string {
	var out []string
	eachWrapped(s, first, rest, func(cont, l string) { out = append(out, cont+l) })
	return out
}

// wrapByRunes is wrap as it was before it wrote each line as it cut it:
// the whole text split into a list of lines, each long line converted to
// runes. TestWrapMatchesWrapByRunes holds the new one to its output.
func wrapByRunes(s string, first, rest int) []string {
	var out []string
	for i, l := range strings.Split(s, "\n") {
		avail := rest
		if i == 0 {
			avail = first
		}
		l = expandTabs(l)
		if len(l) <= avail {
			out = append(out, l)
			continue
		}
		r := []rune(l)
		prefix := ""
		for {
			cut, cols, space, spaceCol := len(r), 0, -1, 0
			for i, c := range r {
				w := runeWidth(c)
				if cols+w > avail {
					cut = i
					break
				}
				if c == ' ' {
					space, spaceCol = i, cols
				}
				cols += w
			}
			if cut == len(r) {
				out = append(out, prefix+string(r))
				break
			}
			skip := 0
			switch {
			case r[cut] == ' ':
				skip = 1
			case space > 0 && spaceCol > avail/2:
				cut, skip = space, 1
			case cut == 0:
				cut = 1
			}
			out = append(out, prefix+string(r[:cut]))
			r = r[cut+skip:]
			prefix = contMark
			avail = rest - stringWidth(contMark)
		}
	}
	return out
}

// TestWrapMatchesWrapByRunes: on random texts of every kind of character
// the layout treats apart (spaces, tabs, newlines, wide and zero-width
// runes, controls shown as escapes, invalid UTF-8) and random widths, wrap
// of the sanitized text, and eachShown of the text as it came, a window
// at a time, cut the same lines as the list-building version did.
func TestWrapMatchesWrapByRunes(t *testing.T) {
	alphabet := []string{"a", "b", " ", "  ", "\t", "\n", "\r", "\r\n", "漢", "e\u0301", "\u200d", "👩", "\x1b", "\x85", "\xff", "↪", "—"}
	rng := rand.New(rand.NewPCG(33, 14))
	for i := range 20_000 {
		var b strings.Builder
		for range rng.IntN(300) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		raw := b.String()
		s := sanitize(raw)
		first, rest := 1+rng.IntN(30), 3+rng.IntN(30)
		want := wrapByRunes(s, first, rest)
		if got := wrap(s, first, rest); !slices.Equal(got, want) {
			t.Fatalf("case %d: wrap(%q, %d, %d) = %q, want %q", i, s, first, rest, got, want)
		}
		// Shown from the raw text, a window at a time: windows of a few
		// bytes cut runes, escapes, tabs' columns and pieces anywhere.
		window := 1 + rng.IntN(12)
		var got []string
		eachShownBy(raw, first, rest, window, func(cont, l string) { got = append(got, cont+l) })
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: eachShownBy(%q, %d, %d, %d) = %q, want %q", i, raw, first, rest, window, got, want)
		}
	}
}

// bytesAllocated is what f allocates on the heap.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestRenderBigTextsAllocateLinearly: a print of millions of short lines,
// carriage returns (each shown as an escape), tabs, one long line or wide
// runes renders allocating at most a few times the answer, and twice the
// text costs about twice as much. Rendering once listed every line of a
// text (16 bytes for a line of none) and wrote the answer through one
// growing buffer: 136 times a text of newlines.
func TestRenderBigTextsAllocateLinearly(t *testing.T) {
	o, err := strategies.Normalize(strategies.RawOptions{SystemPrompt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range []struct{ name, unit string }{
		{"newlines", "\n"}, {"carriage returns", "\r"}, {"tabs", "\t"}, {"one line", "abcdefg "}, {"wide runes", "漢"}, {"combining marks", "e\u0301"},
	} {
		t.Run(shape.name, func(t *testing.T) {
			var allocated [2]uint64
			for i, n := range []int{1 << 20, 2 << 20} {
				text := strings.Repeat(shape.unit, n/len(shape.unit))
				req := &strategies.Request{Options: o, Turns: []strategies.Turn{{Number: 1, Program: "1", Success: true, Result: lisp.Nil, Prints: []string{text}}}}
				var answer string
				allocated[i] = bytesAllocated(func() {
					if answer, err = Render(req, ViewTurns, false, false, Style{}); err != nil {
						t.Fatal(err)
					}
				})
				// Each line once as cut, the page's pieces, the joined
				// answer and room to spare; the windows of a line made safe
				// (an escape is four bytes a character), let go of one by
				// one.
				if bound := 4*uint64(len(answer)) + 5*uint64(n); allocated[i] > bound {
					t.Errorf("%d bytes: %d allocated for an answer of %d, over %d", n, allocated[i], len(answer), bound)
				}
				t.Logf("%8d bytes: %.1f times the text allocated, answer %.1f times", n, float64(allocated[i])/float64(n), float64(len(answer))/float64(n))
			}
			if ratio := float64(allocated[1]) / float64(allocated[0]); ratio > 2.5 {
				t.Errorf("twice the text allocates %.2f times as much", ratio)
			}
		})
	}
}

// TestCompressedViewThatFitsIsSent: the compressed view stops its
// strategy's messages by the bytes their boxes show at the least, a bound
// that never refuses a view within the limit. Programs, raw responses and
// outputs of random texts heavy in what a box drops (spaces, tabs,
// carriage returns, long lines of spaces) and in what it escapes, each
// strategy's tool-call form, render with a limit of their own length.
func TestCompressedViewThatFitsIsSent(t *testing.T) {
	pieces := []string{" ", "    ", strings.Repeat(" ", 200), strings.Repeat(" ", 5000), "\t", "\r\n", "\n", "\r", "a", "(+ 1 2)", "\x01", "\b", "é", "世", "\u0301", "\xff", `"`, "<"}
	rng := rand.New(rand.NewPCG(3, 4))
	text := func() string {
		var b strings.Builder
		for range rng.IntN(60) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for _, strategy := range []string{"full", "cache-stable", "single-user-coalesced"} {
		for range 8 {
			req := &strategies.Request{Options: normalized(t, strategies.RawOptions{Strategy: strategy, ProgramForm: strategies.ProgramToolCall})}
			for i := range 1 + rng.IntN(4) {
				turn := strategies.Turn{Number: i + 1, Program: text(), Prints: []string{text()}, Success: true, Result: lisp.String(text())}
				if rng.IntN(2) == 0 {
					turn.ProgramCallID, turn.RawResponse = "call_"+strconv.Itoa(i), text()
				}
				req.Turns = append(req.Turns, turn)
			}
			whole, err := Render(req, ViewCompressed, false, false, Style{})
			if err != nil {
				t.Fatal(err)
			}
			req.AnswerLimit = len(whole)
			if got, err := Render(req, ViewCompressed, false, false, Style{}); err != nil || got != whole {
				t.Fatalf("%s: a compressed view of %d bytes at a limit of %d: %v", strategy, len(whole), len(whole), err)
			}
		}
	}
}
