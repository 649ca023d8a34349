package lisp

import (
	"context"
	"strings"
	"testing"
)

// orders returns n maps shaped like typical tool results.
func orders(n int) *Vector {
	statuses := []Value{str("paid"), str("pending"), str("refunded")}
	out := make([]Value, n)
	for i := range out {
		out[i] = hashMap(
			kw("id"), Int(i),
			kw("status"), statuses[i%3],
			kw("amount"), Float(float64(i%100)+0.5),
			kw("customer"), str("customer-"+string(rune('a'+i%26))),
		)
	}
	return NewVector(out)
}

func benchThread() *Thread {
	return newThread(context.Background(), Limits{MaxSteps: 1 << 40, MaxAllocBytes: 1 << 40, MaxDepth: 200})
}

func mustCall(b *testing.B, th *Thread, name string, args ...Value) Value {
	v, err := callBuiltin(th, name, args...)
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkFilterMapSum is (->> orders (filter :paid?) (map :amount) (reduce +))
// over 1,000 maps, with a set as the predicate on a projected field.
func BenchmarkBuiltinFilterMapSum(b *testing.B) {
	data := orders(1000)
	isPaid, _ := callBuiltin(benchThread(), "comp", set(str("paid")), kw("status"))
	b.ReportAllocs()
	for b.Loop() {
		th := benchThread()
		paid := mustCall(b, th, "filter", isPaid, data)
		amounts := mustCall(b, th, "map", kw("amount"), paid)
		mustCall(b, th, "reduce", builtinFn("+"), amounts)
	}
}

func BenchmarkBuiltinSumBy(b *testing.B) {
	data := orders(1000)
	b.ReportAllocs()
	for b.Loop() {
		mustCall(b, benchThread(), "sum-by", kw("amount"), data)
	}
}

func BenchmarkBuiltinGroupByCount(b *testing.B) {
	data := orders(1000)
	b.ReportAllocs()
	for b.Loop() {
		th := benchThread()
		groups := mustCall(b, th, "group-by", kw("status"), data)
		mustCall(b, th, "update-vals", groups, builtinFn("count"))
	}
}

func BenchmarkBuiltinSortBy(b *testing.B) {
	data := orders(1000)
	b.ReportAllocs()
	for b.Loop() {
		mustCall(b, benchThread(), "sort-by", kw("amount"), kw("desc"), data)
	}
}

// BenchmarkStringBuilding joins 1,000 formatted lines, as a report does.
func BenchmarkBuiltinStringBuilding(b *testing.B) {
	data := orders(1000).Elems()
	b.ReportAllocs()
	for b.Loop() {
		th := benchThread()
		lines := make([]Value, len(data))
		for i, o := range data {
			m := o.(*Map)
			id, _ := m.Get(kw("id"))
			amount, _ := m.Get(kw("amount"))
			lines[i] = mustCall(b, th, "str", str("order "), id, str(": "), amount)
		}
		mustCall(b, th, "join", str("\n"), NewVector(lines))
	}
}

func BenchmarkBuiltinFormat(b *testing.B) {
	pattern := str("%-10s %8.2f %5d")
	b.ReportAllocs()
	for b.Loop() {
		mustCall(b, benchThread(), "format", pattern, str("widget"), fl(1234.5678), Int(42))
	}
}

// BenchmarkRegexMatchAtTheCap is the longest regex match a program may
// start (maxMatchWork): 6,003 instructions on 1,332 bytes, with capture
// groups, that never matches. It runs without looking at the clock, so
// its time is the slack an evaluation may overrun its timeout by.
func BenchmarkRegexMatchAtTheCap(b *testing.B) {
	re, err := compileRegex("re-find", `(\w+\s*){1000}x`)
	if err != nil {
		b.Fatal(err)
	}
	s := str(strings.Repeat("abcd", 333))
	if work := int64(len(s)) * int64(re.insts); work > maxMatchWork || work < maxMatchWork*99/100 {
		b.Fatalf("work %d is not at the cap %d", work, maxMatchWork)
	}
	for b.Loop() {
		mustCall(b, benchThread(), "re-find", re, s)
	}
}
