package lisp

import (
	"context"
	"math/big"
	"testing"
)

// TestMadeNumbersAreCharged calls every builtin on each list of one or two
// numbers of every kind (long, double, big integer, decimal, and a text
// of digits), and fails where a call returns a big integer or decimal that
// none of its arguments is, having charged less than that number's heap
// shape. A big number is 56-64 bytes before its words: kept by the
// million, uncharged, they passed budget + 32 MiB of RSS at a raised
// budget (bigint, bigdec, abs and quot of one word charged nothing).
func TestMadeNumbersAreCharged(t *testing.T) {
	numbers := []func() Value{
		func() Value { return Int(7) },
		func() Value { return Int(1 << 40) },
		func() Value { return Float(2.5) },
		func() Value { return newBig(new(big.Int).Lsh(big.NewInt(3), 70)) },
		func() Value { d, _ := parseDec("1.5"); return d },
		func() Value { d, _ := parseDec("123456789012345678901234567890.25"); return d },
		func() Value { return String("12") },
	}
	calls := 0
	for _, b := range returning(everyCallable()) {
		for arity := max(b.MinArgs, 1); arity <= 2 && (b.MaxArgs < 0 || arity <= b.MaxArgs); arity++ {
			eachCombination(arity, len(numbers), func(idx []int) {
				args := make([]Value, arity)
				for k, j := range idx {
					args[k] = numbers[j]()
				}
				th := newThread(context.Background(), Limits{MaxSteps: 100_000, MaxAllocBytes: 16 << 20, MaxDepth: 100})
				th.prog = newProgState(Env{})
				label := callLabel(b, args)
				v, err := th.call(b, args)
				if err != nil {
					return
				}
				switch v.(type) {
				case *BigInt, *BigDec:
				default:
					return
				}
				for _, a := range args {
					if a == v {
						return // passed on, not made
					}
				}
				calls++
				if shape := heapShapeOf(v); th.allocated < shape {
					t.Errorf("%s made %s, %d bytes, charged %d", label, formText(v), shape, th.allocated)
				}
			})
		}
	}
	if calls < 50 {
		t.Errorf("only %d calls made a big number; the numbers no longer fit the builtins", calls)
	}
}
