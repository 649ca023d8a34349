package strategies

import (
	"fmt"
	"math"
	"strings"
)

// Model is what the statistics need to know of one model: its context
// window (for budgets given as a fraction of it), the shortest prefix its
// provider caches, the preset its cache is priced with and the tokenizer
// that counts its tokens.
type Model struct {
	Name          string // the provider's model id
	ContextWindow int
	MinCacheable  int
	Pricing       string
	Tokenizer     string
}

// models are the models the model option knows, checked on 2026-11-28
// against the providers' pages (docs/STRATEGIES.md, "Models", names them).
// A model missing here is priced with a preset, and min_cacheable_tokens
// gives its minimum.
var models = []Model{
	{"claude-sonnet-5", 1_000_000, 1024, "anthropic", ClaudeEstimate},
	{"claude-opus-4-5", 200_000, 4096, "anthropic", ClaudeEstimate},
	{"claude-sonnet-4-5", 200_000, 1024, "anthropic", ClaudeEstimate},
	{"claude-haiku-4-5", 200_000, 4096, "anthropic", ClaudeEstimate},
	{"gpt-5", 400_000, 1024, "openai-gpt5", "o200k_base"},
	{"gpt-5-mini", 400_000, 1024, "openai-gpt5", "o200k_base"},
	{"gpt-4.1", 1_047_576, 1024, "openai-gpt4.1", "o200k_base"},
	{"o3", 200_000, 1024, "openai-gpt4.1", "o200k_base"},
	{"gpt-4o", 128_000, 1024, "openai", "o200k_base"},
	{"gemini-3.1-pro-preview", 1_048_576, 4096, "gemini", "gemma3"},
	{"gemini-2.5-pro", 1_048_576, 2048, "gemini", "gemma3"},
	{"gemini-2.5-flash", 1_048_576, 2048, "gemini", "gemma3"},
}

// ModelNames lists the models the model option knows, in the docs' order.
func ModelNames() []string {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Name
	}
	return names
}

// lookupModel returns the named model; "" is none.
func lookupModel(name string) (*Model, error) {
	if name == "" {
		return nil, nil
	}
	for i := range models {
		if models[i].Name == name {
			return &models[i], nil
		}
	}
	return nil, &OptionError{Option: "model", Reason: fmt.Sprintf("unknown model %q (known: %s; or give pricing, tokenizer and min_cacheable_tokens)", name, strings.Join(ModelNames(), ", "))}
}

// fractionOption is a token figure that may be given as a fraction of the
// model's context window instead.
type fractionOption struct {
	name, of string // the fraction's option, and the token option it sets
	raw      func(*RawOptions) (*float64, *int)
	dst      func(*Options) *int
}

var fractionOptions = []fractionOption{
	{"max_tokens_fraction", "max_tokens", func(r *RawOptions) (*float64, *int) { return r.MaxTokensFraction, r.MaxTokens }, func(o *Options) *int { return &o.MaxTokens }},
	{"trigger_fraction", "trigger", func(r *RawOptions) (*float64, *int) { return r.TriggerFraction, r.Trigger }, func(o *Options) *int { return &o.Trigger }},
}

// applyFractions sets the token options given as fractions of the context
// window of m (nil when no model was named), rounded down.
func applyFractions(raw *RawOptions, o *Options, m *Model) error {
	for _, f := range fractionOptions {
		frac, tokens := f.raw(raw)
		if frac == nil {
			continue
		}
		switch v := *frac; {
		case math.IsNaN(v) || v <= 0 || v > 1:
			return &OptionError{Option: f.name, Reason: fmt.Sprintf("must be a fraction of the context window above 0 and at most 1, got %g", v)}
		case tokens != nil:
			return &OptionError{Option: f.name, Reason: fmt.Sprintf("give %s or %s, not both", f.of, f.name)}
		case m == nil:
			return &OptionError{Option: f.name, Reason: "needs model, whose context window it is a fraction of (known: " + strings.Join(ModelNames(), ", ") + ")"}
		}
		*f.dst(o) = max(1, int(*frac*float64(m.ContextWindow)))
	}
	return nil
}

// The fractions' options.
var (
	docMaxTokensFraction = OptionDoc{"max_tokens_fraction", "none",
		"max_tokens as a fraction of the model's context window (above 0, at most 1; needs model), rounded down; instead of max_tokens."}
	docTriggerFraction = OptionDoc{"trigger_fraction", "none",
		"trigger as a fraction of the model's context window (above 0, at most 1; needs model), rounded down; instead of trigger."}
)
