package lisp

import (
	"context"
	"strings"
	"testing"
)

// TestValuesLeaveNoDeeperThanTheWireReads: a program may build data of any
// depth its budgets allow, but what leaves the sandbox (result,
// definitions, tool arguments) must read back under the same nesting bound,
// or the next request carrying it would be refused.
func TestValuesLeaveNoDeeperThanTheWireReads(t *testing.T) {
	deep := func(n int) string {
		return "(loop [x [] i 1] (if (< i " + itoa(n) + ") (recur [x] (inc i)) x))"
	}
	for _, tc := range []struct {
		name, src, wantErr string
	}{
		{"result at the bound", deep(10), ""},
		{"result over the bound", deep(11), "the result nests collections more than 10 levels deep"},
		{"map values count", "(loop [x {} i 1] (if (< i 11) (recur {:a x} (inc i)) x))", "the result nests"},
		{"set elements count", "(loop [x #{} i 1] (if (< i 11) (recur #{x} (inc i)) x))", "the result nests"},
		{"definition over the bound", "(def d " + deep(11) + ") 1", "the value of d nests"},
		{"captured value over the bound", "(def d " + deep(11) + ") (defn f [] d) 1", "the value of d nests"},
		{"deep data used inside is fine", "(count (flatten " + deep(50) + "))", ""},
		{"fail reason over the bound", "(fail " + deep(11) + ")", "the fail reason nests"},
		{"fail reason at the bound", "(fail " + deep(10) + ")", "fail"},
		{"tool arguments over the bound", "(tool/echo " + deep(11) + ")", "the arguments of tool/echo nest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := Env{Tools: []string{"echo"}, Host: echoHost(), Limits: DefaultLimits(), MaxNesting: 10}
			res, err := Eval(context.Background(), tc.src, env)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tc.wantErr == "" && res.Err != nil:
				t.Errorf("%s: %v", tc.src, res.Err)
			case tc.wantErr == "fail":
				if res.Err == nil || res.Err.Kind != Fail || !res.Failed {
					t.Errorf("%s: err %v, want fail", tc.src, res.Err)
				}
			case tc.wantErr != "" && (res.Err == nil || res.Err.Kind != DepthLimit || !strings.Contains(res.Err.Message, tc.wantErr)):
				t.Errorf("%s: err %v, want depth_limit %q", tc.src, res.Err, tc.wantErr)
			case tc.wantErr != "" && (len(res.Memory.Encode()) != 0 || len(res.Defined) != 0):
				t.Errorf("%s: a refused program changed memory: %v", tc.src, res.Defined)
			}
		})
	}
}

func itoa(n int) string { return strings.TrimSpace(Repr(Int(int64(n)))) }
