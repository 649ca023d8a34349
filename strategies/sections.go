package strategies

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The sections of the USER message that describe the agent's environment:
// what it must do, the tools it may call, the data it was given, what it has
// defined so far and what it must return. Each function returns "" when its
// section has no content.

// nameColumn is the column at which the comment of a data or prelude line
// starts, so the comments line up for the reader.
const nameColumn = 30

// padName pads name to nameColumn columns, with at least one space.
func padName(b *strings.Builder, name string) {
	b.WriteString(name)
	n := max(nameColumn-utf8.RuneCountInString(name), 1)
	b.WriteString(padding[:n])
}

// padding is nameColumn spaces, which padName writes from rather than
// building a string of spaces for every line.
const padding = "                              "

// paddedLen is the length in bytes of name as padName writes it.
func paddedLen(name string) int {
	return len(name) + max(nameColumn-utf8.RuneCountInString(name), 1)
}

// oneLine keeps a caller-supplied text on its line: line breaks become spaces.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s // the replacer would copy it unchanged
	}
	return lineBreaks.Replace(s)
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

func missionSection(o *Options) string { return o.Mission }

// The tool section lists the tools sorted by name, with their signatures
// written without colons. A tool given without a signature takes a map of
// arguments nobody declared: "(...)", not "()", which would tell the model
// it takes none.

// toolLines is the tool section before it is written: its lines' parts
// and its length, so that it is written once, where it goes (a tool's
// description may be megabytes).
type toolLines struct {
	tools []ToolSpec
	lines []toolLine
	size  int // 0 for no tools
}

type toolLine struct{ params, ret, description string }

// toolLinesOf renders the tools' signatures, sorted by name.
func toolLinesOf(o *Options, r *Remembered) (toolLines, error) {
	if len(o.Tools) == 0 {
		return toolLines{}, nil
	}
	tools := slices.Clone(o.Tools)
	slices.SortFunc(tools, func(a, b ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	lines := make([]toolLine, len(tools))
	size := len(";; === tool/ ===")
	for i, t := range tools {
		l := toolLine{params: "...", ret: "any"}
		if t.Signature != "" {
			sig := r.signature(t.Signature)
			if sig.err != nil {
				return toolLines{}, &OptionError{Option: "tools", Reason: "tool " + t.Name + ": " + sig.err.Error()}
			}
			l.params, l.ret = sig.params, sig.ret
		}
		l.description = t.Description
		lines[i] = l
		size += len("\ntool/") + len(t.Name) + len("(") + len(l.params) + len(") -> ") + len(l.ret) + len("  ; ") + len(l.description)
	}
	return toolLines{tools: tools, lines: lines, size: size}, nil
}

// writeTo writes the section: a line a tool, its description on that
// line (line breaks written as spaces, as oneLine does, without a copy).
func (tl *toolLines) writeTo(b *strings.Builder) {
	b.WriteString(";; === tool/ ===")
	for i, t := range tl.tools {
		l := tl.lines[i]
		b.WriteString("\ntool/")
		b.WriteString(t.Name)
		b.WriteByte('(')
		b.WriteString(l.params)
		b.WriteString(") -> ")
		b.WriteString(l.ret)
		if l.description != "" {
			b.WriteString("  ; ")
			writeOneLine(b, l.description)
		}
	}
}

// writeOneLine writes oneLine(s) to b.
func writeOneLine(b *strings.Builder, s string) {
	for s != "" {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		if strings.HasPrefix(s[i:], "\r\n") {
			i++
		}
		s = s[i+1:]
	}
}

// dataSection lists the data keys sorted by name with their type and a
// sample.
func dataSection(o *Options) string {
	if o.Data == nil || o.Data.Len() == 0 {
		return ""
	}
	type item struct {
		name string
		val  lisp.Value
	}
	items := make([]item, 0, o.Data.Len())
	for _, e := range o.Data.Entries() {
		items = append(items, item{keyName(e.Key), e.Val})
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.name, b.name) })
	var b strings.Builder
	b.WriteString(";; === data/ ===")
	for _, it := range items {
		b.WriteByte('\n')
		padName(&b, "data/"+it.name)
		b.WriteString("; ")
		b.WriteString(lisp.TypeLabel(orNil(it.val)))
		// Every data line has a sample, nil and empty ones too: the LLM
		// has not seen the data any other way.
		writeSample(&b, it.name, orNil(it.val), o, true)
	}
	return b.String()
}

// writeSample appends ", sample: ..." when show is set, and ", [Hidden]"
// for a hidden name whether a sample would show or not: the marker tells the
// LLM why it sees no value.
func writeSample(b *strings.Builder, name string, v lisp.Value, o *Options, show bool) {
	if hiddenName(name) {
		b.WriteString(", [Hidden]")
		return
	}
	if !show {
		return
	}
	b.WriteString(", sample: ")
	writeValue(b, v, o.SampleLimit, o.SamplePrintableLimit)
}

func emptyValue(v lisp.Value) bool {
	switch v := v.(type) {
	case nil, lisp.NilType:
		return true
	case *lisp.Vector:
		return v.Len() == 0
	case *lisp.Map:
		return v.Len() == 0
	case *lisp.Set:
		return v.Len() == 0
	}
	return false
}

func orNil(v lisp.Value) lisp.Value {
	if v == nil {
		return lisp.Nil
	}
	return v
}

// keyName is how a data key is written after "data/": a keyword or string
// without decoration, anything else as its EDN text.
func keyName(k lisp.Value) string {
	switch k := k.(type) {
	case lisp.Keyword:
		return string(k)
	case lisp.String:
		return string(k)
	}
	return lisp.Repr(k)
}

// preludeSection lists the user's definitions: functions first, then values,
// each group in memory order. A value shows a sample only when the turn that
// defined it printed nothing: the LLM sees either samples or its own output.
func preludeSection(req *Request) string {
	if len(req.Memory) == 0 {
		return ""
	}
	var b strings.Builder
	const heading = ";; === user/ (your prelude) ==="
	printed := printingTurns(req.Turns)
	at := func(i int) *Binding { return &req.Memory[i] }
	b.Grow(len(heading) + bindingsLen(len(req.Memory), at, printed, &req.Options))
	b.WriteString(heading)
	writeBindingsAt(&b, len(req.Memory), at, printed, &req.Options)
	return b.String()
}

// writeBindings writes a line per binding, each after a line break:
// functions first, then values, each group in the order given. printed
// holds the numbers of the turns that printed.
func writeBindings(b *strings.Builder, bindings []Binding, printed map[int]bool, o *Options) {
	writeBindingsAt(b, len(bindings), func(i int) *Binding { return &bindings[i] }, printed, o)
}

// writeBindingsAt is writeBindings of the n bindings at(0) to at(n-1).
func writeBindingsAt(b *strings.Builder, n int, at func(int) *Binding, printed map[int]bool, o *Options) {
	for i := range n {
		if bd := at(i); bd.Fn != nil {
			b.WriteByte('\n')
			writeFunctionLine(b, bd)
		}
	}
	for i := range n {
		bd := at(i)
		if bd.Fn != nil {
			continue
		}
		b.WriteByte('\n')
		padName(b, bd.Name)
		b.WriteString("; = ")
		b.WriteString(lisp.TypeLabel(orNil(bd.Value)))
		// A nil or empty value's type says it all; a printing turn's
		// output already showed what it defined.
		writeSample(b, bd.Name, bd.Value, o, !printed[bd.Turn] && !emptyValue(bd.Value))
	}
}

// bindingsLen is about the length of what writeBindingsAt writes, so that
// a prompt of many bindings is built in one buffer of its size rather than
// grown step by step (growing a large buffer allocates about four times
// its final size in all). It is exact for lines of values that print
// without walking them (numbers, keywords, booleans, nil), the usual
// memory of many small bindings, and an estimate for the others.
func bindingsLen(n int, at func(int) *Binding, printed map[int]bool, o *Options) int {
	total := 0
	for i := range n {
		bd := at(i)
		if fn := bd.Fn; fn != nil {
			total += 1 + paddedLen(bd.Name) + 8 + len(fn.Params)*8 + len(fn.Docstring) + len(fn.ReturnType)
			continue
		}
		total += 1 + paddedLen(bd.Name) + len("; = ") + typeLabelLen(bd.Value)
		switch {
		case hiddenName(bd.Name):
			total += len(", [Hidden]")
		case !printed[bd.Turn] && !emptyValue(bd.Value):
			total += len(", sample: ") + sampleLen(bd.Value, o)
		}
	}
	return total
}

// typeLabelLen is len(lisp.TypeLabel(orNil(v))), without building a
// collection's label.
func typeLabelLen(v lisp.Value) int {
	var buf [20]byte
	switch v := v.(type) {
	case *lisp.Vector:
		return len("list[]") + len(strconv.AppendInt(buf[:0], int64(v.Len()), 10))
	case *lisp.Map:
		return len("map[]") + len(strconv.AppendInt(buf[:0], int64(v.Len()), 10))
	case *lisp.Set:
		return len("set[]") + len(strconv.AppendInt(buf[:0], int64(v.Len()), 10))
	}
	return len(lisp.TypeLabel(orNil(v)))
}

// sampleLen is the length of writeValue's text of v for a scalar, and an
// estimate for the others.
func sampleLen(v lisp.Value, o *Options) int {
	var buf [24]byte
	switch v := v.(type) {
	case nil, lisp.NilType:
		return len("nil")
	case lisp.Bool:
		return len(strconv.AppendBool(buf[:0], bool(v)))
	case lisp.Int:
		return len(strconv.AppendInt(buf[:0], int64(v), 10))
	case lisp.Keyword:
		return 1 + len(v)
	case lisp.String:
		return min(len(v), o.SamplePrintableLimit) + len(`"..."`)
	}
	return min(o.SamplePrintableLimit, 64)
}

// writeFunctionLine writes "(name [params])", then the docstring and the
// return type of the last call when known.
func writeFunctionLine(b *strings.Builder, bd *Binding) {
	fn := bd.Fn
	head := "(" + bd.Name + " [" + strings.Join(fn.Params, " ") + "])"
	doc := oneLine(strings.ReplaceAll(fn.Docstring, ";", ""))
	switch {
	case doc != "":
		padName(b, head)
		b.WriteString(`; "`)
		b.WriteString(doc)
		b.WriteByte('"')
		if fn.ReturnType != "" {
			b.WriteString(" -> ")
			b.WriteString(fn.ReturnType)
		}
	case fn.ReturnType != "":
		b.WriteString(head)
		b.WriteString(" -> ")
		b.WriteString(fn.ReturnType)
	default:
		b.WriteString(head)
	}
}

// printingTurns returns the numbers of the turns that printed anything. A
// turn sent without a number is numbered by its position (1-based).
func printingTurns(turns []Turn) map[int]bool {
	printed := make(map[int]bool, len(turns))
	for i, t := range turns {
		n := t.Number
		if n == 0 {
			n = i + 1
		}
		if len(t.Prints) > 0 {
			printed[n] = true
		}
	}
	return printed
}

// expectedReturnSection states the type the agent's final (return ...) must
// have, from the options' return signature.
func expectedReturnSection(o *Options, r *Remembered) (string, error) {
	if o.Signature == "" {
		return "", nil
	}
	sig := r.signature(o.Signature)
	if sig.err != nil {
		return "", &OptionError{Option: "signature", Reason: sig.err.Error()}
	}
	return ";; Expected return: " + sig.ret, nil
}

// warningSection repeats what the sidecar forgave in the last turn, one
// line each, so that the LLM drops the habit; earlier turns' warnings were
// shown on their own next prompt.
func warningSection(turns []Turn) string {
	if len(turns) == 0 || len(turns[len(turns)-1].Warnings) == 0 {
		return ""
	}
	var b strings.Builder
	writeWarnings(&b, turns[len(turns)-1].Warnings)
	return b.String()
}

// writeWarnings writes one "Warning: ..." line per warning.
func writeWarnings(b *strings.Builder, ws []TurnWarning) {
	for i, w := range ws {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("Warning: ")
		b.WriteString(oneLine(w.Message))
	}
}
