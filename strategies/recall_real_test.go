package strategies

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// recallTotals add up one configuration's calls on one source.
type recallTotals struct {
	calls    int
	tokens   int
	bill     float64
	evidence int     // calls with evidence
	losing   int     // of them, calls that lost some
	recall   float64 // sum of the recall of the calls with evidence
}

func (r *recallTotals) add(st *Stats, ev []Evidence, sent []ChatMessage) {
	r.calls++
	r.tokens += st.TokensAfter
	r.bill += st.BilledTokens
	if len(ev) == 0 {
		return
	}
	rc := MeasureRecall(ev, sent)
	r.evidence++
	r.recall += rc.Share()
	if rc.Kept < rc.Evidence {
		r.losing++
	}
}

func (r *recallTotals) mean() float64 {
	if r.evidence == 0 {
		return 1
	}
	return r.recall / float64(r.evidence)
}

// recallFloor is a configuration's recall on a source as measured when the
// figures of docs/STRATEGIES.md were recorded, on the whole corpus and on
// the sample -short runs, rounded down.
type recallFloor struct{ whole, sample float64 }

// chatRecallFloors: source -> configuration -> floor.
var chatRecallFloors = map[string]map[string]recallFloor{
	// The generated coding-agent sessions (codingsessions_test.go): no
	// recorded long coding session is in the repository.
	"coding-agent": {
		"raw history":                      {1, 1},
		"loop-slice":                       {1, 1}, // 0.991 before notes listed the paths of a listing they cut; 1.000 before its notes showed 300 characters of a text result, not 500; 0.998 (sample 0.991) at 300, 1.000 at 250
		"loop-slice window_only":           {0.209, 0.208},
		"turn-aware":                       {0.996, 1},
		"turn-aware window_only":           {0.227, 0.255},
		"clear-tool-results":               {0.999, 1},     // 0.996 before cleared results listed their paths
		"clear-tool-results trigger 20000": {0.999, 0.999}, // 0.960
		"token-budget 8000":                {0.975, 0.999}, // 0.647 before the ledger listed values
		"token-budget 32000":               {0.999, 0.999}, // 0.925
		"token-budget 64000":               {0.999, 1},     // 0.984
		"clear-tool-results trigger 8000":  {0.996, 0.986}, // 0.909
	},
	// Sessions of the same shapes from other seeds, held out when the
	// preview sizes and budgets were chosen.
	"coding-agent other seeds": {
		"raw history":                      {1, 1},
		"loop-slice":                       {0.999, 1}, // 0.981 before notes listed the paths of a listing they cut
		"loop-slice window_only":           {0.226, 0.198},
		"turn-aware":                       {1, 1},
		"turn-aware window_only":           {0.237, 0.212},
		"clear-tool-results":               {0.999, 1},
		"clear-tool-results trigger 20000": {0.999, 0.999}, // 0.945 before cleared results listed their paths
		"token-budget 8000":                {0.993, 0.999}, // 0.661 before the ledger listed values
		"token-budget 32000":               {0.999, 0.999}, // 0.938
		"token-budget 64000":               {0.999, 1},     // 0.992
		"clear-tool-results trigger 8000":  {0.997, 0.999}, // 0.904
	},
	// The recorded coding-agent sessions (testdata/real-coding), measured
	// whole under -short too. The bash agent's commands are new strings, so
	// few calls hold evidence (22 of its 325 calls): those sessions hold the
	// bills more than the recall. The window_only and 8000 floors were
	// 0.555, 0.666 and 0.888 over the first three sessions (144 calls);
	// the two longer sessions (75 and 106 calls) lowered them (8000 to
	// 0.863, and to 0.909 again once its notes kept a command's end). The
	// two Claude Code sessions (18 calls, 24 values) lowered loop-slice's
	// to 0.981 (an edit that copies 8 lines of the agent's own earlier
	// edit, which its note cut; 1.000 since notes keep the text a call
	// writes) and the window_only ones; token-budget at 8000 went from
	// 0.896 to 0.925 once notes kept a todo list's items.
	"real-coding": {
		"raw history":                      {1, 1},
		"loop-slice":                       {1, 1},
		"loop-slice window_only":           {0.370, 0.370},
		"turn-aware":                       {1, 1},
		"turn-aware window_only":           {0.444, 0.444},
		"clear-tool-results":               {1, 1},
		"clear-tool-results trigger 20000": {1, 1},
		"token-budget 8000":                {1, 1}, // 0.925 before the ledger listed values
		"token-budget 32000":               {1, 1},
		"token-budget 64000":               {1, 1},
		"clear-tool-results trigger 8000":  {1, 1},
	},
	"pydantic-ai-cassettes": {
		"raw history":                      {1, 1},
		"loop-slice":                       {0.999, 1},
		"loop-slice window_only":           {1, 1},
		"turn-aware":                       {1, 1},
		"turn-aware window_only":           {1, 1},
		"clear-tool-results":               {1, 1},
		"clear-tool-results trigger 20000": {1, 1},
		"token-budget 8000":                {1, 1},
		"token-budget 32000":               {1, 1},
		"token-budget 64000":               {1, 1},
		"clear-tool-results trigger 8000":  {1, 1},
	},
	"taubench-gpt4o-airline": {
		"raw history":                      {1, 1},
		"loop-slice":                       {0.999, 1},
		"loop-slice window_only":           {0.577, 0.535},
		"turn-aware":                       {1, 1},
		"turn-aware window_only":           {0.769, 0.775},
		"clear-tool-results":               {1, 1},
		"clear-tool-results trigger 20000": {1, 1},
		"token-budget 8000":                {0.998, 1}, // 0.991 before the ledger listed values
		"token-budget 32000":               {1, 1},
		"token-budget 64000":               {1, 1},
		"clear-tool-results trigger 8000":  {1, 1},
	},
}

// turnRecallFloors: configuration -> floor, over the real PTC-Lisp runs.
var turnRecallFloors = map[string]recallFloor{
	"full":                  {0.865, 0.848},
	"single-user-coalesced": {0.951, 0.92},
	"cache-stable":          {0.981, 0.960},
}

// turnCutFloors: runs cut after k turns (their first k calls, runs of k
// turns or more) -> configuration -> floor.
var turnCutFloors = map[int]map[string]recallFloor{
	5:  {"full": {0.724, 0.7}, "single-user-coalesced": {1, 1}, "cache-stable": {1, 1}},
	10: {"full": {0.846, 0.827}, "single-user-coalesced": {0.938, 0.916}, "cache-stable": {0.982, 0.962}},
}

// turnBillCeilings: runs cut after k turns (0: whole runs) -> the most
// cache-stable may bill on the real runs, as a share of full's bill under
// anthropic, on the whole corpus and on the sample -short runs: the
// recorded figures rounded up, so that what keeps the recall does not creep
// back into the bill.
var turnBillCeilings = map[int]recallFloor{0: {0.545, 0.494}, 5: {0.665, 0.679}, 10: {0.586, 0.577}}

// recallChatConfigs are the configurations of TestRealChat and
// clear-tool-results at a trigger of 8,000 tokens, which the report shows
// too.
func recallChatConfigs() []chatEvalConfig {
	configs := chatEvalConfigs()
	o := configs[0].opts
	o.Strategy, o.Trigger = "clear-tool-results", 8000
	return append(configs, chatEvalConfig{"clear-tool-results trigger 8000", o})
}

// TestRecallRecorded measures evidence recall, tokens and bill of every
// chat strategy on each call (each assistant message with tool calls) of
// the recorded conversations of testdata/realchat and testdata/real-coding
// and of the generated coding-agent sessions (codingSessions), and of every
// turn
// strategy on each turn of the recorded runs of a real model
// (testdata/traces/real-*.txtar), and fails when a recall drops below the
// figure recorded in docs/STRATEGIES.md. -short measures a sample: every
// fourth conversation and run. go test -run TestRecallRecorded -v prints
// the tables.
func TestRecallRecorded(t *testing.T) {
	t.Run("chat", testChatRecallRecorded)
	t.Run("turns", testTurnRecallRecorded)
	t.Run("turns by pricing", testTurnRecallByPricing)
}

// pricingRecallFloors: pricing -> cache-stable's recall on the real
// PTC-Lisp runs under it. Before the summary kept its list of values under
// every pricing (and `none` re-based by size only), openai gave 0.957 and
// none 0.953.
var pricingRecallFloors = map[string]recallFloor{
	"anthropic":     {0.981, 0.960},
	"anthropic-1h":  {0.981, 0.960},
	"openai":        {0.980, 0.960},
	"openai-gpt4.1": {0.981, 0.960},
	"openai-gpt5":   {0.981, 0.960},
	"gemini":        {0.981, 0.960},
	"none":          {0.981, 0.960},
	// Anthropic's reads without its write premium (billedPricings).
	"anthropic-no-write-premium": {0.981, 0.960},
}

// testTurnRecallByPricing measures cache-stable's recall on the real runs
// under each pricing preset (and Anthropic's reads without its write
// premium): the pricing steers its re-bases and the
// summary's list, so what it keeps differs by pricing.
func testTurnRecallByPricing(t *testing.T) {
	totals := map[string]*recallTotals{}
	var names []string
	for _, p := range billedPricings(t) {
		name := p.Name
		names = append(names, name)
		totals[name] = &recallTotals{}
		eachRecordedTurn(t, func(tr *trace, i int, req *Request, _ *Response, ev []Evidence) {
			req.Options.Pricing = p
			resp := renderTurn(t, tr, i, req, "cache-stable", ProgramFenced)
			totals[name].add(&resp.Stats, ev, resp.Messages)
		})
	}
	checkFloors(t, "real PTC-Lisp runs, cache-stable by pricing", names, totals, pricingRecallFloors)
}

func testChatRecallRecorded(t *testing.T) {
	convs := append(loadRealChat(t), codingSessions()...)
	convs = append(convs, heldOutCodingSessions()...)
	if testing.Short() {
		convs = everyFourth(convs)
	}
	// The recorded coding sessions are few and long: -short measures them
	// whole too.
	convs = append(convs, loadRealCoding(t)...)
	rem := NewRemembered(memo.New(256 << 20))
	configs := recallChatConfigs()
	book := eachRecordedCall(t, convs, rem, configs[0].opts, func(c chatConversation, n int, h []ChatMessage, ev []Evidence, tot func(string) *recallTotals) {
		for _, cfg := range configs {
			resp, err := Render(&Request{History: h, Options: cfg.opts, Remembered: rem})
			if err != nil {
				t.Fatalf("%s %s call %d: %v", c.id, cfg.label, n, err)
			}
			tot(cfg.label).add(&resp.Stats, ev, resp.Messages)
		}
	})
	labels := []string{"raw history"}
	for _, cfg := range configs {
		labels = append(labels, cfg.label)
	}
	for _, src := range book.sources {
		t.Logf("\n%s", recallTable(src, "raw history", labels, book.totals[src]))
		checkFloors(t, src, labels, book.totals[src], chatRecallFloors[src])
		if testing.Short() && src != "real-coding" {
			continue // a sample of the source: its bill is not the recorded one
		}
		for label, most := range chatBillCeilings[src] {
			if got := book.totals[src][label].bill / book.totals[src]["raw history"].bill; got > most {
				t.Errorf("%s / %s: bills %.4f of the raw history's, above the recorded %.2f", src, label, got, most)
			}
		}
	}
}

// chatBillCeilings: source -> configuration -> the most it may bill as a
// share of the raw history's under anthropic, the recorded figure rounded
// up, so that what keeps the recall does not creep back into the bill. The
// recorded coding sessions are measured whole under -short too; the other
// sources only without it. loop-slice's figures are with its cache write
// ending at its next_cache_breakpoint (before, writing to its end: 0.527
// on the recorded coding sessions, 0.376 and 0.358 on the generated ones
// and the held-out seeds, 0.974 on tau-bench, 0.969 on pydantic-ai).
var chatBillCeilings = map[string]map[string]float64{
	"real-coding":              {"loop-slice": 0.495}, // 0.4943, 0.480 on the five bash sessions alone (0.527 and 0.514 writing to its end; 0.538 and 0.525 before its notes showed 250 characters of a text result, not 300, without line numbers; 0.58 and 0.562 at 500)
	"coding-agent":             {"loop-slice": 0.355}, // 0.3543
	"coding-agent other seeds": {"loop-slice": 0.338}, // 0.3376
	"taubench-gpt4o-airline":   {"loop-slice": 0.975}, // 0.9740
	"pydantic-ai-cassettes":    {"loop-slice": 0.97},  // 0.9695
}

// recallBook holds the totals of every configuration on every source.
type recallBook struct {
	totals  map[string]map[string]*recallTotals // source -> label -> totals
	sources []string                            // sorted
}

// eachRecordedCall calls fn on every call of convs (each assistant message
// with tool calls, after the history h before it), with the evidence of
// the call and the totals of its source by label, after adding the raw
// history's figures (billed with base's pricing) to the "raw history" row.
func eachRecordedCall(t *testing.T, convs []chatConversation, rem *Remembered, base Options, fn func(c chatConversation, n int, h []ChatMessage, ev []Evidence, tot func(label string) *recallTotals)) *recallBook {
	t.Helper()
	book := &recallBook{totals: map[string]map[string]*recallTotals{}}
	for _, c := range convs {
		if book.totals[c.source] == nil {
			book.totals[c.source] = map[string]*recallTotals{}
			book.sources = append(book.sources, c.source)
		}
		tot := func(label string) *recallTotals {
			if book.totals[c.source][label] == nil {
				book.totals[c.source][label] = &recallTotals{}
			}
			return book.totals[c.source][label]
		}
		for n, m := range c.messages {
			if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
				continue
			}
			h := c.messages[:n]
			ev := ChatEvidence(h, &c.messages[n])
			raw, err := RawHistory(&Request{History: h, Options: base, Remembered: rem})
			if err != nil {
				t.Fatal(err)
			}
			tot("raw history").add(&raw.Stats, ev, raw.Messages)
			fn(c, n, h, ev, tot)
		}
	}
	slices.Sort(book.sources)
	return book
}

func testTurnRecallRecorded(t *testing.T) {
	labels := []string{"full", "single-user-coalesced", "cache-stable"}
	totals := map[string]*recallTotals{}
	cuts := map[int]map[string]*recallTotals{} // runs cut after k turns
	for _, l := range labels {
		totals[l] = &recallTotals{}
	}
	for k := range turnCutFloors {
		cuts[k] = map[string]*recallTotals{}
		for _, l := range labels {
			cuts[k][l] = &recallTotals{}
		}
	}
	runs := eachRecordedTurn(t, func(tr *trace, i int, req *Request, full *Response, ev []Evidence) {
		for _, name := range labels {
			resp := full
			if name != "full" {
				resp = renderTurn(t, tr, i, req, name, ProgramFenced)
			}
			totals[name].add(&resp.Stats, ev, resp.Messages)
			for k := range cuts {
				if len(tr.turns) >= k && i < k {
					cuts[k][name].add(&resp.Stats, ev, resp.Messages)
				}
			}
		}
	})
	src := fmt.Sprintf("real PTC-Lisp runs (%d)", runs)
	t.Logf("\n%s", recallTable(src, "full", labels, totals))
	checkFloors(t, "PTC-Lisp", labels, totals, turnRecallFloors)
	checkBillCeiling(t, "real PTC-Lisp runs", totals, turnBillCeilings[0])
	for _, k := range slices.Sorted(maps.Keys(cuts)) {
		cut := fmt.Sprintf("real PTC-Lisp runs cut after %d turns", k)
		t.Logf("\n%s", recallTable(cut, "full", labels, cuts[k]))
		checkFloors(t, cut, labels, cuts[k], turnCutFloors[k])
		checkBillCeiling(t, cut, cuts[k], turnBillCeilings[k])
	}
}

// checkBillCeiling fails when cache-stable bills more than its ceiling, a
// share of full's bill.
func checkBillCeiling(t *testing.T, src string, totals map[string]*recallTotals, ceiling recallFloor) {
	t.Helper()
	most := ceiling.whole
	if testing.Short() {
		most = ceiling.sample
	}
	if most == 0 {
		t.Errorf("%s: no recorded bill to hold", src)
		return
	}
	if got := totals["cache-stable"].bill / totals["full"].bill; got > most {
		t.Errorf("%s: cache-stable bills %.4f of full's, above the recorded %.2f", src, got, most)
	}
}

// eachRecordedTurn calls fn on every turn of the recorded runs of a real
// model (testdata/traces/real-*.txtar; under -short every fourth run),
// with the turn's request (billed under anthropic), full's response in
// fenced form and the turn's evidence, measured on it. It returns the
// number of runs.
func eachRecordedTurn(t *testing.T, fn func(tr *trace, i int, req *Request, full *Response, ev []Evidence)) int {
	t.Helper()
	skipRealCorpusUnderRace(t)
	files, err := filepath.Glob("testdata/traces/real-*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no real runs in testdata/traces (%v)", err)
	}
	if testing.Short() {
		files = everyFourth(files)
	}
	rem := NewRemembered(memo.New(256 << 20))
	anthropic, _ := resolvePricing("anthropic", nil, nil)
	for _, f := range files {
		tr := loadTrace(t, f)
		for i := range tr.turns {
			req := tr.request(i)
			req.Remembered = rem
			req.Options.Pricing = anthropic
			full := renderTurn(t, &tr, i, req, "full", ProgramFenced)
			fn(&tr, i, req, full, TurnEvidence(tr.turns[i].Program, full.Messages, tr.memory[i]))
		}
	}
	return len(files)
}

// renderTurn renders turn i of tr with the strategy and program form given.
func renderTurn(t *testing.T, tr *trace, i int, req *Request, strategy, form string) *Response {
	t.Helper()
	req.Options.Strategy, req.Options.ProgramForm = strategy, form
	resp, err := Render(req)
	if err != nil {
		t.Fatalf("%s turn %d %s %s: %v", tr.name, i+1, strategy, form, err)
	}
	return resp
}

func everyFourth[T any](s []T) []T {
	var out []T
	for i, v := range s {
		if i%4 == 0 {
			out = append(out, v)
		}
	}
	return out
}

// checkFloors fails a configuration whose recall is below its floor.
func checkFloors(t *testing.T, src string, labels []string, totals map[string]*recallTotals, floors map[string]recallFloor) {
	t.Helper()
	for _, l := range labels {
		t.Logf("recall %s / %s: %.6f", src, l, totals[l].mean())
		f, ok := floors[l]
		if !ok {
			t.Errorf("%s, %s: no recorded recall to hold", src, l)
			continue
		}
		want := f.whole
		if testing.Short() {
			want = f.sample
		}
		if got := totals[l].mean(); got < want {
			t.Errorf("%s, %s: evidence recall %.4f, below the recorded %.3f", src, l, got, want)
		}
	}
}

// recallTable writes a source's figures as docs/STRATEGIES.md shows them.
func recallTable(src, baseline string, labels []string, totals map[string]*recallTotals) string {
	base := totals[baseline]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d calls, %d with evidence\n\n", src, base.calls, base.evidence)
	fmt.Fprintf(&b, "| strategy | evidence recall | calls losing evidence | tokens sent | bill, anthropic (vs %s) |\n|---|---|---|---|---|\n", baseline)
	for _, l := range labels {
		tot := totals[l]
		losing := 0.0
		if tot.evidence > 0 {
			losing = float64(tot.losing) / float64(tot.evidence)
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.0f%% | %s | %s (%.2f) |\n", l, tot.mean(), 100*losing, thousands(tot.tokens), thousands(int(tot.bill+0.5)), tot.bill/base.bill)
	}
	return b.String()
}

// firstCall is the index of the first call of c (its first assistant
// message with tool calls), or -1.
func firstCall(c chatConversation) int {
	return slices.IndexFunc(c.messages, func(m ChatMessage) bool { return m.Role == RoleAssistant && len(m.ToolCalls) > 0 })
}
