package lisp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// readBuiltins read data from text at run time, on the reader that reads
// the data and memory fields of a request (ParseEDN): its nesting bound,
// its read cost (charged to the evaluation's allocation budget) and a
// step charge for each form read. Symbols and lists read as data:
// (read-string "(+ 1 2)") is the list (+ 1 2), never 3, since nothing
// read is evaluated; #=(...), Clojure's reader-eval, is refused as
// clojure.edn refuses it. Only the first form of the text is read.
var readBuiltins = []*Builtin{
	{Name: "read-string", Sig: "(read-string s) (read-string opts s)", Doc: "the first form in s as data, not evaluated: (read-string \"(+ 1 2)\") is the list (+ 1 2); 'x reads as (quote x); opts {:eof v} gives v for blank text",
		Category: "idiom", MinArgs: 1, MaxArgs: 2, Fn: builtinReadString,
		Cost: cost(scans(lastArg), chargedInBody("each form read, and what the value read costs (readNodeCost), as reading data charges it"))},
	{Name: "clojure.edn/read-string", Sig: "(clojure.edn/read-string s) (clojure.edn/read-string opts s)", Doc: "the first EDN value in s (symbols and lists as data); nil, or opts' :eof, for nil or blank text",
		Category: "idiom", reach: inNamespace, MinArgs: 1, MaxArgs: 2, Fn: builtinEDNReadString,
		Cost: cost(scans(lastArg), chargedInBody("each form read, and what the value read costs (readNodeCost), as reading data charges it"))},
}

func builtinReadString(th *Thread, args []Value) (Value, error) {
	return readStringAt(th, "read-string", args, true)
}

func builtinEDNReadString(th *Thread, args []Value) (Value, error) {
	return readStringAt(th, "clojure.edn/read-string", args, false)
}

// readStringAt is read-string (quoting: clojure.core's, which reads 'x,
// @x and ::name too, and refuses nil as Clojure does) or
// clojure.edn/read-string, on args, [s] or [opts s].
func readStringAt(th *Thread, name string, args []Value, quoting bool) (Value, error) {
	eof, hasEOF := Value(Nil), false
	if len(args) == 2 {
		opts, ok := args[0].(*Map)
		if !ok && args[0] != Nil {
			return nil, typeErrorf(name, "an options map such as {:eof nil}", args[0])
		}
		if ok {
			eof, hasEOF = opts.Get(Keyword("eof"))
		}
	}
	text := args[len(args)-1]
	if text == Nil && !quoting {
		return eof, nil
	}
	s, ok := text.(String)
	if !ok {
		return nil, typeErrorf(name, "a string", text)
	}
	// The nesting a value's text may have on the wire (Env.MaxNesting):
	// data read at run time meets the bound data read from a request does.
	nesting := 0 // the default, for a thread of no program
	if th.prog != nil {
		nesting = th.prog.env.valueNesting()
	}
	r := newReader(string(s), nesting, true)
	r.symbols, r.quoting = true, quoting
	r.th, r.ctx = th, th.ctx
	if err := r.skipSpace(); err != nil {
		return nil, readStringError(th, name, err)
	}
	if r.eof() {
		if hasEOF || !quoting {
			return eof, nil
		}
		return nil, Errorf(executionError, "%s: EOF while reading: the text holds no form", name).
			asJava("RuntimeException", "EOF while reading")
	}
	line, col := r.line, r.col
	v, err := r.readForm()
	if err == nil {
		err = r.charge(v, line, col)
	}
	if err != nil {
		return nil, readStringError(th, name, err)
	}
	if err := th.alloc(r.cost); err != nil {
		return nil, err
	}
	return v, nil
}

// readStringError is err, why text did not read, as the exception
// Clojure's reader throws for it: the evaluation's own limits and clock
// stay what they are; a text that ends inside a form is "EOF while
// reading", a stray closer "Unmatched delimiter", a malformed number a
// NumberFormatException, a symbol of a bad namespace or name "Invalid
// token", a key given twice an IllegalArgumentException,
// anything else a RuntimeException with the reader's message. The
// reader's hint is kept.
func readStringError(th *Thread, name string, err error) error {
	if th.ctx != nil && th.ctx.Err() != nil {
		return th.contextError(th.ctx.Err())
	}
	e, ok := err.(*Error)
	if !ok || e.Kind != parseError {
		return err
	}
	class, message := "RuntimeException", e.Message
	switch {
	case strings.HasPrefix(e.Message, "string opened here is never closed"):
		message = "EOF while reading string"
	case strings.Contains(e.Message, "is never closed") || strings.Contains(e.Message, "EOF while reading") ||
		strings.Contains(e.Message, "at end of input"):
		message = "EOF while reading"
	case strings.HasPrefix(e.Message, "unexpected ')'"), strings.HasPrefix(e.Message, "unexpected ']'"), strings.HasPrefix(e.Message, "unexpected '}'"):
		message = "Unmatched delimiter: " + e.Message[len("unexpected '"):len("unexpected '")+1]
	case strings.HasPrefix(e.Message, "invalid number "):
		class, message = "NumberFormatException", "Invalid number: "+strings.TrimPrefix(e.Message, "invalid number ")
	case strings.HasPrefix(e.Message, "invalid token "):
		message = "Invalid token: " + strings.TrimPrefix(e.Message, "invalid token ")
	case strings.HasPrefix(e.Message, "Duplicate key"):
		class = "IllegalArgumentException"
	case strings.HasPrefix(e.Message, "unsupported reader syntax #"):
		message = unsupportedDispatch(strings.TrimPrefix(e.Message, "unsupported reader syntax #"))
	case strings.HasPrefix(e.Message, "#' (a var) is not allowed"):
		message = "No dispatch macro for: '"
	case strings.HasPrefix(e.Message, "functions are not allowed"):
		message = "No dispatch macro for: ("
	case strings.HasPrefix(e.Message, "regex literals are not allowed"):
		message = `No dispatch macro for: "`
	case strings.HasPrefix(e.Message, "@ is not allowed"):
		message = "Invalid leading character: @"
	case strings.HasPrefix(e.Message, "'`' is not supported"), strings.HasPrefix(e.Message, "'~' is not supported"):
		message = "Invalid leading character: " + e.Message[1:2]
	case strings.HasPrefix(e.Message, "invalid keyword "):
		message = "Invalid token: " + strings.TrimPrefix(e.Message, "invalid keyword ")
	}
	out := Errorf(executionError, "%s: %s", name, e.Message).asJava(class, message)
	out.Hint, out.site = e.Hint, e.site
	return out
}

// unsupportedDispatch is Clojure's EDN reader's message for #tok, a
// dispatch neither reader reads: a tag (#foo, #js) has no reader
// function, #<...> is unreadable, any other character no dispatch macro.
// #inst and #uuid, which Clojure reads, keep the reader's message.
func unsupportedDispatch(tok string) string {
	switch c, _ := utf8.DecodeRuneInString(tok); {
	case tok == "inst" || tok == "uuid":
		return "unsupported reader syntax #" + tok
	case c == '<':
		return "Unreadable form"
	case unicode.IsLetter(c):
		return "No reader function for tag " + tok
	case tok == "":
		return "EOF while reading"
	default:
		return "No dispatch macro for: " + string(c)
	}
}
