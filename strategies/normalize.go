package strategies

import (
	"fmt"
	"math"
	"strconv"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// RawOptions are a request's options as they arrive: a nil number was not
// given. Normalize turns them into Options.
type RawOptions struct {
	Strategy     string
	Mission      string
	SystemPrompt string
	Prompt       string // the built-in prompt's variant: "", PromptLean or PromptFull
	Tools        []ToolSpec
	Data         lisp.Value // nil when absent; must be a map otherwise
	Signature    string
	ProgramForm  string // "", ProgramFenced or ProgramToolCall

	MaxTurns             *int
	TurnsLeft            *int
	PrintlnLimit         *int
	ToolCallLimit        *int
	SampleLimit          *int
	SamplePrintableLimit *int
	Tokenizer            string

	ScanWindow           *int
	NudgeAttempt         *int
	Nudges               []string
	SnapshotToolPrefixes []string
	WindowOnly           bool
	Provider             string

	Trigger         *int
	Keep            *int
	ClearAtLeast    *int
	ExcludeTools    []string
	ClearToolInputs bool
	Placeholder     string

	MaxTokens *int
	TrimTo    *int

	KeepThinkingTurns *int
	SummaryTrigger    *int
	SummaryKeep       *int
	SummaryPrompt     string
	SummaryHeader     string
	// SummaryRequestForm: "", SummaryRequestPrefix or SummaryRequestWhole.
	SummaryRequestForm string

	MaxResponseBytes *int

	Pricing        string
	CacheReadRate  *float64
	CacheWriteRate *float64

	// The model the counts, budgets and bill are for (models.go), token
	// budgets as fractions of its context window, and the shortest prefix
	// its provider caches when the model is not in the table.
	Model              string
	MaxTokensFraction  *float64
	TriggerFraction    *float64
	MinCacheableTokens *int
}

// Defaults and bounds of the numeric options. The upper bounds keep one
// request from asking for unbounded work; they are far above useful values.
const (
	DefaultMaxTurns             = 5
	DefaultPrintlnLimit         = 15
	DefaultToolCallLimit        = 20
	DefaultSampleLimit          = 3
	DefaultSamplePrintableLimit = 80
	DefaultScanWindow           = 20
	DefaultNudgeAttempt         = 1
	DefaultTrigger              = 100000
	DefaultKeep                 = 3
	DefaultPlaceholder          = "[cleared]"

	maxTurnsBound       = 1000
	maxCountLimit       = 10000
	maxSampleLimit      = 1000
	maxPrintableLimit   = 100000
	maxScanWindow       = 10000
	maxNudgeAttempt     = 1000
	maxTokenFigureBound = 100_000_000

	// DefaultMaxResponseBytes is what a gRPC client receives by default.
	DefaultMaxResponseBytes = 4 << 20
	maxResponseBytesBound   = math.MaxInt32
)

// intOption is a numeric option: its wire name, its default (what an unset
// option takes), its range, and its fields in RawOptions and Options. Its
// documentation (intOptionDoc) is written from the same row.
type intOption struct {
	name          string
	def, min, max int
	raw           func(*RawOptions) *int
	dst           func(*Options) *int
}

// intOptions are every numeric option, checked and defaulted by Normalize.
var intOptions = []intOption{
	{"max_turns", DefaultMaxTurns, 1, maxTurnsBound, func(r *RawOptions) *int { return r.MaxTurns }, func(o *Options) *int { return &o.MaxTurns }},
	{"turns_left", 0, 0, maxTurnsBound, func(r *RawOptions) *int { return r.TurnsLeft }, func(o *Options) *int { return &o.TurnsLeft }},
	{"println_limit", DefaultPrintlnLimit, 0, maxCountLimit, func(r *RawOptions) *int { return r.PrintlnLimit }, func(o *Options) *int { return &o.PrintlnLimit }},
	{"tool_call_limit", DefaultToolCallLimit, 0, maxCountLimit, func(r *RawOptions) *int { return r.ToolCallLimit }, func(o *Options) *int { return &o.ToolCallLimit }},
	{"sample_limit", DefaultSampleLimit, 0, maxSampleLimit, func(r *RawOptions) *int { return r.SampleLimit }, func(o *Options) *int { return &o.SampleLimit }},
	{"sample_printable_limit", DefaultSamplePrintableLimit, 0, maxPrintableLimit, func(r *RawOptions) *int { return r.SamplePrintableLimit }, func(o *Options) *int { return &o.SamplePrintableLimit }},
	{"scan_window", DefaultScanWindow, 1, maxScanWindow, func(r *RawOptions) *int { return r.ScanWindow }, func(o *Options) *int { return &o.ScanWindow }},
	{"nudge_attempt", DefaultNudgeAttempt, 1, maxNudgeAttempt, func(r *RawOptions) *int { return r.NudgeAttempt }, func(o *Options) *int { return &o.NudgeAttempt }},
	{"trigger", DefaultTrigger, 0, maxTokenFigureBound, func(r *RawOptions) *int { return r.Trigger }, func(o *Options) *int { return &o.Trigger }},
	{"keep", DefaultKeep, 0, maxCountLimit, func(r *RawOptions) *int { return r.Keep }, func(o *Options) *int { return &o.Keep }},
	{"clear_at_least", 0, 0, maxTokenFigureBound, func(r *RawOptions) *int { return r.ClearAtLeast }, func(o *Options) *int { return &o.ClearAtLeast }},
	{"max_tokens", 0, 0, maxTokenFigureBound, func(r *RawOptions) *int { return r.MaxTokens }, func(o *Options) *int { return &o.MaxTokens }},
	{"summary_trigger", DefaultSummaryTrigger, 0, maxTokenFigureBound, func(r *RawOptions) *int { return r.SummaryTrigger }, func(o *Options) *int { return &o.SummaryTrigger }},
	{"summary_keep", DefaultSummaryKeep, 0, maxCountLimit, func(r *RawOptions) *int { return r.SummaryKeep }, func(o *Options) *int { return &o.SummaryKeep }},
	{"trim_to", 0, 1, maxTokenFigureBound, func(r *RawOptions) *int { return r.TrimTo }, func(o *Options) *int { return &o.TrimTo }},
	{"max_response_bytes", DefaultMaxResponseBytes, 1, maxResponseBytesBound, func(r *RawOptions) *int { return r.MaxResponseBytes }, func(o *Options) *int { return &o.MaxResponseBytes }},
	// -1 (unset) keeps every turn's reasoning.
	{"keep_thinking_turns", -1, 0, maxCountLimit, func(r *RawOptions) *int { return r.KeepThinkingTurns }, func(o *Options) *int { return &o.KeepThinkingTurns }},
}

// withDefault is d with its default described in words rather than as a
// number.
func withDefault(d OptionDoc, text string) OptionDoc {
	d.Default = text
	return d
}

// intOptionDoc documents the numeric option name for ListStrategies: its
// default and range come from intOptions, description says the rest.
func intOptionDoc(name, description string) OptionDoc {
	for _, opt := range intOptions {
		if opt.name == name {
			return OptionDoc{Name: name, Default: strconv.Itoa(opt.def),
				Description: fmt.Sprintf("%s (%d..%d)", description, opt.min, opt.max)}
		}
	}
	panic("strategies: no numeric option " + name)
}

// DefaultSnapshotToolPrefixes name the tools whose results are snapshots.
var DefaultSnapshotToolPrefixes = []string{"get_"}

// Normalize applies defaults and checks every option, so that strategies only
// ever see valid values. The error is an *OptionError naming the first bad
// option; nothing is partially applied.
func Normalize(raw RawOptions) (Options, error) {
	return normalize(raw, nil)
}

func normalize(raw RawOptions, r *Remembered) (Options, error) {
	// The signatures are parsed once for the request, here, whatever the
	// memo keeps: rendering reuses them (Options.signatures).
	r = r.during(nil, nil)
	s, err := Lookup(raw.Strategy)
	if err != nil {
		return Options{}, err
	}
	o := Options{
		Strategy:        s.Name(),
		Mission:         raw.Mission,
		SystemPrompt:    raw.SystemPrompt,
		Prompt:          raw.Prompt,
		Signature:       raw.Signature,
		Nudges:          raw.Nudges,
		ExcludeTools:    raw.ExcludeTools,
		ClearToolInputs: raw.ClearToolInputs,
		WindowOnly:      raw.WindowOnly,
		Provider:        raw.Provider,
		Placeholder:     raw.Placeholder,
		Tokenizer:       raw.Tokenizer,
		SummaryPrompt:   raw.SummaryPrompt,
		SummaryHeader:   raw.SummaryHeader,
	}
	for _, opt := range intOptions {
		v := opt.raw(&raw)
		if v == nil {
			*opt.dst(&o) = opt.def
			continue
		}
		if *v < opt.min || *v > opt.max {
			return Options{}, &OptionError{Option: opt.name, Reason: fmt.Sprintf("must be between %d and %d, got %d", opt.min, opt.max, *v)}
		}
		*opt.dst(&o) = *v
	}
	o.TurnsLeftSet = raw.TurnsLeft != nil

	for _, c := range []struct {
		option, got   string
		first, second string // first is the default
		dst           *string
	}{
		{"prompt", o.Prompt, PromptLean, PromptFull, &o.Prompt},
		{"summary_request_form", raw.SummaryRequestForm, SummaryRequestPrefix, SummaryRequestWhole, &o.SummaryRequestForm},
		{"program_form", raw.ProgramForm, ProgramFenced, ProgramToolCall, &o.ProgramForm},
	} {
		switch c.got {
		case "", c.first:
			*c.dst = c.first
		case c.second:
			*c.dst = c.second
		default:
			return Options{}, &OptionError{Option: c.option, Reason: fmt.Sprintf("must be %q or %q, got %q", c.first, c.second, c.got)}
		}
	}

	model, err := lookupModel(raw.Model)
	if err != nil {
		return Options{}, err
	}
	if err := applyFractions(&raw, &o, model); err != nil {
		return Options{}, err
	}
	pricing := raw.Pricing
	if model != nil {
		if o.Tokenizer == "" {
			o.Tokenizer = model.Tokenizer
		}
		if pricing == "" {
			pricing = model.Pricing
		}
	}
	if o.Tokenizer == "" {
		o.Tokenizer = DefaultTokenizer
	}
	if err := checkTokenizer(o.Tokenizer); err != nil {
		return Options{}, err
	}

	switch d := raw.Data.(type) {
	case nil, lisp.NilType:
	case *lisp.Map:
		o.Data = d
	default:
		return Options{}, &OptionError{Option: "data", Reason: "must be a map, got " + d.TypeName()}
	}

	switch o.Provider {
	case "", ProviderOpenAI, ProviderAnthropic, ProviderGemini:
	default:
		return Options{}, &OptionError{Option: "provider", Reason: fmt.Sprintf("must be %q, %q, %q or empty (a request every one accepts), got %q", ProviderOpenAI, ProviderAnthropic, ProviderGemini, o.Provider)}
	}

	if o.Pricing, err = resolvePricing(pricing, raw.CacheReadRate, raw.CacheWriteRate); err != nil {
		return Options{}, err
	}
	if model != nil {
		o.Pricing.Model, o.Pricing.ContextWindow, o.Pricing.MinCacheable = model.Name, model.ContextWindow, model.MinCacheable
	}
	if v := raw.MinCacheableTokens; v != nil {
		if *v < 0 || *v > maxTokenFigureBound {
			return Options{}, &OptionError{Option: "min_cacheable_tokens", Reason: fmt.Sprintf("must be between 0 and %d, got %d", maxTokenFigureBound, *v)}
		}
		o.Pricing.MinCacheable = *v
	}
	if raw.Prompt == "" {
		if o.Prompt, err = promptForMinimum(&o, r); err != nil {
			return Options{}, err
		}
	}

	tools, err := normalizeTools(raw.Tools, r)
	if err != nil {
		return Options{}, err
	}
	o.Tools = tools
	if o.Signature != "" {
		if err := r.signature(o.Signature).err; err != nil {
			return Options{}, &OptionError{Option: "signature", Reason: err.Error()}
		}
	}

	o.signatures = r.rendered
	o.SnapshotToolPrefixes = raw.SnapshotToolPrefixes
	if len(o.SnapshotToolPrefixes) == 0 {
		o.SnapshotToolPrefixes = DefaultSnapshotToolPrefixes
	}
	if o.Placeholder == "" {
		o.Placeholder = DefaultPlaceholder
	}
	if o.SummaryPrompt == "" {
		o.SummaryPrompt = DefaultSummaryPrompt
	}
	if o.SummaryHeader == "" {
		o.SummaryHeader = DefaultSummaryHeader
	}
	return o, nil
}

// normalizeTools checks that every tool has a unique name and a signature
// that parses.
func normalizeTools(tools []ToolSpec, r *Remembered) ([]ToolSpec, error) {
	seen := make(map[string]bool, len(tools))
	for i, t := range tools {
		field := func(name string) string { return "tools[" + strconv.Itoa(i) + "]." + name }
		if t.Name == "" {
			return nil, &OptionError{Option: field("name"), Reason: "must not be empty"}
		}
		if seen[t.Name] {
			return nil, &OptionError{Option: field("name"), Reason: fmt.Sprintf("duplicate tool %q", t.Name)}
		}
		seen[t.Name] = true
		if t.Signature != "" {
			if err := r.signature(t.Signature).err; err != nil {
				return nil, &OptionError{Option: field("signature"), Reason: fmt.Sprintf("tool %q: %s", t.Name, err)}
			}
		}
	}
	return tools, nil
}

// promptForMinimum is the built-in reference's variant where the caller
// chose none. cache-stable and single-user-coalesced rewrite everything
// after their system prompt as a run goes on, so the system prompt is the
// prefix their calls share; a model caches a prefix only from its minimum
// on (claude-opus-4-5 and claude-haiku-4-5: 4,096 tokens). Where the lean
// variant falls short of the minimum and the full one reaches it, the full
// one is chosen: every call after the first reads it from the cache, where
// the lean one would be billed as fresh input on every call (measured on
// the real runs under a 4,096 minimum: 1.675 times full's bill with the
// lean variant, 0.78 with the full one; docs/STRATEGIES.md).
func promptForMinimum(o *Options, r *Remembered) (string, error) {
	if o.SystemPrompt != "" || o.Pricing.MinCacheable == 0 || (o.Strategy != "cache-stable" && o.Strategy != "single-user-coalesced") {
		return PromptLean, nil
	}
	lean, err := r.text(o.Tokenizer, lisp.SystemPrompt())
	if err != nil || lean.tokens >= o.Pricing.MinCacheable {
		return PromptLean, err
	}
	full, err := r.text(o.Tokenizer, lisp.FullSystemPrompt())
	if err != nil || full.tokens < o.Pricing.MinCacheable {
		return PromptLean, err
	}
	return PromptFull, nil
}
