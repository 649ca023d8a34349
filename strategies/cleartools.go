package strategies

import (
	"math"
	"slices"
)

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
	return "The whole history, but each time it grows past trigger tokens the oldest tool results (all but the keep most recent) are replaced by a placeholder, as in Anthropic's clear_tool_uses context editing; results stay cleared, so the prompt changes only when the trigger is crossed again. Under a pricing that caches, a clearing waits until its savings repay rewriting the prompt after the first result it clears within half as many calls as the conversation has had."
}

func (clearToolResults) Input() Input { return InputHistory }

func (clearToolResults) Options() []OptionDoc {
	return []OptionDoc{
		intOptionDoc("trigger", "Clearing happens when the prompt, with the results cleared before, exceeds this many tokens (and, under a pricing that caches, the clearing pays back its rewrite)."),
		intOptionDoc("keep", "The most recent tool results that are never cleared (excluded tools count among them)."),
		intOptionDoc("clear_at_least", "When above 0: a clearing clears oldest first only until this many tokens are reclaimed, and clears nothing at all when even clearing every candidate reclaims fewer."),
		{"exclude_tools", "[]", "Tool names whose calls and results are never cleared."},
		{"clear_tool_inputs", "false", "Also replace the arguments of each cleared call with " + clearedArguments + "."},
		{"placeholder", DefaultPlaceholder, "The text that replaces a cleared tool result."},
		docTriggerFraction, docNudgeAttempt, docNudges, docProvider, docTokenizer, docKeepThinking,
		docPricing, docCacheReadRate, docCacheWriteRate, docModel, docMinCacheableTokens, docMaxResponseBytes,
	}
}

// clearedArguments replaces the arguments of a call whose inputs are
// cleared; it stays valid JSON so clients that parse arguments keep working.
const clearedArguments = "{}"

func (s clearToolResults) Render(req *Request) (*Response, error) {
	opts := &req.Options
	h := req.History
	if err := validateHistory(h); err != nil {
		return nil, err
	}
	tok := opts.counter()
	counts, err := messageCounts(req.Remembered, tok, h)
	if err != nil {
		return nil, err
	}
	ch := chatHistoryFor(h, opts)
	var out chatOutput
	out.open(ch)
	open := ch.openings()[0]
	if open.nudge {
		out.addNudge(opts)
	}
	kept := ch.seq[open.start:]
	out.greetings = open.start
	first := len(out.msgs)
	out.copyFrom(ch, kept...)
	sent, err := ch.sentCounts(req.Remembered, tok, counts)
	if err != nil {
		return nil, err
	}
	c := clearing{ch: ch, counts: sent, opts: opts, tok: tok.tokenizer, counter: tok, rem: req.Remembered, positions: callPositions{}, names: clearedNames{}}
	c.total = ch.pinnedTokens(sent)
	if ch.system >= 0 {
		c.total += sent[ch.system].tokens
	}
	if err := c.replay(kept); err != nil {
		return nil, err
	}
	c.apply(&out, first)
	resp, err := chatResponse(s.Name(), req, ch, counts, &out)
	if err != nil {
		return nil, err
	}
	resp.Stats.ToolUsesCleared, resp.Stats.TokensCleared = c.next, c.saved
	return resp, nil
}

// clearing replays a history's tool results in order, as the calls before
// this one saw them, and decides which are cleared. A clearing happens
// whenever the prompt, with the results cleared before, exceeds trigger
// tokens: it clears the oldest candidates (every result but the keep most
// recent at that point, except results of excluded tools, results that
// already hold the placeholder, and results whose clearing would save
// nothing), all of them, or with clear_at_least only until that many tokens
// are reclaimed, and none when even all of them would reclaim fewer.
// Cleared results stay cleared: the prompt then grows by appending until it
// crosses the trigger again, and a provider's prompt cache serves its
// unchanged beginning in between. (Clearing again on every call past the
// trigger, as a stateless reading of Anthropic's rule does, would rewrite
// the prompt from the oldest newly cleared result on every call.)
type clearing struct {
	ch      *chatHistory
	counts  []textCounts
	opts    *Options
	tok     string
	counter counter
	rem     *Remembered
	names   clearedNames // what a cleared result need not list

	total   int         // tokens of the prompt so far, cleared results counted as cleared
	results []int       // positions (in the replayed messages) of tool results
	owners  []int       // position of the assistant message each result answers
	elig    []candidate // results that a clearing may clear, oldest first
	next    int         // elig[:next] are cleared
	saved   int         // tokens the clearings reclaimed
	before  []int       // per replayed position, the tokens before it, none cleared
	calls   int         // assistant messages replayed so far

	// The bill so far (under opts.Pricing) of the calls replayed: what the
	// raw history billed more than the strategy, and the previous call's
	// output and raw history in tokens (prevSize -1 before the first call).
	ahead             float64
	prevSize, prevRaw int
	rewriteFrom       int           // where this call's clearing rewrote the prompt, else math.MaxInt
	positions         callPositions // of the replayed assistant messages' calls
}

// candidate is a tool result that a clearing may clear.
type candidate struct {
	pos, owner int // positions in the replayed messages
	gain       int // tokens its clearing reclaims
	clearArgs  bool
	cleared    string // the content it is cleared to (clearedContent)
}

// replay walks the messages (indices into the history) and clears at the
// end of each unit (a tool loop, or any other message) where the prompt
// exceeds the trigger.
func (c *clearing) replay(kept []int) error {
	h := c.ch.h
	owner := -1
	c.prevSize, c.rewriteFrom = -1, math.MaxInt
	for p, i := range kept {
		c.before = append(c.before, c.total+c.saved)
		if h[i].Role != RoleTool {
			if p > 0 && h[i].Role == RoleAssistant {
				c.clearIfOver() // the messages so far are a call's history
			}
			owner = p
			if h[i].Role == RoleAssistant {
				c.calls++
				if !c.opts.ClearToolInputs {
					c.names.noteArguments(c.ch.form(i))
				}
			}
		} else {
			c.results = append(c.results, p)
			c.owners = append(c.owners, owner)
			if r := len(c.results) - 1 - c.opts.Keep; r >= 0 {
				if err := c.consider(kept, r); err != nil {
					return err
				}
			}
		}
		c.total += c.counts[i].tokens
	}
	c.clearIfOver()
	return nil
}

// consider makes result r (an index into c.results) a candidate when it is
// one: not of an excluded tool, not already the placeholder, and worth
// clearing.
func (c *clearing) consider(kept []int, r int) error {
	res := c.ch.form(kept[c.results[r]])
	caller := c.ch.form(kept[c.owners[r]])
	call := caller.ToolCalls[c.positions.index(c.owners[r], caller, res.ToolCallID)]
	if slices.Contains(c.opts.ExcludeTools, call.Name) || isCleared(c.opts.Placeholder, res.Content) && len(res.Parts) == 0 {
		return nil
	}
	// The message's count is its content's and parts' plus its reasoning's; taking it
	// from the history's counts spares tokenizing the (large) content a
	// second time.
	reasoning, err := CountTokens(c.tok, res.Reasoning)
	if err != nil {
		return err
	}
	cleared := c.names.content(c.opts.Placeholder, res.Content)
	placeholder, err := c.rem.tokens(c.counter, []ChatMessage{{Role: RoleTool, Content: cleared}})
	if err != nil {
		return err
	}
	gain := c.counts[kept[c.results[r]]].tokens - reasoning - placeholder
	clearArgs := c.opts.ClearToolInputs && call.Arguments != clearedArguments
	if clearArgs {
		args, err := CountTokens(c.tok, call.Arguments)
		if err != nil {
			return err
		}
		empty, err := CountTokens(c.tok, clearedArguments)
		if err != nil {
			return err
		}
		gain += args - empty
	}
	if gain > 0 {
		c.elig = append(c.elig, candidate{pos: c.results[r], owner: c.owners[r], gain: gain, clearArgs: clearArgs, cleared: cleared})
	}
	return nil
}

// clearIfOver clears when the prompt so far, a call's, exceeds the
// trigger, and prices the call.
func (c *clearing) clearIfOver() {
	rate := c.opts.Pricing
	r, w := rate.ReadRate, rate.WriteRate
	raw := c.total + c.saved // nothing cleared: the raw history
	rawCost := w * float64(raw)
	if c.prevSize >= 0 {
		rawCost = r*float64(c.prevRaw) + w*float64(raw-c.prevRaw)
	}
	defer func() {
		cost := w * float64(c.total)
		if c.prevSize >= 0 {
			// Appended to the previous output, or rewritten from the
			// first result this call cleared (clear sets rewriteFrom).
			from := min(c.prevSize, c.rewriteFrom)
			cost = r*float64(from) + w*float64(c.total-from)
		}
		c.ahead += rawCost - cost
		c.prevSize, c.prevRaw, c.rewriteFrom = c.total, raw, math.MaxInt
	}()
	if c.total <= c.opts.Trigger || c.next == len(c.elig) {
		return
	}
	end, saved := c.next, 0
	for end < len(c.elig) && (c.opts.ClearAtLeast == 0 || saved < c.opts.ClearAtLeast) {
		saved += c.elig[end].gain
		end++
	}
	if saved < c.opts.ClearAtLeast {
		// Anthropic's rule: when the minimum cannot be reached, clearing is
		// not worth breaking the prompt cache, so nothing is cleared.
		return
	}
	// A clearing rewrites the prompt from the first result it clears: what
	// follows it is written afresh instead of read from the cache, once,
	// and every later call reads the tokens saved fewer times. The calls
	// still to come are unknown; a conversation that has run for n calls
	// is taken to run for about n more, and the clearing is made only where
	// it pays back within half of them. Without caching (read and write
	// rates 1) a rewrite costs nothing and the clearing is always made.
	from := c.before[c.elig[c.next].pos] - c.saved // tokens before the first result cleared
	rewritten := c.total - from - saved
	if float64(saved)*r*float64(c.calls)/2 < float64(rewritten)*(w-r) {
		return
	}
	// And only where what the strategy saved on the calls so far pays for
	// the rewrite: a conversation may end on this call, and its bill must
	// stay within the raw history's.
	if c.prevSize >= 0 && w > r && c.ahead+rawCost-(r*float64(from)+w*float64(c.total-saved-from)) < 0 {
		return
	}
	c.next, c.saved, c.total, c.rewriteFrom = end, c.saved+saved, c.total-saved, from
}

// apply clears, in out (whose messages from first on are the replayed
// ones), the results the replay cleared.
func (c *clearing) apply(out *chatOutput, first int) {
	copied := make(map[int]bool) // assistant messages whose calls were copied
	positions := callPositions{}
	for _, e := range c.elig[:c.next] {
		res := first + e.pos
		// A result's parts (a screenshot tool's image) are its payload
		// too: the placeholder replaces them with its text.
		out.msgs[res].Content = e.cleared
		out.msgs[res].Parts = nil
		out.edited[res] = true
		if !e.clearArgs {
			continue
		}
		caller := first + e.owner
		if !copied[caller] {
			// Copy the calls before editing: they are shared with the
			// caller's history.
			out.msgs[caller].ToolCalls = slices.Clone(out.msgs[caller].ToolCalls)
			copied[caller] = true
		}
		k := positions.index(caller, &out.msgs[caller], out.msgs[res].ToolCallID)
		out.msgs[caller].ToolCalls[k].Arguments = clearedArguments
		out.edited[caller] = true
	}
}

// callPositions finds calls by id in assistant messages, each message's
// ids mapped on the first look at it: a message of n calls answered n
// times costs n lookups, where a scan of its calls per answer cost n²/2
// comparisons (8,000 calls took 0.64 s, 4,000 0.21 s). Keyed by the
// message's position in the sequence the caller walks; a message's calls
// may be copied but not reordered while it is used.
type callPositions map[int]map[string]int

// index returns the index in m's tool calls, m at position key, of the
// first call with the given id; -1 when none has it.
func (p callPositions) index(key int, m *ChatMessage, id string) int {
	ids, ok := p[key]
	if !ok {
		ids = make(map[string]int, len(m.ToolCalls))
		for j, tc := range m.ToolCalls {
			if _, taken := ids[tc.ID]; !taken {
				ids[tc.ID] = j
			}
		}
		p[key] = ids
	}
	if j, ok := ids[id]; ok {
		return j
	}
	return -1
}
