package bpe

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/tiktoken-go/tokenizer"
)

// benchTexts are what the sidecar counts: the system prompt, an agent's
// code and tool output (a golden file of rendered turns), and non-Latin
// prose.
func benchTexts(b *testing.B) map[string]string {
	turn, err := os.ReadFile("../../strategies/testdata/full_history.txtar")
	if err != nil {
		b.Fatal(err)
	}
	return map[string]string{
		"prompt": lisp.SystemPrompt(),
		"turn":   string(turn),
		"cjk":    strings.Repeat("日本語のテキストと中文分词测试，还有한국어 텍스트。", 200),
	}
}

// BenchmarkCount counts each text with this package and with
// github.com/tiktoken-go/tokenizer (the library), vocabularies loaded and
// resident (a warm process).
func BenchmarkCount(b *testing.B) {
	for name, text := range benchTexts(b) {
		for _, enc := range Names() {
			e, err := Get(enc)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/"+enc+"/bpe", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					e.Count(text)
				}
			})
			if !slices.Contains(tiktokenNames, enc) {
				continue // the library has OpenAI's encodings only
			}
			lib, err := tokenizer.Get(tokenizer.Encoding(enc))
			if err != nil {
				b.Fatal(err)
			}
			b.Run(name+"/"+enc+"/library", func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					lib.Count(text)
				}
			})
		}
	}
}

// BenchmarkLoad measures what loading an encoding does: parsing the
// embedded file's header. It reports the heap the loaded table holds.
func BenchmarkLoad(b *testing.B) {
	for _, enc := range tiktokenNames {
		b.Run(enc, func(b *testing.B) {
			file := encodings[enc].file
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var t *vocab.Table
			for b.Loop() {
				var err error
				if t, err = vocab.Parse(file); err != nil {
					b.Fatal(err)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(t)
			b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse)), "heap-B")
		})
	}
}

// BenchmarkLoadGemma measures loading Gemma 3's vocabulary: decompressing
// the embedded file and reading its merges. It reports the heap the loaded
// model holds.
func BenchmarkLoadGemma(b *testing.B) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var g *gemmaModel
	for b.Loop() {
		var err error
		if g, err = loadGemma(gemma3File); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(g)
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse)), "heap-B")
}

// BenchmarkCountLongPiece counts texts that are one piece of a megabyte:
// a run of newlines, and random letters (no two windows alike).
func BenchmarkCountLongPiece(b *testing.B) {
	e, err := Get("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var letters strings.Builder
	for letters.Len() < 1<<20 {
		letters.WriteByte("abehqtx"[r.IntN(7)])
	}
	for name, text := range map[string]string{"newlines": strings.Repeat("\n", 1<<20), "letters": letters.String()} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				e.Count(text)
			}
		})
	}
}

// BenchmarkCountBase64Doubling counts random base64 (an inline image or
// file a chat carries) of doubling sizes with each encoding: the time per
// byte stays the same as the size doubles. Gemma 3 has no pre-tokenizer,
// so the text is one word merged a window at a time from its characters.
func BenchmarkCountBase64Doubling(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	blob := make([]byte, 2<<20)
	for i := range blob {
		blob[i] = base64[r.IntN(len(base64))]
	}
	for _, enc := range Names() {
		e, err := Get(enc)
		if err != nil {
			b.Fatal(err)
		}
		for n := 256 << 10; n <= len(blob); n *= 2 {
			text := string(blob[:n])
			b.Run(fmt.Sprintf("%s/%dKiB", enc, n>>10), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					e.Count(text)
				}
			})
		}
	}
}
