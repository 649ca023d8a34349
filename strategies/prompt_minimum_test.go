package strategies

import (
	"path/filepath"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// Where the caller chooses no prompt variant, cache-stable and
// single-user-coalesced take the full reference when the lean one is
// shorter than the model's minimum cacheable prefix and the full one is
// not; a caller's own choice, another strategy or a model with a low
// minimum keeps the lean one.
func TestPromptForMinimum(t *testing.T) {
	for _, tc := range []struct {
		strategy, model, prompt string
		minimum                 *int
		want                    string
	}{
		{"cache-stable", "claude-opus-4-5", "", nil, PromptFull},
		{"single-user-coalesced", "claude-haiku-4-5", "", nil, PromptFull},
		{"cache-stable", "claude-opus-4-5", PromptLean, nil, PromptLean},
		{"cache-stable", "claude-sonnet-4-5", "", nil, PromptLean},
		{"cache-stable", "", "", nil, PromptLean},
		{"cache-stable", "", "", ptr(2048), PromptFull},
		{"cache-stable", "claude-opus-4-5", "", ptr(1024), PromptLean},
		{"cache-stable", "", "", ptr(100_000), PromptLean}, // the full one falls short too
		{"full", "claude-opus-4-5", "", nil, PromptLean},
	} {
		o, err := Normalize(RawOptions{Strategy: tc.strategy, Model: tc.model, Prompt: tc.prompt, MinCacheableTokens: tc.minimum})
		if err != nil {
			t.Fatal(err)
		}
		if o.Prompt != tc.want {
			t.Errorf("%s, model %q, prompt %q, minimum %v: variant %q, want %q", tc.strategy, tc.model, tc.prompt, tc.minimum, o.Prompt, tc.want)
		}
	}
}

func ptr(n int) *int { return &n }

// Under a model whose minimum cacheable prefix is 4,096 tokens, cache-stable
// in its default form bills less than full on the real runs (with the lean
// variant whatever the minimum, it billed 1.675 times full's: its prefix was
// never cached).
func TestCacheStableBillUnderHighMinimum(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/real-*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no real runs (%v)", err)
	}
	if testing.Short() {
		files = everyFourth(files)
	}
	rem := NewRemembered(memo.New(64 << 20))
	bill := map[string]float64{}
	for _, f := range files {
		tr := loadTrace(t, f)
		for _, name := range []string{"full", "cache-stable"} {
			o, err := normalize(RawOptions{Strategy: name, Model: "claude-opus-4-5", Tokenizer: tr.opts.Tokenizer}, rem)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tr.turns {
				req := tr.request(i)
				req.Remembered = rem
				req.Options.Strategy, req.Options.Prompt, req.Options.Pricing = name, o.Prompt, o.Pricing
				resp, err := Render(req)
				if err != nil {
					t.Fatalf("%s turn %d %s: %v", tr.name, i+1, name, err)
				}
				bill[name] += resp.Stats.BilledTokens
			}
		}
	}
	ratio := bill["cache-stable"] / bill["full"]
	t.Logf("cache-stable bills %.3f of full's under a 4,096-token minimum (%d runs)", ratio, len(files))
	if ratio >= 0.9 {
		t.Errorf("cache-stable bills %.3f of full's under a 4,096-token minimum, want below 0.9", ratio)
	}
}
