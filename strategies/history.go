package strategies

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The sections of the USER message that summarize what earlier turns did:
// the tool calls made, what the programs printed, the last error when the
// agent has not recovered from it yet, and how many turns are left.

// printCut bounds one println call in the output section.
const printCut = 2000

// FinalTurnText replaces the turns indicator when at most one turn is left.
const FinalTurnText = "FINAL TURN - you must call (return result) or (fail reason) now."

// historyCounts are what the history sections showed, for the statistics.
type historyCounts struct {
	toolCallsTotal, toolCallsShown int
	printsTotal, printsShown       int
	failedTurns                    int
	// kept is where the USER message's part that the next call sends
	// again ends, in characters.
	kept int
}

// toolCallsSection lists the most recent tool calls of all turns, oldest
// first. Calls of failed turns count: their side effects happened. Before the
// first turn there is no section, and with tool_call_limit 0 none either.
func toolCallsSection(req *Request, c *historyCounts) string {
	if len(req.Turns) == 0 {
		return ""
	}
	total := 0
	for _, t := range req.Turns {
		total += len(t.ToolCalls)
	}
	c.toolCallsTotal = total
	if total == 0 {
		return ";; No tool calls made"
	}
	skip := max(total-req.Options.ToolCallLimit, 0)
	c.toolCallsShown = total - skip
	if c.toolCallsShown == 0 {
		return "" // tool_call_limit 0: the caller wants no list
	}
	var b strings.Builder
	b.Grow(c.toolCallsShown * (20 + argPrintableLimit)) // about a line per call
	b.WriteString(";; Tool calls made:")
	for _, t := range req.Turns {
		for i := range t.ToolCalls {
			if skip > 0 {
				skip--
				continue
			}
			b.WriteString("\n;   ")
			writeToolCall(&b, &t.ToolCalls[i], argItemLimit, argPrintableLimit)
		}
	}
	return b.String()
}

// ToolCallText renders a call as the program made it, name(args), each
// argument rendered with the given limits (docs/STRATEGIES.md, "Value
// rendering").
func ToolCallText(tc *ToolCall, limit, printable int) string {
	var b strings.Builder
	writeToolCall(&b, tc, limit, printable)
	return b.String()
}

// writeToolCall writes the call as the program made it: name(args).
// Positional arguments (a vector, or {:args [...]} as the interpreter
// records a call that is not given one map) are written one after the
// other; any other value is the one argument.
func writeToolCall(b *strings.Builder, tc *ToolCall, limit, printable int) {
	b.WriteString(tc.Name)
	b.WriteByte('(')
	switch args := positionalArgs(tc.Args).(type) {
	case *lisp.Vector:
		for i, a := range args.Elems() {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeValue(b, a, limit, printable)
		}
	default:
		if !emptyValue(args) {
			writeValue(b, args, limit, printable)
		}
	}
	b.WriteByte(')')
}

func positionalArgs(v lisp.Value) lisp.Value {
	if m, ok := v.(*lisp.Map); ok && m.Len() == 1 {
		if args, ok := m.Get(lisp.Keyword("args")); ok {
			if vec, ok := args.(*lisp.Vector); ok {
				return vec
			}
		}
	}
	return v
}

// outputSection shows the most recent println calls of successful turns,
// oldest first, each verbatim but cut at printCut characters.
func outputSection(req *Request, c *historyCounts) string {
	total := 0
	for _, t := range req.Turns {
		if t.Success {
			total += len(t.Prints)
		}
	}
	c.printsTotal = total
	if total == 0 {
		return ""
	}
	skip := max(total-req.Options.PrintlnLimit, 0)
	c.printsShown = total - skip
	if c.printsShown == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(";; Output:")
	for _, t := range req.Turns {
		if !t.Success {
			continue
		}
		for _, p := range t.Prints {
			if skip > 0 {
				skip--
				continue
			}
			b.WriteByte('\n')
			b.WriteString(cutRunes(p, printCut))
		}
	}
	return b.String()
}

func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for range n {
		if i >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// errorSection shows the last turn's program and error when that turn
// failed; earlier failures are never shown. It counts the failed turns kept
// out of the message.
func errorSection(req *Request, c *historyCounts) string {
	for _, t := range req.Turns {
		if !t.Success {
			c.failedTurns++
		}
	}
	if len(req.Turns) == 0 {
		return ""
	}
	last := &req.Turns[len(req.Turns)-1]
	if last.Success {
		return ""
	}
	return "---\nYour previous attempt:\n```clojure\n" + failedProgram(last) + "\n```\n\nError: " + errorMessage(last) + "\n---"
}

// failedProgram is the program the turn ran, or the raw response when no
// program could be extracted from it.
func failedProgram(t *Turn) string {
	if t.Program != "" {
		return t.Program
	}
	return t.RawResponse
}

func errorMessage(t *Turn) string {
	if t.Error == nil {
		return ""
	}
	return t.Error.Message
}

// turnsIndicator tells the agent its remaining budget; single-shot agents
// (max_turns 1) get none.
func turnsIndicator(o *Options, turns int) string {
	if o.MaxTurns == 1 {
		return ""
	}
	return turnsLeftText(turnsLeft(o, turns))
}

// turnsLeft is turns_left when the caller set it, else max_turns minus the
// turns taken.
func turnsLeft(o *Options, turns int) int {
	if o.TurnsLeftSet {
		return o.TurnsLeft
	}
	return o.MaxTurns - turns
}

func turnsLeftText(n int) string {
	if n <= 1 {
		return FinalTurnText
	}
	var b strings.Builder
	writeTurnsLeft(&b, n)
	return b.String()
}

// writeTurnsLeft writes what the agent is told of its n remaining turns.
func writeTurnsLeft(b *strings.Builder, n int) {
	if n <= 1 {
		b.WriteString(FinalTurnText)
		return
	}
	b.WriteString("Turns left: ")
	var digits [20]byte
	b.Write(strconv.AppendInt(digits[:0], int64(n), 10))
}
