package trace

import (
	"strconv"
	"strings"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// The turns view: one box per turn, one small writer per section of the box,
// in the order things happened (what the LLM answered, the program, what it
// printed and called, what it defined, how it ended), then the memory.

// writeTurn writes the box of one turn. tokens is nil unless usage figures
// were asked for.
func writeTurn(p *page, t *strategies.Turn, number int, o *strategies.Options, raw bool, tokens *turnTokens) {
	p.open(turnTitle(t, number)...)
	if raw {
		writeRawResponse(p, t)
	}
	writeProgram(p, t)
	writePrints(p, t)
	writeToolCalls(p, t, o)
	writeDefined(p, t)
	writeOutcome(p, t, o)
	if tokens != nil {
		writeTurnTokens(p, tokens, o.Tokenizer)
	}
	p.close()
}

// turnTitle is "Turn N · status[ · duration]". number is the turn's own
// number, or its position when the caller left it at 0.
func turnTitle(t *strategies.Turn, number int) []titlePart {
	if t.Number > 0 {
		number = t.Number
	}
	parts := []titlePart{{"Turn " + strconv.Itoa(number), sgrBold}, turnStatus(t)}
	if t.Duration > 0 {
		parts = append(parts, plain(formatDuration(t.Duration)))
	}
	return parts
}

// turnStatus says how the turn ended: it returned (the run is done), failed
// on purpose (the program called fail), hit an error, or went on.
func turnStatus(t *strategies.Turn) titlePart {
	switch {
	case t.Success && t.Returned:
		return titlePart{"returned", sgrGreen}
	case t.Success:
		return titlePart{"ok", sgrGreen}
	case t.Failed:
		return titlePart{"failed", sgrRed}
	}
	return titlePart{"error", sgrRed}
}

func formatDuration(d time.Duration) string {
	if d < time.Millisecond {
		return d.String()
	}
	return d.Round(time.Millisecond).String()
}

// writeRawResponse shows the LLM's whole answer, reasoning included.
func writeRawResponse(p *page, t *strategies.Turn) {
	p.label("Raw response:")
	if t.RawResponse == "" {
		p.text(textIndent, "(not recorded)", sgrDim)
		return
	}
	p.text(textIndent, t.RawResponse, "")
}

func writeProgram(p *page, t *strategies.Turn) {
	p.label("Program:")
	if t.Program == "" {
		p.text(textIndent, "(no program found in the response)", sgrDim)
		return
	}
	p.text(textIndent, t.Program, "")
}

// writePrints shows every println call verbatim, in order; a multi-line
// print keeps its lines.
func writePrints(p *page, t *strategies.Turn) {
	if len(t.Prints) == 0 {
		return
	}
	p.label("Output (" + plural(len(t.Prints), "println") + "):")
	for _, s := range t.Prints {
		p.text(textIndent, s, "")
	}
}

// writeToolCalls shows each call as the program made it, then its result
// or error on the next line.
func writeToolCalls(p *page, t *strategies.Turn, o *strategies.Options) {
	if len(t.ToolCalls) == 0 {
		return
	}
	p.label("Tool calls (" + strconv.Itoa(len(t.ToolCalls)) + "):")
	for i := range t.ToolCalls {
		tc := &t.ToolCalls[i]
		call := "#" + strconv.Itoa(tc.Index) + " " + strategies.ToolCallText(tc, o.SampleLimit, o.SamplePrintableLimit)
		if tc.Duration > 0 {
			call += "  (" + formatDuration(tc.Duration) + ")"
		}
		p.text(textIndent, call, "")
		if tc.Error != "" {
			p.text(2*textIndent, "✗ "+tc.Error, sgrRed)
			continue
		}
		p.text(2*textIndent, "→ "+renderValue(tc.Result, o), "")
	}
}

func writeDefined(p *page, t *strategies.Turn) {
	if len(t.Defined) > 0 {
		p.field("Defined", joinNames(t.Defined), "")
	}
}

// writeOutcome shows the result of a successful turn, or the error of a
// failed one with its hint. A turn that called fail shows the reason it
// gave as the error message.
func writeOutcome(p *page, t *strategies.Turn, o *strategies.Options) {
	if t.Success {
		label := "Result"
		if t.Returned {
			label = "Returned"
		}
		p.field(label, renderValue(t.Result, o), sgrGreen)
		return
	}
	msg := "(no error recorded)"
	if e := t.Error; e != nil {
		msg = e.Message
		if e.Type != "" {
			msg = e.Type + ": " + msg
		}
	}
	p.field("Error", msg, sgrRed)
	if t.Error != nil && t.Error.Hint != "" {
		p.field("Hint", t.Error.Hint, "")
	}
}

// writeMemory shows the user's prelude after the last turn: functions with
// their parameters, docstring and return type, values as samples. Hidden
// names show no value, as in the LLM's prelude.
func writeMemory(p *page, mem []strategies.Binding, o *strategies.Options) {
	if len(mem) == 0 {
		return
	}
	p.open(titlePart{"Memory", sgrBold}, plain(plural(len(mem), "binding")))
	for i := range mem {
		p.text(0, bindingLine(&mem[i], o), "")
	}
	p.close()
}

func bindingLine(b *strategies.Binding, o *strategies.Options) string {
	var s strings.Builder
	if fn := b.Fn; fn != nil {
		s.WriteString("(" + b.Name + " [" + strings.Join(fn.Params, " ") + "])")
		if fn.ReturnType != "" {
			s.WriteString(" -> " + fn.ReturnType)
		}
		if fn.Docstring != "" {
			s.WriteString("  " + strconv.Quote(fn.Docstring))
		}
	} else {
		s.WriteString(b.Name + " = ")
		if strings.HasPrefix(b.Name, "_") {
			s.WriteString(lisp.TypeLabel(orNil(b.Value)) + ", [Hidden]")
		} else {
			s.WriteString(renderValue(b.Value, o))
		}
	}
	if b.Turn > 0 {
		s.WriteString("  (turn " + strconv.Itoa(b.Turn) + ")")
	}
	return s.String()
}

// renderValue renders v as samples are rendered for the LLM.
func renderValue(v lisp.Value, o *strategies.Options) string {
	return strategies.RenderValue(orNil(v), o.SampleLimit, o.SamplePrintableLimit)
}

func orNil(v lisp.Value) lisp.Value {
	if v == nil {
		return lisp.Nil
	}
	return v
}
