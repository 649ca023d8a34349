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

// The compression corpus: agent runs of 5 to 15 turns in
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
	}
	return tr
}

// compressionRatio is tokens after / tokens before of single-user-coalesced
// for the trace's first k turns (the request of the call before turn k+1).
func compressionRatio(t testing.TB, tr trace, k int) (ratio float64, stats Stats) {
	t.Helper()
	req := &Request{Options: tr.opts, Turns: tr.turns[:k], Memory: tr.memory[k-1]}
	resp, err := coalesced{}.Render(req)
	if err != nil {
		t.Fatalf("%s with %d turns: %v", tr.name, k, err)
	}
	return float64(resp.Stats.TokensAfter) / float64(resp.Stats.TokensBefore), resp.Stats
}

// TestCompressionCorpus measures the token savings of single-user-coalesced
// against full on every prefix of every trace and checks that they grow
// with the number of turns: in every trace, the ratio (tokens after /
// before) after k turns is below the ratio after k-1. Run with -v for the
// table of median and worst ratios per turn count, over all tokens and
// over the tokens of everything but the SYSTEM prompt, which both send.
func TestCompressionCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("the corpus has %d traces, want at least 10", len(files))
	}
	system, err := CountTokens(DefaultTokenizer, lisp.SystemPrompt())
	if err != nil {
		t.Fatal(err)
	}
	byTurns, withoutSystem := map[int][]float64{}, map[int][]float64{}
	maxTurns := 0
	for _, file := range files {
		tr := loadTrace(t, file)
		if n := len(tr.turns); n < 5 || n > 15 {
			t.Errorf("%s has %d turns, want 5 to 15", tr.name, n)
		}
		var failed int
		for _, turn := range tr.turns {
			if !turn.Success {
				failed++
			}
		}
		var ratios []string
		prev := 2.0
		for k := 1; k <= len(tr.turns); k++ {
			r, stats := compressionRatio(t, tr, k)
			if r >= prev {
				t.Errorf("%s: ratio %.3f after %d turns is not below %.3f after %d", tr.name, r, k, prev, k-1)
			}
			prev = r
			byTurns[k] = append(byTurns[k], r)
			withoutSystem[k] = append(withoutSystem[k], float64(stats.TokensAfter-system)/float64(stats.TokensBefore-system))
			ratios = append(ratios, fmt.Sprintf("%.2f", r))
		}
		t.Logf("%-24s %2d turns, %d failed: %s", tr.name, len(tr.turns), failed, strings.Join(ratios, " "))
		maxTurns = max(maxTurns, len(tr.turns))
	}
	t.Logf("SYSTEM prompt: %d tokens", system)
	t.Logf("turns  traces  median  worst   without SYSTEM: median  worst")
	for k := 1; k <= maxTurns; k++ {
		all, rest := slices.Sorted(slices.Values(byTurns[k])), slices.Sorted(slices.Values(withoutSystem[k]))
		t.Logf("%5d  %6d  %6.3f  %5.3f  %22.3f  %5.3f", k, len(all), median(all), all[len(all)-1], median(rest), rest[len(rest)-1])
	}
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
