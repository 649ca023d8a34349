package lisp

import (
	"context"
	"runtime"
	"testing"
)

// textCalls are the builtins that write a value's text through a charged
// writer, each on a value whose text (258 KB, twice that for format) is
// written piece by piece.
func textCalls() map[string][]Value {
	rows := make([]Value, 200)
	for i := range rows {
		row := make([]Value, 200)
		for j := range row {
			row[j] = Int(i*1000 + j)
		}
		rows[i] = vec(row...)
	}
	v := vec(rows...)
	return map[string][]Value{
		"str":                  {v},
		"pr-str":               {v},
		"json/generate-string": {v},
		"format":               {str("%s|%s"), v, v},
	}
}

// TestTextChargeIsTheSameWhateverThePool: a long text is charged the
// buffers a buffer grown from empty takes, whether or not a pooled buffer
// with room was reused, so a call is charged the same every time.
func TestTextChargeIsTheSameWhateverThePool(t *testing.T) {
	for name, args := range textCalls() {
		b := callable(t, name)
		var first int64
		for run := range 4 {
			if run%2 == 1 {
				buf := make([]byte, 0, maxPooledText)
				textBuffers.Put(&buf)
			}
			th := newThread(context.Background(), Limits{MaxSteps: Unlimited, MaxAllocBytes: Unlimited, MaxDepth: 100})
			if _, err := th.call(b, args); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if run == 0 {
				first = th.allocatedBytes()
			} else if got := th.allocatedBytes(); got != first {
				t.Errorf("%s: charged %d on run %d, %d on the first", name, got, run+1, first)
			}
		}
	}
}

// TestLongTextIsChargedItsBuffers: what Go allocates to write a long text
// (the text and every buffer it grows through) is within what the
// thread is charged for it, and a budget below that charge stops the
// text.
func TestLongTextIsChargedItsBuffers(t *testing.T) {
	skipUnlessMeasuringAllocation(t)
	for name, args := range textCalls() {
		b := callable(t, name)
		var allocated, charged int64 = -1, 0
		for range 3 {
			th := newThread(context.Background(), Limits{MaxSteps: Unlimited, MaxAllocBytes: Unlimited, MaxDepth: 100})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			text, err := th.call(b, args)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n := int64(after.TotalAlloc - before.TotalAlloc); allocated < 0 || n < allocated {
				allocated = n
			}
			charged = th.allocatedBytes()
			if size := int64(len(text.(String))); charged < 2*size {
				t.Errorf("%s: a text of %d bytes charged %d, less than it and one buffer of its size", name, size, charged)
			}
		}
		// Slack for the walk's own state, charged in steps, and for a
		// large text's last page.
		if allocated > charged+charged/20 {
			t.Errorf("%s: allocated %d, charged %d", name, allocated, charged)
		}
		th := newThread(context.Background(), Limits{MaxSteps: Unlimited, MaxAllocBytes: charged * 3 / 4, MaxDepth: 100})
		if _, err := th.call(b, args); asError(err).Kind != memoryLimit {
			t.Errorf("%s under a budget of three quarters of its charge: %v, want memory_limit", name, err)
		}
	}
}

// callable is the builtin a program calls by name, in a namespace or not.
func callable(t *testing.T, name string) *Builtin {
	t.Helper()
	for _, b := range everyCallable() {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no builtin %s", name)
	return nil
}
