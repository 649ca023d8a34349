package lisp

import (
	"context"
	"strings"
	"testing"
)

// evalSource runs a program with the default limits.
func evalSource(t *testing.T, src string) *Result {
	t.Helper()
	res, err := Eval(context.Background(), src, Env{Limits: DefaultLimits()})
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return res
}

// TestBuiltinsFromSource exercises builtins the way programs call them:
// with closures, destructuring and threading, which the Go-level tables
// cannot build.
func TestBuiltinsFromSource(t *testing.T) {
	cases := []struct{ src, want string }{
		{`(filter #(> % 2) [1 2 3 4])`, "[3 4]"},
		{`(filter (fn [[k v]] (> v 100)) {:food 50 :travel 200 :office 150})`, "[[:travel 200] [:office 150]]"},
		{`(remove (fn [[k v]] (nil? v)) {:a 1 :b nil :c 3})`, "[[:a 1] [:c 3]]"},
		{`(map (fn [a b] [a b]) [1 2] [:a :b])`, "[[1 :a] [2 :b]]"},
		{`(map (fn [a b c] (+ a b c)) [1 2] [10 20] [100 200])`, "[111 222]"},
		{`(map-indexed (fn [i x] [i x]) ["a" "b"])`, `[[0 "a"] [1 "b"]]`},
		{`(let [factor 10] (pmap #(* % factor) [1 2 3]))`, "[10 20 30]"},
		{`(pcalls #(+ 1 1) #(* 2 3) #(- 10 5))`, "[2 6 5]"},
		{`(sort-by :price (fn [a b] (compare b a)) [{:price 1} {:price 3} {:price 2}])`, "[{:price 3} {:price 2} {:price 1}]"},
		{`(sort-by (fn [x] (nth x 1)) > [["a" 2] ["b" 1] ["c" 3]])`, `[["c" 3] ["a" 2] ["b" 1]]`},
		{`(sort-by (juxt :p :n) [{:p 2 :n "b"} {:p 1 :n "z"} {:p 2 :n "a"}])`, `[{:p 1, :n "z"} {:p 2, :n "a"} {:p 2, :n "b"}]`},
		{`(sort (fn [a b] (< b a)) [1 3 2])`, "[3 2 1]"},
		{`(reduce (fn [acc [k v]] (+ acc v)) 0 {:a 1 :b 2})`, "3"},
		{`(reduce (fn [acc x] (str acc "-" x)) "a" "bc")`, `"a-b-c"`},
		{`(reduce-kv (fn [m k v] (assoc m v k)) {} {:a 1 :b 2})`, "{1 :a, 2 :b}"},
		{`(update {:n nil} :n (fnil inc 0))`, "{:n 1}"},
		{`(update {:n nil} :n (fnil + 0) 5)`, "{:n 5}"},
		{`(update [10 20 30] 0 #(* % 2))`, "[20 20 30]"},
		{`(-> [{:s "a"} {:s "b"} {:s "a"}] (group-by :s) (update-vals count))`, `{"a" 2, "b" 1}`},
		{`(let [by-cat (group-by :cat [{:cat :x :amt 1} {:cat :y :amt 2} {:cat :x :amt 3}])]
		   (map (fn [[cat items]] {:category cat :total (sum-by :amount items)}) by-cat))`,
			"[{:category :x, :total 0} {:category :y, :total 0}]"},
		{`(max-key #(nth % 1) ["a" 1] ["b" 5] ["c" 3])`, `["b" 5]`},
		{`(apply max-key second (seq {:a 3 :b 7 :c 2}))`, "[:b 7]"},
		{`(map #(apply + %) [[1 2] [3 4]])`, "[3 7]"},
		{`(apply (fn [x & xs] xs) 1 2 [3 4])`, "[2 3 4]"},
		{`((juxt #(+ % 1) #(* % 2)) 5)`, "[6 10]"},
		{`((comp str +) 1 2 3)`, `"6"`},
		{`(filter (every-pred even? pos?) [-2 -1 0 1 2 3 4])`, "[2 4]"},
		{`((some-fn (constantly nil) (constantly 42)) 1)`, "42"},
		{`(keep #(when (odd? %) (* % %)) [1 2 3])`, "[1 9]"},
		{`(mapcat (fn [x] [x x]) [1 2])`, "[1 1 2 2]"},
		{`(take-while #(< % 3) [1 2 3 1])`, "[1 2]"},
		{`(partition-by #(> % 1) [1 2 3 1])`, "[[1] [2 3] [1]]"},
		{`(count (filter #(= \r %) "raspberry"))`, "3"},
		{`(filter #(contains? #{\a \e \i \o \u} %) "hello")`, `["e" "o"]`},
		{`(->> ["1" "2" "not-a-number" "4"] (map parse-long) (filter some?) (reduce + 0))`, "7"},
		{`(replace "a1b22" (re-pattern "\\d+") (fn [m] (str "<" m ">")))`, `"a<1>b<22>"`},
		{`(postwalk #(if (vector? %) (apply + %) %) [[1 2] [3 4]])`, "10"},
		{`(prewalk #(if (number? %) (inc %) %) {:a 1 :b {:c 2 :d 3}})`, "{:a 2, :b {:c 3, :d 4}}"},
		{`(let [tree {:value 1 :children [{:value 2 :children []} {:value 3 :children []}]}]
		   (map :value (tree-seq :children :children tree)))`, "[1 2 3]"},
		{`(tree-seq #(and (vector? %) (not (empty? %))) seq [[1] [2 [3]] []])`, "[[[1] [2 [3]] []] [1] 1 [2 [3]] 2 [3] 3 []]"},
		{`(format "%s has %d items, %.2f avg" "Alice" 5 3.14159)`, `"Alice has 5 items, 3.14 avg"`},
		{`(str/join ", " (map name [:a :b]))`, `"a, b"`},
		{`(clojure.set/union #{1} #{2})`, "#{1 2}"},
		{`(run! println [1 2])`, "nil"},
	}
	for _, c := range cases {
		res := evalSource(t, c.src)
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// TestBuiltinErrorsFromSource checks the error kind and that the message
// names the function and what it expected.
func TestBuiltinErrorsFromSource(t *testing.T) {
	cases := []struct {
		src  string
		kind ErrorKind
		msg  string
	}{
		{`(> "bob" "alice")`, typeError, "> expected a number, got string"},
		{`(+ 1 nil)`, typeError, "+ expected a number, got nil"},
		{`(sum-by :amount [{:amount "10"} {:amount 20}])`, typeError, "sum-by expected numeric values"},
		{`(even? 4.0)`, typeError, "even? expected an integer, got float"},
		{`(first #{inc})`, typeError, "first is not supported on a set holding function"},
		{`(sort [1 "a"])`, typeError, "sort cannot compare"},
		{`(apply + 1 2)`, typeError, "apply expected a collection"},
		{`(int (/ 1.0 0.0))`, arithmeticError, "cannot convert ##Inf"},
		{`(* 4611686018427387904 2)`, arithmeticError, "integer overflow"},
		{`(mod 5 0)`, arithmeticError, "divide by zero"},
		{`(re-pattern "(?<=a)(b")`, executionError, "cannot be compiled"},
		{`(filter 5 [1 2])`, typeError, "filter expected a function"},
		{`(map)`, arityErrorKind, "map called with 0 arguments"},
		{`(range 1e12)`, stepLimit, "step limit"},
		{`(apply str (repeat 100000000 "x"))`, stepLimit, "step limit"},
		{`(loop [s "x"] (recur (str s s)))`, memoryLimit, "memory limit"},
		{`(let [v (range 1000) w (repeat 1000 v) x (repeat 1000 w)] (str x))`, memoryLimit, ""},
		{`(let [s (apply str (repeat 1000 "x")) v (repeat 100 s) w (repeat 200 v)] (count (str w)))`, memoryLimit, "memory limit"},
	}
	for _, c := range cases {
		res := evalSource(t, c.src)
		if res.Err == nil {
			t.Errorf("%s = %s, want %s error", c.src, Repr(res.Value), c.kind)
			continue
		}
		kind := res.Err.Kind
		if c.kind == memoryLimit && kind == stepLimit {
			kind = memoryLimit // a budget breach either way; which one comes first is an implementation detail
		}
		if kind != c.kind || !strings.Contains(res.Err.Message, c.msg) {
			t.Errorf("%s failed with %v, want %s containing %q", c.src, res.Err, c.kind, c.msg)
		}
	}
}

// TestCombinedFunctionsSurviveMemory defines functions built by
// combinators, and a regex, sends the memory over the wire and calls them
// in the next turn.
func TestCombinedFunctionsSurviveMemory(t *testing.T) {
	turn1 := evalSource(t, `
		(def add2 (comp inc inc))
		(def add10 (partial + 10))
		(def by-name (juxt :name :age))
		(def odd-pos (every-pred odd? pos?))
		(def answer (constantly {:a [1 "x"]}))
		(def safe-inc (fnil inc 0))
		(def not-empty? (complement empty?))
		(def k (let [n 3] (comp (fn [x] (* n x)) :v)))
		(def digits (re-pattern "\\d+"))`)
	if turn1.Err != nil {
		t.Fatal(turn1.Err)
	}
	wire := turn1.Memory.Encode()
	for _, w := range wire {
		if w.IsFn && !strings.HasPrefix(w.Value, "(") {
			t.Errorf("%s travels as %q, not as source", w.Name, w.Value)
		}
	}
	mem, err := DecodeMemory(context.Background(), wire)
	if err != nil {
		t.Fatalf("decoding %v: %v", wire, err)
	}
	res, err := Eval(context.Background(), `
		[(add2 1) (add10 5) (by-name {:name "A" :age 3}) (odd-pos 3) (answer 1 2)
		 (safe-inc nil) (not-empty? [1]) (k {:v 2}) (re-find digits "ab123")]`,
		Env{Prelude: mem, Limits: DefaultLimits()})
	if err != nil || res.Err != nil {
		t.Fatalf("turn 2: %v %v", err, res.Err)
	}
	want := `[3 15 ["A" 3] true {:a [1 "x"]} 1 true 6 "123"]`
	if got := Repr(res.Value); got != want {
		t.Errorf("turn 2 = %s, want %s", got, want)
	}
	if got := Repr(mem.Bindings()[0].Value); got != "(comp inc inc)" {
		t.Errorf("a combined function prints as %s", got)
	}
}
