package lisp

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// heldBy is the heap that the value build returns keeps once collected.
func heldBy(t *testing.T, build func() (Value, error)) (Value, int64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v, err := build()
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(v)
	return v, int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// TestDuplicatesHoldNothing builds sets and maps from a hundred thousand
// reads of one element or key, in every builder that reads elements
// (the EDN reader, the JSON decoder, source, the builtins that build
// sets and maps), and checks that what the value keeps is sized by what
// it holds: an index or room sized by the elements read held megabytes
// for one element (#{1 1 ...} of 2 MiB, 53 MB of index).
func TestDuplicatesHoldNothing(t *testing.T) {
	const n = 100_000
	edn := func(text string) func() (Value, error) {
		return func() (Value, error) { return ParseEDN(text, 0) }
	}
	json := func(text string) func() (Value, error) {
		return func() (Value, error) {
			v, _, err := decodeJSON(context.Background(), text, 0)
			return v, err
		}
	}
	source := func(text string) func() (Value, error) {
		return func() (Value, error) { return loadSource(context.Background(), text, 0) }
	}
	program := func(src string) func() (Value, error) {
		return func() (Value, error) {
			res, err := Eval(context.Background(), src, Env{})
			if err != nil {
				return nil, err
			}
			return res.Value, nil
		}
	}
	builds := map[string]func() (Value, error){
		"EDN set of one number":     edn("#{" + strings.Repeat("1 ", n) + "}"),
		"EDN set of one vector":     edn("#{" + strings.Repeat("[] ", n) + "}"),
		"EDN map of one vector key": edn("{" + strings.Repeat("[] 1 ", n) + "}"),
		"EDN map of one key":        edn("{" + strings.Repeat("1 1 ", n) + "}"),
		"JSON object of one key":    json("{" + strings.Repeat(`"a":1,`, n) + `"a":1}`),
		"source set of one symbol":  source("#{" + strings.Repeat("'a ", n/10) + "}"),
		"source map of one symbol":  source("{" + strings.Repeat("'a 1 ", n/10) + "}"),
		"set":                       program("(set (repeat 100000 []))"),
		"hash-set":                  program("(apply hash-set (repeat 100000 []))"),
		"into a set":                program("(into #{} (repeat 100000 []))"),
		"sorted-set":                program("(apply sorted-set (repeat 100000 1))"),
		"frequencies":               program("(frequencies (repeat 100000 []))"),
		"hash-map":                  program("(apply hash-map (repeat 200000 []))"),
		"sorted-map":                program("(apply sorted-map (repeat 200000 1))"),
		"sorted-set-by":             program("(apply sorted-set-by < (repeat 100000 1))"),
		"zipmap":                    program("(zipmap (repeat 100000 []) (range 100000))"),
		"into a map":                program("(into {} (map (fn [i] [[] i]) (range 100000)))"),
	}
	for name, build := range builds {
		t.Run(name, func(t *testing.T) {
			least := int64(1 << 62)
			for range 3 {
				_, held := heldBy(t, build)
				least = min(least, held)
			}
			if least > 64<<10 {
				t.Errorf("one element read %d times holds %d bytes", n, least)
			}
		})
	}
}
