package lisp

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// String functions (spec 8.3) and parsing (spec 8.9). Indexes count
// characters (code points), as count and nth on strings do.
var stringBuiltins = []*Builtin{
	{Name: "str", Sig: "(str x ...)", Doc: `concatenation of the values as text; nil is "", keywords keep their colon`, Category: "string",
		MinArgs: 0, MaxArgs: variadic, Fn: builtinStr,
		Cost:    cost(perArg(allArgs), writes),
		borrows: true},
	{Name: "subs", Sig: "(subs s start) (subs s start end)", Doc: "characters of s from start up to end (exclusive)", Category: "string",
		MinArgs: 2, MaxArgs: 3, Fn: builtinSubs,
		Cost: cost(scans(arg(0)), builds)},
	{Name: "split", Sig: "(split s sep) (split s sep limit)", Doc: `sep is a string or regex; trailing empty parts dropped`, Category: "string",
		MinArgs: 2, MaxArgs: 3, Fn: func(th *Thread, args []Value) (Value, error) {
			return splitString(th, "split", args[0], args[1], args[2:])
		},
		Cost: cost(scans(arg(0)), matching(arg(1), arg(0), true), chargedInBody("the parts: a string and an element each, charged before they are built, as the separator is found")),
		lean: true},
	{Name: "split-lines", Sig: "(split-lines s)", Doc: `lines of s, split at \n or \r\n`, Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: builtinSplitLines,
		Cost: cost(scans(arg(0)), chargedInBody("the parts: a string and an element each, charged before they are built, as the line ends are found"))},
	{Name: "join", Sig: "(join coll) (join sep coll)", Doc: "items as text, separated by sep", Category: "string",
		MinArgs: 1, MaxArgs: 2, Fn: builtinJoin,
		Cost: cost(visits(lastArg), writes)},
	{Name: "trim", Sig: "(trim s)", Doc: "s without leading and trailing whitespace", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: stringFunc("trim", func(s string) string { return strings.TrimFunc(s, javaWhitespace) }),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "triml", Sig: "(triml s)", Doc: "s without leading whitespace", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: stringFunc("triml", func(s string) string { return strings.TrimLeftFunc(s, javaWhitespace) }),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "trimr", Sig: "(trimr s)", Doc: "s without trailing whitespace", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: stringFunc("trimr", func(s string) string { return strings.TrimRightFunc(s, javaWhitespace) }),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "trim-newline", Sig: "(trim-newline s)", Doc: "s without trailing newlines", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: stringFunc("trim-newline", func(s string) string { return strings.TrimRight(s, "\r\n") }),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "replace", Sig: "(replace s match replacement)", Doc: "every match (string or regex) replaced; $1 in the replacement is a regex group", Category: "string",
		MinArgs: 2, MaxArgs: 3, Fn: func(th *Thread, args []Value) (Value, error) {
			if len(args) == 2 {
				// (replace smap coll) can only be clojure.core's.
				return builtinCoreReplace(th, args)
			}
			return replaceString(th, args)
		},
		Cost: cost(scans(arg(0)), matching(arg(1), arg(0), true), calls(arg(2)), chargedInBody("the replaced string, charged before it is built, once the matches are found; with two arguments, each item hashed as a key of the map"), builds),
		lazy: lazyReplace},
	{Name: "replace-first", Sig: "(replace-first s match replacement)", Doc: "first match replaced", Category: "string",
		MinArgs: 3, MaxArgs: 3, Fn: replacing("replace-first", false),
		Cost: cost(scans(arg(0)), matching(arg(1), arg(0), true), calls(arg(2)), chargedInBody("the replaced string, charged before it is built, once the match is found"), builds)},
	{Name: "upper-case", Sig: "(upper-case s)", Doc: "s in upper case", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: textFunc("upper-case", javaUpper),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "upcase", Sig: "(upcase s)", Doc: "same as upper-case", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: textFunc("upcase", javaUpper),
		Cost: cost(scans(arg(0)), builds),
		lean: true},
	{Name: "lower-case", Sig: "(lower-case s)", Doc: "s in lower case", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: textFunc("lower-case", javaLower),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "downcase", Sig: "(downcase s)", Doc: "same as lower-case", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: textFunc("downcase", javaLower),
		Cost: cost(scans(arg(0)), builds),
		lean: true},
	{Name: "capitalize", Sig: "(capitalize s)", Doc: "first character upper case, the rest lower case", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: textFunc("capitalize", capitalize),
		Cost: cost(scans(arg(0)), builds)},
	{Name: "starts-with?", Sig: "(starts-with? s prefix)", Doc: "s begins with prefix", Category: "string",
		MinArgs: 2, MaxArgs: 2, Fn: stringTest("starts-with?", strings.HasPrefix),
		Cost: cost(scans(arg(0)))},
	{Name: "ends-with?", Sig: "(ends-with? s suffix)", Doc: "s ends with suffix", Category: "string",
		MinArgs: 2, MaxArgs: 2, Fn: stringTest("ends-with?", strings.HasSuffix),
		Cost: cost(scans(arg(0)))},
	{Name: "includes?", Sig: "(includes? s sub)", Doc: "s contains sub", Category: "string",
		MinArgs: 2, MaxArgs: 2, Fn: stringTest("includes?", strings.Contains),
		Cost: cost(scans(arg(0)))},
	{Name: "index-of", Sig: "(index-of s sub) (index-of s sub from)", Doc: "first index of sub in s at or after from, or nil", Category: "string",
		MinArgs: 2, MaxArgs: 3, Fn: indexOf("index-of", false),
		Cost: cost(scans(arg(0))),
		lean: true},
	{Name: "last-index-of", Sig: "(last-index-of s sub)", Doc: "index of the last sub in s, or nil", Category: "string",
		MinArgs: 2, MaxArgs: 3, Fn: indexOf("last-index-of", true),
		Cost: cost(scans(arg(0)))},
	{Name: "blank?", Sig: "(blank? s)", Doc: "s is nil, empty or only whitespace", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: builtinBlank,
		Cost: cost(scans(arg(0)))},
	{Name: "pr-str", Sig: "(pr-str x ...)", Doc: `values as they print in code, separated by spaces: (pr-str "a") is "\"a\""`, Category: "string",
		MinArgs: 0, MaxArgs: variadic, Fn: printing(asEDN),
		Cost: cost(writes)},
	{Name: "print-str", Sig: "(print-str x ...)", Doc: "values as print shows them, separated by spaces", Category: "string",
		MinArgs: 0, MaxArgs: variadic, Fn: printing(asPrint),
		Cost: cost(writes)},
	unlisted(&Builtin{Name: "println-str", Sig: "(println-str x ...)", Doc: "print-str and a newline, as println writes", Category: "string",
		MinArgs: 0, MaxArgs: variadic, Fn: printingLine(asPrint),
		Cost: cost(writes)}),
	unlisted(&Builtin{Name: "prn-str", Sig: "(prn-str x ...)", Doc: "pr-str and a newline, as prn writes", Category: "string",
		MinArgs: 0, MaxArgs: variadic, Fn: printingLine(asEDN),
		Cost: cost(writes)}),
	{Name: "name", Sig: "(name x)", Doc: `name of a keyword without colon (or a string itself): (name :a) is "a"`, Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: builtinName,
		Cost: cost(constant)},
	{Name: "keyword", Sig: "(keyword s)", Doc: `keyword named s: (keyword "a") is :a; nil for nil`, Category: "string",
		MinArgs: 1, MaxArgs: 2, Fn: builtinKeyword,
		Cost: cost(scans(allArgs))},
	{Name: "format", Sig: "(format fmt x ...)", Doc: `Java-style formatting: %s %d %.2f %x %5s %-5s %05d %%`, Category: "string",
		MinArgs: 1, MaxArgs: variadic, Fn: builtinFormat,
		Cost: cost(scans(arg(0)), perArg(argsFrom(1)), writes)},
	{Name: "parse-long", Sig: "(parse-long s)", Doc: "integer in s, or nil when s is not exactly an integer", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: builtinParseLong,
		Cost: cost(scans(arg(0)))},
	{Name: "parse-double", Sig: "(parse-double s)", Doc: "float in s, or nil when s is not exactly a number", Category: "string",
		MinArgs: 1, MaxArgs: 1, Fn: builtinParseDouble,
		Cost: cost(scans(arg(0)))},
}

// stringArg checks that v is a string.
func stringArg(fn string, v Value) (string, error) {
	if s, ok := v.(String); ok {
		return string(s), nil
	}
	e := typeErrorf(fn, "a string", v)
	if _, isNil := v.(NilType); isNil {
		e = e.WithHint("a value is nil; check for missing keys, or use (str x) to turn nil into \"\"")
	}
	return "", e
}

func builtinStr(th *Thread, args []Value) (Value, error) {
	if len(args) == 1 {
		if s, ok := args[0].(String); ok {
			return s, nil
		}
	}
	if text, ok, err := plainText(th, args, ""); ok {
		return text, err
	}
	t := textWriter{th: th}
	for _, a := range args {
		if err := writeValue(&t, th, a, asStr); err != nil {
			return nil, err
		}
	}
	return t.text()
}

func builtinSubs(th *Thread, args []Value) (Value, error) {
	if args[0] == Nil {
		// Clojure casts the indexes to numbers before it calls the nil
		// string: their ClassCastException comes first
		for _, i := range args[1:] {
			if _, err := toInt("subs", i); err != nil {
				return nil, err
			}
		}
	}
	s, err := stringArg("subs", args[0])
	if err != nil {
		return nil, err
	}
	n := utf8.RuneCountInString(s)
	start, err := toInt("subs", args[1])
	if err != nil {
		return nil, err
	}
	end := n
	if len(args) == 3 {
		if end, err = toInt("subs", args[2]); err != nil {
			return nil, err
		}
	}
	if start < 0 || end > n || start > end {
		return nil, Errorf(executionError, "subs range %d..%d is out of bounds for a string of %d characters", start, end, n).
			WithHint("check (count s) first, or clamp the end: (subs s start (min end (count s)))").
			asJava("StringIndexOutOfBoundsException", fmt.Sprintf("begin %d, end %d, length %d", start, end, n))
	}
	return String(s[runeOffset(s, start):runeOffset(s, end)]), nil
}

// runeOffset is the byte offset of the i-th character of s.
func runeOffset(s string, i int) int {
	for off := range s {
		if i == 0 {
			return off
		}
		i--
	}
	return len(s)
}

// splitString splits s at a string separator (literally) or a regex. As in
// Clojure, trailing empty parts are dropped unless a limit is given.
func splitString(th *Thread, fn string, sv, sep Value, limitArg []Value) (Value, error) {
	s, err := stringArg(fn, sv)
	if err != nil {
		return nil, err
	}
	// As Java's String.split, which Clojure calls: a limit above zero keeps
	// at most that many parts, and any limit but zero keeps the trailing
	// empty parts that no limit (or zero) drops.
	limit, keepTrailing := -1, false
	if len(limitArg) == 1 {
		if limit, err = toInt(fn, limitArg[0]); err != nil {
			return nil, err
		}
		keepTrailing = limit != 0
		if limit <= 0 {
			limit = -1
		}
	}
	var parts []string
	switch p := sep.(type) {
	case String:
		// The parts are charged before strings.Split builds them.
		count := utf8.RuneCountInString(s)
		if p != "" {
			count = strings.Count(s, string(p)) + 1
		}
		if err := th.alloc(int64(count) * perMatchCost); err != nil {
			return nil, err
		}
		if p == "" {
			parts = strings.Split(s, "")
			if limit > 0 && len(parts) > limit {
				parts = append(parts[:limit-1], strings.Join(parts[limit-1:], ""))
			}
		} else {
			if limit > count {
				limit = count // SplitN makes room for limit parts
			}
			parts = strings.SplitN(s, string(p), limit)
		}
	case *regex:
		locs, err := findAll(th, p, s, -1)
		if err != nil {
			return nil, err
		}
		parts = splitAt(s, locs, limit)
	default:
		// Clojure casts it to a Pattern
		return nil, Errorf(typeError, "%s expected a string or regex separator, got %s", fn, describe(sep)).castFails(sep).nullFails(sep)
	}
	if s == "" {
		parts = []string{""}
	} else if !keepTrailing {
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
	}
	return stringVector(th, parts)
}

// splitAt cuts s around the matches at locs, keeping at most limit parts
// (all when limit < 1), as Java's Pattern.split does: a zero-width match
// at the start makes no empty first part, and what follows the last match
// is always a part, empty or not.
func splitAt(s string, locs [][]int, limit int) []string {
	parts := make([]string, 0, len(locs)+1)
	beg := 0
	for _, loc := range locs {
		if limit > 0 && len(parts) == limit-1 {
			break
		}
		if loc[1] == 0 {
			continue
		}
		parts = append(parts, s[beg:loc[0]])
		beg = loc[1]
	}
	return append(parts, s[beg:])
}

// stringVector charges for and returns a vector of strings.
func stringVector(th *Thread, parts []string) (Value, error) {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	if err := th.alloc(int64(len(parts))*heapString + int64(total)); err != nil {
		return nil, err
	}
	out, err := makeSlice(th, len(parts))
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		out = append(out, String(p))
	}
	return NewVector(out), nil
}

func builtinSplitLines(th *Thread, args []Value) (Value, error) {
	s, err := stringArg("split-lines", args[0])
	if err != nil {
		return nil, err
	}
	if err := th.alloc(int64(strings.Count(s, "\n")+1) * perMatchCost); err != nil {
		return nil, err
	}
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	for len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return stringVector(th, parts)
}

func builtinJoin(th *Thread, args []Value) (Value, error) {
	var sep Value = String("")
	coll := args[len(args)-1]
	if len(args) == 2 {
		sep = args[0]
	}
	elems, err := seqOf(th, "join", coll, anySeq)
	if err != nil {
		return nil, err
	}
	if s, ok := sep.(String); ok {
		if text, ok, err := plainText(th, elems, string(s)); ok {
			return text, err
		}
	}
	t := textWriter{th: th}
	for i, e := range elems {
		if i > 0 {
			if err := writeValue(&t, th, sep, asStr); err != nil {
				return nil, err
			}
		}
		if err := writeValue(&t, th, e, asStr); err != nil {
			return nil, err
		}
	}
	return t.text()
}

func stringFunc(fn string, f func(string) string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		s, err := stringArg(fn, args[0])
		if err != nil {
			return nil, err
		}
		// Case mapping can change byte lengths, but by a bounded
		// factor: builds charges the result's.
		return String(f(s)), nil
	}
}

// textFunc is stringFunc for the functions whose Clojure calls .toString
// on its argument first (upper-case, lower-case, capitalize).
func textFunc(fn string, f func(string) string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		s, err := javaTextArg(th, fn, args[0])
		if err != nil {
			return nil, err
		}
		return String(f(s)), nil
	}
}

// javaTextArg is the string a clojure.string function that calls
// .toString on its argument sees: a string itself, or Java's text of a
// number, keyword, symbol, boolean or collection, which str gives
// ((upper-case :a) is ":A", (includes? 123 "2") true, (upper-case [:a]) is
// "[:A]"). nil stays an error (Clojure's NullPointerException), as do the
// values whose Java text is an identity (functions, atoms).
func javaTextArg(th *Thread, fn string, v Value) (string, error) {
	switch v.(type) {
	case Int, Float, Float32, *BigInt, *BigDec, Keyword, symbol, Bool, *Vector, *list, *Set, *Map:
		text, err := builtinStr(th, []Value{v})
		if err != nil {
			return "", err
		}
		return string(text.(String)), nil
	}
	return stringArg(fn, v)
}

func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return javaUpper(string(r)) + javaLower(s[size:])
}

// javaUpper and javaLower are Java's String.toUpperCase and toLowerCase,
// which Clojure's upper-case, lower-case and capitalize call: Unicode's
// full case mappings, so "straße" is "STRASSE" and a word's final "Σ"
// lowers to "ς", where Go's strings.ToUpper and ToLower map one rune to
// one rune. ASCII, the common case, keeps the plain functions.
func javaUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return cases.Upper(language.Und).String(s)
}

func javaLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return cases.Lower(language.Und).String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func stringTest(fn string, test func(s, sub string) bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		s, err := javaTextArg(th, fn, args[0])
		if err != nil {
			return nil, err
		}
		sub, ok := args[1].(String)
		if !ok {
			err := typeErrorf(fn, "a string to look for", args[1])
			switch args[0].(type) {
			case *Vector, *list, *Set, *Map:
				if fn == "includes?" {
					return nil, asError(err).WithHint("includes? is for strings; test membership in a collection with (some #{x} coll)")
				}
			}
			return nil, err
		}
		return boolValue(test(s, string(sub))), nil
	}
}

// replaceString is clojure.string/replace.
var replaceString = replacing("replace", true)

func indexOf(fn string, last bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		s, err := stringArg(fn, args[0])
		if err != nil {
			return nil, err
		}
		sub, ok := args[1].(String)
		if !ok {
			return nil, typeErrorf(fn, "a string to look for", args[1])
		}
		offset := 0 // in bytes
		from := 0   // in characters
		if last && len(args) == 3 {
			// Java's lastIndexOf(sub, from): the last match starting at or
			// before from.
			if from, err = toInt(fn, args[2]); err != nil {
				return nil, err
			}
			if from < 0 {
				return Nil, nil
			}
			for i := 0; i < from && offset < len(s); i++ {
				_, size := utf8.DecodeRuneInString(s[offset:])
				offset += size
			}
			i := strings.LastIndex(s[:min(len(s), offset+len(sub))], string(sub))
			if i < 0 {
				return Nil, nil
			}
			return Int(utf8.RuneCountInString(s[:i])), nil
		}
		if len(args) == 3 {
			if from, err = toInt(fn, args[2]); err != nil {
				return nil, err
			}
			from = max(from, 0)
			// A from past the end searches from the end, as Java's does:
			// only the empty string is found there.
			for i := 0; i < from && offset < len(s); i++ {
				_, size := utf8.DecodeRuneInString(s[offset:])
				offset += size
			}
		}
		var i int
		if last {
			i = strings.LastIndex(s, string(sub))
		} else {
			i = strings.Index(s[offset:], string(sub))
			if i >= 0 {
				i += offset
			}
		}
		if i < 0 {
			return Nil, nil
		}
		return Int(utf8.RuneCountInString(s[:i])), nil
	}
}

func builtinBlank(th *Thread, args []Value) (Value, error) {
	switch s := args[0].(type) {
	case NilType:
		return trueValue, nil
	case String:
		return boolValue(strings.TrimFunc(string(s), javaWhitespace) == ""), nil
	}
	return nil, typeErrorf("blank?", "a string or nil", args[0])
}

// printing is pr-str (asEDN) and print-str (asStr): the arguments as
// text, separated by spaces.
func printing(style textStyle) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) { return printed(th, args, style, false) }
}

// printingLine is println-str and prn-str: printing's text and a newline.
func printingLine(style textStyle) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) { return printed(th, args, style, true) }
}

func printed(th *Thread, args []Value, style textStyle, newline bool) (Value, error) {
	t := textWriter{th: th}
	for i, a := range args {
		if i > 0 {
			t.writeByte(' ')
		}
		if err := writeValue(&t, th, a, style); err != nil {
			return nil, err
		}
	}
	if newline {
		t.writeByte('\n')
	}
	return t.text()
}

func builtinName(th *Thread, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case Keyword:
		return String(namePart(string(v))), nil
	case String:
		return v, nil
	case symbol:
		return String(namePart(string(v))), nil // (name 'x/y) is "y", as for keywords
	}
	return nil, typeErrorf("name", "a keyword or string", args[0])
}

// namePart is the part of a keyword's or symbol's text after its
// namespace, which ends at the first slash as Clojure's does: "y" of
// "x/y", "b/c" of "a/b/c"; "/" alone is its own name.
func namePart(s string) string {
	if i := strings.IndexByte(s, '/'); i >= 0 && s != "/" {
		return s[i+1:]
	}
	return s
}

func builtinKeyword(th *Thread, args []Value) (Value, error) {
	if len(args) == 2 && args[0] == Nil {
		// Clojure's (keyword nil "x") is :x, the keyword of no namespace.
		name, err := stringArg("keyword", args[1])
		if err != nil {
			return nil, err
		}
		return Keyword(name), nil
	}
	if len(args) == 2 {
		ns, err := stringArg("keyword", args[0])
		if err != nil {
			return nil, err
		}
		name, err := stringArg("keyword", args[1])
		if err != nil {
			return nil, err
		}
		return Keyword(ns + "/" + name), nil
	}
	switch v := args[0].(type) {
	case Keyword:
		return v, nil
	case String:
		return Keyword(v), nil
	case symbol:
		return Keyword(v), nil
	}
	return Nil, nil // Clojure's keyword of anything else is nil
}

// builtinParseLong accepts exactly an optionally signed decimal integer that
// fits in 64 bits; anything else, including a non-string, gives nil
// (spec 8.9).
func builtinParseLong(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return Nil, nil
	}
	text, ok, err := th.integerText(string(s))
	if err != nil {
		return nil, err
	}
	if !ok || len(text) > len("-9223372036854775808") { // past a long's range
		return Nil, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return Nil, nil
	}
	return Int(n), nil
}

// builtinParseDouble accepts the decimal forms Java's Double.parseDouble
// does, without surrounding whitespace (the specification: (parse-double
// "3.14 ") is nil, where Clojure's is 3.14).
func builtinParseDouble(th *Thread, args []Value) (Value, error) {
	return parseDecimal(th, "parse-double", args[0])
}

// parseDecimal is parse-double as fn: nil for what is not a number, an
// error for a number longer than maxDecimalChars.
func parseDecimal(th *Thread, fn string, v Value) (Value, error) {
	s, ok := v.(String)
	if !ok {
		return Nil, nil
	}
	if ok, err := th.isDecimal(string(s)); err != nil || !ok {
		return Nil, err
	}
	if len(s) > maxDecimalChars {
		return nil, decimalTooLong(fn, len(s))
	}
	text := strings.Replace(string(s), "Infinity", "Inf", 1)
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Nil, nil
	}
	return Float(f), nil
}

// javaDecimalText is s without what Java's Double.valueOf allows around a
// number: characters up to the space on each side, and one f, F, d or D
// after its digits (not after NaN or Infinity).
func javaDecimalText(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if n := len(s); n > 1 && strings.IndexByte("fFdD", s[n-1]) >= 0 && s[n-2] != 'N' && s[n-2] != 'y' {
		return s[:n-1]
	}
	return s
}

func replacing(fn string, all bool) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		s, err := javaTextArg(th, fn, args[0])
		if err != nil {
			return nil, err
		}
		var out string
		switch m := args[1].(type) {
		case String:
			repl, ok := args[2].(String)
			if !ok {
				return nil, typeErrorf(fn, "a replacement string", args[2])
			}
			if err := chargeReplace(th, s, strings.Count(s, string(m)), len(repl)); err != nil {
				return nil, err
			}
			if all {
				out = strings.ReplaceAll(s, string(m), string(repl))
			} else {
				out = strings.Replace(s, string(m), string(repl), 1)
			}
		case *regex:
			if out, err = regexReplace(th, fn, s, m, args[2], all); err != nil {
				return nil, err
			}
		default:
			msg := "Invalid match arg: " // Clojure's (str "Invalid match arg: " match)
			if args[1] != Nil {
				msg += shown(args[1])
			}
			return nil, Errorf(typeError, "%s expected a string or regex to match, got %s", fn, describe(args[1])).
				asJava("IllegalArgumentException", msg)
		}
		return String(out), nil
	}
}

// chargeReplace charges the growth of a replacement before it is built.
func chargeReplace(th *Thread, s string, count, replLen int) error {
	return th.alloc(int64(len(s)) + int64(count)*int64(replLen))
}

// regexReplace replaces matches of re in s with a replacement string ($1
// groups) or with the text a function returns for each match.
func regexReplace(th *Thread, fn, s string, re *regex, repl Value, all bool) (string, error) {
	n := -1
	if !all {
		n = 1
	}
	locs, err := findAll(th, re, s, n)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	prev := 0
	// The replacement string is read into a template at the first match
	// (Java refuses a bad one only then) and expanded into one buffer:
	// read again at every match it allocated 5 times its length a match.
	var template string
	var expanded []byte
	parsed := false
	if r, ok := repl.(String); ok {
		b.Grow(len(s) + len(locs)*len(r)) // charged above, match by match
	}
	for _, loc := range locs {
		b.WriteString(s[prev:loc[0]])
		switch r := repl.(type) {
		case String:
			if err := th.alloc(int64(len(r)) * 2); err != nil {
				return "", err
			}
			if !parsed {
				if template, err = javaReplacement(string(r), re.groupCount()); err != nil {
					return "", err
				}
				parsed = true
				expanded = make([]byte, 0, len(template))
			}
			expanded = expandReplacement(expanded[:0], template, s, loc)
			b.Write(expanded)
		default:
			m, err := matchValue(th, s, loc)
			if err != nil {
				return "", err
			}
			v, err := call(th, fn, repl, m)
			if err != nil {
				return "", err
			}
			text := Str(v)
			if err := th.alloc(int64(len(text))); err != nil {
				return "", err
			}
			b.WriteString(text)
		}
		prev = loc[1]
	}
	b.WriteString(s[prev:])
	return b.String(), nil
}

// stringNamespaceBuiltins are the clojure.string functions whose bare
// name means something else in core: (clojure.string/reverse "abc") is
// "cba", while (reverse "abc") is the characters in reverse order.
var stringNamespaceBuiltins = []*Builtin{
	{Name: "clojure.string/reverse", Sig: "(clojure.string/reverse s)", Doc: "s with its characters in reverse order", reach: inNamespace,
		Category: "string", MinArgs: 1, MaxArgs: 1, Fn: builtinStringReverse, Cost: cost(scans(arg(0)), builds)},
}

func builtinStringReverse(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return nil, typeErrorf("clojure.string/reverse", "a string", args[0])
	}
	r := []rune(string(s))
	slices.Reverse(r)
	return String(r), nil
}
