package strategies

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// The ledger: what loop-slice and turn-aware leave of the messages they
// drop. A model's next call copies values from its context (a user id the
// customer gave two turns earlier, a flight number a search returned, a
// payment id from the user's profile); a strategy that sends only the
// current turn takes them away. Outside seed 002's world (and unless the
// caller asks for window_only), the output therefore keeps every prompt of
// the history verbatim, and each dropped unit (a tool loop, or an
// assistant's text) leaves one note in its place: the calls' names and the
// start and end of their arguments, and the identifiers their results held (the
// scalar values of a JSON result, else its start). A note depends only on
// the unit it stands for, and notes are separate messages in the order of
// the history, so the output only grows at its end as the conversation
// moves on: the prompt's beginning stays what a provider cached.

// Bounds of a ledger note, in characters.
const (
	ledgerArgsChars = 200 // of a call's arguments, or of each of their values
	// Of all of a call's values (noteArguments): a todo list of 7 items
	// rewritten with one status changed runs to 1,000 characters.
	ledgerArgsTotalChars = 1500
	// Of which, where the arguments are longer, from their end: a bash
	// agent's command that writes a script with a here-document ends with
	// the command that runs it, which the agent runs again later.
	ledgerArgsTailChars = 60
	// Of each value of several lines of a call that writes text
	// (writesText), and of all its values besides ledgerArgsTotalChars.
	ledgerWrittenChars = 1500
	ledgerTextChars    = 300 // of an assistant's text
	// Of the text beside an assistant's tool calls: none. A coding agent
	// writes its reasoning there on every call (300 characters a call on
	// the recorded sessions), which its later calls do not copy from; the
	// note's calls and results hold what they do. Leaving it out took
	// loop-slice's bill on testdata/real-coding from 0.67 to 0.60 of the
	// raw history's at the same recall (with the arguments' end kept; the
	// text alone out lost 2 of the 22 values: python reproduce_issue.py,
	// which the thought named and the note's clipped command held only at
	// its end).
	ledgerCallTextChars = 0
	ledgerValueChars    = 80 // of one string value of a JSON result
	// A longer result is previewed as text: a note is built on every call
	// for every dropped unit, and parsing is what it costs most.
	ledgerJSONBytes = 64 << 10
)

// noteForm says how much a note shows of a tool result.
//
// turn-aware's notes (stepNotes; loop-slice's before sliceNotes) keep
// 600 characters of a JSON result's values, which hold every id a
// tau-bench reservation or profile gives (at 450, recall there falls from 1.000 to 0.949), and 500
// of the start of a text result (file contents, search hits, test output),
// which the ledger repeats on every call of a long coding session: on the
// generated sessions recall 0.996 at 600 characters for 0.51 of the raw
// history's bill, 0.992 at 500 for 0.47, 0.982 at 400 for 0.43
// (docs/CHAT_STRATEGIES.md). token-budget's ledger (budgetNotes) lives
// inside a fixed share of the budget, where a shorter note leaves room for
// more steps: 200 and 150.
type noteForm struct {
	json  int // characters of a JSON result's values
	text  int // characters of the start of any other result
	paths int // characters of the paths that begin lines of the rest (pathsIn)
}

// loop-slice's notes (sliceNotes) keep 250 characters of a text result's
// start and up to 500 of the paths that begin the lines of its rest: its
// ledger holds a note for every step but the latest, read on every later
// call, and on the recorded bash sessions the notes' reads were the
// largest part of the bill after writing each new step (sqlfluff-1625:
// 18,047 of 80,307). At 300 and 500: 0.562 to 0.525 of the raw history's
// bill on those sessions, recall 1.000 before and after; generated
// sessions 0.470 to 0.400 (recall 1.000 to 0.998: one grep hit's path)
// and 0.449 to 0.377 on the held-out ones (0.999 before and after). With
// the list at 300, a grep's hits past it lost 0.002 more; at 250 and
// 600, 0.991 on the held-out sessions. At 250 and 500, measured once
// notes wrote a viewer's numbered lines without their numbers: the bash
// sessions 0.525 to 0.514, recall 1.000; the generated sessions 0.400 to
// 0.376 (recall 0.998 to 1.000), the held-out ones 0.377 to 0.358 (0.999
// before and after); at 225 the held-out ones fall to 0.988, at 200 to
// 0.986 (docs/CHAT_STRATEGIES.md).
var (
	stepNotes   = noteForm{json: 600, text: 500, paths: 300}
	sliceNotes  = noteForm{json: 600, text: 250, paths: 500}
	budgetNotes = noteForm{json: 200, text: 150}
)

// shorterNotes are the forms a loop-slice step's note takes, largest
// first, where what the strategy saved so far does not pay for writing
// sliceNotes (planLedger): a note with a shorter preview, down to the
// calls alone.
var shorterNotes = []noteForm{sliceNotes, {json: 300, text: 250, paths: 150}, {json: 120, text: 100}, {}}

// jsonChars bounds the values a note shows of a JSON result.
func (f noteForm) jsonChars() int { return f.json }

// textChars bounds the start a note shows of any other result.
func (f noteForm) textChars() int { return f.text }

// ledgerHeader starts every ledger note, so the model (and a reader of the
// output) can tell it from what the user said.
const ledgerHeader = "[Earlier step, shortened]"

// keepsEvidence reports whether loop-slice and turn-aware keep the prompts
// and a ledger of what they drop: everywhere but in seed 002's world and
// where the caller asked for its window_only rule.
func keepsEvidence(ch *chatHistory, opts *Options) bool {
	return !ch.seed && !opts.WindowOnly
}

// addLedger rebuilds out, whose messages were copied from ch in the
// history's order (a synthetic nudge, if any, first), so that every prompt
// of the history before its last copied message is sent too, and every
// other message there it left out is replaced by a ledger note. Messages
// after the last copied one are left out, as before, unless the caller asks
// for the ledger to reach the end of the history (all). With a plan
// (loop-slice), units from plan.wholeFrom on are sent whole (planLedger:
// their notes would not be repaid yet); without one (turn-aware), a unit
// takes its full note where that note repays writing it (notePaysBack).
func addLedger(ch *chatHistory, out *chatOutput, all bool, rate Pricing, plan *ledgerPlan) {
	kept := make(map[int]bool, len(out.from))
	last := -1
	for _, from := range out.from {
		if from < 0 || from == ch.system || ch.isPinned(from) {
			continue
		}
		if from <= last {
			return // not in the history's order: leave the output as it is
		}
		kept[from] = true
		last = from
	}
	if all {
		last = len(ch.h)
	}
	if last < 0 {
		return
	}
	// The output's own messages and at most one for each message of the
	// history up to last (copied, or a unit's note): allocated at once, as
	// growing by append would cost five times a long history's messages.
	n := len(out.msgs) - len(kept) + last + 1
	rebuilt := chatOutput{msgs: make([]ChatMessage, 0, n), from: make([]int, 0, n), edited: make([]bool, 0, n)}
	rebuilt.nudge, rebuilt.exhausted = out.nudge, out.exhausted
	for i, from := range out.from {
		if from >= 0 && from != ch.system && !ch.isPinned(from) {
			break
		}
		rebuilt.msgs = append(rebuilt.msgs, out.msgs[i])
		rebuilt.from = append(rebuilt.from, from)
		rebuilt.edited = append(rebuilt.edited, out.edited[i])
	}
	// opened: the rebuilt output holds a user message (a nudge, so far).
	// An OpenAI-compatible provider takes an assistant message first.
	opened := ch.openai || slices.ContainsFunc(rebuilt.msgs, func(m ChatMessage) bool { return m.Role == RoleUser })
	seq := ch.seq
	calls := 0 // the assistant messages up to this unit: the calls made so far
	for p := 0; p < len(seq) && seq[p] <= last; p++ {
		i := seq[p]
		m := &ch.h[i]
		if m.Role == RoleAssistant {
			calls++
		}
		end := ch.unitEnd(p)
		switch {
		case kept[i]:
			for _, j := range seq[p:end] {
				if kept[j] {
					rebuilt.copyFrom(ch, j)
				}
			}
		case isPrompt(m):
			rebuilt.copyFrom(ch, i)
		default:
			// A unit its note would not shorten by half, or whose note
			// would not repay writing it (notePaysBack), is sent as it is:
			// the unit, sent the same on every call, stays cached where it
			// was sent whole as the latest loop. Before the first user
			// message, a note (a user message) it must be: a conversation
			// opens with the user's.
			note, worth := plan.noteOf(ch, seq[p:end])
			if plan == nil {
				chars := unitChars(ch, seq[p:end])
				worth = 2*len(note) < chars && notePaysBack(rate, chars, len(note), calls)
			} else if !worth {
				note = ledgerNote(ch.h, seq[p:end], sliceNotes) // only for the user-first rule
			}
			if !opened || worth {
				if !worth {
					rebuilt.noted++ // a note only for the provider's user-first rule
				}
				rebuilt.addNote(note)
			} else {
				rebuilt.copyFrom(ch, seq[p:end]...)
			}
		}
		// A unit is one user message, a note, or an assistant's message
		// and its results: the last message appended says whether the
		// user spoke.
		opened = opened || rebuilt.msgs[len(rebuilt.msgs)-1].Role == RoleUser
		p = end - 1
	}
	// The messages are copied again from ch, each in its sendable form as
	// the strategy copied it: no strategy edits its output before the
	// ledger is added.
	*out = rebuilt
}

// notePaysBack reports whether a note of noteChars in place of a unit of
// unitChars, made when the conversation has had calls calls, costs less
// than sending the unit whole under rate. The unit is cached where it was
// sent whole; the note is written once (where the unit would have been
// read) and then read on every later call, each reading fewer tokens. The
// calls still to come are unknown: a conversation that has run for n calls
// is taken to run for about n more, and the note is made only where it
// repays writing it within them (measured against half of them, as
// clear-tool-results clears, it kept more units whole than paid: 0.46 of
// the raw bill on the held-out coding sessions against 0.45). The
// estimate depends on the unit's place alone, so a unit is a note, or
// whole, on every call alike (the prompt's beginning stays cached).
// Without caching (a write costs what a read does) a note always pays.
func notePaysBack(rate Pricing, unitChars, noteChars, calls int) bool {
	if rate.WriteRate <= rate.ReadRate {
		return true
	}
	cost := rate.WriteRate*float64(noteChars) - rate.ReadRate*float64(unitChars)
	saved := rate.ReadRate * float64(unitChars-noteChars) * float64(calls)
	return saved >= cost
}

// unitChars is the length of the texts of a unit: its contents and its
// calls' names and arguments.
func unitChars(ch *chatHistory, unit []int) int {
	n := 0
	for _, i := range unit {
		m := ch.form(i)
		n += len(m.Content)
		for _, p := range m.Parts {
			n += len(p.Text)
			if p.Extra != nil {
				n += len(p.Extra.Data)
			}
		}
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	return n
}

// addNote appends a ledger note.
func (o *chatOutput) addNote(text string) {
	o.msgs = append(o.msgs, ChatMessage{Role: RoleUser, Source: SourceSystem, Content: text})
	o.from = append(o.from, -1)
	o.edited = append(o.edited, true)
}

// ledgerNote is the note a dropped unit leaves: unit is an assistant
// message and the tool results right after it, or one message without tool
// calls.
func ledgerNote(h []ChatMessage, unit []int, size noteForm) string {
	return ledgerNoteShown(h, unit, size, nil)
}

// ledgerNoteShown is ledgerNote whose previews of text results leave out
// the lines shown holds, and add to it the lines they show whole (nil:
// every line is shown).
func ledgerNoteShown(h []ChatMessage, unit []int, size noteForm, shown *shownLines) string {
	var b strings.Builder
	b.WriteString(ledgerHeader)
	m := &h[unit[0]]
	limit := ledgerTextChars
	if len(m.ToolCalls) > 0 {
		limit = ledgerCallTextChars
	}
	if text := m.text(); !blank(text) && limit > 0 {
		fmt.Fprintf(&b, " %s said: %s", m.Role, clipText(strings.Join(strings.Fields(text), " "), limit))
	}
	writePartKinds(&b, m)
	results := make(map[string]string, len(unit)-1)
	for _, j := range unit[1:] {
		results[h[j].ToolCallID] = h[j].text()
	}
	for _, tc := range m.ToolCalls {
		fmt.Fprintf(&b, "\ncalled %s(%s)", tc.Name, noteArguments(tc.Arguments))
		if r, ok := results[tc.ID]; ok {
			if size == (noteForm{}) {
				fmt.Fprintf(&b, " -> (%d chars)", utf8.RuneCountInString(r))
			} else {
				fmt.Fprintf(&b, " -> %s", resultPreview(r, size, shown))
			}
		}
	}
	return b.String()
}

// resultPreview shows what a tool result holds within size: for JSON (up
// to ledgerJSONBytes), its scalar values in the order the
// result holds them (strings clipped to ledgerValueChars, each distinct
// value once), each with the key it stands under, since ids, names, dates
// and amounts are what a model copies from a result; for other text, its
// start (textPreview). The result's length follows when the preview shows
// only a part.
func resultPreview(s string, size noteForm, shown *shownLines) string {
	trimmed := strings.TrimSpace(s)
	if len(trimmed) > 0 && len(trimmed) <= ledgerJSONBytes && (trimmed[0] == '{' || trimmed[0] == '[') {
		if preview, full, ok := jsonScalars(trimmed, size.jsonChars()); ok {
			if !full {
				preview += fmt.Sprintf(" ... (%d chars)", utf8.RuneCountInString(s))
			}
			return preview
		}
	}
	preview := textPreview(s, size.textChars(), shown)
	// Only where the rest is longer than the list may be: a note is never
	// longer than the result it stands for.
	if size.paths > 0 && utf8.RuneCountInString(s) > size.textChars()+size.paths {
		if paths := pathsIn(s, preview, size.paths); paths != "" {
			preview += "\npaths in the rest: " + paths
		}
	}
	return preview
}

// noteArguments shows a call's arguments in its note: whole up to
// ledgerArgsChars; longer, of a JSON object, its scalar values as "key: value" pairs, each distinct value once: a
// model's later call copies its own earlier arguments (the items of a todo
// list it rewrites with one status changed, the path of a file it edits),
// which the start of the arguments' text held only in part. Each value is
// cut to its first and last characters (ledgerArgsChars in all: a bash
// agent's command that writes a script ends with the one that runs it), up
// to ledgerArgsTotalChars. Other arguments: their first and last
// characters. White space is kept as it is, so that a value the model
// copies (an indented line of code) reads in the note as it did.
func noteArguments(args string) string {
	trimmed := strings.TrimSpace(args)
	if utf8.RuneCountInString(trimmed) <= ledgerArgsChars {
		return trimmed // whole, as the call sent them
	}
	if strings.HasPrefix(trimmed, "{") && len(trimmed) <= ledgerJSONBytes {
		form := callValues
		total := ledgerArgsTotalChars
		if writesText(trimmed) {
			form, total = writtenValues, total+ledgerWrittenChars
		}
		if pairs, full, ok := scalarPairs(trimmed, total, ledgerArgsChars, form); ok {
			if !full {
				pairs += " ..."
			}
			return pairs
		}
	}
	return clipEnds(trimmed, ledgerArgsChars-ledgerArgsTailChars, ledgerArgsTailChars)
}

// jsonScalars writes the scalar values of the JSON text s as "key: value"
// pairs, ", " apart, until limit characters are written. It reports
// whether every value fitted, and ok false when s is not JSON (a value cut
// short is judged as far as it was read).
func jsonScalars(s string, limit int) (preview string, full, ok bool) {
	return scalarPairs(s, limit, ledgerValueChars, resultValuesForm)
}

// What scalarPairs shows the values of.
type valuesForm int

const (
	resultValuesForm valuesForm = iota // a tool result's: white space collapsed
	callValues                         // a call's arguments: white space kept
	// The arguments of a call that writes text (writesText): a value of
	// several lines kept up to ledgerWrittenChars.
	writtenValues
)

// scalarPairs is jsonScalars with each string value cut at valueChars, as
// form says.
func scalarPairs(s string, limit, valueChars int, form valuesForm) (preview string, full, ok bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	// Each open container: whether it is an object, whether its next
	// string is a key, and the key its values stand under.
	type frame struct {
		object, wantKey bool
		key             string
	}
	var stack []frame
	var b strings.Builder
	seen := map[string]bool{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.String(), true, len(stack) == 0
		}
		if err != nil {
			return "", false, false
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if str, isStr := tok.(string); isStr && top != nil && top.object && top.wantKey {
			top.key, top.wantKey = str, false
			continue
		}
		if top != nil && top.object {
			top.wantKey = true // this token is the value (or opens it)
		}
		key := ""
		if top != nil {
			key = top.key
		}
		var val string
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{object: true, wantKey: true, key: key})
			case '[':
				stack = append(stack, frame{key: key})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if form == writtenValues && strings.Contains(strings.TrimSpace(t), "\n") {
				val = clipEnds(t, ledgerWrittenChars-ledgerArgsTailChars, ledgerArgsTailChars)
			} else if form != resultValuesForm {
				val = clipEnds(t, valueChars-ledgerArgsTailChars, ledgerArgsTailChars)
			} else {
				val = clipText(strings.Join(strings.Fields(t), " "), valueChars)
			}
		case json.Number:
			val = t.String()
		default:
			continue // true, false, null
		}
		if val == "" || seen[val] {
			continue
		}
		pair := val
		if key != "" {
			pair = key + ": " + val
		}
		if b.Len()+len(pair)+2 > limit {
			return b.String(), false, true
		}
		seen[val] = true
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pair)
	}
}

// clipText is s cut to at most n characters (runes), marked with "..."
// when cut.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s[:runePrefix(s, n)])) + "..."
}

// runePrefix is the length in bytes of the first n runes of s (each byte
// that is no UTF-8 one rune), so that only what is kept is converted.
func runePrefix(s string, n int) int {
	h := 0
	for i := 0; i < n && h < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[h:])
		h += size
	}
	return h
}

// clipEnds is s cut to its first head and last tail characters (runes),
// "..." between, when it is longer than the two.
func clipEnds(s string, head, tail int) string {
	if utf8.RuneCountInString(s) <= head+tail {
		return s
	}
	// Only the two ends are converted to runes (a byte that is no UTF-8
	// reads as U+FFFD, as converting the whole text did): a call's
	// arguments of megabytes made four bytes a character of garbage on
	// every note of them.
	h := runePrefix(s, head)
	t := len(s)
	for i := 0; i < tail; i++ {
		_, n := utf8.DecodeLastRuneInString(s[:t])
		t -= n
	}
	return string([]rune(s[:h])) + "..." + string([]rune(s[t:]))
}

// userBefore returns the index in h of the most recent user message before
// index limit, or -1.
func (ch *chatHistory) userBefore(limit int) int {
	for i := limit - 1; i >= ch.floor; i-- {
		if ch.h[i].Role == RoleUser {
			return i
		}
	}
	return -1
}

// writesText reports whether a call's JSON arguments hold text the call
// writes into a file beside where it goes: two or more string values, one
// of them of several lines (an edit's old and new text beside its path; a
// file's content beside its path). An agent's next edit of the same lines
// copies them from the earlier edit's new text: on a recorded Claude Code
// session the second edit's old text is 8 lines from the middle of the
// first's new text of 1,094 characters. Each value of several lines is
// kept whole up to ledgerWrittenChars, whatever order the keys come in.
// A lone command (a bash agent's here-document) is not such a call: kept
// whole, a script fills the note's room and cuts the command after it.
func writesText(args string) bool {
	var fields map[string]any
	if json.Unmarshal([]byte(args), &fields) != nil {
		return false
	}
	strs, lines := 0, false
	for _, v := range fields {
		if str, ok := v.(string); ok {
			strs++
			lines = lines || strings.Contains(strings.TrimSpace(str), "\n")
		}
	}
	return strs >= 2 && lines
}
