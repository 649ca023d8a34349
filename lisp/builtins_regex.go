package lisp

import (
	"fmt"
	"strings"
	"unicode"
)

// Regex functions (spec 8.10). re-find, re-matches and re-seq take a
// regex only, as Clojure's, which throws ClassCastException for a string.
var regexBuiltins = []*Builtin{
	{Name: "re-pattern", Sig: "(re-pattern s)", Doc: `compile s as a regex: (re-pattern "\\d+")`, Category: "regex",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			switch v := args[0].(type) {
			case *regex:
				return v, nil
			case String:
				if err := th.allocString(len(v)); err != nil {
					return nil, err
				}
				r, err := compileRegex("re-pattern", string(v))
				if err != nil {
					return nil, err
				}
				return r, chargeRegex(th, r)
			}
			return nil, typeErrorf("re-pattern", "a string", args[0])
		},
		Cost: cost(chargedInBody("the pattern's bytes, and once compiled (at most 256 bytes of pattern), the steps of compiling it and the heap it holds (chargeRegex)"))},
	{Name: "re-find", Sig: "(re-find re s)", Doc: "first match: the text, or [whole group1 ...] with groups; nil when none", Category: "regex",
		MinArgs: 1, MaxArgs: 2, Fn: builtinReFind,
		Cost: cost(matching(arg(0), arg(1), false), chargedInBody("the match it returns, charged as it is built (matchValue): its size is known only once found"))},
	{Name: "re-matches", Sig: "(re-matches re s)", Doc: "like re-find, but re must match the whole string", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: builtinReMatches,
		Cost: cost(matching(arg(0), arg(1), false), chargedInBody("the match it returns, charged as it is built (matchValue): its size is known only once found"))},
	{Name: "re-seq", Sig: "(re-seq re s)", Doc: "every match, as re-find returns them; nil when none", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: builtinReSeq,
		Cost: cost(matching(arg(0), arg(1), false), chargedInBody("the matches, counted against the allocation budget before Go builds them (findAll): how many there are is known only as they are found"))},
	{Name: "re-split", Sig: "(re-split re s)", Doc: "s split around matches of re", Category: "regex",
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return splitString(th, "re-split", args[1], args[0], nil)
		},
		Cost: cost(scans(arg(1)), matching(arg(0), arg(1), false), chargedInBody("the parts: a string and an element each, charged before they are built, as the matches are found (findAll)")),
		lean: true},
	{Name: "regex?", Sig: "(regex? x)", Doc: "x is a regex", Category: "regex",
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			_, ok := args[0].(*regex)
			return boolValue(ok), nil
		},
		Cost: cost(constant),
		lean: true},
}

// regexInput checks the arguments of a match function, whose declaration
// charged the match (matching).
func regexInput(th *Thread, fn string, reV, sV Value) (*regex, string, bool, error) {
	re, err := regexArg(fn, reV)
	if err != nil {
		return nil, "", false, err
	}
	switch s := sV.(type) {
	case String:
		return re, string(s), true, nil
	case NilType:
		return re, "", false, nil
	}
	return nil, "", false, castError(fn, "a string", sV, "java.lang.CharSequence") // Java's matcher casts it
}

func builtinReFind(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		// (re-find matcher): the sandbox has no Matcher, and Clojure's cast
		// of anything else to one fails
		e := typeErrorf("re-find", "a java.util.regex.Matcher, which the sandbox has not (call (re-find re s))", args[0])
		if isNilValue(args[0]) {
			return nil, e
		}
		return nil, e.asJava("ClassCastException", "")
	}
	re, s, ok, err := regexInput(th, "re-find", args[0], args[1])
	if err != nil || !ok {
		return Nil, err
	}
	loc, err := re.find(th, s)
	if err != nil {
		return nil, err
	}
	if loc == nil {
		return Nil, nil
	}
	return matchValue(th, s, loc)
}

func builtinReMatches(th *Thread, args []Value) (Value, error) {
	re, s, ok, err := regexInput(th, "re-matches", args[0], args[1])
	if err != nil || !ok {
		return Nil, err
	}
	loc, err := re.matchWhole(th, s)
	if err != nil {
		return nil, err
	}
	if loc == nil {
		return Nil, nil
	}
	return matchValue(th, s, loc)
}

func builtinReSeq(th *Thread, args []Value) (Value, error) {
	re, s, ok, err := regexInput(th, "re-seq", args[0], args[1])
	if err != nil || !ok {
		return Nil, err
	}
	locs, err := findAll(th, re, s, -1)
	if err != nil {
		return nil, err
	}
	if len(locs) == 0 {
		return Nil, nil
	}
	out, err := makeSlice(th, len(locs))
	if err != nil {
		return nil, err
	}
	for _, loc := range locs {
		m, err := matchValue(th, s, loc)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return NewVector(out), nil
}

// Patterns are written in Java's syntax, as Clojure reads them; Go's RE2
// runs them. javaRegex rewrites what Java has and RE2 spells otherwise or
// lacks, each to what matches exactly the same characters:
//
//   - the POSIX classes \p{Alpha} \p{Digit} \p{Alnum} \p{Upper} \p{Lower}
//     \p{Punct} \p{Space} \p{XDigit} \p{Blank} \p{Cntrl} \p{Graph}
//     \p{Print} \p{ASCII} (ASCII only, as Java's) to RE2's [[:alpha:]] and
//     kin, \P{...} to their negations, in a class or outside one;
//   - \s and \S, which in Java count the vertical tab as a space;
//   - \h (horizontal whitespace), \v (vertical whitespace, not only the
//     vertical tab as in RE2), \R (a line break, \r\n as one) and \e;
//   - \p{IsAlphabetic} \p{IsLetter} \p{IsDigit} \p{IsUppercase}
//     \p{IsLowercase} \p{javaLowerCase} \p{javaUpperCase} \p{javaLetter}
//     \p{javaDigit} \p{javaLetterOrDigit} and the scripts (\p{IsLatin}) to
//     Unicode categories: letters (and letter numbers for
//     IsAlphabetic), Ll, Lu, Nd. Java adds the few characters Unicode
//     calls Other_Alphabetic or Other_Lowercase (combining vowel signs,
//     modifier letters), which these do not match;
//   - a class nested in a class, which Java reads as their union:
//     [a[bc]] is [abc], and so [[:alpha:]] is the characters :alph.
//
// What RE2 cannot do (lookahead, lookbehind, backreferences, possessive
// quantifiers, class intersection, a negated class or escape nested in a
// class) makes ok false: the backtracking matcher runs such a pattern
// (compileRegex); what else RE2 does not know (atomic groups, (?x)) fails
// to compile with RE2 and goes there too. Java's $ also matches before a
// final line break, and RE2's only at the end: (re-find #"a$" "a\n") is
// nil here.
func javaRegex(pattern string) (translated string, ok bool) {
	var b strings.Builder
	depth := 0          // nesting of character classes
	quantified := false // the previous token was a quantifier
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		wasQuantified := quantified
		quantified = false
		switch {
		case c == '\\' && i+1 < len(pattern):
			next := pattern[i+1]
			if next == 'Q' { // quoted text up to \E, copied as it is
				end := strings.Index(pattern[i:], `\E`)
				if end < 0 {
					end = len(pattern) - i
				} else {
					end += 2
				}
				b.WriteString(pattern[i : i+end])
				i += end - 1
				continue
			}
			if (next == 'p' || next == 'P' || next == 'x') && i+2 < len(pattern) && pattern[i+2] == '{' {
				end := strings.IndexByte(pattern[i:], '}')
				if end > 0 {
					class, ok := javaClassProperty(pattern[i+3:i+end], next == 'P', depth > 0)
					if !ok || next == 'x' {
						class = pattern[i : i+end+1] // as RE2 reads it
					}
					b.WriteString(class)
					i += end
					continue
				}
			}
			if next >= '1' && next <= '9' && depth == 0 || next == 'k' && i+2 < len(pattern) && pattern[i+2] == '<' {
				return "", false // a backreference
			}
			if next == '0' {
				// Java's octal escape: \0 and one to three octal digits,
				// at most 0377 (\0000 is NUL); RE2 reads at most three
				// digits in all (\000 and a 0), so it is written in hex.
				v, n := 0, 0
				for j := i + 2; n < 3 && j < len(pattern) && pattern[j] >= '0' && pattern[j] <= '7' && v*8+int(pattern[j]-'0') <= 0377; j++ {
					v = v*8 + int(pattern[j]-'0')
					n++
				}
				if n == 0 {
					return "", false // Java refuses \0 alone, and the backtracking matcher says so
				}
				fmt.Fprintf(&b, `\x{%X}`, v)
				i += 1 + n
				continue
			}
			if class, ok := javaEscapes[next]; ok {
				if depth > 0 && next == 'S' {
					class = `[\x00-\x08\x0E-\x1F!-\x{10FFFF}]` // what \s leaves
				}
				if depth > 0 {
					class = strings.TrimSuffix(strings.TrimPrefix(class, "["), "]")
					if strings.HasPrefix(class, "^") || strings.HasPrefix(class, "(") {
						return "", false // a negated escape inside a class
					}
				}
				b.WriteString(class)
				i++
				continue
			}
			b.WriteString(pattern[i : i+2])
			i++
		case c == '[' && depth > 0:
			// A nested class: its members join the enclosing class's.
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				return "", false // a negated nested class
			}
			depth++
			if i+1 < len(pattern) && pattern[i+1] == ']' { // a ] first is a member here too
				b.WriteString(`\]`)
				i++
			}
		case c == '[':
			depth++
			b.WriteByte(c)
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' { // a ] first is a member
				b.WriteString(`\]`)
				i++
			}
		case c == ']' && depth > 1:
			depth--
		case c == ']' && depth == 1:
			depth--
			b.WriteByte(c)
		case c == '&' && depth > 0 && i+1 < len(pattern) && pattern[i+1] == '&':
			return "", false // a class intersection
		case depth == 0 && c == '(' && strings.HasPrefix(pattern[i:], "(?") && lookaround(pattern[i+2:]):
			return "", false
		case depth == 0 && c == '+' && wasQuantified:
			return "", false // a possessive quantifier
		default:
			b.WriteByte(c)
			if depth == 0 && (c == '*' || c == '+' || c == '?' || c == '}') {
				quantified = true
			}
		}
	}
	return b.String(), true
}

func isASCIIAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lookaround reports whether a group's text after "(?" opens a lookahead
// or lookbehind ((?<name> is a named group).
func lookaround(rest string) bool {
	return strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "!") ||
		strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, "<!")
}

// javaEscapes are the escapes whose meaning RE2 lacks or has otherwise,
// as the class (or group) that matches what Java's does.
var javaEscapes = map[byte]string{
	's': `[\t\n\x0B\f\r ]`,
	'S': `[^\t\n\x0B\f\r ]`,
	'h': `[\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]`,
	'H': `[^\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}]`,
	'v': `[\n\x0B\f\r\x{85}\x{2028}\x{2029}]`,
	'V': `[^\n\x0B\f\r\x{85}\x{2028}\x{2029}]`,
	'R': `(?:\r\n|[\n\x0B\f\r\x{85}\x{2028}\x{2029}])`,
	'e': `\x1B`,
}

// javaPOSIX are Java's POSIX classes, which are ASCII only, by the name
// of the RE2 class that matches the same characters.
var javaPOSIX = map[string]string{
	"Lower": "lower", "Upper": "upper", "ASCII": "ascii", "Alpha": "alpha", "Digit": "digit",
	"Alnum": "alnum", "Punct": "punct", "Graph": "graph", "Print": "print", "Blank": "blank",
	"Cntrl": "cntrl", "XDigit": "xdigit", "Space": "space",
}

// javaUnicodeClasses are Java's other named classes as RE2's Unicode
// classes (see javaRegex for what Java adds to some).
var javaUnicodeClasses = map[string]string{
	"IsAlphabetic": `\p{L}\p{Nl}`, "IsLetter": `\p{L}`, "IsDigit": `\p{Nd}`,
	"IsUppercase": `\p{Lu}`, "IsLowercase": `\p{Ll}`, "javaLowerCase": `\p{Ll}`, "javaUpperCase": `\p{Lu}`,
	"javaLetter": `\p{L}`, "javaDigit": `\p{Nd}`, "javaLetterOrDigit": `\p{L}\p{Nd}`,
}

// javaClassProperty is \p{name} (or \P{name} when negated) as RE2 writes
// it, inside a class or not; ok is false for a name RE2 reads as Java does
// (\p{L}, \p{Lu}, ...) or does not know.
func javaClassProperty(name string, negated, inClass bool) (string, bool) {
	if posix, ok := javaPOSIX[name]; ok {
		inner := "[:" + posix + ":]"
		if negated {
			inner = "[:^" + posix + ":]"
		}
		if inClass {
			return inner, true
		}
		return "[" + inner + "]", true
	}
	members, ok := javaUnicodeClasses[name]
	if script, isScript := strings.CutPrefix(name, "Is"); !ok && isScript && unicode.Scripts[script] != nil {
		members, ok = `\p{`+script+`}`, true // \p{IsGreek}: a script
	}
	if !ok {
		return "", false
	}
	switch {
	case !negated && inClass:
		return members, true
	case !negated:
		return "[" + members + "]", true
	case !inClass:
		return "[^" + members + "]", true
	case !strings.Contains(members[1:], `\p`): // one category: \P{..} negates it
		return `\P` + members[2:], true
	}
	return "", false
}
