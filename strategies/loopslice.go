package strategies

import "slices"

// loopSlice sends the smallest context that still lets an agent continue:
// the system prompt, the prompt that drives the current turn, and the latest
// complete tool loop. Its size is bounded whatever the history's length.
type loopSlice struct{}

func init() { register(loopSlice{}) }

func (loopSlice) Name() string { return "loop-slice" }

func (loopSlice) Description() string {
	return "System prompt, the most recent user prompt of the scan window (else the last broadcast, else a synthetic nudge), and the latest complete tool loop."
}

func (loopSlice) Input() Input { return InputHistory }

func (loopSlice) Options() []OptionDoc {
	return []OptionDoc{docScanWindow, docNudgeAttempt, docNudges, docTokenizer}
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
	nudged, exhausted := false, false
	if len(picked) == 0 {
		var nudge ChatMessage
		nudge, exhausted = nudgeFor(&req.Options)
		out.add(nudge)
		nudged = true
	}
	picked = append(picked, latestLoop(h, c.seq)...)
	slices.Sort(picked)
	out.copyFrom(h, picked...)
	return finishNudged(s.Name(), req, &out, nudged, exhausted)
}

// finishNudged adds the nudge statistics to the common ones.
func finishNudged(name string, req *Request, out *chatOutput, nudged, exhausted bool) (*Response, error) {
	resp, err := chatResponse(name, req, nil, out)
	if err != nil {
		return nil, err
	}
	resp.Stats.SyntheticNudge, resp.Stats.NudgesExhausted = nudged, exhausted
	return resp, nil
}
