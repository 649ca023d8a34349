package strategies

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Rendering limits of tool-call arguments (docs/STRATEGIES.md, "Value
// rendering"). Samples show more of a value than tool
// call arguments do because a sample is the LLM's only view of a definition,
// while the arguments are a reminder of an action already taken.
const (
	argItemLimit      = 3
	argPrintableLimit = 60
	// unlimited renders a value whole: map keys (so that their order does not
	// depend on a limit) and the turn results of the full strategy.
	unlimited = 1 << 40
)

// RenderValue renders v as PTC-Lisp text for the LLM, showing at most limit
// items of each collection and printable characters of each string
// (docs/STRATEGIES.md, "Value rendering"). Map keys beginning with "_" are
// left out at every depth.
// The result depends only on v and the two limits.
func RenderValue(v lisp.Value, limit, printable int) string {
	var b strings.Builder
	writeValue(&b, v, limit, printable)
	return b.String()
}

// writeValue recurses once per level v nests, where lisp's printing walks
// values with an explicit stack. It is the one walk over values outside
// lisp, and stays here: what it does at each level is rendering for the
// LLM (limits per collection, a printable budget shared among map values,
// hidden keys, order by rendered text), and the values it renders come
// from requests, whose nesting the reader bounds (--max-value-depth, at
// most lisp.MaxValueNesting: ten thousand frames). Its work is linear in
// the value but for set elements and map keys rendered whole to be
// ordered, text the reader bounds as what it hashes whole.
// TestRenderValuesAtTheNestingCap holds it to both.
func writeValue(b *strings.Builder, v lisp.Value, limit, printable int) {
	switch v := v.(type) {
	case nil, lisp.NilType:
		b.WriteString("nil")
	case lisp.Bool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case lisp.Int:
		b.WriteString(strconv.FormatInt(int64(v), 10))
	case lisp.Float:
		writeFloat(b, float64(v))
	case lisp.String:
		writeString(b, string(v), printable)
	case lisp.Keyword:
		b.WriteByte(':')
		b.WriteString(string(v))
	case *lisp.Vector:
		if v.IsList() {
			writeSeq(b, "(", ")", v.Elems(), limit, printable)
			break
		}
		writeSeq(b, "[", "]", v.Elems(), limit, printable)
	case *lisp.Set:
		writeSet(b, v, limit, printable)
	case *lisp.Map:
		writeMap(b, v, limit, printable)
	case lisp.Function, *lisp.Builtin:
		b.WriteString(lisp.TypeLabel(v))
	default:
		lisp.WriteRepr(b, v)
	}
}

// writeFloat shows at most 10 digits after the point, trailing zeros dropped
// but one kept, so float noise such as 1.1+2.2 = 3.3000000000000003 reads 3.3.
// From 1e7 on it writes what the interpreter prints (1.0E308): written out,
// 1e308 takes 309 digits, and a turn of such numbers would render as sixty
// times its size.
func writeFloat(b *strings.Builder, f float64) {
	switch {
	case math.IsNaN(f):
		b.WriteString("##NaN")
		return
	case math.IsInf(f, 1):
		b.WriteString("##Inf")
		return
	case math.IsInf(f, -1):
		b.WriteString("##-Inf")
		return
	case math.Abs(f) >= 1e7:
		lisp.WriteRepr(b, lisp.Float(f))
		return
	}
	var buf [32]byte // most floats fit; AppendFloat grows the rest
	s := bytes.TrimRight(strconv.AppendFloat(buf[:0], f, 'f', 10, 64), "0")
	b.Write(s)
	if s[len(s)-1] == '.' {
		b.WriteByte('0')
	}
}

// writeString quotes s; beyond printable characters it shows the first
// printable ones followed by "..." inside the quotes.
func writeString(b *strings.Builder, s string, printable int) {
	cut := false
	if printable < len(s) {
		// Walk the first printable characters (invalid bytes count one
		// each, as in utf8.RuneCountInString); anything left is cut.
		i, n := 0, 0
		for i < len(s) && n < printable {
			if s[i] < utf8.RuneSelf {
				i++
			} else {
				_, size := utf8.DecodeRuneInString(s[i:])
				i += size
			}
			n++
		}
		if i < len(s) {
			s, cut = s[:i], true
		}
	}
	b.WriteByte('"')
	lisp.WriteEscaped(b, s)
	if cut {
		b.WriteString("...")
	}
	b.WriteByte('"')
}

// writeSeq writes the first limit elements; a longer sequence ends with
// " ...]" and says how many items it holds.
func writeSeq(b *strings.Builder, open, close string, elems []lisp.Value, limit, printable int) {
	b.WriteString(open)
	shown := min(len(elems), max(limit, 0))
	for i := range shown {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeValue(b, elems[i], limit, printable)
	}
	if shown < len(elems) {
		if shown > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("...")
		b.WriteString(close)
		b.WriteString(" (")
		b.WriteString(strconv.Itoa(len(elems)))
		b.WriteString(" items, showing first ")
		b.WriteString(strconv.Itoa(shown))
		b.WriteByte(')')
		return
	}
	b.WriteString(close)
}

// writeSet orders the elements by their rendered text, so the output does not
// depend on insertion order.
func writeSet(b *strings.Builder, s *lisp.Set, limit, printable int) {
	texts := make([]string, s.Len())
	for i, e := range s.Elems() {
		texts[i] = RenderValue(e, limit, printable)
	}
	slices.Sort(texts)
	b.WriteString("#{")
	shown := min(len(texts), max(limit, 0))
	for i := range shown {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(texts[i])
	}
	if shown < len(texts) {
		if shown > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("...} (")
		b.WriteString(strconv.Itoa(len(texts)))
		b.WriteString(" items, showing first ")
		b.WriteString(strconv.Itoa(shown))
		b.WriteByte(')')
		return
	}
	b.WriteByte('}')
}

// writeMap drops hidden keys, orders the rest by the bytes of their rendered
// key, and shows at most min(limit, max(printable/30, 1)) entries, whose values
// share the printable budget.
func writeMap(b *strings.Builder, m *lisp.Map, limit, printable int) {
	// When every key is a keyword (agent data almost always), entries are
	// ordered by the keyword's name: ":" + a sorts before ":" + b exactly
	// when a sorts before b, and no key text is built.
	type entry struct {
		key string // the rendered key, or the keyword's name when keywords
		val lisp.Value
	}
	var small [8]entry
	visible := small[:0]
	keywords := true
	for _, e := range m.Entries() {
		if hiddenKey(e.Key) {
			continue
		}
		k, ok := e.Key.(lisp.Keyword)
		keywords = keywords && ok
		visible = append(visible, entry{string(k), e.Val})
	}
	if !keywords {
		i := 0
		for _, e := range m.Entries() {
			if !hiddenKey(e.Key) {
				visible[i].key = RenderValue(e.Key, unlimited, unlimited)
				i++
			}
		}
	}
	slices.SortFunc(visible, func(x, y entry) int { return strings.Compare(x.key, y.key) })
	shown := min(len(visible), max(limit, 0), max(printable/30, 1))
	valPrintable := printable
	if shown > 0 {
		valPrintable = max((printable-10*shown)/shown, 10)
	}
	b.WriteByte('{')
	for i := range shown {
		if i > 0 {
			b.WriteByte(' ')
		}
		if keywords {
			b.WriteByte(':')
		}
		b.WriteString(visible[i].key)
		b.WriteByte(' ')
		writeValue(b, visible[i].val, limit, valPrintable)
	}
	if shown < len(visible) {
		if shown > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("...")
	}
	b.WriteByte('}')
}

// hiddenKey reports a map key the LLM must never see: a keyword or string
// beginning with "_".
func hiddenKey(k lisp.Value) bool {
	switch k := k.(type) {
	case lisp.Keyword:
		return strings.HasPrefix(string(k), "_")
	case lisp.String:
		return strings.HasPrefix(string(k), "_")
	}
	return false
}

// hiddenName reports a data key or binding name whose sample is withheld.
func hiddenName(name string) bool { return strings.HasPrefix(name, "_") }
