package strategies

import "fmt"

// clearToolResults follows the semantics of Anthropic's context editing
// (clear_tool_uses_20250919) and LangChain's ClearToolUsesEdit: the history
// is sent whole, but once it grows past a token threshold the oldest tool
// results are replaced by a placeholder. The model still sees that a call
// happened and what it asked for; it loses only the payload, which it has
// already acted on.
type clearToolResults struct{}

func init() { register(clearToolResults{}) }

func (clearToolResults) Name() string { return "clear-tool-results" }

func (clearToolResults) Description() string {
	return "The whole history, but when it exceeds trigger tokens the oldest tool results (all but the keep most recent) are replaced by a placeholder, as in Anthropic's clear_tool_uses context editing."
}

func (clearToolResults) Input() Input { return InputHistory }

func (clearToolResults) Options() []OptionDoc {
	return []OptionDoc{
		{"trigger", "100000", "Clearing happens only when the history's tokens exceed this many."},
		{"keep", "3", "The most recent tool results that are never cleared (excluded tools count among them)."},
		{"clear_at_least", "0", "When above 0: clear oldest first only until this many tokens are reclaimed, and clear nothing at all when even clearing every candidate reclaims fewer."},
		{"exclude_tools", "[]", "Tool names whose calls and results are never cleared."},
		{"clear_tool_inputs", "false", "Also replace the arguments of each cleared call with {}."},
		{"placeholder", "[cleared]", "The text that replaces a cleared tool result."},
		docTokenizer,
		docPricing, docCacheReadRate, docCacheWriteRate,
	}
}

// clearedArguments replaces the arguments of a call whose inputs are
// cleared; it stays valid JSON so clients that parse arguments keep working.
const clearedArguments = "{}"

func (s clearToolResults) Render(req *Request) (*Response, error) {
	opts := &req.Options
	for _, c := range []struct {
		name string
		v    int
	}{{"trigger", opts.Trigger}, {"keep", opts.Keep}, {"clear_at_least", opts.ClearAtLeast}} {
		if c.v < 0 {
			return nil, &OptionError{Option: c.name, Reason: fmt.Sprintf("must not be negative, got %d", c.v)}
		}
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

	var out chatOutput
	if sys := systemIndex(h); sys >= 0 {
		out.copyFrom(h, sys)
	}
	out.copyFrom(h, repairSequence(h, nonSystem(h))...)
	total := 0
	for _, i := range out.from {
		total += counts[i]
	}
	cleared, tokens := 0, 0
	if total > opts.Trigger {
		cleared, tokens, err = clearOldest(&out, counts, opts, tok)
		if err != nil {
			return nil, err
		}
	}
	resp, err := chatResponse(s.Name(), req, counts, &out)
	if err != nil {
		return nil, err
	}
	resp.Stats.ToolUsesCleared, resp.Stats.TokensCleared = cleared, tokens
	return resp, nil
}

// clearOldest clears tool uses of out (a valid sequence whose messages all
// come from the history, counts holding their token counts) oldest first and reports how many it cleared and
// the tokens that saved. A tool use is a candidate when its result is not
// among the keep most recent results, its tool is not excluded, its result
// is not already the placeholder, and clearing it saves tokens.
func clearOldest(out *chatOutput, counts []int, opts *Options, tok string) (int, int, error) {
	var results []int // positions of tool messages in out
	for i := range out.msgs {
		if out.msgs[i].Role == RoleTool {
			results = append(results, i)
		}
	}
	candidates := results[:max(0, len(results)-opts.Keep)]
	if len(candidates) == 0 {
		return 0, 0, nil
	}
	excluded := make(map[string]bool, len(opts.ExcludeTools))
	for _, name := range opts.ExcludeTools {
		excluded[name] = true
	}
	placeholderTokens, err := CountTokens(tok, opts.Placeholder)
	if err != nil {
		return 0, 0, err
	}
	emptyArgsTokens, err := CountTokens(tok, clearedArguments)
	if err != nil {
		return 0, 0, err
	}

	edited := make([]ChatMessage, len(out.msgs))
	copy(edited, out.msgs)
	touched := make([]bool, len(out.msgs))
	caller, cleared, saved := -1, 0, 0
	next := 0
	for i := range out.msgs {
		if out.msgs[i].Role != RoleTool {
			caller = i
		}
		if next == len(candidates) || candidates[next] != i {
			continue
		}
		next++
		res := &edited[i]
		call := callIndex(&edited[caller], res.ToolCallID)
		name := edited[caller].ToolCalls[call].Name
		if excluded[name] || res.Content == opts.Placeholder {
			continue
		}
		// The message's count is its content's plus its reasoning's; taking
		// it from the history's counts spares tokenizing the (large) content
		// a second time.
		reasoningTokens, err := CountTokens(tok, res.Reasoning)
		if err != nil {
			return 0, 0, err
		}
		gain := counts[out.from[i]] - reasoningTokens - placeholderTokens
		args := edited[caller].ToolCalls[call].Arguments
		clearArgs := opts.ClearToolInputs && args != clearedArguments
		if clearArgs {
			argTokens, err := CountTokens(tok, args)
			if err != nil {
				return 0, 0, err
			}
			gain += argTokens - emptyArgsTokens
		}
		if gain <= 0 {
			continue
		}
		res.Content = opts.Placeholder
		touched[i] = true
		if clearArgs {
			if !touched[caller] {
				// Copy the calls before editing: they are shared with the
				// caller's history.
				edited[caller].ToolCalls = append([]ChatToolCall(nil), edited[caller].ToolCalls...)
				touched[caller] = true
			}
			edited[caller].ToolCalls[call].Arguments = clearedArguments
		}
		cleared++
		saved += gain
		if opts.ClearAtLeast > 0 && saved >= opts.ClearAtLeast {
			break
		}
	}
	if cleared == 0 || saved < opts.ClearAtLeast {
		// Anthropic's rule: when the minimum cannot be reached, clearing is
		// not worth breaking the prompt cache, so nothing is cleared.
		return 0, 0, nil
	}
	for i := range edited {
		if touched[i] {
			out.msgs[i] = edited[i]
			out.from[i] = -1
		}
	}
	return cleared, saved, nil
}

// callIndex returns the index in m's tool calls of the call with the given id.
func callIndex(m *ChatMessage, id string) int {
	for j, tc := range m.ToolCalls {
		if tc.ID == id {
			return j
		}
	}
	return -1
}
