package strategies

import (
	"errors"
	"math"
	"testing"
)

func TestPricingPresets(t *testing.T) {
	want := map[string][2]float64{
		"anthropic":     {0.1, 1.25},
		"anthropic-1h":  {0.1, 2},
		"openai":        {0.5, 1},
		"openai-gpt4.1": {0.25, 1},
		"openai-gpt5":   {0.1, 1},
		"gemini":        {0.25, 1},
		"none":          {1, 1},
	}
	if len(PricingNames()) != len(want) {
		t.Errorf("presets %v, want %d", PricingNames(), len(want))
	}
	for name, rates := range want {
		p, err := resolvePricing(name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p != (Pricing{name, rates[0], rates[1]}) {
			t.Errorf("%s = %+v, want read %g write %g", name, p, rates[0], rates[1])
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
	if err != nil || p != (Pricing{PricingCustom, 0.2, 1}) {
		t.Errorf("openai with read 0.2 = %+v, %v", p, err)
	}
	p, err = resolvePricing("", nil, rate(2))
	if err != nil || p != (Pricing{PricingCustom, 0.1, 2}) {
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
	anthropic := Pricing{"anthropic", 0.1, 1.25}
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
