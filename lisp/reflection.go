package lisp

import "strings"

// Clojure compiles a call of an overloaded Java static (Math/abs has an
// overload for int, long, float and double) to the overload its
// arguments' static types pick; when one argument has no static type (a
// function's parameter, a value taken from a collection, the result of a
// function that returns an Object), the call goes through reflection at
// run time. Clojure 1.11's reflector takes a Long for an int parameter as
// readily as for a long one and, with two overloads equally good, keeps
// the first the JVM lists: for abs, max, min and four of the *Exact
// methods that is the int overload, so the Long is cut to 32 bits.
// (defn f [a] (Math/abs a)) (f 5000000000) is 705032704 in Clojure, while
// (Math/abs 5000000000) is 5000000000. A Long beside a Double matches no
// overload at all: (Math/max 1 2.5) throws IllegalArgumentException.
//
// The analysis keeps which forms Clojure types as a primitive number, so
// that such a call, made with any other argument, runs as the reflector
// runs it.

// reflectedAsInt are the statics whose reflected call of Longs picks the
// int overload, by Clojure 1.11 on JDK 17 (probed: decrementExact,
// negateExact, floorDiv and floorMod pick the long one).
var reflectedAsInt = map[string]bool{
	"Math/abs": true, "Math/max": true, "Math/min": true,
	"Math/addExact": true, "Math/subtractExact": true, "Math/multiplyExact": true,
	"Math/incrementExact": true,
}

// primitiveResults are the functions whose call Clojure types as a
// primitive number when every argument is one.
var primitiveResults = map[string]bool{
	"+": true, "-": true, "*": true, "inc": true, "dec": true,
	"quot": true, "rem": true, "mod": true, "max": true, "min": true, "abs": true,
	"unchecked-add": true, "unchecked-subtract": true, "unchecked-multiply": true,
	"unchecked-inc": true, "unchecked-dec": true, "unchecked-negate": true,
	"Math/abs": true, "Math/max": true, "Math/min": true,
	"Math/addExact": true, "Math/subtractExact": true, "Math/multiplyExact": true,
	"Math/incrementExact": true, "Math/decrementExact": true, "Math/negateExact": true,
	"Math/floorDiv": true, "Math/floorMod": true,
}

// primitiveAnyArgs are the functions whose call Clojure types as a
// primitive number whatever their argument.
var primitiveAnyArgs = map[string]bool{
	"count": true, "long": true, "int": true, "double": true,
	"Long/parseLong": true, "Integer/parseInt": true, "Double/parseDouble": true,
}

// numberClasses are the classes whose static fields (MAX_VALUE, PI, NaN)
// are primitive numbers.
var numberClasses = map[string]bool{
	"Long": true, "Integer": true, "Short": true, "Byte": true, "Double": true, "Float": true, "Math": true,
}

// primitiveDepth bounds how deep primitiveForm looks into a form, so that
// nested calls are not walked again at each level.
const primitiveDepth = 8

// primitiveForm reports whether Clojure gives form a primitive numeric
// static type: a number literal, a let or loop local bound to one, or an
// arithmetic call on such forms.
func (c *compiler) primitiveForm(form Value, depth int) bool {
	switch f := form.(type) {
	case Int, Float:
		return true
	case symbol:
		if lv := c.findLocal(string(f)); lv != nil {
			return lv.primitive
		}
		class, _, field := strings.Cut(strings.TrimPrefix(string(f), "java.lang."), "/")
		return field && numberClasses[class] // Long/MAX_VALUE, Math/PI
	case *list:
		if depth >= primitiveDepth || len(f.Elems) == 0 {
			return false
		}
		head, ok := f.Elems[0].(symbol)
		if !ok || c.findLocal(string(head)) != nil || c.names.isUser(string(head)) {
			return false
		}
		if primitiveAnyArgs[string(head)] {
			return true
		}
		if !primitiveResults[string(head)] || len(f.Elems) == 1 {
			return false
		}
		return c.primitiveForms(f.Elems[1:], depth+1)
	}
	return false
}

func (c *compiler) primitiveForms(forms []Value, depth int) bool {
	for _, a := range forms {
		if !c.primitiveForm(a, depth) {
			return false
		}
	}
	return true
}

// reflectedCall gives the builtin a call of b, named head, with the
// argument forms runs: b itself unless head is one of reflectedAsInt and
// an argument has no primitive static type, else b as Clojure's reflector
// calls it (reflectAsInt).
func (c *compiler) reflectedCall(head Value, b *Builtin, argForms []Value) *Builtin {
	name, ok := head.(symbol)
	if !ok || !reflectedAsInt[strings.TrimPrefix(string(name), "java.lang.")] {
		return b
	}
	if c.primitiveForms(argForms, 0) {
		return b
	}
	qualified := strings.TrimPrefix(string(name), "java.lang.")
	r := *b
	r.Fn = func(th *Thread, args []Value) (Value, error) {
		return reflectAsInt(th, b, qualified, args)
	}
	return &r
}

// reflectAsInt calls b, the static named name, as Clojure's reflector
// does: Longs are cut to an int and the result is an int, with the int
// overload's overflow. (A Long beside a Double matches no overload, which
// b refuses itself.)
func reflectAsInt(th *Thread, b *Builtin, name string, args []Value) (Value, error) {
	for _, a := range args {
		if _, ok := a.(Int); !ok {
			return b.Fn(th, args) // a double's overload, or none (b refuses)
		}
	}
	narrowed := make([]Value, len(args))
	for i, a := range args {
		narrowed[i] = Int(int32(a.(Int)))
	}
	v, err := b.Fn(th, narrowed)
	if err != nil {
		return nil, err
	}
	n, ok := v.(Int)
	switch {
	case !ok || n == Int(int32(n)):
		return v, nil
	case name == "Math/abs":
		return Int(int32(n)), nil // abs(Integer.MIN_VALUE) is itself
	}
	return nil, Errorf(arithmeticError, "%s: the int overload Clojure's reflection picks overflows", name).
		WithHint("convert the argument with (long x) where the call is made, so that the long overload is taken").
		asJava("ArithmeticException", "integer overflow")
}
