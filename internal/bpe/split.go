package bpe

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below split text into the pieces that byte-pair
// merging works on, exactly as OpenAI's tiktoken runs the encodings' split
// patterns (with the fancy-regex crate: a backtracking engine where \s is
// Unicode White_Space, which is Go's unicode.IsSpace, and \p{X} is the
// Unicode category X). The patterns are OpenAI's:
//
//	o200k_base:
//	 1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	 2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	 3 \p{N}{1,3}
//	 4  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	 5 \s*[\r\n]+
//	 6 \s+(?!\S)
//	 7 \s+
//
//	cl100k_base:
//	 1 (?i:'s|'t|'re|'ve|'m|'ll|'d)
//	 2 [^\r\n\p{L}\p{N}]?\p{L}+
//	 3 \p{N}{1,3}
//	 4  ?[^\s\p{L}\p{N}]+[\r\n]*
//	 5-7 as o200k_base
//
// The engine tries the alternatives in order and returns the first that
// matches, each quantifier greedy and giving back one character at a time
// on failure. Every character starts a match of some alternative (a letter
// 1 or 2, a digit 3, whitespace 5 to 7, anything else 4), so the pieces tile
// the text.
//
// Each function below takes the text and a position i < len(text) and
// returns the end of the piece that starts there, which is past i. The text
// is valid UTF-8.

// splitFunc returns the end of the piece that starts at i < len(text).
type splitFunc func(text string, i int) int

// class is a set of the character properties the patterns test.
type class uint16

const (
	cLu    class = 1 << iota // \p{Lu}
	cLt                      // \p{Lt}
	cLl                      // \p{Ll}
	cLm                      // \p{Lm}
	cLo                      // \p{Lo}
	cM                       // \p{M}
	cN                       // \p{N}
	cSpace                   // \s: unicode.IsSpace
	cCRLF                    // \r or \n

	letter   = cLu | cLt | cLl | cLm | cLo // \p{L}
	upperish = cLu | cLt | cLm | cLo | cM  // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	lowerish = cLl | cLm | cLo | cM        // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// isPrefix reports [^\r\n\p{L}\p{N}], the character a word may start with.
func (c class) isPrefix() bool { return c&(cCRLF|letter|cN) == 0 }

// isSymbol reports [^\s\p{L}\p{N}].
func (c class) isSymbol() bool { return c&(cSpace|letter|cN) == 0 }

var asciiClasses [utf8.RuneSelf]class

func init() {
	for r := range rune(utf8.RuneSelf) {
		asciiClasses[r] = classOfSlow(r)
	}
}

func classOf(r rune) class {
	if r < utf8.RuneSelf {
		return asciiClasses[r]
	}
	return classOfSlow(r)
}

func classOfSlow(r rune) class {
	var c class
	if unicode.IsSpace(r) {
		c |= cSpace
	}
	if r == '\r' || r == '\n' {
		c |= cCRLF
	}
	if unicode.Is(unicode.L, r) {
		switch {
		case unicode.Is(unicode.Lo, r):
			c |= cLo
		case unicode.Is(unicode.Ll, r):
			c |= cLl
		case unicode.Is(unicode.Lu, r):
			c |= cLu
		case unicode.Is(unicode.Lm, r):
			c |= cLm
		case unicode.Is(unicode.Lt, r):
			c |= cLt
		}
		return c
	}
	if unicode.Is(unicode.M, r) {
		c |= cM
	}
	if unicode.Is(unicode.N, r) {
		c |= cN
	}
	return c
}

// at decodes the character at i: its class and its end.
func at(text string, i int) (class, int) {
	if b := text[i]; b < utf8.RuneSelf {
		return asciiClasses[b], i + 1
	}
	r, n := utf8.DecodeRuneInString(text[i:])
	return classOf(r), i + n
}

// before decodes the character that ends at i: its class and its start.
func before(text string, i int) (class, int) {
	if b := text[i-1]; b < utf8.RuneSelf {
		return asciiClasses[b], i - 1
	}
	r, n := utf8.DecodeLastRuneInString(text[:i])
	return classOf(r), i - n
}

// run returns the end of the run of characters in set that starts at i.
func run(text string, i int, set class) int {
	for i < len(text) {
		c, next := at(text, i)
		if c&set == 0 {
			break
		}
		i = next
	}
	return i
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or i.
// The engine's case-insensitive s also matches ſ (U+017F, long s).
func contraction(text string, i int) int {
	if i+1 >= len(text) || text[i] != '\'' {
		return i
	}
	lower := func(j int) byte { // the ASCII letter at j, lowercased, or 0
		if j < len(text) && text[j] < utf8.RuneSelf {
			return text[j] | 0x20
		}
		return 0
	}
	switch lower(i + 1) {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if lower(i+2) == 'e' {
			return i + 3
		}
	case 'l':
		if lower(i+2) == 'l' {
			return i + 3
		}
	}
	if len(text) >= i+3 && text[i+1:i+3] == "ſ" {
		return i + 3
	}
	return i
}

func splitO200k(text string, i int) int {
	first, next := at(text, i)
	// 1 and 2: an optional prefix character, then letters and marks. Both
	// try the prefix first and, when the rest fails after it, again
	// without it: a mark is both a prefix character and part of a word.
	if first&(upperish|lowerish) != 0 || first.isPrefix() {
		if end := o200kWord(text, i, first, next); end >= 0 {
			return end
		}
	}
	if first&cN != 0 {
		return digits(text, next)
	}
	if end := symbols(text, i, first, next, true); end >= 0 {
		return end
	}
	return whitespace(text, i)
}

// o200kWord matches alternatives 1 and 2 at i, or returns -1.
func o200kWord(text string, i int, first class, next int) int {
	starts := [2]int{-1, i}
	if first.isPrefix() {
		starts[0] = next
	}
	// 1: [U]*[L]+ where U = upperish and L = lowerish overlap: the greedy
	// run of U gives back characters until one of them, or the character
	// after the run, starts a run of L.
	for _, q := range starts {
		if q < 0 {
			continue
		}
		u := run(text, q, upperish)
		if u < len(text) {
			if c, _ := at(text, u); c&lowerish != 0 {
				return contraction(text, run(text, u, lowerish))
			}
		}
		for k := u; k > q; {
			c, start := before(text, k)
			if c&lowerish != 0 {
				return contraction(text, run(text, start, lowerish))
			}
			k = start
		}
	}
	// 2: [U]+[L]*, which succeeds as soon as U matches once.
	for _, q := range starts {
		if q < 0 {
			continue
		}
		if u := run(text, q, upperish); u > q {
			return contraction(text, run(text, u, lowerish))
		}
	}
	return -1
}

func splitCl100k(text string, i int) int {
	// 1: a contraction on its own.
	if end := contraction(text, i); end > i {
		return end
	}
	first, next := at(text, i)
	// 2: [^\r\n\p{L}\p{N}]?\p{L}+. The prefix class excludes letters, so
	// without the prefix the match cannot succeed where it failed with it.
	if first.isPrefix() {
		if next < len(text) {
			if c, _ := at(text, next); c&letter != 0 {
				return run(text, next, letter)
			}
		}
	} else if first&letter != 0 {
		return run(text, next, letter)
	}
	if first&cN != 0 {
		return digits(text, next)
	}
	if end := symbols(text, i, first, next, false); end >= 0 {
		return end
	}
	return whitespace(text, i)
}

// digits matches \p{N}{1,3} whose first digit ends at i.
func digits(text string, i int) int {
	for range 2 {
		if i >= len(text) {
			break
		}
		c, next := at(text, i)
		if c&cN == 0 {
			break
		}
		i = next
	}
	return i
}

// symbols matches " ?[^\s\p{L}\p{N}]+" followed by [\r\n/]* (o200k_base,
// slash true) or [\r\n]* (cl100k_base) at i, or returns -1. The optional
// space is possessive in the engine, which changes nothing: a space is not
// in the class that follows.
func symbols(text string, i int, first class, next int, slash bool) int {
	q := i
	if text[i] == ' ' && next < len(text) {
		if c, _ := at(text, next); c.isSymbol() {
			q = next
		}
	}
	if q == i && !first.isSymbol() {
		return -1
	}
	end := q
	for end < len(text) {
		c, n := at(text, end)
		if !c.isSymbol() {
			break
		}
		end = n
	}
	for end < len(text) && (text[end] == '\r' || text[end] == '\n' || slash && text[end] == '/') {
		end++
	}
	return end
}

// whitespace matches alternatives 5 to 7 at i, or returns i.
func whitespace(text string, i int) int {
	end := run(text, i, cSpace)
	// 5: \s*[\r\n]+. The greedy \s* gives back whitespace until the
	// next character is a line break: the run's last one, which [\r\n]+
	// then takes ("\n \n" is one piece, "\n  x" splits after "\n").
	for k := end - 1; k >= i; k-- {
		if text[k] == '\r' || text[k] == '\n' {
			return k + 1
		}
	}
	// 6: \s+(?!\S) gives back the run's last character unless the run
	// ends the text. 7: \s+ takes a single whitespace character before a
	// non-space.
	if end > i && end < len(text) {
		if _, last := before(text, end); last > i {
			return last
		}
	}
	return end
}
