package lisp

import (
	"context"
	"strings"
	"testing"
)

// run evaluates src in env; limits left zero are the defaults.
func run(t testing.TB, src string, env Env) *Result {
	t.Helper()
	res, err := Eval(context.Background(), src, env)
	if err != nil {
		t.Fatalf("Eval(%q): unexpected Go error %v", src, err)
	}
	return res
}

func TestEvalForms(t *testing.T) {
	cases := []struct{ src, want string }{
		// literals and collections
		{"nil", "nil"},
		{"[1 (+ 1 1) [3]]", "[1 2 [3]]"},
		{"{:a (+ 1 2) :b {:c [4]}}", "{:a 3, :b {:c [4]}}"},
		{"#{1 (+ 1 1)}", "#{1 2}"},
		{"(let [a 1 b 1] #{a b})", "#{1}"},
		{"1 2 3", "3"},
		{"()", "()"},
		{"'(1 2 three)", "(1 2 three)"},
		// let and destructuring
		{"(let [x 1 y (+ x 1)] y)", "2"},
		{"(let [x 1] (let [x 2] x))", "2"},
		{"(let [x 1] [(let [x 2] x) x])", "[2 1]"},
		{"(let [x 2] 1 2 3 x)", "2"},
		{"(let [[a b] [1 2]] (+ a b))", "3"},
		{"(let [[_ b] [1 2]] b)", "2"},
		{"(let [[a [b c]] [1 [2 3]]] (+ a b c))", "6"},
		{"(let [[x & rest] [1 2 3 4]] rest)", "[2 3 4]"},
		{"(let [[a b & rest] [1 2 3 4 5]] [a b rest])", "[1 2 [3 4 5]]"},
		{"(let [[& all] [1 2 3]] all)", "[1 2 3]"},
		{"(let [[x & r] [1]] r)", "nil"},
		{"(let [[a b :as all] [1 2 3]] [a b all])", "[1 2 [1 2 3]]"},
		{"(let [[a b] nil] [a b])", "[nil nil]"},
		{`(let [[a b] "hi"] [a b])`, `["h" "i"]`},
		{`(let [{:keys [name age]} {:name "Alice" :age 30}] name)`, `"Alice"`},
		{`(let [{:keys [name age] :or {age 0}} {:name "Bob"}] age)`, "0"},
		{"(let [{:keys [:a] :or {a false}} {:b 1}] a)", "false"},
		{`(let [{the-name :name} {:name "Carol"}] the-name)`, `"Carol"`},
		{`(let [{:keys [id] :as user} {:id 123 :name "Alice"}] (:name user))`, `"Alice"`},
		{`(let [{:strs [a]} {"a" 1}] a)`, "1"},
		{`(let [{:keys [a]} {"a" 1}] a)`, "1"},
		{"(let [{:keys [a]} nil] a)", "nil"},
		{"(let [{[x y] :pt} {:pt [1 2]}] (+ x y))", "3"},
		// conditionals
		{`(if nil "t" "f")`, `"f"`},
		{`(if 0 "t" "f")`, `"t"`},
		{`(if [] "t" "f")`, `"t"`},
		{"(if false 1)", "nil"},
		{`(if-not true "yes" "no")`, `"no"`},
		{`(if-not false "yes")`, `"yes"`},
		{"(when true 0 1 2)", "2"},
		{"(when false 1)", "nil"},
		{`(when-not false "yes")`, `"yes"`},
		{`(cond false "a" false "b" :else "c")`, `"c"`},
		{`(cond false "only")`, "nil"},
		{"(if-let [x 42] x 0)", "42"},
		{"(if-let [x nil] x 0)", "0"},
		{"(if-let [x false] x 0)", "0"},
		{"(if-let [[a b] [1 2]] (+ a b) 0)", "3"},
		{"(when-let [x 42] 1 x)", "42"},
		{"(when-let [x nil] x)", "nil"},
		{"(if-some [x false] [x] :none)", "[false]"},
		{"(and)", "true"},
		{"(and 1 2)", "2"},
		{"(and 1 nil 3)", "nil"},
		{"(or)", "nil"},
		{"(or nil false)", "false"},
		{"(or nil 1 2)", "1"},
		{"(case :a :a 1 :b 2 99)", "1"},
		{"(case :z :a 1 :b 2 99)", "99"},
		{"(case 42 1 :one 42 :forty-two :default)", ":forty-two"},
		{"(case 2 (1 2 3) :small :big)", ":small"},
		{"(condp = 1 1 :a 2 :b)", ":a"},
		{"(condp = 3 1 :a 2 :b :default)", ":default"},
		{"(comment (+ 1 2))", "nil"},
		// functions
		{"((fn [x] (* x 2)) 21)", "42"},
		{"((fn [a & more] [a more]) 1 2 3)", "[1 [2 3]]"},
		{"((fn [a & more] [a more]) 1)", "[1 nil]"},
		{"((fn [[a b]] (+ a b)) [1 2])", "3"},
		{"((fn [{:keys [x]}] x) {:x 5})", "5"},
		{"((fn [& {:keys [a]}] a) :a 1)", "1"},
		{"((fn foo [x] (if (< x 3) (foo (inc x)) x)) 0)", "3"},
		{"((fn ([x] x) ([x y] (+ x y))) 1 2)", "3"},
		{"((fn ([x] x) ([x y] (+ x y))) 1)", "1"},
		{"(#(+ %1 %2) 1 2)", "3"},
		{"(#(count %&) 1 2 3)", "3"},
		{"(let [x 1 y 2] ((fn [] (let [g (fn [] y)] (+ x (g))))))", "3"},
		{"(let [fn inc] (fn 1))", "2"},
		{"(let [if inc] (if true 1 2))", "1"},
		{"(let [let inc] (let 1))", "2"},
		{"(defn foo [when] (when 1)) (foo inc)", "2"},
		{"(defn foo [merge] merge) (foo true)", "true"},
		// loop and recur
		{"(loop [i 0 acc 0] (if (< i 5) (recur (inc i) (+ acc i)) acc))", "10"},
		{"((fn [n acc] (if (< 0 n) (recur (- n 1) (* acc n)) acc)) 5 1)", "120"},
		{"(loop [[head & tail] [1 2 3 4] sum 0] (if head (recur tail (+ sum head)) sum))", "10"},
		{"(let [x 1] (loop [x (inc x)] x))", "2"},
		{"((fn [& args] (if (< (count args) 2) args (recur [9]))) 1 2 3)", "[9]"},
		{"(loop [i 0] (cond (< i 3) (recur (inc i)) :else i))", "3"},
		{"(loop [i 0] (when (< i 3) (recur (inc i))))", "nil"},
		{"(loop [i 0] (and true (if (< i 3) (recur (inc i)) i)))", "3"},
		// def and defn
		{"(def x 42)", "#'user/x"},
		{"(def x 10) x", "10"},
		{"(def a 1) (def b (+ a 1)) b", "2"},
		{`(def x "foo" 1) x`, "1"},
		{"(defn twice [x] (* x 2)) (twice 21)", "42"},
		{`(defn foo "increment" [x] (inc x)) (foo 1)`, "2"},
		{"(defn foo [x] (inc x)) (defn foo [x] (- x 1)) (foo 1)", "0"},
		{"(def rate 2) (defn apply-rate [x] (* x rate)) (apply-rate 100)", "200"},
		{"(let [x 1] (defn foo [] x)) (foo)", "1"},
		{"(defn fact [n] (if (< n 2) 1 (* n (fact (- n 1))))) (fact 10)", "3628800"},
		{"(defonce x 1) (defonce x 2) x", "1"},
		{"(do (defn foo [] 1) (#(foo)))", "1"},
		// threading
		{"(-> 1 inc inc (inc))", "4"},
		{"(->> [1 2 3] (map inc) (filter (fn [x] (< 2 x))))", "[3 4]"},
		{"(-> {:a 1} :a inc)", "2"},
		{"(some-> {:a 1} :b inc)", "nil"},
		{"(some-> {:a 1} :a inc)", "2"},
		{"(cond-> 1 true inc false (* 100) true (* 3))", "6"},
		{"(as-> 1 $ (+ $ 1) [$ $])", "[2 2]"},
		// for and doseq
		{"(for [x [1 2 3]] (* x x))", "[1 4 9]"},
		{"(for [i [1 2 3] :while (< i 2) j [4 5 6] :when (= j 4)] [i j])", "[[1 4]]"},
		{"(for [[_ counts] [[1 [1 2 3]] [3 [1 2 3]]] c counts] c)", "[1 2 3 1 2 3]"},
		{"(for [x [1 2] :let [y (* x 10)]] y)", "[10 20]"},
		{"(for [[k v] {:a 1 :b 2}] [v k])", "[[1 :a] [2 :b]]"},
		{"(doseq [x [1 2]] (println x))", "nil"},
		{"(let [range 5] (dotimes [i 3] (println i range)))", "nil"},
		// keywords, maps, sets as functions
		{`(:name {:name "Alice"})`, `"Alice"`},
		{`(:missing {:name "Alice"} "default")`, `"default"`},
		{`({:name "Alice"} :name)`, `"Alice"`},
		{"({:a 1} 2 3)", "3"},
		{"(#{1 2 3} 2)", "2"},
		{"(#{1 2 3} 4)", "nil"},
		// where and combinators
		{"(count (filter (where :x = 1) [{:x 1} {:x 2}]))", "1"},
		{"(count (filter (where :x > 1) [{:x 1} {:x 2} {:x 3}]))", "2"},
		{"(count (filter (where :x not= 2) [{:x 1} {:x 2} {:x 3}]))", "2"},
		{"(count (filter (where [:a :b] = 1) [{:a {:b 1}} {:a {:b 2}}]))", "1"},
		{"(count (filter (where :a) [{:a 1} {:a nil} {:a false}]))", "1"},
		{`(count (filter (where :s = :a) [{:s "a"} {:s "b"}]))`, "1"},
		{`(count (filter (where :s in [:a :b]) [{:s "a"} {:s "c"}]))`, "1"},
		{`(count (filter (where :t includes :x) [{:t ["x" "y"]} {:t []}]))`, "1"},
		{`(count (filter (where :t includes "ell") [{:t "hello"} {:t "bye"}]))`, "1"},
		{"(count (filter (where :age > 18) [{:age 20} {:name 1} {:age nil}]))", "1"},
		{`(count (filter (where :status = "active") [{"status" "active"}]))`, "1"},
		{"(filter (where :x = nil) [{:x nil} {:x 1}])", "[{:x nil}]"},
		{"(count (filter (all-of (where :a = 1) (where :b = 2)) [{:a 1 :b 2} {:a 1 :b 3}]))", "1"},
		{"(count (filter (any-of (where :a = 1) (where :a = 2)) [{:a 1} {:a 2} {:a 3}]))", "2"},
		{"(count (filter (none-of (where :a = 1)) [{:a 1} {:a 2}]))", "1"},
		{"(count (filter (all-of) [{:a 1} {:a 2}]))", "2"},
		{"(count (filter (any-of) [{:a 1} {:a 2}]))", "0"},
		{"(count (filter (none-of) [{:a 1} {:a 2}]))", "2"},
		{"(let [ids [1 3]] (count (filter (where :id in ids) [{:id 1} {:id 2} {:id 3}])))", "2"},
		{"(count (filter (where :p > 1.5) [{:p 1} {:p 2} {:p 1.5} {:p 2.5} {:p \"x\"}]))", "2"},
		{"(count (filter (where :p <= 2) [{:p 1.5} {:p 2} {:p 2.5} {:p ##NaN}]))", "2"},
		{`(count (filter (where :d >= "2024-02") [{:d "2024-01-15"} {:d "2024-03-01"}]))`, "1"},
		{"(count (filter (where [:xs 0] = 1) [{:xs [1]} {:xs [2]} {:xs []}]))", "1"},
		{`(count (filter (where :tags in #{"a" "b"}) [{:tags "a"} {:tags "c"}]))`, "1"},
		{"(count (filter (where :m includes :k) [{:m {:k 1}} {:m {:j 1}}]))", "1"},
		// closures print as source
		{"(str (fn [x] x))", `"(fn [x] x)"`},
		{"(let [k 2] (str (fn [x] (* k x))))", `"(let [k 2] (fn [x] (* k x)))"`},
		{"(str (where :a > 1) (all-of :a))", `"(where :a > 1)(all-of :a)"`},
		// vars
		{"(defn f [x] (* 2 x)) (#'f 4)", "8"},
		// namespaces and constants
		{"(clojure.core/let [x 1] x)", "1"},
		{"(core/inc 1)", "2"},
		{"Double/POSITIVE_INFINITY", "##Inf"},
		{"(var foo)", "#'user/foo"},
		// println and return
		{`(println "n:" 1 [2 "s"] nil)`, "nil"},
		{"(return 5) 6", "5"},
		{"(defn f [x] (return (* x 2))) (f 21) 0", "42"},
	}
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: error %v, want %s", c.src, res.Err, c.want)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// TestEvalErrors checks the kind of each failure and keeps the messages in
// testdata/eval_errors.golden, where a reader can judge whether an LLM could
// act on them.
func TestEvalErrors(t *testing.T) {
	cases := []struct {
		src  string
		kind ErrorKind
	}{
		{"(if)", validationError},
		{"(if 1 2 3 4)", validationError},
		{"(let [x] x)", validationError},
		{"(let x 1)", validationError},
		{"(cond 1)", validationError},
		{"(recur 1)", validationError},
		{"(loop [x 1] (inc (recur 2)))", validationError},
		{"(loop [x 1] (recur 1 2))", arityErrorKind},
		{"(fn x)", validationError},
		{"(def map {})", validationError},
		{"(def f/b 1)", validationError},
		{"(defn f/b [])", validationError},
		{"(def -main [] 1)", validationError},
		{"(defn foo)", validationError},
		{"(defn foo ())", validationError},
		{"(def if 1)", validationError},
		{"(where :status \"active\")", validationError},
		{"(where :status is \"active\")", validationError},
		{"(fitler odd? [1 2])", undefinedSymbol},
		{"undefined-thing", undefinedSymbol},
		{"(clojure.string/titlecase \"a\")", undefinedSymbol},
		{"(clojure.set/join [{:a 1}] [{:a 1}] [:a])", typeError},
		{"(clojure.set/foo [] [:id])", undefinedSymbol},
		{"(foo.bar/baz 1)", undefinedSymbol},
		{"(.intern \"a\")", validationError},
		{"(1 2 3)", typeError},
		{"(\"f\" 1)", typeError},
		{"((fn [x] x))", arityErrorKind},
		{"((fn [x] x) 1 2)", arityErrorKind},
		{"(defn two [a b] a) (two 1)", arityErrorKind},
		{"(inc 1 2)", arityErrorKind},
		{"(case 5 1 :a)", executionError},
		{"(condp = 5 1 :a)", executionError},
		{"(let [[a] 5] a)", typeError},
		{"(for [x 5] x)", typeError},
		{"(tool/search {})", undefinedSymbol},
		{"(fail \"cannot find the user\")", fail},
		{"(fail {:reason :missing})", fail},
		{"(f) (defn f [] (g)) (defn g [] 1)", undefinedSymbol},
		{"(map and [1 2])", validationError},
		{"(let [& 1] 1)", validationError},
	}
	var b strings.Builder
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err == nil {
			t.Errorf("%s succeeded with %s, want %s", c.src, Repr(res.Value), c.kind)
			continue
		}
		if res.Err.Kind != c.kind {
			t.Errorf("%s: %v, want kind %s", c.src, res.Err, c.kind)
		}
		b.WriteString(c.src + "\n  => " + res.Err.Error() + "\n")
	}
	golden(t, "eval_errors.golden", b.String())
}

// TestPrintln: println writes strings as their characters at any depth,
// as Clojure's print does; prn writes them quoted.
func TestPrintln(t *testing.T) {
	res := run(t, `(println "Found:" 42) (println "First:" {:id 1 :name "x"}) (println) (println nil "s" :k 1.5) (prn ["x"])`, Env{})
	want := []string{"Found: 42", `First: {:id 1, :name x}`, "", `nil s :k 1.5`, `["x"]`}
	if strings.Join(res.Prints, "|") != strings.Join(want, "|") {
		t.Errorf("prints = %q, want %q", res.Prints, want)
	}
}

func TestPrintVariants(t *testing.T) {
	res := run(t, `(print "a" 1) (prn "a" [1 "b"]) (printf "%s has %d items\n" "cart" 3)`, Env{})
	want := []string{"a 1", `"a" [1 "b"]`, "cart has 3 items"}
	if strings.Join(res.Prints, "|") != strings.Join(want, "|") {
		t.Errorf("prints = %q, want %q", res.Prints, want)
	}
}

func TestReturnAndFail(t *testing.T) {
	res := run(t, "(def saved 1) (return {:done true}) (def never 2)", Env{TurnNumber: 3})
	if res.Err != nil || !res.Returned || Repr(res.Value) != "{:done true}" {
		t.Fatalf("return: %+v", res)
	}
	if _, ok := res.Memory.lookup("saved"); !ok {
		t.Error("return discarded the definitions made before it")
	}
	if _, ok := res.Memory.lookup("never"); ok {
		t.Error("code after return ran")
	}
	res = run(t, `(def saved 1) (fail "no data")`, Env{})
	if res.Err == nil || res.Err.Kind != fail || !res.Failed || res.Err.Message != "no data" {
		t.Fatalf("fail: %+v", res)
	}
	if res.Memory.len() != 0 || len(res.Defined) != 0 {
		t.Error("a failed program changed memory")
	}
}

func TestErrorPositions(t *testing.T) {
	res := run(t, "(def x 1)\n(let [y 2]\n  (inc y 3))", Env{})
	if res.Err == nil || res.Err.Pos != (Pos{3, 3}) {
		t.Fatalf("error %v, want it at line 3, column 3", res.Err)
	}
}

func TestMultiArityDefn(t *testing.T) {
	res := run(t, `(defn f "doc" ([x] (f x 10)) ([x y] (+ x y))) [(f 1) (f 1 2)]`, Env{})
	if res.Err != nil || Repr(res.Value) != "[11 3]" {
		t.Fatalf("%v %v", res.Value, res.Err)
	}
}

func TestClojureHabits(t *testing.T) {
	cases := map[string]string{
		"(defn- helper [x] (inc x)) (helper 1)": "2",
		"(declare odd2?) (defn even2? [n] (if (= n 0) true (odd2? (- n 1)))) (defn odd2? [n] (if (= n 0) false (even2? (- n 1)))) (even2? 10)": "true",
		"(def ^:private x 1) (defn ^String f [^long y] (+ x y)) (f 2)":                                                                         "3",
		"(def ^{:doc \"d\"} y 5) y": "5",
	}
	for src, want := range cases {
		res := run(t, src, Env{})
		if res.Err != nil || Repr(res.Value) != want {
			t.Errorf("%s = %v %v, want %s", src, Repr(res.Value), res.Err, want)
		}
	}
}
