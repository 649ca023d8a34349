// Command gen writes the vocabulary files that package bpe embeds, one per
// encoding, from the vocabularies that github.com/tiktoken-go/tokenizer
// (the version pinned in go.mod) compiles in: each rank's token is read
// back through the library's public Decode, so generating needs no network
// and reproduces the committed files byte for byte (TestCommittedFiles).
//
// Usage, from the bpe directory (go generate does this):
//
//	go run ./internal/gen [-dir .]
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
	"github.com/tiktoken-go/tokenizer"
)

// encodings are the encodings package bpe serves.
var encodings = []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase}

// maxRanks bounds the ranks probed; both encodings have fewer.
const maxRanks = 1 << 20

func main() {
	dir := flag.String("dir", ".", "directory to write <encoding>.vocab into")
	flag.Parse()
	for _, enc := range encodings {
		data, err := vocabFile(enc)
		if err != nil {
			log.Fatal(err)
		}
		path := filepath.Join(*dir, fileName(enc))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes\n", path, len(data))
	}
}

func fileName(enc tokenizer.Encoding) string { return string(enc) + ".vocab" }

// vocabFile returns the vocabulary file of enc: every rank the library's
// codec decodes, in rank order. Special tokens are left out: the library's
// Count and Encode treat their text as ordinary text.
func vocabFile(enc tokenizer.Encoding) ([]byte, error) {
	codec, err := tokenizer.Get(enc)
	if err != nil {
		return nil, err
	}
	var tokens []string
	for r := range maxRanks {
		tok, err := codec.Decode([]uint{uint(r)})
		if err != nil { // an unused rank, or past the last one
			tok = ""
		}
		tokens = append(tokens, tok)
	}
	for len(tokens) > 0 && tokens[len(tokens)-1] == "" {
		tokens = tokens[:len(tokens)-1]
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("%s: the library decodes no token", enc)
	}
	return vocab.Build(tokens)
}
