package lisp

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

// newTestThread returns a thread with the default limits.
func newTestThread() *Thread { return newThread(context.Background(), DefaultLimits()) }

// callBuiltin looks up and calls a builtin through the thread, as the
// evaluator does.
func callBuiltin(th *Thread, name string, args ...Value) (Value, error) {
	b, ok := lookupBuiltin(name)
	if !ok {
		return nil, errors.New("no builtin " + name)
	}
	return th.call(b, args)
}

// builtinCase is one call and the Repr of its expected result, or the kind
// of error it must fail with (want is then a substring of the message).
type builtinCase struct {
	name string
	args []Value
	want string
	kind ErrorKind
}

func runBuiltinCases(t *testing.T, cases []builtinCase) {
	t.Helper()
	for _, c := range cases {
		th := newTestThread()
		got, err := callBuiltin(th, c.name, c.args...)
		label := "(" + c.name
		for _, a := range c.args {
			label += " " + Repr(a)
		}
		label += ")"
		if c.kind != "" {
			if err == nil {
				t.Errorf("%s = %s, want %s error", label, Repr(got), c.kind)
				continue
			}
			e := asError(err)
			if e.Kind != c.kind || !strings.Contains(e.Message, c.want) {
				t.Errorf("%s failed with %v, want %s error containing %q", label, err, c.kind, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s failed: %v", label, err)
			continue
		}
		if r := Repr(got); r != c.want {
			t.Errorf("%s = %s, want %s", label, r, c.want)
		}
	}
}

// Short constructors for test values.
func vec(xs ...Value) *Vector { return NewVector(xs) }
func set(xs ...Value) *Set    { return NewSet(xs) }
func kw(s string) Keyword     { return Keyword(s) }
func str(s string) String     { return String(s) }
func fl(f float64) Float      { return Float(f) }
func ints(ns ...int64) *Vector {
	out := make([]Value, len(ns))
	for i, n := range ns {
		out[i] = Int(n)
	}
	return NewVector(out)
}

// hashMap builds a map from alternating keys and values.
func hashMap(kvs ...Value) *Map {
	b := NewMapBuilder(len(kvs) / 2)
	for i := 0; i+1 < len(kvs); i += 2 {
		b.Set(kvs[i], kvs[i+1])
	}
	return b.Map()
}

func builtinFn(name string) Value {
	b, ok := lookupBuiltin(name)
	if !ok {
		panic("no builtin " + name)
	}
	return b
}

func TestBuiltinsDocumentThemselves(t *testing.T) {
	categories := map[string]bool{}
	for _, c := range promptCategories {
		categories[c.key] = true
	}
	categories["idiom"] = true // beyond the specification, not in the prompt
	list := Builtins()
	if len(list) == 0 {
		t.Fatal("no builtins")
	}
	for i, b := range list {
		if i > 0 && list[i-1].Name >= b.Name {
			t.Errorf("Builtins() not sorted by name at %q, %q", list[i-1].Name, b.Name)
		}
		if !strings.HasPrefix(b.Sig, "("+b.Name+" ") && b.Sig != "("+b.Name+")" {
			t.Errorf("%s: Sig %q does not start with the call of %s", b.Name, b.Sig, b.Name)
		}
		if b.Doc == "" || strings.Contains(b.Doc, "\n") {
			t.Errorf("%s: Doc must be one non-empty line, got %q", b.Name, b.Doc)
		}
		if !categories[b.Category] {
			t.Errorf("%s: unknown category %q", b.Name, b.Category)
		}
		if b.MaxArgs >= 0 && b.MaxArgs < b.MinArgs {
			t.Errorf("%s: MaxArgs %d < MinArgs %d", b.Name, b.MaxArgs, b.MinArgs)
		}
		if b.Fn == nil {
			t.Errorf("%s: no Fn", b.Name)
		}
		if got, ok := lookupBuiltin(b.Name); !ok || got != b {
			t.Errorf("LookupBuiltin(%q) does not return the listed builtin", b.Name)
		}
	}
	if _, ok := lookupBuiltin("no-such-function"); ok {
		t.Error("LookupBuiltin found a function that does not exist")
	}
}

// TestBuiltinsSurviveAnyArguments calls every builtin with every arity from
// 0 to 4 over a spread of argument values: whatever it returns, it must not
// panic, and a failure must be an *Error.
func TestBuiltinsSurviveAnyArguments(t *testing.T) {
	samples := []Value{
		Nil, trueValue, Int(0), Int(-3), Int(1 << 62), fl(2.5), fl(-0.0), str(""), str("héllo"), kw("a"),
		ints(1, 2, 3), vec(), hashMap(kw("a"), Int(1)), set(Int(1), str("x")),
		builtinFn("inc"), builtinFn("+"), vec(vec(Int(1), Int(2)), vec(Int(3))),
	}
	for _, b := range Builtins() {
		for arity := 0; arity <= 4; arity++ {
			for i := range samples {
				args := make([]Value, arity)
				for j := range args {
					args[j] = samples[(i+j*7)%len(samples)]
				}
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("(%s %v) panicked: %v", b.Name, args, r)
						}
					}()
					th := newThread(context.Background(), Limits{MaxSteps: 100_000, MaxAllocBytes: 1 << 20, MaxDepth: 50})
					v, err := th.call(b, args)
					if err == nil && v == nil {
						t.Errorf("(%s %v) returned a Go nil value", b.Name, args)
					}
					if err != nil {
						var e *Error
						if !errors.As(err, &e) {
							t.Errorf("(%s %v) returned a foreign error %T: %v", b.Name, args, err, err)
						}
					}
				}()
			}
		}
	}
}

// TestSpecFunctionsImplemented lists the functions of the language
// reference's section 8 tables (and 3.9's set functions), and the Clojure
// functions LLMs commonly write beyond it. and/or (special forms), println
// (evaluator output) and the Java date interop of 8.13 are not builtins.
func TestSpecFunctionsImplemented(t *testing.T) {
	spec := `* + - / < <= = > >= abs apply assoc assoc-in avg-by boolean? ceil char? coll?
		compare concat conj contains? count dec dissoc distinct distinct-by double downcase drop
		drop-while empty? ends-with? entries even? every? ffirst filter find first flatten float
		floor fnext frequencies get get-in group-by identity inc includes? int interleave into
		join juxt keys keyword? last map map-indexed map? mapv max max-by max-key merge min
		min-by min-key mod neg? next nfirst nil? nnext not not-any? not-empty not= nth number?
		odd? parse-double parse-long partition pcalls pluck pmap pos? range re-find re-matches
		re-pattern re-split reduce regex? rem remove replace rest reverse round second
		select-keys seq set? some some? sort sort-by split split-lines starts-with? str string?
		subs sum-by take take-while trim upcase upper-case lower-case update update-in
		update-vals vals vector? zero? zip set vec vector intersection union difference
		boolean? sqrt`
	beyond := `walk prewalk postwalk tree-seq format name keyword comp partial complement
		constantly every-pred some-fn keep int? integer? float? double? rational? nat-int?
		pos-int? neg-int? true? false? sequential? associative? counted? indexed? reversible?
		sorted? seqable? ifn? map-entry? distinct? not-every? quot merge-with update-keys
		zipmap re-seq fnil`
	for _, name := range strings.Fields(spec + " " + beyond) {
		if _, ok := lookupBuiltin(name); !ok {
			t.Errorf("%s is not implemented", name)
		}
	}
}

// fuzzValue builds a value from the fuzzer's bytes: scalars of every kind
// and collections nested a few levels.
func fuzzValue(data []byte, depth int) (Value, []byte) {
	if len(data) == 0 {
		return Nil, data
	}
	tag, data := data[0], data[1:]
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	switch tag % 16 {
	case 0:
		return Nil, data
	case 1:
		return Bool(next()%2 == 0), data
	case 2:
		return Int(int8(next())), data
	case 3:
		return Int(math.MaxInt64 - int64(next())), data
	case 4:
		return Float(float64(int8(next())) / 4), data
	case 5:
		return Float([]float64{math.NaN(), math.Inf(1), math.Inf(-1), -0.0}[next()%4]), data
	case 6:
		n := int(next() % 8)
		n = min(n, len(data))
		s := string(data[:n])
		return String(s), data[n:]
	case 7:
		return Keyword([]string{"a", "b", "name", "x/y"}[next()%4]), data
	case 8:
		return Builtins()[int(next())%len(Builtins())], data
	case 9:
		re, _ := compileRegex("fuzz", []string{`\d+`, `(a)(b)?`, `^$`, `.`}[next()%4])
		return re, data
	}
	if depth > 3 {
		return Int(1), data
	}
	n := int(next() % 5)
	elems := make([]Value, 0, n)
	for range n {
		var v Value
		v, data = fuzzValue(data, depth+1)
		elems = append(elems, v)
	}
	switch tag % 16 {
	case 10, 11:
		return NewSet(elems), data
	case 12, 13:
		b := NewMapBuilder(n / 2)
		for i := 0; i+1 < len(elems); i += 2 {
			b.Set(elems[i], elems[i+1])
		}
		return b.Map(), data
	}
	return NewVector(elems), data
}

// FuzzBuiltins calls a builtin chosen by the input with arguments built from
// the rest of it. No builtin may panic, return a Go nil value, or fail with
// anything but an *Error.
func FuzzBuiltins(f *testing.F) {
	f.Add([]byte{0, 2, 14, 3, 2, 5, 2, 7})
	f.Add([]byte{40, 3, 8, 5, 14, 2, 2, 1, 2, 9})
	f.Add([]byte{100, 2, 6, 4, 'a', ',', 'b', 'c', 6, 1, ','})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		b := Builtins()[int(data[0])%len(Builtins())]
		nargs := int(data[1] % 5)
		data = data[2:]
		args := make([]Value, nargs)
		for i := range args {
			args[i], data = fuzzValue(data, 0)
		}
		th := newThread(context.Background(), Limits{MaxSteps: 20_000, MaxAllocBytes: 1 << 20, MaxDepth: 30})
		v, err := th.call(b, args)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("(%s %v) returned a foreign error %T: %v", b.Name, args, err, err)
			}
			return
		}
		if v == nil {
			t.Fatalf("(%s %v) returned a Go nil value", b.Name, args)
		}
		_ = Repr(v)
	})
}
