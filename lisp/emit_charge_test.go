package lisp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// bigTextBuild binds n, b and d to a 38,000-digit BigInt, BigInteger and
// BigDecimal (e to one ending in zeros), whose decimal text costs about
// 14,000 steps to write (bigTextSteps).
const bigTextBuild = `(let [n (bigint (apply str (repeat 38000 "7"))) b (biginteger n) d (bigdec n) e (* d 10M)] %s)`

// bigTextMinSteps is the least charge a test accepts for writing one of
// them.
const bigTextMinSteps = 12000

// TestEveryBigNumberTextIsCharged: every way text of a big number leaves
// an evaluation, or is built inside one, is charged for the conversion by
// the one model (bigTextSteps), before it is done: the turn's result, its
// memory, the arguments of its tool calls, prints, and the builtins and
// methods that return text. Charged by nothing, a turn returning 19
// numbers of 100,000 digits took 0.2 s of CPU the step budget never saw.
func TestEveryBigNumberTextIsCharged(t *testing.T) {
	env := Env{Tools: []string{"search"}}
	base := run(t, fmt.Sprintf(bigTextBuild, "1"), env)
	if base.Err != nil {
		t.Fatal(base.Err)
	}
	for _, form := range []string{
		// What the turn sends back: the result (its EDN and its JSON), a
		// definition, a fail reason, a tool call's arguments.
		`(tool/search {:q n})`, `n`, `[d]`, `{:n n}`, `(list b)`, `(do (def m n) 1)`, `(do (def m [d]) 1)`, `(fail n)`,
		// Prints.
		`(do (println n) 1)`, `(do (prn d) 1)`, `(count (pr-str b))`, `(count (print-str [n]))`,
		// Builtins that build text.
		`(count (str n))`, `(count (str d))`, `(count (format "%d" b))`, `(count (format "%s" d))`,
		`(count (format "%.2f" d))`, `(count (format "%e" d))`, `(count (json/generate-string [n d]))`,
		// Methods that return text.
		`(count (.toString b))`, `(count (.toString b 7))`, `(count (.toString d))`, `(count (.toPlainString d))`,
		`(.scale (.stripTrailingZeros e))`,
	} {
		res := run(t, fmt.Sprintf(bigTextBuild, form), env)
		if res.Err != nil && res.Err.Kind != fail && res.Err.Kind != toolError {
			t.Fatalf("%s: %v", form, res.Err)
		}
		if got := res.Steps - base.Steps; got < bigTextMinSteps {
			t.Errorf("%s: charged %d steps, want the conversion's (at least %d)", form, got, bigTextMinSteps)
		}
	}
}

// TestBigNumberMethodsReturningTextAreCharged calls every BigInteger and
// BigDecimal method with a big receiver and, for each that answers a
// string, expects the conversion charged: a method added later that
// writes a number's digits uncharged fails here.
func TestBigNumberMethodsReturningTextAreCharged(t *testing.T) {
	base := run(t, fmt.Sprintf(bigTextBuild, "1"), Env{})
	argLists := []string{"", " 10", " 10 2", " 10M", " b"}
	texts := 0
	check := func(receiver string, names []string) {
		slices.Sort(names)
		for _, name := range names {
			for _, args := range argLists {
				form := fmt.Sprintf("(%s %s%s)", name, receiver, args)
				res := run(t, fmt.Sprintf(bigTextBuild, form), Env{})
				if res.Err != nil {
					continue // not this arity or these arguments
				}
				if _, ok := res.Value.(String); !ok {
					continue
				}
				texts++
				if got := res.Steps - base.Steps; got < bigTextMinSteps {
					t.Errorf("%s answers text, charged %d steps, want the conversion's (at least %d)", form, got, bigTextMinSteps)
				}
			}
		}
	}
	var names []string
	for name := range bigIntegerMethods {
		names = append(names, name)
	}
	check("b", names)
	names = names[:0]
	for name := range decimalMethods {
		names = append(names, name)
	}
	check("e", names)
	if texts < 2 {
		t.Fatalf("%d method calls answered text, want at least .toString and .toPlainString", texts)
	}
}

// TestMessagesDoNotWriteLongNumbers: an error that quotes a big number
// (out of a long's range) names its size instead of writing its digits,
// which no message charges; a program that catches it in a loop ends by
// its charges with the clock far away.
func TestMessagesDoNotWriteLongNumbers(t *testing.T) {
	for _, form := range []string{`(long n)`, `(int n)`, `(long d)`, `(int d)`, `(+ n "a")`, `(nth n 1)`} {
		res := run(t, fmt.Sprintf(bigTextBuild, form), Env{})
		if res.Err == nil {
			t.Fatalf("%s: no error", form)
		}
		if len(res.Err.Message) > 500 || strings.Contains(res.Err.Message, strings.Repeat("7", 400)) {
			t.Errorf("%s: the message writes the number (%d bytes): %.120s", form, len(res.Err.Message), res.Err.Message)
		}
	}
	limits := DefaultLimits()
	limits.Timeout = 10 * time.Minute
	res := run(t, fmt.Sprintf(bigTextBuild, `(dotimes [i 1000000] (try (long n) (catch Exception x (ex-message x))))`), Env{Limits: limits})
	if res.Err == nil || (res.Err.Kind != stepLimit && res.Err.Kind != memoryLimit) {
		t.Fatalf("a caught range error in a loop: got %v, want step_limit or memory_limit", res.Err)
	}
}

// TestEmitOfLongNumbersEndsByItsCharge: a turn whose result holds many
// long numbers ends at the step limit, decided by the count alone, and a
// number too long for the emit limit is refused without being written.
func TestEmitOfLongNumbersEndsByItsCharge(t *testing.T) {
	limits := DefaultLimits()
	limits.Timeout = 10 * time.Minute
	src := `(let [n (bigint (apply str (repeat 100000 "9")))] (vec (repeat 19 n)))`
	for range 3 {
		res := run(t, src, Env{Limits: limits})
		if res.Err == nil || res.Err.Kind != stepLimit {
			t.Fatalf("19 numbers of 100,000 digits as the result: got %v, want step_limit", res.Err)
		}
	}
	limits.MaxEmitBytes = 50_000
	res := run(t, `(bigint (apply str (repeat 60000 "9")))`, Env{Limits: limits})
	if res.Err == nil || res.Err.Kind != emitLimit {
		t.Fatalf("a 60,000-digit result with a 50,000-byte emit limit: got %v, want emit_limit", res.Err)
	}
}
