package lisp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// sentBytes is what res sends back of its own: prints, warnings, tool-call
// arguments (EDN and JSON), the result or fail reason (EDN and JSON), new
// memory and the error.
func sentBytes(res *Result, prelude *Memory) int64 {
	n := int64(len(strings.Join(res.Prints, "")))
	n += warningBytes(res.Warnings)
	for _, c := range res.ToolCalls {
		n += int64(len(c.ArgsText) + len(c.ArgsJSON))
	}
	n += int64(len(res.ValueText) + len(res.ValueJSON))
	if res.Memory != nil && res.Memory != prelude {
		for _, b := range res.Memory.bindings {
			n += int64(len(b.Name) + len(b.source) + len(b.Docstring))
		}
	}
	if res.Err != nil {
		n += int64(len(res.Err.Message) + len(res.Err.Hint))
	}
	return n
}

// TestEmitLimitBoundsTheWholeTurn: every part a turn sends back at its
// limit at once (prints, warnings of definitions made while running, tool
// calls whose JSON is six times their EDN, a result, memory or fail
// reason of control characters, an error quoting megabytes) stays within
// the emit limit, JSON forms included, plus the room an error always has.
// A JSON form that does not fit what is left goes back absent, its EDN
// whole; one that fits is kept.
func TestEmitLimitBoundsTheWholeTurn(t *testing.T) {
	const limit = 64 << 10
	limits := Limits{MaxEmitBytes: limit, MaxOutputBytes: 8 << 10, MaxToolCalls: 10}
	name := strings.Repeat("w", 1100)
	head := `(dotimes [i 80] (println (apply str (repeat 100 "p"))))` +
		fmt.Sprintf(`(dotimes [i 500] (def %s (atom i)))`, name) +
		`(dotimes [i 2] (tool/echo (apply str (repeat 1500 "\u0001"))))`
	// ctrl is a string of n control characters, built in n/100 steps.
	ctrl := func(n int) string {
		return fmt.Sprintf(`(apply str (repeat %d "%s"))`, n/100, strings.Repeat(`\u0001`, 100))
	}
	for _, tc := range []struct{ name, src, want string }{
		{"result", head + ctrl(30_000), ""},
		{"result and memory", head + `(def kept ` + ctrl(12_000) + `) ` + ctrl(12_000), ""},
		{"fail reason", head + `(fail ` + ctrl(30_000) + `)`, string(fail)},
		{"error quoting megabytes", head + `(throw (ex-info ` + ctrl(1_000_000) + ` {}))`, string(executionError)},
		{"result past the room", head + ctrl(60_000), string(emitLimit)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.src, Env{Limits: limits, Tools: []string{"echo"}, Host: echoHost()})
			got := ""
			if res.Err != nil {
				got = string(res.Err.Kind)
			}
			if got != tc.want {
				t.Fatalf("ended %q (%v), want %q", got, res.Err, tc.want)
			}
			if n := len(res.Warnings); n > maxWarnings+1 {
				t.Errorf("%d warnings, more than %d and one that counts the rest", n, maxWarnings)
			}
			if n := sentBytes(res, nil); n > limit+minErrorText {
				t.Errorf("the turn sends back %d bytes of its own against an emit limit of %d", n, limit)
			}
			if res.ValueText != "" && res.ValueJSON != "" && int64(len(res.ValueText)+len(res.ValueJSON)) > limit {
				t.Errorf("the result's EDN and JSON together are %d bytes", len(res.ValueText)+len(res.ValueJSON))
			}
		})
	}
	// The parts that fit keep their JSON.
	res := run(t, head+`(def kept "k") [1 "\u0001"]`, Env{Limits: limits, Tools: []string{"echo"}, Host: echoHost()})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.ValueJSON != `[1,"\u0001"]` {
		t.Errorf("a small result's JSON is %q", res.ValueJSON)
	}
	for _, c := range res.ToolCalls {
		if c.ArgsJSON == "" {
			t.Errorf("tool call %d, 1,500 bytes of EDN, went back without its JSON", c.Index)
		}
	}
	// A result whose EDN fits and whose JSON does not goes back as EDN.
	res = run(t, ctrl(40_000), Env{Limits: limits})
	if res.Err != nil || len(res.ValueText) < 40_000 || res.ValueJSON != "" {
		t.Errorf("a 40 KB result of control characters under a 64 KiB limit: error %v, %d bytes of EDN, %d of JSON",
			res.Err, len(res.ValueText), len(res.ValueJSON))
	}
}

// TestJSONStopsAtItsRoom: the JSON of a text is measured before it is
// written, so a result whose JSON cannot fit is never written: a 1.9 MB
// text of control characters wrote 11.4 MB of JSON, and copied it, before
// it was dropped.
func TestJSONStopsAtItsRoom(t *testing.T) {
	src := fmt.Sprintf(`(apply str (repeat 19000 "%s"))`, strings.Repeat(`\u0001`, 100))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := run(t, src, Env{})
	runtime.ReadMemStats(&after)
	if res.Err != nil || len(res.ValueText) < 1_900_000 || res.ValueJSON != "" {
		t.Fatalf("error %v, %d bytes of EDN, %d of JSON", res.Err, len(res.ValueText), len(res.ValueJSON))
	}
	// The text, its EDN and the program's own work: well under the 11.4 MB
	// its JSON alone would take.
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes allocated", n)
	if n > 8<<20 {
		t.Errorf("emitting a 1.9 MB text allocated %d bytes", n)
	}
}
