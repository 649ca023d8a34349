package valuecache

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// text is an EDN vector of n integers, long enough to be remembered.
func text(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		fmt.Fprintf(&b, "%d ", 1000+i)
	}
	b.WriteString("]")
	return b.String()
}

// reader counts how often the text was really read.
type reader struct{ reads int }

func (r *reader) read(k Key) func() (lisp.Value, error) {
	return func() (lisp.Value, error) {
		r.reads++
		return lisp.ParseEDNSample(k.Text, k.MaxNesting, k.Keep)
	}
}

func TestDecodeRemembersByExactKey(t *testing.T) {
	c := New(1 << 20)
	r := &reader{}
	k := Key{Format: EDN, Text: text(100)}
	first, err := c.Decode(k, r.read(k))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.Decode(k, r.read(k))
	if first != again || r.reads != 1 {
		t.Fatalf("second decode of the same key: same value %v, reads %d; want the remembered value and 1 read", first == again, r.reads)
	}
	// Anything that changes what reading produces is another key.
	for _, other := range []Key{
		{Format: JSON, Text: k.Text},
		{Format: EDN, Keep: 3, Text: k.Text},
		{Format: EDN, MaxNesting: 5, Text: k.Text},
		{Format: EDN, Text: k.Text + " "},
	} {
		before := r.reads
		v, err := c.Decode(other, r.read(other))
		if err != nil {
			t.Fatal(err)
		}
		if r.reads != before+1 {
			t.Errorf("key %+v answered from the cache", other.Keep)
		}
		if other.Keep == 3 && lisp.Repr(v) == lisp.Repr(first) {
			t.Errorf("sampled read returned the whole value")
		}
	}
	if s := c.Stats(); s.Hits != 1 || s.Misses != 5 || s.Entries != 5 {
		t.Errorf("stats %+v, want 1 hit, 5 misses, 5 entries", s)
	}
}

func TestDecodeNeverRemembersErrorsOrShortTexts(t *testing.T) {
	c := New(1 << 20)
	reads := 0
	bad := Key{Text: text(100) + "]"}
	for range 3 {
		_, err := c.Decode(bad, func() (lisp.Value, error) { reads++; return nil, errors.New("parse_error") })
		if err == nil {
			t.Fatal("a failed read must fail every time")
		}
	}
	short := Key{Text: "[1 2 3]"}
	for range 3 {
		if _, err := c.Decode(short, func() (lisp.Value, error) { reads++; return lisp.ParseEDN(short.Text, 0) }); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 6 {
		t.Errorf("reads = %d, want 6 (errors and short texts are read each time)", reads)
	}
	if s := c.Stats(); s.Entries != 0 {
		t.Errorf("entries = %d, want 0", s.Entries)
	}
}

func TestDecodeEvictsLeastRecentlyUsed(t *testing.T) {
	k := func(i int) Key { return Key{Text: text(100) + strings.Repeat(" ", i)} }
	one, _ := lisp.ParseEDN(k(0).Text, 0)
	size := entryBytes(k(0).Text, one)
	c := New(4*size + size/2) // room for four values
	r := &reader{}
	for i := range 4 {
		c.Decode(k(i), r.read(k(i)))
	}
	c.Decode(k(0), r.read(k(0))) // 0 is now the most recently used
	c.Decode(k(4), r.read(k(4))) // evicts 1
	r.reads = 0
	for _, i := range []int{0, 2, 3, 4} {
		c.Decode(k(i), r.read(k(i)))
	}
	if r.reads != 0 {
		t.Errorf("%d of the four most recent values were forgotten", r.reads)
	}
	c.Decode(k(1), r.read(k(1)))
	if r.reads != 1 {
		t.Errorf("the least recently used value was not forgotten")
	}
	if s := c.Stats(); s.Bytes > 4*size+size/2 || s.Evictions != 2 {
		t.Errorf("stats %+v: over the bound or wrong evictions (want 2)", s)
	}
}

// Canonical finds a remembered text whatever it was read as, holds one
// copy for all the entries read from it, and forgets it with the last.
func TestCanonicalHoldsEachRememberedTextOnce(t *testing.T) {
	size := entryBytes(text(100), mustParse(t, text(100)))
	c := New(4*size + size/2) // room for four values
	r := &reader{}
	sent := text(100)
	if _, ok := c.Canonical(sent); ok {
		t.Fatal("a text was found before anything was remembered")
	}
	whole := Key{Format: EDN, Text: sent}
	if _, err := c.Decode(whole, r.read(whole)); err != nil {
		t.Fatal(err)
	}
	resent := strings.Clone(sent)
	found, ok := c.Canonical(resent)
	if !ok || found != sent || unsafe.StringData(found) != unsafe.StringData(sent) {
		t.Fatalf("Canonical(resent) = %.20q, %v; want the remembered text", found, ok)
	}
	sampled := Key{Format: EDN, Keep: 3, Text: resent} // another entry, the same text
	if _, err := c.Decode(sampled, r.read(sampled)); err != nil {
		t.Fatal(err)
	}
	if got := c.texts[c.fingerprint(&Key{Text: sent})]; len(got) != 1 || got[0].entries != 2 {
		t.Fatalf("the text is held as %d texts; want one read by two entries", len(got))
	}
	for i := range 5 { // push both entries out
		k := Key{Format: EDN, Text: text(101 + i)}
		if _, err := c.Decode(k, r.read(k)); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.Canonical(sent); ok {
		t.Error("the text is still found after the entries read from it were evicted")
	}
	if _, ok := c.Canonical("[1 2 3]"); ok {
		t.Error("a short text was found")
	}
}

// A text that is not valid UTF-8 is read but never remembered, so that
// every text Canonical finds is valid.
func TestDecodeNeverRemembersInvalidUTF8(t *testing.T) {
	c := New(1 << 20)
	r := &reader{}
	k := Key{Format: EDN, Text: `["a string with a bad byte: \xff" ` + "\xff" + ` 1 2 3]`}
	for range 2 {
		if _, err := c.Decode(k, func() (lisp.Value, error) { r.reads++; return lisp.Int(1), nil }); err != nil {
			t.Fatal(err)
		}
	}
	if r.reads != 2 || c.Stats().Entries != 0 {
		t.Errorf("reads = %d, entries = %d; want 2 reads and nothing remembered", r.reads, c.Stats().Entries)
	}
	if _, ok := c.Canonical(k.Text); ok {
		t.Error("an invalid text was found")
	}
}

func TestDecodeSkipsValuesTooLargeToShare(t *testing.T) {
	k := Key{Text: text(1000)}
	c := New(int64(len(k.Text))) // one value may use at most a quarter
	r := &reader{}
	c.Decode(k, r.read(k))
	c.Decode(k, r.read(k))
	if r.reads != 2 || c.Stats().Entries != 0 {
		t.Errorf("reads %d, entries %d: a value over a quarter of the cache must not be kept", r.reads, c.Stats().Entries)
	}
}

func TestNilCacheReads(t *testing.T) {
	var c *Cache = New(0)
	r := &reader{}
	k := Key{Text: text(100)}
	c.Decode(k, r.read(k))
	c.Decode(k, r.read(k))
	if r.reads != 2 || c.Stats() != (Stats{}) {
		t.Errorf("a disabled cache must read every time (reads %d)", r.reads)
	}
}

// Goroutines share remembered values and build on them at once: each sees
// its own result and the remembered value never changes (run with -race).
func TestSharedValuesUnderConcurrency(t *testing.T) {
	c := New(1 << 20)
	k := Key{Text: text(100)}
	want := ""
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Decode(k, func() (lisp.Value, error) { return lisp.ParseEDN(k.Text, 0) })
			if err != nil {
				t.Error(err)
				return
			}
			grown := v.(*lisp.Vector).Conj(lisp.Int(int64(w)))
			if got := grown.Index(grown.Len() - 1); got != lisp.Int(int64(w)) {
				t.Errorf("worker %d saw %v appended", w, got)
			}
			mu.Lock()
			defer mu.Unlock()
			if want == "" {
				want = lisp.Repr(v)
			}
		}()
	}
	wg.Wait()
	v, _ := c.Decode(k, func() (lisp.Value, error) { return nil, errors.New("must be remembered") })
	if v == nil || lisp.Repr(v) != want || v.(*lisp.Vector).Len() != 100 {
		t.Errorf("remembered value changed")
	}
}

// colliding returns texts of one length that differ only in one digit
// outside the windows a fingerprint hashes, so that all share a
// fingerprint.
func colliding(t *testing.T, c *Cache, n int) []Key {
	t.Helper()
	base := text(1000)
	for at := len(base) / 3; at < len(base); at++ {
		if base[at] < '0' || base[at] > '9' {
			continue
		}
		var keys []Key
		for d := range n {
			keys = append(keys, Key{Format: EDN, Text: base[:at] + string(rune('0'+d%10)) + strings.Repeat(" ", d/10) + base[at+1+d/10:]})
		}
		fp := c.fingerprint(&keys[0])
		same := true
		for i := range keys {
			same = same && c.fingerprint(&keys[i]) == fp
		}
		if same {
			return keys
		}
	}
	t.Fatal("no position outside the fingerprint's windows")
	return nil
}

func TestFingerprintCollisionsAreToldApart(t *testing.T) {
	c := New(1 << 24)
	keys := colliding(t, c, 2)
	r := &reader{}
	first, _ := c.Decode(keys[0], r.read(keys[0]))
	second, _ := c.Decode(keys[1], r.read(keys[1]))
	if r.reads != 2 {
		t.Fatalf("reads = %d: a text was answered with the value of another of the same fingerprint", r.reads)
	}
	for i, want := range []lisp.Value{first, second} {
		got, _ := c.Decode(keys[i], r.read(keys[i]))
		if got != want || lisp.Repr(got) != lisp.Repr(mustParse(t, keys[i].Text)) {
			t.Errorf("text %d: got the wrong value", i)
		}
	}
	if r.reads != 2 || c.Stats().Entries != 2 {
		t.Errorf("reads %d, entries %d: want both texts remembered", r.reads, c.Stats().Entries)
	}
}

// Texts built to share a fingerprint cannot make lookups scan: at most
// maxPerFingerprint of them are kept, the least recently used replaced.
func TestFingerprintHoldsBoundedTexts(t *testing.T) {
	c := New(1 << 24)
	keys := colliding(t, c, 3*maxPerFingerprint)
	r := &reader{}
	for _, k := range keys {
		v, err := c.Decode(k, r.read(k))
		if err != nil {
			t.Fatal(err)
		}
		if lisp.Repr(v) != lisp.Repr(mustParse(t, k.Text)) {
			t.Fatalf("wrong value for a colliding text")
		}
	}
	fp := c.fingerprint(&keys[0])
	if n := len(c.entries[fp]); n != maxPerFingerprint {
		t.Errorf("%d texts under one fingerprint, want %d", n, maxPerFingerprint)
	}
	s := c.Stats()
	if s.Entries != maxPerFingerprint || s.Evictions != int64(len(keys)-maxPerFingerprint) {
		t.Errorf("stats %+v: want %d entries and %d evictions", s, maxPerFingerprint, len(keys)-maxPerFingerprint)
	}
	// The most recent texts are the ones kept.
	r.reads = 0
	for _, k := range keys[len(keys)-maxPerFingerprint:] {
		c.Decode(k, r.read(k))
	}
	if r.reads != 0 {
		t.Errorf("%d of the most recent colliding texts were forgotten", r.reads)
	}
	var bytes int64
	for el := c.lru.Front(); el != nil; el = el.Next() {
		bytes += el.Value.(*entry).bytes
	}
	if bytes != s.Bytes {
		t.Errorf("bytes accounted %d, held %d", s.Bytes, bytes)
	}
}

func mustParse(t *testing.T, text string) lisp.Value {
	t.Helper()
	v, err := lisp.ParseEDN(text, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// BenchmarkDecodeHit finds a remembered 80 KB text, sent again as a new
// string (as each request's are): the per-value cost of a running agent's
// call.
func BenchmarkDecodeHit(b *testing.B) {
	c := New(32 << 20)
	stored := text(12000)
	k := Key{Format: EDN, Text: stored}
	if _, err := c.Decode(k, func() (lisp.Value, error) { return lisp.ParseEDNSample(stored, 1000, 3) }); err != nil {
		b.Fatal(err)
	}
	again := Key{Format: EDN, Text: strings.Clone(stored)}
	b.SetBytes(int64(len(stored)))
	for b.Loop() {
		if _, err := c.Decode(again, func() (lisp.Value, error) { return nil, errors.New("must be remembered") }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFingerprint is the per-value cost of indexing a long text.
func BenchmarkFingerprint(b *testing.B) {
	c := New(1 << 20)
	k := Key{Format: EDN, Text: text(12000)}
	for b.Loop() {
		c.fingerprint(&k)
	}
}
