package strategies

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// cacheStable is single-user-coalesced reordered for prompt caching. A
// provider bills the prompt prefix a call shares with the previous call at a
// fraction of fresh input (cost.go), so what the strategy rewrites from call
// to call costs far more than what it appends. It sends:
//
//	SYSTEM  static
//	USER    mission, tools, data, expected return   the same on every call
//	        the record: a summary of the turns up   appended to, one entry
//	          to the last re-base, then one entry     per turn, never edited
//	          per turn since
//	        bindings redefined, the last error      rewritten on every call
//	          while unrecovered, the last turn's
//	          warnings, turns left
//
// An entry holds what the turn did, never its code: the bindings it defined
// (from the memory: a binding stays in its turn's entry while it stands),
// its tool calls, its output or else its result, and for a failed turn one
// line saying so (its program and error are shown in the rewritten part
// while it is the last turn, then collapse to that line). Everything else in
// an entry comes from the turn's own record, so every later call renders it
// byte for byte the same.
//
// The record grows with the run; a re-base replaces it with a compact
// summary (the definitions that stand and the tool calls and output
// sections of single-user-coalesced) once the reads the record has cost
// beyond what a summary would have cost since the last re-base reach twice
// what rewriting it costs beyond keeping it (ski rental, with hysteresis).
// The decision is made from the turns' own records, sizes in tokens and the
// request's pricing, so every later call of the run finds the same
// re-bases.
type cacheStable struct{}

func init() { register(cacheStable{}) }

func (cacheStable) Name() string { return "cache-stable" }

func (cacheStable) Description() string {
	return "[SYSTEM, USER] ordered for prompt caching: the mission, tools, data and expected return, then an append-only record of what each turn did (its definitions, tool calls, output or result; never its code), re-based to a compact summary only when the record costs more under the pricing than rewriting it; last the bindings redefined, the last error while unrecovered and the turns left. Most of each prompt is the previous call's, read from the provider's cache."
}

func (cacheStable) Input() Input { return InputTurns }

func (cacheStable) Options() []OptionDoc { return turnOptionDocs }

func (s cacheStable) Render(req *Request) (*Response, error) {
	return summarizedResponse(s.Name(), req, memoryWhole, cacheStableMessages)
}

// cacheStableMessages builds [SYSTEM, USER].
func cacheStableMessages(req *Request) ([]ChatMessage, historyCounts, error) {
	var counts historyCounts
	o := &req.Options
	tools, err := toolSection(o, req.Remembered)
	if err != nil {
		return nil, counts, err
	}
	ret, err := expectedReturnSection(o, req.Remembered)
	if err != nil {
		return nil, counts, err
	}
	rec := newRecord(req)
	record, err := rec.text(&counts)
	if err != nil {
		return nil, counts, err
	}
	stable := joinSections(missionSection(o), tools, dataSection(o), ret, record)
	rewritten := joinSections(rec.rewrittenBindings(), errorSection(req, &counts), warningSection(req.Turns), turnsIndicator(o, len(req.Turns)))
	counts.kept = utf8.RuneCountInString(stable)
	if rewritten != "" {
		counts.kept += 2 // the blank line after the record
	}
	return []ChatMessage{
		{Role: RoleSystem, Content: systemPrompt(o)},
		{Role: RoleUser, Content: joinSections(stable, rewritten)},
	}, counts, nil
}

// record is the append-only part of a cache-stable prompt being built.
type record struct {
	req     *Request
	printed map[int]bool // numbers of the turns that printed
	// defs[k] are the values of the memory that turn k (from 1) defined,
	// in memory order, each shown in that turn's entry; defs[0] are the
	// bindings the rewritten part shows instead (rewrittenBindings).
	defs [][]Binding
	// placed[i] is req.Memory[i] as shown, at[i] where: as in defs.
	placed []Binding
	at     []int
	// entries[k-1] is the entry of turn k without its definitions.
	entries []entryText
}

// newRecord places each binding of the memory. A binding goes in the entry
// of the turn that defined it, where it stays as long as the binding does;
// a function's line there gives the kind of its last return without the
// size, which changes from call to call. The rewritten part shows what
// would not stay: bindings defined by more than one turn of the request (a
// name the agent redefines once tends to be redefined again; its first
// redefinition moves its line out of the record once), and bindings no
// turn of the request defined (turn 0, a turn not sent, or one that failed).
func newRecord(req *Request) *record {
	r := &record{req: req, printed: printingTurns(req.Turns), defs: make([][]Binding, len(req.Turns)+1), entries: make([]entryText, len(req.Turns))}
	pos := make(map[int]int, len(req.Turns)) // turn number -> position from 1
	definitions := map[string]int{}          // name -> successful turns that defined it
	lastTurn := map[string]int{}
	for i, t := range req.Turns {
		n := t.Number
		if n == 0 {
			n = i + 1
		}
		pos[n] = i + 1
		r.entries[i] = makeEntry(&req.Turns[i], i+1, &req.Options)
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
	r.at = make([]int, len(req.Memory))
	r.placed = make([]Binding, len(req.Memory))
	for i, bd := range req.Memory {
		k := pos[bd.Turn] // 0 when absent
		if definitions[bd.Name] > 1 || k > 0 && !req.Turns[k-1].Success {
			k = 0 // a failed turn defines nothing: the memory contradicts it
		}
		if bd.IsFn && k > 0 {
			// The type of the last return, without the size: list[3]
			// after one call, list[5] after the next, list all along.
			if i := strings.IndexByte(bd.ReturnType, '['); i > 0 {
				bd.ReturnType = bd.ReturnType[:i]
			}
		}
		r.defs[k] = append(r.defs[k], bd)
		r.at[i], r.placed[i] = k, bd
	}
	return r
}

// rewrittenBindings lists the bindings the record does not hold
// (newRecord), as single-user-coalesced's prelude does.
func (r *record) rewrittenBindings() string {
	if len(r.defs[0]) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(";; === user/ (your prelude) ===")
	writeBindings(&b, r.defs[0], r.printed, &r.req.Options)
	return b.String()
}

// text is the summary of the turns up to the last re-base and an entry per
// turn after it, joined by blank lines; "" before the first turn.
func (r *record) text(c *historyCounts) (string, error) {
	turns, o := r.req.Turns, &r.req.Options
	if len(turns) == 0 {
		return "", nil
	}
	for _, t := range turns {
		c.toolCallsTotal += len(t.ToolCalls)
		if t.Success {
			c.printsTotal += len(t.Prints)
		}
	}
	base, err := rebasePoint(r.req, r.entries)
	if err != nil {
		return "", err
	}
	parts := make([]string, 0, len(turns)-base+1)
	if base > 0 {
		parts = append(parts, r.summary(base, c))
	}
	for k := base + 1; k <= len(turns); k++ {
		t := &turns[k-1]
		parts = append(parts, r.entry(k))
		c.toolCallsShown += min(len(t.ToolCalls), o.ToolCallLimit)
		if t.Success {
			c.printsShown += min(len(t.Prints), o.PrintlnLimit)
		}
	}
	return joinSections(parts...), nil
}

// summary is the summary of turns 1..n: a heading, the definitions those
// turns made that still stand, and the tool calls and output sections
// single-user-coalesced would show for them.
func (r *record) summary(n int, c *historyCounts) string {
	var defs []Binding // in memory order, as single-user-coalesced's prelude
	for i, bd := range r.placed {
		if k := r.at[i]; k >= 1 && k <= n {
			defs = append(defs, bd)
		}
	}
	var b strings.Builder
	b.WriteString(summaryHeading(n))
	writeBindings(&b, defs, r.printed, &r.req.Options)
	sub := &Request{Turns: r.req.Turns[:n], Options: r.req.Options}
	var sc historyCounts
	s := joinSections(b.String(), r.summaryToolCalls(n, &sc), outputSection(sub, &sc))
	c.toolCallsShown += sc.toolCallsShown
	c.printsShown += sc.printsShown
	return s
}

// summaryToolCalls is toolCallsSection for turns 1..n, from the lines the
// entries rendered: the most recent tool_call_limit calls of those turns
// are among the ones their entries show.
func (r *record) summaryToolCalls(n int, c *historyCounts) string {
	var lines []string
	for k := n; k >= 1 && len(lines) < r.req.Options.ToolCallLimit; k-- {
		calls := r.entries[k-1].calls
		for i := len(calls) - 1; i >= 0 && len(lines) < r.req.Options.ToolCallLimit; i-- {
			lines = append(lines, calls[i])
		}
	}
	for _, t := range r.req.Turns[:n] {
		c.toolCallsTotal += len(t.ToolCalls)
	}
	if c.toolCallsTotal == 0 {
		return ";; No tool calls made"
	}
	c.toolCallsShown = len(lines)
	if len(lines) == 0 {
		return "" // tool_call_limit 0: the caller wants no list
	}
	var b strings.Builder
	b.WriteString(";; Tool calls made:")
	for i := len(lines) - 1; i >= 0; i-- {
		b.WriteString("\n;   ")
		b.WriteString(lines[i])
	}
	return b.String()
}

func summaryHeading(n int) string {
	if n == 1 {
		return ";; --- turn 1, summarized ---"
	}
	return ";; --- turns 1-" + strconv.Itoa(n) + ", summarized ---"
}

// entry is what turn k did: the definitions of the memory it made (each
// moves out when redefined), then what the turn's own record holds
// (makeEntry), its result left out when a definition's sample shows it.
func (r *record) entry(k int) string {
	e := &r.entries[k-1]
	if e.head == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(e.head)
	writeBindings(&b, r.defs[k], r.printed, &r.req.Options)
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
	for _, bd := range r.defs[k] {
		if !bd.IsFn && !hiddenName(bd.Name) && RenderValue(orNil(bd.Value), o.SampleLimit, o.SamplePrintableLimit) == r.entries[k-1].result {
			return true
		}
	}
	return false
}

// entryText is the entry of a turn without its definitions, made from the
// turn alone: a heading, then the body (its most recent tool_call_limit tool
// calls, then its most recent println_limit prints), and when it printed
// nothing its result's sample. A failed turn is its heading with the error
// type and the tool calls it made, whose effects happened, or nothing when
// it made none: its definitions were rolled back, and its program and error
// are shown in the rewritten part while it is the last turn.
type entryText struct {
	head, body string
	result     string   // the result's sample, "" when not shown
	calls      []string // the tool calls shown, each as name(args)
}

func makeEntry(t *Turn, k int, o *Options) entryText {
	var e entryText
	shown := t.ToolCalls[max(len(t.ToolCalls)-o.ToolCallLimit, 0):]
	if !t.Success && len(shown) == 0 {
		return e // nothing happened that lasts
	}
	e.head = ";; --- turn " + strconv.Itoa(k) + " ---"
	if !t.Success {
		e.head = ";; --- turn " + strconv.Itoa(k) + ": failed ---"
		if t.Error != nil && t.Error.Type != "" {
			e.head = ";; --- turn " + strconv.Itoa(k) + ": failed (" + oneLine(t.Error.Type) + ") ---"
		}
	}
	var b strings.Builder
	b.Grow(len(shown)*(20+argPrintableLimit) + 64) // about a line per call
	calls := make([][2]int, len(shown))            // where each call is in the body
	if len(shown) > 0 {
		b.WriteString("\n;; Tool calls made:")
		for i := range shown {
			b.WriteString("\n;   ")
			calls[i][0] = b.Len()
			writeToolCall(&b, &shown[i], argItemLimit, argPrintableLimit)
			calls[i][1] = b.Len()
		}
	}
	if t.Success {
		// The output, or else the result: one view of what the turn
		// produced, as a prelude line shows a sample or the output.
		if prints := t.Prints[max(len(t.Prints)-o.PrintlnLimit, 0):]; len(prints) > 0 {
			b.WriteString("\n;; Output:")
			for _, p := range prints {
				b.WriteByte('\n')
				b.WriteString(cutRunes(p, printCut))
			}
		} else if len(t.Prints) == 0 && (!emptyValue(t.Result) || t.Returned) {
			e.result = RenderValue(orNil(t.Result), o.SampleLimit, o.SamplePrintableLimit)
		}
	}
	e.body = b.String()
	e.calls = make([]string, len(calls))
	for i, c := range calls {
		e.calls[i] = e.body[c[0]:c[1]]
	}
	return e
}

// definitionEstimate is the tokens the plan of re-bases counts for a
// definition line, whose real size depends on a value only the memory
// holds: a padded name, a type and a short sample.
const definitionEstimate = 16

// rebasePoint returns the last turn the record summarizes (0: none). It
// replays the run's calls, deciding at each whether to re-base, from what
// every later call of the run also has: the turns' own records and the
// options. Sizes are in tokens, definitions estimated by name (a turn's
// defined names), so a decision never depends on values that change.
//
// A call keeps the record (reading it from the cache) and appends the new
// entry, or writes a summary of all turns instead. Each call the record
// outgrows the summary adds its excess reads to a rent; the record is
// re-based once the rent reaches what re-basing costs beyond keeping. A
// redefinition moves a definition line out of an earlier entry, or out of
// the summary, so the record is rewritten from there anyway: from the
// summary, that is a re-base at no extra cost.
func rebasePoint(req *Request, entries []entryText) (int, error) {
	turns, o := req.Turns, &req.Options
	sizes, err := newRecordSizes(req, entries)
	if err != nil {
		return 0, err
	}
	p := o.Pricing
	base := 0
	rent := 0.0
	// definedAt[name] is the one turn that defined name so far, or -1 once
	// a second turn has: its line has left the record.
	definedAt := map[string]int{}
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
			}
		}
		record := float64(sizes.base(base) + sizes.entries(base, k))
		kept := float64(sizes.base(base) + sizes.entries(base, max(cut-1, base)))
		if forced {
			kept = 0
		}
		summary := float64(sizes.base(k))
		if record > summary {
			rent += (record - summary) * p.ReadRate
		}
		extra := summary*p.WriteRate - kept*p.ReadRate - (record-kept)*p.WriteRate
		// One entry since the last re-base is the record's shape, not its
		// growth: a summary then only drops what the entry shows.
		if record > summary && (forced || k-base >= 2 && rent >= 2*extra) {
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
}

func newRecordSizes(req *Request, entries []entryText) (*recordSizes, error) {
	o := &req.Options
	s := &recordSizes{o: o, calls: []int{0}, prints: []int{0}, callsUpTo: []int{0}, printsUpTo: []int{0}, names: []int{0}, entry: []int{0}}
	count := func(text string) (int, error) {
		n, err := req.Remembered.text(o.Tokenizer, text)
		return n.tokens, err
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
		names := 0 // first definitions: a name defined again leaves the record
		if t.Success {
			for _, p := range t.Prints {
				n, err := count(cutRunes(p, printCut))
				if err != nil {
					return nil, err
				}
				s.prints = append(s.prints, s.prints[len(s.prints)-1]+1+n)
			}
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
	headingTokens     = 12
)

// base is the tokens of the summary of the first n turns; 0 for n == 0.
func (s *recordSizes) base(n int) int {
	if n == 0 {
		return 0
	}
	size := headingTokens + s.names[n]
	calls := s.callsUpTo[n]
	switch shown := min(calls, s.o.ToolCallLimit); {
	case calls == 0:
		size += noToolCallsTokens
	case shown > 0:
		size += toolCallsTokens + s.calls[calls] - s.calls[calls-shown]
	}
	prints := s.printsUpTo[n]
	if shown := min(prints, s.o.PrintlnLimit); shown > 0 {
		size += outputTokens + s.prints[prints] - s.prints[prints-shown]
	}
	return size
}
