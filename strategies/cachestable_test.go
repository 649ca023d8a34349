package strategies

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestCacheStableAppendOnly replays every run of the corpus under each
// pricing and checks what makes the strategy cache-stable: consecutive
// calls agree on where the record was re-based (the same, or at the turn
// just added), and unless the call re-bases or a turn redefines a name for
// the first time, the USER message begins with all of the earlier call's
// that its next_cache_breakpoint promised.
func TestCacheStableAppendOnly(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no traces", err)
	}
	files = sampleForShort(files)
	appended, rebased := 0, 0
	for _, file := range files {
		tr := loadTrace(t, file)
		for _, pricing := range PricingNames() {
			p, _ := resolvePricing(pricing, nil, nil)
			var prev *Response
			prevBase := 0
			defined := map[string]bool{}
			for i := range len(tr.turns) + 1 {
				req := tr.request(i)
				req.Options.Pricing = p
				what := fmt.Sprintf("%s, %s, call %d", tr.name, pricing, i+1)
				rec, _, err := newCacheStableRecord(req)
				if err != nil {
					t.Fatal(err)
				}
				base, err := rec.rebasePoint()
				if err != nil {
					t.Fatal(err)
				}
				if base != prevBase && base != i {
					t.Fatalf("%s: re-based at turn %d, the earlier call at %d", what, base, prevBase)
				}
				resp, err := cacheStable{}.Render(req)
				if err != nil {
					t.Fatal(err)
				}
				redefined := false
				if i > 0 && tr.turns[i-1].Success {
					for _, name := range tr.turns[i-1].Defined {
						redefined = redefined || defined[name]
					}
					for _, name := range tr.turns[i-1].Defined {
						defined[name] = true
					}
				}
				if prev != nil && base == prevBase && !redefined {
					kept := prev.Stats.NextCacheBreakpoint
					before := prev.Messages[kept.Message].Content
					before = before[:runeOffset(before, kept.Offset)]
					if !strings.HasPrefix(resp.Messages[kept.Message].Content, before) {
						t.Fatalf("%s: the USER message does not begin with the earlier call's first %d characters\n--- earlier ---\n%s\n--- now ---\n%s", what, kept.Offset, before, resp.Messages[kept.Message].Content)
					}
					appended++
				} else if prev != nil {
					rebased++
				}
				prev, prevBase = resp, base
			}
		}
	}
	if appended == 0 || rebased == 0 {
		t.Errorf("%d calls appended, %d re-based or redefined: want both", appended, rebased)
	}
}

// runeOffset is the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// TestCacheStableProperties renders random requests (bindings of failed
// turns, of turns not sent, hidden names, every limit from 0) and checks
// that each binding of the memory is shown on exactly one line, wherever
// the strategy places it, and the error block appears iff the last turn
// failed.
func TestCacheStableProperties(t *testing.T) {
	g := requestGen{rand.New(rand.NewPCG(27, 3))}
	for i := range propertyRuns {
		req := g.request()
		resp, err := cacheStable{}.Render(req)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		user := resp.Messages[1].Content
		lines := strings.Split(user, "\n")
		for _, b := range req.Memory {
			n := 0
			for _, line := range lines {
				if strings.HasPrefix(line, b.Name+" ") || strings.HasPrefix(line, "("+b.Name+" [") {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("case %d: binding %s (turn %d) on %d lines:\n%s", i, b.Name, b.Turn, n, user)
			}
		}
		lastFailed := len(req.Turns) > 0 && !req.Turns[len(req.Turns)-1].Success
		if strings.Contains(user, "---\nYour previous attempt:\n") != lastFailed {
			t.Fatalf("case %d: error block shown: %v, last turn failed: %v\n%s", i, !lastFailed, lastFailed, user)
		}
	}
}

// TestSummaryToolCalls: the summary's tool calls, taken from the lines the
// entries rendered, are single-user-coalesced's section for those turns,
// with the runs of calls that differ in one value on one line, as an entry
// shows them.
func TestSummaryToolCalls(t *testing.T) {
	g := requestGen{rand.New(rand.NewPCG(27, 4))}
	for i := range propertyRuns {
		req := g.request()
		r := newRecord(req, nil)
		for n := 1; n <= len(req.Turns); n++ {
			var a, b historyCounts
			got := r.summaryToolCalls(n, &a)
			want := groupedCalls(toolCallsSection(&Request{Turns: req.Turns[:n], Options: req.Options}, &b))
			if got != want || a.toolCallsShown != b.toolCallsShown {
				t.Fatalf("case %d, %d turns: got\n%s\nwant\n%s", i, n, got, want)
			}
		}
	}
}

// groupedCalls is a tool calls section with its lines as writeCallLines
// writes them.
func groupedCalls(section string) string {
	label, lines, ok := strings.Cut(section, "\n;   ")
	if !ok {
		return section
	}
	var b strings.Builder
	b.WriteString(label)
	writeCallLines(&b, strings.Split(lines, "\n;   "), nil)
	return b.String()
}

// TestCacheStableRedefinedSummarized: a name that two turns define leaves
// the record for the part after it, rewritten on every call, until a
// re-base summarizes the turns that defined it; then the summary shows it,
// and a later redefinition of it re-bases at once, so that the summary
// shows it again. The calls agree on the re-bases, and a binding is shown
// on one line.
func TestCacheStableRedefinedSummarized(t *testing.T) {
	// Reads at nearly a fresh token: a record that outgrows the summary is
	// re-based for what its reads cost as soon as it holds two entries
	// (under none, which caches nothing, only the size rule re-bases).
	read := 0.99
	opts, err := Normalize(RawOptions{SystemPrompt: "s", Pricing: "none", CacheReadRate: &read})
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		x     int64 // the value the turn gives x, 0: none
		print string
	}
	steps := []step{{1, "one"}, {2, "two"}, {0, "three"}, {0, "four"}, {0, "five"}, {3, "six"}, {0, "seven"}}
	var turns []Turn
	xTurn, xValue := 0, int64(0)
	prevBase := 0
	for i, s := range steps {
		n := i + 1
		turn := Turn{Number: n, Success: true, Prints: []string{s.print + " " + strings.Repeat("word ", 40)}}
		if s.x != 0 {
			turn.Defined = []string{"x"}
			xTurn, xValue = n, s.x
		}
		turns = append(turns, turn)
		memory := []Binding{{Name: "x", Value: lisp.Int(xValue), Turn: xTurn}}
		req := &Request{Options: opts, Turns: turns, Memory: memory}
		rec, _, err := newCacheStableRecord(req)
		if err != nil {
			t.Fatal(err)
		}
		if rec.base != prevBase && rec.base != n {
			t.Fatalf("after turn %d: re-based at turn %d, the earlier call at %d", n, rec.base, prevBase)
		}
		prevBase = rec.base
		resp, err := cacheStable{}.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		user := resp.Messages[1].Content
		if c := strings.Count(user, "\nx  "); c != 1 {
			t.Fatalf("after turn %d: x shown on %d lines\n%s", n, c, user)
		}
		line := strings.Index(user, "\nx  ")
		end := runeOffset(user, resp.Stats.NextCacheBreakpoint.Offset)
		inRecord := line < end
		// x was defined by turns 1 and 2, then by 6: after the record while
		// a turn since the base defined it.
		want := rec.base >= xTurn || xTurn == 1
		if inRecord != want {
			t.Errorf("after turn %d (base %d, x of turn %d): x in the record %v, want %v\n%s", n, rec.base, xTurn, inRecord, want, user)
		}
	}
	if prevBase < 2 {
		t.Errorf("no re-base after the second definition (base %d)", prevBase)
	}
}

// TestCacheStableWarnings: a successful turn's warnings are in its entry,
// whole the first time their type is shown and by type after; a failed
// last turn's follow the record, whole.
func TestCacheStableWarnings(t *testing.T) {
	// A long SYSTEM, so that the record is not re-based for its size.
	opts, err := Normalize(RawOptions{SystemPrompt: strings.Repeat("system ", 2000)})
	if err != nil {
		t.Fatal(err)
	}
	stray := func(line int) []TurnWarning {
		return []TurnWarning{{Type: "unmatched_closing_bracket", Message: fmt.Sprintf("ignored 1 unmatched closing bracket at line %d", line)}}
	}
	turns := []Turn{
		{Number: 1, Success: true, Prints: []string{"a"}, Warnings: stray(3)},
		{Number: 2, Success: true, Prints: []string{"b"}},
		{Number: 3, Success: true, Prints: []string{"c"}, Warnings: stray(7)},
		{Number: 4, Success: false, Program: "(x)", Error: &TurnError{Type: "name_error", Message: "x is not defined"}, Warnings: stray(9)},
	}
	for n, want := range []struct{ record, after []string }{
		{[]string{"a\nWarning: ignored 1 unmatched closing bracket at line 3"}, nil},
		{[]string{"a\nWarning: ignored 1 unmatched closing bracket at line 3", ";; Output:\nb\n\n"}, nil},
		{[]string{"a\nWarning: ignored 1 unmatched closing bracket at line 3", "c\nWarning: unmatched_closing_bracket again"}, nil},
		{[]string{"c\nWarning: unmatched_closing_bracket again"}, []string{"Warning: ignored 1 unmatched closing bracket at line 9"}},
	} {
		resp, err := cacheStable{}.Render(&Request{Options: opts, Turns: turns[:n+1]})
		if err != nil {
			t.Fatal(err)
		}
		user := resp.Messages[1].Content
		end := runeOffset(user, resp.Stats.NextCacheBreakpoint.Offset)
		record, after := user[:end], user[end:]
		for _, w := range want.record {
			if !strings.Contains(record, w) {
				t.Errorf("%d turns: the record lacks %q\n%s", n+1, w, user)
			}
		}
		if got := strings.Count(after, "Warning: "); got != len(want.after) {
			t.Errorf("%d turns: %d warnings after the record, want %d\n%s", n+1, got, len(want.after), user)
		}
		for _, w := range want.after {
			if !strings.Contains(after, w) {
				t.Errorf("%d turns: after the record, no %q\n%s", n+1, w, user)
			}
		}
	}
}

// TestCacheStableSampleBound: a value the record shows with a sample shows
// as many items as fit recordSampleRunes characters, one at least, where
// single-user-coalesced shows sample_limit; a short one shows them all.
func TestCacheStableSampleBound(t *testing.T) {
	opts, err := Normalize(RawOptions{SystemPrompt: "s"})
	if err != nil {
		t.Fatal(err)
	}
	entry := func(i int) lisp.Value {
		m := lisp.NewMapBuilder(2)
		m.Set(lisp.String("statement"), lisp.String(fmt.Sprintf("statement %d %s", i, strings.Repeat("about the incident ", 5))))
		m.Set(lisp.String("digest"), lisp.String(fmt.Sprintf("sha256:%064d", i)))
		return m.Map()
	}
	long := lisp.NewVector([]lisp.Value{entry(1), entry(2), entry(3), entry(4)})
	short := lisp.NewVector([]lisp.Value{lisp.Int(1), lisp.Int(2), lisp.Int(3), lisp.Int(4)})
	req := &Request{
		Options: opts,
		Turns:   []Turn{{Number: 1, Success: true, Defined: []string{"facts", "ids"}, Result: long}},
		Memory:  []Binding{{Name: "facts", Value: long, Turn: 1}, {Name: "ids", Value: short, Turn: 1}},
	}
	line := func(user, name string) string {
		for l := range strings.SplitSeq(user, "\n") {
			if strings.HasPrefix(l, name+" ") {
				return l
			}
		}
		t.Fatalf("no line of %s in\n%s", name, user)
		return ""
	}
	stable, err := cacheStable{}.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	coalesced, err := coalesced{}.Render(req)
	if err != nil {
		t.Fatal(err)
	}
	got, full := line(stable.Messages[1].Content, "facts"), line(coalesced.Messages[1].Content, "facts")
	if !strings.Contains(full, "(4 items, showing first 3)") {
		t.Fatalf("single-user-coalesced: %s", full)
	}
	if strings.Contains(got, "showing first 3") || !strings.Contains(got, "(4 items, showing first") {
		t.Errorf("cache-stable shows the long value's sample as %s", got)
	}
	if _, sample, _ := strings.Cut(got, "sample: "); utf8.RuneCountInString(sample) > recordSampleRunes {
		t.Errorf("cache-stable's sample is %d characters, more than %d: %s", utf8.RuneCountInString(sample), recordSampleRunes, got)
	}
	if got := line(stable.Messages[1].Content, "ids"); !strings.Contains(got, "[1 2 3 ...] (4 items, showing first 3)") {
		t.Errorf("cache-stable shows the short value's sample as %s", got)
	}
}

// TestCacheStableRunsOf20Turns: no recorded run of a real model is longer
// than 15 turns, so each is extended to 20 by repeating its own turns
// after its last, renumbered (its turns from the second on, or its last
// three, the turns that build and check a report), with the memory it
// ended with. A repeated turn defines again what it defined, so the
// names a long run redefines leave the record as they would. Under each
// pricing that caches, cache-stable bills at most 0.52 of full's on every
// run of 20 turns. Under -short or the race detector, every fourth run.
func TestCacheStableRunsOf20Turns(t *testing.T) {
	// The most measured (0.512, anthropic-1h, with the lean prompt of 1,404
	// tokens; 0.527 with that of 1,741) rounded up; the product's promise
	// is 0.6.
	const most20Turns = 0.52
	files := realRunSample(t)
	rem := NewRemembered(memo.New(64 << 20))
	worst, worstAt := 0.0, ""
	for _, f := range files {
		tr := loadTrace(t, f)
		for _, from := range []int{1, len(tr.turns) - 3} {
			long := repeatTurns(tr, from, 20)
			for _, p := range billedPricings(t) {
				if p.ReadRate >= 1 {
					continue
				}
				full, _ := billRun(t, long, "full", p, rem)
				stable, _ := billRun(t, long, "cache-stable", p, rem)
				r := stable[19].billed / full[19].billed
				if r > worst {
					worst, worstAt = r, fmt.Sprintf("%s, %s", long.name, p.Name)
				}
				if r > most20Turns {
					t.Errorf("%s, %s: cache-stable bills %.3f of full's after 20 turns, more than %.3f", long.name, p.Name, r, most20Turns)
				}
			}
		}
	}
	t.Logf("most cache-stable bills of full's after 20 turns: %.3f, %s", worst, worstAt)
}

// realRunSample is the recorded runs of a real model
// (testdata/traces/real-*.txtar), every fourth under -short and -race.
func realRunSample(t *testing.T) []string {
	t.Helper()
	skipRealCorpusUnderRace(t)
	files, err := filepath.Glob("testdata/traces/real-*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no real runs", err)
	}
	if testing.Short() || raceEnabled {
		files = everyFourth(files)
	}
	return files
}

// repeatTurns is tr with its turns from index from on repeated after its
// last, renumbered, until it has n turns; each repeated turn carries the
// memory the run ended with.
func repeatTurns(tr trace, from, n int) trace {
	k := len(tr.turns)
	out := tr
	out.name = fmt.Sprintf("%s repeating turns %d-%d", tr.name, from+1, k)
	out.turns = slices.Clone(tr.turns)
	out.memory = slices.Clone(tr.memory)
	last := tr.memory[k]
	for i := k; i < n; i++ {
		turn := tr.turns[from+(i-k)%(k-from)]
		turn.Number, turn.Memory = i+1, last
		out.turns = append(out.turns, turn)
		out.memory = append(out.memory, last)
	}
	return out
}

// TestCacheStableNoCacheRebasesBySize: where nothing is cached (pricing
// none) a re-base costs nothing beyond keeping the record, so ski rental
// would re-base on nearly every call and drop each entry's output a later
// program may copy from; there the record is re-based only once it
// outgrows the summary by the size rule. With cache reads at half a fresh
// token (openai) the same record is re-based for what its reads cost.
func TestCacheStableNoCacheRebasesBySize(t *testing.T) {
	turns := []Turn{
		{Number: 1, Success: true, Prints: []string{"one", "two", "three"}},
		{Number: 2, Success: true, Prints: []string{"four", "five"}},
		{Number: 3, Success: true, Prints: []string{"six"}},
	}
	for _, c := range []struct {
		pricing string
		rebased bool
	}{{"none", false}, {"openai", true}} {
		opts, err := Normalize(RawOptions{Mission: "Count things.", PrintlnLimit: ptr(2), Pricing: c.pricing})
		if err != nil {
			t.Fatal(err)
		}
		rec, _, err := newCacheStableRecord(&Request{Options: opts, Turns: turns})
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.base > 0; got != c.rebased {
			t.Errorf("%s: re-based %v (at turn %d), want %v", c.pricing, got, rec.base, c.rebased)
		}
	}
	// A record that outgrows the summary by far more than the size rule
	// allows is re-based under none too.
	var long []Turn
	for i := range 12 {
		long = append(long, Turn{Number: i + 1, Success: true, Prints: []string{strings.Repeat("line ", 100)}})
	}
	opts, err := Normalize(RawOptions{Mission: "Count things.", SystemPrompt: "s", PrintlnLimit: ptr(1), Pricing: "none"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := newCacheStableRecord(&Request{Options: opts, Turns: long})
	if err != nil {
		t.Fatal(err)
	}
	if rec.base == 0 {
		t.Error("none: a record of 12 long entries against a one-line summary is never re-based")
	}
}
