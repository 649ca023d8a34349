package strategies

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// tokenBudget keeps the most recent messages that fit a token budget, counted
// with the exact tokenizer, the way LangChain's trim_messages does with
// strategy="last" and include_system=True, with four differences:
//
//   - a tool loop (an assistant message with tool calls and its results) is
//     kept or dropped as one unit, so the output never holds a result without
//     its call or a call without its results;
//   - the user's request is never dropped: when the kept messages begin after
//     it, it is sent ahead of them;
//   - the steps a cut drops leave a ledger within an eighth of the budget
//     (addBudgetLedger): a note each for the latest, and the values of the
//     others listed once each, so the model can still copy an id, a path or
//     a line it passed to an edit;
//   - the cut moves in steps. When the output would exceed max_tokens, the
//     oldest messages are dropped until it holds at most trim_to tokens (a
//     quarter of the budget by default), and later calls append to that same
//     beginning until the budget is reached again. Cutting to the budget on
//     every call would change the prompt's beginning on every call, and a
//     provider's prompt cache serves only an unchanged beginning: every
//     kept token would be billed fresh on every call. A cut still rewrites
//     what it keeps (fresh tokens cost about twelve times cached ones at
//     Anthropic's prices), and pays that back from the tokens it saves on the
//     calls after it: cutting down to a quarter pays back within about four
//     calls, down to half within about twelve, which a conversation that
//     just outgrew its budget may not have left.
//
// The cut is computed from the request alone, by a pass over the history
// that cuts wherever the earlier calls (the history's prefixes) would have
// cut, so every call lands on the cut its predecessor used until the budget
// forces a new one.
type tokenBudget struct{}

func init() { register(tokenBudget{}) }

func (tokenBudget) Name() string { return "token-budget" }

func (tokenBudget) Description() string {
	return "The system prompt, the user's request and the most recent messages that fit max_tokens, never separating a tool call from its results; past the budget the oldest are dropped down to trim_to tokens, so the prompt's beginning changes only in steps. An eighth of the budget holds a ledger of the dropped steps: notes of the latest (what the user said, each call's name and arguments, the start of its result) and the values of the older (argument values, the paths and JSON values of results). A cut after the first keeps no more than what the strategy saved so far pays to rewrite."
}

func (tokenBudget) Input() Input { return InputHistory }

func (tokenBudget) Options() []OptionDoc {
	return []OptionDoc{
		withDefault(intOptionDoc("max_tokens", "Token budget for the whole output, system prompt included, counted with the tokenizer; required, above 0."), "(required)"),
		withDefault(intOptionDoc("trim_to", "When the output would exceed max_tokens, the oldest messages are dropped until it holds at most this many tokens; later calls append to the same beginning until the budget is reached again. At most max_tokens."), "max_tokens / 4"),
		docMaxTokensFraction, docNudgeAttempt, docNudges, docProvider, docTokenizer, docKeepThinking,
		docPricing, docCacheReadRate, docCacheWriteRate, docModel, docMinCacheableTokens, docMaxResponseBytes,
	}
}

func (s tokenBudget) Render(req *Request) (*Response, error) {
	opts := &req.Options
	if opts.MaxTokens <= 0 {
		return nil, &OptionError{Option: "max_tokens", Reason: fmt.Sprintf("token-budget needs a budget above 0, got %d", opts.MaxTokens)}
	}
	low := max(opts.MaxTokens/4, 1)
	if opts.TrimTo != 0 {
		if opts.TrimTo > opts.MaxTokens {
			return nil, &OptionError{Option: "trim_to", Reason: fmt.Sprintf("must be at most max_tokens (%d), got %d", opts.MaxTokens, opts.TrimTo)}
		}
		low = opts.TrimTo
	}
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
	sent, err := ch.sentCounts(req.Remembered, tok, counts)
	if err != nil {
		return nil, err
	}
	fixed := ch.pinnedTokens(sent) // the system prompt's tokens and a compaction's
	if ch.system >= 0 {
		fixed += sent[ch.system].tokens
	}
	nudgeMsg, _ := nudgeFor(opts)
	nudgeTokens, err := req.Remembered.tokens(tok, []ChatMessage{nudgeMsg})
	if err != nil {
		return nil, err
	}
	openings := ch.openings()
	// With no user message before it, the kept part's first unit goes as a
	// note where the provider wants the user first (chatOutput.finish).
	var noteErr error
	noteTokens := func(unit []int) int {
		n, err := req.Remembered.tokens(tok, []ChatMessage{ch.unitNote(unit, stepNotes)})
		noteErr = cmp.Or(noteErr, err)
		return n
	}
	// The ledger's share is reserved from the first cut on, whatever the
	// ledger holds, so that every cut lands where it would with the ledger
	// full; before it the whole budget is the kept part's (budgetCut).
	// The cuts are priced as they go (budgetBill), under the request's
	// pricing, so that a later cut keeps only what its savings pay for.
	reserve := budgetLedgerShare(opts.MaxTokens, low)
	bill := newBudgetBill(opts.Pricing, fixed)
	cut := ch.budgetCut(openings, sent, fixed, nudgeTokens, opts.MaxTokens, opts.MaxTokens-reserve, max(low-reserve, 1), reserve, bill, noteTokens)
	if noteErr != nil {
		return nil, noteErr
	}

	var out chatOutput
	out.open(ch)
	lead, start, nudge := openings[cut].lead, openings[cut].start, openings[cut].nudge
	needed := fixed
	switch {
	case nudge:
		needed += nudgeTokens
	case lead >= 0:
		needed += sent[lead].tokens
	}
	if needed > opts.MaxTokens {
		return nil, &OptionError{Option: "max_tokens", Reason: budgetShortfall(ch, sent, lead, nudge, needed, opts.MaxTokens, tok.tokenizer)}
	}
	if nudge {
		out.addNudge(opts)
	} else {
		// With no user message in the history there is nothing a note
		// could follow: the kept part opens with its first unit as a note.
		if err := ch.addBudgetLedger(&out, req.Remembered, tok, cut, lead, reserve); err != nil {
			return nil, err
		}
	}
	out.copyFrom(ch, ch.seq[start:]...)
	out.greetings = start - cut
	resp, err := chatResponse(s.Name(), req, ch, counts, &out)
	if err != nil {
		return nil, err
	}
	resp.Stats.TaskPinned = lead >= 0 && lead == ch.task()
	return resp, nil
}

// budgetLedgerShare is the part of a budget of max tokens, with cuts down
// to low, kept for the ledger of the units a cut drops: an eighth of the
// budget, and at most half of what a cut keeps.
func budgetLedgerShare(budget, low int) int {
	return min(budget/8, low/2)
}

// addBudgetLedger appends to out, in the history's order, the notes of the
// most recent units before the cut (positions seq[:cut]) whose notes fit
// half of reserve tokens together, before them a note listing the values
// of every dropped unit that the notes and the lead do not show (latest
// first, as many as fit the rest of reserve: budgetValuesNote), and the
// lead (the request the kept part works on, an index in h, or -1) in its
// place among them. The notes are those loop-slice leaves (ledgerNote),
// with shorter previews. All of it depends only on the units before the
// cut, which change only when the cut moves, so the ledger is as stable as
// the kept part's beginning.
func (ch *chatHistory) addBudgetLedger(out *chatOutput, rem *Remembered, tok counter, cut, lead, reserve int) error {
	seq := ch.seq
	type note struct {
		at  int // index in h of the unit's first message
		msg ChatMessage
	}
	var picked []note
	var dropped [][]int // every dropped unit, the latest first
	used, notesFull := 0, false
	noteShare := int(float64(reserve) * budgetNotesShare)
	for end := cut; end > 0; {
		p := end - 1
		for p > 0 && ch.h[seq[p]].Role == RoleTool {
			p--
		}
		unit := seq[p:end]
		end = p
		if unit[0] == lead || ch.isPinned(unit[0]) {
			continue
		}
		dropped = append(dropped, unit)
		if notesFull {
			continue
		}
		m := ch.unitNote(unit, budgetNotes)
		n, err := rem.tokens(tok, []ChatMessage{m})
		if err != nil {
			return err
		}
		if used+n > noteShare {
			notesFull = true // older notes are left out with it: the ledger keeps the latest steps
			continue
		}
		used += n
		picked = append(picked, note{unit[0], m})
	}
	slices.Reverse(picked)
	var shown strings.Builder
	if lead >= 0 {
		shown.WriteString(ch.form(lead).Content)
	}
	for _, nt := range picked {
		shown.WriteString(nt.msg.Content)
	}
	vals := ch.droppedValues(dropped, shown.String(), reserve-used)
	values, err := budgetValuesNote(rem, tok, vals, reserve-used)
	if err != nil {
		return err
	}
	leadSent := lead < 0
	sendLead := func(before int) {
		if !leadSent && before > lead {
			out.copyFrom(ch, lead)
			leadSent = true
		}
	}
	if values != "" {
		first := len(ch.h)
		if len(picked) > 0 {
			first = picked[0].at
		}
		sendLead(first)
		out.addNote(values)
	}
	for _, nt := range picked {
		sendLead(nt.at)
		out.addNote(nt.msg.Content)
	}
	sendLead(len(ch.h))
	return nil
}

// budgetCut returns the position in ch.seq where the kept messages begin.
// It replays the history unit by unit (a tool loop, or any other single
// message), as the calls before this one saw it: the kept part starts at
// the history's beginning; whenever the output grows past budget, the cut
// moves to the first unit from which it holds at most low tokens (the
// latest unit is kept if it fits the budget on its own). Before the first
// cut nothing is dropped and the ledger is empty, so the output may grow
// to whole, the caller's budget, before it: a cut the budget does not
// force is a rewrite that a short conversation would not repay. fixed are the
// tokens every output holds (the system prompt); the message that opens a
// kept part (openings), or the synthetic nudge (nudge tokens), counts too.
func (ch *chatHistory) budgetCut(openings []opening, counts []textCounts, fixed, nudge, whole, budget, low, reserve int, bill *budgetBill, noteTokens func(unit []int) int) int {
	seq := ch.seq
	sum := make([]int, len(seq)+1) // sum[p]: tokens of seq[:p]
	var units []int                // positions in seq where a unit starts
	for p, i := range seq {
		sum[p+1] = sum[p] + counts[i].tokens
		if ch.h[i].Role != RoleTool {
			units = append(units, p)
		}
	}
	// size is the tokens of the output of the call whose history ends at
	// seq[e], with the kept part seq[c:e]. That call saw no user message
	// after seq[e]: when none comes before seq[e] either, it opened with
	// the nudge.
	size := func(c, e int) int {
		o := openings[c]
		switch {
		case o.lead >= 0:
			return fixed + counts[o.lead].tokens + sum[e] - sum[c]
		case (o.nudge || o.start >= e) && !ch.openai && c < e:
			// The first unit is sent as a note, the nudge last.
			end := c + 1
			for end < e && ch.h[seq[end]].Role == RoleTool {
				end++
			}
			return fixed + nudge + noteTokens(seq[c:end]) + sum[e] - sum[end]
		case o.nudge || o.start >= e:
			return fixed + nudge + sum[e] - sum[c]
		}
		return fixed + sum[e] - sum[o.start]
	}
	cut, k := 0, 0 // k: index in units of the cut
	for u := range units {
		e := len(seq)
		if u+1 < len(units) {
			e = units[u+1]
		}
		raw := fixed + sum[e]
		if n := size(cut, e); n > budget && (cut > 0 || n > whole) {
			for k < u && size(units[k], e) > low {
				k++
			}
			// A cut must not take the bill past the raw history's: where
			// what the strategy saved does not pay for rewriting what the
			// cut keeps, it keeps less.
			for k < u && !bill.pays(size(units[k], e)+reserve, raw) {
				k++
			}
			cut = units[k]
			if size(cut, e) > budget {
				cut, k = e, u+1 // not even the latest unit fits
			}
			bill.cut()
		}
		if e == len(seq) || ch.h[seq[e]].Role == RoleAssistant {
			out := size(cut, e)
			if cut > 0 {
				out += reserve
			}
			bill.call(out, raw)
		}
	}
	return cut
}

// budgetShortfall explains why a budget cannot hold even the system prompt
// and the user's request.
func budgetShortfall(ch *chatHistory, counts []textCounts, lead int, nudge bool, needed, budget int, tok string) string {
	what := "the system prompt alone takes"
	switch {
	case lead >= 0 && ch.system >= 0:
		what = fmt.Sprintf("the system prompt (%d tokens) and the user's request, history[%d] (%d tokens), take", counts[ch.system].tokens, lead, counts[lead].tokens)
	case lead >= 0:
		what = fmt.Sprintf("the user's request, history[%d], takes", lead)
	case nudge && ch.system >= 0:
		what = "the system prompt and the synthetic nudge take"
	case nudge:
		what = "the synthetic nudge takes"
	}
	return fmt.Sprintf("%s %d tokens (%s), more than the budget of %d: no output can hold less, raise max_tokens", what, needed, tok, budget)
}
