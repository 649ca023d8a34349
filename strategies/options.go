package strategies

import "github.com/ptc-sidecar/ptc-sidecar/lisp"

// Options are a request's options after normalization: every default applied
// and every range checked, so strategies never see an unset or invalid value.
type Options struct {
	Strategy     string
	Mission      string
	SystemPrompt string // "" means the built-in PTC-Lisp reference
	Prompt       string // the built-in reference's variant: PromptLean or PromptFull
	Tools        []ToolSpec
	Data         *lisp.Map // nil when the request has no data
	Signature    string    // the expected return signature, "" when none
	ProgramForm  string    // ProgramFenced or ProgramToolCall

	MaxTurns  int
	TurnsLeft int // when TurnsLeftSet, overrides MaxTurns - len(turns)
	// TurnsLeftSet records that the caller gave turns_left explicitly.
	TurnsLeftSet bool

	PrintlnLimit         int
	ToolCallLimit        int
	SampleLimit          int
	SamplePrintableLimit int
	Tokenizer            string

	// Chat strategies (loop-slice, turn-aware).
	ScanWindow           int
	NudgeAttempt         int
	Nudges               []string // wordings by attempt; index 0 is attempt 1
	SnapshotToolPrefixes []string
	WindowOnly           bool // seed 002's rule: no request from before the window
	// Provider is the provider whose rules the output keeps: ProviderOpenAI,
	// ProviderAnthropic, ProviderGemini, or "" for rules every one accepts.
	Provider string

	// clear-tool-results.
	Trigger         int
	Keep            int
	ClearAtLeast    int
	ExcludeTools    []string
	ClearToolInputs bool
	Placeholder     string

	// token-budget.
	MaxTokens int
	TrimTo    int // 0: a quarter of MaxTokens

	// Chat strategies: the assistant messages with reasoning whose
	// reasoning is kept, the most recent first; -1 keeps all.
	KeepThinkingTurns int
	// summarize (summarize.go).
	SummaryTrigger int
	SummaryKeep    int
	SummaryPrompt  string // "": DefaultSummaryPrompt
	SummaryHeader  string // "": DefaultSummaryHeader
	// SummaryRequestForm is SummaryRequestPrefix or SummaryRequestWhole.
	SummaryRequestForm string

	// MaxResponseBytes is the most bytes the answer may take on the wire,
	// the caller's receive limit; the server refuses a larger answer.
	MaxResponseBytes int

	// Pricing prices the bill in the stats of every strategy.
	Pricing Pricing

	// signatures are the signatures Normalize parsed, by text: Render
	// uses them, so that each is parsed once for a request, whatever the
	// memo keeps.
	signatures map[string]signatureText
}
