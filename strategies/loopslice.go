package strategies

import "slices"

// loopSlice sends the smallest context that still lets an agent continue:
// the system prompt, the prompt that drives the current turn, and the latest
// complete tool loop. Its size is bounded whatever the history's length.
type loopSlice struct{}

func init() { register(loopSlice{}) }

func (loopSlice) Name() string { return "loop-slice" }

func (loopSlice) Description() string {
	return "System prompt, the most recent user prompt of the scan window (else the last broadcast) and the latest complete tool loop, in input order; a synthetic nudge at the end when there is no prompt."
}

func (loopSlice) Input() Input { return InputHistory }

func (loopSlice) Options() []OptionDoc {
	return []OptionDoc{docScanWindow, docNudgeAttempt, docNudges, docTokenizer,
		docPricing, docCacheReadRate, docCacheWriteRate}
}

func (s loopSlice) Render(req *Request) (*Response, error) {
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
	var picked []int
	if c.prompt >= 0 {
		picked = append(picked, c.seq[c.prompt])
	} else if b := lastBroadcast(h, c.start); b >= 0 {
		picked = append(picked, b)
	}
	nudge := len(picked) == 0
	picked = append(picked, latestLoop(h, c.seq)...)
	slices.Sort(picked)
	out.copyFrom(h, picked...)
	return finishNudged(s.Name(), req, &out, nudge)
}

// finishNudged completes a loop-slice or turn-aware response, ending it with
// the synthetic nudge when nudge is set. The nudge goes last: it is made now,
// after everything in the history, and the model must answer it rather than
// continue its own last message.
func finishNudged(name string, req *Request, out *chatOutput, nudge bool) (*Response, error) {
	exhausted := false
	if nudge {
		var m ChatMessage
		m, exhausted = nudgeFor(&req.Options)
		out.add(m)
	}
	resp, err := chatResponse(name, req, nil, out)
	if err != nil {
		return nil, err
	}
	resp.Stats.SyntheticNudge, resp.Stats.NudgesExhausted = nudge, exhausted
	return resp, nil
}
