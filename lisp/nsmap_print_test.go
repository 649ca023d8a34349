package lisp

import "testing"

// TestNamespaceMapPrinting: a program's own text of a map whose keys share
// one namespace is #:ns{...}, as Clojure run through clojure.main prints
// it; the host's text of a result keeps every key whole, and both read
// back as the same map.
func TestNamespaceMapPrinting(t *testing.T) {
	cases := []struct{ src, want string }{
		{`(pr-str {:a/x 1 :a/y {:b/z 2}})`, `#:a{:x 1, :y #:b{:z 2}}`},
		{`(pr-str {:a/x 1 :b/y 2} {:a/x 1 :y 2} {"a/x" 1} {})`, `{:a/x 1, :b/y 2} {:a/x 1, :y 2} {"a/x" 1} {}`},
		{`(str [{'a/x 1 :a/y 2}])`, `[#:a{x 1, :y 2}]`},
		{`(with-out-str (println {:a/x "s"}))`, "#:a{:x s}\n"},
		{`(defrecord P [x]) (pr-str (->P {:a/x 1}))`, `#user.P{:x #:a{:x 1}}`},
	}
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err != nil || res.Value != String(c.want) {
			t.Errorf("%s: got %s %v, want %q", c.src, Repr(res.Value), res.Err, c.want)
		}
	}
	res := run(t, `{:a/x 1 :a/y 2}`, Env{})
	if got := Repr(res.Value); got != `{:a/x 1, :a/y 2}` {
		t.Errorf("a result prints %s, want its keys whole", got)
	}
	back := run(t, `(= #:a{:x 1, :y 2} {:a/x 1 :a/y 2})`, Env{})
	if back.Value != Bool(true) {
		t.Errorf("#:a{...} does not read back as the map it printed: %v %v", back.Value, back.Err)
	}
}

// TestPrintNamespaceMapsBinding: *print-namespace-maps* is true, and a
// binding of it to false prints a map whose keys share a namespace whole
// for its body only, also when the body fails and the failure is caught.
func TestPrintNamespaceMapsBinding(t *testing.T) {
	for src, want := range map[string]string{
		`*print-namespace-maps*`:                                                                                 `true`,
		`(binding [*print-namespace-maps* false] (pr-str {:a/b 1}))`:                                             `"{:a/b 1}"`,
		`[(binding [*print-namespace-maps* false] (str {:a/b 1})) (str {:a/b 1})]`:                               `["{:a/b 1}" "#:a{:b 1}"]`,
		`(try (binding [*print-namespace-maps* false] (/ 1 0)) (catch ArithmeticException e (pr-str {:a/b 1})))`: `"#:a{:b 1}"`,
		`(binding [clojure.core/*print-namespace-maps* false] clojure.core/*print-namespace-maps*)`:              `false`,
	} {
		res := run(t, src, Env{})
		if res.Err != nil || Repr(res.Value) != want {
			t.Errorf("%s: got %v %v, want %s", src, Repr(res.Value), res.Err, want)
		}
	}
}
