package lisp

import (
	"context"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// valueTypesOfPackage type-checks the package's source and returns the
// name of every concrete type T for which T or *T implements Value,
// whether it declares TypeName or gets it by embedding another value,
// with the valueKind methods it lacks or only inherits by embedding. A
// type that embeds a value inherits that value's parts, text and heap
// shape, which describe the embedded value, not what the new type holds:
// each kind must declare its own.
func valueTypesOfPackage(t *testing.T) map[string][]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("lisp", fset, files, nil)
	if err != nil {
		t.Fatalf("type-checking the package: %v", err)
	}
	lookup := func(name string) *types.Interface {
		obj := pkg.Scope().Lookup(name)
		if obj == nil {
			t.Fatalf("the package has no %s", name)
		}
		return obj.Type().Underlying().(*types.Interface)
	}
	value, kind := lookup("Value"), lookup("valueKind")
	own := []string{"walkParts", "writeText", "heapShape"}
	found := map[string][]string{}
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || types.IsInterface(tn.Type()) {
			continue
		}
		typ := tn.Type()
		if !types.Implements(typ, value) && !types.Implements(types.NewPointer(typ), value) {
			continue
		}
		var lacks []string
		ms := types.NewMethodSet(types.NewPointer(typ))
		for _, m := range own {
			sel := ms.Lookup(pkg, m)
			switch {
			case sel == nil:
				lacks = append(lacks, m)
			case len(sel.Index()) > 1:
				lacks = append(lacks, m+" (inherited by embedding)")
			}
		}
		if len(lacks) == 0 && !types.Implements(types.NewPointer(typ), kind) {
			lacks = append(lacks, "valueKind")
		}
		found[name] = lacks
	}
	return found
}

// TestEveryValueKindCarriesItsBehaviour fails for a type of the package
// that can be a value (it implements Value, itself or through a value it
// embeds) and does not declare each method of valueKind itself: what it
// holds for the walk, how it prints and its heap shape. The types are
// found by type-checking the package, not listed: a kind added tomorrow
// is checked the day it is added, and TestValueKindsHideNoValues then
// asks for a sample of it.
func TestEveryValueKindCarriesItsBehaviour(t *testing.T) {
	found := valueTypesOfPackage(t)
	if len(found) < 30 {
		t.Fatalf("found only %d value types: the test no longer reads the package", len(found))
	}
	var kinds []string
	for k, lacks := range found {
		kinds = append(kinds, k)
		for _, m := range lacks {
			t.Errorf("value type %s does not declare %s (see valueKind, kinds.go)", k, m)
		}
	}
	sort.Strings(kinds)
	t.Logf("%d value kinds: %s", len(kinds), strings.Join(kinds, " "))
}

// kindSamples are values of every kind, made as programs make them where
// a program can, with the features of the last releases among them:
// records, namespaced maps, sorted collections with a comparator, sub-
// vectors, set views, big integers and decimals of many digits, dates,
// regexes the backtracking engine runs, memoized functions, partials,
// protocols with several arities, lazy sequences over read-string's
// result, padded partitions, metadata, exceptions with a cause.
func kindSamples(t *testing.T) []Value {
	t.Helper()
	var values []Value
	for _, src := range []string{
		`[nil true 1 2.5 1N 123456789012345678901234567890N (biginteger "98765432109876543210987654321") 1.50M
		  3.14159265358979323846264338327950288M (float 0.1) "s\n" :k :a/b (keyword "a b") 'sym 'ns/sym
		  #"a+" #"(?<=a)b(?!c)" #"(a)\1" (re-pattern "(?>a+)b") inc tool/get
		  [1] '(1 2) () {:a 1} #{1} {:a/x 1 :a/y 2} (subvec [1 2 3 4] 1 3) (keys {:a 1}) (set (vals {:a 1 :b 2}))
		  (sorted-map-by > 1 :a 2 :b) (sorted-set-by (fn [a b] (compare b a)) 1 2) (sorted-set 3 1)
		  (partition 3 3 [:pad] (range 7)) (LocalDate/parse "2024-02-29") (java.util.Date. 1700000000000)
		  (fn [x] x) (let [big [1 2 3]] (fn [] big)) (comp inc inc) (partial + 1) (memoize (fn [x] [x x]))
		  (every-pred odd?) (some-fn odd?) (all-of odd? :a) (none-of even?) (where :a = 1) (drop 1 (range)) (map inc (read-string "(1 2 3)"))
		  (iterate inc 0) (map inc (range)) (cons 1 (range))
		  (lazy-seq (cons 1 nil)) (map inc) (comp (drop 1) (take 3))
		  (with-meta [1 2] {:m 1}) (with-meta {:a 1} {:m [2]}) (with-meta (fn [] 1) {:doc "d"})]`,
		`(defrecord P [x y]) (assoc (->P 1 [2 {:k 3}]) :z #{4})`,
		`(defprotocol Shape (area [s] [s k])) (extend-type Long Shape (area ([s] s) ([s k] (* s k)))) area`,
		`(defmulti g :k) (defmethod g :a [m] 1) g`,
	} {
		res, err := Eval(context.Background(), src, Env{Tools: []string{"get"}})
		if err != nil || res.Value == nil {
			t.Fatalf("%s: %v %v", src, err, res)
		}
		if v, ok := res.Value.(*Vector); ok && strings.HasPrefix(src, "[") {
			values = append(values, v.Elems()...)
		} else {
			values = append(values, res.Value)
		}
	}
	// What lives only inside the evaluator: code forms and the values a
	// reduction, a transducer or a call passes around.
	// And what lives only while a program runs, which no result can be:
	// atoms, transients, exceptions with a cause, (reduced x), a
	// transducer as a builtin's row applies it.
	inner := &thrown{message: "inner", data: mustParse(t, "{:b 2}").(*Map), kind: executionError}
	values = append(values, &atom{value: NewVector([]Value{Int(1)}), validator: builtinNamed("number?")},
		&atom{delay: true, thunk: values[0]}, &transient{coll: NewVector([]Value{Int(1)})},
		&thrown{message: "outer", data: mustParse(t, "{:a [1]}").(*Map), cause: inner, kind: executionError},
		&reducedValue{Int(1)}, &transducer{name: "map"})
	return append(values, &varRef{Name: "x"}, javaClass("String"),
		&list{Elems: []Value{symbol("f"), Int(1)}}, &mapForm{Elems: []Value{Keyword("a"), Int(1)}}, &setForm{Elems: []Value{Int(1)}},
		&metaForm{Meta: &mapForm{Elems: []Value{Keyword("m"), Int(1)}}, Form: symbol("x")},
		&stepFn{}, recurMarker, symbolLookup{symbol("s")}, opaqueValue{Int(1)})
}

// goHeld is a value found in another's Go state: the path of fields to it.
type goHeld struct {
	path string
	v    Value
}

// valuesInGoState returns the values v's Go state holds without another
// value between (what it holds through its fields, slices, maps and
// pointers, stopping at each value found), and the paths of the Go
// functions it holds, whose captured state reflection cannot see.
func valuesInGoState(v Value) (held []goHeld, funcs []string) {
	valueType := reflect.TypeFor[Value]()
	seen := map[uintptr]bool{}
	var visit func(rv reflect.Value, path string, root bool)
	visit = func(rv reflect.Value, path string, root bool) {
		if rv.CanAddr() { // read unexported fields too
			rv = reflect.NewAt(rv.Type(), unsafe.Pointer(rv.UnsafeAddr())).Elem()
		}
		if !root && rv.Kind() != reflect.Interface && rv.Type().Implements(valueType) {
			if rv.Kind() != reflect.Pointer || !rv.IsNil() {
				held = append(held, goHeld{path, rv.Interface().(Value)})
			}
			return
		}
		switch rv.Kind() {
		case reflect.Interface:
			if !rv.IsNil() {
				visit(reflect.ValueOf(rv.Interface()), path, false)
			}
		case reflect.Pointer:
			if rv.IsNil() || seen[rv.Pointer()] {
				return
			}
			seen[rv.Pointer()] = true
			visit(rv.Elem(), path, false)
		case reflect.Struct:
			for i := range rv.NumField() {
				visit(rv.Field(i), path+"."+rv.Type().Field(i).Name, false)
			}
		case reflect.Slice, reflect.Array:
			for i := range rv.Len() {
				visit(rv.Index(i), path+"[]", false)
			}
		case reflect.Map:
			for it := rv.MapRange(); it.Next(); {
				visit(it.Key(), path+"{key}", false)
				visit(it.Value(), path+"{}", false)
			}
		case reflect.Func:
			if !rv.IsNil() {
				funcs = append(funcs, path)
			}
		}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		seen[rv.Pointer()] = true
		rv = rv.Elem()
	} else { // a copy that can be addressed, so that its fields can be read
		c := reflect.New(rv.Type()).Elem()
		c.Set(rv)
		rv = c
	}
	visit(rv, kindName(v), true)
	return held, funcs
}

// hiddenFields are the places in a kind's Go state where it holds values
// that are not its parts, each with why the walk need not reach them.
// The paths are those valuesInGoState reports, matched as prefixes.
var hiddenFields = map[string]string{
	"closure.lam": "the function's code: the constants and forms of the program it was read from, " +
		"printed as its source (lam.form), never changed, and shared only as code is",
	"Map.traits.class.fields": "the record type's field names, keywords that name it in its text and are shared by its instances",
	"Map.tail.order.by": "a sorted map's comparator, frozen when the map is made (comparatorOrder); it travels as a plain map, " +
		"counted in the footprint of a kept value (FootprintUpTo), and source whose comparator holds an atom is refused when read (sourceValue)",
	"Set.tail.order.by":   "a sorted set's comparator, as a sorted map's",
	"wherePredicate.path": "the field keys of a where predicate's path, plain scalars (whereNode.eval refuses any other), written in its text",
	"Builtin.":            "a builtin is a row of the package's table, shared by every program and never changed",
	"symbolLookup.symbol": "the symbol being called, which exists only for the call",
	"opaqueValue.Value":   "a value of a type from outside the package, which holds nothing the package knows",
	"atom.":               "an atom lives only while its program runs: it is never kept, emitted or shared (sourceValue, checkResultKind)",
	"transient.":          "a transient lives only while its program runs, as an atom",
	"thrown.":             "an exception lives only while its program runs, as an atom",
	"reducedValue.":       "(reduced x) lives only inside a reduction",
}

// hiddenFuncs are the Go functions kinds hold, whose captured state
// reflection cannot see: each is made from the kind's parts alone.
var hiddenFuncs = map[string]string{
	"Builtin.":                 "a builtin's code, a row of the package's table",
	"combined.fn":              "the combinator's code, over the arguments it holds as its parts (args)",
	"infiniteSeq.origin.start": "a fresh generator per reader, over the sequence's arguments (lazy.go, derived)",
	"closure.lam":              "the compiled code's operators",
	"transducer.apply":         "a transducer is the builtin's row applied to a reducing function; it lives only while its program runs",
	"stepFn.":                  "a reducing function lives only inside a reduction",
}

// TestValueKindsHideNoValues: every value a kind holds in its Go state
// is one of its parts (walkParts, or its metadata), which the walk
// reaches, freezes, prints and measures, or sits in one of hiddenFields
// for the reason given there; every Go function it holds is one of
// hiddenFuncs. Every kind TestEveryValueKindCarriesItsBehaviour finds
// must have a sample: a new kind fails here until it has one, and then
// until what it holds is its parts.
func TestValueKindsHideNoValues(t *testing.T) {
	samples := kindSamples(t)
	sampled := map[string]bool{}
	listed := func(table map[string]string, path string) bool {
		for prefix := range table {
			if strings.HasPrefix(path, prefix) {
				return true
			}
		}
		return false
	}
	for _, v := range samples {
		sampled[kindName(v)] = true
		elems, entries, _ := kindOf(v).walkParts()
		parts := append([]Value{}, elems...)
		for _, e := range entries {
			parts = append(parts, e.Key, e.Val)
		}
		if m := metaOf(v); m != nil {
			parts = append(parts, m)
		}
		held, funcs := valuesInGoState(v)
		for _, h := range held {
			isPart := false
			for _, p := range parts {
				if identical(p, h.v) {
					isPart = true
					break
				}
			}
			if !isPart && !listed(hiddenFields, h.path) {
				t.Errorf("%s holds %s at %s, which is not one of its parts (walkParts) nor listed in hiddenFields",
					Repr(v), Repr(h.v), h.path)
			}
		}
		for _, f := range funcs {
			if !listed(hiddenFuncs, f) {
				t.Errorf("%s holds a Go function at %s, whose captured values the walk cannot see; hold them as parts", Repr(v), f)
			}
		}
	}
	kinds := valueTypesOfPackage(t)
	for kind := range kinds {
		if !sampled[kind] {
			t.Errorf("no sample of the value kind %s in kindSamples", kind)
		}
	}
	t.Logf("%d samples of the %d value kinds", len(samples), len(kinds))
}

// identical reports whether a and b are the same value: the same pointer,
// or equal scalars.
func identical(a, b Value) bool {
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	if ra.Kind() == reflect.Pointer && rb.Kind() == reflect.Pointer {
		return ra.Pointer() == rb.Pointer()
	}
	return ra.Type() == rb.Type() && ra.Type().Comparable() && a == b
}

// TestComparatorStateIsNeverShared: a sorted collection's comparator is
// called by every reader of the collection, and is no part of it; read
// from source, a comparator holding an atom (directly, or through a
// sorted collection it captured) is refused, as a function holding one
// is, since the server shares what it read with every caller that sends
// the same text. Before, the comparator's atom was shared, and two
// callers conj-ing onto the collection raced on it.
func TestComparatorStateIsNeverShared(t *testing.T) {
	for _, src := range []string{
		`(let [s (sorted-set-by (let [a (atom 0)] (fn [x y] (swap! a inc) (compare x y))) 1 2 3)] (fn [] (conj s 9)))`,
		`(let [m (sorted-map-by (let [v (volatile! 0)] (fn [x y] (vswap! v inc) (compare x y))) 1 :a)] (fn [] (assoc m 2 :b)))`,
		`(let [inner (sorted-set-by (let [a (atom 0)] (fn [x y] (swap! a inc) (compare x y))) 1)
		       s (sorted-set-by (fn [x y] (count (conj inner x)) (compare x y)) 1 2)] (fn [] (conj s 3)))`,
	} {
		_, err := ReadValue(context.Background(), src, 0, 0)
		if err == nil || !strings.Contains(err.Error(), "lives only while the program that made it runs") {
			t.Errorf("%s: read as %v, want it refused for the state its comparator holds", src, err)
		}
	}
	// A comparator without state is read, and shared.
	v, err := ReadValue(context.Background(), `(let [s (sorted-set-by (fn [x y] (compare y x)) 1 2 3)] (fn [] (conj s 9)))`, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				res, err := Eval(context.Background(), "(*1)", Env{PreviousResults: []Value{v}})
				if err != nil || res.Err != nil || Repr(res.Value) != "#{9 3 2 1}" {
					t.Errorf("(*1): %v %v %v", res, err, res.Err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// kindName is the name of v's Go type in the package.
func kindName(v Value) string {
	return strings.TrimPrefix(strings.TrimPrefix(fmt.Sprintf("%T", v), "*"), "lisp.")
}
