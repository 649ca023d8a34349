package strategies

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The compression corpus: agent runs of 5 to 30 turns in
// testdata/traces/*.txtar, one file per run. A file holds the mission
// ("mission"), the tools ("tools": one per line, "name signature" and
// optionally " | description"), the data ("data.edn"), the scripted tool
// answers ("answers.edn": a map from tool name to a vector of answers,
// given in order and again from the start when used up) and the programs
// the agent wrote, one per turn ("turn-NN.clj"; the leading ";;" comment
// lines are the prose of the agent's reply). The test evaluates the
// programs with the interpreter, turn after turn, so the turn records,
// prints, tool calls, errors and memory are what EvalTurn would return.

// trace is one evaluated agent run.
type trace struct {
	name   string
	opts   Options
	turns  []Turn
	memory [][]Binding // memory after each turn
}

// scriptedHost answers tool calls from the trace's answers.edn.
type scriptedHost struct {
	answers map[string][]lisp.Value
	next    map[string]int
}

func (h *scriptedHost) CallTool(_ context.Context, name string, _ lisp.Value) (lisp.Value, error) {
	list := h.answers[name]
	if len(list) == 0 {
		return nil, fmt.Errorf("tool %s failed: service unavailable", name)
	}
	v := list[h.next[name]%len(list)]
	h.next[name]++
	return v, nil
}

func loadTrace(t testing.TB, file string) trace {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	g := parseGolden(string(text))
	section := func(name string) string {
		s, ok := g.get(name)
		if !ok {
			t.Fatalf("%s: no %q section", file, name)
		}
		return s
	}
	data, err := lisp.ParseEDN(section("data.edn"), 0)
	if err != nil {
		t.Fatalf("%s: data.edn: %v", file, err)
	}
	answersVal, err := lisp.ParseEDN(section("answers.edn"), 0)
	if err != nil {
		t.Fatalf("%s: answers.edn: %v", file, err)
	}
	host := &scriptedHost{answers: map[string][]lisp.Value{}, next: map[string]int{}}
	for _, e := range answersVal.(*lisp.Map).Entries() {
		host.answers[lisp.Str(e.Key)] = e.Val.(*lisp.Vector).Elems()
	}
	raw := RawOptions{Mission: section("mission"), Data: data}
	var toolNames []string
	for line := range strings.SplitSeq(section("tools"), "\n") {
		spec, desc, _ := strings.Cut(line, " | ")
		name, sig, _ := strings.Cut(spec, " ")
		raw.Tools = append(raw.Tools, ToolSpec{Name: name, Signature: sig, Description: desc})
		toolNames = append(toolNames, name)
	}
	var programs []string
	for _, s := range g.sections {
		if strings.HasPrefix(s.name, "turn-") {
			programs = append(programs, strings.TrimSuffix(s.body, "\n"))
		}
	}
	maxTurns := len(programs) + 2
	raw.MaxTurns = &maxTurns
	opts, err := Normalize(raw)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	tr := trace{name: strings.TrimSuffix(filepath.Base(file), ".txtar"), opts: opts}
	var memory *lisp.Memory
	for i, program := range programs {
		var prose []string
		for line := range strings.SplitSeq(program, "\n") {
			if !strings.HasPrefix(line, ";;") {
				break
			}
			prose = append(prose, strings.TrimSpace(strings.TrimPrefix(line, ";;")))
		}
		res, err := lisp.Eval(context.Background(), program, lisp.Env{
			Prelude: memory, Data: data.(*lisp.Map), Tools: toolNames, Host: host,
			Limits: lisp.DefaultLimits(), TurnNumber: i + 1,
		})
		if err != nil {
			t.Fatalf("%s turn %d: %v", file, i+1, err)
		}
		turn := Turn{
			Number: i + 1, Program: program, Result: res.Value, Prints: res.Prints,
			RawResponse: strings.Join(prose, " ") + "\n```clojure\n" + program + "\n```",
			Success:     res.Err == nil, Returned: res.Returned, Failed: res.Failed,
		}
		if res.Err != nil {
			turn.Result = nil
			turn.Error = &TurnError{Type: string(res.Err.Kind), Message: res.Err.Message, Hint: res.Err.Hint}
		}
		for _, c := range res.ToolCalls {
			turn.ToolCalls = append(turn.ToolCalls, ToolCall{Index: c.Index, Name: c.Name, Args: c.Args, Result: c.Result})
		}
		tr.turns = append(tr.turns, turn)
		memory = res.Memory
		var bindings []Binding
		for _, b := range memory.Bindings() {
			bd := Binding{Name: b.Name, Docstring: b.Docstring, ReturnType: b.ReturnType, Turn: b.Turn, IsFn: b.IsFn(), Params: b.Params()}
			if !bd.IsFn {
				bd.Value = b.Value
			}
			bindings = append(bindings, bd)
		}
		tr.memory = append(tr.memory, bindings)
		tr.turns[i].Memory, tr.turns[i].HasMemory = bindings, true
	}
	return tr
}

// callCost is the input tokens of one call of a run: what
// single-user-coalesced sends (after), what full would send (before), and the
// SYSTEM prompt's share of each (both send it once).
type callCost struct {
	after, before, system int
	stats                 Stats
}

// callCosts returns the cost of each call of the run with the given prompt
// variant: call i (from 0) is the request before turn i+1, holding the
// first i turns and the memory they left.
func callCosts(t testing.TB, tr trace, prompt string) []callCost {
	t.Helper()
	opts := tr.opts
	opts.Prompt = prompt
	system, err := CountTokens(DefaultTokenizer, systemPrompt(&opts))
	if err != nil {
		t.Fatal(err)
	}
	costs := make([]callCost, len(tr.turns))
	for i := range costs {
		req := &Request{Options: opts, Turns: tr.turns[:i]}
		if i > 0 {
			req.Memory = tr.memory[i-1]
		}
		resp, err := coalesced{}.Render(req)
		if err != nil {
			t.Fatalf("%s, call %d: %v", tr.name, i+1, err)
		}
		costs[i] = callCost{resp.Stats.TokensAfter, resp.Stats.TokensBefore, system, resp.Stats}
	}
	return costs
}

// runRatios returns, for a run cut after k = 1..n turns (k calls), what
// single-user-coalesced costs as a fraction of full, summed over the run's
// calls: with the SYSTEM prompt and without it.
func runRatios(costs []callCost) (with, without []float64) {
	var after, before, system int
	for _, c := range costs {
		after += c.after
		before += c.before
		system += c.system
		with = append(with, float64(after)/float64(before))
		without = append(without, float64(after-system)/float64(before-system))
	}
	return with, without
}

// TestCompressionCorpus measures what a user pays: the input tokens of
// every call of a run, summed, with single-user-coalesced against full, for
// both prompt variants (both strategies sending the same SYSTEM prompt), with
// the SYSTEM prompt and without it. It checks that the median run of 15
// turns or more costs at most half of full's tokens with the lean prompt,
// SYSTEM included, and that a run's cost ratio does not grow with its length
// (by more than 0.01: a turn with little history can raise it slightly). Run with -v
// for the table of median and worst ratios per run length.
func TestCompressionCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 17 {
		t.Fatalf("the corpus has %d traces, want at least 17", len(files))
	}
	variants := []string{PromptLean, PromptFull}
	// ratios[variant][system?][k] are the runs' ratios cut after k turns.
	ratios := map[string][2]map[int][]float64{}
	for _, v := range variants {
		ratios[v] = [2]map[int][]float64{{}, {}}
	}
	switched := map[int][]float64{}
	// worst[k] names the run of k turns that costs most with the lean prompt.
	worst := map[int]string{}
	worstRatio := map[int]float64{}
	var long int
	var limitsHit, toolLimitTurn bool
	maxTurns := 0
	for _, file := range files {
		tr := loadTrace(t, file)
		n := len(tr.turns)
		if n < 5 || n > 30 {
			t.Errorf("%s has %d turns, want 5 to 30", tr.name, n)
		}
		if n >= 20 {
			long++
		}
		maxTurns = max(maxTurns, n)
		var failed int
		for _, turn := range tr.turns {
			if !turn.Success {
				failed++
				toolLimitTurn = toolLimitTurn || turn.Error.Type == string(lisp.ToolCallLimit)
			}
		}
		costsOf := map[string][]callCost{}
		for _, v := range variants {
			costs := callCosts(t, tr, v)
			costsOf[v] = costs
			with, without := runRatios(costs)
			last := costs[n-1].stats
			limitsHit = limitsHit || last.ToolCallsDropped > 0 && last.PrintlnsDropped > 0
			for k := 1; k <= n; k++ {
				ratios[v][0][k] = append(ratios[v][0][k], with[k-1])
				if v == PromptLean && with[k-1] > worstRatio[k] {
					worst[k], worstRatio[k] = tr.name, with[k-1]
				}
				ratios[v][1][k] = append(ratios[v][1][k], without[k-1])
				if k > 1 && with[k-1] > with[k-2]+0.01 {
					t.Errorf("%s, %s prompt: a run of %d turns costs %.3f of full, more than %.3f for %d", tr.name, v, k, with[k-1], with[k-2], k-1)
				}
			}
			if v == PromptLean {
				var line []string
				for _, r := range with {
					line = append(line, fmt.Sprintf("%.2f", r))
				}
				t.Logf("%-24s %2d turns, %d failed: %s", tr.name, n, failed, strings.Join(line, " "))
			}
		}
		// What a caller of full with the full reference pays, against
		// single-user-coalesced with the lean prompt.
		var after, before int
		for k := 1; k <= n; k++ {
			after += costsOf[PromptLean][k-1].after
			before += costsOf[PromptFull][k-1].before
			switched[k] = append(switched[k], float64(after)/float64(before))
		}
	}
	if long < 5 {
		t.Errorf("%d traces of 20 turns or more, want at least 5", long)
	}
	if !limitsHit {
		t.Error("no trace drops tool calls and printlns by tool_call_limit and println_limit")
	}
	if !toolLimitTurn {
		t.Error("no trace has a turn that ends at the interpreter's tool-call limit")
	}
	for _, v := range variants {
		o := Options{Prompt: v}
		n, err := CountTokens(DefaultTokenizer, systemPrompt(&o))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s SYSTEM prompt: %d tokens", v, n)
	}
	// The target: with the lean prompt, the median run of 15 turns or more
	// costs at most half of full's tokens, SYSTEM included. (Not every run
	// can: one of short programs and short outputs sends little history
	// for compression to save, and SYSTEM, mission, tools and data are
	// sent by both.)
	for k := 15; k <= maxTurns; k++ {
		r := slices.Sorted(slices.Values(ratios[PromptLean][0][k]))
		if m := median(r); m > 0.5 {
			t.Errorf("the median run of %d turns costs %.3f of full's tokens with the lean prompt, more than half", k, m)
		}
	}
	t.Logf("run ratio = sum of input tokens over the run's calls, single-user-coalesced / full; median and worst")
	t.Logf("| turns | traces | lean | lean without SYSTEM | full | full without SYSTEM | lean against full with the full reference | worst run (lean) |")
	for k := 1; k <= maxTurns; k++ {
		row := fmt.Sprintf("| %d | %d", k, len(ratios[PromptLean][0][k]))
		for _, v := range variants {
			for sys := range 2 {
				row += medianWorst(ratios[v][sys][k])
			}
		}
		t.Log(row + medianWorst(switched[k]) + " | " + worst[k] + " |")
	}
}

// medianWorst formats the median and the highest of rs as a table cell.
func medianWorst(rs []float64) string {
	r := slices.Sorted(slices.Values(rs))
	return fmt.Sprintf(" | %.3f / %.3f", median(r), r[len(r)-1])
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
