package strategies

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Property tests over random requests from a fixed seed, so a failure
// reproduces: rendering is deterministic, the mission comes first, every
// binding is named once, the error block appears exactly when the last turn
// failed, and the statistics agree with the rendered text.

const propertyRuns = 400

type requestGen struct{ r *rand.Rand }

func (g requestGen) word() string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	n := 1 + g.r.IntN(8)
	var b strings.Builder
	for range n {
		b.WriteByte(letters[g.r.IntN(len(letters))])
	}
	return b.String()
}

func (g requestGen) value(depth int) lisp.Value {
	k := g.r.IntN(11)
	if depth > 2 && k >= 7 {
		k = g.r.IntN(7)
	}
	switch k {
	case 0:
		return lisp.Nil
	case 1:
		return lisp.Bool(g.r.IntN(2) == 0)
	case 2:
		return lisp.Int(g.r.Int64N(2000) - 1000)
	case 3:
		return lisp.Float(g.r.NormFloat64() * 100)
	case 4:
		return lisp.String(strings.Repeat(g.word()+" ", g.r.IntN(30)))
	case 5:
		return lisp.Keyword(g.word())
	case 6:
		return &testFn{params: []string{g.word()}}
	case 7, 8:
		elems := make([]lisp.Value, g.r.IntN(8))
		for i := range elems {
			elems[i] = g.value(depth + 1)
		}
		return lisp.NewVector(elems)
	case 9:
		elems := make([]lisp.Value, g.r.IntN(6))
		for i := range elems {
			elems[i] = g.value(depth + 1)
		}
		return lisp.NewSet(elems)
	default:
		b := lisp.NewMapBuilder(4)
		for range g.r.IntN(6) {
			name := g.word()
			if g.r.IntN(5) == 0 {
				name = "_" + name
			}
			b.Set(lisp.Keyword(name), g.value(depth+1))
		}
		return b.Map()
	}
}

// line is single-line text that cannot be mistaken for rendered structure.
func (g requestGen) line() string { return "out " + g.word() + " " + g.word() }

func (g requestGen) request() *Request {
	raw := RawOptions{SystemPrompt: "system " + g.word()}
	if g.r.IntN(6) > 0 {
		raw.Mission = "Mission: " + g.word() + "\n" + g.word()
	}
	for i := range g.r.IntN(4) {
		raw.Tools = append(raw.Tools, ToolSpec{Name: fmt.Sprintf("t%d%s", i, g.word()), Signature: "(q :string) -> [:int]"})
	}
	if g.r.IntN(2) == 0 {
		raw.Data = g.value(0)
		if _, ok := raw.Data.(*lisp.Map); !ok {
			raw.Data = nil
		}
	}
	raw.MaxTurns = intp(1 + g.r.IntN(10))
	raw.PrintlnLimit = intp(g.r.IntN(6))
	raw.ToolCallLimit = intp(g.r.IntN(6))
	raw.SampleLimit = intp(g.r.IntN(5))
	raw.SamplePrintableLimit = intp(g.r.IntN(120))
	if g.r.IntN(4) == 0 {
		raw.TurnsLeft = intp(g.r.IntN(5))
	}
	opts, err := Normalize(raw)
	if err != nil {
		panic(err)
	}
	req := &Request{Options: opts}
	nTurns := g.r.IntN(7)
	for i := range nTurns {
		t := Turn{Number: i + 1, Program: "(prog " + g.word() + ")", Success: g.r.IntN(3) > 0}
		for range g.r.IntN(4) {
			t.Prints = append(t.Prints, g.line())
		}
		for j := range g.r.IntN(4) {
			t.ToolCalls = append(t.ToolCalls, ToolCall{Index: j, Name: "t" + g.word(), Args: g.value(1)})
		}
		if t.Success {
			t.Result = g.value(0)
		} else {
			t.Error = &TurnError{Type: "error", Message: "failed " + g.word()}
		}
		req.Turns = append(req.Turns, t)
	}
	for i := range g.r.IntN(8) {
		b := Binding{Name: fmt.Sprintf("v%d-%s", i, g.word()), Turn: g.r.IntN(nTurns + 2)}
		if g.r.IntN(4) == 0 {
			b.Name = "_" + b.Name
		}
		if g.r.IntN(3) == 0 {
			b.Fn = &Function{Params: []string{"x", "&", "more"}}
			if g.r.IntN(2) == 0 {
				b.Fn.Docstring = "doc; " + g.word()
			}
			if g.r.IntN(2) == 0 {
				b.Fn.ReturnType = "integer"
			}
		} else {
			b.Value = g.value(0)
		}
		req.Memory = append(req.Memory, b)
	}
	return req
}

func forRandomRequests(t *testing.T, check func(t *testing.T, req *Request, resp *Response)) {
	g := requestGen{rand.New(rand.NewPCG(20261122, 4))}
	for i := range propertyRuns {
		req := g.request()
		resp, err := coalesced{}.Render(req)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { check(t, req, resp) })
		if t.Failed() {
			t.Fatalf("case %d failed; USER was:\n%s", i, resp.Messages[1].Content)
		}
	}
}

func TestPropertyDeterministic(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, resp *Response) {
		again, err := coalesced{}.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range resp.Messages {
			if !reflect.DeepEqual(resp.Messages[i], again.Messages[i]) {
				t.Fatalf("message %d differs between two renders", i)
			}
		}
		if !reflect.DeepEqual(resp.Stats, again.Stats) {
			t.Fatalf("stats differ: %+v vs %+v", resp.Stats, again.Stats)
		}
		// The order in which the caller built its data map does not matter.
		if d := req.Options.Data; d != nil && d.Len() > 1 {
			entries := d.Entries()
			b := lisp.NewMapBuilder(d.Len())
			for i := len(entries) - 1; i >= 0; i-- {
				b.Set(entries[i].Key, entries[i].Val)
			}
			shuffled := *req
			shuffled.Options.Data = b.Map()
			other, err := coalesced{}.Render(&shuffled)
			if err != nil {
				t.Fatal(err)
			}
			if other.Messages[1].Content != resp.Messages[1].Content {
				t.Fatal("data insertion order changed the USER message")
			}
		}
	})
}

func TestPropertySystemIsStatic(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, resp *Response) {
		if resp.Messages[0].Role != RoleSystem || resp.Messages[0].Content != req.Options.SystemPrompt {
			t.Fatalf("SYSTEM is %q", resp.Messages[0].Content)
		}
	})
}

func TestPropertyMissionFirst(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, resp *Response) {
		user, mission := resp.Messages[1].Content, req.Options.Mission
		if mission != "" && user != mission && !strings.HasPrefix(user, mission+"\n\n") {
			t.Fatalf("USER does not start with the mission")
		}
	})
}

// preludeNames returns the name of every line of the user/ section.
func preludeNames(user string) []string {
	_, rest, ok := strings.Cut(user, ";; === user/ (your prelude) ===\n")
	if !ok {
		return nil
	}
	section, _, _ := strings.Cut(rest, "\n\n")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if name, ok := strings.CutPrefix(line, "("); ok {
			name, _, _ = strings.Cut(name, " [")
			names = append(names, name)
		} else {
			name, _, _ := strings.Cut(line, " ")
			names = append(names, name)
		}
	}
	return names
}

func TestPropertyEveryBindingNamedOnce(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, resp *Response) {
		names := preludeNames(resp.Messages[1].Content)
		if len(names) != len(req.Memory) {
			t.Fatalf("user/ has %d lines for %d bindings: %q", len(names), len(req.Memory), names)
		}
		count := map[string]int{}
		for _, n := range names {
			count[n]++
		}
		for _, b := range req.Memory {
			if count[b.Name] != 1 {
				t.Errorf("binding %s named %d times", b.Name, count[b.Name])
			}
		}
	})
}

func TestPropertyErrorBlockIffLastTurnFailed(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, resp *Response) {
		lastFailed := len(req.Turns) > 0 && !req.Turns[len(req.Turns)-1].Success
		n := strings.Count(resp.Messages[1].Content, "---\nYour previous attempt:\n")
		if (n == 1) != lastFailed || n > 1 {
			t.Fatalf("error block shown %d times, last turn failed: %v", n, lastFailed)
		}
		failed := 0
		for _, turn := range req.Turns {
			if !turn.Success {
				failed++
			}
		}
		if lastFailed {
			failed--
		}
		if resp.Stats.ErrorTurnsCollapsed != failed {
			t.Fatalf("error_turns_collapsed = %d, want %d", resp.Stats.ErrorTurnsCollapsed, failed)
		}
	})
}

// sectionLines returns the lines after header up to the next blank line.
func sectionLines(user, header string) []string {
	_, rest, ok := strings.Cut(user, header+"\n")
	if !ok {
		return nil
	}
	section, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(section, "\n")
}

func TestPropertyStatsAgreeWithContent(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, resp *Response) {
		s, user := resp.Stats, resp.Messages[1].Content
		calls, prints := 0, 0
		for _, turn := range req.Turns {
			calls += len(turn.ToolCalls)
			if turn.Success {
				prints += len(turn.Prints)
			}
		}
		if s.ToolCallsTotal != calls || s.ToolCallsShown+s.ToolCallsDropped != calls {
			t.Errorf("tool calls %d total, %d shown, %d dropped; %d made", s.ToolCallsTotal, s.ToolCallsShown, s.ToolCallsDropped, calls)
		}
		if got := len(sectionLines(user, ";; Tool calls made:")); got != s.ToolCallsShown {
			t.Errorf("%d tool call lines rendered, stats say %d", got, s.ToolCallsShown)
		}
		if s.PrintlnsTotal != prints || s.PrintlnsShown+s.PrintlnsDropped != prints {
			t.Errorf("printlns %d total, %d shown, %d dropped; %d printed", s.PrintlnsTotal, s.PrintlnsShown, s.PrintlnsDropped, prints)
		}
		if got := len(sectionLines(user, ";; Output:")); got != s.PrintlnsShown {
			t.Errorf("%d output lines rendered, stats say %d", got, s.PrintlnsShown)
		}
		if s.TurnsCompressed != len(req.Turns) || s.MessagesAfter != 2 || s.MessagesBefore != 2+2*len(req.Turns) {
			t.Errorf("turns %d, messages %d before %d after", s.TurnsCompressed, s.MessagesBefore, s.MessagesAfter)
		}
		sys := resp.Messages[0].Content
		if want := utf8.RuneCountInString(sys) + utf8.RuneCountInString(user); s.CharsAfter != want {
			t.Errorf("chars after %d, want %d", s.CharsAfter, want)
		}
		ts, _ := CountTokens(s.Tokenizer, sys)
		tu, _ := CountTokens(s.Tokenizer, user)
		if s.TokensAfter != ts+tu {
			t.Errorf("tokens after %d, want %d", s.TokensAfter, ts+tu)
		}
		before, err := full{}.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		if b := before.Stats; s.CharsBefore != b.CharsAfter || s.TokensBefore != b.TokensAfter || s.MessagesBefore != b.MessagesAfter {
			t.Errorf("before figures %+v differ from the full strategy's %+v", s, b)
		}
	})
}

// TestPropertyFullHistoryShape: full sends SYSTEM, the turn-1 USER, then an
// ASSISTANT and a USER message per turn; each turn's feedback holds its
// result or its error; the same request gives the same bytes.
func TestPropertyFullHistoryShape(t *testing.T) {
	forRandomRequests(t, func(t *testing.T, req *Request, _ *Response) {
		resp, err := full{}.Render(req)
		if err != nil {
			t.Fatal(err)
		}
		msgs := resp.Messages
		if len(msgs) != 2+2*len(req.Turns) || msgs[0].Role != RoleSystem || msgs[1].Role != RoleUser {
			t.Fatalf("%d messages for %d turns", len(msgs), len(req.Turns))
		}
		if m := req.Options.Mission; m != "" && !strings.HasPrefix(msgs[1].Content, m) {
			t.Fatal("the first USER message does not start with the mission")
		}
		for i, turn := range req.Turns {
			a, u := msgs[2+2*i], msgs[3+2*i]
			if a.Role != RoleAssistant || u.Role != RoleUser || !strings.Contains(a.Content, turn.Program) {
				t.Fatalf("turn %d: roles %s/%s or program missing", i+1, a.Role, u.Role)
			}
			if turn.Success != strings.Contains(u.Content, ";; Result: ") || turn.Success == strings.Contains(u.Content, "Error: ") {
				t.Fatalf("turn %d (success %v): feedback %q", i+1, turn.Success, u.Content)
			}
		}
		again, err := full{}.Render(req)
		if err != nil || !reflect.DeepEqual(resp, again) {
			t.Fatal("full is not deterministic")
		}
	})
}
