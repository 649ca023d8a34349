package lisp

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// copyingStringCompare is Java's String.compareTo as the UTF-16 copies of
// both texts give it: the form javaStringCompare must agree with.
func copyingStringCompare(x, y string) int {
	a, b := utf16.Encode([]rune(x)), utf16.Encode([]rune(y))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// copyingCompareIgnoreCase is compareToIgnoreCase over copies of both
// texts' characters.
func copyingCompareIgnoreCase(s, t string) int {
	a, b := []rune(s), []rune(string(t))
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		x, y = unicode.ToUpper(x), unicode.ToUpper(y)
		if x == y {
			continue
		}
		x, y = unicode.ToLower(x), unicode.ToLower(y)
		if x != y {
			return int(x) - int(y)
		}
	}
	return len(a) - len(b)
}

// TestStringCompareReadsWithoutCopying: compare, .compareTo and
// .compareToIgnoreCase read two texts where they differ without copying
// them, and answer as the copies of their UTF-16 units or characters do,
// for texts of characters inside and outside the BMP, characters that
// case-fold, invalid bytes and prefixes of one another. Comparing strings
// of a megabyte allocates nothing but the answer.
func TestStringCompareReadsWithoutCopying(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "A", "b", "é", "É", "\U0001F600", "\U0001F601", "\uFFFD", "\uE000", "\xff", "\xc3", "\xa9", "ß", "\u0130", ""}
	gen := func() string {
		s := ""
		for range r.IntN(6) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for range 300000 {
		x, y := gen(), gen()
		if r.IntN(3) == 0 {
			y = x + gen()
		}
		if got, want := javaStringCompare(x, y), copyingStringCompare(x, y); got != want {
			t.Fatalf("compare(%q, %q) = %d, want %d", x, y, got, want)
		}
		got, _ := javaCompareToIgnoreCase(x, []Value{String(x), String(y)})
		if want := copyingCompareIgnoreCase(x, y); int(got.(Int)) != want {
			t.Fatalf("ignorecase(%q, %q) = %d, want %d", x, y, got, want)
		}
	}
	big := strings.Repeat("é\U0001F600a", 1<<17)
	other := big[:len(big)-1] + "b"
	args := []Value{String(big), String(other)}
	if n := testing.AllocsPerRun(5, func() {
		_ = javaStringCompare(big, other)
		_, _ = javaCompareToIgnoreCase(big, args)
	}); n > 1 {
		t.Errorf("comparing two strings of %d bytes allocated %v times, want at most the boxed answer", len(big), n)
	}
	if got, want := javaStringCompare(big, other), copyingStringCompare(big, other); got != want {
		t.Errorf("compare of two strings of %d bytes = %d, want %d", len(big), got, want)
	}
}

// TestCharacterMethodsReadWithoutCopying: .substring and .charAt find
// their characters by walking the text, and answer as the copy of its
// characters does (invalid bytes as U+FFFD), bounds errors included.
func TestCharacterMethodsReadWithoutCopying(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "é", "\U0001F600", "\xff", "\xc3", "\xa9", "\uFFFD", "字"}
	for range 100000 {
		s := ""
		for range r.IntN(7) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		runes := []rune(s)
		i, j := Int(r.IntN(len(runes)+3)-1), Int(r.IntN(len(runes)+3)-1)
		got, err := javaSubstring(s, []Value{String(s), i, j})
		if i < 0 || j > Int(len(runes)) || i > j {
			if err == nil {
				t.Fatalf("(.substring %q %d %d) = %q, want an error", s, i, j, got)
			}
		} else if err != nil || got != String(runes[i:j]) {
			t.Fatalf("(.substring %q %d %d) = %q, %v; want %q", s, i, j, got, err, string(runes[i:j]))
		}
		got, err = javaCharAt(s, []Value{String(s), i})
		if i < 0 || i >= Int(len(runes)) {
			if err == nil {
				t.Fatalf("(.charAt %q %d) = %q, want an error", s, i, got)
			}
		} else if err != nil || got != String(runes[i:i+1]) {
			t.Fatalf("(.charAt %q %d) = %q, %v; want %q", s, i, got, err, string(runes[i:i+1]))
		}
	}
	big := String(strings.Repeat("é\U0001F600a", 1<<17))
	subArgs, charArgs := []Value{big, Int(1000), Int(1005)}, []Value{big, Int(300000)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, _ = javaSubstring(string(big), subArgs)
		_, _ = javaCharAt(string(big), charArgs)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("10 .substring and .charAt of a string of %d bytes allocated %d bytes, want only their answers", len(big), n)
	}
}

// TestIndexOfReadsWithoutCopying: .indexOf and .lastIndexOf search the
// string where it is, agree with the search over a copy of its characters
// (what they did before, Java's answers for these texts) on random texts
// with characters outside the BMP, invalid bytes and U+FFFD, with and
// without a from index and with character codes, and allocate nothing for
// a 3 MB string; Character methods read their argument without a copy.
func TestIndexOfReadsWithoutCopying(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{"a", "b", "é", "\U0001F600", "\xff", "\xc3", "\xa9", "\uFFFD", "字"}
	text := func(n int) string {
		s := ""
		for range r.IntN(n) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for range 200000 {
		s, sub := text(8), text(3)
		var subArg Value = String(sub)
		if r.IntN(5) == 0 {
			subArg = Int([]int{'a', 0x1F600, 0xFFFD, 0xD800, -1, 0x110000}[r.IntN(6)])
		}
		args := []Value{String(s), subArg}
		from, end := 0, -1
		if r.IntN(2) == 0 {
			f := r.IntN(12) - 2
			args = append(args, Int(f))
			from, end = max(f, 0), f
		}
		for _, last := range []bool{false, true} {
			got, err := javaIndexOf(last)(s, args)
			if err != nil {
				t.Fatalf("(.indexOf %q %v): %v", s, args[1:], err)
			}
			needle := ""
			switch x := subArg.(type) {
			case String:
				needle = string(x)
			case Int:
				needle = string(rune(max(0, min(x, unicode.MaxRune))))
			}
			want := javaIndexOfRunes(s, needle, from, -1, false)
			if last {
				want = Int(-1)
				if len(args) < 3 || end >= 0 {
					e := -1
					if len(args) == 3 {
						e = end + utf8.RuneCountInString(needle)
					}
					want = javaIndexOfRunes(s, needle, 0, e, true)
				}
			}
			if got != want {
				t.Fatalf("last %v: (.indexOf %q %v) = %v, want %v", last, s, args[1:], got, want)
			}
		}
	}
	big := strings.Repeat("é\U0001F600a", 1<<18)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		_, _ = javaIndexOf(false)(big, []Value{String(big), String("zz"), Int(1000)})
		_, _ = javaIndexOf(true)(big, []Value{String(big), String("é\U0001F600az")})
		_, _ = oneChar("Character/isDigit", String(big))
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("10 .indexOf, .lastIndexOf and Character/isDigit of a string of %d bytes allocated %d bytes, want only their answers", len(big), n)
	}
	checkAttacks(t, []attack{{name: ".indexOf of a 3 MB string 100,000 times",
		src: `(let [s (apply str (repeat 100000 "abcdefghijklmnopqrstuvwxyzabcd"))] (dotimes [i 100000] (.indexOf s "zz" i)) 1)`, want: stepLimit, maxAlloc: 32 << 20}}, Env{})
}
