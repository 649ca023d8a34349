package lisp

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// builderCalls are the builtins that build a map or set by growing it,
// each called on an input of n items: the class chargeGrowth charges.
// callsBack is true for those that call a function per item, each call
// allocating its argument list (callAllowance), charged as its step.
func builderCalls() []struct {
	name      string
	args      func(xs *Vector) []Value
	callsBack bool
} {
	one := func(xs *Vector) []Value { return []Value{xs} }
	identity := builtinFn("identity")
	distinctXform, _ := callBuiltin(newTestThread(), "distinct")
	return []struct {
		name      string
		args      func(xs *Vector) []Value
		callsBack bool
	}{
		{"frequencies", one, false},
		{"group-by", func(xs *Vector) []Value { return []Value{identity, xs} }, true},
		{"set", one, false},
		{"hash-set", func(xs *Vector) []Value { return xs.elems }, false},
		{"distinct", one, false},
		{"distinct-by", func(xs *Vector) []Value { return []Value{identity, xs} }, true},
		{"zipmap", func(xs *Vector) []Value { return []Value{xs, xs} }, false},
		{"hash-map", func(xs *Vector) []Value { return interleaved(xs) }, false},
		{"array-map", func(xs *Vector) []Value { return interleaved(xs) }, false},
		{"into", func(xs *Vector) []Value { return []Value{emptySet, xs} }, false},
		{"into", func(xs *Vector) []Value { return []Value{emptyMap, pairsOf(xs)} }, false},
		{"into", func(xs *Vector) []Value { return []Value{emptySet, distinctXform, xs} }, true},
		{"union", func(xs *Vector) []Value { return []Value{emptySet, NewSet(xs.elems)} }, false},
	}
}

// interleaved is k1 k1 k2 k2 ..., the arguments of hash-map.
func interleaved(xs *Vector) []Value {
	out := make([]Value, 0, 2*xs.Len())
	for _, x := range xs.elems {
		out = append(out, x, x)
	}
	return out
}

// pairsOf is [[x x] ...], the entries into {} takes.
func pairsOf(xs *Vector) *Vector {
	out := make([]Value, xs.Len())
	for i, x := range xs.elems {
		out[i] = NewVector([]Value{x, x})
	}
	return NewVector(out)
}

// builderInputs are inputs of 100,000 items: all distinct, all alike,
// a hundred values repeated, strings, and keys holding collections.
func builderInputs() map[string]*Vector {
	const n = 100_000
	ins := map[string][]Value{}
	for i := 0; i < n; i++ {
		ins["distinct integers"] = append(ins["distinct integers"], Int(i))
		ins["one integer"] = append(ins["one integer"], Int(7))
		ins["a hundred integers"] = append(ins["a hundred integers"], Int(i%100))
		ins["strings"] = append(ins["strings"], String(fmt.Sprint("s", i)))
		ins["pairs"] = append(ins["pairs"], NewVector([]Value{Int(i), Int(i % 7)}))
	}
	out := map[string]*Vector{}
	for k, v := range ins {
		out[k] = NewVector(v)
	}
	return out
}

// maxAllocPerCharge is how much more than its charge a builder may
// allocate: its charge counts each growth of its array and index before
// it is made, and the index's real share varies with Go's map layout.
const maxAllocPerCharge = 1.5

// callAllowance is what a call back allocates besides its charge: its
// argument list and the transducer's (two values).
const callAllowance = 2 * heapSlot

// TestMapAndSetBuildersAreChargedWhatTheyAllocate: every builtin that
// builds a map or set by growing it is charged at least what Go allocates
// for it, within maxAllocPerCharge, whatever share of its input repeats:
// Go's growth of slices and maps made them allocate 3 to 8 times their
// charge, and a set of one value from many items 28,000 times.
func TestMapAndSetBuildersAreChargedWhatTheyAllocate(t *testing.T) {
	if raceDetector {
		t.Skip("measures allocation, which the race detector changes")
	}
	limits := Limits{MaxAllocBytes: 1 << 30, MaxSteps: 1 << 40}
	inputs := builderInputs()
	for _, call := range builderCalls() {
		for name, xs := range inputs {
			args := call.args(xs)
			th := newThread(context.Background(), limits)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			charged := th.allocatedBytes()
			if _, err := callBuiltin(th, call.name, args...); err != nil {
				t.Fatalf("%s of %s: %v", call.name, name, err)
			}
			charged = th.allocatedBytes() - charged
			runtime.ReadMemStats(&after)
			alloc := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("%-12s %-20s allocated %9d charged %9d (%.2f)", call.name, name, alloc, charged, float64(alloc)/float64(max(charged, 1)))
			allowed := maxAllocPerCharge*float64(charged) + 64<<10
			if call.callsBack {
				allowed += callAllowance * float64(xs.Len())
			}
			if float64(alloc) > allowed {
				t.Errorf("%s of %d %s: Go allocated %d bytes, charged %d", call.name, xs.Len(), name, alloc, charged)
			}
		}
	}
}
