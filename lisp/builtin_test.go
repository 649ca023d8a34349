package lisp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
)

// callRow calls b through the thread, as the evaluator does, with
// generous limits, recovering a panic as a failure of the test.
func callRow(t *testing.T, b *Builtin, args []Value) (v Value, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("(%s %v) panicked: %v", b.Name, args, r)
			err = fmt.Errorf("panic")
		}
	}()
	th := newThread(context.Background(), Limits{MaxSteps: 100_000, MaxAllocBytes: 1 << 20, MaxDepth: 50})
	return th.call(b, args)
}

// isArityRefusal reports whether err is Call's refusal of n arguments to b.
func isArityRefusal(b *Builtin, n int, err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Message == arityError(b.Name, b.Sig, n).Message
}

// TestRowIsWhatRuns checks that each row of the builtin table, however it
// is reached, is what a call runs: the arities the row declares are
// accepted and no others, a row with a transducer form returns one when
// called without its collection, and a row with a form for infinite
// sequences runs it when given one.
func TestRowIsWhatRuns(t *testing.T) {
	fill := []Value{Int(2), builtinFn("odd?"), ints(1, 2, 3)}
	for _, b := range everyBuiltin() {
		if b.Category == "io" {
			continue // the evaluator's: they need a program
		}
		if b.MinArgs > 0 {
			if _, err := callRow(t, b, make([]Value, b.MinArgs-1)); !isArityRefusal(b, b.MinArgs-1, err) {
				t.Errorf("%s declares at least %d arguments, but %d were not refused: %v", b.Name, b.MinArgs, b.MinArgs-1, err)
			}
		}
		if b.MaxArgs >= 0 {
			if _, err := callRow(t, b, make([]Value, b.MaxArgs+1)); !isArityRefusal(b, b.MaxArgs+1, err) {
				t.Errorf("%s declares at most %d arguments, but %d were not refused: %v", b.Name, b.MaxArgs, b.MaxArgs+1, err)
			}
		}
		top := b.MaxArgs
		if top < 0 {
			top = b.MinArgs + 3
		}
		for n := b.MinArgs; n <= top; n++ {
			if b.arities != nil && !slices.Contains(b.arities, n) {
				if _, err := callRow(t, b, make([]Value, n)); !isArityRefusal(b, n, err) {
					t.Errorf("%s does not declare %d arguments, but they were not refused: %v", b.Name, n, err)
				}
				continue
			}
			args := make([]Value, n)
			for i := range args {
				args[i] = fill[i%len(fill)]
			}
			if _, err := callRow(t, b, args); isArityRefusal(b, n, err) {
				t.Errorf("%s declares %d arguments acceptable, but they were refused", b.Name, n)
			}
		}
		if b.xform != nil {
			args := make([]Value, b.xform.args)
			for i := range args {
				args[i] = Int(2)
			}
			v, err := callRow(t, b, args)
			if c, ok := v.(*combined); err != nil || !ok || c.name != b.Name {
				t.Errorf("%s called with %d arguments gave %v, %v; want its transducer", b.Name, len(args), v, err)
			}
		}
		if b.lazy != nil && !lazyFormRuns(t, b, fill) {
			t.Errorf("%s has a form for infinite sequences, but no call with (repeat 1) differs from its Fn's", b.Name)
		}
	}
}

// lazyFormRuns tries b's three smallest arities with an infinite sequence
// in each position and the others from fill: the row's lazy form runs if
// some outcome differs from what the row's Fn alone gives.
func lazyFormRuns(t *testing.T, b *Builtin, fill []Value) bool {
	for n := max(b.MinArgs, 1); n <= max(b.MinArgs, 1)+2; n++ {
		if b.MaxArgs >= 0 && n > b.MaxArgs {
			break
		}
		if lazyFormRunsWith(t, b, n, fill) {
			return true
		}
	}
	return false
}

func lazyFormRunsWith(t *testing.T, b *Builtin, n int, fill []Value) bool {
	for pos := range n {
		for _, other := range fill {
			args := make([]Value, n)
			for i := range args {
				args[i] = other
			}
			ones, err := repeatSeq(newTestThread(), Int(1))
			if err != nil {
				t.Fatal(err)
			}
			args[pos] = ones
			v, err := callRow(t, b, args)
			plain := *b
			plain.lazy = nil
			pv, perr := callRow(t, &plain, args)
			if (err == nil) != (perr == nil) || (err != nil && err.Error() != perr.Error()) || (err == nil && Repr(v) != Repr(pv)) {
				return true
			}
		}
	}
	return false
}
