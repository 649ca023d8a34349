package strategies

import (
	"fmt"
	"math"
	"strings"
)

// What a call is billed. Providers cache prompt prefixes: the leading tokens of
// a prompt that equal those of an earlier prompt are read from the cache
// and billed at a fraction of a fresh input token, and some providers bill
// writing the rest to the cache at a premium. Every strategy reports its
// call's bill in these terms (Stats.BilledTokens), from one model: the
// stable prefix (prefix.go) is read, the tokens after it are written for
// the next call up to where the strategy's write ends (price), and the
// rest, which the next call does not send again, is fresh input. One model
// for every strategy is what makes their bills comparable.

// Pricing is what a provider bills for cached prompt tokens, as multiples of
// the price of a fresh input token.
type Pricing struct {
	Name      string  // the preset's name, or PricingCustom
	ReadRate  float64 // a token read from the cache
	WriteRate float64 // a token written to the cache; 1 when writing costs nothing extra
	// MinCacheable is the shortest prefix the model caches: a prompt
	// shorter is neither read from nor written to the cache, and a stable
	// prefix shorter is no cache hit. It depends on the model, not the
	// provider (1,024 to 4,096 tokens), so a preset holds none (0); the
	// model option (models.go) or min_cacheable_tokens gives it.
	MinCacheable int
	// The model named by the model option and its context window, reported
	// with the bill ("" and 0 when none was named).
	Model         string
	ContextWindow int
}

// PricingCustom names a pricing in which the caller gave a rate explicitly.
const PricingCustom = "custom"

// DefaultPricing is the preset used when a request names none: Anthropic's
// 5-minute cache. Its write premium makes it the pricing under which
// rewriting a prompt costs most, so a bill computed with it never flatters
// a strategy that rewrites, and its read rate is that of the newest models
// of OpenAI too.
const DefaultPricing = "anthropic"

// pricingPresets are the named pricings, in the order the docs list them.
// A preset is named after the provider and, where one provider bills its
// models differently, the model family, never "latest": a name must mean
// the same prices next year.
//
// Rates and minimums were checked against each provider's pricing and
// prompt-caching pages on 2026-11-28 (docs/STRATEGIES.md, "Pricing", names
// the pages and the dates they carry).
var pricingPresets = []Pricing{
	{Name: "anthropic", ReadRate: 0.1, WriteRate: 1.25},   // 5-minute cache: read 10%, write 125%
	{Name: "anthropic-1h", ReadRate: 0.1, WriteRate: 2.0}, // 1-hour cache: write 200%
	{Name: "openai", ReadRate: 0.5, WriteRate: 1},         // GPT-4o and o1: cached input at half price, automatic
	{Name: "openai-gpt4.1", ReadRate: 0.25, WriteRate: 1}, // GPT-4.1, o3, o4-mini
	{Name: "openai-gpt5", ReadRate: 0.1, WriteRate: 1},    // the GPT-5 family (gpt-5, gpt-5-mini, gpt-5.1, ...)
	{Name: "gemini", ReadRate: 0.1, WriteRate: 1},         // implicit caching, Gemini 2.5 and newer (0.25 until Google's cut)
	{Name: "none", ReadRate: 1, WriteRate: 1},             // a provider that caches nothing
}

// Bounds of the explicit rates: a cache read never costs more than fresh
// input; the bound on writes only keeps the figures sane.
const (
	maxReadRate  = 1
	maxWriteRate = 10
)

// PricingNames lists the presets, in the order the docs list them.
func PricingNames() []string {
	names := make([]string, len(pricingPresets))
	for i, p := range pricingPresets {
		names[i] = p.Name
	}
	return names
}

// resolvePricing returns the preset named name ("" is DefaultPricing) with
// the explicit rates, when given, in place of its own.
func resolvePricing(name string, readRate, writeRate *float64) (Pricing, error) {
	if name == "" {
		name = DefaultPricing
	}
	var p Pricing
	found := false
	for _, preset := range pricingPresets {
		if preset.Name == name {
			p, found = preset, true
			break
		}
	}
	if !found {
		return Pricing{}, &OptionError{Option: "pricing", Reason: fmt.Sprintf("unknown pricing %q (known: %s; or give cache_read_rate and cache_write_rate)", name, strings.Join(PricingNames(), ", "))}
	}
	rates := []struct {
		option string
		rate   *float64
		max    float64
		dst    *float64
	}{
		{"cache_read_rate", readRate, maxReadRate, &p.ReadRate},
		{"cache_write_rate", writeRate, maxWriteRate, &p.WriteRate},
	}
	for _, r := range rates {
		if r.rate == nil {
			continue
		}
		if v := *r.rate; math.IsNaN(v) || v < 0 || v > r.max {
			return Pricing{}, &OptionError{Option: r.option, Reason: fmt.Sprintf("must be between 0 and %g times a fresh input token's price, got %g", r.max, v)}
		}
		*r.dst = *r.rate
		p.Name = PricingCustom
	}
	return p, nil
}

// bill fills the bill's statistics of stats from its stable prefix, its
// tokens after compression and where its cache write ends, under pricing
// p: the stable prefix is read, the tokens from it to the next cache
// breakpoint written, and the rest billed as fresh input. A call whose
// earlier call is unknown counts every token fresh.
//
// Below the provider's minimum cacheable prefix nothing is cached: a stable
// prefix shorter than it is no cache hit (StablePrefixUncached; it is
// written again with the rest), and a write that would end before it is
// not made, its tokens billed as fresh input (UncachedTokens).
func bill(stats *Stats, p Pricing) {
	stats.Pricing = p.Name
	stats.MinCacheableTokens = p.MinCacheable
	stats.Model, stats.ContextWindow = p.Model, p.ContextWindow
	stats.StablePrefixUncached, stats.UncachedTokens = false, 0
	if !stats.StablePrefixKnown {
		stats.StablePrefixTokens, stats.CacheWriteTokens = 0, 0
		stats.BilledTokens = float64(stats.TokensAfter)
		return
	}
	read := stats.StablePrefixTokens
	if read > 0 && read < p.MinCacheable {
		read = 0
		stats.StablePrefixUncached = true
	}
	end := stats.TokensAfter
	if stats.writeEndKnown {
		end = min(max(stats.writeEnd, read), stats.TokensAfter)
	}
	written := end - read
	if end < p.MinCacheable {
		written = 0
	}
	stats.CacheWriteTokens = written
	stats.UncachedTokens = stats.TokensAfter - read - written
	stats.BilledTokens = float64(read)*p.ReadRate + float64(written)*p.WriteRate + float64(stats.UncachedTokens)
}

// The bill's options, which every strategy honours.
var (
	docPricing = OptionDoc{"pricing", DefaultPricing,
		"Prices of the bill in the stats (billed_tokens), a preset: " + strings.Join(PricingNames(), ", ") + "."}
	docCacheReadRate = OptionDoc{"cache_read_rate", "the preset's",
		"Price of a token read from the cache, 0..1 times a fresh input token's; overrides the preset."}
	docCacheWriteRate = OptionDoc{"cache_write_rate", "the preset's",
		"Price of a token written to the cache, 0..10 times a fresh input token's; overrides the preset."}
	docModel = OptionDoc{"model", "none",
		"The model the statistics are for (" + strings.Join(ModelNames(), ", ") + "): its tokenizer, pricing preset, minimum cacheable prefix and context window, unless given."}
	docMinCacheableTokens = OptionDoc{"min_cacheable_tokens", "the model's, else 0",
		"Shortest prefix the provider caches: a shorter stable prefix is no cache hit, a shorter prompt is billed uncached."}
	docMaxResponseBytes = intOptionDoc("max_response_bytes",
		"The most bytes the answer may take on the wire, the caller's receive limit (a gRPC client's default: 4 MiB); a larger answer is refused with RESOURCE_EXHAUSTED naming this option.")
)
