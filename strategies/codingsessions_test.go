package strategies

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Coding-agent sessions, generated: the shape the recorded conversations of
// testdata/realchat do not show well. A coding agent gets one request at
// the start and then works alone through hundreds of tool calls (reading
// files, searching, editing, running tests), often several in parallel,
// with no further user message and often no system prompt in its log. The
// generator is deterministic (fixed seeds), and its texts look like what
// such tools return (Go source, grep lines, test output), so the tokenizer
// counts them as it counts real ones.

// chatConversation is one conversation of the evaluation set.
type chatConversation struct {
	source, id string
	messages   []ChatMessage
}

// codingSessions are the generated sessions, one of each shape:
//
//   - openai: no system prompt, one request, 300 tool calls (single calls
//     and pairs), OpenAI-style ids, results of 20 to 1,500 tokens;
//   - anthropic: a system prompt, one request, 150 assistant turns of 2 to 4
//     parallel calls whose results come back in another order, Anthropic-
//     style ids, reasoning on some turns;
//   - greeting: a system prompt, the assistant's greeting before the user
//     speaks, a request, 60 loops, a second request, 60 more loops (its first
//     call holds only the system prompt);
//   - no-user: a system prompt that holds the task and 25 loops, no user
//     message at all.
func codingSessions() []chatConversation {
	return []chatConversation{
		{"coding-agent", "openai", newSessionWriter(1, false).openAIStyle()},
		{"coding-agent", "anthropic", newSessionWriter(2, true).anthropicStyle()},
		{"coding-agent", "greeting", newSessionWriter(3, false).greetingFirst()},
		{"coding-agent", "no-user", newSessionWriter(4, true).noUser()},
	}
}

// heldOutCodingSessions are sessions of the same four shapes from other
// seeds: the preview sizes and budgets were chosen on codingSessions, and
// these check that the figures hold on sessions they were not chosen on.
func heldOutCodingSessions() []chatConversation {
	const src = "coding-agent other seeds"
	return []chatConversation{
		{src, "openai", newSessionWriter(11, false).openAIStyle()},
		{src, "anthropic", newSessionWriter(12, true).anthropicStyle()},
		{src, "greeting", newSessionWriter(13, false).greetingFirst()},
		{src, "no-user", newSessionWriter(14, true).noUser()},
	}
}

// sessionWriter writes one session.
type sessionWriter struct {
	r         *rand.Rand
	anthropic bool // ids in Anthropic's style, results in another order
	h         []ChatMessage
	files     []string
}

func newSessionWriter(seed uint64, anthropic bool) *sessionWriter {
	w := &sessionWriter{r: rand.New(rand.NewPCG(seed, 2026)), anthropic: anthropic}
	for _, dir := range []string{"scan", "index", "server", "store", "cmd/spotter", "internal/wire"} {
		for _, f := range []string{"scanner", "reader", "cache", "options", "errors"} {
			w.files = append(w.files, dir+"/"+f+".go", dir+"/"+f+"_test.go")
		}
	}
	return w
}

const codingSystemPrompt = `You are a coding agent working in a Go repository. You have tools to read
files, search the code, edit files and run commands. Work in small steps:
read before you edit, run the tests after every change, and keep going
until the task is done. Never ask the user for confirmation; they are not
watching. When you are done, say what you changed in two or three lines.

Rules:
- Keep the code formatted with gofmt and vetted with go vet.
- Prefer the standard library.
- Do not change public APIs unless the task asks for it.
- Write tests that fail without your change.`

var codingTasks = []string{
	"Work on bead spotter-a0y: the scanner drops the last line of a file that does not end in a newline, and the index then misses the symbols on it. Fix the scanner, add a regression test, and make sure the whole suite passes.",
	"Work on bead spotter-k7q: the server's cache never evicts entries, so a long-running process grows without bound. Add an LRU bound configured by an option, with tests, and document the option.",
	"Also: the store's Close method returns nil even when flushing fails. Make it return the error and cover it with a test.",
}

func (w *sessionWriter) id() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	prefix, n := "call_", 24
	if w.anthropic {
		prefix, n = "toolu_01", 22
	}
	b := []byte(prefix)
	for range n {
		b = append(b, alnum[w.r.IntN(len(alnum))])
	}
	return string(b)
}

var identifiers = strings.Fields("data buf line lines out err n i j key value entry cache size limit opts ctx " +
	"reader writer index symbol symbols offset start end next prev count total path name file files")

var typeNames = strings.Fields("Scanner Reader Cache Options Entry Index Symbol Store Server Config Result")

// goSource writes a plausible Go file of about lines lines.
func (w *sessionWriter) goSource(path string, lines int) string {
	dir := path[:strings.LastIndexByte(path, '/')]
	pkg := dir[strings.LastIndexByte(dir, '/')+1:]
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"bytes\"\n\t\"errors\"\n\t\"fmt\"\n)\n", pkg)
	for n := 7; n < lines; {
		t := typeNames[w.r.IntN(len(typeNames))]
		fn := []string{"Read", "Next", "Flush", "Close", "Lookup", "Add", "Evict", "Len", "Reset"}[w.r.IntN(9)]
		fmt.Fprintf(&b, "\n// %s %ss the %s's %s.\nfunc (x *%s) %s(%s []byte) (int, error) {\n",
			fn, strings.ToLower(fn), strings.ToLower(t), identifiers[w.r.IntN(len(identifiers))], t, fn, identifiers[w.r.IntN(len(identifiers))])
		body := 3 + w.r.IntN(12)
		for k := 0; k < body; k++ {
			a, c := identifiers[w.r.IntN(len(identifiers))], identifiers[w.r.IntN(len(identifiers))]
			switch w.r.IntN(5) {
			case 0:
				fmt.Fprintf(&b, "\tif %s == nil {\n\t\treturn 0, errors.New(\"%s: no %s\")\n\t}\n", a, strings.ToLower(t), c)
			case 1:
				fmt.Fprintf(&b, "\tfor %s := range %s {\n\t\t%s += len(%s)\n\t}\n", a, c, identifiers[w.r.IntN(len(identifiers))], a)
			case 2:
				fmt.Fprintf(&b, "\t%s := bytes.IndexByte(%s, '\\n')\n", a, c)
			case 3:
				fmt.Fprintf(&b, "\tx.%s = append(x.%s, %s)\n", a, a, c)
			default:
				fmt.Fprintf(&b, "\tif err := x.%s(%s); err != nil {\n\t\treturn 0, fmt.Errorf(\"%s %%s: %%w\", %s, err)\n\t}\n", strings.ToLower(fn), c, strings.ToLower(fn), a)
			}
			n += 3
		}
		b.WriteString("\treturn len(x.data), nil\n}\n")
		n += 5
	}
	return b.String()
}

// toolCall makes one call and its result.
func (w *sessionWriter) toolCall() (ChatToolCall, string) {
	file := w.files[w.r.IntN(len(w.files))]
	switch k := w.r.IntN(10); {
	case k < 4:
		return ChatToolCall{w.id(), "read_file", fmt.Sprintf(`{"path": %q}`, file)}, w.goSource(file, 20+w.r.IntN(220))
	case k < 6:
		word := identifiers[w.r.IntN(len(identifiers))]
		var b strings.Builder
		for range 2 + w.r.IntN(25) {
			f := w.files[w.r.IntN(len(w.files))]
			fmt.Fprintf(&b, "%s:%d:\tif err := x.%s(%s); err != nil {\n", f, 1+w.r.IntN(300), word, identifiers[w.r.IntN(len(identifiers))])
		}
		return ChatToolCall{w.id(), "grep", fmt.Sprintf(`{"pattern": %q, "path": "."}`, word)}, b.String()
	case k < 8:
		old := identifiers[w.r.IntN(len(identifiers))]
		return ChatToolCall{w.id(), "edit_file", fmt.Sprintf(`{"path": %q, "old": "return %s, nil", "new": "return %s, x.err"}`, file, old, old)},
			"Applied 1 edit to " + file
	default:
		var b strings.Builder
		fail := w.r.IntN(3) == 0
		for _, dir := range []string{"scan", "index", "server", "store", "cmd/spotter", "internal/wire"} {
			if fail && dir == "index" {
				fmt.Fprintf(&b, "--- FAIL: TestIndex%s (0.00s)\n    index_test.go:%d: got %d symbols, want %d\nFAIL\nFAIL\texample.com/spotter/index\t0.0%02ds\n",
					typeNames[w.r.IntN(len(typeNames))], 10+w.r.IntN(200), w.r.IntN(40), 40+w.r.IntN(5), w.r.IntN(99))
				continue
			}
			fmt.Fprintf(&b, "ok  \texample.com/spotter/%s\t0.%03ds\n", dir, w.r.IntN(999))
		}
		return ChatToolCall{w.id(), "bash", `{"command": "go test ./..."}`}, b.String()
	}
}

// loop appends one assistant turn of calls calls and their results.
func (w *sessionWriter) loop(calls int) {
	a := ChatMessage{Role: RoleAssistant}
	switch w.r.IntN(4) {
	case 0:
		a.Content = []string{"Let me look at that.", "Running the tests again.", "That edit should fix the count; checking.", "Searching for the other callers."}[w.r.IntN(4)]
	case 1:
		if w.anthropic {
			a.Reasoning = "The failure is in the index; the scanner change shifted the offsets, so the symbol table needs the new end positions."
		}
	}
	results := make([]ChatMessage, calls)
	for k := range calls {
		call, result := w.toolCall()
		a.ToolCalls = append(a.ToolCalls, call)
		results[k] = ChatMessage{Role: RoleTool, ToolCallID: call.ID, Content: result}
	}
	if w.anthropic {
		// Parallel tools finish in any order, and Anthropic-style clients
		// append each result as it comes.
		w.r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
	}
	w.h = append(w.h, a)
	w.h = append(w.h, results...)
}

func (w *sessionWriter) done() []ChatMessage {
	w.h = append(w.h, ChatMessage{Role: RoleAssistant, Content: "Done: the scanner keeps a last line without a newline, with a regression test; the suite passes."})
	return w.h
}

func (w *sessionWriter) openAIStyle() []ChatMessage {
	w.h = append(w.h, ChatMessage{Role: RoleUser, Content: codingTasks[0]})
	for calls := 0; calls < 300; {
		n := 1
		if w.r.IntN(5) == 0 {
			n = 2
		}
		w.loop(n)
		calls += n
	}
	return w.done()
}

func (w *sessionWriter) anthropicStyle() []ChatMessage {
	w.h = append(w.h,
		ChatMessage{Role: RoleSystem, Content: codingSystemPrompt},
		ChatMessage{Role: RoleUser, Content: codingTasks[1]})
	for range 150 {
		w.loop(2 + w.r.IntN(3))
	}
	return w.done()
}

func (w *sessionWriter) greetingFirst() []ChatMessage {
	w.h = append(w.h,
		ChatMessage{Role: RoleSystem, Content: codingSystemPrompt},
		ChatMessage{Role: RoleAssistant, Content: "Hi! I'm ready to work on your repository. What should I do?"},
		ChatMessage{Role: RoleUser, Content: codingTasks[0]})
	for range 60 {
		w.loop(1 + w.r.IntN(2))
	}
	w.h = append(w.h,
		ChatMessage{Role: RoleAssistant, Content: "The scanner fix is in and the suite passes."},
		ChatMessage{Role: RoleUser, Content: codingTasks[2]})
	for range 60 {
		w.loop(1 + w.r.IntN(2))
	}
	return w.done()
}

func (w *sessionWriter) noUser() []ChatMessage {
	w.h = append(w.h, ChatMessage{Role: RoleSystem, Content: codingSystemPrompt + "\n\nYour task: " + codingTasks[1]})
	for range 25 {
		w.loop(1)
	}
	return w.done()
}
