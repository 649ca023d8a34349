package strategies

import (
	"slices"
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
	n := utf8.RuneCountInString(name)
	b.WriteString(strings.Repeat(" ", max(nameColumn-n, 1)))
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

// toolSection lists the tools sorted by name, with their signatures written
// without colons.
func toolSection(o *Options, r *Remembered) (string, error) {
	if len(o.Tools) == 0 {
		return "", nil
	}
	tools := slices.Clone(o.Tools)
	slices.SortFunc(tools, func(a, b ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString(";; === tool/ ===")
	for _, t := range tools {
		params, ret := "", "any"
		if t.Signature != "" {
			sig := r.signature(t.Signature)
			if sig.err != nil {
				return "", &OptionError{Option: "tools", Reason: "tool " + t.Name + ": " + sig.err.Error()}
			}
			params, ret = sig.params, sig.ret
		}
		b.WriteString("\ntool/")
		b.WriteString(t.Name)
		b.WriteByte('(')
		b.WriteString(params)
		b.WriteString(") -> ")
		b.WriteString(ret)
		if t.Description != "" {
			b.WriteString("  ; ")
			b.WriteString(oneLine(t.Description))
		}
	}
	return b.String(), nil
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
	// About a line per binding: its padded name, type and a sample.
	b.Grow(len(req.Memory) * (nameColumn + 20 + min(req.Options.SamplePrintableLimit, 200)))
	b.WriteString(";; === user/ (your prelude) ===")
	writeBindings(&b, req.Memory, printingTurns(req.Turns), &req.Options)
	return b.String()
}

// writeBindings writes a line per binding, each after a line break:
// functions first, then values, each group in the order given. printed
// holds the numbers of the turns that printed.
func writeBindings(b *strings.Builder, bindings []Binding, printed map[int]bool, o *Options) {
	for i := range bindings {
		if bindings[i].IsFn {
			b.WriteByte('\n')
			writeFunctionLine(b, &bindings[i])
		}
	}
	for i := range bindings {
		bd := &bindings[i]
		if bd.IsFn {
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

// writeFunctionLine writes "(name [params])", then the docstring and the
// return type of the last call when known.
func writeFunctionLine(b *strings.Builder, bd *Binding) {
	head := "(" + bd.Name + " [" + strings.Join(bd.Params, " ") + "])"
	doc := oneLine(strings.ReplaceAll(bd.Docstring, ";", ""))
	switch {
	case doc != "":
		padName(b, head)
		b.WriteString(`; "`)
		b.WriteString(doc)
		b.WriteByte('"')
		if bd.ReturnType != "" {
			b.WriteString(" -> ")
			b.WriteString(bd.ReturnType)
		}
	case bd.ReturnType != "":
		b.WriteString(head)
		b.WriteString(" -> ")
		b.WriteString(bd.ReturnType)
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
