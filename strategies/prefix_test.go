package strategies

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The reference stable prefix: a deliberately plain second implementation.
// Each message array becomes one sequence of elements, markers for the
// structure and the tokens of every text, each text tokenized whole; the
// stable prefix is the tokens of the longest common leading run of the two
// sequences.

type refElem struct {
	text  string // a token, or a marker
	token bool
	msg   int // for content tokens: the message and the byte offset after the token
	end   int
}

func refSerialise(t testing.TB, tokenizer string, msgs []ChatMessage) []refElem {
	t.Helper()
	enc, _, err := codec(tokenizer)
	if err != nil {
		t.Fatal(err)
	}
	var out []refElem
	mark := func(s string) { out = append(out, refElem{text: "\x00" + s}) }
	text := func(s string, content bool, msg int) {
		end := 0
		for _, tok := range enc.Tokens(s) {
			end += len(tok)
			out = append(out, refElem{text: tok, token: true, msg: msg, end: end})
			if !content {
				out[len(out)-1].msg = -1
			}
		}
	}
	for i, m := range msgs {
		mark("message " + m.Role + "\x00" + m.Name + "\x00" + m.ToolCallID)
		mark("reasoning")
		text(m.Reasoning, false, i)
		mark("content")
		text(m.Content, true, i)
		for _, tc := range m.ToolCalls {
			mark("call " + tc.ID)
			text(tc.Name, false, i)
			mark("arguments")
			text(tc.Arguments, false, i)
		}
		mark("end of message")
	}
	return out
}

// refStablePrefix is the reference of stablePrefix.
func refStablePrefix(t testing.TB, tokenizer string, prev, cur []ChatMessage) (int, *Breakpoint) {
	a, b := refSerialise(t, tokenizer, prev), refSerialise(t, tokenizer, cur)
	n := 0
	var end *Breakpoint
	for k := 0; k < len(a) && k < len(b) && a[k].text == b[k].text; k++ {
		if !b[k].token {
			continue
		}
		n++
		if b[k].msg >= 0 {
			content := cur[b[k].msg].Content
			at := b[k].end
			for at < len(content) && !utf8.RuneStart(content[at]) {
				at--
			}
			if at > 0 {
				end = &Breakpoint{Message: b[k].msg, Offset: utf8.RuneCountInString(content[:at])}
			}
		}
	}
	return n, end
}

// checkStablePrefix checks the cost statistics of resp, the response to a
// call whose earlier call got prev (nil for a run's first call).
func checkStablePrefix(t testing.TB, what string, prev, resp *Response) {
	t.Helper()
	st := resp.Stats
	if !st.StablePrefixKnown {
		t.Fatalf("%s: stable prefix unknown: %s", what, st.StablePrefixNote)
	}
	var want int
	var end *Breakpoint
	if prev != nil {
		want, end = refStablePrefix(t, st.Tokenizer, prev.Messages, resp.Messages)
		// The earlier call wrote the cache up to its next breakpoint: no
		// more of it is read.
		if p := prev.Stats; p.writeEndKnown && want > p.writeEnd {
			want, end = p.writeEnd, p.NextCacheBreakpoint
		}
	}
	if st.StablePrefixTokens != want {
		t.Fatalf("%s: stable_prefix_tokens %d, the reference %d", what, st.StablePrefixTokens, want)
	}
	if !reflect.DeepEqual(st.CacheBreakpoint, end) {
		t.Fatalf("%s: cache breakpoint %+v, the reference %+v", what, st.CacheBreakpoint, end)
	}
	written := st.TokensAfter - want
	if st.writeEndKnown {
		written = max(st.writeEnd, want) - want
	}
	if st.CacheWriteTokens != written || st.CacheWriteTokens+st.UncachedTokens != st.TokensAfter-want || st.StablePrefixTokens > st.TokensAfter {
		t.Fatalf("%s: %d tokens, %d stable, %d written, %d fresh", what, st.TokensAfter, want, st.CacheWriteTokens, st.UncachedTokens)
	}
}

// withSnapshotsOnlyOn returns turns with every memory snapshot removed but
// that of turns[keep], as a client that follows Turn.memory's contract sends
// them.
func withSnapshotsOnlyOn(turns []Turn, keep int) []Turn {
	out := make([]Turn, len(turns))
	for i, t := range turns {
		if i != keep {
			t.Memory, t.HasMemory = nil, false
		}
		out[i] = t
	}
	return out
}

// turnStrategies are the strategies that read turns, measured over the
// corpus.
var turnStrategies = []string{"full", "single-user-coalesced", "cache-stable"}

// TestStablePrefixCorpus checks stable_prefix_tokens and the cache
// breakpoint of every call of every run of the corpus, for every turn
// strategy, against the reference computed from the previous call's actual
// response; and that the messages do not depend on any memory snapshot but
// the request's memory.
func TestStablePrefixCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no traces", err)
	}
	files = sampleForShort(files)
	unknown := 0
	rem := NewRemembered(memo.New(256 << 20)) // as the server runs them: each text counted once
	for _, file := range files {
		tr := loadTrace(t, file)
		for _, name := range turnStrategies {
			st, err := Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			var prev *Response
			for i := range len(tr.turns) + 1 {
				req := tr.request(i)
				req.Turns = withSnapshotsOnlyOn(req.Turns, i-2)
				req.Options.Strategy = name
				req.Remembered = rem
				resp, err := st.Render(req)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s, %s, call %d", tr.name, name, i+1)
				if !resp.Stats.StablePrefixKnown && name == "single-user-coalesced" && i == 1 && returnTypeChanged(tr.memory[0], tr.memory[1]) {
					// The host's prelude holds a function the first
					// turn called, whose return type coalesced shows:
					// the request cannot say what the first call
					// rendered (memoryBeforeFirstTurn).
					unknown++
				} else {
					checkStablePrefix(t, what, prev, resp)
				}
				// Every snapshot sent: the same answer.
				all := *req
				all.Turns = tr.turns[:i]
				again, err := st.Render(&all)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(again, resp) {
					t.Fatalf("%s: the answer depends on memory snapshots of past turns", what)
				}
				prev = resp
			}
		}
	}
	t.Logf("%d calls with a stable prefix the request cannot rebuild (a run's second call after a prelude function was called)", unknown)
}

// returnTypeChanged reports whether a function of before has another return
// type in after.
func returnTypeChanged(before, after []Binding) bool {
	for _, b := range before {
		for _, a := range after {
			if a.Name == b.Name && b.Fn != nil && a.Fn != nil && a.Fn.ReturnType != b.Fn.ReturnType {
				return true
			}
		}
	}
	return false
}

// TestStablePrefixChat checks the chat strategies the same way, on random
// logs with random options and on every call of the recorded conversations
// and coding-agent sessions, each with one of the configurations of
// TestRealChat: a call is made before each assistant message.
func TestStablePrefixChat(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	type run struct {
		log  []ChatMessage
		opts Options
	}
	var runs []run
	for _, name := range []string{"loop-slice", "turn-aware", "clear-tool-results", "token-budget"} {
		for range 60 {
			runs = append(runs, run{randomChatLog(r), randomChatOptions(r, name)})
		}
	}
	// Each recorded conversation with one of the configurations in turn:
	// the reference tokenizes whole prompts, and every pairing would take
	// minutes.
	configs := chatEvalConfigs()
	for i, c := range append(loadRealChat(t), codingSessions()...) {
		if testing.Short() {
			break // about 13 s
		}
		runs = append(runs, run{c.messages, configs[i%len(configs)].opts})
	}
	rem := NewRemembered(memo.New(256 << 20))
	calls := 0
	for _, ru := range runs {
		st, err := Lookup(ru.opts.Strategy)
		if err != nil {
			t.Fatal(err)
		}
		h := ru.log
		for i, m := range h {
			if m.Role != RoleAssistant {
				continue
			}
			resp, err := st.Render(&Request{History: h[:i], Options: ru.opts, Remembered: rem})
			if err != nil {
				continue // a random budget can be too small
			}
			calls++
			what := fmt.Sprintf("%s, call before message %d of\n%s", ru.opts.Strategy, i, formatLog(h))
			prev, ok := earlierResponse(st, h[:i], ru.opts)
			if !ok {
				if resp.Stats.StablePrefixKnown || resp.Stats.StablePrefixNote == "" {
					t.Fatalf("%s: the earlier call does not render, yet the stable prefix is known", what)
				}
				continue
			}
			checkStablePrefix(t, what, prev, resp)
		}
	}
	t.Logf("%d chat calls checked", calls)
}

// earlierResponse renders the history cut before its last assistant
// message: nil when there is none, false when it does not render.
func earlierResponse(st Strategy, h []ChatMessage, opts Options) (*Response, bool) {
	for j := len(h) - 1; j >= 0; j-- {
		if h[j].Role == RoleAssistant {
			resp, err := st.Render(&Request{History: h[:j], Options: opts})
			return resp, err == nil
		}
	}
	return nil, true
}

// TestCommonTokens compares commonTokens with tokenizing both texts whole,
// on pairs of texts built to share a prefix and differ around the places
// where the pre-tokenizers decide: line breaks, spaces, slashes, digits,
// letters of several scripts.
func TestCommonTokens(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	parts := []string{"\n", "\n\n", " ", "  ", "/", "//", "a", "ab", "A", "Ab", "1", "123", "é", "中文", ";;", "(", ")", "'s", "\t", ":", "x\n", " \n", "data/", "\r\n"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		return b.String()
	}
	for _, tokenizer := range []string{"o200k_base", "cl100k_base"} {
		enc, _, err := codec(tokenizer)
		if err != nil {
			t.Fatal(err)
		}
		for range 3000 {
			common := text(r.IntN(12))
			a, b := common+text(r.IntN(6)), common+text(r.IntN(6))
			if a == b {
				continue
			}
			ta, tb := enc.Tokens(a), enc.Tokens(b)
			want, bytes := 0, 0
			for want < len(ta) && want < len(tb) && ta[want] == tb[want] {
				bytes += len(ta[want])
				want++
			}
			gotTokens, gotBytes, err := commonTokens(nil, tokenizer, a, b)
			if err != nil {
				t.Fatal(err)
			}
			if gotTokens != want || gotBytes != bytes {
				t.Fatalf("%s: %q against %q: %d tokens over %d bytes, whole texts give %d over %d", tokenizer, a, b, gotTokens, gotBytes, want, bytes)
			}
		}
	}
}

// A role boundary is part of the prompt: the same text split over two
// messages is a different prompt from the point where the split is.
func TestStablePrefixRoleBoundaries(t *testing.T) {
	tok := DefaultTokenizer
	sys := ChatMessage{Role: RoleSystem, Content: "You are terse."}
	sysTokens, _ := CountTokens(tok, sys.Content)
	cases := []struct {
		name       string
		prev, cur  []ChatMessage
		wantTokens int
		wantEnd    *Breakpoint
	}{
		{"appended", []ChatMessage{sys, {Role: RoleUser, Content: "hello"}}, []ChatMessage{sys, {Role: RoleUser, Content: "hello"}, {Role: RoleAssistant, Content: "hi"}},
			sysTokens + 1, &Breakpoint{1, 5}},
		{"split into two messages", []ChatMessage{sys, {Role: RoleUser, Content: "hello world"}}, []ChatMessage{sys, {Role: RoleUser, Content: "hello"}, {Role: RoleUser, Content: " world"}},
			sysTokens + 1, &Breakpoint{1, 5}},
		{"role changed", []ChatMessage{sys, {Role: RoleUser, Content: "hello"}}, []ChatMessage{sys, {Role: RoleAssistant, Content: "hello"}},
			sysTokens, &Breakpoint{0, 14}},
		{"reasoning differs", []ChatMessage{sys, {Role: RoleAssistant, Reasoning: "think", Content: "x"}}, []ChatMessage{sys, {Role: RoleAssistant, Reasoning: "thought", Content: "x"}},
			sysTokens, &Breakpoint{0, 14}},
		{"a tool call more", []ChatMessage{sys, {Role: RoleAssistant, Content: "x", ToolCalls: []ChatToolCall{{"1", "f", "{}"}}}}, []ChatMessage{sys, {Role: RoleAssistant, Content: "x", ToolCalls: []ChatToolCall{{"1", "f", "{}"}, {"2", "g", "{}"}}}},
			sysTokens + 1 + 1 + 1, &Breakpoint{1, 1}},
		{"tool call id differs", []ChatMessage{sys, {Role: RoleAssistant, Content: "x", ToolCalls: []ChatToolCall{{"1", "f", "{}"}}}}, []ChatMessage{sys, {Role: RoleAssistant, Content: "x", ToolCalls: []ChatToolCall{{"2", "f", "{}"}}}},
			sysTokens + 1, &Breakpoint{1, 1}},
		{"nothing shared", []ChatMessage{{Role: RoleUser, Content: "a"}}, []ChatMessage{{Role: RoleSystem, Content: "a"}}, 0, nil},
	}
	for _, c := range cases {
		n, end, err := stablePrefix(nil, counterFor(tok, ""), c.prev, c.cur)
		if err != nil {
			t.Fatal(err)
		}
		if n != c.wantTokens || !reflect.DeepEqual(end, c.wantEnd) {
			t.Errorf("%s: %d tokens ending at %+v, want %d at %+v", c.name, n, end, c.wantTokens, c.wantEnd)
		}
		if rn, rend := refStablePrefix(t, tok, c.prev, c.cur); rn != n || !reflect.DeepEqual(rend, end) {
			t.Errorf("%s: the reference gives %d at %+v", c.name, rn, rend)
		}
	}
}

// The earlier call of a turn strategy is rebuilt from the second-to-last
// turn's memory; without it the stats say so and bill every token fresh.
func TestStablePrefixUnknown(t *testing.T) {
	files, _ := filepath.Glob("testdata/traces/*.txtar")
	tr := loadTrace(t, files[0])
	req := &Request{Options: tr.opts, Turns: withSnapshotsOnlyOn(tr.turns[:3], -1), Memory: tr.memory[3]}
	resp, err := coalesced{}.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	st := resp.Stats
	if st.StablePrefixKnown || st.StablePrefixTokens != 0 || st.CacheWriteTokens != 0 || st.BilledTokens != float64(st.TokensAfter) || st.CacheBreakpoint != nil {
		t.Errorf("without the snapshot: %+v", st)
	}
	if !strings.Contains(st.StablePrefixNote, "turns[1].memory") {
		t.Errorf("the note %q does not name turns[1].memory", st.StablePrefixNote)
	}
	// An empty memory that was sent is known.
	req.Turns = withSnapshotsOnlyOn(tr.turns[:3], 1)
	req.Turns[1].Memory = nil
	resp, err = coalesced{}.Render(req)
	if err != nil || !resp.Stats.StablePrefixKnown {
		t.Errorf("an empty snapshot sent: %+v, %v", resp.Stats, err)
	}
	// The first call has nothing to read and writes everything.
	req = &Request{Options: tr.opts}
	resp, err = coalesced{}.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	st = resp.Stats
	if !st.StablePrefixKnown || st.StablePrefixTokens != 0 || st.CacheWriteTokens != st.TokensAfter || st.BilledTokens != 1.25*float64(st.TokensAfter) {
		t.Errorf("first call: %+v", st)
	}
}

// With turns_left given, the earlier call had one more turn left: full's
// history then stays the same from call to call.
func TestStablePrefixTurnsLeftCountsDown(t *testing.T) {
	files, _ := filepath.Glob("testdata/traces/*.txtar")
	tr := loadTrace(t, files[0])
	var prev *Response
	for i := range 4 {
		req := &Request{Options: tr.opts, Turns: tr.turns[:i]}
		req.Options.TurnsLeft, req.Options.TurnsLeftSet = 10-i, true
		resp, err := full{}.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		checkStablePrefix(t, fmt.Sprintf("call %d", i+1), prev, resp)
		if prev != nil && resp.Stats.StablePrefixTokens != prev.Stats.TokensAfter {
			t.Errorf("call %d: %d of the earlier call's %d tokens stable", i+1, resp.Stats.StablePrefixTokens, prev.Stats.TokensAfter)
		}
		prev = resp
	}
}

// A run's second call is rebuilt from the memory after the first turn
// without what that turn defined: the host's prelude. A prelude function
// the turn called has a return type it did not have before, so a strategy
// that shows it (single-user-coalesced) cannot rebuild the first call and
// says so; cache-stable, which shows the host's functions without it, and
// full, which shows no memory, can.
func TestStablePrefixFirstCallPrelude(t *testing.T) {
	prelude := []Binding{
		{Name: "fetch", Fn: &Function{Params: []string{"n"}, Docstring: "Page n"}},
		{Name: "limit", Value: lisp.Int(3)},
	}
	called := slices.Clone(prelude)
	called[0].Fn = &Function{Params: []string{"n"}, Docstring: "Page n", ReturnType: "map[2]"}
	after := append(slices.Clone(called), Binding{Name: "items", Value: lisp.NewVector([]lisp.Value{lisp.String("a")}), Turn: 1})
	opts, err := Normalize(RawOptions{Mission: "List the items.", Tools: []ToolSpec{{Name: "page", Signature: "(n :int) -> :map"}}})
	if err != nil {
		t.Fatal(err)
	}
	turn := Turn{Number: 1, Program: "(def items (fetch 1))", Result: lisp.Nil, Defined: []string{"items"}, Success: true,
		ToolCalls: []ToolCall{{Name: "page", Args: lisp.Int(1), Result: lisp.Nil}}, Memory: after, HasMemory: true}
	for _, name := range turnStrategies {
		st, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		first, err := st.Render(&Request{Options: opts, Memory: prelude})
		if err != nil {
			t.Fatal(err)
		}
		second, err := st.Render(&Request{Options: opts, Memory: after, Turns: []Turn{turn}})
		if err != nil {
			t.Fatal(err)
		}
		if name == "single-user-coalesced" {
			if st := second.Stats; st.StablePrefixKnown || !strings.Contains(st.StablePrefixNote, "fetch") || st.BilledTokens != float64(st.TokensAfter) {
				t.Errorf("%s: a called prelude function's return type is not in the request, yet %+v", name, st)
			}
			continue
		}
		checkStablePrefix(t, name, first, second)
	}
	// Without a return type, the prelude is rebuilt exactly.
	uncalled := append(slices.Clone(prelude), after[2])
	turn.Memory = uncalled
	first, err := coalesced{}.Render(&Request{Options: opts, Memory: prelude})
	if err != nil {
		t.Fatal(err)
	}
	second, err := coalesced{}.Render(&Request{Options: opts, Memory: uncalled, Turns: []Turn{turn}})
	if err != nil {
		t.Fatal(err)
	}
	checkStablePrefix(t, "single-user-coalesced, prelude not called", first, second)
	if second.Stats.StablePrefixTokens == 0 {
		t.Error("the stable prefix does not reach the prelude")
	}
}

// sampleForShort keeps every third item of a corpus (traces,
// conversations) under -short, so the inner loop still sees written and
// recorded ones; without -short the whole corpus runs.
func sampleForShort[T any](files []T) []T {
	if !testing.Short() {
		return files
	}
	var kept []T
	for i, f := range files {
		if i%3 == 0 {
			kept = append(kept, f)
		}
	}
	return kept
}
