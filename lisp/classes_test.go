package lisp

import (
	"context"
	"strings"
	"testing"
)

// What type and class return, and how instance? answers, is judged
// against Clojure by the idiom corpus (family "type"); these tests cover
// the wire and the names refused.

// TestClassOnTheWire: a class is written as its name, which reads back as
// the same class, alone or inside data, and the map classes type prints
// read back too although programs may not name them.
func TestClassOnTheWire(t *testing.T) {
	for _, src := range []string{
		`(type 1)`,
		`{:t (type "s"), :ts [(class :k) (type {})]}`,
		`(type (zipmap (range 9) (range 9)))`,
		`#{(type 1) (type 2.0)}`,
	} {
		res := run(t, src, Env{})
		if res.Err != nil {
			t.Fatalf("%s: %v", src, res.Err)
		}
		wire := WireText(res.Value)
		back, err := ReadValue(context.Background(), wire, 0, 0)
		if err != nil {
			t.Fatalf("%s: %s does not read back: %v", src, wire, err)
		}
		if !Equal(back, res.Value) || WireText(back) != wire {
			t.Errorf("%s: %s read back as %s", src, wire, WireText(back))
		}
		if _, err := EncodeJSON(res.Value); err == nil {
			t.Errorf("%s: a class has a JSON form", src)
		}
	}
}

// TestClassDefined: a definition may hold a class, as a result may, and
// the next turn reads it back from memory.
func TestClassDefined(t *testing.T) {
	res := run(t, `(def kinds {:n (type 1)}) (:n kinds)`, Env{})
	if res.Err != nil {
		t.Fatalf("defining a class: %v", res.Err)
	}
	next := run(t, `(= (:n kinds) (type 2))`, Env{Prelude: res.Memory})
	if next.Err != nil || next.Value != Bool(true) {
		t.Errorf("the class read back from memory: %v, %v", Repr(next.Value), next.Err)
	}
}

// TestClassNamesRefused: the names no value here can be compared with
// exactly are refused with a hint, in programs; type refuses functions.
func TestClassNamesRefused(t *testing.T) {
	for src, want := range map[string]string{
		`(= (type {}) clojure.lang.PersistentArrayMap)`: "(map? x)",
		`(instance? clojure.lang.PersistentHashMap {})`: "(map? x)",
		`(instance? Integer 1)`:                         "(integer? x)",
		`(= (type \a) java.lang.Character)`:             "one-character strings",
		`(type inc)`:                                    "(fn? x)",
		`(class (fn [x] x))`:                            "(fn? x)",
		`(instance? "String" "x")`:                      "(instance? String x)",
		`(type (range))`:                                "",
	} {
		res := run(t, src, Env{})
		if res.Err == nil {
			t.Errorf("%s: got %s, want an error", src, Repr(res.Value))
			continue
		}
		if res.Err.Hint == "" || !strings.Contains(res.Err.Hint, want) {
			t.Errorf("%s: %v, want a hint with %q", src, res.Err, want)
		}
	}
}

// TestInstanceOfEveryKnownClass: every class and interface instance? knows
// is answered for every kind of value, and a class is an instance of
// exactly what classSupers lists for it.
func TestInstanceOfEveryKnownClass(t *testing.T) {
	values := map[javaClass]string{
		"java.lang.Long": "1", "java.lang.Double": "1.5", "java.lang.String": `"s"`, "java.lang.Boolean": "true",
		"clojure.lang.Keyword": ":k", "clojure.lang.Symbol": "'x", "clojure.lang.PersistentVector": "[1]",
		"clojure.lang.PersistentList": "'(1)", "clojure.lang.PersistentList$EmptyList": "()",
		"clojure.lang.PersistentArrayMap": "{:a 1}", "clojure.lang.PersistentHashMap": "(zipmap (range 9) (range 9))",
		"clojure.lang.PersistentTreeMap": "(sorted-map)", "clojure.lang.PersistentHashSet": "#{}",
		"clojure.lang.PersistentTreeSet": "(sorted-set)", "java.util.regex.Pattern": `#"x"`, "clojure.lang.Atom": "(atom 1)",
		"clojure.lang.Var": "#'f", "clojure.lang.ExceptionInfo": `(ex-info "x" {})`, "java.lang.Class": "String",
		fnClass: "f",
	}
	for class, src := range values {
		supers := map[javaClass]bool{}
		for _, s := range classSupers[class] {
			supers[s] = true
		}
		for known, nameable := range knownClasses {
			if !nameable {
				continue
			}
			if strings.HasPrefix(string(known), "clojure.lang.Persistent") && strings.HasSuffix(string(known), "Map") && known != "clojure.lang.PersistentTreeMap" {
				continue // not nameable in programs
			}
			prog := "(defn f [x] x) (instance? " + string(known) + " " + src + ")"
			res := run(t, prog, Env{})
			if res.Err != nil {
				t.Fatalf("%s: %v", prog, res.Err)
			}
			want := supers[known] || known == class
			if res.Value != boolValue(want) {
				t.Errorf("%s: %s, want %v", prog, Repr(res.Value), want)
			}
		}
	}
}
