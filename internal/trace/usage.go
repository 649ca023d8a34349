package trace

import (
	"fmt"
	"strconv"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// turnTokens are the token figures of one turn.
type turnTokens struct {
	response int // the LLM's answer: its raw response, else the program
	// The prompt the turn was answered from, as the request's strategy
	// builds it from the turns before, and as the full history would be.
	prompt, promptFull int
	hasPrompt          bool // false for strategies that read a chat log
	// estimated is set when the turn before holds no memory snapshot: the
	// prelude is then the final memory's bindings defined up to that turn.
	estimated bool
}

// countTurnTokens measures turn i of req with the options' tokenizer.
func countTurnTokens(req *strategies.Request, i int) (turnTokens, error) {
	var tt turnTokens
	t := &req.Turns[i]
	answer := t.RawResponse
	if answer == "" {
		answer = t.Program
	}
	n, err := strategies.CountTokens(req.Options.Tokenizer, answer)
	if err != nil {
		return tt, err
	}
	tt.response = n
	if inputOf(req.Options.Strategy) != strategies.InputTurns {
		return tt, nil
	}
	before := *req
	before.Turns = req.Turns[:i]
	before.Memory, tt.estimated = memoryBefore(req, i)
	if req.Options.TurnsLeftSet {
		// turns_left counts from after the last turn; before turn i it was
		// larger by the turns taken since.
		before.Options.TurnsLeft += len(req.Turns) - i
	}
	resp, err := strategies.Render(&before)
	if err != nil {
		return tt, err
	}
	tt.prompt, tt.promptFull, tt.hasPrompt = resp.Stats.TokensAfter, resp.Stats.TokensBefore, true
	return tt, nil
}

// memoryBefore is the memory turn i started from: the snapshot of the turn
// before when it has one. A failed turn changes no memory, so one without a
// snapshot passes on the memory it started from. Otherwise the final
// memory's bindings last defined up to that turn stand in (a binding
// redefined later is then missing), and estimated is true.
func memoryBefore(req *strategies.Request, i int) (mem []strategies.Binding, estimated bool) {
	if i == 0 {
		return nil, false
	}
	prev := &req.Turns[i-1]
	if len(prev.Memory) > 0 {
		return prev.Memory, false
	}
	if !prev.Success {
		return memoryBefore(req, i-1)
	}
	number := prev.Number
	if number == 0 {
		number = i
	}
	for _, b := range req.Memory {
		if b.Turn <= number {
			mem = append(mem, b)
		}
	}
	return mem, len(req.Memory) > 0
}

func writeTurnTokens(p *page, tt *turnTokens, tokenizer string) {
	s := "response " + strconv.Itoa(tt.response)
	if tt.hasPrompt {
		approx := ""
		if tt.estimated {
			approx = "≈"
		}
		s = fmt.Sprintf("prompt %s%d (full history %s%d) · %s", approx, tt.prompt, approx, tt.promptFull, s)
	}
	p.field("Tokens", s+" ["+tokenizer+"]", "")
}

// writeCompression renders the request's strategy on the whole request and
// writes the summary of what it did.
func writeCompression(p *page, req *strategies.Request) error {
	resp, err := strategies.Render(req)
	if err != nil {
		return err
	}
	writeStats(p, resp.Stats, inputOf(req.Options.Strategy))
	return nil
}

// writeStats is the compression box: what the strategy kept and dropped,
// then the size of what it sends against the uncompressed history.
func writeStats(p *page, s strategies.Stats, input strategies.Input) {
	p.open(titlePart{"Compression", sgrBold})
	p.field("Strategy", s.Strategy, "")
	if input == strategies.InputTurns {
		p.field("Turns", strconv.Itoa(s.TurnsCompressed)+" compressed", "")
		p.field("Tool calls", shownOf(s.ToolCallsShown, s.ToolCallsTotal, s.ToolCallsDropped), "")
		p.field("Printlns", shownOf(s.PrintlnsShown, s.PrintlnsTotal, s.PrintlnsDropped), "")
		p.field("Errors", strconv.Itoa(s.ErrorTurnsCollapsed)+" turn(s) collapsed", "")
	}
	if s.SyntheticNudge {
		nudge := "synthetic nudge added"
		if s.NudgesExhausted {
			nudge += "; attempts exhausted"
		}
		p.field("Nudge", nudge, "")
	}
	if s.ToolUsesCleared > 0 {
		p.field("Cleared", fmt.Sprintf("%s (%s)", plural(s.ToolUsesCleared, "tool result"), plural(s.TokensCleared, "token")), "")
	}
	p.field("Messages", fmt.Sprintf("%d → %d", s.MessagesBefore, s.MessagesAfter), "")
	p.field("Characters", fmt.Sprintf("%d → %d", s.CharsBefore, s.CharsAfter), "")
	p.field("Tokens", fmt.Sprintf("%d → %d%s [%s]", s.TokensBefore, s.TokensAfter, saved(s.TokensBefore, s.TokensAfter), s.Tokenizer), "")
	p.close()
}

func shownOf(shown, total, dropped int) string {
	return fmt.Sprintf("%d/%d shown (%d dropped)", shown, total, dropped)
}

// saved is the share of tokens the compression saved, when it saved any.
func saved(before, after int) string {
	if before <= 0 || after >= before {
		return ""
	}
	return fmt.Sprintf(" (%d%% saved)", (before-after)*100/before)
}
