package strategies

import (
	"fmt"
	"strconv"
	"strings"
)

// The program as a tool call (option program_form "tool_call"): the turn
// strategies render each past turn as the assistant's call of one function
// tool, run_ptc_lisp, whose arguments are {"program": "..."}, answered by a
// tool message with the turn's outcome. The caller declares the tool to its
// LLM (Stats.ProgramTool) and the LLM answers with a call of it instead of
// a fenced block. The transcript is append-only: turn k's two messages are
// the same on every later call, so a provider reads all of them from its
// prompt cache; only a last USER message listing the definitions in memory
// is rewritten. Each tool message says the turns left after its turn, which
// never changes.

// The values of option program_form.
const (
	// ProgramFenced is the default: the LLM answers with the program in
	// a fenced code block, and past turns are summarized in USER text.
	ProgramFenced = "fenced"
	// ProgramToolCall: the LLM calls ProgramToolName with the program.
	ProgramToolCall = "tool_call"
)

// ProgramToolName is the function tool that carries a program.
const ProgramToolName = "run_ptc_lisp"

// ProgramTool is the definition of the program tool, for the caller to pass
// to its LLM as a function tool.
type ProgramTool struct {
	Name        string
	Description string
	Parameters  string // JSON schema of the arguments, as JSON text
}

// programTool is the tool the strategies in tool-call form expect calls of.
func programTool() *ProgramTool {
	return &ProgramTool{
		Name:        ProgramToolName,
		Description: "Run one PTC-Lisp program. Definitions made with def and defn stay for later programs; (return value) ends the task with its answer, (fail reason) ends it as a failure.",
		Parameters:  `{"type":"object","properties":{"program":{"type":"string","description":"The PTC-Lisp program: one or more forms."}},"required":["program"],"additionalProperties":false}`,
	}
}

// docProgramForm documents the option on the turn strategies.
var docProgramForm = OptionDoc{"program_form", ProgramFenced,
	"how programs travel: " + ProgramFenced + " (the LLM answers with a fenced code block; earlier turns are summarized as text) or " + ProgramToolCall + " (the LLM calls the function tool " + ProgramToolName + ", whose definition the stats carry as program_tool; earlier turns are rendered as its calls and tool messages holding a bounded preview of each outcome)"}

// toolCallAnswer replaces the built-in reference's answer format, which
// asks for a fenced block.
const toolCallAnswer = "## How to answer\nCall the function tool " + ProgramToolName + " exactly once per reply, with arguments {\"program\": \"(your program)\"}. Nothing else runs. Put your reasoning in ;; comments inside the program. Its result comes back as the tool's answer."

// toolCallSystemPrompt is the system prompt in tool-call form: the caller's
// as it is, or the built-in reference with its answer format replaced.
func toolCallSystemPrompt(o *Options) string {
	p := systemPrompt(o)
	if o.SystemPrompt != "" {
		return p
	}
	start := strings.Index(p, "## How to answer\n")
	end := strings.Index(p, "\n\n## Rules")
	if start < 0 || end < start {
		return p // the reference changed shape; TestToolCallSystemPrompt says so
	}
	return p[:start] + toolCallAnswer + p[end:]
}

// toolCallForm reports whether req renders programs as tool calls.
func toolCallForm(req *Request) bool { return req.Options.ProgramForm == ProgramToolCall }

// toolCallResponse renders req in tool-call form for the strategy named
// name. bounded previews each turn's outcome within the sample limits;
// unbounded (full) shows it whole.
func toolCallResponse(name string, req *Request, bounded bool) (*Response, error) {
	// The answer, the statistics' "before" and the bill's earlier call
	// (whose turns are the first of req's) share each program's arguments.
	args := make(programArgs, len(req.Turns))
	render := func(r *Request) ([]ChatMessage, error) { return toolCallMessages(r, bounded, nil, args) }
	msgs, err := toolCallMessages(req, bounded, newRequestRoom(req), args)
	if err != nil {
		return nil, err
	}
	before := msgs
	if bounded {
		if before, err = toolCallMessages(req, false, nil, args); err != nil {
			return nil, err
		}
	}
	stats := Stats{Strategy: name, TurnsCompressed: len(req.Turns), ProgramTool: programTool()}
	for i := range req.Turns {
		t := &req.Turns[i]
		stats.ToolCallsTotal += len(t.ToolCalls)
		stats.PrintlnsTotal += len(t.Prints)
		stats.PrintlnsShown += len(t.Prints) - droppedPrints(t, &req.Options, bounded)
	}
	stats.ToolCallsShown = stats.ToolCallsTotal // each call is in its program
	stats.PrintlnsDropped = stats.PrintlnsTotal - stats.PrintlnsShown
	if err := measure(&stats, req.Remembered, req.Options.counter(), before, msgs); err != nil {
		return nil, err
	}
	stats.NextCacheBreakpoint = toolCallNext(msgs)
	resp := &Response{Messages: msgs, Stats: stats}
	use := memoryWhole
	if !bounded {
		use = memoryUnused
	}
	return resp, priceTurns(req, resp, use, stats.NextCacheBreakpoint, func(r *Request) ([]ChatMessage, *Breakpoint, error) {
		msgs, err := render(r)
		if err != nil {
			return nil, nil, err
		}
		return msgs, toolCallNext(msgs), nil
	})
}

// toolCallNext is where the part of a tool-call form prompt that the next
// call sends again ends: it sends the transcript again and rewrites what
// follows it, the last tool message, or before any turn the first USER
// message.
func toolCallNext(msgs []ChatMessage) *Breakpoint {
	return messagesEnd(msgs[:transcriptEnd(msgs)])
}

// transcriptEnd is the number of leading messages of a tool-call form
// prompt that the next call sends again: all but a last USER message after
// the transcript.
func transcriptEnd(msgs []ChatMessage) int {
	if n := len(msgs); n > 2 && msgs[n-1].Role == RoleUser {
		return n - 1
	}
	return len(msgs)
}

// toolCallMessages builds SYSTEM, the USER message of the task (what full
// sends first), an ASSISTANT tool call and a TOOL answer per turn, and,
// when bounded and the memory holds definitions, a USER message listing
// them with samples (the values stay whole in memory). room counts the
// answer's bytes: a program's arguments are counted before they are
// written, six times its bytes in JSON for control characters. args
// holds the arguments of the turns already written.
func toolCallMessages(req *Request, bounded bool, room *AnswerRoom, args programArgs) ([]ChatMessage, error) {
	o := &req.Options
	msgs, budget, err := openingMessages(req, toolCallSystemPrompt(o), 3+2*len(req.Turns))
	if err != nil {
		return nil, err
	}
	for i := range req.Turns {
		t := &req.Turns[i]
		id := programCallID(t, i)
		text := programCallText(t)
		if err := room.TakeText(text); err != nil {
			return nil, err
		}
		if err := room.TakeArguments(t.Program); err != nil {
			return nil, err
		}
		feedback := toolCallFeedback(t, o, budget-i-1, bounded)
		if err := room.TakeText(feedback); err != nil {
			return nil, err
		}
		msgs = append(msgs,
			ChatMessage{Role: RoleAssistant, Content: text, ToolCalls: []ChatToolCall{{ID: id, Name: ProgramToolName, Arguments: args.of(i, t.Program)}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: feedback},
		)
	}
	if bounded { // the host's prelude too, before the first turn
		if state := preludeSection(req); state != "" {
			msgs = append(msgs, ChatMessage{Role: RoleUser, Content: state})
		}
	}
	return msgs, nil
}

// programCallID is the id of turn t's call: the LLM's own when the turn
// came from a tool call, else one made from the turn's place in the run
// (letters, digits and _ only, which every provider accepts).
func programCallID(t *Turn, i int) string {
	if t.ProgramCallID != "" {
		return t.ProgramCallID
	}
	return "ptc_turn_" + strconv.Itoa(i+1)
}

// programCallText is the text of the assistant's reply beside its call: the
// raw response of a turn that came from a tool call. A turn that came from
// a fenced block has none (its raw response holds the program, which the
// call carries).
func programCallText(t *Turn) string {
	if t.ProgramCallID == "" {
		return ""
	}
	return t.RawResponse
}

// ProgramArguments is the JSON arguments text of a program tool call:
// {"program": program}, the same bytes for the same program, as
// encoding/json writes them.
func ProgramArguments(program string) string {
	var b strings.Builder
	b.Grow(programArgumentsLen(program))
	b.WriteString(`{"program":`)
	writeJSONString(&b, program)
	b.WriteByte('}')
	return b.String()
}

// programArgs holds the arguments of a request's turns, by turn, once
// written.
type programArgs []string

// of is the arguments of turn i, whose program is program.
func (a programArgs) of(i int, program string) string {
	if a[i] == "" {
		a[i] = ProgramArguments(program)
	}
	return a[i]
}

// programArgumentsLen is len(ProgramArguments(program)), computed
// without writing it.
func programArgumentsLen(program string) int {
	return len(`{"program":}`) + writeJSONString(nil, program)
}

// droppedPrints is how many of t's prints a bounded tool message leaves
// out: all but the last println_limit, and all of a failed turn's.
func droppedPrints(t *Turn, o *Options, bounded bool) int {
	if !bounded {
		return 0
	}
	return max(len(t.Prints)-o.PrintlnLimit, 0)
}

// toolCallFeedback is the TOOL message answering turn t: its output, then
// its result or error, its warnings and the turns left after it (left).
// Bounded, the output keeps its last println_limit calls, each cut at
// printCut characters as the output section cuts them, and the result is a sample (sample_limit items per
// collection, sample_printable_limit characters per string); the whole
// value stays in memory for the programs. Unbounded it is full's feedback.
func toolCallFeedback(t *Turn, o *Options, left int, bounded bool) string {
	if !bounded {
		return turnFeedback(t, o, left)
	}
	var b strings.Builder
	if drop := droppedPrints(t, o, true); drop < len(t.Prints) {
		b.WriteString(";; Output")
		if drop > 0 {
			fmt.Fprintf(&b, " (last %d of %d println calls)", len(t.Prints)-drop, len(t.Prints))
		}
		b.WriteString(":\n")
		for i, p := range t.Prints[drop:] {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(cutRunes(p, printCut))
		}
		b.WriteString("\n\n")
	}
	writeOutcome(&b, t, o, left, o.SampleLimit, o.SamplePrintableLimit)
	return b.String()
}
