package lisp

// valueChunks collects values one at a time when their number is not
// known before: what an evaluation realized of a lazy sequence, a
// sequence read whole. One array grown by append holds up to twice its
// values while it grows, and leaves the arrays it grew out of as garbage
// the heap holds until a collection; chunks hold at most one chunk of
// room and leave nothing behind. The first chunk starts at 8 values and
// doubles up to valueChunk, so a few values take a few slots.
type valueChunks struct{ chunks [][]Value }

// valueChunk is how many values a chunk holds, past the first chunk's
// growth.
const valueChunk = 256

// room is the slots the next add makes, 0 when its chunk has room: what
// a caller that pays for the room charges before the add.
func (c *valueChunks) room() int {
	n := len(c.chunks)
	switch {
	case n == 0:
		return 8
	case len(c.chunks[n-1]) < cap(c.chunks[n-1]):
		return 0
	case n == 1 && cap(c.chunks[0]) < valueChunk:
		return 2 * cap(c.chunks[0])
	}
	return valueChunk
}

// add appends v, making the room room reports.
func (c *valueChunks) add(v Value) {
	switch room := c.room(); {
	case room == 0:
	case len(c.chunks) == 1 && cap(c.chunks[0]) < valueChunk:
		c.chunks[0] = append(make([]Value, 0, room), c.chunks[0]...) // the first chunk, doubled
	default:
		c.chunks = append(c.chunks, make([]Value, 0, room))
	}
	last := len(c.chunks) - 1
	c.chunks[last] = append(c.chunks[last], v)
}

// len is how many values were added.
func (c *valueChunks) len() int {
	n := len(c.chunks)
	if n == 0 {
		return 0
	}
	return (n-1)*valueChunk + len(c.chunks[n-1])
}

// at is the i'th value added.
func (c *valueChunks) at(i int) Value { return c.chunks[i/valueChunk][i%valueChunk] }

// values are the values added, in one array of exactly their number.
func (c *valueChunks) values() []Value {
	out := make([]Value, 0, c.len())
	for _, chunk := range c.chunks {
		out = append(out, chunk...)
	}
	return out
}
