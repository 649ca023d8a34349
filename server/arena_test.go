package server

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"google.golang.org/grpc/mem"
)

// cut takes frames of the given sizes from p and fills them, as the
// transport would read them: each byte from seed, the frame's index and
// its position.
func cut(p *requestBuffers, seed byte, sizes ...int) mem.BufferSlice {
	var frames mem.BufferSlice
	for i, n := range sizes {
		h := p.Get(n)
		for j := range *h {
			(*h)[j] = seed ^ byte(i+j)
		}
		frames = append(frames, mem.NewBuffer(h, p))
	}
	return frames
}

// Frames cut one after another lie end to end, and contiguous hands them
// over as one slice of the block, without a copy; once all are given back
// the next frame is cut at the block's start again.
func TestArenaFramesLieEndToEnd(t *testing.T) {
	var p requestBuffers
	frames := cut(&p, 0, maxFrame, maxFrame, maxFrame, 1234)
	whole, ok := p.frames.contiguous(frames)
	if !ok {
		t.Fatal("frames cut one after another are not end to end")
	}
	if !bytes.Equal(whole, frames.Materialize()) {
		t.Fatal("the end-to-end slice differs from the frames")
	}
	if &whole[0] != &p.frames.block[0] {
		t.Error("the end-to-end slice is not the block itself")
	}
	if _, ok := p.frames.contiguous(frames[1:]); !ok {
		t.Error("a run of frames that does not start the block is not end to end")
	}
	frames.Free()
	emptied(t, &p)
	again := p.Get(100)
	if &(*again)[0] != &p.frames.block[0] {
		t.Error("the first frame after the block emptied is not cut at its start")
	}
	p.Put(again)
}

// Frames of two requests cut in turn (streams interleaving on a
// connection) are not end to end, nor are buffers from the classes, nor
// frames given in another order.
func TestArenaTellsInterleavedFrames(t *testing.T) {
	var p requestBuffers
	var a, b mem.BufferSlice
	for range 3 {
		a = append(a, cut(&p, 1, maxFrame)...)
		b = append(b, cut(&p, 2, maxFrame)...)
	}
	for name, frames := range map[string]mem.BufferSlice{
		"interleaved": a,
		"reordered":   {b[1], b[0]},
		"one frame":   a[:1],
		"from classes": {
			mem.NewBuffer(p.fromClass(maxFrame), &p),
			mem.NewBuffer(p.fromClass(maxFrame), &p),
		},
	} {
		if _, ok := p.frames.contiguous(frames); ok {
			t.Errorf("%s: found end to end", name)
		}
	}
	a.Free()
	b.Free()
	emptied(t, &p)
}

// emptied checks that the arena holds no frame and cuts the next at the
// block's start.
func emptied(t *testing.T, p *requestBuffers) {
	t.Helper()
	if p.frames.live != 0 || p.frames.next != 0 {
		t.Fatalf("after every frame came back: %d live, next at %d", p.frames.live, p.frames.next)
	}
}

// A full arena leaves frames to the size classes, and takes none of their
// buffers back; larger buffers never come from it.
func TestArenaFull(t *testing.T) {
	var p requestBuffers
	frames := cut(&p, 0, slicesOf(arenaBytes/maxFrame, maxFrame)...)
	if _, ok := p.frames.contiguous(frames); !ok {
		t.Fatal("frames filling the block exactly are not end to end")
	}
	spill := p.Get(maxFrame)
	if _, ok := p.frames.offset(*spill); ok {
		t.Fatal("a frame was cut from a full arena")
	}
	if p.frames.put(spill) {
		t.Fatal("the arena took back a buffer it did not cut")
	}
	p.Put(spill)
	big := p.Get(maxFrame + 1)
	if _, ok := p.frames.offset(*big); ok {
		t.Error("a buffer larger than a frame was cut from the arena")
	}
	p.Put(big)
	frames.Free()
	emptied(t, &p)
}

func slicesOf(n, size int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = size
	}
	return s
}

// Connections read frames at once and the codec checks them at once; under
// -race this proves the arena's state is guarded, and each reader's frames
// must keep their bytes until given back.
func TestArenaConcurrent(t *testing.T) {
	var p requestBuffers
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 200 {
				frames := cut(&p, byte(g*31+round), maxFrame, maxFrame/2, 3000)
				want := frames.Materialize()
				runtime.Gosched() // let the others cut and write theirs
				if again := frames.Materialize(); !bytes.Equal(again, want) {
					t.Errorf("reader %d round %d: a frame was overwritten while in use", g, round)
				}
				if whole, ok := p.frames.contiguous(frames); ok && !bytes.Equal(whole, want) {
					t.Errorf("reader %d round %d: end-to-end slice differs from its frames", g, round)
				}
				frames.Free()
			}
		}()
	}
	wg.Wait()
	emptied(t, &p)
}

// Cutting starts over only when no frame is live: frames given back in any
// order leave the live ones where they are, untouched by new frames.
func TestArenaNeverCutsOverALiveFrame(t *testing.T) {
	var p requestBuffers
	first := cut(&p, 1, maxFrame, maxFrame, maxFrame)
	kept := first[1].ReadOnlyData()
	want := bytes.Clone(kept)
	first[0].Free()
	first[2].Free()
	later := cut(&p, 2, maxFrame, maxFrame, maxFrame, maxFrame)
	if !bytes.Equal(kept, want) {
		t.Fatal("a frame still in use was overwritten by frames cut later")
	}
	later.Free()
	first[1].Free()
	emptied(t, &p)
}
