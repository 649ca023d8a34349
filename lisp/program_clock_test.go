package lisp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// lineByLine is how a reply's program was extracted before, line by line,
// the reference the one-pass extraction must agree with.
func lineByLine(response string) (string, bool) {
	var blocks, block []string
	inFence, keep := false, false
	flush := func() {
		if b := strings.TrimSpace(strings.Join(block, "\n")); keep && b != "" {
			blocks = append(blocks, b)
		}
		inFence, block = false, nil
	}
	for _, line := range strings.Split(response, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !strings.HasPrefix(trimmed, "```"):
			if inFence {
				block = append(block, strings.TrimRight(line, "\r"))
			}
		case inFence:
			flush()
		default:
			inFence = true
			keep = programLanguages[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")))]
		}
	}
	if inFence {
		flush()
	}
	return strings.Join(blocks, "\n"), len(blocks) > 0
}

// TestExtractProgramAgreesWithLineByLine compares the extraction with the
// line-by-line reference on replies made of every mix of fences, blank
// lines, carriage returns and code.
func TestExtractProgramAgreesWithLineByLine(t *testing.T) {
	pieces := []string{"```clojure", "```python", "```", " ``` ", "(+ 1 2)", "", " ", "\r", "x\r", "a\rb", "```clojure\r", "\r\r"}
	var replies []string
	var build func(prefix string, depth int)
	build = func(prefix string, depth int) {
		replies = append(replies, prefix, prefix+"\n")
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			build(prefix+"\n"+p, depth-1)
		}
	}
	for _, p := range pieces {
		build(p, 3)
	}
	for _, r := range replies {
		want, wantOK := lineByLine(r)
		got, ok := ExtractProgram(r)
		if got != want || ok != wantOK {
			t.Fatalf("ExtractProgram(%q) = %q, %v; line by line %q, %v", r, got, ok, want, wantOK)
		}
	}
}

// TestExtractProgramOfMillionsOfLines: a block of a million blank lines
// costs a few allocations, not one a line, and a cancelled request stops
// the extraction.
func TestExtractProgramOfMillionsOfLines(t *testing.T) {
	reply := "```clojure\n" + strings.Repeat("\n", 1_000_000) + "(+ 1 2)\n" + strings.Repeat("\r\n", 1_000_000) + "```"
	var got string
	allocs := testing.AllocsPerRun(2, func() { got, _ = ExtractProgram(reply) })
	if got != "(+ 1 2)" || allocs > 10 {
		t.Errorf("got %q in %.0f allocations, want (+ 1 2) in at most 10", got, allocs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, _, err := ExtractProgramContext(ctx, reply); err != context.Canceled {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestUnmatchedClosersWarningIsShort: a million stray closing brackets
// make a warning that counts them and quotes a few.
func TestUnmatchedClosersWarningIsShort(t *testing.T) {
	res := run(t, "1"+strings.Repeat(")", 1_000_000), Env{})
	if res.Err != nil || len(res.Warnings) != 1 {
		t.Fatalf("got %v, warnings %d", res.Err, len(res.Warnings))
	}
	if msg := res.Warnings[0].Message; len(msg) > 300 || !strings.Contains(msg, "ignored 1000000 unmatched closing brackets") {
		t.Errorf("warning of %d bytes: %.300s", len(msg), msg)
	}
}

// programs is a ProgramCache for tests.
type programs map[string]*Program

func (c programs) Program(source string, _ int) *Program { return c[source] }
func (c programs) Keep(source string, _ int, p *Program) { c[source] = p }

// TestReadingIsCharged: reading a program is charged readFormSteps a form, so a
// program of more forms than the step budget fails as step_limit while it
// is read, having read no more than the budget, whether it is read afresh
// or found in a cache; the charge is the same either way.
func TestReadingIsCharged(t *testing.T) {
	cache := programs{}
	small := "(+ 1 2) [3 4]"
	first := run(t, small, Env{Programs: cache})
	again := run(t, small, Env{Programs: cache})
	if cache[small] == nil || first.Steps != again.Steps || first.Steps < 6*readFormSteps {
		t.Errorf("steps %d, then %d from the cache, want the same, counting the 6 forms read", first.Steps, again.Steps)
	}
	big := strings.Repeat("1 ", 50_000/readFormSteps+1000)
	limits := Limits{MaxSteps: 10_000}
	res := run(t, big, Env{Limits: limits, Programs: cache})
	if res.Err == nil || res.Err.Kind != stepLimit || res.Steps > limits.MaxSteps+1 {
		t.Errorf("fresh: %v after %d steps, want step_limit after at most %d", res.Err, res.Steps, limits.MaxSteps+1)
	}
	if cache[big] != nil {
		t.Error("a program whose reading was stopped was kept")
	}
	res = run(t, big, Env{Programs: cache}) // the default budget reads it whole
	if res.Err != nil || cache[big] == nil {
		t.Fatalf("within the default budget: %v", res.Err)
	}
	res = run(t, big, Env{Limits: limits, Programs: cache})
	if res.Err == nil || res.Err.Kind != stepLimit {
		t.Errorf("from the cache: %v, want step_limit", res.Err)
	}
}

// TestReadingStopsWhenCancelled: a cancelled request's program is not
// read on: the evaluation ends having read a few thousand forms at most.
func TestReadingStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Eval(ctx, strings.Repeat("1 ", 500_000), Env{})
	if err != nil || res.Err == nil || res.Err.Kind != timeout || res.Steps > 2*ctxCheckInterval+readFormSteps {
		t.Errorf("got %v %v after %d steps, want the cancelled evaluation's timeout within %d", err, res.Err, res.Steps, 2*ctxCheckInterval)
	}
}

// TestClockCountsFromArrival: the timeout counts from when the request
// arrived, and so does the duration reported.
func TestClockCountsFromArrival(t *testing.T) {
	arrived := time.Now().Add(-time.Hour)
	res := run(t, "(loop [] (recur))", Env{Arrived: arrived, Limits: Limits{Timeout: time.Minute, MaxSteps: Unlimited}})
	if res.Err == nil || res.Err.Kind != timeout || res.Duration < time.Hour {
		t.Errorf("got %v after %v, want a timeout counted from an hour ago", res.Err, res.Duration)
	}
}

// TestJSONParseTimesOut: the deadline passing while json/parse-string
// reads is the evaluation's timeout, which no try catches. Before, it was
// an execution_error "json/parse-string: context deadline exceeded" that
// a program could catch and go on from, and the same program ended with
// memory_limit or execution_error by the machine's load.
func TestJSONParseTimesOut(t *testing.T) {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now())
	defer cancel()
	th := newThread(ctx, DefaultLimits())
	text := String("[" + strings.Repeat("[1,2,3,4,5,6,7,8,9,10,11,12],", 20_000) + "[1]]")
	_, err := builtinJSONParse(th, []Value{text})
	var e *Error
	if !errors.As(err, &e) || e.Kind != timeout {
		t.Fatalf("the deadline passed as it reads: %.200v, want timeout", err)
	}
	if _, _, caught := catchable(err); caught {
		t.Error("a try catches the timeout")
	}
}
