package server

import (
	"math/bits"
	"sync"
)

// requestBuffers is the pool the transport reads a request's frames into
// and the codec gathers them into before decoding (ServerOptions gives it
// to grpc-go for both). grpc-go's default pool clears every buffer it
// hands out again; for a megabyte request that clearing cost as much as
// the copy that follows it, and it buys nothing: every user of the pool
// writes the bytes it reads (the transport fills a frame's buffer from
// the connection, the codec copies the frames over its buffer).
//
// Frames are cut from the frame arena while it has room, so that the
// frames of a request that arrives alone lie end to end and need no
// gathering (frameArena). Other buffers come in size classes a quarter of a power of two apart (1 MiB,
// 1.25 MiB, 1.5 MiB, ...), so a pooled buffer serves requests up to a
// quarter smaller than itself, and holds at most a quarter more memory
// than the request it serves (power-of-two classes cost a third more
// peak RSS under load).
type requestBuffers struct {
	frames  frameArena
	classes [4 * (maxBufferExp + 1)]sync.Pool // of *[]byte, by bufferClass
}

const (
	minBufferExp = 12 // the smallest class holds up to 5 KiB
	maxBufferExp = 26 // up to 128 MiB; larger requests get a buffer of their own
)

// bufferClass returns the class of buffers that hold n bytes and its
// capacity; ok is false when n is outside the classes.
func bufferClass(n int) (class, size int, ok bool) {
	if n <= 1<<minBufferExp {
		n = 1<<minBufferExp + 1
	}
	exp := bits.Len(uint(n-1)) - 1 // 1<<exp < n <= 1<<(exp+1)
	if exp > maxBufferExp {
		return 0, 0, false
	}
	step := 1 << (exp - 2)
	quarters := (n + step - 1) / step // 5 to 8
	return 4*exp + quarters - 5, quarters * step, true
}

// Get returns a buffer of length n whose content is undefined.
func (p *requestBuffers) Get(n int) *[]byte {
	if b := p.frames.get(n); b != nil {
		return b
	}
	return p.fromClass(n)
}

// Put takes b back: into the arena if it was cut from it, else into its
// class if its capacity is a class's.
func (p *requestBuffers) Put(b *[]byte) {
	if !p.frames.put(b) {
		p.toClass(b)
	}
}

func (p *requestBuffers) fromClass(n int) *[]byte {
	class, size, ok := bufferClass(n)
	if !ok {
		b := make([]byte, n)
		return &b
	}
	if b, ok := p.classes[class].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, size)
	return &b
}

func (p *requestBuffers) toClass(b *[]byte) {
	if class, size, ok := bufferClass(cap(*b)); ok && size == cap(*b) {
		p.classes[class].Put(b)
	}
}
