package server

import "testing"

// Every length gets a buffer at least that long from the smallest class
// that holds it, at most a quarter larger, and a buffer given back serves
// the next request of its class.
func TestRequestBufferClasses(t *testing.T) {
	var pool requestBuffers
	prev := 0
	for n := 1; n < 1<<22; n += 1 + n/7 {
		class, size, ok := bufferClass(n)
		if !ok || size < n || n > 1<<minBufferExp && 4*size > 5*n+4 || class < prev {
			t.Fatalf("bufferClass(%d) = %d, %d, %v", n, class, size, ok)
		}
		prev = class
		b := pool.Get(n)
		if len(*b) != n || cap(*b) != size {
			t.Fatalf("Get(%d): len %d cap %d, want cap %d", n, len(*b), cap(*b), size)
		}
		(*b)[n-1] = 'x'
		pool.Put(b)
	}
	if _, _, ok := bufferClass(1<<(maxBufferExp+1) + 1); ok {
		t.Error("a request larger than the largest class has a class")
	}
	b := pool.Get(1<<(maxBufferExp+1) + 1)
	pool.Put(b) // not kept, and no panic
	odd := make([]byte, 5000)
	pool.Put(&odd) // a capacity that is no class's: not kept
	if got := pool.Get(5000); cap(*got) == 5000 {
		t.Error("a buffer of a capacity that is no class's was handed out")
	}
}
