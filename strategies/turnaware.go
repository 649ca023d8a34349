package strategies

import "slices"

// turnAware keeps the whole current turn, so an agent can still read the
// results of earlier steps of a multi-step task (a login's session id, say),
// and compresses everything before it to the latest tool loop. Results of
// snapshot tools (get_status and the like) go stale as soon as a newer one
// exists, so only the latest of each is kept.
type turnAware struct{}

func init() { register(turnAware{}) }

func (turnAware) Name() string { return "turn-aware" }

func (turnAware) Description() string {
	return "System prompt, the latest tool loop before the current turn, and every message of the current turn (from the most recent user prompt, or the last broadcast); with neither, the latest tool loop and a synthetic nudge. Only the latest result of each snapshot tool is kept."
}

func (turnAware) Input() Input { return InputHistory }

func (turnAware) Options() []OptionDoc {
	return []OptionDoc{docScanWindow, docNudgeAttempt, docNudges,
		{"snapshot_tool_prefixes", "[\"get_\"]",
			"Tools whose name starts with one of these prefixes return snapshots of state; only the latest result of each such tool is kept, earlier calls and results are dropped."},
		docTokenizer,
		docPricing, docCacheReadRate, docCacheWriteRate}
}

func (s turnAware) Render(req *Request) (*Response, error) {
	if err := checkChatOptions(&req.Options); err != nil {
		return nil, err
	}
	h := req.History
	if err := validateHistory(h); err != nil {
		return nil, err
	}
	c := scanWindow(h, req.Options.ScanWindow)
	var out chatOutput
	if c.system >= 0 {
		out.copyFrom(h, c.system)
	}
	nudge := false
	if c.prompt >= 0 {
		out.copyFrom(h, latestLoop(h, c.seq[:c.prompt])...)
		out.copyFrom(h, c.seq[c.prompt:]...)
	} else if b := lastBroadcast(h, c.start); b >= 0 {
		// The turn began before the window with the last broadcast: what
		// the window shows of it is the current turn.
		out.copyFrom(h, b)
		out.copyFrom(h, c.seq...)
	} else {
		// No prompt and no broadcast: the synthetic nudge starts a new
		// turn (seed 002), after the latest complete tool loop.
		out.copyFrom(h, latestLoop(h, c.seq)...)
		nudge = true
	}
	compactSnapshots(&out, req.Options.SnapshotToolPrefixes)
	return finishNudged(s.Name(), req, &out, nudge)
}

// compactSnapshots keeps only the latest result of each snapshot tool. An
// earlier snapshot call is dropped together with its result: the call is
// removed from its assistant message's tool calls, and an assistant message
// left with neither tool calls nor content is dropped. Calls and results stay
// paired, so a valid sequence stays valid.
func compactSnapshots(out *chatOutput, prefixes []string) {
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
	seen := map[string]bool{}
	drop := make([]bool, len(out.msgs))
	dropCall := map[int][]string{} // assistant position -> call ids dropped
	for i := len(out.msgs) - 1; i >= 0; i-- {
		m := &out.msgs[i]
		if m.Role != RoleTool {
			continue
		}
		name := out.msgs[owner[i]].ToolCalls[callIndex(&out.msgs[owner[i]], m.ToolCallID)].Name
		if !matchesPrefix(name, prefixes) {
			continue
		}
		if seen[name] {
			drop[i] = true
			dropCall[owner[i]] = append(dropCall[owner[i]], m.ToolCallID)
			continue
		}
		seen[name] = true
	}
	if len(dropCall) == 0 {
		return
	}
	kept := chatOutput{
		msgs: make([]ChatMessage, 0, len(out.msgs)),
		from: make([]int, 0, len(out.msgs)),
	}
	for i, m := range out.msgs {
		if drop[i] {
			continue
		}
		ids, edited := dropCall[i]
		if !edited {
			kept.msgs = append(kept.msgs, m)
			kept.from = append(kept.from, out.from[i])
			continue
		}
		calls := make([]ChatToolCall, 0, len(m.ToolCalls))
		for _, tc := range m.ToolCalls {
			if !slices.Contains(ids, tc.ID) {
				calls = append(calls, tc)
			}
		}
		if len(calls) == 0 && m.Content == "" {
			continue
		}
		if len(calls) == 0 {
			calls = nil
		}
		m.ToolCalls = calls
		kept.add(m)
	}
	*out = kept
}
