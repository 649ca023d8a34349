package lisp

import "testing"

// TestValueChunksKeepOrderAndLittleRoom: values added come back in order,
// by index and whole, and the chunks hold at most one chunk of room past
// the first chunk's growth (twice the values and 8 below valueChunk), so
// what room reports, which callers charge, is what the heap holds.
func TestValueChunksKeepOrderAndLittleRoom(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 100, 255, 256, 257, 512, 1000, 5000} {
		var c valueChunks
		charged := 0
		for i := range n {
			charged += c.room()
			c.add(Int(i))
		}
		if c.len() != n {
			t.Fatalf("%d added: len %d", n, c.len())
		}
		all := c.values()
		if len(all) != n || cap(all) != n {
			t.Fatalf("%d added: values has len %d, cap %d", n, len(all), cap(all))
		}
		for i := range n {
			if c.at(i) != Int(i) || all[i] != Int(i) {
				t.Fatalf("%d added: value %d is %v, %v", n, i, c.at(i), all[i])
			}
		}
		held := 0
		for _, chunk := range c.chunks {
			held += cap(chunk)
		}
		if held > max(2*n+8, n+valueChunk) {
			t.Errorf("%d added: the chunks hold %d slots", n, held)
		}
		if charged < held {
			t.Errorf("%d added: room reported %d slots, the chunks hold %d", n, charged, held)
		}
	}
}
