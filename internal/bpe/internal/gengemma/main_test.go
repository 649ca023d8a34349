package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/testenv"
)

// TestCommittedFile checks that the committed gemma3.vocab.gz is what the
// generator writes from the tokenizer.json the oracle's lockfile pins.
func TestCommittedFile(t *testing.T) {
	testenv.SkipShort(t, "generating the Gemma vocabulary")
	in := filepath.Join("..", "..", "oracle", "testdata", "node_modules", "@lenml", "tokenizer-gemma3", "models", "tokenizer.json")
	raw, err := os.ReadFile(in)
	if err != nil {
		testenv.Missing(t, "the tokenizer oracle is not installed: run `make oracle` (npm ci in internal/bpe/oracle/testdata)")
	}
	want, err := build(raw)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "gemma3.vocab.gz")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the generator writes (%d bytes, want %d): run `go run ./internal/gengemma` in internal/bpe", path, len(got), len(want))
	}
}
