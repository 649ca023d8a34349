package lisp

import (
	"fmt"
	"strings"
	"testing"
)

// wideText is open, n parts written by part, close: the widest data for
// its read cost.
func wideText(open, close string, n int, part func(i int) string) string {
	var sb strings.Builder
	sb.WriteString(open)
	for i := 0; i < n; i++ {
		sb.WriteString(part(i))
		sb.WriteByte(' ')
	}
	sb.WriteString(close)
	return sb.String()
}

// BenchmarkReadWide reads 100,000 distinct keywords, keyword keys and
// string keys: the reader's time per unit of read cost is highest for
// wide data of small parts (docs/RELIABILITY.md, "Charges decided by
// work, not the clock").
func BenchmarkReadWide(b *testing.B) {
	const n = 100_000
	for _, c := range []struct{ name, text string }{
		{"keyword-vector", wideText("[", "]", n, func(i int) string { return fmt.Sprintf(":k%d", i) })},
		{"string-vector", wideText("[", "]", n, func(i int) string { return fmt.Sprintf("%q", fmt.Sprint("k", i)) })},
		{"keyword-map", wideText("{", "}", n, func(i int) string { return fmt.Sprintf(":user/k%d %d", i, i) })},
		{"string-map", wideText("{", "}", n, func(i int) string { return fmt.Sprintf("%q %d", fmt.Sprint("k", i), i) })},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ReadWire(c.text, WireRead{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadWork reads texts of each kind of work the reader does and
// reports its time per unit of what a host bounds by its timeout: the
// value's read cost plus the text's read work (ReadWork). The server
// allows 24 MiB of those a second of timeout, 40 ns a unit; every kind
// should read several times faster (docs/RELIABILITY.md, "Reading
// decided by work").
func BenchmarkReadWork(b *testing.B) {
	const n = 200_000
	digits := strings.Repeat("7", 100_000)
	for _, c := range []struct {
		name, text string
		json       bool
	}{
		{"keywords", wideText("[", "]", n, func(i int) string { return fmt.Sprintf(":k%d", i) }), false},
		{"ones", wideText("[", "]", n, func(int) string { return "1" }), false},
		{"characters", wideText("[", "]", n, func(int) string { return `\a` }), false},
		{"floats", wideText("[", "]", n, func(int) string { return "1.5e10" }), false},
		{"empty-vectors", wideText("[", "]", n, func(int) string { return "[]" }), false},
		{"escapes", `"` + strings.Repeat(`\n\t\u0041\"`, n) + `"`, false},
		{"commas", "[" + strings.Repeat(",", 20*n) + "]", false},
		{"discards", "[" + strings.Repeat("#_[] ", n) + "]", false},
		{"radix36-60", wideText("[", "]", n/4, func(int) string { return "36r" + strings.Repeat("Z", 60) }), false},
		{"radix36-100k", wideText("[", "]", 4, func(int) string { return "36r" + strings.Repeat("Z", 100_000) }), false},
		{"decimal-100k", wideText("[", "]", 4, func(int) string { return digits }), false},
		{"json-strings", "[" + strings.TrimSuffix(strings.Repeat(`"k",`, n), ",") + "]", true},
		{"json-object", wideText("{", "}", n, func(i int) string {
			if i == 0 {
				return `"k0":1`
			}
			return fmt.Sprintf(`,"k%d":1`, i)
		}), true},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			var units int64
			for b.Loop() {
				_, cost, err := ReadWire(c.text, WireRead{JSON: c.json})
				if err != nil {
					b.Fatal(err)
				}
				units = cost + ReadWork(c.text, c.json)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(units), "ns/unit")
		})
	}
}
