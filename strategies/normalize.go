package strategies

import (
	"fmt"
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

	Trigger         *int
	Keep            *int
	ClearAtLeast    *int
	ExcludeTools    []string
	ClearToolInputs bool
	Placeholder     string

	MaxTokens *int

	Pricing        string
	CacheReadRate  *float64
	CacheWriteRate *float64
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
)

// DefaultSnapshotToolPrefixes name the tools whose results are snapshots.
var DefaultSnapshotToolPrefixes = []string{"get_"}

// Normalize applies defaults and checks every option, so that strategies only
// ever see valid values. The error is an *OptionError naming the first bad
// option; nothing is partially applied.
func Normalize(raw RawOptions) (Options, error) {
	return normalize(raw, nil)
}

func normalize(raw RawOptions, r *Remembered) (Options, error) {
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
		Placeholder:     raw.Placeholder,
		Tokenizer:       raw.Tokenizer,
	}
	ints := []struct {
		name     string
		raw      *int
		def      int
		min, max int
		dst      *int
	}{
		{"max_turns", raw.MaxTurns, DefaultMaxTurns, 1, maxTurnsBound, &o.MaxTurns},
		{"turns_left", raw.TurnsLeft, 0, 0, maxTurnsBound, &o.TurnsLeft},
		{"println_limit", raw.PrintlnLimit, DefaultPrintlnLimit, 0, maxCountLimit, &o.PrintlnLimit},
		{"tool_call_limit", raw.ToolCallLimit, DefaultToolCallLimit, 0, maxCountLimit, &o.ToolCallLimit},
		{"sample_limit", raw.SampleLimit, DefaultSampleLimit, 0, maxSampleLimit, &o.SampleLimit},
		{"sample_printable_limit", raw.SamplePrintableLimit, DefaultSamplePrintableLimit, 0, maxPrintableLimit, &o.SamplePrintableLimit},
		{"scan_window", raw.ScanWindow, DefaultScanWindow, 1, maxScanWindow, &o.ScanWindow},
		{"nudge_attempt", raw.NudgeAttempt, DefaultNudgeAttempt, 1, maxNudgeAttempt, &o.NudgeAttempt},
		{"trigger", raw.Trigger, DefaultTrigger, 0, maxTokenFigureBound, &o.Trigger},
		{"keep", raw.Keep, DefaultKeep, 0, maxCountLimit, &o.Keep},
		{"clear_at_least", raw.ClearAtLeast, 0, 0, maxTokenFigureBound, &o.ClearAtLeast},
		{"max_tokens", raw.MaxTokens, 0, 0, maxTokenFigureBound, &o.MaxTokens},
	}
	for _, f := range ints {
		if f.raw == nil {
			*f.dst = f.def
			continue
		}
		if v := *f.raw; v < f.min || v > f.max {
			return Options{}, &OptionError{Option: f.name, Reason: fmt.Sprintf("must be between %d and %d, got %d", f.min, f.max, v)}
		}
		*f.dst = *f.raw
	}
	o.TurnsLeftSet = raw.TurnsLeft != nil

	switch o.Prompt {
	case "":
		o.Prompt = PromptLean
	case PromptLean, PromptFull:
	default:
		return Options{}, &OptionError{Option: "prompt", Reason: fmt.Sprintf("must be %q or %q, got %q", PromptLean, PromptFull, o.Prompt)}
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

	if o.Pricing, err = resolvePricing(raw.Pricing, raw.CacheReadRate, raw.CacheWriteRate); err != nil {
		return Options{}, err
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

	o.SnapshotToolPrefixes = raw.SnapshotToolPrefixes
	if len(o.SnapshotToolPrefixes) == 0 {
		o.SnapshotToolPrefixes = DefaultSnapshotToolPrefixes
	}
	if o.Placeholder == "" {
		o.Placeholder = DefaultPlaceholder
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
