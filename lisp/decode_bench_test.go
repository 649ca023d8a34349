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
//
// The densest kinds (vectors, maps and sets of one or two small parts)
// would cost more than ReadCostLimit of their text, so the reader refuses
// them: for those, the refused sub-benchmark checks the refusal and
// reports what refusing allocated, and the kind is measured on the
// densest text the bound accepts, each item followed by as many spaces as
// it needs (pad-B/item). live-B/item-B is what is kept per byte of the
// item's own spelling (its text with one space), the same for both.
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
		dense := decodeBenchText(kind.item, 1)
		if _, err := ParseEDN(dense, 0); isReadCostRefusal(err) {
			b.Run(kind.name+"/refused", func(b *testing.B) {
				var alloc float64
				for b.Loop() {
					var before, after runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&before)
					_, err := ParseEDN(dense, 0)
					runtime.ReadMemStats(&after)
					if !isReadCostRefusal(err) {
						b.Fatalf("4 MB of %s read: %v, want the read-cost refusal", kind.item, err)
					}
					alloc = float64(after.TotalAlloc-before.TotalAlloc) / float64(len(dense))
				}
				b.ReportMetric(alloc, "alloc-B/text-B")
				b.ReportMetric(0, "ns/op")
			})
		} else if err != nil {
			b.Fatalf("%s: %v", kind.name, err)
		}
		pad := 1
		text := dense
		for {
			_, err := ParseEDN(text, 0)
			if err == nil {
				break
			}
			if !isReadCostRefusal(err) || pad >= 64 {
				b.Fatalf("%s padded by %d spaces: %v", kind.name, pad, err)
			}
			pad++
			text = decodeBenchText(kind.item, pad)
		}
		b.Run(kind.name, func(b *testing.B) {
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
			perDense := float64(len(kind.item)+pad) / float64(len(kind.item)+1) // bytes of text per byte of the dense text
			b.ReportMetric(live, "live-B/text-B")
			b.ReportMetric(alloc, "alloc-B/text-B")
			b.ReportMetric(live*perDense, "live-B/item-B")
			b.ReportMetric(float64(pad), "pad-B/item")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// decodeBenchText is a vector of item, each followed by pad spaces, of
// about 4 MB.
func decodeBenchText(item string, pad int) string {
	var sb strings.Builder
	sb.WriteString("[")
	sep := strings.Repeat(" ", pad)
	for sb.Len() < 4<<20 {
		sb.WriteString(item)
		sb.WriteString(sep)
	}
	sb.WriteString("]")
	return sb.String()
}

// isReadCostRefusal reports whether err is the reader's refusal of a
// value that would cost more than ReadCostLimit of its text.
func isReadCostRefusal(err error) bool {
	return err != nil && strings.Contains(err.Error(), "once read, more than")
}
