package strategies

import "fmt"

// tokenBudget keeps the most recent messages that fit a token budget, counted
// with the exact tokenizer, the way LangChain's trim_messages does with
// strategy="last", include_system=True and start_on="human" — except that a
// tool loop (an assistant message with tool calls and its results) is kept or
// dropped as one unit, so the output never holds a result without its call
// or a call without its results.
type tokenBudget struct{}

func init() { register(tokenBudget{}) }

func (tokenBudget) Name() string { return "token-budget" }

func (tokenBudget) Description() string {
	return "The system prompt and the most recent messages that fit max_tokens, starting on a user message, never separating a tool call from its results."
}

func (tokenBudget) Input() Input { return InputHistory }

func (tokenBudget) Options() []OptionDoc {
	return []OptionDoc{
		{"max_tokens", "(required)", "Token budget for the whole output, system prompt included, counted with the tokenizer."},
		docTokenizer,
		docPricing, docCacheReadRate, docCacheWriteRate,
	}
}

func (s tokenBudget) Render(req *Request) (*Response, error) {
	opts := &req.Options
	if opts.MaxTokens <= 0 {
		return nil, &OptionError{Option: "max_tokens", Reason: fmt.Sprintf("token-budget needs a budget above 0, got %d", opts.MaxTokens)}
	}
	if err := checkTokenizer(opts.Tokenizer); err != nil {
		return nil, err
	}
	h := req.History
	if err := validateHistory(h); err != nil {
		return nil, err
	}
	tok := opts.Tokenizer
	if tok == "" {
		tok = DefaultTokenizer
	}
	counts, err := messageTokens(req.Remembered, tok, h)
	if err != nil {
		return nil, err
	}

	budget := opts.MaxTokens
	var out chatOutput
	if sys := systemIndex(h); sys >= 0 {
		if counts[sys] > budget {
			return nil, &OptionError{Option: "max_tokens", Reason: fmt.Sprintf(
				"the system prompt alone takes %d tokens (%s), more than the budget of %d", counts[sys], tok, budget)}
		}
		budget -= counts[sys]
		out.copyFrom(h, sys)
	}

	seq := repairSequence(h, nonSystem(h))
	// Walk back over units (a tool loop, or any other single message) while
	// they fit; the first that does not fit ends the kept suffix.
	start := len(seq)
	for start > 0 {
		unit := start - 1
		for unit > 0 && h[seq[unit]].Role == RoleTool {
			unit--
		}
		cost := 0
		for _, i := range seq[unit:start] {
			cost += counts[i]
		}
		if cost > budget {
			break
		}
		budget -= cost
		start = unit
	}
	// Start on a user message: a reply or tool loop with no question before
	// it reads as if the model had spoken first.
	for start < len(seq) && h[seq[start]].Role != RoleUser {
		start++
	}
	out.copyFrom(h, seq[start:]...)
	return chatResponse(s.Name(), req, counts, &out)
}
