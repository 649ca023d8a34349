package strategies

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cacheStable is single-user-coalesced reordered for prompt caching. A
// provider bills the prompt prefix a call shares with the previous call at a
// fraction of fresh input (bill.go), so what the strategy rewrites from call
// to call costs far more than what it appends. It sends:
//
//	SYSTEM  static
//	USER    mission, tools, data, expected return,  the same on every call
//	          the host's prelude (turn 0)
//	        the record: a summary of the turns up   appended to, one entry
//	          to the last re-base, then one entry     per turn, never edited
//	          per turn since
//	        bindings redefined, the rest of the     rewritten on every call
//	          last turn's output, the last error
//	          while unrecovered, the last turn's
//	          warnings, turns left
//
// An entry holds what the turn did, never its code: the bindings it defined
// (from the memory: a binding stays in its turn's entry while it stands;
// a function without the type of its last return, which changes), its tool
// calls, the first lines of its output or else its result, and for a failed
// turn one line saying so (its program and error are shown in the
// rewritten part while it is the last turn, then collapse to that line).
// Everything else in an entry comes from the turn's own record, so every
// later call renders it byte for byte the same.
//
// The record grows with the run; a re-base replaces it with a compact
// summary (single-user-coalesced's tool calls, definitions and output for
// those turns) once the reads the record has cost beyond what a summary
// would have cost since the last re-base reach twice what rewriting it
// costs beyond keeping it (ski rental, with hysteresis; not where nothing
// is cached, where a re-base would then come on nearly every call), or once
// it outgrows the summary by a share of the prompt. The decision is made from the
// turns' own records, sizes in tokens and the request's pricing, so every
// later call of the run finds the same re-bases.
type cacheStable struct{}

func init() { register(cacheStable{}) }

func (cacheStable) Name() string { return "cache-stable" }

func (cacheStable) Description() string {
	return "[SYSTEM, USER] ordered for prompt caching: the mission, tools, data, expected return and the host's prelude, then an append-only record of what each turn did (its definitions, tool calls, the first lines of its output or its result; never its code), re-based to a compact summary when the record costs more under the pricing than rewriting it or grows too large; last the bindings redefined, the rest of the last turn's output, the last error while unrecovered and the turns left. Most of each prompt is the previous call's, read from the provider's cache."
}

func (cacheStable) Input() Input { return InputTurns }

func (cacheStable) Options() []OptionDoc { return turnOptionDocs }

func (s cacheStable) Render(req *Request) (*Response, error) {
	if toolCallForm(req) {
		return toolCallResponse(s.Name(), req, true)
	}
	return summarizedResponse(s.Name(), req, memoryStable, true, cacheStableMessages)
}

// cacheStableMessages builds [SYSTEM, USER].
func cacheStableMessages(req *Request) ([]ChatMessage, historyCounts, error) {
	var counts historyCounts
	o := &req.Options
	rec, head, err := newCacheStableRecord(req)
	if err != nil {
		return nil, counts, err
	}
	record, err := rec.text(&counts)
	if err != nil {
		return nil, counts, err
	}
	// USER is joined once from all its sections: joining the record, then
	// the part before the rewritten one, then the whole copied a prompt of
	// many bindings three times.
	stable := append([]string{head}, record...)
	sections := append(stable, rec.rewrittenBindings(), rec.restOfLastOutput(), errorSection(req, &counts), failedWarnings(req.Turns), turnsIndicator(o, len(req.Turns)))
	counts.kept = joinedRunes(stable)
	if joinedRunes(sections[len(stable):]) > 0 {
		counts.kept += 2 // the blank line after the record
	}
	return []ChatMessage{
		{Role: RoleSystem, Content: systemPrompt(o)},
		{Role: RoleUser, Content: joinSections(sections...)},
	}, counts, nil
}

// failedWarnings are the last turn's warnings when it failed: a successful
// turn's are in its entry (writeEntryWarnings).
func failedWarnings(turns []Turn) string {
	if len(turns) == 0 || turns[len(turns)-1].Success {
		return ""
	}
	return warningSection(turns)
}

// joinedRunes is the number of characters of joinSections(sections...).
func joinedRunes(sections []string) int {
	n, shown := 0, 0
	for _, s := range sections {
		if s != "" {
			n += utf8.RuneCountInString(s)
			shown++
		}
	}
	if shown > 1 {
		n += 2 * (shown - 1) // the blank lines between them
	}
	return n
}

// newCacheStableRecord places the request's bindings and turns (newRecord)
// and returns the record with the part of USER before it: the mission,
// tools, data, expected return and the host's prelude.
func newCacheStableRecord(req *Request) (*record, string, error) {
	o := &req.Options
	tools, err := toolLinesOf(o, req.Remembered)
	if err != nil {
		return nil, "", err
	}
	ret, err := expectedReturnSection(o, req.Remembered)
	if err != nil {
		return nil, "", err
	}
	env := joinToolSections(missionSection(o), &tools, dataSection(o), ret)
	rec := newRecord(req, knownIdentifiers(systemPrompt(o)+"\n"+env))
	for _, text := range []string{systemPrompt(o), env} {
		n, err := req.Remembered.text(o.Tokenizer, text)
		if err != nil {
			return nil, "", err
		}
		rec.envTokens += n.tokens
	}
	if rec.base, err = rec.rebasePoint(); err != nil {
		return nil, "", err
	}
	if rec.base > 0 {
		rec.place() // what the summary now holds
	}
	return rec, joinSections(env, rec.hostPrelude()), nil
}

// record is the append-only part of a cache-stable prompt being built.
type record struct {
	req     *Request
	printed map[int]bool // numbers of the turns that printed
	// host are the bindings of the host's prelude (turn 0) that no turn
	// of the request defined, shown before the record: they do not
	// change.
	host []int
	// defs[k] are the values of the memory that turn k (from 1) defined,
	// in memory order, each shown in that turn's entry; defs[0] are the
	// bindings the rewritten part shows instead (rewrittenBindings).
	defs [][]int
	// at[i] is where req.Memory[i] is shown: as in defs, -1 for the
	// host's. host and defs hold indexes of req.Memory: copies of 90,000
	// bindings held 11 MB for the whole rendering.
	at []int
	// fns are the functions shown without the type of their last return,
	// copied, by index.
	fns map[int]*Binding
	// entries[k-1] is the entry of turn k without its definitions.
	entries []entryText
	// lists[n] is the list of values of a summary of turns 1..n.
	lists []string
	// pos maps a turn's number to its position from 1; definitions counts
	// the successful turns that defined each name.
	pos         map[int]int
	definitions map[string]int
	// base is the last turn the summary covers (rebasePoint), 0 before
	// it is known.
	base int
	// envTokens is the tokens of SYSTEM and USER's mission, tools, data
	// and expected return: the prompt before the record but for the
	// host's prelude, which a redefinition can change.
	envTokens int
}

// newRecord places each binding of the memory. A binding goes in the entry
// of the turn that defined it, where it stays as long as the binding does;
// a function's line there has no return type, which changes from call to
// call. The host's prelude (turn 0) goes before the record, as lasting as
// the mission. The rewritten part shows what would not stay: bindings
// defined by more than one turn of the request (a name the agent redefines
// once tends to be redefined again; its first redefinition moves its line
// out of the record once), and bindings of a turn not sent or one that
// failed. A name no turn after the last re-base defined is in the summary,
// however many turns defined it (place): the rewritten part holds only
// what the turns since may still change.
func newRecord(req *Request, known map[string]bool) *record {
	r := &record{req: req, lists: summaryIndexes(req.Turns, known, &req.Options), printed: printingTurns(req.Turns), defs: make([][]int, len(req.Turns)+1), entries: make([]entryText, len(req.Turns))}
	pos := make(map[int]int, len(req.Turns)) // turn number -> position from 1
	definitions := map[string]int{}          // name -> successful turns that defined it
	lastTurn := map[string]int{}
	earlier := map[string]bool{} // identifiers the entries so far show or list
	listed := map[string]bool{}  // identifiers the summary of the turns so far lists
	warned := map[string]bool{}  // warning types an entry showed whole
	seen := entryLines{}         // output lines the entries so far show
	for i, t := range req.Turns {
		n := t.Number
		if n == 0 {
			n = i + 1
		}
		pos[n] = i + 1
		r.entries[i] = makeEntry(&req.Turns[i], i+1, &req.Options, known, earlier, listed, warned, seen)
		for _, id := range strings.Fields(strings.TrimSuffix(r.lists[i+1], " ...")) {
			listed[id] = true
		}
		if !t.Success {
			continue
		}
		for _, name := range t.Defined {
			if lastTurn[name] != i+1 {
				lastTurn[name] = i + 1
				definitions[name]++
			}
		}
	}
	r.pos, r.definitions = pos, definitions
	r.place()
	return r
}

// place sets where each binding of the memory is shown (at), then lists
// them by place (host, defs), each list allocated once at its length.
func (r *record) place() {
	req := r.req
	pos, definitions := r.pos, r.definitions
	r.at = make([]int, len(req.Memory))
	r.fns = map[int]*Binding{}
	r.host = nil
	clear(r.defs)
	for i := range req.Memory {
		bd := &req.Memory[i]
		k := pos[bd.Turn] // 0 when absent
		switch {
		case bd.Turn == 0 && definitions[bd.Name] == 0:
			if bd.Fn != nil {
				r.fns[i] = withoutReturnType(bd)
			}
			r.at[i] = -1
			continue
		case k > 0 && !req.Turns[k-1].Success:
			k = 0 // a failed turn defines nothing: the memory contradicts it
		case definitions[bd.Name] > 1 && (k == 0 || k > r.base):
			k = 0
		case definitions[bd.Name] > 1:
			// Defined again before the last re-base and not since: the
			// summary shows it (with no return type, as an entry would).
			if bd.Fn != nil {
				r.fns[i] = withoutReturnType(bd)
			}
		case bd.Fn != nil && k > 0:
			// No type of the last return: a function has none until
			// called, and another kind when it returns another.
			r.fns[i] = withoutReturnType(bd)
		}
		r.at[i] = k
	}
	counts := make([]int, len(r.defs))
	host := 0
	for _, k := range r.at {
		if k < 0 {
			host++
		} else {
			counts[k]++
		}
	}
	if host > 0 {
		r.host = make([]int, 0, host)
	}
	for k, n := range counts {
		if n > 0 {
			r.defs[k] = make([]int, 0, n)
		}
	}
	for i, k := range r.at {
		if k < 0 {
			r.host = append(r.host, i)
		} else {
			r.defs[k] = append(r.defs[k], i)
		}
	}
}

func withoutReturnType(bd *Binding) *Binding {
	c, fn := *bd, *bd.Fn
	fn.ReturnType = ""
	c.Fn = &fn
	return &c
}

// binding is req.Memory[i] as the record shows it.
func (r *record) binding(i int) *Binding {
	if bd, ok := r.fns[i]; ok {
		return bd
	}
	return &r.req.Memory[i]
}

// writeBindings writes the bindings of req.Memory at the indexes idx, as
// single-user-coalesced's prelude does but for a value's sample longer
// than recordSampleRunes, which shows fewer items (sampleItems).
func (r *record) writeBindings(b *strings.Builder, idx []int) {
	o := &r.req.Options
	var fns, values []int
	for _, i := range idx {
		if r.binding(i).Fn != nil {
			fns = append(fns, i)
		} else {
			values = append(values, i)
		}
	}
	writeBindingsAt(b, len(fns), func(j int) *Binding { return r.binding(fns[j]) }, r.printed, o)
	for _, i := range values {
		bd, vo := r.binding(i), o
		if n := r.sampleItems(bd); n < o.SampleLimit {
			c := *o
			c.SampleLimit = n
			vo = &c
		}
		writeBindingsAt(b, 1, func(int) *Binding { return bd }, r.printed, vo)
	}
}

// recordSampleRunes bounds a value's sample in the record: a list of maps
// the model built (a report's timeline, its citations) rendered three items
// deep took 130 to 155 tokens a line on the real runs, written once and
// read on every later call, and its strings are cut too short to copy from.
const recordSampleRunes = 240

// sampleItems is the most items, at most sample_limit and at least one,
// whose sample of bd's value fits recordSampleRunes characters.
func (r *record) sampleItems(bd *Binding) int {
	o := &r.req.Options
	if bd.Fn != nil || hiddenName(bd.Name) || r.printed[bd.Turn] || emptyValue(bd.Value) {
		return o.SampleLimit
	}
	n := o.SampleLimit
	for n > 1 && utf8.RuneCountInString(RenderValue(bd.Value, n, o.SamplePrintableLimit)) > recordSampleRunes {
		n--
	}
	return n
}

// bindingsLen is about the length of what writeBindings writes of idx.
func (r *record) bindingsLen(idx []int) int {
	return bindingsLen(len(idx), func(j int) *Binding { return r.binding(idx[j]) }, r.printed, &r.req.Options)
}

// hostPrelude lists the host's prelude, as single-user-coalesced's prelude
// does.
func (r *record) hostPrelude() string {
	if len(r.host) == 0 {
		return ""
	}
	const heading = ";; === user/ (your prelude) ==="
	var b strings.Builder
	b.Grow(len(heading) + r.bindingsLen(r.host))
	b.WriteString(heading)
	// As single-user-coalesced shows it: the host's own values, samples
	// whole.
	writeBindingsAt(&b, len(r.host), func(j int) *Binding { return r.binding(r.host[j]) }, r.printed, &r.req.Options)
	return b.String()
}

// rewrittenBindings lists the bindings the record does not hold
// (newRecord), as single-user-coalesced's prelude does.
func (r *record) rewrittenBindings() string {
	if len(r.defs[0]) == 0 {
		return ""
	}
	heading := ";; === user/ (your prelude) ==="
	if len(r.host) > 0 {
		heading = ";; === user/ (your prelude, continued) ==="
	}
	var b strings.Builder
	b.Grow(len(heading) + r.bindingsLen(r.defs[0]))
	b.WriteString(heading)
	r.writeBindings(&b, r.defs[0])
	return b.String()
}

// restOfLastOutput shows, while a turn is the last, the output its entry
// leaves out.
func (r *record) restOfLastOutput() string {
	n := len(r.entries)
	if n == 0 || len(r.entries[n-1].rest) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(";; The rest of turn " + strconv.Itoa(n) + "'s output:")
	for _, p := range r.entries[n-1].rest {
		b.WriteByte('\n')
		b.WriteString(p)
	}
	return b.String()
}

// text is the summary of the turns up to the last re-base and an entry per
// turn after it, to be joined by blank lines (joinSections); none before
// the first turn.
func (r *record) text(c *historyCounts) ([]string, error) {
	turns := r.req.Turns
	if len(turns) == 0 {
		return nil, nil
	}
	for i, t := range turns {
		c.toolCallsTotal += len(t.ToolCalls)
		if t.Success {
			c.printsTotal += len(t.Prints)
		}
		if i == len(turns)-1 {
			c.printsShown += len(r.entries[i].rest)
		}
	}
	base := r.base
	parts := make([]string, 0, len(turns)-base+1)
	if base > 0 {
		parts = append(parts, r.summary(base, c))
	}
	for k := base + 1; k <= len(turns); k++ {
		e := &r.entries[k-1]
		parts = append(parts, r.entry(k))
		c.toolCallsShown += len(e.calls)
		c.printsShown += len(e.prints)
	}
	return parts, nil
}

// summary is the summary of turns 1..n: a heading, the most recent tool
// calls their entries show, the definitions those turns made that still
// stand, and the most recent output lines their entries show, as
// single-user-coalesced's sections. What changes least comes first, so a
// later re-base rewrites the summary from the first new definition or tool
// call on, as single-user-coalesced rewrites its sections.
func (r *record) summary(n int, c *historyCounts) string {
	var defs []int // in memory order, as single-user-coalesced's prelude
	for i, k := range r.at {
		if k >= 1 && k <= n {
			defs = append(defs, i)
		}
	}
	calls := r.summaryToolCalls(n, c)
	var b strings.Builder
	b.Grow(len(summaryHeading) + 1 + len(summaryIndexLabel) + len(r.lists[n]) + 1 + len(calls) + r.bindingsLen(defs))
	b.WriteString(summaryHeading)
	if ids := r.lists[n]; ids != "" {
		b.WriteString("\n" + summaryIndexLabel)
		b.WriteString(ids)
	}
	if calls != "" {
		b.WriteByte('\n')
		b.WriteString(calls)
	}
	r.writeBindings(&b, defs)
	return joinSections(b.String(), r.summaryOutput(n, c))
}

// summaryToolCalls is toolCallsSection for turns 1..n, from the lines the
// entries rendered: the most recent tool_call_limit calls of those turns
// are among the ones their entries show.
func (r *record) summaryToolCalls(n int, c *historyCounts) string {
	lines := r.recentLines(n, r.req.Options.ToolCallLimit, func(e *entryText) []string { return e.calls })
	total := 0
	for _, t := range r.req.Turns[:n] {
		total += len(t.ToolCalls)
	}
	if total == 0 {
		return ";; No tool calls made"
	}
	c.toolCallsShown += len(lines)
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(";; Tool calls made:")
	writeCallLines(&b, lines, nil)
	return b.String()
}

// summaryOutput is outputSection for turns 1..n, from the output lines the
// entries show.
func (r *record) summaryOutput(n int, c *historyCounts) string {
	lines := r.recentLines(n, r.req.Options.PrintlnLimit, func(e *entryText) []string { return e.prints })
	c.printsShown += len(lines)
	return labelled(";; Output:", "\n", lines)
}

// recentLines returns the most recent limit lines that entries 1..n show
// (lines gives an entry's), oldest first.
func (r *record) recentLines(n, limit int, lines func(*entryText) []string) []string {
	var out []string
	for k := n; k >= 1 && len(out) < limit; k-- {
		l := lines(&r.entries[k-1])
		for i := len(l) - 1; i >= 0 && len(out) < limit; i-- {
			out = append(out, l[i])
		}
	}
	slices.Reverse(out)
	return out
}

// labelled is label and each line after sep; "" without lines.
func labelled(label, sep string, lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(label)
	for _, l := range lines {
		b.WriteString(sep)
		b.WriteString(l)
	}
	return b.String()
}

// summaryHeading opens the summary. It does not say how many turns it
// summarizes (the first entry after it does), so that a re-base keeps the
// earlier summary's heading, and its definitions as far as they are the
// same, in the cache.
const summaryHeading = ";; earlier turns, summarized"

// entry is what turn k did: the definitions of the memory it made (each
// moves out when redefined), then what the turn's own record holds
// (makeEntry), its result left out when a definition's sample shows it.
func (r *record) entry(k int) string {
	e := &r.entries[k-1]
	if e.head == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(e.head) + r.bindingsLen(r.defs[k]) + len(e.body) + len("\n;; Result: ") + len(e.result))
	b.WriteString(e.head)
	r.writeBindings(&b, r.defs[k])
	b.WriteString(e.body)
	if e.result != "" && !r.showsResult(k) {
		b.WriteString("\n;; Result: ")
		b.WriteString(e.result)
	}
	return b.String()
}

// showsResult reports whether a value binding of turn k has the turn's
// result as its sample.
func (r *record) showsResult(k int) bool {
	o := &r.req.Options
	for _, i := range r.defs[k] {
		if bd := r.binding(i); bd.Fn == nil && !hiddenName(bd.Name) && RenderValue(orNil(bd.Value), o.SampleLimit, o.SamplePrintableLimit) == r.entries[k-1].result {
			return true
		}
	}
	return false
}

// An entry shows its turn's output whole up to entryOutputRunes characters,
// and a longer one by its first entryExcerptRunes characters. The rest is
// shown after the record while the turn is the last one:
// single-user-coalesced, too, soon shows only the most recent lines of a
// long output, and the model needs the results of its code, which its
// definitions keep, more than the text it printed.
const (
	entryOutputRunes  = 1000
	entryExcerptRunes = 500
)

// entryText is the entry of a turn without its definitions, made from the
// turn alone: a heading, then the body (its most recent tool_call_limit tool
// calls, then the first lines of its most recent println_limit prints, up
// to entryOutputRunes), and when it printed nothing its result's sample. A
// failed turn is its heading with the error type and the tool calls it
// made, whose effects happened, or nothing when it made none: its
// definitions were rolled back, and its program and error are shown in the
// rewritten part while it is the last turn.
type entryText struct {
	head, body string
	result     string   // the result's sample, "" when not shown
	calls      []string // the tool calls shown, each as name(args)
	prints     []string // the output lines shown
	rest       []string // the output lines left out, shown while the turn is the last
}

func makeEntry(t *Turn, k int, o *Options, known, earlier, listed map[string]bool, warned map[string]bool, seen entryLines) entryText {
	var e entryText
	shown := t.ToolCalls[max(len(t.ToolCalls)-o.ToolCallLimit, 0):]
	if !t.Success && len(shown) == 0 {
		return e // nothing happened that lasts
	}
	e.head = ";; turn " + strconv.Itoa(k)
	if !t.Success {
		e.head += " failed"
		if t.Error != nil && t.Error.Type != "" {
			e.head += " (" + oneLine(t.Error.Type) + ")"
		}
	}
	e.calls = make([]string, len(shown))
	for i := range shown {
		var c strings.Builder
		writeToolCall(&c, &shown[i], argItemLimit, argPrintableLimit)
		e.calls[i] = c.String()
	}
	// The output, or else the result: one view of what the turn produced,
	// as a prelude line shows a sample or the output.
	var out strings.Builder
	var ids string
	if t.Success {
		if all := seen.withoutRepeats(t.Prints); len(all) > 0 && o.PrintlnLimit > 0 {
			prints := all[max(len(all)-o.PrintlnLimit, 0):]
			e.prints, e.rest, ids = cutOutput(all, prints, known, earlier, o.Pricing)
			seen.add(e.prints, k)
			out.WriteString("\n;; Output:")
			for _, p := range e.prints {
				out.WriteByte('\n')
				out.WriteString(p)
			}
			if len(e.rest) > 0 {
				out.WriteString("\n;; (output cut: " + strconv.Itoa(len(e.rest)) + " more lines)")
			}
			if ids != "" {
				out.WriteString("\n" + outputIndexLabel)
				out.WriteString(ids)
			}
		} else if len(t.Prints) == 0 && (!emptyValue(t.Result) || t.Returned) {
			e.result = RenderValue(orNil(t.Result), o.SampleLimit, o.SamplePrintableLimit)
		}
	}
	var b strings.Builder
	b.Grow(len(shown)*(20+argPrintableLimit) + 64 + out.Len()) // about a line per call
	if len(shown) > 0 {
		b.WriteString("\n;; Tool calls made:")
		// What the output shows: its lines and its list, not the labels.
		shown := strings.Join(append(e.prints[:len(e.prints):len(e.prints)], ids), "\n")
		writeCallLines(&b, e.calls, func(v string) bool {
			return strings.Contains(shown, v) || earlier[v] && listed[v]
		})
	}
	b.WriteString(out.String())
	if t.Success {
		writeEntryWarnings(&b, t.Warnings, warned)
	}
	e.body = b.String()
	identifiersOf(earlier, e.body)
	return e
}

// writeEntryWarnings writes the warnings of a successful turn into its
// entry: each whole the first time its type is shown, then by its type (a
// model that ends every program with a stray bracket is told so once in
// full, 30 tokens, and in 8 after: "Warning: unmatched_closing_bracket
// again"; the type names what happened, so the line reads alone once a
// re-base has summarized the entry that showed it whole). Written once and
// read from the cache after, they cost less than the part after the
// record, which showed the last turn's warnings whole on every call.
func writeEntryWarnings(b *strings.Builder, ws []TurnWarning, warned map[string]bool) {
	for _, w := range ws {
		if w.Type != "" && warned[w.Type] {
			b.WriteString("\nWarning: " + oneLine(w.Type) + " again")
			continue
		}
		b.WriteString("\nWarning: ")
		b.WriteString(oneLine(w.Message))
		if w.Type != "" {
			warned[w.Type] = true
		}
	}
}

// splitOutput splits the lines a turn printed into those its entry shows
// and the rest: all of them up to entryOutputRunes characters, else the
// first ones up to entryExcerptRunes, a line that does not fit cut there
// and its end going with the rest. Each line is cut at printCut first, as
// single-user-coalesced cuts it.
func splitOutput(prints []string, excerpt int) (shown, rest []string) {
	shown = make([]string, len(prints))
	total := 0
	for i, p := range prints {
		shown[i] = cutRunes(p, printCut)
		total += utf8.RuneCountInString(shown[i])
	}
	if total <= entryOutputRunes {
		return shown, nil
	}
	left := excerpt
	for i, p := range shown {
		n := utf8.RuneCountInString(p)
		if n <= left {
			left -= n
			continue
		}
		rest = append([]string{}, shown[i:]...)
		shown = shown[:i]
		if left > 0 {
			head := cutRunes(p, left)
			shown = append(shown, head+"...")
			rest[0] = "..." + p[len(head):]
		}
		break
	}
	return shown, rest
}

// definitionEstimate is the tokens the plan of re-bases counts for a
// definition line, whose real size depends on a value only the memory
// holds: a padded name, a type and a short sample.
const definitionEstimate = 16

// maxRecordExcess bounds how far the record may outgrow the summary that
// would replace it, as a share of the prompt with that summary, on a call
// and summed over the calls so far: past both the record is re-based
// whatever the pricing, so that the strategy sends about the tokens
// single-user-coalesced sends. The sum lets a record that outgrew the
// summary only lately stay: re-based on the last call of a real run, it
// was rewritten for no later call to read.
const maxRecordExcess = 0.15

// rebasePoint returns the last turn the record summarizes (0: none). It
// replays the run's calls, deciding at each whether to re-base, from what
// every later call of the run also has: the turns' own records, the
// options and the prompt before the record (but the host's prelude). Sizes are in tokens,
// definitions estimated by name (a turn's defined names), so a decision
// never depends on values that change.
//
// A call keeps the record (reading it from the cache up to its first
// change) and appends the new entry, or writes a summary of all turns
// instead (reading it as far as it begins as the earlier summary). Each
// call the record outgrows the summary adds its excess reads to a rent;
// the record is re-based once the rent reaches twice what re-basing costs
// beyond keeping (ski rental, with hysteresis), or once the record outgrows
// the summary by maxRecordExcess, on this call and over the run so far. A
// redefinition moves a definition line out of an earlier entry, or out of
// the summary (a first redefinition, or one of a name the summary took in
// once no turn since defined it: place), so the record is rewritten from
// there anyway: from the summary, that is a re-base at no extra cost.
func (r *record) rebasePoint() (int, error) {
	req := r.req
	turns, o := req.Turns, &req.Options
	sizes, err := newRecordSizes(req, r.entries, r.lists)
	if err != nil {
		return 0, err
	}
	p := o.Pricing
	env := float64(r.envTokens)
	base := 0
	rent := 0.0
	// excess and sent sum, over the calls so far, what the record sent
	// beyond the summary (never below 0 on a call) and the prompts with
	// the summary: the size bound holds for the run, not for one call.
	excess, sent := 0.0, 0.0
	// definedAt[name] is the one turn that defined name so far, or -1 once
	// a second turn has: its line has left the record.
	definedAt := map[string]int{}
	// lastAt[name] is the last turn that defined name: once defined
	// twice, the summary shows it if that turn is not after the base.
	lastAt := map[string]int{}
	for k := 1; k <= len(turns); k++ {
		t := &turns[k-1]
		cut := k // the first entry this call rewrites
		forced := false
		for _, name := range t.Defined {
			if !t.Success {
				break
			}
			prev, ok := definedAt[name]
			switch {
			case !ok:
				definedAt[name] = k
			case prev > 0 && prev < k: // a first redefinition moves the line out
				forced = forced || prev <= base
				cut = min(cut, prev)
				definedAt[name] = -1
			case prev < 0 && lastAt[name] <= base: // out of the summary
				forced = true
			}
			lastAt[name] = k
		}
		record := float64(sizes.base(base) + sizes.entries(base, k))
		summary := float64(sizes.base(k))
		// What keeping costs: the record read up to the first entry
		// rewritten, the rest written; what re-basing costs: the summary
		// read as far as it begins as the earlier one, the rest written.
		shared := float64(sizes.shared(base, k))
		kept := float64(sizes.base(base) + sizes.entries(base, max(cut-1, base)))
		if forced {
			kept = float64(sizes.shared(base, base)) // up to the definitions
			shared = min(shared, kept)
		}
		keep := kept*p.ReadRate + (record-kept)*p.WriteRate
		rebase := shared*p.ReadRate + (summary-shared)*p.WriteRate
		if record > summary {
			rent += (record - summary) * p.ReadRate
		}
		excess += max(0, record-summary)
		sent += env + summary
		large := record-summary > maxRecordExcess*(env+summary) && excess > maxRecordExcess*sent
		// Ski rental prices only the bill. Where nothing is cached (reads
		// cost a fresh token) a re-base costs nothing beyond keeping, so
		// the rent is always due and the record would be re-based on
		// nearly every call, each time taking away the entries' output a
		// later program copies from: there only the size rule re-bases.
		due := rent >= 2*(rebase-keep) && p.ReadRate < 1
		// One entry since the last re-base is the record's shape, not its
		// growth: a summary then only drops what the entry shows.
		if record > summary && (forced || k-base >= 2 && (due || large)) {
			base, rent = k, 0
		}
	}
	return base, nil
}

// recordSizes measures the record for rebasePoint without building it, in
// tokens. Every text it counts is the same on every call of the run, so
// Remembered keeps the counts.
type recordSizes struct {
	o *Options
	// calls[i] and prints[i] are the tokens of the first i tool call lines
	// and output lines of the run; callsUpTo[n], printsUpTo[n] count the
	// lines of the first n turns, and names[n] the estimate of the
	// definitions they made; entry[n] is the tokens of the first n
	// entries.
	calls, prints         []int
	callsUpTo, printsUpTo []int
	names, entry          []int
	// index[n] is the tokens of the summary's list of values for the
	// first n turns, its line included.
	index []int
}

func newRecordSizes(req *Request, entries []entryText, lists []string) (*recordSizes, error) {
	o := &req.Options
	s := &recordSizes{o: o, calls: []int{0}, prints: []int{0}, callsUpTo: []int{0}, printsUpTo: []int{0}, names: []int{0}, entry: []int{0}}
	count := func(text string) (int, error) {
		n, err := req.Remembered.text(o.Tokenizer, text)
		return n.tokens, err
	}
	s.index = make([]int, len(lists))
	for n := 1; n < len(lists); n++ {
		if lists[n] == lists[n-1] {
			s.index[n] = s.index[n-1]
			continue
		}
		c, err := count(summaryIndexLabel + lists[n])
		if err != nil {
			return nil, err
		}
		s.index[n] = 1 + c
	}
	seen := map[string]bool{}
	for i := range req.Turns {
		t, e := &req.Turns[i], &entries[i]
		// Calls beyond tool_call_limit in one turn are beyond it in any
		// summary too: the calls an entry shows are all a summary can.
		for _, c := range e.calls {
			n, err := count(c)
			if err != nil {
				return nil, err
			}
			s.calls = append(s.calls, s.calls[len(s.calls)-1]+2+n) // "\n;   "
		}
		for _, p := range e.prints {
			n, err := count(p)
			if err != nil {
				return nil, err
			}
			s.prints = append(s.prints, s.prints[len(s.prints)-1]+1+n)
		}
		names := 0 // first definitions: a name defined again leaves the record
		if t.Success {
			for _, name := range t.Defined {
				if !seen[name] {
					seen[name] = true
					names += definitionEstimate
				}
			}
		}
		s.callsUpTo = append(s.callsUpTo, len(s.calls)-1)
		s.printsUpTo = append(s.printsUpTo, len(s.prints)-1)
		s.names = append(s.names, s.names[len(s.names)-1]+names)
		size := 0
		if e.head != "" {
			for _, part := range []string{e.head, e.body, e.result} {
				n, err := count(part)
				if err != nil {
					return nil, err
				}
				size += n
			}
			size += 1 + names // the blank line before it
		}
		s.entry = append(s.entry, s.entry[len(s.entry)-1]+size)
	}
	return s, nil
}

// entries is the tokens of entries from+1..to.
func (s *recordSizes) entries(from, to int) int { return s.entry[to] - s.entry[from] }

// Tokens of the fixed lines of a summary (o200k_base and cl100k_base
// alike).
const (
	noToolCallsTokens = 6 // ";; No tool calls made" and the blank line before it
	toolCallsTokens   = 6 // ";; Tool calls made:"
	outputTokens      = 4 // ";; Output:"
	headingTokens     = 10
)

// base is the tokens of the summary of the first n turns; 0 for n == 0.
func (s *recordSizes) base(n int) int {
	if n == 0 {
		return 0
	}
	size := s.toolCalls(n) + s.names[n] + s.index[n]
	prints := s.printsUpTo[n]
	if shown := min(prints, s.o.PrintlnLimit); shown > 0 {
		size += outputTokens + s.prints[prints] - s.prints[prints-shown]
	}
	return size
}

// toolCalls is the tokens of the summary of the first n turns up to its
// definitions: the heading and the tool calls.
func (s *recordSizes) toolCalls(n int) int {
	size := headingTokens
	calls := s.callsUpTo[n]
	switch shown := min(calls, s.o.ToolCallLimit); {
	case calls == 0:
		size += noToolCallsTokens
	case shown > 0:
		size += toolCallsTokens + s.calls[calls] - s.calls[calls-shown]
	}
	return size
}

// shared is the tokens the summary of the first k turns shares at its
// start with that of the first b: its heading, and when no tool call was
// made since, its tool calls and the definitions of the earlier summary
// (a definition since is added after them, in memory order).
func (s *recordSizes) shared(b, k int) int {
	switch {
	case b == 0:
		return 0
	case s.index[b] != s.index[k]:
		return headingTokens + s.index[b] - 1 // up to the values added
	case s.callsUpTo[b] != s.callsUpTo[k]:
		return headingTokens + s.index[b]
	}
	return s.toolCalls(b) + s.names[b] + s.index[b]
}
