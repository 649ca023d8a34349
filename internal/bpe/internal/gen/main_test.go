package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedFiles checks that the committed vocabulary files are what
// the generator writes from the library version in go.mod.
func TestCommittedFiles(t *testing.T) {
	for _, enc := range encodings {
		want, err := vocabFile(enc)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("..", "..", fileName(enc))
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the generator writes (%d bytes, want %d): run go generate ./bpe", path, len(got), len(want))
		}
	}
}
