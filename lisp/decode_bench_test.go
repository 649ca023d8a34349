package lisp

import (
	"runtime"
	"strings"
	"testing"
)

// BenchmarkDecodeMemory reads 4 MB of EDN of one kind of value and reports
// what the values keep (live-B/text-B: heap bytes per byte of text, after
// a collection, the values frozen as the server keeps them) and what
// reading them allocated in all (alloc-B/text-B). docs/BENCHMARKS.md has
// the figures per kind.
func BenchmarkDecodeMemory(b *testing.B) {
	for _, kind := range []struct{ name, item string }{
		{"ints", "1"},
		{"large-ints", "1000000"},
		{"floats", "1.5"},
		{"short-strings", `"a"`},
		{"keywords", ":a"},
		{"empty-vectors", "[]"},
		{"empty-maps", "{}"},
		{"one-int-vectors", "[1]"},
		{"two-int-vectors", "[1 2]"},
		{"one-key-maps", "{:a 1}"},
		{"records", `{:id 1 :name "x" :ok true}`},
		{"nested", `{:a {:b [1 {:c 2}]}}`},
		{"one-int-sets", "#{1}"},
	} {
		b.Run(kind.name, func(b *testing.B) {
			var sb strings.Builder
			sb.WriteString("[")
			for sb.Len() < 4<<20 {
				sb.WriteString(kind.item)
				sb.WriteByte(' ')
			}
			sb.WriteString("]")
			text := sb.String()
			var live, alloc float64
			for b.Loop() {
				var before, read, kept runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				v, err := ParseEDN(text, 0)
				if err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&read)
				Freeze(v)
				runtime.GC()
				runtime.ReadMemStats(&kept)
				runtime.KeepAlive(v)
				live = float64(kept.HeapAlloc-before.HeapAlloc) / float64(len(text))
				alloc = float64(read.TotalAlloc-before.TotalAlloc) / float64(len(text))
			}
			b.ReportMetric(live, "live-B/text-B")
			b.ReportMetric(alloc, "alloc-B/text-B")
			b.ReportMetric(0, "ns/op")
		})
	}
}
