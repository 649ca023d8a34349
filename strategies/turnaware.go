package strategies

import (
	"slices"
	"strconv"
	"strings"
)

// turnAware keeps the whole current turn, so an agent can still read the
// results of earlier steps of a multi-step task (a login's session id, say),
// and compresses everything before it to the latest tool loop. Results of
// snapshot tools (get_status and the like) go stale as soon as a newer one
// exists, so only the latest of each is kept.
type turnAware struct{}

func init() { register(turnAware{}) }

func (turnAware) Name() string { return "turn-aware" }

func (turnAware) Description() string {
	return "System prompt, the latest tool loop before the current turn, and every message of the current turn (from the most recent user prompt of the scan window; else from the user's request or, in seed 002's world, the last broadcast, then the window); with no prompt at all, the latest tool loop (seed 002's world) or the window, then a synthetic nudge, last. Unless the provider is openai, a loop that would open the conversation is led by the prompt it answered (chosen after snapshot compaction) or sent as a note. Only the latest result of each snapshot tool is kept. Outside seed 002's world (unless window_only is set), the scan window (stepped by its size once the history holds three windows) is sent whole instead, snapshots included, and before it every prompt of the history and a ledger note for each other unit (the calls' names, the start and end of their arguments and the values their results held)."
}

func (turnAware) Input() Input { return InputHistory }

func (turnAware) Options() []OptionDoc {
	return []OptionDoc{docScanWindow, docNudgeAttempt, docNudges,
		{"snapshot_tool_prefixes", quotedList(DefaultSnapshotToolPrefixes),
			"Tools whose name starts with one of these prefixes return snapshots of state; in seed 002's world or with window_only, only the latest result of each such tool (outside seed 002's world: each such tool called with the same arguments) is kept, earlier calls and results are dropped."},
		docWindowOnly, docProvider, docTokenizer, docKeepThinking,
		docPricing, docCacheReadRate, docCacheWriteRate, docModel, docMinCacheableTokens, docMaxResponseBytes}
}

func (s turnAware) Render(req *Request) (*Response, error) {
	opts := &req.Options
	h := req.History
	if err := validateHistory(h); err != nil {
		return nil, err
	}
	ch := chatHistoryFor(h, opts)
	// Seed 002's window moves with every message. Elsewhere it moves in
	// steps, so the prompt keeps its beginning (and its cache) while the
	// current turn grows past the window.
	first := ch.lastN(opts.ScanWindow)
	if keepsEvidence(ch, opts) {
		first = ch.firstStep(opts.ScanWindow)
	}
	w := ch.scan(first)
	prompt, source := ch.currentPrompt(w, opts)
	var out chatOutput
	out.open(ch)
	switch {
	case keepsEvidence(ch, opts):
		// The window is sent whole, and what came before it is left as the
		// ledger (every prompt, a note for each other unit): the window
		// steps, so the prompt changes at its steps only, and the current
		// turn and the turns the window still shows stay whole.
		kept := w.seq
		if !ch.openai && ch.userBefore(w.start) < 0 {
			// Nothing the user said comes before: what the agent said
			// before anyone spoke to it (a greeting) becomes a note, a
			// user message, so the conversation opens with the user's.
			for len(kept) > 0 && ch.h[kept[0]].Role != RoleUser {
				kept = kept[1:]
			}
		}
		if ch.task() < 0 {
			// No user message at all (an agent whose task is in its
			// system prompt): the nudge ends the request (finish).
			out.addNudge(opts)
		}
		out.copyFrom(ch, kept...)
		addLedger(ch, &out, true, opts.Pricing, nil)
	case source == promptWindow:
		// History before the turn is compressed to its latest tool loop.
		// Where the provider wants the user first, finish leads it with the
		// prompt it answered once snapshots are compacted (a lead chosen
		// before could stay in front of a loop compaction removed).
		out.copyFrom(ch, latestLoop(h, w.seq[:w.prompt])...)
		out.copyFrom(ch, w.seq[w.prompt:]...)
	case source == promptTask || source == promptBroadcast:
		// The turn began before the window: what the window shows of it is
		// the current turn.
		out.copyFrom(ch, prompt)
		out.copyFrom(ch, w.seq...)
	default:
		// No prompt (seed 002's world, or window_only): the latest
		// complete tool loop, then the synthetic nudge, which starts a new
		// turn and so comes last (finish).
		out.copyFrom(ch, latestLoop(h, w.seq)...)
		out.addNudge(opts)
	}
	if !keepsEvidence(ch, opts) {
		// With the ledger, an earlier snapshot stays: dropping it from
		// the middle of the window would rewrite the prompt from there on,
		// and the values it showed are what a model copies.
		compactSnapshots(&out, opts.SnapshotToolPrefixes, !ch.seed)
	}
	resp, err := chatResponse(s.Name(), req, ch, nil, &out)
	if err != nil {
		return nil, err
	}
	resp.Stats.PromptSource = source
	return resp, nil
}

// compactSnapshots keeps only the latest result of each snapshot tool: in
// seed 002's world each tool by name (get_status takes no arguments there),
// elsewhere each tool called with the same arguments, since
// get_reservation(A) says nothing about reservation B. An earlier snapshot
// call is dropped together with its result: the call is removed from its
// assistant message's tool calls, and an assistant message left with
// neither tool calls nor text is dropped. Calls and results stay paired, so
// a valid sequence stays valid.
func compactSnapshots(out *chatOutput, prefixes []string, byArguments bool) {
	if len(prefixes) == 0 {
		return
	}
	// owner[i] is the position of the assistant message that tool message i
	// answers; out is a valid sequence, so that is the nearest assistant.
	owner := make([]int, len(out.msgs))
	caller := -1
	for i := range out.msgs {
		if out.msgs[i].Role != RoleTool {
			caller = i
		}
		owner[i] = caller
	}
	type snapshot struct{ name, arguments string }
	seen := map[snapshot]bool{}
	drop := make([]bool, len(out.msgs))
	dropCall := map[int][]string{} // assistant position -> call ids dropped
	positions := callPositions{}
	for i := len(out.msgs) - 1; i >= 0; i-- {
		m := &out.msgs[i]
		if m.Role != RoleTool {
			continue
		}
		call := out.msgs[owner[i]].ToolCalls[positions.index(owner[i], &out.msgs[owner[i]], m.ToolCallID)]
		if !matchesPrefix(call.Name, prefixes) {
			continue
		}
		key := snapshot{name: call.Name}
		if byArguments {
			key.arguments = call.Arguments
		}
		if seen[key] {
			drop[i] = true
			dropCall[owner[i]] = append(dropCall[owner[i]], m.ToolCallID)
			continue
		}
		seen[key] = true
	}
	if len(dropCall) == 0 {
		return
	}
	kept := chatOutput{
		msgs:      make([]ChatMessage, 0, len(out.msgs)),
		from:      make([]int, 0, len(out.msgs)),
		edited:    make([]bool, 0, len(out.msgs)),
		nudge:     out.nudge,
		exhausted: out.exhausted,
	}
	for i, m := range out.msgs {
		if drop[i] {
			continue
		}
		ids, edited := dropCall[i]
		if edited {
			calls := make([]ChatToolCall, 0, len(m.ToolCalls))
			for _, tc := range m.ToolCalls {
				if !slices.Contains(ids, tc.ID) {
					calls = append(calls, tc)
				}
			}
			if len(calls) == 0 && !m.says() {
				continue
			}
			if len(calls) == 0 {
				calls = nil
			}
			m.ToolCalls = calls
		}
		kept.msgs = append(kept.msgs, m)
		kept.from = append(kept.from, out.from[i])
		kept.edited = append(kept.edited, out.edited[i] || edited)
	}
	*out = kept
}

// firstStep is where turn-aware's window starts outside seed 002's world:
// the whole history while it holds at most three windows of n messages,
// then a start that steps by n. A step rewrites the prompt from the first
// unit it turns into a note on, and that rewrite is repaid only over the
// calls that follow: a conversation that ends a few calls after its first
// step (a customer-service dialogue, a 40-call coding session) bills more
// than its raw history, which is why the first step waits for three
// windows. Steps of one window, rather than two, let the ledger take over
// each stretch of a long session sooner and rewrite less at each step
// (docs/CHAT_STRATEGIES.md, "turn-aware").
func (ch *chatHistory) firstStep(n int) int {
	if len(ch.ns) <= 3*n {
		return 0
	}
	return ch.stepped(n)
}

// quotedList writes names as a JSON-style list of strings, as an option's
// default.
func quotedList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
