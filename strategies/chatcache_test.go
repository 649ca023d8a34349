package strategies

import (
	"cmp"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// TestChatCutsMoveInSteps follows the generated coding-agent sessions call
// by call and checks that each strategy rewrites the beginning of its
// prompt (its stable prefix falls short of the previous call's whole
// output) only where its rule says it must: token-budget when the previous
// output and the new messages would not fit max_tokens less its ledger's
// share, clear-tool-results
// when they would exceed the trigger, turn-aware when its scan window steps
// on (every scan_window messages). Between those points each call appends to
// the previous one, and a provider's prompt cache serves all of it.
func TestChatCutsMoveInSteps(t *testing.T) {
	rem := NewRemembered(memo.New(128 << 20))
	anthropic, _ := resolvePricing("anthropic", nil, nil)
	for _, c := range codingSessions() {
		for _, cfg := range []struct {
			strategy string
			set      func(*Options)
		}{
			{"token-budget", func(o *Options) { o.MaxTokens = 8000 }},
			{"token-budget", func(o *Options) { o.MaxTokens = 32000; o.TrimTo = 16000 }},
			{"clear-tool-results", func(o *Options) { o.Trigger = 20000 }},
			{"turn-aware", nil},
		} {
			opts := chatDefaults()
			opts.Strategy, opts.Pricing = cfg.strategy, anthropic
			if cfg.set != nil {
				cfg.set(&opts)
			}
			s, _ := Lookup(opts.Strategy)
			prevTokens, prevN, rewrites, prevNudge := 0, 0, 0, false
			for _, n := range c.calls() {
				resp, err := s.Render(&Request{History: c.messages[:n], Options: opts, Remembered: rem})
				if err != nil {
					t.Fatalf("%s, %s, call %d: %v", c.id, opts.Strategy, n, err)
				}
				st := resp.Stats
				added, _ := rem.tokens(counterFor(DefaultTokenizer, ""), c.messages[prevN:n])
				// The first user message ends the nudge an earlier call sent.
				if prevN > 0 && st.StablePrefixTokens < prevTokens && !prevNudge {
					rewrites++
					switch opts.Strategy {
					case "token-budget":
						// The ledger's share of the budget is reserved: the
						// kept part cuts when it outgrows the rest.
						low := cmp.Or(opts.TrimTo, opts.MaxTokens/4)
						if prevTokens+added <= opts.MaxTokens-budgetLedgerShare(opts.MaxTokens, low) {
							t.Errorf("%s, token-budget %d, call %d: rewrote from token %d though %d+%d tokens fit", c.id, opts.MaxTokens, n, st.StablePrefixTokens, prevTokens, added)
						}
					case "clear-tool-results":
						if prevTokens+added <= opts.Trigger {
							t.Errorf("%s, clear-tool-results, call %d: rewrote from token %d below the trigger (%d+%d)", c.id, n, st.StablePrefixTokens, prevTokens, added)
						}
					}
				}
				if opts.Strategy == "token-budget" && st.TokensAfter > opts.MaxTokens {
					t.Errorf("%s, call %d: %d tokens over the budget of %d", c.id, n, st.TokensAfter, opts.MaxTokens)
				}
				prevTokens, prevN, prevNudge = st.TokensAfter, n, st.SyntheticNudge
			}
			// turn-aware's window steps on every scan_window messages; a new
			// prompt rewrites too (the greeting session has two).
			if limit := len(c.messages)/opts.ScanWindow + 3; opts.Strategy == "turn-aware" && rewrites > limit {
				t.Errorf("%s, turn-aware: %d rewrites in %d messages, more than its window's %d steps", c.id, rewrites, len(c.messages), limit)
			}
			if rewrites == 0 && opts.Strategy != "clear-tool-results" && len(c.messages) > 100 {
				t.Errorf("%s, %s: no rewrite in %d messages: the test proves nothing", c.id, opts.Strategy, len(c.messages))
			}
		}
	}
}
