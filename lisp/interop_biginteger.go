package lisp

import (
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
)

// java.math.BigInteger, which (biginteger x) makes and models reach for
// with integers past a long: the constructor from text, BigInteger/valueOf,
// the constants and the arithmetic methods, done as Java does them. A
// BigInteger method takes BigIntegers only (a long or a float is Java's
// ClassCastException, nil its NullPointerException); its receiver is a
// value biginteger made, so (.add 1N 2N) stays refused as in Clojure.

// bigIntegerMethod is a method of a BigInteger receiver: the count of
// arguments besides the receiver, and what it does.
type bigIntegerMethod struct {
	minArgs, maxArgs int
	fn               func(th *Thread, name string, x *big.Int, args []Value) (Value, error)
}

var bigIntegerMethods = map[string]bigIntegerMethod{
	".add":      {1, 1, bigIntegerOp(false, func(z, x, y *big.Int) error { z.Add(x, y); return nil })},
	".subtract": {1, 1, bigIntegerOp(false, func(z, x, y *big.Int) error { z.Sub(x, y); return nil })},
	".multiply": {1, 1, bigIntegerOp(true, func(z, x, y *big.Int) error { z.Mul(x, y); return nil })},
	".divide": {1, 1, bigIntegerOp(true, func(z, x, y *big.Int) error {
		if y.Sign() == 0 {
			return bigIntegerArithmetic("BigInteger divide by zero")
		}
		z.Quo(x, y) // toward zero, as Java's
		return nil
	})},
	".remainder": {1, 1, bigIntegerOp(true, func(z, x, y *big.Int) error {
		if y.Sign() == 0 {
			return bigIntegerArithmetic("BigInteger divide by zero")
		}
		z.Rem(x, y) // the sign of x, as Java's
		return nil
	})},
	".mod": {1, 1, bigIntegerOp(true, func(z, x, y *big.Int) error {
		if y.Sign() <= 0 {
			return bigIntegerArithmetic("BigInteger: modulus not positive")
		}
		z.Mod(x, y)
		return nil
	})},
	".gcd": {1, 1, bigIntegerOp(true, func(z, x, y *big.Int) error {
		z.GCD(nil, nil, new(big.Int).Abs(x), new(big.Int).Abs(y))
		return nil
	})},
	".max": {1, 1, bigIntegerOp(false, func(z, x, y *big.Int) error { z.Set(bigPick(x, y, 1)); return nil })},
	".min": {1, 1, bigIntegerOp(false, func(z, x, y *big.Int) error { z.Set(bigPick(x, y, -1)); return nil })},
	".compareTo": {1, 1, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		y, err := bigIntegerArg(name, args[1])
		if err != nil {
			return nil, err
		}
		return Int(x.Cmp(y)), nil
	}},
	".abs":    {0, 0, bigIntegerUnary(func(z, x *big.Int) { z.Abs(x) })},
	".negate": {0, 0, bigIntegerUnary(func(z, x *big.Int) { z.Neg(x) })},
	".signum": {0, 0, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) { return Int(x.Sign()), nil }},
	".bitLength": {0, 0, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		if x.Sign() < 0 { // two's complement without its sign bit: that of -x-1
			return Int(new(big.Int).Not(x).BitLen()), nil
		}
		return Int(x.BitLen()), nil
	}},
	".longValue": {0, 0, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) { return Int(bigLowBits(x)), nil }},
	".intValue": {0, 0, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		return Int(int32(bigLowBits(x))), nil
	}},
	".doubleValue": {0, 0, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		return Float(bigFloat(x)), nil // correctly rounded, as Java's
	}},
	".toString": {0, 1, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		radix := Int(10)
		if len(args) == 2 {
			r, err := javaIntParam(name, args[1], 32)
			if err != nil {
				return nil, err
			}
			if r >= 2 && r <= 36 { // Java reads another radix as 10
				radix = r
			}
		}
		if err := th.alloc(int64(x.BitLen()/3 + 2)); err != nil {
			return nil, err
		}
		if err := chargeBigText(th, x); err != nil {
			return nil, err
		}
		return String(x.Text(int(radix))), nil
	}},
	".pow": {1, 1, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		e, err := javaIntParam(name, args[1], 32)
		if err != nil {
			return nil, err
		}
		if e < 0 {
			return nil, bigIntegerArithmetic("Negative exponent")
		}
		// The result's words, charged before it is built: a power of a
		// large base is the memory limit's error, not an endless product.
		words := (int64(x.BitLen())*int64(e))/64 + 1
		if err := bigWorkWords(th, words, words, true); err != nil {
			return nil, err
		}
		return newBigInteger(new(big.Int).Exp(x, big.NewInt(int64(e)), nil)), nil
	}},
	".modPow": {2, 2, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		e, err := bigIntegerArg(name, args[1])
		if err != nil {
			return nil, err
		}
		m, err := bigIntegerArg(name, args[2])
		if err != nil {
			return nil, err
		}
		if m.Sign() <= 0 {
			return nil, bigIntegerArithmetic("BigInteger: modulus not positive")
		}
		mw := int64(len(m.Bits()) + 1)
		if err := bigWorkWords(th, mw, mw*int64(e.BitLen()+1), true); err != nil {
			return nil, err
		}
		base := new(big.Int).Mod(x, m)
		if e.Sign() < 0 {
			if base = new(big.Int).ModInverse(base, m); base == nil {
				return nil, bigIntegerArithmetic("BigInteger not invertible.")
			}
			e = new(big.Int).Neg(e)
		}
		return newBigInteger(new(big.Int).Exp(base, e, m)), nil
	}},
	".isProbablePrime": {1, 1, func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		certainty, err := javaIntParam(name, args[1], 32)
		if err != nil {
			return nil, err
		}
		if certainty <= 0 {
			return trueValue, nil // Java's answer for no certainty asked
		}
		if err := th.stepAtOnce(primalitySteps(x)); err != nil {
			return nil, err
		}
		w := int64(len(x.Bits()) + 1)
		if err := bigWorkWords(th, w, 4*w, false); err != nil { // its copy and the squares' room
			return nil, err
		}
		return boolValue(new(big.Int).Abs(x).ProbablyPrime(20)), nil
	}},
}

// primalitySteps is what ProbablyPrime(20) costs in steps: 21
// Miller-Rabin rounds and a Lucas test, each a modular power of as many
// squarings as x has bits, a squaring w² word products and a fixed cost
// of about 32 of them; 26 ns × bits × (w² + 32) on the 2-core machine
// (M61 42 µs, M127 130 µs, M521 2 ms, M4423 560 ms a call), charged a
// step per 52 ns. It was charged 5 w³ steps: a loop over a 127-bit prime
// spent 0.9 s of CPU to the step limit, 900 ns a step.
func primalitySteps(x *big.Int) int64 {
	bits, w := int64(x.BitLen()), int64(len(x.Bits()))
	return wordProduct(bits, wordProduct(w, w)+32)/2 + 1
}

func newBigInteger(x *big.Int) *BigInt { return &BigInt{n: x, integer: true} }

// bigIntegerArg is v passed to a BigInteger parameter.
func bigIntegerArg(name string, v Value) (*big.Int, error) {
	if b, ok := v.(*BigInt); ok && b.integer {
		return b.n, nil
	}
	e := typeErrorf(name, "a BigInteger", v).WithHint("make one with (biginteger x)")
	if v == Nil {
		return nil, e
	}
	return nil, e.asJava("ClassCastException", "")
}

func bigIntegerArithmetic(message string) error {
	return Errorf(arithmeticError, "%s", message).asJava("ArithmeticException", message)
}

// bigIntegerOp is a method of one BigInteger argument giving a
// BigInteger, charged as a sum or as a product of the two.
func bigIntegerOp(product bool, op func(z, x, y *big.Int) error) func(*Thread, string, *big.Int, []Value) (Value, error) {
	return func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		y, err := bigIntegerArg(name, args[1])
		if err != nil {
			return nil, err
		}
		if err := bigWorkWords(th, int64(len(x.Bits())), int64(len(y.Bits())), product); err != nil {
			return nil, err
		}
		z := new(big.Int)
		if err := op(z, x, y); err != nil {
			return nil, err
		}
		return newBigInteger(z), nil
	}
}

func bigIntegerUnary(op func(z, x *big.Int)) func(*Thread, string, *big.Int, []Value) (Value, error) {
	return func(th *Thread, name string, x *big.Int, args []Value) (Value, error) {
		if err := bigWorkWords(th, int64(len(x.Bits())), 0, false); err != nil {
			return nil, err
		}
		z := new(big.Int)
		op(z, x)
		return newBigInteger(z), nil
	}
}

// bigPick is x or y, whichever compares as sign (1 the larger).
func bigPick(x, y *big.Int, sign int) *big.Int {
	if x.Cmp(y)*sign >= 0 {
		return x
	}
	return y
}

// bigLowBits is the low 64 bits of x in two's complement, Java's
// narrowing of longValue.
func bigLowBits(x *big.Int) int64 { return int64(bigLow64(x)) }

// bigIntegerText is what Java's BigInteger(String) takes: a sign, then
// digits of the radix.
var bigIntegerText = regexp.MustCompile(`^[+-]?[0-9A-Za-z]+$`)

// bigIntegerStatics are BigInteger's constructor and valueOf.
var bigIntegerStatics = []*Builtin{
	{Name: "BigInteger.", Sig: "(BigInteger. s) (BigInteger. s radix)", Doc: "the BigInteger s spells, as Java's", Category: "idiom", reach: javaForm,
		aliases: []string{"java.math.BigInteger."}, MinArgs: 1, MaxArgs: 2, Cost: cost(scans(arg(0)), builds), Fn: func(th *Thread, args []Value) (Value, error) {
			s, ok := args[0].(String)
			if !ok {
				// BigInteger has constructors of arrays and of numbers of
				// bits, and none of this value's class.
				return nil, typeErrorf("BigInteger.", "a string", args[0]).asJava("IllegalArgumentException", "")
			}
			radix := Int(10)
			if len(args) == 2 {
				r, err := javaIntParam("BigInteger.", args[1], 32)
				if err != nil {
					return nil, err
				}
				if r < 2 || r > 36 {
					return nil, Errorf(executionError, "BigInteger.: radix %d out of range", int64(r)).asJava("NumberFormatException", "Radix out of range")
				}
				radix = r
			}
			n, ok := new(big.Int).SetString(string(s), int(radix))
			if !bigIntegerText.MatchString(string(s)) || !ok {
				message := `For input string: "` + string(s) + `"`
				if radix != 10 {
					message += " under radix " + strconv.Itoa(int(radix))
				}
				if len(s) == 0 || s == "+" || s == "-" {
					message = "Zero length BigInteger"
				}
				return nil, Errorf(executionError, "BigInteger.: %s", message).asJava("NumberFormatException", message)
			}
			return newBigInteger(n), nil
		}},
	{Name: "BigInteger/valueOf", Sig: "(BigInteger/valueOf n)", Doc: "the BigInteger of the long n", Category: "idiom", reach: javaStatic,
		aliases: []string{"java.math.BigInteger/valueOf"}, MinArgs: 1, MaxArgs: 1, Cost: cost(constant), Fn: func(th *Thread, args []Value) (Value, error) {
			n, err := javaIntParam("BigInteger/valueOf", args[0], 64)
			if err != nil {
				return nil, err
			}
			return newBigInteger(big.NewInt(int64(n))), nil
		}},
}

// bigIntegerConstants adds BigInteger's constants to m.
func bigIntegerConstants(m map[string]Value) {
	for name, n := range map[string]int64{"ZERO": 0, "ONE": 1, "TWO": 2, "TEN": 10} {
		m["BigInteger/"+name] = newBigInteger(big.NewInt(n))
		m["java.math.BigInteger/"+name] = newBigInteger(big.NewInt(n))
	}
}

// withBigIntegerMethods gives the method rows a BigInteger receiver: a row
// of that name runs the BigInteger method when its receiver is one, and
// what it did before otherwise; a method no row has is a row of its own.
func withBigIntegerMethods(sections [][]*Builtin) [][]*Builtin {
	out := receiverMethods{
		names: slices.Sorted(maps.Keys(bigIntegerMethods)),
		want:  "a receiver of this method",
		arities: func(name string) (int, int, bool) {
			m, ok := bigIntegerMethods[name]
			return m.minArgs + 1, m.maxArgs + 1, ok
		},
		call: func(th *Thread, name string, args []Value) (Value, bool, error) {
			x, ok := args[0].(*BigInt)
			if !ok || !x.integer {
				return nil, false, nil
			}
			v, err := callBigIntegerMethod(th, name, bigIntegerMethods[name], x.n, args)
			return v, true, err
		},
		own: func(name string) *Builtin {
			m := bigIntegerMethods[name]
			return &Builtin{Name: name, Sig: "(" + name + " biginteger ...)", Doc: "the BigInteger method, as Java's", Category: "idiom", reach: javaForm,
				MinArgs: m.minArgs + 1, MaxArgs: m.maxArgs + 1, Cost: cost(perArg(allArgs), chargedInBody("the words of the integers (bigWorkWords)")),
				Fn: func(th *Thread, args []Value) (Value, error) {
					x, ok := args[0].(*BigInt)
					if args[0] == Nil {
						return nil, nilReceiver(name)
					}
					if !ok || !x.integer {
						return nil, noMethod(name, "a BigInteger receiver", args).
							WithHint("%s is a method of BigInteger: make one with (biginteger x)", name)
					}
					return callBigIntegerMethod(th, name, m, x.n, args)
				}}
		},
	}.splice(sections)
	return append(out, bigIntegerStatics)
}

// receiverMethods are the methods of one Java class, spliced into the
// method rows of the same names: a row runs the class's method when call
// takes its receiver, and what it did before otherwise (a count of
// arguments it has no overload for is Clojure's "No matching method"); a
// name no row has gets the row own makes.
type receiverMethods struct {
	names []string // sorted
	want  string   // what the receiver of a row of another arity must be
	// arities is the count of arguments, the receiver's included, the
	// class's method of that name takes.
	arities func(name string) (minArgs, maxArgs int, ok bool)
	// call runs the class's method, or says (false) that the receiver is
	// not of the class.
	call func(th *Thread, name string, args []Value) (Value, bool, error)
	own  func(name string) *Builtin
}

func (r receiverMethods) splice(sections [][]*Builtin) [][]*Builtin {
	seen := map[string]bool{}
	out := make([][]*Builtin, 0, len(sections)+1)
	for _, rows := range sections {
		rows = slices.Clone(rows)
		for i, b := range rows {
			lo, hi, ok := r.arities(b.Name)
			if !ok || b.reach != javaForm {
				continue
			}
			seen[b.Name] = true
			wrapped := *b
			wrapped.MinArgs, wrapped.MaxArgs = min(b.MinArgs, lo), max(b.MaxArgs, hi)
			wrapped.Fn = func(th *Thread, args []Value) (Value, error) {
				if v, mine, err := r.call(th, b.Name, args); mine {
					return v, err
				}
				if len(args) < b.MinArgs || len(args) > b.MaxArgs {
					return nil, noMethod(b.Name, r.want, args)
				}
				return b.Fn(th, args)
			}
			rows[i] = &wrapped
		}
		out = append(out, rows)
	}
	var own []*Builtin
	for _, name := range r.names {
		if !seen[name] {
			own = append(own, r.own(name))
		}
	}
	return append(out, own)
}

func callBigIntegerMethod(th *Thread, name string, m bigIntegerMethod, x *big.Int, args []Value) (Value, error) {
	if len(args)-1 < m.minArgs || len(args)-1 > m.maxArgs {
		return nil, noMethod(name, "a BigInteger receiver", args)
	}
	// Every method reads its receiver whole at least once (negate, abs,
	// compareTo and bitLength of a negative one copy or scan it).
	if err := chargeBigScan(th, x); err != nil {
		return nil, err
	}
	return m.fn(th, name, x, args)
}
