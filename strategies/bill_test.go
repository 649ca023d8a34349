package strategies

import (
	"errors"
	"math"
	"testing"
)

func TestPricingPresets(t *testing.T) {
	want := map[string][3]float64{
		"anthropic":     {0.1, 1.25, 0},
		"anthropic-1h":  {0.1, 2, 0},
		"openai":        {0.5, 1, 0},
		"openai-gpt4.1": {0.25, 1, 0},
		"openai-gpt5":   {0.1, 1, 0},
		"gemini":        {0.1, 1, 0},
		"none":          {1, 1, 0},
	}
	if len(PricingNames()) != len(want) {
		t.Errorf("presets %v, want %d", PricingNames(), len(want))
	}
	for name, rates := range want {
		p, err := resolvePricing(name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p != (Pricing{Name: name, ReadRate: rates[0], WriteRate: rates[1], MinCacheable: int(rates[2])}) {
			t.Errorf("%s = %+v, want read %g write %g, minimum %g", name, p, rates[0], rates[1], rates[2])
		}
	}
	def, err := resolvePricing("", nil, nil)
	if err != nil || def.Name != DefaultPricing {
		t.Errorf("the default pricing is %+v, %v; want %s", def, err, DefaultPricing)
	}
}

func TestPricingExplicitRates(t *testing.T) {
	rate := func(f float64) *float64 { return &f }
	p, err := resolvePricing("openai", rate(0.2), nil)
	if err != nil || p != (Pricing{Name: PricingCustom, ReadRate: 0.2, WriteRate: 1}) {
		t.Errorf("openai with read 0.2 = %+v, %v", p, err)
	}
	p, err = resolvePricing("", nil, rate(2))
	if err != nil || p != (Pricing{Name: PricingCustom, ReadRate: 0.1, WriteRate: 2}) {
		t.Errorf("the default with write 2 = %+v, %v", p, err)
	}
	bad := []struct {
		name        string
		read, write *float64
		option      string
	}{
		{"anthropic-5m", nil, nil, "pricing"},
		{"", rate(-0.1), nil, "cache_read_rate"},
		{"", rate(1.5), nil, "cache_read_rate"},
		{"", rate(math.NaN()), nil, "cache_read_rate"},
		{"", nil, rate(math.Inf(1)), "cache_write_rate"},
		{"", nil, rate(-1), "cache_write_rate"},
	}
	for _, c := range bad {
		_, err := resolvePricing(c.name, c.read, c.write)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.option {
			t.Errorf("pricing %q read %v write %v: got %v, want an error naming %s", c.name, c.read, c.write, err, c.option)
		}
	}
	// Normalize refuses them the same way, before any work.
	_, err = Normalize(RawOptions{CacheReadRate: rate(2)})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Option != "cache_read_rate" {
		t.Errorf("Normalize with cache_read_rate 2: %v", err)
	}
}

func TestBill(t *testing.T) {
	anthropic := Pricing{Name: "anthropic", ReadRate: 0.1, WriteRate: 1.25}
	st := Stats{TokensAfter: 1000, StablePrefixTokens: 800, StablePrefixKnown: true}
	bill(&st, anthropic)
	if st.CacheWriteTokens != 200 || math.Abs(st.BilledTokens-(80+250)) > 1e-9 || st.Pricing != "anthropic" {
		t.Errorf("800 read of 1000: %+v", st)
	}
	// Unknown: every token fresh, nothing counted as read or written.
	st = Stats{TokensAfter: 1000, StablePrefixTokens: 800}
	bill(&st, anthropic)
	if st.CacheWriteTokens != 0 || st.StablePrefixTokens != 0 || st.BilledTokens != 1000 {
		t.Errorf("unknown earlier call: %+v", st)
	}
}

// TestBillMinCacheable: below the model's minimum cacheable prefix nothing
// is read, and a prompt below it is not written either: its tokens are
// billed fresh, and the statistics say so.
func TestBillMinCacheable(t *testing.T) {
	p := Pricing{Name: "anthropic", ReadRate: 0.1, WriteRate: 1.25, MinCacheable: 1024}
	cases := []struct {
		after, prefix      int
		read, written, new int
		uncachedPrefix     bool
	}{
		{5000, 2000, 2000, 3000, 0, false}, // above: as without a minimum
		{5000, 800, 0, 5000, 0, true},      // the prefix is no cache hit: written again with the rest
		{900, 800, 0, 0, 900, true},        // the prompt is not cached at all
		{900, 0, 0, 0, 900, false},         // nothing shared, nothing cached
		{1024, 1024, 1024, 0, 0, false},    // at the minimum: read
	}
	for _, c := range cases {
		st := Stats{TokensAfter: c.after, StablePrefixTokens: c.prefix, StablePrefixKnown: true}
		bill(&st, p)
		want := float64(c.read)*0.1 + float64(c.written)*1.25 + float64(c.new)
		if st.CacheWriteTokens != c.written || st.UncachedTokens != c.new || st.StablePrefixUncached != c.uncachedPrefix ||
			math.Abs(st.BilledTokens-want) > 1e-9 || st.MinCacheableTokens != 1024 || st.StablePrefixTokens != c.prefix {
			t.Errorf("%d tokens, prefix %d: %+v; want written %d, uncached %d, prefix uncached %v, billed %g",
				c.after, c.prefix, st, c.written, c.new, c.uncachedPrefix, want)
		}
	}
}

// TestModelOption: a model sets the tokenizer, the pricing and the
// minimum unless they are given, fractions of its context window become
// token budgets, and every bad combination is refused naming its option.
func TestModelOption(t *testing.T) {
	frac := func(f float64) *float64 { return &f }
	n := func(i int) *int { return &i }
	o, err := Normalize(RawOptions{Strategy: "token-budget", Model: "gemini-2.5-pro", MaxTokensFraction: frac(0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if o.Tokenizer != "gemma3" || o.Pricing.Name != "gemini" || o.Pricing.MinCacheable != 2048 || o.MaxTokens != 524288 ||
		o.Pricing.Model != "gemini-2.5-pro" || o.Pricing.ContextWindow != 1_048_576 {
		t.Errorf("gemini-2.5-pro at half its window: %+v", o)
	}
	o, err = Normalize(RawOptions{Strategy: "clear-tool-results", Model: "claude-haiku-4-5", Tokenizer: "o200k_base", Pricing: "anthropic-1h",
		TriggerFraction: frac(0.8), MinCacheableTokens: n(2048)})
	if err != nil {
		t.Fatal(err)
	}
	if o.Tokenizer != "o200k_base" || o.Pricing.Name != "anthropic-1h" || o.Pricing.MinCacheable != 2048 || o.Trigger != 160000 {
		t.Errorf("claude-haiku-4-5 with explicit options: %+v", o)
	}
	if o, err := Normalize(RawOptions{Strategy: "full", Model: "claude-opus-4-5"}); err != nil || o.Tokenizer != ClaudeEstimate {
		t.Errorf("claude-opus-4-5 counts with %q, %v; want the estimate", o.Tokenizer, err)
	}
	bad := []struct {
		raw    RawOptions
		option string
	}{
		{RawOptions{Strategy: "full", Model: "gpt-7"}, "model"},
		{RawOptions{Strategy: "token-budget", MaxTokensFraction: frac(0.5)}, "max_tokens_fraction"},
		{RawOptions{Strategy: "token-budget", Model: "gpt-4o", MaxTokensFraction: frac(0)}, "max_tokens_fraction"},
		{RawOptions{Strategy: "token-budget", Model: "gpt-4o", MaxTokensFraction: frac(1.5)}, "max_tokens_fraction"},
		{RawOptions{Strategy: "token-budget", Model: "gpt-4o", MaxTokensFraction: frac(math.NaN())}, "max_tokens_fraction"},
		{RawOptions{Strategy: "token-budget", Model: "gpt-4o", MaxTokensFraction: frac(0.5), MaxTokens: n(1000)}, "max_tokens_fraction"},
		{RawOptions{Strategy: "clear-tool-results", Model: "gpt-4o", TriggerFraction: frac(-1)}, "trigger_fraction"},
		{RawOptions{Strategy: "full", MinCacheableTokens: n(-1)}, "min_cacheable_tokens"},
	}
	for _, c := range bad {
		_, err := Normalize(c.raw)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != c.option {
			t.Errorf("%+v: got %v, want an error naming %s", c.raw, err, c.option)
		}
	}
	for _, m := range models {
		if m.ContextWindow <= 0 || m.MinCacheable < 1024 || m.MinCacheable > 4096 || checkTokenizer(m.Tokenizer) != nil {
			t.Errorf("model %+v out of range", m)
		}
		if _, err := resolvePricing(m.Pricing, nil, nil); err != nil {
			t.Errorf("model %s: %v", m.Name, err)
		}
	}
}
