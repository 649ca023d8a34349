package lisp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCorpusProgramsKeepTheirAnalysis: a Program keeps its analysis for
// the next evaluation of its text, whatever the analysis was charged (the
// host that keeps it counts it by HeldBytes). Of the readable programs of
// the real-model corpora, every one whose analysis succeeds keeps it; a
// rule that kept only analyses of at most 8 bytes a byte of text left
// 271 of them (mostly short programs with a regex literal) compiling
// their patterns again at every replay.
func TestCorpusProgramsKeepTheirAnalysis(t *testing.T) {
	files, err := filepath.Glob("testdata/*/corpus.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("corpora: %v, %d files", err, len(files))
	}
	var readable, ok, kept int
	var dropped []string
	for _, file := range files {
		for _, src := range corpusPrograms(t, file) {
			p, err := ReadProgram(src, 0)
			if err != nil {
				continue
			}
			readable++
			ctx, cancel := context.WithCancel(context.Background())
			res, _ := EvalProgram(ctx, p, Env{Limits: Limits{MaxSteps: 20_000}})
			cancel()
			if res != nil && res.Err == nil {
				ok++
			}
			if p.compiled.Load() != nil {
				kept++
			} else if res != nil && res.Err == nil {
				dropped = append(dropped, src)
			}
		}
	}
	t.Logf("%d readable corpus programs, %d ran ok, %d keep their analysis", readable, ok, kept)
	for _, src := range dropped {
		t.Errorf("ran ok without keeping its analysis: %.80s", src)
	}
}

// corpusPrograms are the "program" fields of a corpus file's lines.
func corpusPrograms(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct{ Program string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Program != "" {
			out = append(out, line.Program)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProgramHoldsAtMostHeldBytes: what a Program holds once evaluated,
// its forms, compiled nodes and what its analysis built, is at most
// HeldBytes, for programs made of each form shape the reader and the
// analysis know, many times over. Counted at eleven times its text, a
// program of #(+ %) literals held 111 bytes a byte of text, ten times its
// count.
func TestProgramHoldsAtMostHeldBytes(t *testing.T) {
	shapes := map[string]string{
		"nested vectors":        "[" + strings.Repeat("[", 900) + strings.Repeat("]", 900) + "]",
		"nested calls":          "(do " + strings.Repeat("(do ", 900) + "1" + strings.Repeat(")", 900) + ")",
		"one-element vectors":   "(count [" + strings.Repeat("[1] ", 10000) + "])",
		"maps":                  "(count [" + strings.Repeat("{:a 1} ", 10000) + "])",
		"sets":                  "(count [" + strings.Repeat("#{1} ", 10000) + "])",
		"namespaced maps":       "(count [" + strings.Repeat("#:a{:b 1} ", 10000) + "])",
		"empty lists":           "[" + strings.Repeat("() ", 20000) + "]",
		"empty vectors":         "[" + strings.Repeat("[] ", 20000) + "]",
		"keywords":              "[" + strings.Repeat(":a ", 20000) + "]",
		"locals":                "(let [a 1] [" + strings.Repeat("a ", 20000) + "])",
		"doubles":               "[" + strings.Repeat("1.5 ", 20000) + "]",
		"big numbers":           "(count [" + strings.Repeat("1N 1M ", 5000) + "])",
		"characters":            "[" + strings.Repeat(`\a `, 20000) + "]",
		"quotes":                "[" + strings.Repeat(`'a `, 20000) + "]",
		"vars":                  "[" + strings.Repeat(`#'inc `, 20000) + "]",
		"var forms":             "[" + strings.Repeat(`(var inc) `, 20000) + "]",
		"metadata":              "[" + strings.Repeat(`^:a [] `, 10000) + "]",
		"function literals":     "(count [" + strings.Repeat(`#(+ %) `, 10000) + "])",
		"literals of 8 args":    "(count [" + strings.Repeat(`#(+ %1 %2 %3 %4 %5 %6 %7 %8) `, 3000) + "])",
		"rest literals":         "(count [" + strings.Repeat(`#(+ %&) `, 10000) + "])",
		"multi-arity functions": "(count [" + strings.Repeat(`(fn ([] 1) ([a] 2) ([a b] 3)) `, 3000) + "])",
		"destructuring fns":     "(count [" + strings.Repeat(`(fn [{:keys [a b]} [c d]] 1) `, 4000) + "])",
		"key destructuring":     "(let [{:keys [" + strings.Repeat("a ", 10000) + "]} {}] 1)",
		"defns":                 strings.Repeat(`(defn f "d" {:a 1} [x] {:pre [x]} x) `, 2000) + "1",
		"defs":                  strings.Repeat(`(def a 1) `, 8000) + "1",
		"derefs":                "(def a (atom 1)) [" + strings.Repeat(`@a `, 10000) + "]",
		"keyword calls":         "[" + strings.Repeat(`(:a {}) `, 8000) + "]",
		"cond->":                "(cond-> 1 " + strings.Repeat("true inc ", 8000) + ")",
		"doseq with let":        "[" + strings.Repeat("(doseq [x [] :let [y x] :when y] y) ", 2000) + "]",
		"dotimes":               "[" + strings.Repeat("(dotimes [i 0] i) ", 5000) + "]",
		"letfn":                 "[" + strings.Repeat(`(letfn [(f [x] x)] 1) `, 4000) + "]",
		"try":                   "[" + strings.Repeat(`(try 1 (catch Exception e 2)) `, 4000) + "]",
		"records":               strings.Repeat(`(defrecord R [a b]) `, 200) + "1",
		"multimethods":          strings.Repeat(`(defmulti m :k) (defmethod m 1 [x] x) `, 200) + "1",
		"strings":               "[" + strings.Repeat(`"`+strings.Repeat("x", 1000)+`" `, 100) + "]",
	}
	for name, src := range shapes {
		held := int64(-1)
		var counted int64
		for range 3 {
			before := liveHeap()
			p, err := ReadProgram(strings.Clone(src), 0)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res, err := EvalProgram(context.Background(), p, Env{}); err != nil || res.Err != nil {
				t.Fatalf("%s: %v, %v", name, err, res.Err)
			}
			if p.compiled.Load() == nil {
				t.Fatalf("%s: analysis not kept", name)
			}
			if n := liveHeap() - before; held < 0 || n < held {
				held = n
			}
			counted = p.HeldBytes()
			runtime.KeepAlive(p)
		}
		if held > counted {
			t.Errorf("%s (%d bytes): holds %d bytes, counted %d", name, len(src), held, counted)
		}
	}
}

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
