package chatlog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxValueBytes is the largest JSON value (a line of JSON Lines, or
// a whole JSON file) read by default; a larger one is skipped, read through
// without being held.
const DefaultMaxValueBytes = 64 << 20

// valueReader splits a stream into its top-level JSON values without
// decoding them, so that a file is read one value at a time and a value
// over the limit costs no memory: it is scanned through and dropped.
// Whitespace between values (blank lines, CRLF) and a byte order mark at
// the start are skipped.
type valueReader struct {
	r      *bufio.Reader
	max    int
	offset int64 // bytes consumed so far
	buf    []byte
	start  bool
}

func newValueReader(r io.Reader, max int) *valueReader {
	if max <= 0 {
		max = DefaultMaxValueBytes
	}
	return &valueReader{r: bufio.NewReaderSize(r, 64<<10), max: max, start: true}
}

// errTruncated says that the stream ended inside a value.
var errTruncated = errors.New("the file ends inside this value")

// oversize says that a value was larger than the limit.
type oversize struct{ size int64 }

func (o *oversize) Error() string { return fmt.Sprintf("a value of %d bytes", o.size) }

// next returns the next value's bytes (valid until the next call) and the
// offset it starts at; io.EOF after the last. A value cut short by the end
// of the stream is errTruncated, one over the limit an *oversize.
func (v *valueReader) next() ([]byte, int64, error) {
	if v.start {
		v.start = false
		if b, err := v.r.Peek(3); err == nil && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
			_, _ = v.r.Discard(3)
			v.offset += 3
		}
	}
	for {
		c, err := v.r.ReadByte()
		if err != nil {
			return nil, v.offset, err
		}
		v.offset++
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			_ = v.r.UnreadByte()
			v.offset--
			break
		}
	}
	at := v.offset
	v.buf = v.buf[:0]
	var size int64
	keep := func(c byte) {
		size++
		switch {
		case size <= int64(v.max):
			v.buf = append(v.buf, c)
		case size == int64(v.max)+1:
			v.buf = nil // over the limit: scanned through, not held
		}
	}
	depth, inString, escaped := 0, false, false
	first := byte(0)
	for done := false; !done; {
		c, err := v.r.ReadByte()
		if err == io.EOF {
			if first == '{' || first == '[' || first == '"' {
				return nil, at, errTruncated
			}
			break // a scalar ends at the end of the stream
		}
		if err != nil {
			return nil, at, err
		}
		if first == 0 {
			first = c
		} else if first != '{' && first != '[' && first != '"' && isDelimiter(c) {
			_ = v.r.UnreadByte() // the byte after a scalar
			break
		}
		v.offset++
		keep(c)
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				done = depth == 0
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			done = depth <= 0
		}
	}
	if size > int64(v.max) {
		return nil, at, &oversize{size}
	}
	return v.buf, at, nil
}

// isDelimiter reports whether c ends a bare scalar (a number, true, false
// or null).
func isDelimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '{', '}', '[', ']', ',', ':', '"':
		return true
	}
	return false
}
