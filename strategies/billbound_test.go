package strategies

import (
	"fmt"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// providerAllowance is what the raw history of a call lacks to be a request
// every provider accepts, where the strategy's output is longer than the
// raw history: the synthetic nudge of a history without a user message, or
// the note that an assistant's greeting before any user message becomes
// (a conversation opens with the user's). The tokens the output holds beyond
// the raw history's, written. A compressing strategy's output is longer
// only there.
func providerAllowance(h []ChatMessage, resp *Response, rem *Remembered, pr Pricing) (float64, error) {
	raw, err := rem.tokens(counterFor(DefaultTokenizer, ""), h)
	return pr.WriteRate * float64(max(resp.Stats.TokensAfter-raw, 0)), err
}

// TestBillNeverAboveRawHistory checks, for every conversation of every
// recorded and generated source, every chat strategy and option set that
// `ptc-sidecar report` runs, and every pricing of the check (writes 1.25
// and 1 with reads 0.1, and OpenAI's reads 0.5 with writes 1), that the
// strategy's bill up to each call is at most the raw history's up to the
// same call. A strategy is stateless, so a session that ends after call k
// is billed what the first k calls of the whole session are: checking the
// running sums checks the session cut at every call. The calls are every
// assistant message, and separately those with tool calls alone, which are
// the calls `ptc-sidecar report` counts.
//
// That holds for loop-slice and clear-tool-results, which rewrite only
// where what they saved so far pays for it. turn-aware and token-budget
// are checked per source, their bill summed over the source's
// conversations: their window and budget are what the caller asked for,
// and the rewrite of turn-aware's first window step is never repaid on the
// call that takes it under cache pricing (held to the bound, it would
// never step), while a hard budget must cut however little it saved. A
// conversation that ends a few calls after such a rewrite bills more than
// its raw history (turn-aware 1.21 of pydicom's 33 calls), which
// docs/CHAT_STRATEGIES.md states as a limitation. token-budget is held per
// call to a looser bound: up to every call, at most one write of trim_to
// above the raw history (its first cut's rewrite; the calls after it only
// bill less than the raw history's), and over a whole conversation no more
// than it.
func TestBillNeverAboveRawHistory(t *testing.T) {
	convs := append(loadRealChat(t), loadRealCoding(t)...)
	// The generated sessions (1,100 calls, minutes of replays) run without
	// -short and without the race detector: the check is of arithmetic,
	// which the race detector has nothing to find in, and under it they
	// would take most of the package's time limit.
	if !testing.Short() && !raceEnabled {
		convs = append(convs, codingSessions()...)
		convs = append(convs, heldOutCodingSessions()...)
	}
	rem := NewRemembered(memo.New(256 << 20))
	var pricings []Pricing
	for _, name := range []string{"anthropic", "openai"} {
		p, err := resolvePricing(name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		pricings = append(pricings, p)
	}
	pricings = append(pricings, Pricing{Name: "read 0.1, write 1", ReadRate: 0.1, WriteRate: 1})
	counter := counterFor(DefaultTokenizer, "")
	// perSource: the bills of turn-aware and token-budget and the raw
	// history's, summed over a source's conversations.
	type sourceKey struct{ source, label, pricing string }
	type sourceBill struct{ strategy, raw, strategyTools, rawTools float64 }
	perSource := map[sourceKey]*sourceBill{}
	// worstBudget: token-budget's largest excess over the raw history up
	// to a call, as a share of one write of trim_to.
	worstBudget := 0.0
	var keys []sourceKey
	for _, c := range convs {
		calls := c.calls()
		// raw[k]: the raw history's tokens and stable prefix at call k.
		type call struct{ tokens, stable int }
		raw := make([]call, len(calls))
		var prev []ChatMessage
		for k, n := range calls {
			cur := c.messages[:n]
			tokens, err := rem.tokens(counter, cur)
			if err != nil {
				t.Fatalf("%s: %v", c.id, err)
			}
			stable := 0
			if prev != nil {
				if stable, _, err = stablePrefix(rem, counter, prev, cur); err != nil {
					t.Fatalf("%s: %v", c.id, err)
				}
			}
			raw[k], prev = call{tokens, stable}, cur
		}
		for _, pr := range pricings {
			for _, cfg := range recallChatConfigs() {
				if cfg.opts.WindowOnly {
					// Seed 002's exact output, which the caller asks for:
					// its window moves with every message (it bills 0.13
					// to 0.82 of the raw history per source, but more on
					// some short conversations). docs/STRATEGIES.md says so.
					continue
				}
				opts := cfg.opts
				opts.Pricing = pr
				s, err := Lookup(opts.Strategy)
				if err != nil {
					t.Fatal(err)
				}
				var sumAll, rawAll, sumTools, rawTools float64
				for k, n := range calls {
					h := c.messages[:n]
					resp, err := s.Render(&Request{History: h, Options: opts, Remembered: rem})
					if err != nil {
						t.Fatalf("%s/%s %s: call %d: %v", c.source, c.id, cfg.label, n, err)
					}
					st := Stats{TokensAfter: raw[k].tokens, StablePrefixTokens: raw[k].stable, StablePrefixKnown: true}
					bill(&st, pr)
					nudge, err := providerAllowance(h, resp, rem, pr)
					if err != nil {
						t.Fatal(err)
					}
					st.BilledTokens += nudge
					sumAll += resp.Stats.BilledTokens
					rawAll += st.BilledTokens
					if len(c.messages[n].ToolCalls) > 0 {
						sumTools += resp.Stats.BilledTokens
						rawTools += st.BilledTokens
					}
					if opts.Strategy == "token-budget" {
						// Up to every call, at most one write of what a cut
						// keeps (trim_to, a quarter of the budget) above the
						// raw history: the first cut's rewrite, which
						// nothing saved before it pays for; every call after
						// it bills less than the raw history's.
						rewrite := pr.WriteRate * float64(max(opts.MaxTokens/4, 1))
						excess := max(sumAll-rawAll, sumTools-rawTools)
						worstBudget = max(worstBudget, excess/rewrite)
						if excess > rewrite+1e-6 {
							t.Errorf("%s/%s, %s, %s: up to call %d of %d the strategy bills %.0f more than the raw history, above one write of trim_to (%.0f)",
								c.source, c.id, cfg.label, pr.Name, k+1, len(calls), excess, rewrite)
						}
					}
					if bySource(opts.Strategy) {
						continue
					}
					// A little slack for rounding of the sums.
					if sumAll > rawAll+1e-6 || sumTools > rawTools+1e-6 {
						t.Errorf("%s/%s, %s, %s: up to call %d of %d the strategy bills %s where the raw history bills %s",
							c.source, c.id, cfg.label, pr.Name, k+1, len(calls),
							fmt.Sprintf("%.0f (tool calls: %.0f)", sumAll, sumTools), fmt.Sprintf("%.0f (%.0f)", rawAll, rawTools))
						break
					}
				}
				// token-budget's first cut is not held to the bound (a hard
				// budget must cut before it has saved anything), every later
				// one is: over a whole conversation it bills no more than the
				// raw history.
				if opts.Strategy == "token-budget" && (sumAll > rawAll+1e-6 || sumTools > rawTools+1e-6) {
					t.Errorf("%s/%s, %s, %s: over the conversation's %d calls the strategy bills %.0f (tool calls: %.0f) where the raw history bills %.0f (%.0f)",
						c.source, c.id, cfg.label, pr.Name, len(calls), sumAll, sumTools, rawAll, rawTools)
				}
				if bySource(opts.Strategy) {
					key := sourceKey{c.source, cfg.label, pr.Name}
					b := perSource[key]
					if b == nil {
						b = &sourceBill{}
						perSource[key] = b
						keys = append(keys, key)
					}
					b.strategy += sumAll
					b.raw += rawAll
					b.strategyTools += sumTools
					b.rawTools += rawTools
				}
			}
		}
	}
	t.Logf("token-budget: up to a call, at most %.3f of one write of trim_to above the raw history", worstBudget)
	for _, key := range keys {
		b := perSource[key]
		if b.strategy > b.raw+1e-6 || b.strategyTools > b.rawTools+1e-6 {
			t.Errorf("%s, %s, %s: over the source the strategy bills %.0f (tool calls: %.0f) where the raw history bills %.0f (%.0f)",
				key.source, key.label, key.pricing, b.strategy, b.strategyTools, b.raw, b.rawTools)
		}
	}
}

// bySource reports whether a strategy's bill is bound per source rather
// than per conversation (TestBillNeverAboveRawHistory).
func bySource(strategy string) bool {
	return strategy == "turn-aware" || strategy == "token-budget"
}
