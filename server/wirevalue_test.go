package server

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// sourceValue is the wire text of a function holding a vector of n
// elements: not EDN, so reading it runs source (about 2n steps), padded so
// that its budget allows that; tag makes texts distinct.
func sourceValue(n int, tag string) string {
	return fmt.Sprintf(`(let [a (vec (range %d))] (fn [] [a %q]))`, n, tag) + strings.Repeat(" ", n)
}

// The values of a request that are source run under the request's
// context: a cancelled request stops reading them, with the request's own
// status, and that outcome is not remembered for the next request.
func TestSourceValuesReadUnderTheRequestContext(t *testing.T) {
	s := New(Config{Memo: memo.New(8 << 20)})
	text := sourceValue(3000, "ctx")
	req := &ptcsidecarv1.EvalTurnRequest{Program: `(count (first (*1)))`, PreviousResults: []*ptcsidecarv1.Value{edn(text)}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.EvalTurn(ctx, req); status.Code(err) != codes.Canceled {
		t.Errorf("cancelled request: %v, want CANCELED", err)
	}
	resp, err := s.EvalTurn(context.Background(), req)
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "3000" {
		t.Errorf("the same request, not cancelled: %v %v, want 3000", resp, err)
	}
}

// A value read as source is bounded before it loads by the request's
// counted work, as EDN is, and takes no evaluation slot of its own: the
// same request gets the same answer with every slot taken as alone, and
// whether the value is remembered or not. Before, a ToMessages holding
// one waited for a slot and was refused RESOURCE_EXHAUSTED with none
// free, where the same value remembered read at once; an EvalTurn holding
// one was refused RESOURCE_EXHAUSTED where alone it was INVALID_ARGUMENT
// for a field read after it.
func TestSourceValuesReadWithoutASlot(t *testing.T) {
	for _, remembers := range []bool{false, true} {
		cfg := Config{Limits: busyLimits(time.Minute), MaxConcurrentEvals: 1, EvalQueueWait: 50 * time.Millisecond}
		if remembers {
			cfg.Memo = memo.New(8 << 20)
		}
		s := New(cfg)
		tm := agentRequest()
		tm.Turns[0].Result = edn(sourceValue(10, "slot"))
		badLater := &ptcsidecarv1.EvalTurnRequest{Program: `1`, Data: edn("{:f " + sourceValue(10, "later") + "}"),
			Limits: &ptcsidecarv1.Limits{ToolTimeoutMs: -1}}
		answers := func() []string {
			_, tmErr := s.ToMessages(context.Background(), tm)
			_, evErr := s.EvalTurn(context.Background(), badLater)
			return []string{answerOf(tmErr), status.Code(evErr).String()}
		}
		alone := answers()
		if alone[0] != "" || alone[1] != codes.InvalidArgument.String() {
			t.Fatalf("remembers %v, alone: %q, want ToMessages to read and EvalTurn INVALID_ARGUMENT", remembers, alone)
		}
		if err := s.evals.enter(context.Background()); err != nil {
			t.Fatal(err)
		}
		for run := range 3 {
			if got := answers(); !slices.Equal(got, alone) {
				t.Errorf("remembers %v, every slot taken, run %d: %q, alone %q", remembers, run+1, got, alone)
			}
		}
		s.evals.leave()
	}

	slow := New(Config{Limits: lisp.Limits{Timeout: 20 * time.Millisecond}})
	ev := &ptcsidecarv1.EvalTurnRequest{Program: `1`}
	for i := range 200 {
		ev.PreviousResults = append(ev.PreviousResults, edn(sourceValue(20_000, fmt.Sprint(i))))
	}
	_, err := slow.EvalTurn(context.Background(), ev)
	// Refused, before they load, by what the values take to read against
	// the work the timeout allows, never by a clock.
	if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "the 20ms evaluation timeout reads") {
		t.Errorf("source values past the evaluation timeout: %v, want RESOURCE_EXHAUSTED", err)
	}
}

// A value that does not read is remembered as its error: sent again, it
// fails the same way without being read again.
func TestFailuresAreRemembered(t *testing.T) {
	m := memo.New(8 << 20)
	s := New(Config{Memo: m})
	bad := []string{
		`{:a 1 :b}` + strings.Repeat(" ", 20),                    // not EDN, not source
		`(loop [i 0] (recur (inc i)))` + strings.Repeat(" ", 20), // source past its budget
	}
	for _, text := range bad {
		req := &ptcsidecarv1.EvalTurnRequest{Program: `1`, PreviousResults: []*ptcsidecarv1.Value{edn(text)}}
		_, first := s.EvalTurn(context.Background(), req)
		before := m.Stats()[0]
		_, again := s.EvalTurn(context.Background(), req)
		after := m.Stats()[0]
		if status.Code(first) != codes.InvalidArgument || status.Convert(again).Message() != status.Convert(first).Message() {
			t.Errorf("%q: %v, then %v", text, first, again)
		}
		if after.Hits != before.Hits+1 || after.Misses != before.Misses {
			t.Errorf("%q: sent again, read again (memo %+v, then %+v)", text, before, after)
		}
	}
}

// What a value read from source holds is counted in the memo, a
// function's captured values included, not as nothing: short functions
// over large strings cannot make the memo keep many times its budget.
func TestSourceValuesCountWhatTheyHold(t *testing.T) {
	m := memo.New(16 << 20)
	s := New(Config{Memo: m})
	for i := range 40 {
		text := fmt.Sprintf(`(let [s (apply str (repeat 250 (apply str (repeat 1000 "%04d"))))] (fn [] s))`, i) + strings.Repeat(" ", 8<<10)
		req := &ptcsidecarv1.EvalTurnRequest{Program: `(count (*1))`, PreviousResults: []*ptcsidecarv1.Value{edn(text)}}
		if resp, err := s.EvalTurn(context.Background(), req); err != nil || resp.GetTurn().GetResult().GetEdn() != "1000000" {
			t.Fatalf("%v %v", resp, err)
		}
	}
	st := m.Stats()[0]
	if st.Entries == 0 {
		t.Fatalf("nothing remembered: %+v", st)
	}
	if perEntry := st.Bytes / int64(st.Entries); perEntry < 1_000_000 {
		t.Errorf("a function over a 1 MB string counted %d bytes", perEntry)
	}
	if st.Bytes > m.Budget() || st.Entries > 16 {
		t.Errorf("the values table holds %d entries, %d bytes, with a budget of %d", st.Entries, st.Bytes, m.Budget())
	}
}

// Plain EDN and JSON values are read under the request's context too: a
// cancelled request stops reading them with its own status, not
// remembered, and a request not cancelled reads the same text.
func TestPlainValuesReadUnderTheRequestContext(t *testing.T) {
	s := New(Config{Memo: memo.New(8 << 20)})
	values := []*ptcsidecarv1.Value{
		edn("[" + strings.Repeat("1 ", 50_000) + "]"),
		{Json: "[" + strings.Repeat("1,", 50_000) + "1]"},
	}
	for _, v := range values {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.newReader(ctx, false).value(v, "data"); status.Code(err) != codes.Canceled {
			t.Errorf("cancelled request: %v, want CANCELED", err)
		}
		got, err := s.newReader(context.Background(), false).value(v, "data")
		if vec, _ := got.(*lisp.Vector); err != nil || vec == nil || vec.Len() < 50_000 {
			t.Errorf("the same text, not cancelled: %v, %v", got, err)
		}
	}
}

// TestValuesAreReadUnderTheRequestTimeout: the evaluation timeout bounds
// the reading of the request's values. Values that take more work to read
// than the timeout allows are RESOURCE_EXHAUSTED by that work, counted
// from their text before they are read (lisp.ReadWork), whatever field
// they come in, and a value that is read in time leaves the program the
// rest.
func TestValuesAreReadUnderTheRequestTimeout(t *testing.T) {
	s := New(Config{})
	var b strings.Builder
	b.WriteString("{")
	for i := range 300_000 {
		fmt.Fprintf(&b, ":k%d %d ", i, i)
	}
	wide := b.String() + "}"
	tiny := &ptcsidecarv1.Limits{TimeoutMs: 1}
	for name, req := range map[string]*ptcsidecarv1.EvalTurnRequest{
		"previous_results": {Program: "(count *1)", Limits: tiny, PreviousResults: []*ptcsidecarv1.Value{edn(wide)}},
		"data":             {Program: "(count data/m)", Limits: tiny, Data: edn("{:m " + wide + "}")},
		"prelude": {Program: "(count m)", Limits: tiny,
			Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "m", Value: edn(wide)}}}},
	} {
		_, err := s.EvalTurn(context.Background(), req)
		if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "more than the 1ms evaluation timeout reads") {
			t.Errorf("%s of 300,000 entries with a 1 ms timeout: %v, want RESOURCE_EXHAUSTED", name, err)
		}
	}
	req := &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: &ptcsidecarv1.Limits{TimeoutMs: 60_000},
		PreviousResults: []*ptcsidecarv1.Value{edn(wide)}}
	if resp, err := s.EvalTurn(context.Background(), req); err != nil || resp.GetTurn().GetResult().GetEdn() != "300000" {
		t.Errorf("the same with a 60 s timeout: %v, %v", resp, err)
	}
}

// TestValuesAreBoundedByWhatTheyTakeToRead: a request's long integers
// and the values it sends as source count against its read-cost bound
// per second of timeout by what converting and loading them takes,
// counted from the text: refused RESOURCE_EXHAUSTED before they are read,
// whether the value was read before (remembered) or not, and read with a
// timeout that allows them.
func TestValuesAreBoundedByWhatTheyTakeToRead(t *testing.T) {
	s := New(Config{})
	digits := strings.Repeat("7", 100_000)
	longs := "[" + strings.Repeat(digits+" ", 10) + "]"
	atoms := "[" + strings.Repeat("(atom 0) ", 100_000) + "]"
	for name, text := range map[string]string{"10 integers of 100,000 digits": longs, "100,000 atoms, source": atoms} {
		for _, timeout := range []int64{1000, 1000, 60_000} { // the second, remembered or not, alike
			req := &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: &ptcsidecarv1.Limits{TimeoutMs: timeout},
				PreviousResults: []*ptcsidecarv1.Value{edn(text)}}
			resp, err := s.EvalTurn(context.Background(), req)
			st := status.Convert(err)
			switch {
			case timeout == 1000 && (st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "more than the 1s evaluation timeout reads")):
				t.Errorf("%s, a 1 s timeout: %v, want RESOURCE_EXHAUSTED by their cost", name, err)
			case timeout == 60_000 && name == "10 integers of 100,000 digits" && resp.GetTurn().GetResult().GetEdn() != "10":
				t.Errorf("%s, a 60 s timeout: %v, %v; want 10", name, resp, err)
			case timeout == 60_000 && name == "100,000 atoms, source" && st.Code() != codes.InvalidArgument && !strings.Contains(st.Message(), "loading it would hold"):
				// Past its time, what loading it holds is bounded by the
				// request's bytes, every form charged.
				t.Errorf("%s, a 60 s timeout: %v, want INVALID_ARGUMENT (an atom cannot be a value) or a refusal for what loading it holds", name, err)
			}
		}
	}
}

// TestRawResponseIsChargedWhatExtractingItCosts: extracting the program of
// a reply of 900,000 fenced blocks is refused by its cost with a 1 s
// timeout, every time, before anything is extracted, and runs with a
// longer one; a reply of millions of lines and one block costs its bytes.
func TestRawResponseIsChargedWhatExtractingItCosts(t *testing.T) {
	s := New(Config{})
	fences := strings.Repeat("```clojure\n1\n```\n", 900_000)
	for _, timeout := range []int64{1000, 1000, 10_000} {
		resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{RawResponse: fences, Limits: &ptcsidecarv1.Limits{TimeoutMs: timeout}})
		st := status.Convert(err)
		switch {
		case timeout == 1000 && (st.Code() != codes.ResourceExhausted || !strings.HasPrefix(st.Message(), "raw_response: extracting its program")):
			t.Errorf("900,000 blocks, a 1 s timeout: %v, want RESOURCE_EXHAUSTED by the extraction's cost", err)
		case timeout == 10_000 && (err != nil || resp.GetTurn().GetError() == nil):
			t.Errorf("900,000 blocks, a 10 s timeout: %v, %v; want a turn that failed at a limit", resp.GetTurn().GetError(), err)
		}
	}
	lines := "```clojure\n(+ 1 2)\n```" + strings.Repeat("\n", 10_000_000)
	resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{RawResponse: lines, Limits: &ptcsidecarv1.Limits{TimeoutMs: 1000}})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Errorf("one block and 10 million lines: %v, %v; want 3", resp.GetTurn().GetResult(), err)
	}
}

// TestSourceMemoryIsBoundedByTheRequest: values of source whose loading
// would hold far more than the request's bytes allow (a million
// (atom 0), 247 MiB of peak RSS for 9 MB; 100,000 #"a", 83 MiB for
// 500 KB) are refused by that before they load, with a ten-minute
// timeout too, whose read budget lets their read work through; 10,000
// (atom 0) and a vector of functions load as before.
func TestSourceMemoryIsBoundedByTheRequest(t *testing.T) {
	s := New(Config{Limits: lisp.Limits{Timeout: 10 * time.Minute}})
	vector := func(n int, item string) string { return "[" + strings.Repeat(item+" ", n) + "]" }
	for _, c := range []struct {
		name, text string
		code       codes.Code
		result     string
	}{
		{"a million (atom 0)", vector(1_000_000, "(atom 0)"), codes.ResourceExhausted, ""},
		{"100,000 regexes", vector(100_000, `#"a"`), codes.ResourceExhausted, ""},
		{"100,000 regexes built", vector(100_000, `(re-pattern "a")`), codes.ResourceExhausted, ""},
		{"10,000 (atom 0)", vector(10_000, "(atom 0)"), codes.InvalidArgument, ""},
		{"1,000 functions", vector(1000, "(fn [x] (+ x 1))"), codes.OK, "1000"},
	} {
		for _, timeout := range []int64{1000, 600_000} {
			resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)",
				Limits: &ptcsidecarv1.Limits{TimeoutMs: timeout}, PreviousResults: []*ptcsidecarv1.Value{edn(c.text)}})
			if status.Code(err) != c.code || resp.GetTurn().GetResult().GetEdn() != c.result {
				t.Errorf("%s, a %d ms timeout: %v, %v; want %v %s", c.name, timeout, resp.GetTurn().GetResult(), err, c.code, c.result)
			}
		}
	}
}

// TestProgramCallIsChargedWhatDecodingItCosts: the arguments of a program
// call of 4.5 million escaped forms (9 MB) are refused by what decoding
// them costs with a 1 s timeout, every time, before they are decoded
// (their decoding took 170 ms of a 250 ms clock, which a loaded machine
// stretched past it), and run to the step limit with a longer one; a
// call of ordinary size runs with a 250 ms timeout.
func TestProgramCallIsChargedWhatDecodingItCosts(t *testing.T) {
	s := New(Config{})
	call := func(program string) *ptcsidecarv1.ChatToolCall {
		return &ptcsidecarv1.ChatToolCall{Id: "c", Name: "run_ptc_lisp", Arguments: `{"program": "` + program + `"}`}
	}
	escaped := call(strings.Repeat(`1\n`, 4_500_000))
	for _, timeout := range []int64{1000, 1000, 10_000} {
		resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{ProgramCall: escaped, Limits: &ptcsidecarv1.Limits{TimeoutMs: timeout}})
		st := status.Convert(err)
		switch {
		case timeout == 1000 && (st.Code() != codes.ResourceExhausted || !strings.HasPrefix(st.Message(), "program_call.arguments: decoding its arguments would cost")):
			t.Errorf("4.5 million escaped forms, a 1 s timeout: %v, want RESOURCE_EXHAUSTED by the decoding's cost", err)
		case timeout == 10_000 && (err != nil || resp.GetTurn().GetError().GetType() != "step_limit"):
			t.Errorf("4.5 million escaped forms, a 10 s timeout: %v, %v; want a turn that failed at the step limit", resp.GetTurn().GetError(), err)
		}
	}
	resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{ProgramCall: call(`(+ 1 2)\n` + strings.Repeat(`;; a note\n`, 10_000)),
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 250}})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Errorf("a call of 100 KB, a 250 ms timeout: %v, %v; want 3", resp.GetTurn().GetResult(), err)
	}
}
