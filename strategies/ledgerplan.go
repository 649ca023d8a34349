package strategies

import (
	"cmp"
	"slices"
)

// The bill plan of loop-slice's ledger. A unit that turns from whole into
// a note when a newer loop replaces it rewrites the prompt from that unit
// on: what follows it is written to the cache afresh where it would have
// been read, a cost that only the calls after it repay. A session may end
// on any call, so no call may bring what the strategy has billed so far
// above what the raw history would have billed for the same calls. The
// strategy is stateless but sees the whole history: it replays the calls
// before this one (each assistant message ends one), pricing its own
// output and the raw history's on each with the history's token counts,
// and lets the part it sends whole start later only where what it has
// saved so far pays for the rewrite. Where it does not, the unit stays
// whole and the prompt grows by appending, which costs no more than the raw
// history's call, since the prompt it appends to is no longer than the raw
// history.
//
// turn-aware does not plan: its window and its ledger are what the caller
// asked for, and under cache pricing its first step is never repaid on the
// call that takes it, so a planned turn-aware would never step and would
// send the raw history (docs/CHAT_STRATEGIES.md, "Where the bill bound
// applies").

// planUnit is one unit of the repaired history, as the plan prices it.
type planUnit struct {
	first int   // index in h of its first message
	msgs  []int // its messages, indices in h
	whole int   // tokens sent whole
	sent  int   // tokens in the ledger: its note's, or whole's when it stays whole
	noted bool  // the ledger sends a note for it
	worth bool  // its full note (sliceNotes) shortens it by half and repays writing it (judge)
	chars int   // unitChars
	calls int   // the assistant messages up to it
}

// ledgerPlan is the result of the replay: where this call's output starts
// sending units whole, and the note of each unit before it that has one.
type ledgerPlan struct {
	wholeFrom int            // index in h: units from here on are sent whole
	notes     map[int]string // a unit's note, by the index of its first message
	// nextNote: the unit at wholeFrom would take a note when it leaves the
	// part sent whole (judge, which its paying for may still turn down).
	nextNote bool
}

// noteOf returns the planned note of the unit that starts at h[first], and
// whether it has one. Without a plan every unit has its full note.
func (p *ledgerPlan) noteOf(ch *chatHistory, unit []int) (string, bool) {
	if p == nil {
		return ledgerNote(ch.h, unit, stepNotes), true
	}
	n, ok := p.notes[unit[0]]
	return n, ok
}

// planUnits splits the repaired history into units and prices each whole;
// which would take a note is judged as each leaves the part sent whole
// (judge), when the lines shown before it are known.
func (ch *chatHistory) planUnits(req *Request) ([]planUnit, error) {
	tok, rem := req.Options.counter(), req.Remembered
	var units []planUnit
	seq := ch.seq
	calls := 0
	for p := 0; p < len(seq); p++ {
		i := seq[p]
		m := &ch.h[i]
		if m.Role == RoleAssistant {
			calls++
		}
		end := ch.unitEnd(p)
		u := planUnit{first: i, msgs: seq[p:end]}
		for _, j := range u.msgs {
			n, err := rem.messages(tok, []ChatMessage{*ch.form(j)})
			if err != nil {
				return nil, err
			}
			u.whole += n.tokens
		}
		u.sent, u.calls = u.whole, calls
		if !isPrompt(m) {
			u.chars = unitChars(ch, u.msgs)
		}
		units = append(units, u)
		p = end - 1
	}
	return units, nil
}

// unitEnd is the end (exclusive) of the unit that starts at position p of
// ch.seq: the message there and the tool results right after it.
func (ch *chatHistory) unitEnd(p int) int {
	end := p + 1
	for end < len(ch.seq) && ch.h[ch.seq[end]].Role == RoleTool {
		end++
	}
	return end
}

// planLedger replays the calls of the history and decides, for each unit
// as it leaves the part sent whole, its form for good: its note, with as
// long a preview (shorterNotes) as what the strategy saved so far pays for
// writing, or, where not even the calls alone are paid for, the unit
// whole. natural(end) is where the strategy starts sending units whole on
// the call whose history is h[:end].
func (ch *chatHistory) planLedger(req *Request, natural func(end int) int) (*ledgerPlan, error) {
	plan := &ledgerPlan{wholeFrom: natural(len(ch.h)), notes: map[int]string{}}
	rate := req.Options.Pricing
	units, err := ch.planUnits(req)
	if err != nil {
		return nil, err
	}
	tok, rem := req.Options.counter(), req.Remembered
	noteTokens := func(text string) (int, error) {
		n, err := rem.messages(tok, []ChatMessage{{Role: RoleUser, Source: SourceSystem, Content: text}})
		return n.tokens, err
	}
	// What the output shows before each note: a note's preview leaves out
	// the lines of it shown already (ledgershown.go).
	shown := newShownLines()
	if ch.system >= 0 {
		shown.addWhole(ch, []int{ch.system})
	}
	if rate.WriteRate <= rate.ReadRate {
		// A rewrite costs no more than a read: every note pays at once.
		for _, u := range units {
			if u.first >= plan.wholeFrom {
				plan.nextNote = u.first == plan.wholeFrom && ch.judge(&u, rate, shown)
				break
			}
			if ch.judge(&u, rate, shown) {
				plan.notes[u.first] = ledgerNoteShown(ch.h, u.msgs, sliceNotes, shown)
			} else {
				shown.addWhole(ch, u.msgs)
			}
		}
		return plan, nil
	}
	// The raw history's tokens before each message, system messages
	// included (every output sends the system prompt).
	rawBefore := make([]int, len(ch.h)+1)
	for i := range ch.h {
		n, err := rem.messages(tok, ch.h[i:i+1])
		if err != nil {
			return nil, err
		}
		rawBefore[i+1] = rawBefore[i] + n.tokens
	}
	system := 0
	if ch.system >= 0 {
		system = rawBefore[ch.system+1] - rawBefore[ch.system]
	}
	r, w := rate.ReadRate, rate.WriteRate
	// Where the units stand, as indices into units: the first unit at or
	// after message m.
	unitAt := func(m int) int {
		k, _ := slices.BinarySearchFunc(units, m, func(u planUnit, m int) int { return cmp.Compare(u.first, m) })
		return k
	}
	// wholeBefore[k]: the tokens of units[:k] sent whole.
	wholeBefore := make([]int, len(units)+1)
	for k, u := range units {
		wholeBefore[k+1] = wholeBefore[k] + u.whole
	}
	// sentBefore: the tokens the units before the previous call's part sent
	// whole are sent as, which no later call changes. With it and
	// wholeBefore, a call is priced from the units that leave the part
	// sent whole on it alone, so the replay is linear in the history.
	sentBefore := 0
	// cost prices the call whose history is h[:end], units whole from
	// whole on, after the call whose history was h[:prevEnd], whole from
	// prevWhole: the prompt is read up to the first unit that has become a
	// note since (only a unit leaving now can have), or up to the previous
	// prompt's end, and written after.
	cost := func(prevEnd, prevWhole, end, whole int) float64 {
		a, e := unitAt(prevWhole), unitAt(end)
		b := min(unitAt(whole), e)
		brk := min(max(unitAt(prevEnd), a), e)
		size, prefix := system+sentBefore, -1
		for k := a; k < b; k++ {
			if prefix < 0 && (k == brk || units[k].noted) {
				prefix = size
			}
			size += units[k].sent
		}
		if prefix < 0 { // read up to the previous prompt's end
			prefix = size + wholeBefore[max(brk, b)] - wholeBefore[b]
		}
		size += wholeBefore[e] - wholeBefore[b]
		return r*float64(prefix) + w*float64(size-prefix)
	}
	// A call whose history holds no prompt yet ends with the synthetic
	// nudge, written on every such call, which the raw history (no request
	// a provider takes) lacks: the strategy's bill carries it.
	nudge, firstPrompt := 0.0, len(ch.h)
	if i := slices.IndexFunc(ch.h, func(m ChatMessage) bool { return isPrompt(&m) }); i >= 0 {
		firstPrompt = i
	}
	if firstPrompt > 0 {
		m, _ := nudgeFor(&req.Options)
		n, err := noteTokens(m.Content)
		if err != nil {
			return nil, err
		}
		nudge = w * float64(n)
	}
	nudgeAt := func(end int) float64 {
		if end <= firstPrompt {
			return nudge
		}
		return 0
	}
	var saved float64 // what the raw history has billed more, so far
	prevEnd, prevWhole := -1, 0
	for end := 1; end <= len(ch.h); end++ {
		if end < len(ch.h) && ch.h[end].Role != RoleAssistant {
			continue
		}
		// The call whose history is h[:end].
		whole := max(natural(end), prevWhole)
		if prevEnd < 0 {
			// The first call writes all it sends, as the raw history does;
			// a unit before the part sent whole keeps its full note.
			for k := range units {
				u := &units[k]
				if u.first >= whole {
					break
				}
				if !ch.judge(u, rate, shown) {
					shown.addWhole(ch, u.msgs)
				} else if err := ch.setNote(u, sliceNotes, plan, noteTokens, shown); err != nil {
					return nil, err
				}
			}
			shown.commit()
			// Priced as if nothing were sent before: every unit before the
			// part sent whole is one that leaves it on this call.
			saved += w*float64(rawBefore[end]) - cost(0, 0, end, whole) - (w-r)*float64(system) - nudgeAt(end)
			for k := range unitAt(whole) {
				sentBefore += units[k].sent
			}
			prevEnd, prevWhole = end, whole
			continue
		}
		raw := r*float64(rawBefore[prevEnd]) + w*float64(rawBefore[end]-rawBefore[prevEnd])
		// The units leaving the part sent whole (one at a time for
		// loop-slice; any number for a start that steps) take the longest form
		// paid for, all alike: a note of the first already rewrites the
		// prompt after it, so the others' notes cost little more.
		a, b := unitAt(prevWhole), unitAt(whole)
		for k := a; k < b; k++ {
			ch.judge(&units[k], rate, shown)
		}
		if err := ch.notePaidFor(units[a:b], plan, noteTokens, shown, func() bool {
			return saved+raw-cost(prevEnd, prevWhole, end, whole)-nudgeAt(end) >= 0
		}); err != nil {
			return nil, err
		}
		saved += raw - cost(prevEnd, prevWhole, end, whole) - nudgeAt(end)
		for k := a; k < b; k++ {
			sentBefore += units[k].sent
		}
		prevEnd, prevWhole = end, whole
	}
	plan.wholeFrom = prevWhole
	if k := unitAt(plan.wholeFrom); k < len(units) && units[k].first == plan.wholeFrom {
		// A caller that marks its cache write there bills the part sent
		// whole as fresh input, not written; where the next call sends it
		// again, fresh once more instead of read. So the mark goes there
		// only where the next call likely brings a newer loop and what the
		// strategy saved pays for that loss (1-r a token).
		tail := wholeBefore[len(units)] - wholeBefore[k]
		plan.nextNote = ch.judge(&units[k], rate, shown) && ch.movesOn(rate) && saved >= (1-r)*float64(tail)
	}
	return plan, nil
}

// movesOn reports whether the next call likely sends a newer tool loop,
// so that a cache breakpoint before the latest loop costs a caller less
// than one after it: the model has answered with tool calls often enough
// in the history. Before it, the loop is billed fresh (1) and, where the
// next call sends it again (the model answered its user in text and the
// user replied), fresh once more; after it, the loop is written (w) and
// read (r) where it is sent again, its write lost where it becomes a note.
// With p the share of the model's answers that are tool calls, before
// costs less where (1-p)(1-r) < w-1: p above 0.72 at Anthropic's rates (a
// coding agent's is 1; a customer-service agent answers its user in text
// every few calls). Where a write costs no more than fresh input, never.
func (ch *chatHistory) movesOn(rate Pricing) bool {
	calls, tools := 0, 0
	for i := range ch.h {
		if m := &ch.h[i]; m.Role == RoleAssistant {
			calls++
			if len(m.ToolCalls) > 0 {
				tools++
			}
		}
	}
	r, w := rate.ReadRate, rate.WriteRate
	if w <= 1 || r >= 1 || calls == 0 {
		return false
	}
	p := float64(tools) / float64(calls)
	return (1-p)*(1-r) < w-1
}

// notePaidFor gives the units leaving the part sent whole (one at a time
// for loop-slice; any number for a start that steps) that would take a
// note the longest form of shorterNotes that paid reports paid for, all
// alike (a note of the first already rewrites the prompt after it, so the
// others' notes cost little more), or, where none is, leaves them whole
// for good. The longest form is tried first, then the shortest: where not
// even that one is paid for, none between is, and they are not built.
// shown gains the lines the leaving units show, in the form taken.
func (ch *chatHistory) notePaidFor(leaving []planUnit, plan *ledgerPlan, tokens func(string) (int, error), shown *shownLines, paid func() bool) error {
	defer shown.commit()
	if !slices.ContainsFunc(leaving, func(u planUnit) bool { return u.worth }) {
		for _, u := range leaving {
			shown.addWhole(ch, u.msgs)
		}
		return nil
	}
	mark := shown.mark()
	try := func(form noteForm) (bool, error) {
		shown.undo(mark)
		for k := range leaving {
			u := &leaving[k]
			if !u.worth {
				shown.addWhole(ch, u.msgs)
			} else if err := ch.setNote(u, form, plan, tokens, shown); err != nil {
				return false, err
			}
		}
		return paid(), nil
	}
	last := len(shorterNotes) - 1
	if ok, err := try(shorterNotes[0]); ok || err != nil {
		return err
	}
	ok, err := try(shorterNotes[last])
	if err != nil {
		return err
	}
	if !ok {
		shown.undo(mark)
		for k := range leaving { // not paid for: whole for good
			u := &leaving[k]
			if u.worth {
				u.sent, u.noted = u.whole, false
				delete(plan.notes, u.first)
			}
			shown.addWhole(ch, u.msgs)
		}
		return nil
	}
	for _, form := range shorterNotes[1:last] {
		if ok, err := try(form); ok || err != nil {
			return err
		}
	}
	_, err = try(shorterNotes[last])
	return err
}

// setNote makes u a note of the given form in the plan, its previews
// leaving out what shown holds.
func (ch *chatHistory) setNote(u *planUnit, form noteForm, plan *ledgerPlan, tokens func(string) (int, error), shown *shownLines) error {
	note := ledgerNoteShown(ch.h, u.msgs, form, shown)
	n, err := tokens(note)
	if err != nil {
		return err
	}
	u.sent, u.noted = n, true
	plan.notes[u.first] = note
	return nil
}

// judge sets and returns u.worth: u is not a prompt, and its full note,
// leaving out the lines shown holds, shortens it by half and repays
// writing it (notePaysBack).
func (ch *chatHistory) judge(u *planUnit, rate Pricing, shown *shownLines) bool {
	u.worth = false
	if u.chars == 0 {
		return false
	}
	mark := shown.mark()
	note := ledgerNoteShown(ch.h, u.msgs, sliceNotes, shown)
	shown.undo(mark)
	u.worth = 2*len(note) < u.chars && notePaysBack(rate, u.chars, len(note), u.calls)
	return u.worth
}
