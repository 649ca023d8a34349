package strategies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// summarizeConfig is a summarize configuration of TestSummarizeRecallRecorded
// and the summariser it runs with.
type summarizeConfig struct {
	label     string
	trigger   int
	summarise func(req []ChatMessage, header string) string
}

// userOnlySummary keeps what the user asked and nothing the tools
// returned: the lower bound of a model that summarises in prose and drops
// the values.
func userOnlySummary(req []ChatMessage, header string) string {
	var lines []string
	for _, m := range req[:len(req)-1] {
		if m.Role == RoleUser && !strings.HasPrefix(m.Content, header) {
			lines = append(lines, "user: "+truncateRunes(strings.Join(strings.Fields(m.Content), " "), 300))
		}
	}
	if len(lines) == 0 {
		return "(nothing the user said)"
	}
	return strings.Join(lines, "\n")
}

// taskOnlySummary keeps the task (the run's first user message) and
// nothing any turn returned: the lower bound of summarize-turns.
func taskOnlySummary(req []ChatMessage, header string) string {
	for _, m := range req[:len(req)-1] {
		if m.Role == RoleUser {
			if rest, ok := strings.CutPrefix(m.Content, header); ok {
				return strings.TrimSpace(rest)
			}
			return "task: " + truncateRunes(strings.Join(strings.Fields(m.Content), " "), 600)
		}
	}
	return "(no task)"
}

// summaryTotals add up what summarising cost on one source, besides the
// calls' own bills (recallTotals): the summary requests and the summaries
// the model wrote.
type summaryTotals struct {
	requests      int
	requestBill   float64 // the requests' input, priced as the calls are
	outputTokens  int     // the summaries' tokens, which the model writes
	summarisedTo  int     // tokens of the calls right after a summary
	summarisedOff int     // tokens of those calls' prompts before it
}

// TestSummarizeRecallRecorded measures evidence recall, tokens and bill of
// summarize on each call of the recorded conversations of testdata/realchat,
// call after call as an agent with a summariser makes them (a summary asked
// for on one call is written and sent with it, and with every call after
// it), next to the raw history and the strategies that drop or clear
// instead. The summarisers are deterministic: valueSummary keeps every value
// the covered messages hold (an upper bound for a model's summary),
// userOnlySummary only the user's words (a lower bound). The bill adds the
// summary requests' input; the summaries' own tokens, billed as output, are
// counted apart. go test -run TestSummarizeRecallRecorded -v prints the
// tables of docs/STRATEGIES.md; -short measures every fourth conversation.
func TestSummarizeRecallRecorded(t *testing.T) {
	convs := loadRealChat(t)
	if testing.Short() {
		convs = everyFourth(convs)
	}
	rem := NewRemembered(memo.New(256 << 20))
	base := chatDefaults()
	base.Pricing, _ = resolvePricing("anthropic", nil, nil)
	// The recorded conversations are short (taubench's calls send 3,000
	// tokens on average, at most about 6,000), so the thresholds are low
	// enough to be crossed; each is compared with the strategies that drop
	// (token-budget) or clear (clear-tool-results) at the same size.
	var others []chatEvalConfig
	var configs []summarizeConfig
	for _, size := range []int{2000, 4000} {
		budget, clear := base, base
		budget.Strategy, budget.MaxTokens = "token-budget", size
		clear.Strategy, clear.Trigger = "clear-tool-results", size
		others = append(others, chatEvalConfig{fmt.Sprintf("token-budget %d", size), budget}, chatEvalConfig{fmt.Sprintf("clear-tool-results trigger %d", size), clear})
		configs = append(configs,
			summarizeConfig{fmt.Sprintf("summarize %d, values kept", size), size, valueSummary},
			summarizeConfig{fmt.Sprintf("summarize %d, user's words only", size), size, userOnlySummary})
	}
	var summaries []*Summary // each configuration's summary so far in the conversation
	extra := map[string]map[string]*summaryTotals{}
	book := eachRecordedCall(t, convs, rem, base, func(c chatConversation, n int, h []ChatMessage, ev []Evidence, tot func(string) *recallTotals) {
		if extra[c.source] == nil {
			extra[c.source] = map[string]*summaryTotals{}
		}
		if n == firstCall(c) {
			summaries = make([]*Summary, len(configs))
		}
		for _, cfg := range others {
			resp, err := Render(&Request{History: h, Options: cfg.opts, Remembered: rem})
			if err != nil {
				t.Fatalf("%s %s call %d: %v", c.id, cfg.label, n, err)
			}
			tot(cfg.label).add(&resp.Stats, ev, resp.Messages)
		}
		for k, cfg := range configs {
			opts := base
			opts.Strategy, opts.SummaryTrigger, opts.SummaryKeep = summarizeName, cfg.trigger, DefaultSummaryKeep
			opts.SummaryPrompt, opts.SummaryHeader = DefaultSummaryPrompt, DefaultSummaryHeader
			resp, err := Render(&Request{History: h, Options: opts, Summary: summaries[k], Remembered: rem})
			if err != nil {
				t.Fatalf("%s %s call %d: %v", c.id, cfg.label, n, err)
			}
			if r := resp.SummaryRequest; r != nil {
				ex := extra[c.source][cfg.label]
				if ex == nil {
					ex = &summaryTotals{}
					extra[c.source][cfg.label] = ex
				}
				st := resp.Stats
				ex.requests++
				ex.requestBill += float64(st.SummaryRequestPrefixTokens)*opts.Pricing.ReadRate + float64(st.SummaryRequestTokens-st.SummaryRequestPrefixTokens)
				ex.summarisedOff += st.TokensAfter
				summaries[k] = &Summary{Text: cfg.summarise(r.Prompt(resp.Messages), opts.SummaryHeader), Through: r.Through, AskedAt: r.AskedAt, Digest: r.Digest}
				if resp, err = Render(&Request{History: h, Options: opts, Summary: summaries[k], Remembered: rem}); err != nil {
					t.Fatalf("%s %s call %d, with the summary: %v", c.id, cfg.label, n, err)
				}
				ex.outputTokens += resp.Stats.SummaryTokens
				ex.summarisedTo += resp.Stats.TokensAfter
			}
			tot(cfg.label).add(&resp.Stats, ev, resp.Messages)
		}
	})
	sources, totals := book.sources, book.totals
	labels := []string{"raw history"}
	for _, cfg := range others {
		labels = append(labels, cfg.label)
	}
	for _, cfg := range configs {
		labels = append(labels, cfg.label)
	}
	for _, src := range sources {
		var b strings.Builder
		b.WriteString(recallTable(src, "raw history", labels, totals[src]))
		b.WriteString("\n| summarize | summaries | prompt before -> after a summary (mean tokens) | requests' input bill | summaries' output tokens | bill with requests (vs raw history) |\n|---|---|---|---|---|---|\n")
		for _, cfg := range configs {
			ex := extra[src][cfg.label]
			if ex == nil {
				fmt.Fprintf(&b, "| %s | 0 | | | | |\n", cfg.label)
				continue
			}
			all := totals[src][cfg.label].bill + ex.requestBill
			fmt.Fprintf(&b, "| %s | %d | %s -> %s | %s | %s | %s (%.2f) |\n", cfg.label, ex.requests,
				thousands(ex.summarisedOff/ex.requests), thousands(ex.summarisedTo/ex.requests),
				thousands(int(ex.requestBill+0.5)), thousands(ex.outputTokens), thousands(int(all+0.5)), all/totals[src]["raw history"].bill)
		}
		t.Logf("\n%s", b.String())
		// The summariser that keeps every value keeps nearly all evidence;
		// the one that keeps none loses what the dropped messages held.
		kept, lost := totals[src]["summarize 2000, values kept"].mean(), totals[src]["summarize 2000, user's words only"].mean()
		if kept < lost || kept < 0.999 {
			t.Errorf("%s: recall %.3f with the values kept (want all of them), %.3f with none", src, kept, lost)
		}
	}
}

// TestSummarizeTurnsRecallRecorded measures summarize-turns on the recorded
// runs of a real model (testdata/traces/real-*.txtar) as
// TestSummarizeRecallRecorded does on chat conversations, next to the turn
// strategies: call after call, a summary asked for on one turn written by
// the deterministic summariser and sent with every later call.
func TestSummarizeTurnsRecallRecorded(t *testing.T) {
	anthropic, _ := resolvePricing("anthropic", nil, nil)
	labels := []string{"full", "single-user-coalesced", "cache-stable"}
	configs := []summarizeConfig{
		{"summarize-turns 4000, values kept", 4000, valueSummary},
		{"summarize-turns 4000, task only", 4000, taskOnlySummary},
		{"summarize-turns 8000, values kept", 8000, valueSummary},
	}
	totals := map[string]*recallTotals{}
	extra := map[string]*summaryTotals{}
	for _, l := range labels {
		totals[l] = &recallTotals{}
	}
	for _, cfg := range configs {
		labels = append(labels, cfg.label)
		totals[cfg.label], extra[cfg.label] = &recallTotals{}, &summaryTotals{}
	}
	var summaries []*Summary // each configuration's summary so far in the run
	runs := eachRecordedTurn(t, func(tr *trace, i int, req *Request, full *Response, ev []Evidence) {
		if i == 0 {
			summaries = make([]*Summary, len(configs))
		}
		for _, name := range labels[:3] {
			resp := full
			if name != "full" {
				resp = renderTurn(t, tr, i, req, name, ProgramFenced)
			}
			totals[name].add(&resp.Stats, ev, resp.Messages)
		}
		for k, cfg := range configs {
			sreq := *req
			o := &sreq.Options
			o.Strategy, o.SummaryTrigger, o.SummaryKeep = summarizeTurnsName, cfg.trigger, DefaultSummaryKeep
			o.SummaryPrompt, o.SummaryHeader = DefaultSummaryPrompt, DefaultSummaryHeader
			sreq.Summary = summaries[k]
			resp, err := Render(&sreq)
			if err != nil {
				t.Fatalf("%s turn %d %s: %v", tr.name, i+1, cfg.label, err)
			}
			if r := resp.SummaryRequest; r != nil {
				ex, st := extra[cfg.label], resp.Stats
				ex.requests++
				ex.requestBill += float64(st.SummaryRequestPrefixTokens)*anthropic.ReadRate + float64(st.SummaryRequestTokens-st.SummaryRequestPrefixTokens)
				ex.summarisedOff += st.TokensAfter
				summaries[k] = &Summary{Text: cfg.summarise(r.Prompt(resp.Messages), DefaultSummaryHeader), Through: r.Through, AskedAt: r.AskedAt, Digest: r.Digest}
				sreq.Summary = summaries[k]
				if resp, err = Render(&sreq); err != nil {
					t.Fatalf("%s turn %d %s, with the summary: %v", tr.name, i+1, cfg.label, err)
				}
				ex.outputTokens += resp.Stats.SummaryTokens
				ex.summarisedTo += resp.Stats.TokensAfter
			}
			totals[cfg.label].add(&resp.Stats, ev, resp.Messages)
		}
	})
	var b strings.Builder
	b.WriteString(recallTable(fmt.Sprintf("real PTC-Lisp runs (%d)", runs), "full", labels, totals))
	b.WriteString("\n| summarize-turns | summaries | prompt before -> after a summary (mean tokens) | requests' input bill | summaries' output tokens | bill with requests (vs full) |\n|---|---|---|---|---|---|\n")
	for _, cfg := range configs {
		ex := extra[cfg.label]
		if ex.requests == 0 {
			fmt.Fprintf(&b, "| %s | 0 | | | | |\n", cfg.label)
			continue
		}
		all := totals[cfg.label].bill + ex.requestBill
		fmt.Fprintf(&b, "| %s | %d | %s -> %s | %s | %s | %s (%.2f) |\n", cfg.label, ex.requests,
			thousands(ex.summarisedOff/ex.requests), thousands(ex.summarisedTo/ex.requests),
			thousands(int(ex.requestBill+0.5)), thousands(ex.outputTokens), thousands(int(all+0.5)), all/totals["full"].bill)
	}
	t.Logf("\n%s", b.String())
	if kept, lost := totals[configs[0].label].mean(), totals[configs[1].label].mean(); kept < lost {
		t.Errorf("recall %.3f with the values kept, below %.3f with the task only", kept, lost)
	}
}
