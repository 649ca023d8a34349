package lisp

import (
	"runtime"
	"testing"
)

// TestRegexChargedWhatItHolds compiles many copies of regexes of many
// shapes and compares the live heap they hold (the least of three
// measures) with their heap shape: never below, and at most 5x above (the fixed part of a
// one-character pattern is most of what it holds).
// \pL{100} held 842 KB where 8.4 KB was charged.
func TestRegexChargedWhatItHolds(t *testing.T) {
	for _, pattern := range []string{
		"a", "[a-z]{20}", `\pL{100}`, `\p{Greek}{40}`, `(?u)\w{30}`, `(?iu)straße`, `(?i)hello world`,
		`[^a]{50}`, `(a|b|c|d){30}`, `\p{Greek}+|\p{Latin}+|\p{Cyrillic}+`, `(\p{Greek}|\p{Han}|\p{Arabic}){30}`,
		`^\bfoo\b$`, `\bword\b`, `^[0-9]{3}-[0-9]{4}$`, `[a-z]{1,1000}`, `(a|bc){300}`, `\pL{1000}`, `\p{Han}{990}`, `(\pL\pN){500}`, `(?<=a)b`, `(?=\pL{20})\w+`, `(a)\1{10}`,
	} {
		const copies = 100
		least := int64(-1)
		var charged int64
		for range 3 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			kept := make([]*regex, copies)
			for i := range kept {
				r, err := compileRegex("re-pattern", pattern)
				if err != nil {
					t.Fatalf("%s: %v", pattern, err)
				}
				kept[i] = r
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / copies
			if least < 0 || held < least {
				least = held
			}
			charged = kept[0].heapShape()
			runtime.KeepAlive(kept)
		}
		if charged < least || charged > 5*max(least, 1) {
			t.Errorf("%s: charged %d bytes, holds %d: want between 1x and 5x", pattern, charged, least)
		}
	}
}

// TestRegexesHeldEndMemoryLimit keeps 200 regexes of a Unicode class
// repeated, each holding some 840 KB: the program ends memory_limit
// where it held 196 MB against a 10 MiB budget.
func TestRegexesHeldEndMemoryLimit(t *testing.T) {
	src := `(count (mapv #(re-pattern (str "\\pL{100}" %)) (range 200)))`
	if res := run(t, src, Env{}); res.Err == nil || res.Err.Kind != memoryLimit {
		t.Errorf("%s: %v, want memory_limit", src, res.Err)
	}
}
