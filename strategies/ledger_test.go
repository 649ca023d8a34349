package strategies

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// airlineLog is a customer-service conversation in the shape of tau-bench's:
// the customer gives an id, the agent reads a large profile, and the
// customer confirms two turns later.
func airlineLog() []ChatMessage {
	var flights []string
	for i := range 40 {
		flights = append(flights, fmt.Sprintf(`{"flight_number": "HAT%03d", "date": "2024-05-%02d", "price": %d}`, 100+i, 10+i, 1000+37*i))
	}
	profile := `{"user_id": "mia_li_3668", "payment_methods": {"credit_card_7447598": {"source": "credit_card", "id": "credit_card_7447598"}, "certificate_7504069": {"source": "certificate", "amount": 250, "id": "certificate_7504069"}}, "reservations": ["NO6JO3", "AJVCTQ"], "flights": [` + strings.Join(flights, ", ") + `]}`
	call := func(id, name, args string) ChatMessage {
		return ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: name, Arguments: args}}}
	}
	return []ChatMessage{
		{Role: RoleSystem, Content: "You are an airline agent."},
		{Role: RoleUser, Content: "Book me a flight. My user id is mia_li_3668."},
		call("c1", "get_user_details", `{"user_id": "mia_li_3668"}`),
		{Role: RoleTool, ToolCallID: "c1", Content: profile},
		{Role: RoleAssistant, Content: "Which payment method?"},
		{Role: RoleUser, Content: "The certificate, please."},
		call("c2", "search_direct_flight", `{"origin": "JFK", "destination": "SEA"}`),
		{Role: RoleTool, ToolCallID: "c2", Content: "[]"},
		{Role: RoleAssistant, Content: "Shall I book HAT105?"},
		{Role: RoleUser, Content: "Yes, please proceed."},
	}
}

// Outside seed 002's world, loop-slice keeps every prompt and leaves a
// note for the profile it drops, from which the booking call can copy the
// payment id; seed 002's form (window_only) loses it.
func TestLedgerKeepsEvidence(t *testing.T) {
	h := airlineLog()
	next := ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "c3", Name: "book_reservation",
		Arguments: `{"user_id": "mia_li_3668", "flight_number": "HAT105", "payment_id": "certificate_7504069"}`}}}
	ev := ChatEvidence(h, &next)
	if len(ev) != 3 {
		t.Fatalf("evidence %v, want the three values", ev)
	}
	opts := chatDefaults()
	opts.Strategy = "loop-slice"
	opts.Pricing, _ = resolvePricing("none", nil, nil) // a note always pays (TestLedgerNotePaysBack)
	resp, err := Render(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	out := resp.Messages
	if r := MeasureRecall(ev, out); r.Kept != 3 {
		t.Errorf("recall %+v\n%s", r, formatLog(out))
	}
	for _, i := range []int{1, 5, 9} {
		if !containsMessage(out, h[i]) {
			t.Errorf("prompt %q not sent\n%s", h[i].Content, formatLog(out))
		}
	}
	notes := 0
	for _, m := range out {
		if isLedgerNote(m) {
			notes++
			if !strings.Contains(m.Content, `called get_user_details({"user_id": "mia_li_3668"}) -> `) || !strings.Contains(m.Content, "id: certificate_7504069") {
				t.Errorf("note %q", m.Content)
			}
		}
	}
	if notes != 1 {
		t.Errorf("%d notes, want one, for the profile (the other units are short)\n%s", notes, formatLog(out))
	}

	opts.WindowOnly = true
	seed, err := Render(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if r := MeasureRecall(ev, seed.Messages); r.Kept == 3 {
		t.Errorf("seed 002's form kept every value: %s", formatLog(seed.Messages))
	}
}

// The ledger only grows: the output of a later call begins with the
// output of an earlier one up to the unit that turned into a note.
func TestLedgerAppendOnly(t *testing.T) {
	h := airlineLog()
	opts := chatDefaults()
	opts.Strategy = "loop-slice"
	opts.Pricing, _ = resolvePricing("none", nil, nil)
	first, err := Render(&Request{History: h[:5], Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	later, err := Render(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	// The first output holds the profile loop whole (the latest loop); the
	// later one, its note in the same place.
	a, b := first.Messages, later.Messages
	if len(a) < 3 || len(b) < 3 || !reflect.DeepEqual(a[:2], b[:2]) || !isLedgerNote(b[2]) {
		t.Errorf("first\n%slater\n%s", formatLog(a), formatLog(b))
	}
}

// Under a pricing that caches, a unit turns into a note only where the
// note repays writing it: in a conversation of three calls the profile's
// note would be written once and read twice, costing more than reading the
// profile, cached, three times, so it stays whole and loop-slice bills no
// more than the raw history. After thirty calls that each read a long file,
// whose notes saved more than the profile's note costs to write
// (planLedger), the same unit is a note with its full preview.
func TestLedgerNotePaysBack(t *testing.T) {
	h := airlineLog()
	opts := chatDefaults()
	opts.Strategy = "loop-slice"
	opts.Pricing, _ = resolvePricing("anthropic", nil, nil)
	short, err := Render(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(short.Messages, isLedgerNote) {
		t.Errorf("a note in a conversation of three calls:\n%s", formatLog(short.Messages))
	}
	// Thirty earlier calls, each a read of a long file, before the same
	// conversation.
	var long []ChatMessage
	long = append(long, h[0])
	for k := range 30 {
		id := fmt.Sprintf("e%d", k)
		file := strings.Repeat(fmt.Sprintf("line %d of file %d: x = compute(x, %d)\n", k, k, k), 300)
		long = append(long, ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path": "src/f%d.py"}`, k)}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: file})
	}
	long = append(long, h[1:]...)
	later, err := Render(&Request{History: long, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(later.Messages, func(m ChatMessage) bool {
		return isLedgerNote(m) && strings.Contains(m.Content, "get_user_details")
	}) {
		t.Errorf("no note for the profile after thirty calls:\n%s", formatLog(later.Messages))
	}
	// After thirty calls that read a word each, nothing was saved that
	// would pay for writing the full note: the profile's note shows a
	// shorter preview than after thirty long reads, what reading the
	// profile on this call instead pays for.
	pings := []ChatMessage{h[0]}
	for k := range 30 {
		id := fmt.Sprintf("e%d", k)
		pings = append(pings, ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: "ping", Arguments: "{}"}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: "ok"})
	}
	pinged, err := Render(&Request{History: append(pings, h[1:]...), Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	profileNote := func(msgs []ChatMessage) string {
		for _, m := range msgs {
			if isLedgerNote(m) && strings.Contains(m.Content, "get_user_details") {
				return m.Content
			}
		}
		return ""
	}
	if a, b := profileNote(pinged.Messages), profileNote(later.Messages); len(a) >= len(b) {
		t.Errorf("the profile's note after short reads (%d chars) is not shorter than after long ones (%d chars):\n%s", len(a), len(b), formatLog(pinged.Messages))
	}
	if !notePaysBack(opts.Pricing, 4000, 600, 31) || notePaysBack(opts.Pricing, 4000, 600, 1) || !notePaysBack(Pricing{ReadRate: 1, WriteRate: 1}, 10, 9, 1) {
		t.Error("notePaysBack: a large unit pays back after 31 calls, not after 1; without caching a note always pays")
	}
}

func containsMessage(msgs []ChatMessage, m ChatMessage) bool {
	for _, x := range msgs {
		if reflect.DeepEqual(x, m) {
			return true
		}
	}
	return false
}

// A preview lists a JSON result's scalar values within its bound, each
// once, in the result's order, and says how long the result was when it
// shows a part; text is cut, and its length said.
func TestResultPreview(t *testing.T) {
	if got := resultPreview(`{"b": [1234, "x1"], "a": {"id": "u-1", "ok": true, "dup": "u-1"}}`, stepNotes, nil); got != "b: 1234, b: x1, id: u-1" {
		t.Errorf("got %q", got)
	}
	var items []string
	for i := range 100 {
		items = append(items, fmt.Sprintf(`{"n": %d}`, 123456000+i))
	}
	long := "[" + strings.Join(items, ", ") + "]"
	if got := resultPreview(long, stepNotes, nil); !strings.HasSuffix(got, fmt.Sprintf("... (%d chars)", len(long))) || len(got) > stepNotes.jsonChars()+40 {
		t.Errorf("got %q", got)
	}
	text := strings.Repeat("word ", 500)
	if got := resultPreview(text, stepNotes, nil); len(got) > stepNotes.textChars()+40 || !strings.HasSuffix(got, "(2499 chars)") {
		t.Errorf("got %q", got)
	}
}

// A text preview leaves out the lines of its start shown before, where
// they run to minShownRun characters, and counts them; a short run stays,
// and without a set of shown lines the preview is the start as it is.
func TestTextPreviewLeavesOutShownLines(t *testing.T) {
	imports := "import (\n\t\"fmt\"\n\t\"strings\"\n\t\"unicode/utf8\"\n\t\"github.com/example/project/internal/memo\"\n)"
	file := "package ledger\n\n" + imports + "\n\nfunc Added() string { return \"new in this version\" }\n"
	shown := newShownLines()
	shown.addText(imports)
	got := textPreview(file, 500, shown)
	if want := "package ledger\n(6 lines shown above)\nfunc Added() string { return \"new in this version\" }"; got != want {
		t.Errorf("preview %q, want %q", got, want)
	}
	if !shown.set[`func Added() string { return "new in this version" }`] {
		t.Error("the line the preview shows was not added to the shown lines")
	}
	// Every line as the file holds it, blank lines left out.
	whole := "package ledger\n" + imports + "\nfunc Added() string { return \"new in this version\" }"
	// A run shorter than minShownRun is shown again: its count would cost
	// about what it does.
	short := newShownLines()
	short.addText(")\n\t\"fmt\"")
	if got := textPreview(file, 500, short); got != whole {
		t.Errorf("preview %q, want %q", got, whole)
	}
	// The length follows a preview that shows a part.
	long := file + strings.Repeat("x", 600)
	again := newShownLines()
	again.addText(imports)
	got = textPreview(long, 200, again)
	if !strings.HasPrefix(got, "package ledger\n(6 lines shown above)\nfunc Added()") || !strings.HasSuffix(got, fmt.Sprintf("... (%d chars)", len(whole)+1+600)) {
		t.Errorf("preview of a part %q", got)
	}
	if got := textPreview(file, 500, nil); got != whole {
		t.Errorf("without shown lines: %q, want %q", got, whole)
	}
}

// A note shows the lines of a result and the values of a call's arguments
// as they are, white space kept: a coding agent's edit copies a line of a
// file with its indentation, and a todo list it rewrites copies every item
// of the last one.
func TestNoteKeepsWhatACallCopies(t *testing.T) {
	read := "     1→package main\n     2→\n     3→func main() {\n     4→\t\tif  x  {\n     5→}\n"
	preview := textPreview(read, 500, nil)
	if line := "\t\tif  x  {"; !strings.Contains(preview, line) {
		t.Errorf("preview %q lost the indented line %q", preview, line)
	}
	todos := `{"todos":[{"content":"Explore the codebase structure","status":"completed","activeForm":"Exploring the codebase structure"},` +
		`{"content":"Review package.json and dependencies","status":"in_progress","activeForm":"Reviewing package.json and dependencies"},` +
		`{"content":"Check for security issues","status":"pending","activeForm":"Checking for security issues"}]}`
	args := noteArguments(todos)
	for _, item := range []string{"Explore the codebase structure", "Reviewing package.json and dependencies", "Check for security issues", "pending"} {
		if !strings.Contains(args, item) {
			t.Errorf("arguments %q lost %q", args, item)
		}
	}
	edit := `{"file_path":"/src/app.go","old_string":"\tif  x  {\n\t\treturn\n\t}","new_string":"` + strings.Repeat("y", 400) + `"}`
	args = noteArguments(edit)
	if !strings.Contains(args, "old_string: \tif  x  {\n\t\treturn\n\t}") || !strings.Contains(args, "file_path: /src/app.go") {
		t.Errorf("arguments %q", args)
	}
	if n := utf8.RuneCountInString(args); n > ledgerArgsChars*3 {
		t.Errorf("arguments of %d characters: a value is cut at %d", n, ledgerArgsChars)
	}
	// An edit's texts of several lines are kept up to ledgerWrittenChars
	// each: the next edit of those lines copies them from its new text. A
	// longer one, and a lone command, are cut.
	lines := func(word string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\t%s(%d)\n", word, i)
		}
		return b.String()
	}
	oldText, newText := lines("before", 200), lines("after", 80)
	edit2, _ := json.Marshal(map[string]string{"file_path": "/src/app.go", "old_string": oldText, "new_string": newText})
	args = noteArguments(string(edit2))
	if !strings.Contains(args, strings.TrimSpace(newText)) || !strings.Contains(args, "before(99)") || strings.Contains(args, "before(150)") {
		t.Errorf("an edit's note keeps its new text whole and its old up to %d characters: %q", ledgerWrittenChars, args)
	}
	if n := utf8.RuneCountInString(args); n > ledgerArgsTotalChars+ledgerWrittenChars+10 {
		t.Errorf("an edit's note of %d characters", n)
	}
	script, _ := json.Marshal(map[string]string{"command": lines("step", 80)})
	if got := noteArguments(string(script)); strings.Contains(got, "step(40)") {
		t.Errorf("a lone command is cut: %q", got)
	}
	// Arguments that are not a JSON object: their first and last
	// characters, white space kept.
	cmd := "cat <<'EOF' > run.py\n" + strings.Repeat("print(1)\n", 100) + "EOF\npython  run.py"
	if got := noteArguments(cmd); !strings.HasSuffix(got, "python  run.py") || utf8.RuneCountInString(got) > ledgerArgsChars+3 {
		t.Errorf("arguments %q", got)
	}
}

// The note of a listing cut short lists the paths that begin the lines it
// does not show: a coding agent reads a file a search or a listing named
// deep in its output.
func TestNoteListsPathsOfTheRest(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "internal/wire/file%02d.go:%d: return nil, err\n", i, i+10)
	}
	listing := b.String()
	preview := resultPreview(listing, stepNotes, nil)
	if !strings.Contains(preview, "internal/wire/file19.go") || !strings.Contains(preview, "paths in the rest: ") {
		t.Errorf("preview %q does not list the last path", preview)
	}
	if strings.Count(preview, "internal/wire/file00.go") != 1 {
		t.Errorf("a path the preview shows is listed again: %q", preview)
	}
	if n := utf8.RuneCountInString(preview); n > stepNotes.textChars()+stepNotes.paths+60 {
		t.Errorf("preview of %d characters", n)
	}
	// token-budget's short notes list none; nor does a result shown whole.
	if got := resultPreview(listing, budgetNotes, nil); strings.Contains(got, "paths in the rest") {
		t.Errorf("budget note %q", got)
	}
	if got := resultPreview("a/b.go\nc/d.go", stepNotes, nil); got != "a/b.go\nc/d.go" {
		t.Errorf("short result %q", got)
	}
}

// A coding agent that reads a file twice: the note of the second read
// leaves out the lines the first read's note shows, every line of the
// file is still in the output, and the output of each call begins with the
// previous one's up to the unit that turned into a note (append-only).
func TestLedgerLeavesOutLinesShownBefore(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("def handler_%02d(request): return render(request, 'page_%02d.html')", i, i))
	}
	file := strings.Join(lines, "\n")
	h := []ChatMessage{{Role: RoleSystem, Content: "You are a coding agent."}, {Role: RoleUser, Content: "Fix the views."}}
	for i := range 8 {
		cmd := fmt.Sprintf(`{"command": "cat views.py # read %d"}`, i)
		out := file
		if i%2 == 1 {
			cmd, out = fmt.Sprintf(`{"command": "python run_tests.py --case %d"}`, i), fmt.Sprintf("case %d: %s", i, strings.Repeat("ok ", 300))
		}
		id := fmt.Sprintf("c%d", i)
		h = append(h, ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: "bash", Arguments: cmd}}},
			ChatMessage{Role: RoleTool, ToolCallID: id, Content: out})
	}
	opts := chatDefaults()
	opts.Strategy = "loop-slice"
	opts.Pricing, _ = resolvePricing("none", nil, nil) // a note always pays
	var prev *Response
	for n := 4; n <= len(h); n += 2 {
		resp, err := Render(&Request{History: h[:n], Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if prev != nil {
			keep := len(prev.Messages) - 2 // up to the loop that turned into a note
			if !reflect.DeepEqual(resp.Messages[:keep], prev.Messages[:keep]) {
				t.Fatalf("call with %d messages rewrote the prompt before its last note:\nbefore\n%safter\n%s", n, formatLog(prev.Messages), formatLog(resp.Messages))
			}
		}
		prev = resp
	}
	var notes []string
	sent := ""
	for _, m := range prev.Messages {
		sent += m.Content + "\n"
		if isLedgerNote(m) && strings.Contains(m.Content, "cat views.py") {
			notes = append(notes, m.Content)
		}
	}
	// The first note shows the lines that fit its preview whole.
	whole := sliceNotes.textChars() / (len(lines[0]) + 1)
	shownAbove := fmt.Sprintf("(%d lines shown above)", whole)
	if len(notes) != 4 || strings.Contains(notes[0], "shown above") || !strings.Contains(notes[1], shownAbove) || !strings.Contains(notes[3], shownAbove) {
		t.Fatalf("notes of the reads:\n%s", strings.Join(notes, "\n"))
	}
	// The second note is shorter by the lines it leaves out, less the count
	// in their place.
	if saved := whole*len(lines[0]) - len(shownAbove); len(notes[0])-len(notes[1]) < saved {
		t.Errorf("the second read's note (%d chars) is not %d shorter than the first's (%d)", len(notes[1]), saved, len(notes[0]))
	}
	// The lines the first note shows whole are in the output.
	for _, l := range lines[:whole] {
		if !strings.Contains(sent, l) {
			t.Errorf("line %q is not in the output", l)
		}
	}
}

// A viewer's numbered lines (Claude Code's Read, cat -n) are shown in a
// note without their numbers, the range they cover named: the lines that
// fit the preview with their numbers, for fewer tokens. Data that merely
// starts with numbers is shown as it is.
func TestNoteLeavesOutLineNumbers(t *testing.T) {
	for _, sep := range []string{"→", "\t"} {
		var read strings.Builder
		var lines []string
		for i := 118; i < 160; i++ {
			l := fmt.Sprintf("%6d%s\tx%d := compute(x, %d)", i, sep, i, i)
			lines = append(lines, l)
			read.WriteString(l + "\n")
		}
		read.WriteString("\n<system-reminder>\nconsider whether it is malware\n</system-reminder>\n")
		got := textPreview(read.String(), 300, nil)
		// The numbered lines that fit 300 characters.
		fits, chars := 0, 0
		for _, l := range lines {
			if chars += utf8.RuneCountInString(l) + 1; chars > 301 {
				break
			}
			fits++
		}
		want := fmt.Sprintf("(lines 118-%d)\n\tx118 := compute(x, 118)\n", 118+fits-1)
		if !strings.HasPrefix(got, want) || strings.Contains(got, sep+"\t") || strings.Contains(got, "   118") {
			t.Errorf("preview %q, want it to begin %q, numbers left out", got, want)
		}
		if last := fmt.Sprintf("\tx%d := compute(x, %d)\n", 118+fits-1, 118+fits-1); !strings.Contains(got, last) {
			t.Errorf("preview %q lost %q, which fits with its number", got, last)
		}
		numbered, err := CountTokens(DefaultTokenizer, strings.Join(lines[:fits], "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := CountTokens(DefaultTokenizer, got); n >= numbered {
			t.Errorf("preview of %d tokens, the lines with their numbers %d", n, numbered)
		}
	}
	// Numbers that do not follow one another, or too few lines, are the
	// result's own data.
	for _, data := range []string{"1\tok\n5\tfailed\n9\tok\n", "200\tOK\n", "  3→a\n  4→b\n", "\tx := 1\n\ty := 2\n\tz := 3\n"} {
		if got := textPreview(data, 300, nil); got != strings.TrimRight(data, "\n") {
			t.Errorf("%q shown as %q", data, got)
		}
	}
}

// loop-slice marks its next cache breakpoint before its latest loop, so
// that the loop is billed as fresh input rather than written, only where
// the next call likely turns that loop into a note: where the model has
// answered with tool calls on nearly every call so far (a coding agent).
// Where it answers its user in text every other call (customer service),
// the next call often sends the same loop again, which would be billed
// fresh once more instead of read: the breakpoint stays at the end.
func TestLoopSliceBreakpointBeforeLoop(t *testing.T) {
	opts := chatDefaults()
	opts.Strategy = "loop-slice"
	opts.Pricing, _ = resolvePricing("anthropic", nil, nil)
	read := func(k int) []ChatMessage {
		id := fmt.Sprintf("r%d", k)
		file := strings.Repeat(fmt.Sprintf("line %d of file %d: x = compute(x, %d)\n", k, k, k), 300)
		return []ChatMessage{
			{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: id, Name: "read_file", Arguments: fmt.Sprintf(`{"path": "src/f%d.py"}`, k)}}},
			{Role: RoleTool, ToolCallID: id, Content: file},
		}
	}
	breakpoint := func(h []ChatMessage) (*Response, int) {
		t.Helper()
		resp, err := Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Stats.NextCacheBreakpoint == nil {
			t.Fatalf("no next_cache_breakpoint:\n%s", formatLog(resp.Messages))
		}
		return resp, resp.Stats.NextCacheBreakpoint.Message
	}
	coding := []ChatMessage{{Role: RoleSystem, Content: "You are a coding agent."}, {Role: RoleUser, Content: "Fix the bug in src."}}
	for k := range 30 {
		coding = append(coding, read(k)...)
	}
	resp, at := breakpoint(coding)
	if last := len(resp.Messages) - 1; at != last-2 {
		t.Errorf("coding agent: next_cache_breakpoint at message %d, want %d (before the latest loop):\n%s", at, last-2, formatLog(resp.Messages))
	}
	talk := []ChatMessage{{Role: RoleSystem, Content: "You are a support agent."}, {Role: RoleUser, Content: "Look at my files."}}
	for k := range 30 {
		talk = append(talk, read(k)...)
		talk = append(talk, ChatMessage{Role: RoleAssistant, Content: fmt.Sprintf("File %d is read. Shall I go on?", k)},
			ChatMessage{Role: RoleUser, Content: "Yes, please go on."})
	}
	talk = append(talk, read(30)...)
	resp, at = breakpoint(talk)
	if last := len(resp.Messages) - 1; at != last {
		t.Errorf("support agent: next_cache_breakpoint at message %d, want %d (the end):\n%s", at, last, formatLog(resp.Messages))
	}
}
