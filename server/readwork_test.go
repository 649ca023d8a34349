package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestReadingIsDecidedByWork: large values of every kind of work the
// reader does (radix literals, 100,000-digit numbers, strings of escapes,
// millions of tiny tokens, nesting to the limit) are refused by their read
// work (lisp.ReadWork, counted from the text before it is read) at the
// same field with the same message in three runs, in every field of
// EvalTurn that carries a value: the budget the 1 s timeout gives
// decides, before the work is done. A value under the budget reads to its
// value.
func TestReadingIsDecidedByWork(t *testing.T) {
	// The service remembers every value it reads: one refused before it
	// is read leaves nothing remembered.
	remembering := memo.New(1 << 30)
	s := New(Config{Limits: lisp.Limits{Timeout: time.Second}, Memo: remembering})
	budget := int64(time.Second.Seconds() * readCostPerSecond)
	vector := func(n int, part string) string { return "[" + strings.Repeat(part+" ", n) + "]" }
	nested := strings.Repeat("[", lisp.DefaultMaxNesting-1) + "1" + strings.Repeat("]", lisp.DefaultMaxNesting-1)
	inputs := map[string]string{
		"10 radix-36 literals of 100,000 digits": vector(10, "36r"+strings.Repeat("Z", 100_000)),
		"10 integers of 100,000 digits":          vector(10, strings.Repeat("7", 100_000)),
		"a 12 MB string of escapes":              `"` + strings.Repeat(`\n\t\u0041\"`, 1_000_000) + `"`,
		"2,000,000 tiny tokens":                  vector(2_000_000, "1"),
		"1,000 values nested to the limit":       vector(1_000, nested),
	}
	limits := &ptcsidecarv1.Limits{TimeoutMs: 1000}
	binding := func(text string) *ptcsidecarv1.Memory {
		return &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "m", Value: edn(text)}}}
	}
	fields := map[string]func(text string) error{
		"data": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits, Data: edn("{:m " + text + "}")})
			return err
		},
		"prelude.bindings[0].value": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits, Prelude: binding(text)})
			return err
		},
		"previous_results[0]": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: limits, PreviousResults: []*ptcsidecarv1.Value{edn(text)}})
			return err
		},
		"tool_results[0].result": func(text string) error {
			_, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(tool/f {})", Limits: limits,
				ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "f", Args: edn("{}"), Result: edn(text)}}})
			return err
		},
	}
	for name, text := range inputs {
		if work := lisp.ReadWork(text, false); work <= budget {
			t.Fatalf("%s: read work %d, not over the %d of a 1 s timeout", name, work, budget)
		}
		for field, send := range fields {
			var first string
			for run := range 3 {
				err := send(text)
				st := status.Convert(err)
				if st.Code() != codes.ResourceExhausted || !strings.HasPrefix(st.Message(), field+": ") || !strings.Contains(st.Message(), "more than the 1s evaluation timeout reads") {
					t.Fatalf("%s in %s, run %d: %v, want RESOURCE_EXHAUSTED by its read work, naming the field", name, field, run+1, err)
				}
				if run == 0 {
					first = st.Message()
				} else if st.Message() != first {
					t.Errorf("%s in %s: run %d ended %q, run 1 %q", name, field, run+1, st.Message(), first)
				}
				if n := rememberedEntries(remembering); n != 0 {
					t.Fatalf("%s in %s: %d values remembered, want it refused before it is read", name, field, n)
				}
			}
		}
	}
	// Under the budget, the same kinds read to their values.
	under := vector(2, "36r"+strings.Repeat("Z", 100_000))
	if work := lisp.ReadWork(under, false); work > budget*3/4 {
		t.Fatalf("2 radix-36 literals of 100,000 digits: read work %d, want well under %d", work, budget)
	}
	resp, err := s.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)",
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 60_000}, PreviousResults: []*ptcsidecarv1.Value{edn(under)}})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "2" {
		t.Errorf("2 radix-36 literals of 100,000 digits: %v, %v", resp, err)
	}
}

// TestToMessagesReadingIsDecidedByWork: ToMessages and RenderTrace read
// the values of options.data, memory and turns under a read budget sized
// by the request's bytes (lisp.ReadBounds). Values whose
// reading grows faster than their text (long radix literals, thousands of
// functions of source) are refused by that budget at the same field, with
// the same message, in three runs, before they are read, with the
// caller's clock ten minutes away; dear values of ordinary tokens (long
// decimal integers, strings of escapes, millions of tiny tokens) read to
// the same answer in three runs, and collections nested to the limit end
// by their cost once read, the same every time.
func TestToMessagesReadingIsDecidedByWork(t *testing.T) {
	vector := func(n int, part string) string { return "[" + strings.Repeat(part+" ", n) + "]" }
	// Nested to the limit inside the map data is sent in.
	nested := strings.Repeat("[", lisp.DefaultMaxNesting-3) + "1" + strings.Repeat("]", lisp.DefaultMaxNesting-3)
	type input struct {
		text string
		want string // "" read; else the start of the refusal after the field's path
	}
	// A value that costs too much once read is refused by that, as it is
	// read, where it is read whole; ToMessages reads memory and
	// options.data as samples (docs/VALUES.md), which do not build it.
	const byWork, onceRead = "the request's values would take more than", "once read"
	sampled := func(field string) bool {
		return strings.HasSuffix(field, "options.data") || strings.HasPrefix(field[strings.LastIndex(field, " ")+1:], "memory.")
	}
	inputs := map[string]input{
		"20 radix-36 literals of 100,000 digits": {vector(20, "36r"+strings.Repeat("Z", 100_000)), byWork},
		"100,000 functions":                      {vector(100_000, "(fn [] 1)"), byWork},
		"2 radix-36 literals of 100,000 digits":  {vector(2, "36r"+strings.Repeat("Z", 100_000)), ""},
		"5 integers of 100,000 digits":           {vector(5, strings.Repeat("7", 100_000)), ""},
		"a 2.4 MB string of escapes":             {`"` + strings.Repeat(`\n\t\u0041\"`, 200_000) + `"`, ""},
		"500,000 tiny tokens":                    {vector(500_000, "1"), ""},
		"1,000 values nested to the limit":       {vector(1_000, nested), onceRead},
	}
	binding := func(text string) *ptcsidecarv1.Memory {
		return &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "m", Value: edn(text)}}}
	}
	turn := func(text string) []*ptcsidecarv1.Turn {
		return []*ptcsidecarv1.Turn{{Number: 1, Program: "1", Success: true, Result: edn(text)}}
	}
	ctx := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 10*time.Minute)
	}
	// The fields of s, and of untimed, an evaluation under no timeout
	// (--eval-timeout none), which reads its values under the same budget
	// sized by the request.
	fieldsOf := func(s, untimed *Service) map[string]func(text string) error {
		toMessages := func(in *ptcsidecarv1.ToMessagesRequest) error {
			c, cancel := ctx()
			defer cancel()
			_, err := s.Wire().ToMessages(c, in)
			return err
		}
		renderTrace := func(in *ptcsidecarv1.RenderTraceRequest) error {
			c, cancel := ctx()
			defer cancel()
			_, err := s.Wire().RenderTrace(c, in)
			return err
		}
		return map[string]func(text string) error{
			"EvalTurn previous_results[0]": func(text string) error {
				c, cancel := ctx()
				defer cancel()
				_, err := untimed.EvalTurn(c, &ptcsidecarv1.EvalTurnRequest{Program: "1", PreviousResults: []*ptcsidecarv1.Value{edn(text)}})
				return err
			},
			"options.data": func(text string) error {
				return toMessages(&ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Data: edn("{:m " + text + "}")}})
			},
			"memory.bindings[0].value": func(text string) error {
				return toMessages(&ptcsidecarv1.ToMessagesRequest{Memory: binding(text)})
			},
			"turns[0].result": func(text string) error {
				return toMessages(&ptcsidecarv1.ToMessagesRequest{Turns: turn(text)})
			},
			"turns[0].memory.bindings[0].value": func(text string) error {
				ts := turn("1")
				ts[0].Memory = binding(text)
				return toMessages(&ptcsidecarv1.ToMessagesRequest{Turns: ts})
			},
			"turns[0].tool_calls[0].args": func(text string) error {
				ts := turn("1")
				ts[0].ToolCalls = []*ptcsidecarv1.ToolCall{{Index: 0, Name: "f", Args: edn(text), Result: edn("1")}}
				return renderTrace(&ptcsidecarv1.RenderTraceRequest{Turns: ts})
			},
			"RenderTrace turns[0].result": func(text string) error {
				return renderTrace(&ptcsidecarv1.RenderTraceRequest{Turns: turn(text)})
			},
			"RenderTrace memory.bindings[0].value": func(text string) error {
				return renderTrace(&ptcsidecarv1.RenderTraceRequest{Memory: binding(text)})
			},
		}
	}
	noTimeout := DefaultConfig()
	noTimeout.Limits.Timeout = -1 // none
	fields := fieldsOf(New(DefaultConfig()), New(noTimeout))
	// The same fields of services that remember every value they read: a
	// value refused before it is read leaves nothing remembered.
	remembering := memo.New(1 << 30)
	withMemo := func(cfg Config) *Service {
		cfg.Memo = remembering
		return New(cfg)
	}
	rememberingFields := fieldsOf(withMemo(DefaultConfig()), withMemo(noTimeout))
	// Each is sent three times, to see it end the same each time; once
	// under the race detector, where this one goroutine's work is several
	// times slower and make test sends the three.
	runs := 3
	if raceEnabled {
		runs = 1
	}
	for name, in := range inputs {
		for field, send := range fields {
			path := field[strings.LastIndex(field, " ")+1:] // after the RPC's name
			var first string
			for run := range runs {
				err := send(in.text)
				st := status.Convert(err)
				want := in.want
				if want == onceRead && sampled(field) {
					want = ""
				}
				switch {
				case want == onceRead:
					if st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), path+".edn: ") || !strings.Contains(st.Message(), onceRead) {
						t.Fatalf("%s in %s, run %d: %v, want INVALID_ARGUMENT by its cost once read", name, field, run+1, err)
					}
				case want == "" && err != nil:
					t.Fatalf("%s in %s, run %d: %v, want it read", name, field, run+1, err)
				case want == byWork && (st.Code() != codes.ResourceExhausted || !strings.HasPrefix(st.Message(), path+": "+in.want)):
					t.Fatalf("%s in %s, run %d: %v, want RESOURCE_EXHAUSTED %q naming the field", name, field, run+1, err, in.want)
				}
				if run == 0 {
					first = st.Message()
				} else if st.Message() != first {
					t.Errorf("%s in %s: run %d ended %q, run 1 %q", name, field, run+1, st.Message(), first)
				}
				if in.want == byWork && run == 0 {
					before := rememberedEntries(remembering)
					again := status.Convert(rememberingFields[field](in.text))
					if again.Message() != first {
						t.Errorf("%s in %s: %q where values are remembered, %q where not", name, field, again.Message(), first)
					}
					if n := rememberedEntries(remembering); n != before {
						t.Errorf("%s in %s: %d values remembered, want it refused before it is read", name, field, n-before)
					}
				}
			}
		}
	}
}

// TestReadWorkIsChargedWhenRemembered: a text read once is remembered
// with what reading it takes, and a request that sends it again is
// charged the same read work without counting it again.
func TestReadWorkIsChargedWhenRemembered(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Memo = memo.New(8 << 20)
	s := New(cfg)
	text := "[" + strings.Repeat("36r"+strings.Repeat("Z", 1_000)+" ", 3) + "]"
	want := lisp.ReadWork(text, false)
	for run := range 3 {
		rd := s.newReader(context.Background(), false)
		rd.sized(1 << 20)
		v, err := rd.value(edn(text), "data")
		rd.release()
		if err != nil || v == nil {
			t.Fatalf("run %d: %v, %v", run+1, v, err)
		}
		if rd.numberWork != want {
			t.Errorf("run %d: charged %d of read work, want %d", run+1, rd.numberWork, want)
		}
		got, found := s.remembered.find(valueKey{maxNesting: s.maxValueDepth(), text: text})
		if !found || got.work != want {
			t.Errorf("run %d: remembered %v with work %d, want it with %d", run+1, found, got.work, want)
		}
	}
}

// TestStreamAnswerReadingIsDecidedByWork: a tool's answer on an
// EvalTurnStream is read under the budget its message's bytes give: 20
// radix-36 literals of 100,000 digits are refused by their read work,
// naming the answer, in three runs; 2 of 64,000 digits read (their
// 99,603 decimal digits go back in the turn's record, which the reader
// reads; 2 of 100,000 are refused by the turn, which could not send
// them back).
func TestStreamAnswerReadingIsDecidedByWork(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{Program: `(count (tool/f {}))`, Tools: []*ptcsidecarv1.ToolSpec{{Name: "f"}}}
	radix := func(n, digits int) string {
		return "[" + strings.Repeat("36r"+strings.Repeat("Z", digits)+" ", n) + "]"
	}
	for run := range 3 {
		_, _, err := streamTurn(t, c, req, func(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
			return &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(), Result: edn(radix(20, 100_000))}
		})
		if st := status.Convert(err); st.Code() != codes.ResourceExhausted || !strings.HasPrefix(st.Message(), "tool_result[0].result: the request's values would take more than") {
			t.Errorf("run %d: %v, want RESOURCE_EXHAUSTED by its read work, naming the answer", run+1, err)
		}
	}
	turn, _, err := streamTurn(t, c, req, func(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
		return &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(), Result: edn(radix(2, 64_000))}
	})
	if err != nil || turn.GetResult().GetEdn() != "2" {
		t.Errorf("2 literals: %v, %v", turn, err)
	}
}

// TestReadingIsChargedToTheClockByItsWork: the evaluation's clock counts
// the time reading the request took, but at most readNanosPerUnit for
// each unit of read work and cost counted, so that a machine slowed past
// that (here, reading that took 2 s of a 1 s timeout) delays the answer
// without changing it: the program still runs with what its work leaves
// of the timeout, and answers as it does alone.
func TestReadingIsChargedToTheClockByItsWork(t *testing.T) {
	s := New(Config{Limits: lisp.Limits{Timeout: time.Second}})
	rd := s.newReader(context.Background(), false)
	defer rd.release()
	rd.sized(1 << 20)
	rd.startReading(time.Second)
	rd.numberWork, rd.cost = 12_000_000, 3_000_000 // near the 24 MiB the 1 s timeout reads
	counted := 15_000_000 * readNanosPerUnit * time.Nanosecond
	for _, c := range []struct {
		took, reading, want time.Duration
	}{
		{took: 45 * time.Millisecond, reading: 40 * time.Millisecond, want: 45 * time.Millisecond}, // alone: the time it took
		{took: 2 * time.Second, reading: 2 * time.Second, want: counted},                           // slowed: its work's time
		// What decoding does besides reading counts whole.
		{took: 2100 * time.Millisecond, reading: 2 * time.Second, want: counted + 100*time.Millisecond},
	} {
		rd.readWall = c.reading
		if got := rd.readTime(c.took); got != c.want {
			t.Errorf("decoding that took %v, reading %v of it: the clock counts %v, want %v", c.took, c.reading, got, c.want)
		}
	}
	if counted > time.Second/4 {
		t.Errorf("reading at the budget counts %v of a 1 s timeout, want at most a quarter", counted)
	}
	rd.readWall = 2 * time.Second
	ev := &evaluation{program: "(+ 1 2)", decoding: 2 * time.Second}
	ev.env.Limits = lisp.Limits{Timeout: time.Second}
	if err := startClock(ev, rd); err != nil {
		t.Fatal(err)
	}
	res, err := s.evaluate(context.Background(), ev)
	if err != nil || res.Err != nil || lisp.Repr(res.Value) != "3" {
		t.Errorf("after reading slowed to 2 s of a 1 s timeout: %v, %v; want 3, as alone", res, err)
	}
	// With no evaluation timeout the read budget is the request's bytes',
	// and the clock, if any, counts the time reading took.
	none := s.newReader(context.Background(), false)
	none.sized(1 << 20)
	none.numberWork = 15_000_000
	if got := none.readTime(2 * time.Second); got != 2*time.Second {
		t.Errorf("under no evaluation timeout: the clock counts %v, want 2s", got)
	}
}

// rememberedEntries is how many values, programs and strategy results m
// holds.
func rememberedEntries(m *memo.Memo) int {
	n := 0
	for _, st := range m.Stats() {
		n += st.Entries
	}
	return n
}
