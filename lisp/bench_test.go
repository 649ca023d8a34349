package lisp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// benchData is {:orders [...]} with n orders shaped like typical tool output.
func benchData(n int) *Map {
	var b strings.Builder
	b.WriteString("{:orders [")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{:id %d :status %q :category %q :amount %d.5 :customer {:name "c%d" :tier %q}} `,
			i, []string{"open", "paid", "void"}[i%3], []string{"books", "games", "tools", "food"}[i%4], i%250, i%50,
			[]string{"gold", "basic"}[i%2])
	}
	b.WriteString("]}")
	return mustEDN(b.String()).(*Map)
}

func benchEval(b *testing.B, src string, data *Map) {
	b.Helper()
	limits := DefaultLimits()
	limits.MaxSteps = 100_000_000
	limits.MaxAllocBytes = 1 << 30
	limits.Timeout = Unlimited
	env := Env{Data: data, Limits: limits}
	res, err := Eval(context.Background(), src, env)
	if err != nil || res.Err != nil {
		b.Fatalf("%v %v", err, res.Err)
	}
	for b.Loop() {
		if _, err := Eval(context.Background(), src, env); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Steps), "steps/op")
	b.ReportMetric(float64(res.AllocBytes), "charged-B/op")
}

func BenchmarkFilterMapSum(b *testing.B) {
	benchEval(b, `(->> data/orders
     (filter (where :status = "paid"))
     (map (fn [o] (* 2 (:amount o))))
     (reduce + 0))`, benchData(1000))
}

// BenchmarkSequencePipeline is the eager path of the builtins that are lazy
// over an unbounded sequence (distinct, partition-all, keep, mapcat,
// interpose, reductions, every?) on a vector of 1,000 orders.
func BenchmarkSequencePipeline(b *testing.B) {
	benchEval(b, `(let [xs data/orders
      ids (distinct (map :category xs))
      chunks (partition-all 10 (keep :amount xs))
      sums (reductions + (mapcat identity chunks))]
  [(count ids) (count (interpose :x chunks)) (last sums) (every? pos? sums)])`, benchData(1000))
}

func BenchmarkGroupBy(b *testing.B) {
	benchEval(b, `(let [by-cat (group-by :category data/orders)]
  (into {} (map (fn [[cat items]] [cat {:n (count items) :total (sum-by :amount items)}]) by-cat)))`, benchData(1000))
}

func BenchmarkStringBuilding(b *testing.B) {
	benchEval(b, `(->> data/orders
     (take 300)
     (map (fn [{:keys [id status customer]}] (str "#" id " " status " for " (:name customer))))
     (clojure.string/join "\n")
     count)`, benchData(1000))
}

func BenchmarkFib25(b *testing.B) {
	benchEval(b, `(defn fib [n] (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))) (fib 25)`, nil)
}

func BenchmarkLoopRecur(b *testing.B) {
	benchEval(b, `(loop [i 0 acc 0] (if (< i 100000) (recur (inc i) (+ acc i)) acc))`, nil)
}

func BenchmarkAnalyzeOnly(b *testing.B) {
	src := `(defn score [o] (cond (> (:amount o) 200) :high (> (:amount o) 50) :mid :else :low))
(def summary (->> data/orders (filter (all-of (where :status in ["open" "paid"]) (where [:customer :tier] = "gold")))
  (group-by score) (map (fn [[k v]] [k (count v)])) (into {})))
(println summary)
summary`
	for b.Loop() {
		forms, err := read(src, 0)
		if err != nil {
			b.Fatal(err)
		}
		user := map[string]bool{}
		definedNames(forms, user)
		c := newCompiler(&names{user: user, data: emptyMap}, nil, 0)
		for _, f := range forms {
			if _, err := c.compile(f, false); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAgentTurn is a typical turn of an agent exploring data, the
// program of the sidecar's EvalTurn load fixture over 200 orders: filter,
// group, aggregate, define, print, return; then the new memory encoded
// for the wire, as the sidecar does after each turn.
func BenchmarkAgentTurn(b *testing.B) {
	data := mustEDN(agentTurnData()).(*Map)
	prelude := newMemory()
	prelude.put(Binding{Name: "threshold", Value: Int(100), Turn: 1})
	src := `(defn revenue [orders] (reduce + 0 (map :total orders)))
(def paid (filter #(= (:status %) :paid) data/orders))
(def by-region (group-by :region paid))
(println "paid orders:" (count paid) "regions:" (count by-region))
(def summary
  (into {} (map (fn [[region orders]] [region {:orders (count orders) :revenue (revenue orders)}]) by-region)))
(println "top region:" (first (sort-by (fn [[_ v]] (- (:revenue v))) summary)))
(return {:regions (count summary) :threshold threshold :summary summary})`
	env := Env{Data: data, Prelude: prelude, TurnNumber: 3}
	for b.Loop() {
		res, err := Eval(context.Background(), src, env)
		if err != nil || res.Err != nil {
			b.Fatal(err, res.Err)
		}
		res.Memory.Encode()
	}
}

// agentTurnData is the data of BenchmarkAgentTurn as EDN: 200 orders.
func agentTurnData() string {
	var d strings.Builder
	d.WriteString("{:orders [")
	for i := range 200 {
		fmt.Fprintf(&d, "{:id %d :region %s :status %s :total %d} ", i,
			[]string{":eu", ":us", ":apac"}[i%3], []string{":paid", ":paid", ":refunded"}[(i/3)%3], 10+i%97)
	}
	d.WriteString("]}")
	return d.String()
}

// BenchmarkReadData reads the data of BenchmarkAgentTurn, as the sidecar
// does for every EvalTurn call.
func BenchmarkReadData(b *testing.B) {
	text := agentTurnData()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := ParseEDN(text, 0); err != nil {
			b.Fatal(err)
		}
	}
}
