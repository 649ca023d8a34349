package strategies

import "slices"

// loopSlice sends the smallest context that still lets an agent continue:
// the system prompt, the prompt that drives the current turn, and the latest
// complete tool loop. Its size is bounded whatever the history's length.
type loopSlice struct{}

func init() { register(loopSlice{}) }

func (loopSlice) Name() string { return "loop-slice" }

func (loopSlice) Description() string {
	return "System prompt, the prompt of the current turn (the most recent user prompt of the scan window, else the user's request from before it, or in seed 002's world the last broadcast, else a synthetic nudge, last) and the latest complete tool loop, in the history's order. Unless the provider is openai, a loop that would open the conversation is led by the prompt it answered or sent as a note. Outside seed 002's world (unless window_only is set), every prompt of the history before its last message is sent too, and each other unit dropped there leaves a ledger note (the calls' names, the start and end of their arguments and the values their results held), or is sent whole when a note would not shorten it by half."
}

func (loopSlice) Input() Input { return InputHistory }

func (loopSlice) Options() []OptionDoc {
	return []OptionDoc{docScanWindow, docNudgeAttempt, docNudges, docWindowOnly, docProvider, docTokenizer, docKeepThinking,
		docPricing, docCacheReadRate, docCacheWriteRate, docModel, docMinCacheableTokens, docMaxResponseBytes}
}

func (s loopSlice) Render(req *Request) (*Response, error) {
	h := req.History
	if err := validateHistory(h); err != nil {
		return nil, err
	}
	ch := chatHistoryFor(h, &req.Options)
	w := ch.scan(ch.lastN(req.Options.ScanWindow))
	prompt, source := ch.currentPrompt(w, &req.Options)
	loop := latestLoop(h, w.seq)
	var out chatOutput
	out.open(ch)
	// The prompt and the loop in the history's order, as the seed composes
	// them. A new prompt after the latest loop comes after it: sending it
	// before the old loop would present the loop as its answer. Where the
	// provider wants the user first, finish leads the loop with the prompt
	// it answered, or sends it as a note.
	picked := slices.Clone(loop)
	if prompt >= 0 {
		picked = append(picked, prompt)
		slices.Sort(picked)
	} else {
		// No prompt: the nudge is the turn's boundary, last (finish).
		out.addNudge(&req.Options)
	}
	out.copyFrom(ch, picked...)
	if keepsEvidence(ch, &req.Options) {
		// A loop turns into a note once a newer loop replaces it, where
		// what the strategy saved so far repays the rewrite (planLedger).
		var loops []int
		for _, i := range ch.seq {
			if m := &ch.h[i]; m.Role == RoleAssistant && len(m.ToolCalls) > 0 {
				loops = append(loops, i)
			}
		}
		plan, err := ch.planLedger(req, func(end int) int {
			k, _ := slices.BinarySearch(loops, end)
			if k == 0 {
				return end
			}
			return loops[k-1]
		})
		if err != nil {
			return nil, err
		}
		addLedger(ch, &out, false, req.Options.Pricing, plan)
		out.notesStay = true
		if plan.nextNote {
			// The next call sends this loop as a note: the part it sends
			// again ends before it.
			out.keepBefore = plan.wholeFrom
		}
	}
	resp, err := chatResponse(s.Name(), req, ch, nil, &out)
	if err != nil {
		return nil, err
	}
	resp.Stats.PromptSource = source
	return resp, nil
}

// Where the prompt of loop-slice's and turn-aware's current turn comes from
// (Stats.PromptSource).
const (
	promptWindow    = "window"
	promptTask      = "task"
	promptBroadcast = "broadcast"
	promptNudge     = "nudge"
)

// currentPrompt returns the index in h of the prompt that drives the current
// turn, and where it comes from:
//
//  1. the most recent prompt of the scan window;
//  2. outside seed 002's world, unless the caller asked for window_only: the
//     user's request, the most recent prompt anywhere before the window. An
//     OpenAI- or Anthropic-style agent's task is a user message, and a coding
//     agent sends hundreds of tool calls after it without another;
//  3. the most recent broadcast before the window (a standing order);
//  4. none (-1): a synthetic nudge serves.
//
// In seed 002's world a direct message older than the window has been dealt
// with, and the nudge that follows is what lets an idle agent's caller count
// its attempts and go idle; so there the seed's rule (1, 3, 4) holds.
func (ch *chatHistory) currentPrompt(w window, opts *Options) (int, string) {
	if w.prompt >= 0 {
		return w.seq[w.prompt], promptWindow
	}
	if !ch.seed && !opts.WindowOnly {
		if t := ch.task(); t >= 0 {
			return t, promptTask
		}
	}
	if b := ch.lastBroadcast(w.start); b >= 0 {
		return b, promptBroadcast
	}
	return -1, promptNudge
}
