package lisp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
)

// judgedSlots are the arguments the audit of equality and hashing gives
// each position: one value, its twin (equal to it but built apart), the
// value inside a vector, a set or as a map's key, or a small fixed
// value. The second run of a row gives, in the twin's place, a value
// alike but for its last part.
var judgedSlots = []string{"element", "twin", "[element]", "#{element}", "{element 1}", "identity", "nil", "2"}

// judgedParts and judgedBytes are the size of the audit's values of each
// kind: the parts of a vector, the bytes of a text.
const (
	judgedParts = 200
	judgedBytes = 2000
)

// judgedValue is the source of the audit's value of kind ending in n.
func judgedValue(kind string, n int) string {
	text := fmt.Sprintf(`(str (apply str (repeat %d "a")) %d)`, judgedBytes-2, n)
	switch kind {
	case "numbers":
		return fmt.Sprint(n)
	case "vectors":
		return fmt.Sprintf("(conj (vec (repeat %d 0)) %d)", judgedParts-1, n)
	case "texts":
		return text
	case "keywords":
		return "(keyword " + text + ")"
	case "symbols":
		return "(symbol " + text + ")"
	}
	panic(kind)
}

// judgedArgs returns, for one kind, the value of each slot: the twin
// equal to the element (17), and the same slots with the twin replaced
// by a value alike but for its last part (18).
func judgedArgs(t *testing.T, kind string) (equal, differing map[string]Value) {
	t.Helper()
	eval := func(src string) Value {
		res, err := Eval(context.Background(), src, Env{Limits: Limits{MaxSteps: 10_000_000}})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		return res.Value
	}
	element := judgedValue(kind, 17)
	equal, differing = map[string]Value{}, map[string]Value{}
	for _, slot := range judgedSlots {
		src := map[string]string{
			"element": element, "[element]": "[" + element + "]", "#{element}": "#{" + element + "}",
			"{element 1}": "{" + element + " 1}", "twin": judgedValue(kind, 17),
		}[slot]
		if src == "" {
			src = slot
		}
		equal[slot] = eval(src)
		differing[slot] = equal[slot]
		if slot == "twin" {
			differing[slot] = eval(judgedValue(kind, 18))
		}
	}
	return equal, differing
}

// judgement reports whether v is an answer about its arguments, as a
// test of equality or a hash gives: a boolean, nil or a number.
func judgement(v Value) bool {
	switch v.(type) {
	case Bool, NilType, Int:
		return true
	}
	return false
}

// TestEqualityAndHashingAreChargedWhereTheyWalk is a counting audit,
// timing nothing, of every row whose answer depends on whether two
// values are equal, or on a value's hash: found by running every row a
// program can call, with a number and its twin in any argument position
// (alone, in a vector, a set, as a map's key, or beside a key function
// and small values), once with the twin equal to the number and once one
// more, and keeping the rows whose answer (a boolean, nil or a number)
// differs. Each is then run with vectors of 200 parts, and with
// strings, keywords and symbols of 2,000 bytes, equal twins: its test of
// equality or its hash reads the twin whole, and the row must be charged
// at least a step per 8 parts or per 64 bytes of it more than with the
// number. At the base of this check, every row that compared or hashed
// keywords and symbols (=, not=, identical?, isa?, compare, hash,
// contains?, get, case's lookups and more) was charged nothing for
// their length: a keyword of a megabyte compared as one of a byte.
func TestEqualityAndHashingAreChargedWhereTheyWalk(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	want := map[string]int64{"vectors": judgedParts / 8, "texts": judgedBytes / 64, "keywords": judgedBytes / 64, "symbols": judgedBytes / 64}
	kinds := []string{"vectors", "texts", "keywords", "symbols"}
	numbersEqual, numbersDiffering := judgedArgs(t, "numbers")
	bigEqual := map[string]map[string]Value{}
	for _, kind := range kinds {
		bigEqual[kind], _ = judgedArgs(t, kind)
	}
	pick := func(slots []int, values map[string]Value) []Value {
		args := make([]Value, len(slots))
		for i, s := range slots {
			args[i] = values[judgedSlots[s]]
		}
		return args
	}
	audited := 0
	failed := map[string]bool{}
	for _, b := range returning(everyCallable()) {
		for _, arity := range smallArities(b) {
			eachCombination(arity, len(judgedSlots), func(slots []int) {
				if !slices.Contains(slots, 1) {
					return
				}
				same, numbers, err := callWalked(b, pick(slots, numbersEqual))
				if err != nil || !judgement(same) {
					return
				}
				other, _, err := callWalked(b, pick(slots, numbersDiffering))
				if err != nil || !judgement(other) || Equal(same, other) ||
					Equal(same, numbersEqual["twin"]) && Equal(other, numbersDiffering["twin"]) {
					return // the same answer, or the twin given back
				}
				label := b.Name
				for _, s := range slots {
					label += " <" + judgedSlots[s] + ">"
				}
				audited++
				for _, kind := range kinds {
					v, steps, err := callWalked(b, pick(slots, bigEqual[kind]))
					if err != nil || !judgement(v) {
						continue // judges numbers only
					}
					if steps-numbers < want[kind] {
						failed[b.Name] = true
						t.Errorf("(%s) of %s, equal twins: %d steps, %d of numbers; want %d more",
							label, kind, steps, numbers, want[kind])
					}
				}
			})
		}
	}
	t.Logf("%d rows judge equality or hash; failing rows: %v", audited, slices.Sorted(maps.Keys(failed)))
	if audited < 20 {
		t.Errorf("only %d rows judge equality; the audit no longer finds them", audited)
	}
}
