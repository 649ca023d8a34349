package strategies

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/internal/testenv"
)

// TestRealChat runs every chat strategy on every LLM call of every
// conversation of the evaluation set: the recorded conversations of
// testdata/realchat (tau-bench's airline agent, pydantic-ai's recordings of
// 17 models), the recorded coding-agent sessions of testdata/real-coding and
// the generated ones (codingSessions). A
// call is a prefix of a conversation that ends right before one of its
// assistant messages: what the agent sent to get that message.
//
// Every output must be a request both providers accept (checked here by
// providerRules and, over all outputs at once, by the independent
// testdata/provider_rules.py), never empty, and hold the user's request
// (the most recent user message) unless the caller chose window_only.
// Priced with the product's cost model (prefix.go, bill.go), each
// strategy's bill over a source, with prompt caching (cache reads at 0.1 of
// a fresh token, writes at 1 and at Anthropic's 1.25), must not exceed the
// bill of sending the raw history, and must be below it wherever the
// strategy sent fewer tokens. go test -run TestRealChat -v prints the table
// docs/CHAT_STRATEGIES.md shows (-short runs a third of the corpus).
func TestRealChat(t *testing.T) {
	convs := sampleForShort(append(loadRealChat(t), codingSessions()...))
	convs = append(convs, loadRealCoding(t)...) // few and long: whole under -short too
	rem := NewRemembered(memo.New(256 << 20))
	pricings := []Pricing{{Name: "read 0.1, write 1", ReadRate: 0.1, WriteRate: 1}, {Name: "read 0.1, write 1.25", ReadRate: 0.1, WriteRate: 1.25}}
	var sources []string
	for _, c := range convs {
		if !slices.Contains(sources, c.source) {
			sources = append(sources, c.source)
		}
	}
	totals := map[string]map[string]*evalTotals{} // source -> config -> totals
	for _, src := range sources {
		totals[src] = map[string]*evalTotals{}
	}
	var outputs outputLog
	configs := chatEvalConfigs()
	for _, c := range convs {
		raw := totals[c.source]["raw history"]
		if raw == nil {
			raw = &evalTotals{}
			totals[c.source]["raw history"] = raw
		}
		if err := raw.addRaw(c, rem, pricings); err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		for _, cfg := range configs {
			tot := totals[c.source][cfg.label]
			if tot == nil {
				tot = &evalTotals{}
				totals[c.source][cfg.label] = tot
			}
			if err := tot.addStrategy(c, cfg, rem, pricings, &outputs); err != nil {
				t.Errorf("%s %s: %v", c.id, cfg.label, err)
			}
		}
	}
	outputs.check(t)

	labels := []string{"raw history"}
	for _, cfg := range configs {
		labels = append(labels, cfg.label)
	}
	for _, src := range sources {
		t.Logf("\n%s", evalTable(src, labels, totals[src], pricings))
		raw := totals[src]["raw history"]
		for _, label := range labels[1:] {
			tot := totals[src][label]
			for p := range pricings {
				switch {
				case tot.bill[p] > raw.bill[p]+tot.allowance[p]:
					t.Errorf("%s, %s: billed %.0f with %s, more than the raw history's %.0f", src, label, tot.bill[p], pricings[p].Name, raw.bill[p])
				case tot.sent < raw.sent && tot.bill[p] >= raw.bill[p]:
					t.Errorf("%s, %s: sends %d of %d tokens but bills %.0f with %s, not less than the raw history's %.0f", src, label, tot.sent, raw.sent, tot.bill[p], pricings[p].Name, raw.bill[p])
				}
			}
		}
	}
}

// chatEvalConfig is one strategy with its options, as the table shows it.
type chatEvalConfig struct {
	label string
	opts  Options
}

func chatEvalConfigs() []chatEvalConfig {
	anthropic, _ := resolvePricing("anthropic", nil, nil)
	with := func(strategy string, set func(*Options)) Options {
		o := chatDefaults()
		o.Strategy, o.Pricing = strategy, anthropic
		if set != nil {
			set(&o)
		}
		return o
	}
	windowOnly := func(o *Options) { o.WindowOnly = true }
	return []chatEvalConfig{
		{"loop-slice", with("loop-slice", nil)},
		{"loop-slice window_only", with("loop-slice", windowOnly)},
		{"turn-aware", with("turn-aware", nil)},
		{"turn-aware window_only", with("turn-aware", windowOnly)},
		{"clear-tool-results", with("clear-tool-results", nil)},
		{"clear-tool-results trigger 20000", with("clear-tool-results", func(o *Options) { o.Trigger = 20000 })},
		{"token-budget 8000", with("token-budget", func(o *Options) { o.MaxTokens = 8000 })},
		{"token-budget 32000", with("token-budget", func(o *Options) { o.MaxTokens = 32000 })},
		{"token-budget 64000", with("token-budget", func(o *Options) { o.MaxTokens = 64000 })},
	}
}

// evalTotals add up a configuration's calls on one source.
type evalTotals struct {
	calls  int
	sent   int        // tokens sent
	stable int        // tokens of the stable prefixes
	bill   [2]float64 // by pricing
	shares []float64  // per call: stable prefix / tokens sent
	// What the raw history lacks to be a request every provider accepts
	// (providerAllowance).
	allowance [2]float64
}

// add prices one call of tokens with a stable prefix of stable under each
// pricing. A strategy whose cache write ends at its next cache breakpoint
// (loop-slice's) gives that end in written: under a write premium the call
// writes up to there only (prefix.go, price). Its stable prefix is the one
// of the rendering under Anthropic's rates, capped at the earlier call's
// write end, so at writes 1 the call is billed as reading no more.
func (e *evalTotals) add(tokens, stable int, known bool, written *Stats, pricings []Pricing) {
	e.calls++
	e.sent += tokens
	e.stable += stable
	if tokens > 0 {
		e.shares = append(e.shares, float64(stable)/float64(tokens))
	}
	for p, pr := range pricings {
		st := Stats{TokensAfter: tokens, StablePrefixTokens: stable, StablePrefixKnown: known}
		if written != nil && pr.WriteRate > 1 {
			st.writeEnd, st.writeEndKnown = written.writeEnd, written.writeEndKnown
		}
		bill(&st, pr)
		e.bill[p] += st.BilledTokens
	}
}

// calls returns the length of each call's history: every position of an
// assistant message.
func (c chatConversation) calls() []int {
	var out []int
	for i, m := range c.messages {
		if m.Role == RoleAssistant {
			out = append(out, i)
		}
	}
	return out
}

// addRaw prices sending each call's history as it is.
func (e *evalTotals) addRaw(c chatConversation, rem *Remembered, pricings []Pricing) error {
	var prev []ChatMessage
	for _, n := range c.calls() {
		cur := c.messages[:n]
		tokens, err := rem.tokens(counterFor(DefaultTokenizer, ""), cur)
		if err != nil {
			return err
		}
		stable := 0
		if prev != nil {
			if stable, _, err = stablePrefix(rem, counterFor(DefaultTokenizer, ""), prev, cur); err != nil {
				return err
			}
		}
		e.add(tokens, stable, true, nil, pricings)
		prev = cur
	}
	return nil
}

// addStrategy runs cfg on each call of c and checks each output.
func (e *evalTotals) addStrategy(c chatConversation, cfg chatEvalConfig, rem *Remembered, pricings []Pricing, log *outputLog) error {
	s, err := Lookup(cfg.opts.Strategy)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range c.calls() {
		h := c.messages[:n]
		resp, err := s.Render(&Request{History: h, Options: cfg.opts, Remembered: rem})
		if err != nil {
			errs = append(errs, fmt.Errorf("call %d: %v", n, err))
			continue
		}
		e.add(resp.Stats.TokensAfter, resp.Stats.StablePrefixTokens, resp.Stats.StablePrefixKnown, &resp.Stats, pricings)
		for p, pr := range pricings {
			nudge, err := providerAllowance(h, resp, rem, pr)
			if err != nil {
				return err
			}
			e.allowance[p] += nudge
		}
		if !resp.Stats.StablePrefixKnown {
			errs = append(errs, fmt.Errorf("call %d: the earlier call was not rebuilt: %s", n, resp.Stats.StablePrefixNote))
		}
		if err := checkProviderRules(resp.Messages); err != nil {
			errs = append(errs, fmt.Errorf("call %d: a provider would refuse the output: %v", n, err))
		}
		// No message twice, no prefill, the nudge last, no lead in front
		// of nothing.
		if err := checkProviderMoves(h, resp, &cfg.opts); err != nil {
			errs = append(errs, fmt.Errorf("call %d: %v", n, err))
		}
		if !cfg.opts.WindowOnly {
			if err := requestKept(h, resp); err != nil {
				errs = append(errs, fmt.Errorf("call %d: %v", n, err))
			}
		}
		log.add(fmt.Sprintf("%s/%s/%s/%d", c.source, c.id, cfg.label, n), resp.Messages)
		if len(errs) > 5 {
			break
		}
	}
	return errors.Join(errs...)
}

// requestKept checks that the output holds the user's request, found here
// without the strategies' code: the most recent user message that says
// something and is not automation (source system). A history without one
// gets the synthetic nudge.
func requestKept(h []ChatMessage, resp *Response) error {
	for i := len(h) - 1; i >= 0; i-- {
		m := h[i]
		if m.Role != RoleUser || m.Source == SourceSystem || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if !slices.ContainsFunc(resp.Messages, func(o ChatMessage) bool { return o.Role == RoleUser && o.Content == m.Content }) {
			return fmt.Errorf("the user's request (history[%d]) is not in the output", i)
		}
		if resp.Stats.SyntheticNudge {
			return fmt.Errorf("a nudge was sent though the history holds the request history[%d]", i)
		}
		return nil
	}
	if !resp.Stats.SyntheticNudge {
		return errors.New("the history holds no user message and the output no nudge")
	}
	return nil
}

// evalTable writes a source's table: per configuration the calls, the tokens
// sent, the bill under each pricing (and each as a share of the raw
// history's) and the stable prefix's share of the tokens sent.
func evalTable(src string, labels []string, totals map[string]*evalTotals, pricings []Pricing) string {
	raw := totals["raw history"]
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d calls)\n\n", src, raw.calls)
	b.WriteString("| strategy | tokens sent | billed, reads 0.1, writes 1 | billed, reads 0.1, writes 1.25 | stable prefix (all calls) | stable prefix, median call | stable prefix, 10th percentile call |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, label := range labels {
		tot := totals[label]
		fmt.Fprintf(&b, "| %s | %s (%.2f) |", label, thousands(tot.sent), float64(tot.sent)/float64(raw.sent))
		for p := range pricings {
			fmt.Fprintf(&b, " %s (%.2f) |", thousands(int(tot.bill[p]+0.5)), tot.bill[p]/raw.bill[p])
		}
		shares := slices.Clone(tot.shares)
		sort.Float64s(shares)
		quantile := func(q float64) float64 {
			if len(shares) == 0 {
				return 0
			}
			return shares[int(q*float64(len(shares)-1))]
		}
		fmt.Fprintf(&b, " %.0f%% | %.0f%% | %.0f%% |\n", 100*float64(tot.stable)/float64(max(tot.sent, 1)), 100*quantile(0.5), 100*quantile(0.1))
	}
	return b.String()
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// realChatFile is a conversation of testdata/realchat as stored.
type realChatFile struct {
	ID       string `json:"id"`
	Source   string `json:"source"`
	Messages []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
		Reasoning  string `json:"reasoning"`
	} `json:"messages"`
}

// skipRealCorpusUnderRace skips, under the race detector, a test that
// runs the strategies over the recorded conversations and runs: it works
// on one goroutine, and the strategies start none and share nothing, so
// the detector has nothing to find there, while its instrumentation made
// these tests most of the race run's time. make test runs them (and
// coalesced_test.go's concurrent callers run under the detector).
func skipRealCorpusUnderRace(t testing.TB) {
	t.Helper()
	if raceEnabled {
		t.Skip("the recorded corpus on one goroutine: runs without -race (make test)")
	}
}

// loadRealChat reads the recorded conversations.
func loadRealChat(t testing.TB) []chatConversation {
	skipRealCorpusUnderRace(t)
	return loadConversations(t, "testdata/realchat/*/*.json", func(data []byte) (chatConversation, error) {
		var rc realChatFile
		if err := json.Unmarshal(data, &rc); err != nil {
			return chatConversation{}, err
		}
		c := chatConversation{source: rc.Source, id: rc.ID}
		for _, m := range rc.Messages {
			cm := ChatMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Reasoning: m.Reasoning}
			for _, tc := range m.ToolCalls {
				cm.ToolCalls = append(cm.ToolCalls, ChatToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
			}
			c.messages = append(c.messages, cm)
		}
		return c, nil
	})
}

// realCodingFile is a session of testdata/real-coding: an OpenAI Chat
// Completions request body, as the agent would have sent its next call.
type realCodingFile struct {
	ID       string `json:"id"`
	Source   string `json:"source"`
	Messages []struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
}

// loadRealCoding reads the recorded coding-agent sessions
// (testdata/real-coding/README.md).
func loadRealCoding(t testing.TB) []chatConversation {
	skipRealCorpusUnderRace(t)
	return loadConversations(t, "testdata/real-coding/*.json", func(data []byte) (chatConversation, error) {
		var rc realCodingFile
		if err := json.Unmarshal(data, &rc); err != nil {
			return chatConversation{}, err
		}
		c := chatConversation{source: rc.Source, id: rc.ID}
		for _, m := range rc.Messages {
			cm := ChatMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
			for _, tc := range m.ToolCalls {
				cm.ToolCalls = append(cm.ToolCalls, ChatToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
			c.messages = append(c.messages, cm)
		}
		return c, nil
	})
}

// loadConversations reads every file pattern matches with decode.
func loadConversations(t testing.TB, pattern string, decode func([]byte) (chatConversation, error)) []chatConversation {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded conversations match %s (%v)", pattern, err)
	}
	out := make([]chatConversation, 0, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := decode(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, c)
	}
	return out
}

// outputLog collects every output for the independent checker, each
// distinct message once.
type outputLog struct {
	index    map[messageKey]int
	messages []wireMessage
	requests []loggedRequest
}

type messageKey struct {
	role, content, toolCallID, name, calls string
}

// wireMessage is a message as the wire's JSON form writes it.
type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content,omitempty"`
	ToolCalls  []wireToolCall `json:"toolCalls,omitempty"`
	ToolCallID string         `json:"toolCallId,omitempty"`
	Name       string         `json:"name,omitempty"`
}

type wireToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type loggedRequest struct {
	Label    string `json:"label"`
	Messages []int  `json:"messages"`
}

func (l *outputLog) add(label string, msgs []ChatMessage) {
	if l.index == nil {
		l.index = map[messageKey]int{}
	}
	req := loggedRequest{Label: label, Messages: make([]int, len(msgs))}
	for i, m := range msgs {
		var calls strings.Builder
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&calls, "%q %q %q;", tc.ID, tc.Name, tc.Arguments)
		}
		k := messageKey{m.Role, m.Content, m.ToolCallID, m.Name, calls.String()}
		n, ok := l.index[k]
		if !ok {
			w := wireMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID, Name: m.Name}
			for _, tc := range m.ToolCalls {
				w.ToolCalls = append(w.ToolCalls, wireToolCall(tc))
			}
			n = len(l.messages)
			l.messages = append(l.messages, w)
			l.index[k] = n
		}
		req.Messages[i] = n
	}
	l.requests = append(l.requests, req)
}

// check runs testdata/provider_rules.py over every output logged, as a
// subtest: where python3 is not run (-short, or not installed) that
// subtest skips and the caller's own checks still count.
func (l *outputLog) check(t *testing.T) {
	t.Run("provider_rules.py", func(t *testing.T) {
		out, err := l.runScript(t)
		if err != nil {
			t.Fatalf("provider_rules.py: %v\n%s", err, out)
		}
		want := fmt.Sprintf("%d requests accepted by both", len(l.requests))
		if !strings.Contains(out, want) {
			t.Fatalf("provider_rules.py did not report %q:\n%s", want, out)
		}
	})
}

// runScript runs testdata/provider_rules.py over the outputs logged.
func (l *outputLog) runScript(t *testing.T) (string, error) {
	python := testenv.Program(t, "/usr/bin/python3", "the independent provider-rules check needs it (Debian: apt-get install python3)")
	file := filepath.Join(t.TempDir(), "outputs.json")
	data, err := json.Marshal(map[string]any{"messages": l.messages, "requests": l.requests})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "testdata/provider_rules.py", file).CombinedOutput()
	return string(out), err
}

// TestChatNextCacheBreakpoint: the next call of a recorded conversation
// sends again what a chat strategy's next_cache_breakpoint marks, on at
// least the share of calls docs/STRATEGIES.md gives for the strategy:
// nearly always for the strategies that drop or clear in steps, less
// often for the ones that slice the history anew on each call.
func TestChatNextCacheBreakpoint(t *testing.T) {
	convs := sampleForShort(append(loadRealChat(t), codingSessions()...))
	least := map[string]float64{ // the share of calls, measured on the whole corpus, less a margin
		"loop-slice": 0.95, "loop-slice window_only": 0.15, "turn-aware": 0.55, "turn-aware window_only": 0.30,
		"clear-tool-results": 0.98, "clear-tool-results trigger 20000": 0.97, "token-budget 8000": 0.95, "token-budget 32000": 0.97,
	}
	rem := NewRemembered(memo.New(256 << 20)) // as the server runs them: each message counted once
	for _, cfg := range chatEvalConfigs() {
		s, err := Lookup(cfg.opts.Strategy)
		if err != nil {
			t.Fatal(err)
		}
		calls, kept := 0, 0
		for _, c := range convs {
			var prev *Response
			for _, n := range c.calls() {
				resp, err := s.Render(&Request{History: c.messages[:n], Options: cfg.opts, Remembered: rem})
				if err != nil {
					t.Fatalf("%s %s/%s call %d: %v", cfg.label, c.source, c.id, n, err)
				}
				if bp := resp.Stats.NextCacheBreakpoint; bp != nil {
					if bp.Offset != utf8.RuneCountInString(resp.Messages[bp.Message].Content) {
						t.Fatalf("%s: next_cache_breakpoint %+v is not the end of a message", cfg.label, *bp)
					}
				}
				if prev != nil && prev.Stats.NextCacheBreakpoint != nil {
					calls++
					upTo := prev.Stats.NextCacheBreakpoint.Message + 1
					if len(resp.Messages) >= upTo && reflect.DeepEqual(resp.Messages[:upTo], prev.Messages[:upTo]) {
						kept++
					}
				}
				prev = resp
			}
		}
		share := float64(kept) / float64(max(calls, 1))
		t.Logf("%-34s the next call sends the marked part again on %4d of %4d calls (%.1f%%)", cfg.label, kept, calls, 100*share)
		if share < least[cfg.label] {
			t.Errorf("%s: the next call sends the marked part again on %.3f of calls, below %.2f", cfg.label, share, least[cfg.label])
		}
	}
}
