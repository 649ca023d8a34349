package strategies

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// valueSummary is the deterministic summariser of the tests: it keeps the
// user's words and every value the messages of a summary request hold
// (what evidence recall counts: strings of 3 or more characters and
// numbers of 3 or more digits from JSON, and from other text the quoted
// strings and the words holding a digit, '_', '@' or '-'), each once, one
// per line. An earlier
// summary in the request is carried over line by line. A model writes
// prose instead, and may drop or mistype a value; it also says why things
// were done, which this one cannot.
func valueSummary(req []ChatMessage, header string) string {
	var lines []string
	seen := map[string]bool{}
	add := func(v string) {
		v = strings.TrimSpace(v)
		if v != "" && !seen[v] {
			seen[v] = true
			lines = append(lines, v)
		}
	}
	for _, m := range req[:len(req)-1] { // the last is the instruction
		if m.Role == RoleSystem {
			continue
		}
		if rest, ok := strings.CutPrefix(m.Content, header); ok {
			for _, l := range strings.Split(rest, "\n") {
				add(l)
			}
			continue
		}
		if m.Role == RoleUser {
			add("user: " + truncateRunes(strings.Join(strings.Fields(m.Content), " "), 300))
		}
		for _, v := range textValues(nil, m.Content) {
			add(v)
		}
		for _, tc := range m.ToolCalls {
			add("call " + tc.Name)
			for _, v := range argumentValues(nil, tc.Arguments) {
				add(v)
			}
		}
	}
	return strings.Join(lines, "\n")
}

// textValues appends the values of a message's text: JSON's, or the
// quoted strings and the words that look like identifiers or figures.
func textValues(out []string, text string) []string {
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		return jsonValues(out, v)
	}
	for _, q := range quoted.FindAllStringSubmatch(text, -1) {
		if utf8.RuneCountInString(q[1]) >= evidenceMinChars {
			out = append(out, q[1])
		}
	}
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return strings.ContainsRune(".,;:()[]{}\"'`", r) })
		if utf8.RuneCountInString(w) >= evidenceMinChars && strings.IndexFunc(w, func(r rune) bool {
			return unicode.IsDigit(r) || r == '_' || r == '@' || r == '-'
		}) >= 0 {
			out = append(out, w)
		}
	}
	return out
}

// quoted matches a double-quoted string without escapes, as EDN and prose
// write them.
var quoted = regexp.MustCompile(`"([^"\\\n]{1,200})"`)

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// agentHistory is a synthetic agent's log after n turns: a system prompt,
// the user's task, then per turn an assistant tool call and its result,
// and every fifth turn a word from the user.
func agentHistory(n int) []ChatMessage {
	h := []ChatMessage{
		{Role: RoleSystem, Content: "You are an order assistant. Use the tools."},
		{Role: RoleUser, Content: "Find the orders of customer C-1042 that were delayed and refund them."},
	}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call_%d", i)
		h = append(h, ChatMessage{Role: RoleAssistant, Content: fmt.Sprintf("Looking at order %d.", i),
			ToolCalls: []ChatToolCall{{ID: id, Name: "get_order", Arguments: fmt.Sprintf(`{"order_id":"ORD-%04d"}`, i)}}})
		var items []string
		for k := range 12 {
			items = append(items, fmt.Sprintf(`{"sku":"SKU-%d-%d","name":"item number %d of order %d","price":%d.99}`, i, k, k, i, 100+i*k))
		}
		h = append(h, ChatMessage{Role: RoleTool, ToolCallID: id, Content: fmt.Sprintf(`{"order_id":"ORD-%04d","status":"delayed","tracking":"TRK%07d","items":[%s]}`, i, i*7919, strings.Join(items, ","))})
		if i%5 == 0 {
			h = append(h, ChatMessage{Role: RoleUser, Content: fmt.Sprintf("Also note refund reference REF-%d for the last five.", i)})
		}
	}
	return h
}

func summarizeOptions(t testing.TB, trigger, keep int) Options {
	t.Helper()
	o, err := Normalize(RawOptions{Strategy: "summarize", SummaryTrigger: &trigger, SummaryKeep: &keep})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// summarizedRun drives the strategy as a client with a summariser does,
// for turns 0..n: each call renders the history; when the response asks
// for a summary, the summariser writes it and the call renders again with
// it. It returns each call's final response and the summary it was sent
// with, and the summary requests by the turn that asked.
type summarizedCall struct {
	resp    *Response
	summary *Summary
	asked   *SummaryRequest // the request the first rendering carried
	first   *Response       // the first rendering, when it asked
	history []ChatMessage
}

func summarizedRun(t *testing.T, opts Options, turns int, summarise func([]ChatMessage, string) string) []summarizedCall {
	t.Helper()
	var sum *Summary
	var calls []summarizedCall
	for n := 0; n < turns; n++ {
		h := agentHistory(n)
		resp, err := Render(&Request{History: h, Options: opts, Summary: sum})
		if err != nil {
			t.Fatalf("turn %d: %v", n, err)
		}
		call := summarizedCall{history: h}
		if r := resp.SummaryRequest; r != nil {
			call.asked, call.first = r, resp
			sum = &Summary{Text: summarise(r.Prompt(resp.Messages), opts.SummaryHeader), Through: r.Through, AskedAt: r.AskedAt, Digest: r.Digest}
			if resp, err = Render(&Request{History: h, Options: opts, Summary: sum}); err != nil {
				t.Fatalf("turn %d, with the summary: %v", n, err)
			}
		}
		call.resp, call.summary = resp, sum
		calls = append(calls, call)
	}
	return calls
}

func TestSummarizeThirtyCalls(t *testing.T) {
	const trigger = 3000
	opts := summarizeOptions(t, trigger, 4)
	// A summariser whose summaries stay short (its first 80 lines), so
	// that the kept messages are what grows the prompt past the trigger.
	short := func(req []ChatMessage, header string) string {
		lines := strings.Split(valueSummary(req, header), "\n")
		return strings.Join(lines[:min(len(lines), 80)], "\n")
	}
	calls := summarizedRun(t, opts, 30, short)
	summaries := 0
	byLength := map[int]*Response{} // the prompt sent by the call whose history held n messages
	for n, c := range calls {
		st := c.resp.Stats
		if c.asked != nil {
			summaries++
			r := c.asked
			// Cache-friendly: the prompt an earlier call sent, then only the
			// instruction.
			sent := byLength[r.Through]
			if sent == nil {
				t.Fatalf("turn %d: the request ends at history[%d], where no call's history ended", n, r.Through)
			}
			if r.PrefixMessages != len(sent.Messages) || len(r.Messages) != 1 {
				t.Errorf("turn %d: the request names %d of the answer's messages and adds %d, want %d and the instruction", n, r.PrefixMessages, len(r.Messages), len(sent.Messages))
			}
			prompt := r.Prompt(c.first.Messages)
			if got := prompt[:len(prompt)-1]; !reflect.DeepEqual(got, sent.Messages) {
				t.Errorf("turn %d: the summary request's prefix is not what the call at %d messages sent:\n%v\n%v", n, r.Through, got, sent.Messages)
			}
			if last := prompt[len(prompt)-1]; last.Role != RoleUser || last.Content != DefaultSummaryPrompt {
				t.Errorf("turn %d: the request ends with %+v, not the instruction", n, last)
			}
			if c.first.Stats.TokensAfter <= trigger || !c.first.Stats.SummaryRequested {
				t.Errorf("turn %d: asked for a summary at %d tokens (trigger %d)", n, c.first.Stats.TokensAfter, trigger)
			}
			if r.AskedAt != len(c.history) || len(c.history)-r.Through < 4 {
				t.Errorf("turn %d: asked at %d, through %d, for a history of %d (keep 4)", n, r.AskedAt, r.Through, len(c.history))
			}
			if c.resp.SummaryRequest != nil {
				t.Errorf("turn %d: asks again with the summary just written", n)
			}
		} else if st.SummaryRequested || st.TokensAfter > trigger {
			t.Errorf("turn %d: %d tokens (trigger %d) and no summary asked for", n, st.TokensAfter, trigger)
		}
		byLength[len(c.history)] = c.resp
		if c.summary != nil {
			h := c.history
			want := append([]ChatMessage{h[0], {Role: RoleUser, Content: DefaultSummaryHeader + "\n\n" + c.summary.Text}}, h[c.summary.Through:]...)
			if !reflect.DeepEqual(c.resp.Messages, want) {
				t.Fatalf("turn %d: the output is not system, summary, history[%d:]:\n%v", n, c.summary.Through, c.resp.Messages)
			}
			if st.SummaryTokens == 0 || st.MessagesSummarized != c.summary.Through-1 {
				t.Errorf("turn %d: summary_tokens %d, messages_summarized %d (through %d)", n, st.SummaryTokens, st.MessagesSummarized, c.summary.Through)
			}
		}
		if n == 0 {
			continue
		}
		prev := calls[n-1]
		system, err := CountMessageTokens(opts.Tokenizer, opts.Provider, c.history[:1])
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case c.summary == prev.summary:
			// One prompt, appended to: everything the call before sent is
			// read from the cache.
			if st.StablePrefixTokens != prev.resp.Stats.TokensAfter {
				t.Errorf("turn %d: stable prefix %d tokens, want the previous prompt's %d", n, st.StablePrefixTokens, prev.resp.Stats.TokensAfter)
			}
		default:
			// A new summary: only the system prompt is unchanged.
			if st.StablePrefixTokens != system {
				t.Errorf("turn %d, new summary: stable prefix %d tokens, want the system prompt's %d", n, st.StablePrefixTokens, system)
			}
		}
	}
	if summaries < 3 {
		t.Errorf("%d summaries in 30 turns, want at least 3", summaries)
	}
}

func TestSummarizeBelowTrigger(t *testing.T) {
	h := agentHistory(3)
	resp, err := Render(&Request{History: h, Options: summarizeOptions(t, DefaultSummaryTrigger, DefaultSummaryKeep)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.SummaryRequest != nil || !reflect.DeepEqual(resp.Messages, h) {
		t.Errorf("below the trigger: want the history unchanged and no request, got %v, %+v", resp.Messages, resp.SummaryRequest)
	}
}

// TestSummarizeKeep: a summary leaves at least summary_keep messages and
// ends before an assistant message; with nothing to cover none is asked.
func TestSummarizeKeep(t *testing.T) {
	h := agentHistory(6) // assistant messages at 2, 4, 6, 8, 10 and 13 of 15
	for _, tc := range []struct{ keep, through int }{{0, 13}, {3, 10}, {4, 10}, {5, 10}, {6, 8}, {13, 2}, {14, -1}} {
		resp, err := Render(&Request{History: h, Options: summarizeOptions(t, 10, tc.keep)})
		if err != nil {
			t.Fatal(err)
		}
		got := -1
		if r := resp.SummaryRequest; r != nil {
			got = r.Through
			if r.Digest != SummaryDigest(h, r.Through, len(h)) || r.AskedAt != len(h) {
				t.Errorf("keep %d: digest %s asked_at %d", tc.keep, r.Digest, r.AskedAt)
			}
		}
		if got != tc.through {
			t.Errorf("keep %d: through %d, want %d", tc.keep, got, tc.through)
		}
	}
}

func TestSummarizeRefusesMismatch(t *testing.T) {
	opts := summarizeOptions(t, 10, 2)
	h := agentHistory(6)
	good := Summary{Text: "values", Through: 8, AskedAt: 15, Digest: SummaryDigest(h, 8, 15)}
	if _, err := Render(&Request{History: h, Options: opts, Summary: &good}); err != nil {
		t.Fatalf("a matching summary: %v", err)
	}
	other := agentHistory(6)
	other[3].Content = `{"order_id":"ORD-9999"}` // a covered message differs
	shorter := agentHistory(1)
	for _, tc := range []struct {
		name    string
		history []ChatMessage
		edit    func(*Summary)
		field   string
	}{
		{"other messages", other, func(*Summary) {}, "summary.digest"},
		{"other range", h, func(s *Summary) { s.Through = 6 }, "summary.digest"},
		{"forged digest", h, func(s *Summary) { s.Digest = "v2:sha256:00" }, "summary.digest"},
		{"asked later", h, func(s *Summary) { s.AskedAt = 14 }, "summary.digest"},
		{"history too short", shorter, func(*Summary) {}, "summary.asked_at"},
		{"empty", h, func(s *Summary) { s.Text = " \n" }, "summary.text"},
		{"covers nothing", h, func(s *Summary) { s.Through = 0 }, "summary.through"},
		{"negative", h, func(s *Summary) { s.Through = -1 }, "summary.through"},
		{"asked at no call", h, func(s *Summary) { s.AskedAt = 1<<31 - 1 }, "summary.asked_at"},
		{"past asked_at", h, func(s *Summary) { s.Through = 16 }, "summary.through"},
		{"inside a loop", h, func(s *Summary) { s.Through = 3; s.Digest = SummaryDigest(h, 3, 15) }, "summary.through"},
	} {
		s := good
		tc.edit(&s)
		_, err := Render(&Request{History: tc.history, Options: opts, Summary: &s})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("%s: got %v, want an InputError naming %s", tc.name, err, tc.field)
		}
	}
	// A digest of an earlier release, which left content parts out, is
	// refused saying so.
	old := good
	old.Digest = "sha256:" + strings.Repeat("0", 64)
	var ie *InputError
	if _, err := Render(&Request{History: h, Options: opts, Summary: &old}); !errors.As(err, &ie) || ie.Field != "summary.digest" || !strings.Contains(ie.Reason, "earlier release") {
		t.Errorf("an earlier release's digest: got %v, want an InputError naming summary.digest and the earlier release", err)
	}
	o := opts
	o.Strategy = "loop-slice"
	_, err := Render(&Request{History: h, Options: o, Summary: &good})
	if !errors.As(err, &ie) || ie.Field != "summary" {
		t.Errorf("a summary to loop-slice: got %v, want an InputError naming summary", err)
	}
}

// TestSummarizeTurns: summarize-turns summarises full's rendering of a
// PTC-Lisp run; over 30 turns every call between two summaries reads the
// whole previous prompt from the cache.
func TestSummarizeTurns(t *testing.T) {
	trigger, keep := 2500, 2
	opts, err := Normalize(RawOptions{Strategy: "summarize-turns", SystemPrompt: "You write PTC-Lisp.", Mission: "Tally the shipments.", MaxTurns: intp(40), SummaryTrigger: &trigger, SummaryKeep: &keep})
	if err != nil {
		t.Fatal(err)
	}
	var turns []Turn
	var sum *Summary
	var prev *Response
	summaries := 0
	for n := 0; n < 30; n++ {
		resp, err := Render(&Request{Turns: turns, Options: opts, Summary: sum})
		if err != nil {
			t.Fatalf("turn %d: %v", n, err)
		}
		fresh := false
		if r := resp.SummaryRequest; r != nil {
			summaries, fresh = summaries+1, true
			sum = &Summary{Text: valueSummary(r.Prompt(resp.Messages), opts.SummaryHeader), Through: r.Through, AskedAt: r.AskedAt, Digest: r.Digest}
			if resp, err = Render(&Request{Turns: turns, Options: opts, Summary: sum}); err != nil {
				t.Fatalf("turn %d, with the summary: %v", n, err)
			}
			if resp.Messages[1].Content != DefaultSummaryHeader+"\n\n"+sum.Text {
				t.Fatalf("turn %d: the summary is not the second message: %v", n, resp.Messages[1])
			}
		}
		if st := resp.Stats; st.Strategy != "summarize-turns" || prev != nil && !fresh && st.StablePrefixTokens != prev.Stats.TokensAfter {
			t.Errorf("turn %d (%s): stable prefix %d tokens, want the previous prompt's %d", n, st.Strategy, st.StablePrefixTokens, prev.Stats.TokensAfter)
		}
		prev = resp
		turns = append(turns, Turn{Number: n + 1, Success: true, Program: fmt.Sprintf(`(tool/shipment {:id "SHP-%04d"})`, n),
			Prints: []string{strings.Repeat(fmt.Sprintf("crate %d weighs %d kg; ", n, 100+n), 20)}, Result: lisp.Int(int64(1000 + n))})
	}
	if summaries < 2 {
		t.Errorf("%d summaries in 30 turns, want at least 2", summaries)
	}
}

// The digest covers every field of the covered messages' content parts: a
// summary written for a history whose image or text part differed is
// refused.
func TestSummaryDigestCoversParts(t *testing.T) {
	opts := summarizeOptions(t, 100, 2)
	withParts := func(edit func([]ContentPart)) []ChatMessage {
		h := agentHistory(6)
		parts := []ContentPart{NewPart(PartText, "Find the delayed orders of customer C-1042 and refund them.", PartExtra{}),
			NewPart(PartImage, "", PartExtra{MediaType: "image/png", Data: "iVBORw0KGgo=", Width: 640, Height: 480})}
		edit(parts)
		h[1].Content, h[1].Parts = "", parts
		return h
	}
	h := withParts(func([]ContentPart) {})
	good := Summary{Text: "values", Through: 8, AskedAt: 15, Digest: SummaryDigest(h, 8, 15)}
	if _, err := Render(&Request{History: h, Options: opts, Summary: &good}); err != nil {
		t.Fatalf("a matching summary: %v", err)
	}
	for name, edit := range map[string]func([]ContentPart){
		"text part edited":       func(p []ContentPart) { p[0].Text = "Find the delayed orders of customer C-2084 and refund them." },
		"image changed":          func(p []ContentPart) { p[1].Extra.Data = "iVBORw0KGgp=" },
		"image size changed":     func(p []ContentPart) { p[1].Extra.Width = 1280 },
		"image detail set":       func(p []ContentPart) { p[1].Extra.Detail = "low" },
		"parts in other order":   func(p []ContentPart) { p[0], p[1] = p[1], p[0] },
		"image replaced by text": func(p []ContentPart) { p[1] = NewPart(PartText, "(no image)", PartExtra{}) },
	} {
		other := withParts(edit)
		_, err := Render(&Request{History: other, Options: opts, Summary: &good})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != "summary.digest" {
			t.Errorf("%s: got %v, want an InputError naming summary.digest", name, err)
		}
	}
}
