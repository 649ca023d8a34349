package server

import (
	"sync"
	"unsafe"

	"google.golang.org/grpc/mem"
)

// frameArena is where the transport reads the frames of a request that
// arrives alone, which is how an agent calls its sidecar: one call at a
// time. Each frame is cut from one block right after the one before, so
// the frames of such a request lie end to end, and the codec decodes them
// where they are (contiguous) instead of gathering a copy first: a
// megabyte for a long run. Once every frame cut from the block has been
// given back, cutting starts again at its beginning, so one caller reuses
// the same block, still in the cache, call after call. Over gRPC this took
// about a quarter off what the sidecar spends per one-caller ToMessages
// call beyond what the transport costs (docs/BENCHMARKS.md).
//
// Requests that overlap (several callers, whose frames interleave on a
// connection or arrive on several) are not end to end and are gathered as
// before; while they keep frames in the block it fills up, and further
// frames come from the size classes. The block is all the arena holds:
// arenaBytes, allocated at the first frame.
type frameArena struct {
	mu      sync.Mutex
	block   []byte
	next    int       // where the next frame is cut
	live    int       // frames cut and not given back
	handles []*[]byte // given back, for the next frames: a frame costs no allocation
	inPlace int       // requests found end to end, for tests
}

const (
	// arenaBytes bounds the requests that can lie end to end; larger ones
	// are gathered. A long agent run resends about a megabyte.
	arenaBytes = 2 << 20
	// maxFrame is the largest DATA frame grpc-go reads (HTTP/2's default
	// SETTINGS_MAX_FRAME_SIZE, which grpc-go's server keeps).
	maxFrame = 16 << 10
)

// get cuts a buffer of length n from the block, or returns nil when n is
// larger than a frame or the block has no room.
func (a *frameArena) get(n int) *[]byte {
	if n > maxFrame {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.block == nil {
		a.block = make([]byte, arenaBytes)
	}
	if a.next+n > len(a.block) {
		return nil
	}
	var h *[]byte
	if k := len(a.handles); k > 0 {
		h, a.handles = a.handles[k-1], a.handles[:k-1]
	} else {
		h = new([]byte)
	}
	*h = a.block[a.next : a.next+n : a.next+n] // capped: no append reaches the next frame
	a.next += n
	a.live++
	return h
}

// put takes back a buffer get cut and reports true; it reports false for
// any other buffer.
func (a *frameArena) put(h *[]byte) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.offset(*h); !ok {
		return false
	}
	*h = nil
	a.handles = append(a.handles, h)
	if a.live--; a.live == 0 {
		a.next = 0
	}
	return true
}

// offset is where b starts in the block, if it starts inside it. Buffers
// are told apart by address: a slice cut from the block, or re-sliced by
// its user, still starts inside it; nothing else can.
func (a *frameArena) offset(b []byte) (int, bool) {
	if len(a.block) == 0 || cap(b) == 0 {
		return 0, false
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(a.block)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if at < base || at >= base+uintptr(len(a.block)) {
		return 0, false
	}
	return int(at - base), true
}

// contiguous returns data as one slice of the block when its buffers lie
// end to end in it. The slice is only valid until data is freed: until
// then, the block under data's buffers is not cut again.
func (a *frameArena) contiguous(data mem.BufferSlice) ([]byte, bool) {
	if len(data) < 2 {
		return nil, false // one buffer needs no gathering anyway
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	start, ok := a.offset(data[0].ReadOnlyData())
	if !ok {
		return nil, false
	}
	end := start
	for _, buf := range data {
		b := buf.ReadOnlyData()
		if at, ok := a.offset(b); !ok || at != end {
			return nil, false
		}
		end += len(b)
	}
	a.inPlace++
	return a.block[start:end:end], true
}
