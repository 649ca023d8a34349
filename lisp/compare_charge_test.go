package lisp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// walkedOrder is the order of the elements the audit below gives every
// row: 11 and 18 stand neither first nor last nor where a small index
// finds them, so a row that returns them sorted, or returns the least
// or the greatest, compared them.
var walkedOrder = []int{14, 12, 15, 16, 11, 18, 13, 17}

// walkedParts is how many parts each element of the audit holds.
const walkedParts = 200

// walkedElements are the elements of the audit: numbers, to find the
// rows that order by value, and pairs of arrangements of one size of
// vectors and of texts, alike but for their first part or their last.
// Comparing two alike but for the last part reads all of both; alike but
// for the first, one part each. Building, copying, counting and printing
// them costs the same.
var walkedElements = map[string]func(i int) string{
	"numbers":                 func(i int) string { return fmt.Sprint(i) },
	"vectors differing first": func(i int) string { return fmt.Sprintf("(into [%d] (repeat %d 0))", i, walkedParts-1) },
	"vectors differing last":  func(i int) string { return fmt.Sprintf("(conj (vec (repeat %d 0)) %d)", walkedParts-1, i) },
	"texts differing first":   func(i int) string { return fmt.Sprintf(`(str %d (apply str (repeat %d "a")))`, i, walkedParts-1) },
	"texts differing last":    func(i int) string { return fmt.Sprintf(`(str (apply str (repeat %d "a")) %d)`, walkedParts-1, i) },
}

// walkedSlots are the arguments the audit gives each position: the
// elements as a vector, or a small fixed value (an empty sorted set to
// put them in).
var walkedSlots = []string{"coll", "identity", "compare", ":asc", "(sorted-set)", "2", "nil"}

func walkedArgs(t *testing.T, slots []int, elements string) []Value {
	t.Helper()
	var srcs []string
	for _, i := range walkedOrder {
		srcs = append(srcs, walkedElements[elements](i))
	}
	args := make([]Value, len(slots))
	for i, s := range slots {
		src := walkedSlots[s]
		if src == "coll" {
			src = "[" + strings.Join(srcs, " ") + "]"
		}
		res, err := Eval(context.Background(), src, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		args[i] = res.Value
	}
	return args
}

// callWalked calls b on args and returns its value and the steps it was
// charged.
func callWalked(b *Builtin, args []Value) (Value, int64, error) {
	th := newThread(context.Background(), Limits{MaxSteps: 20_000_000, MaxAllocBytes: 256 << 20, MaxDepth: 100})
	th.prog = newProgState(Env{})
	v, err := th.call(b, args)
	return v, th.steps, err
}

// ordersByValue reports whether v, the value of a row given walkedOrder,
// shows that the row compared the elements: they come back sorted, or
// the least or greatest alone.
func ordersByValue(v Value) bool {
	if n, ok := v.(Int); ok {
		return n == 11 || n == 18
	}
	var elems []Value
	switch c := v.(type) {
	case *Vector:
		elems = c.Elems()
	case *Set:
		elems = c.Elems() // a sorted set's in its order
	}
	if len(elems) != len(walkedOrder) {
		return false
	}
	got := make([]int, len(elems))
	for i, e := range elems {
		n, ok := e.(Int)
		if !ok {
			return false
		}
		got[i] = int(n)
	}
	asc := slices.Sorted(slices.Values(walkedOrder))
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	return slices.Equal(got, asc) || slices.Equal(got, desc)
}

// TestComparingIsChargedByWhatItWalks is a counting audit, timing
// nothing, of every row that orders its arguments' elements: found by
// running every row a program can call, with the elements in any
// argument position (or small fixed values: a key function, a
// comparator), on eight numbers in a scrambled order, and keeping the
// rows that return them sorted or return the least or the greatest.
// Each of those is then run on eight vectors, and on eight texts, of 200
// parts, alike but for their last part, and on the same alike but for
// their first: the second arrangement makes each of the row's
// comparisons (at least seven to order eight elements) read all 200
// parts of both instead of one, and nothing else differs. The row must
// be charged at least a step per 8 parts of those seven comparisons
// more for vectors; for texts, charged a step per 64 bytes by their
// length, at least that of seven comparisons more than for numbers. At
// the base of this check, sort, sort-by, min-by and max-by were
// charged alike for both (a step per comparison whatever it read).
func TestComparingIsChargedByWhatItWalks(t *testing.T) {
	minExtra := int64((len(walkedOrder) - 1) * walkedParts / 8)
	minTextExtra := int64((len(walkedOrder) - 1) * walkedParts / 64)
	audited := 0
	for _, b := range returning(everyCallable()) {
		for _, arity := range smallArities(b) {
			eachCombination(arity, len(walkedSlots), func(slots []int) {
				if !slices.Contains(slots, 0) {
					return
				}
				v, numbers, err := callWalked(b, walkedArgs(t, slots, "numbers"))
				if err != nil || !ordersByValue(v) {
					return
				}
				label := b.Name
				for _, s := range slots {
					label += " <" + walkedSlots[s] + ">"
				}
				audited++
				for _, kind := range []string{"vectors", "texts"} {
					_, first, err1 := callWalked(b, walkedArgs(t, slots, kind+" differing first"))
					_, last, err2 := callWalked(b, walkedArgs(t, slots, kind+" differing last"))
					if err1 != nil || err2 != nil {
						continue // orders numbers only
					}
					if kind == "texts" && last-numbers < minTextExtra {
						t.Errorf("(%s) of texts of %d bytes: %d steps, %d of numbers; want %d more",
							label, walkedParts, last, numbers, minTextExtra)
					}
					if kind == "vectors" && last-first < minExtra {
						t.Errorf("(%s) of vectors alike but for the last of %d parts: %d steps, %d alike but for the first; want %d more",
							label, walkedParts, last, first, minExtra)
					}
				}
			})
		}
	}
	t.Logf("%d rows order by value", audited)
	if audited < 10 {
		t.Errorf("only %d rows order their elements; the audit no longer finds them", audited)
	}
}

// equalitySlots are the arguments the equality audit gives each
// position: the elements as a vector or as the keys of a map, one
// element to look for, or a small fixed value.
var equalitySlots = []string{"coll", "keyed map", "element", "identity", "2", "nil"}

// equalityArgs are the arguments of slots with elements of one
// arrangement, the element looked for being sought (the last of
// walkedOrder: found after comparing all the others; or one absent).
func equalityArgs(t *testing.T, slots []int, elements string, sought int) []Value {
	t.Helper()
	args := make([]Value, len(slots))
	for i, s := range slots {
		var src string
		switch equalitySlots[s] {
		case "coll", "keyed map":
			var srcs []string
			for j, e := range walkedOrder {
				if equalitySlots[s] == "keyed map" {
					srcs = append(srcs, fmt.Sprintf("%s %d", walkedElements[elements](e), j))
				} else {
					srcs = append(srcs, walkedElements[elements](e))
				}
			}
			src = "[" + strings.Join(srcs, " ") + "]"
			if equalitySlots[s] == "keyed map" {
				src = "(apply hash-map " + src + ")"
			}
		case "element":
			src = walkedElements[elements](sought)
		default:
			src = equalitySlots[s]
		}
		res, err := Eval(context.Background(), src, Env{})
		if err != nil || res.Err != nil {
			t.Fatalf("%s: %v %v", src, err, res.Err)
		}
		args[i] = res.Value
	}
	return args
}

// lookupAnswer reports whether v answers a look-up as a row that tests
// equality does: whether, where, or what a map holds there (a position
// below 8), never an element (a number from 11).
func lookupAnswer(v Value) bool {
	switch n := v.(type) {
	case Bool, NilType:
		return true
	case Int:
		return n >= 0 && int(n) < len(walkedOrder)
	}
	return false
}

// TestEqualityIsChargedByWhatItWalks is the counting audit of the rows
// that test the equality of elements or hash them: found by running
// every row on eight numbers and a number to look for, once present
// (last) and once absent, and keeping the rows whose answer (a boolean,
// a position, what the map holds) differs. Each
// is then run on vectors and on texts of 200 parts, alike but for their
// last part, looking for the last: finding it in the vector reads all
// 200 parts of it and of the seven before, in the map hashes it and
// reads one; the row must be charged at least a step per 8 parts of
// those (per 64 bytes, for texts) more than for the numbers.
func TestEqualityIsChargedByWhatItWalks(t *testing.T) {
	partsPerStep := map[string]int{"vectors": 8, "texts": 64}
	last := walkedOrder[len(walkedOrder)-1]
	audited := 0
	for _, b := range returning(everyCallable()) {
		for _, arity := range smallArities(b) {
			eachCombination(arity, len(equalitySlots), func(slots []int) {
				if !slices.Contains(slots, 2) || !slices.ContainsFunc(slots, func(s int) bool { return s < 2 }) {
					return
				}
				present, numbers, err := callWalked(b, equalityArgs(t, slots, "numbers", last))
				if err != nil {
					return
				}
				absent, _, err := callWalked(b, equalityArgs(t, slots, "numbers", 99))
				if err != nil || Equal(present, absent) || !lookupAnswer(present) || !lookupAnswer(absent) {
					return
				}
				label := b.Name
				for _, s := range slots {
					label += " <" + equalitySlots[s] + ">"
				}
				audited++
				read := 1 // elements read whole: the one sought, hashed
				if slices.Contains(slots, 0) {
					read = len(walkedOrder) - 1 // each before it, compared
				}
				for _, kind := range []string{"vectors", "texts"} {
					_, steps, err := callWalked(b, equalityArgs(t, slots, kind+" differing last", last))
					if err != nil {
						continue // looks numbers up only
					}
					if want := int64(read * walkedParts / partsPerStep[kind]); steps-numbers < want {
						t.Errorf("(%s) of %s of %d parts alike but for the last: %d steps, %d of numbers; want %d more",
							label, kind, walkedParts, steps, numbers, want)
					}
				}
			})
		}
	}
	t.Logf("%d rows test equality", audited)
	if audited < 10 {
		t.Errorf("only %d rows test equality; the audit no longer finds them", audited)
	}
}
