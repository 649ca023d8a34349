package memo

import (
	"fmt"
	"sync"
	"testing"
)

func TestTablesShareOneBudget(t *testing.T) {
	m := New(1000)
	words := NewTable[string, int](m, "words")
	pairs := NewTable[[2]int, string](m, "pairs")
	for i := range 10 {
		words.Put(fmt.Sprint(i), i, 60)
		pairs.Put([2]int{i, i}, fmt.Sprint(i), 60)
	}
	// 20 entries of 60 bytes: the budget keeps the 16 most recent.
	var bytes int64
	entries := 0
	for _, s := range m.Stats() {
		bytes += s.Bytes
		entries += s.Entries
	}
	if bytes > 1000 || entries != 16 {
		t.Fatalf("%d entries, %d bytes; want 16 within the budget of 1000: %+v", entries, bytes, m.Stats())
	}
	if _, ok := words.Get("0"); ok {
		t.Error("the oldest entry is still remembered")
	}
	if v, ok := pairs.Get([2]int{9, 9}); !ok || v != "9" {
		t.Errorf("the newest entry: %q, %v", v, ok)
	}
}

func TestLeastRecentlyUsedGoesFirst(t *testing.T) {
	m := New(800)
	tab := NewTable[string, string](m, "t")
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		tab.Put(k, k, 100)
	}
	tab.Get("a") // now b is the least recently used
	tab.Put("i", "i", 100)
	if _, ok := tab.Get("b"); ok {
		t.Error("b should have been forgotten")
	}
	for _, k := range []string{"a", "c", "i"} {
		if _, ok := tab.Get(k); !ok {
			t.Errorf("%s forgotten", k)
		}
	}
	s := m.Stats()[0]
	if s.Evictions != 1 || s.Hits != 4 || s.Misses != 1 || s.Entries != 8 || s.Bytes != 800 {
		t.Errorf("stats %+v", s)
	}
}

func TestLargeResultsAreNotRemembered(t *testing.T) {
	m := New(800)
	tab := NewTable[string, string](m, "t")
	tab.Put("small", "s", 100)
	tab.Put("large", "l", 101)
	if _, ok := tab.Get("large"); ok {
		t.Error("a result of more than an eighth of the budget was remembered")
	}
	if _, ok := tab.Get("small"); !ok {
		t.Error("the small result was flushed")
	}
	if got := tab.MaxBytes(); got != 100 {
		t.Errorf("MaxBytes is %d, want 100", got)
	}
}

// TestRecountKeepsTheBudget: a result recounted larger (it memoized more
// about itself once used) pushes the oldest entries out as a Put would;
// one recounted past MaxBytes is forgotten; a key not held is left alone.
func TestRecountKeepsTheBudget(t *testing.T) {
	m := New(800)
	tab := NewTable[string, int](m, "t")
	for i := range 16 {
		tab.Put(fmt.Sprint(i), 100, 50)
	}
	tab.Recount("15", func(_ string, v int) int64 { return int64(v) })
	if _, ok := tab.Get("0"); ok {
		t.Error("the oldest entry is still remembered after another grew past the budget")
	}
	if s := m.Stats()[0]; s.Entries != 15 || s.Bytes != 14*50+100 {
		t.Errorf("after one entry grew to 100 bytes: %+v, want 15 entries of 800 bytes", s)
	}
	tab.Recount("15", func(string, int) int64 { return 101 }) // past MaxBytes, 800/8
	if _, ok := tab.Get("15"); ok {
		t.Error("an entry recounted past MaxBytes is still remembered")
	}
	tab.Recount("gone", func(string, int) int64 { t.Error("size asked of a key not held"); return 0 })
	if s := m.Stats()[0]; s.Entries != 14 || s.Bytes != 14*50 {
		t.Errorf("after the entry was forgotten: %+v, want 14 entries of 700 bytes", s)
	}
}

func TestFirstResultStays(t *testing.T) {
	tab := NewTable[string, int](New(1000), "t")
	tab.Put("k", 1, 10)
	tab.Put("k", 2, 10)
	if v, _ := tab.Get("k"); v != 1 {
		t.Errorf("got %d, want the first result", v)
	}
}

func TestNilMemoRemembersNothing(t *testing.T) {
	var m *Memo
	if New(0) != nil || New(-1) != nil {
		t.Fatal("a budget of zero or less must give a nil Memo")
	}
	tab := NewTable[string, int](m, "t")
	tab.Put("k", 1, 1)
	if _, ok := tab.Get("k"); ok {
		t.Error("a nil Memo remembered")
	}
	if m.Stats() != nil || m.Budget() != 0 || tab.MaxBytes() != 0 {
		t.Error("a nil Memo has stats")
	}
}

// Run with -race: tables of one Memo are used from many goroutines.
func TestConcurrentUse(t *testing.T) {
	m := New(5000)
	a := NewTable[int, int](m, "a")
	b := NewTable[string, int](m, "b")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := (i * (g + 1)) % 300
				if v, ok := a.Get(k); ok && v != k {
					t.Errorf("a[%d] = %d", k, v)
				}
				a.Put(k, k, 50)
				b.Put(fmt.Sprint(k), k, 30)
			}
		})
	}
	wg.Wait()
	var bytes int64
	for _, s := range m.Stats() {
		bytes += s.Bytes
	}
	if bytes > 5000 {
		t.Errorf("%d bytes held, over the budget", bytes)
	}
}
