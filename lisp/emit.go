package lisp

import "strconv"

// What a turn emits (its result, the memory it leaves, the arguments of
// its tool calls, its prints) travels back to the caller as EDN text, and
// the memory comes back in the next request. Values share structure, so a
// program that fits the allocation budget can still build a value that
// prints as many megabytes ((vec (repeat 60 s)) of a 1 MB s prints 60 MB);
// Limits.MaxEmitBytes keeps every turn small enough to be sent and sent
// back.

// printedSize is the length of v's EDN text, shared structure counted as
// printed, or some number above limit once it is known to pass limit. It
// reads every part of v it counts, so its work is bounded by limit, not by
// v: weightOf, a lower bound on the printed size known without a walk,
// refuses a huge value at once.
//
// The walk also stops, reporting deep, at a collection nested more than
// maxNesting levels: v may nest as deep as the allocation budget allowed,
// and the walk keeps the collections it is reading on a stack of its own
// rather than recursing.
func printedSize(v Value, limit int64, maxNesting int) (size int64, deep bool) {
	if weightOf(v) > limit {
		return weightOf(v), false
	}
	type reading struct {
		elems   []Value
		entries []MapEntry
		next    int // in elems, or in the keys and values of entries
	}
	root := [1]Value{v}
	var room [16]reading
	stack := append(room[:0], reading{elems: root[:]})
	for len(stack) > 0 && size <= limit {
		if len(stack) > maxNesting+1 { // the root's reading is not a level
			return size, true
		}
		top := &stack[len(stack)-1]
		var x Value
		switch {
		case top.next < len(top.elems):
			x = top.elems[top.next]
		case top.next < 2*len(top.entries):
			if e := top.entries[top.next/2]; top.next%2 == 0 {
				x = e.Key
			} else {
				x = e.Val
			}
		default:
			stack = stack[:len(stack)-1]
			continue
		}
		top.next++
		switch c := x.(type) {
		case *Vector:
			size += 2 + int64(max(c.Len()-1, 0))
			stack = append(stack, reading{elems: c.elems})
		case *Set:
			size += 3 + int64(max(c.Len()-1, 0))
			stack = append(stack, reading{elems: c.elems})
		case *Map:
			size += 2 + 3*int64(c.Len()) - 2*int64(min(c.Len(), 1)) // "k v" and ", " between entries
			stack = append(stack, reading{entries: c.entries})
		case String:
			size += 2 + escapedSize(string(c), limit-size)
		case Keyword:
			size += 1 + int64(len(c))
		case Int:
			var buf [24]byte
			size += int64(len(strconv.AppendInt(buf[:0], int64(c), 10)))
		case NilType:
			size += 3
		case Bool:
			size += int64(len(strconv.FormatBool(bool(c))))
		case Float:
			size += int64(len(formatFloat(float64(c))))
		case holder:
			size += c.ownTextSize()
			if held := c.heldValues(); len(held) > 0 { // a level only then (nestsDeeper)
				stack = append(stack, reading{elems: held})
			}
		default:
			// Regexes, vars, builtins: their text, within limit since
			// weightOf(v) was.
			size += int64(len(sourceText(c)))
		}
	}
	return size, false
}

// escapedSize is the length of s between the quotes of a string literal,
// or some number above limit once it passes limit.
func escapedSize(s string, limit int64) int64 {
	n := int64(len(s))
	for start := 0; n <= limit; {
		i, esc, width := nextEscape(s, start)
		if width == 0 {
			break
		}
		n += int64(len(esc) - width)
		start = i + width
	}
	return n
}

// emitError is the failure of a turn whose emitted text would pass the
// limit; what names the part that did.
func emitError(what string, size, limit int64) *Error {
	return Errorf(emitLimit, "%s would print as %s, more than the limit of %s on what a turn sends back",
		what, byteCount(size), byteCount(limit)).
		WithHint("return or def a summary instead (count, take, select-keys, first); keep large intermediate values in a let inside the program")
}

// byteCount writes n bytes for a person.
func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// checkEmitted refuses a finished turn whose result, memory, tool-call
// arguments and prints together would print as more than the limit, or
// whose result or new memory nests deeper than the wire reads back;
// what names the result in that error ("the result", "the fail reason").
// Bindings kept unchanged from the prelude count the text they came with.
func (p *progState) checkEmitted(th *Thread, what string, result Value, mem *Memory) *Error {
	limit := th.limits.MaxEmitBytes
	if limit <= 0 {
		return nil
	}
	nesting := p.env.valueNesting()
	total := int64(p.outBytes) + p.emittedArgs
	n, deep := printedSize(result, limit-total, nesting)
	if deep {
		return tooDeepError(what, nesting)
	}
	if total += n; total > limit {
		return emitError("the result", total, limit)
	}
	for _, b := range mem.Bindings() {
		n := int64(len(b.source))
		if b.source == "" {
			if n, deep = printedSize(b.Value, limit-total, nesting); deep {
				return tooDeepError("the value of "+b.Name, nesting)
			}
		}
		if total += n + int64(len(b.Name)+len(b.Docstring)); total > limit {
			return emitError("the memory (at "+b.Name+")", total, limit)
		}
	}
	return nil
}

// checkEmitArgs counts the arguments of a tool call towards what the turn
// sends back.
func (p *progState) checkEmitArgs(th *Thread, name string, args Value) *Error {
	limit := th.limits.MaxEmitBytes
	if limit <= 0 {
		return nil
	}
	n, deep := printedSize(args, limit-p.emittedArgs, p.env.valueNesting())
	if deep {
		return tooDeepError("the arguments of tool/"+name, p.env.valueNesting())
	}
	if p.emittedArgs+n > limit {
		return emitError("the arguments of tool/"+name, p.emittedArgs+n, limit)
	}
	p.emittedArgs += n
	return nil
}
