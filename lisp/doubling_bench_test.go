package lisp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReadAndDefineDoubling reads values and walks defined values of
// doubling size: time per part should stay flat as n doubles (value
// reading looks at its caller's context every ctxCheckForms forms; the
// walk at def takes flat levels whole). docs/BENCHMARKS.md has the
// figures.
func BenchmarkReadAndDefineDoubling(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	records := func(n int, json bool) string {
		var sb strings.Builder
		sb.WriteString("[")
		for i := range n {
			if json {
				if i > 0 {
					sb.WriteString(",")
				}
				fmt.Fprintf(&sb, `{"id":%d,"name":"n%d","tags":["a","b"]}`, i, i)
			} else {
				fmt.Fprintf(&sb, `{:id %d :name "n%d" :tags [:a :b]} `, i, i)
			}
		}
		return sb.String() + "]"
	}
	for _, n := range []int{10_000, 20_000, 40_000} {
		text := records(n, false)
		for _, how := range []WireRead{{Ctx: ctx}, {Ctx: ctx, JSON: true}} {
			in, name := text, "edn"
			if how.JSON {
				in, name = records(n, true), "json"
			}
			b.Run(fmt.Sprintf("read-%s/%d", name, n), func(b *testing.B) {
				for b.Loop() {
					if _, _, err := ReadWire(in, how); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/part")
			})
		}
		v, _, err := ReadWire(text, WireRead{})
		if err != nil {
			b.Fatal(err)
		}
		unfrozen := NewVector(append([]Value(nil), v.(*Vector).elems...)) // its records measured, itself not
		b.Run(fmt.Sprintf("define/%d", n), func(b *testing.B) {
			for b.Loop() {
				th := newThread(context.Background(), Limits{MaxSteps: 1 << 40})
				if _, bad, deep, err := definable(th, unfrozen, DefaultMaxNesting); bad || deep || err != nil {
					b.Fatal(bad, deep, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/part")
		})
	}
}
