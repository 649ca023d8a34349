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
