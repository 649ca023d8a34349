package lisp

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The number scanners accept what parse-long's and parse-double's patterns
// did, string for string.
func TestNumberScannersMatchTheirPatterns(t *testing.T) {
	long := regexp.MustCompile(`^[+-]?[0-9]+$`)
	decimal := regexp.MustCompile(`^[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)$`)
	th := newThread(context.Background(), DefaultLimits())
	texts := []string{"", "+", "-", "0", "-0", "+12", "1.", ".5", ".", "1e5", "1e", "1e+", "1E-3", ".e1", "1.5e3x",
		"NaN", "-Infinity", "+NaN", "Infinity1", "nan", "1_000", " 1", "1 ", "٣", "00012", "1.2.3", "--1", "e5"}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "0123456789+-.eEIN x"
	for range 20_000 {
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		_, isLong, err := th.integerText(s)
		if err != nil || isLong != long.MatchString(s) {
			t.Errorf("%q: integer %v (%v), the pattern says %v", s, isLong, err, long.MatchString(s))
		}
		isDecimal, err := th.isDecimal(s)
		if err != nil || isDecimal != decimal.MatchString(s) {
			t.Errorf("%q: decimal %v (%v), the pattern says %v", s, isDecimal, err, decimal.MatchString(s))
		}
	}
}

// A number in a string of megabytes: an integer's leading zeros cost
// nothing (Java's answer), a decimal number past the bound is an error
// naming it, and a long string that is no number is nil.
func TestParseLongStrings(t *testing.T) {
	th := newThread(context.Background(), DefaultLimits())
	zeros := strings.Repeat("0", 4<<20)
	digits := strings.Repeat("7", 4<<20)
	for _, c := range []struct {
		fn   func(*Thread, []Value) (Value, error)
		name string
		arg  string
		want Value
	}{
		{builtinParseLong, "parse-long", "-" + zeros + "42", Int(-42)},
		{builtinParseLong, "parse-long", zeros, Int(0)},
		{builtinParseLong, "parse-long", digits, Nil}, // past a long's range
		{builtinParseLong, "parse-long", digits + "x", Nil},
		{javaParseInt(64), "Long/parseLong", zeros + "42", Int(42)},
		{javaParseInt(32), "Integer/parseInt", digits, Nil},
		{builtinParseDouble, "parse-double", zeros + "1.5", nil},
		{builtinParseDouble, "parse-double", "1.5" + zeros, nil},
		{builtinParseDouble, "parse-double", digits + "x", Nil},
		{builtinParseDouble, "parse-double", "0." + strings.Repeat("0", maxDecimalChars-3) + "1", Float(0)},
	} {
		got, err := c.fn(th, []Value{String(c.arg)})
		if c.want == nil {
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Message, "longer than the 65536") {
				t.Errorf("%s of %d characters: %v (%.80v), want an error naming the bound", c.name, len(c.arg), got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s of %d characters: %v (%v), want %v", c.name, len(c.arg), got, err, c.want)
		}
	}
}

// countingContext counts the looks at it.
type countingContext struct {
	context.Context
	looks int
}

func (c *countingContext) Err() error {
	c.looks++
	return c.Context.Err()
}

// A number's scan looks at the evaluation's context as it reads, every
// numberScanStride bytes, and ends with the evaluation's timeout once the
// context is done: the parse of a string of megabytes is not one call
// without a look at the clock.
func TestNumberScanLooksAtTheClock(t *testing.T) {
	text := strings.Repeat("1", 4<<20)
	ctx := &countingContext{Context: context.Background()}
	th := newThread(ctx, DefaultLimits())
	if ok, err := th.isDecimal(text); !ok || err != nil {
		t.Fatalf("%d digits: %v (%v)", len(text), ok, err)
	}
	if want := len(text) / numberScanStride; ctx.looks < want {
		t.Errorf("the scan of %d bytes looked at the context %d times, want at least %d", len(text), ctx.looks, want)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	th = newThread(done, DefaultLimits())
	for name, parse := range map[string]func(*Thread, []Value) (Value, error){
		"parse-long": builtinParseLong, "parse-double": builtinParseDouble, "Double/parseDouble": javaParseDouble,
	} {
		_, err := parse(th, []Value{String(text)})
		var e *Error
		if !errors.As(err, &e) || e.Kind != timeout {
			t.Errorf("%s, the evaluation cancelled: %.100v, want timeout", name, err)
		}
	}
}
