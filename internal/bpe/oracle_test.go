package bpe

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/internal/vocab"
	"github.com/ptc-sidecar/ptc-sidecar/internal/bpe/oracle"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The oracle is OpenAI's tokenizer (see package oracle): token ranks and
// counts must equal its encode_ordinary's.

// ourRanks returns the token ranks of text, from Tokens.
func ourRanks(e *Encoding, text string) []uint32 {
	var out []uint32
	for _, tok := range e.Tokens(text) {
		r, ok := e.table.Rank(tok)
		if !ok {
			panic("bpe: Tokens returned a text that is no token: " + tok)
		}
		out = append(out, uint32(r))
	}
	return out
}

// checkMatchesTiktoken checks the tokens and the count of text in every
// encoding against OpenAI's tokenizer.
func checkMatchesTiktoken(t testing.TB, text string) {
	t.Helper()
	o := oracle.Get(t)
	for _, name := range tiktokenNames {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		want := o.Ranks(t, name, text)
		if got := ourRanks(e, text); !slices.Equal(got, want) {
			t.Fatalf("%s: tokens of %q:\n got %v\nwant %v", name, text, got, want)
		}
		if toks := e.Tokens(text); utf8.ValidString(text) && strings.Join(toks, "") != text {
			t.Fatalf("%s: the tokens of %q join to %q", name, text, strings.Join(toks, ""))
		}
		if got := e.Count(text); got != len(want) {
			t.Fatalf("%s: Count(%q) = %d, tiktoken %d", name, text, got, len(want))
		}
	}
}

// handWritten are texts around the pre-tokenizers' decisions.
var handWritten = []string{
	"", " ", "  ", "\n", "\r\n", " \n ", "a", "A", "hello world", "Hello World",
	"HTTPServer", "McDonald's", "DON'T WE'LL I'M you've THEY'RE she'd", "it'ſ 'ſ x'S'T",
	"'s's", "'", "''", "a'", "A'LL", "\t\tfoo", "  foo", "   foo  ", "foo   \n\n  bar",
	"x\n\n\n\ty", "\r\r\n\n", "1", "12", "123", "1234567", "１２３", "٣٤٥", "ⅫⅢ", "3.14159",
	"$100.00", "a+b=c", "// comment", "/*x*/", "!!!\n/\n//", "...\r\n", " !?\n", "foo/bar/",
	"(def x 1)\n(println x)", "{:a 1 :b [1 2 3]}", "\u00a0\u00a0x", "a\u2028b", "\u0085x",
	"x\u3000y", "\x1c\x1d\x1e\x1f", "\v\f", "中文分词测试", "日本語のテキストです", "한국어 텍스트",
	"Ελληνικά ΚΕΙΜΕΝΟ", "Привет, МИР!", "עברית", "العربية", "हिन्दी", "ไทย",
	"e\u0301cole \u0301\u0301", "\u0301", " \u0301a", "A\u0301B\u0301c", "ǅungla ǈ ǋ", "ʰʱʲ ˆx",
	"😀😃 👍🏽 👨‍👩‍👧", "🇫🇷", "x\u200by", "\ufeffbom", "\ufffd\ufffd", "<|endoftext|>",
	"a<|endoftext|>b <|endofprompt|> <|fim_prefix|>", "\xff", "\xe2\x82", "ab\xc0\xafcd",
	"\x7f", "a\x7fb", " \x7f", "!\x7f!", "\x7f\x7f ", "\n\x7f\n", "x \x7f\x7f\ty", "\n \n", " \n \n x",
	"\r \r\n \n\t", "foo\n \nbar", "\n  x", "x \n\t \r\n  y", "a\n\n b", "a\n\u00a0\n\u00a0b", "\xed\xa0\x80", "\xf4\x90\x80\x80", "caf\xe9 na\xefve", "\x00\x01\x02", strings.Repeat(" ", 300),
	strings.Repeat("\n", 100), strings.Repeat("a", 500), strings.Repeat("ab", 300),
	strings.Repeat("0", 100), strings.Repeat("!", 200), strings.Repeat("é", 150),
	strings.Repeat("中", 200), strings.Repeat("😀", 50), strings.Repeat(" \t", 60) + "x",
}

// TestTiktokenDecisions pins, without node, the counts where a regexp
// engine of another kind splits whitespace and DEL differently: a run of
// whitespace holding line breaks ends after its last one, and DEL is a
// symbol like any other.
func TestTiktokenDecisions(t *testing.T) {
	e, err := Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]int{"\n \n": 1, "a\x7fb": 3, "\x7f": 1, "foo\n \nbar": 3} {
		if got := e.Count(text); got != want {
			t.Errorf("Count(%q) = %d, tiktoken %d", text, got, want)
		}
	}
}

func TestHandWrittenMatchTiktoken(t *testing.T) {
	for _, text := range handWritten {
		checkMatchesTiktoken(t, text)
	}
}

// TestSystemPromptMatchesTiktoken covers the text counted on every call.
func TestSystemPromptMatchesTiktoken(t *testing.T) {
	checkMatchesTiktoken(t, lisp.SystemPrompt())
}

// TestRepositoryTextsMatchTiktoken counts the repository's golden files,
// fixtures and documents.
func TestRepositoryTextsMatchTiktoken(t *testing.T) {
	for _, text := range repositoryTexts(t) {
		checkMatchesTiktoken(t, text)
	}
}

// repositoryTexts returns the repository's golden files, fixtures and
// documents.
func repositoryTexts(t *testing.T) []string {
	var files []string
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "fuzz" || d.Name() == "node_modules" || path == filepath.Join(root, "internal", "bpe")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.Contains(path, "testdata") || strings.HasSuffix(path, ".md")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 50 {
		t.Fatalf("found only %d files", len(files))
	}
	texts := make([]string, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[i] = string(data)
	}
	return texts
}

// randomAlphabet mixes the characters each alternative of the patterns
// tests, so random texts reach its backtracking paths.
var randomAlphabet = []string{
	"a", "z", "A", "Z", "é", "É", "ǅ", "ʰ", "中", "ー", "\u0301", "\u0903", "\u20dd", "1", "٣", "Ⅻ", "½",
	"'", "s", "S", "t", "re", "VE", "m", "ll", "D", "ſ", " ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0",
	"\u2028", "\u0085", "\u3000", "\v", "!", ".", "/", "//", "-", "_", "$", "€", "😀", "\ufffd", "\xff",
	"\xe2\x82", "\x00", "\x7f", "<|endoftext|>", "'S", "'ll", "x'", "Hello", "WORLD", "McD", "über",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(randomAlphabet[r.IntN(len(randomAlphabet))])
	}
	return b.String()
}

func TestRandomTextsMatchTiktoken(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		checkMatchesTiktoken(t, randomText(r))
	}
}

func FuzzCountMatchesTiktoken(f *testing.F) {
	for _, s := range handWritten {
		f.Add(s)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(randomText(r))
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkMatchesTiktoken(t, text)
	})
}

// TestScanAndHeapMergeAgree checks the two merge strategies against each
// other on pieces long enough for both, which tiktoken never splits
// this way (it merges long pieces only one way).
func TestScanAndHeapMergeAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	words := []string{"a", "b", "ab", "the", "ing", "tion", "é", "中", "x", "zz", "qu", "😀", "\xe4\xb8"}
	for _, name := range tiktokenNames {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		var m merger
		for range 3000 {
			var b strings.Builder
			for b.Len() < 1+r.IntN(300) {
				b.WriteString(words[r.IntN(len(words))])
			}
			piece := b.String()
			scan := slices.Clone(m.scan(e.table, piece))
			heap := m.heapMerge(e.table, piece)
			if !slices.Equal(scan, heap) {
				t.Fatalf("%s: %q: scan merges to %v, heap to %v", name, piece, scan, heap)
			}
		}
	}
}

// longPieces are pieces of several windows (see long.go): runs of each
// kind the split patterns leave unbounded, repeated and random, so that
// windows are spliced at every kind of token.
func longPieces() []string {
	r := rand.New(rand.NewPCG(9, 10))
	random := func(n int, alphabet ...string) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	n := 3*window + 123
	return []string{
		strings.Repeat("\n", n), strings.Repeat(" ", n), strings.Repeat("\t", n), strings.Repeat("a", n),
		strings.Repeat("!", n), strings.Repeat("-", n), strings.Repeat("=", n), strings.Repeat("ab", n/2),
		strings.Repeat("é", n/2), strings.Repeat("中", n/3), strings.Repeat("😀", n/4),
		strings.Repeat("\r\n", n/2), strings.Repeat(" \n", n/2), strings.Repeat("\n\n\t", n/3),
		random(n, "a", "b", "e", "t", "h", "q", "x", "ing", "tion", "the"),
		random(n, "A", "a", "B", "b", "É", "é", "\u0301"),
		random(n, "!", "?", ".", "-", "=", "*", "/", "(", ")", "{", "}", "$"),
		random(n, " ", "\t", "\n", "\r", "\u00a0", "\u3000"),
		random(n, "中", "文", "分", "词", "日", "本", "語", "한", "국"),
		random(n, "a", "b") + strings.Repeat("\n", window) + random(window, "x", "y"),
	}
}

// TestLongPiecesMatchTiktoken checks pieces merged a window at a time
// against OpenAI's tokenizer, which merges them whole.
func TestLongPiecesMatchTiktoken(t *testing.T) {
	for _, text := range longPieces() {
		checkMatchesTiktoken(t, text)
	}
}

// TestLongPiecesMergeAsAWhole: on vocabularies built as byte-pair
// training builds them (each token the join of two earlier ones), from
// few letters so that tokens overlap everywhere, the windowed merge gives
// the tokens of merging the whole piece at once, and every seam finds a
// token the two windows share.
func TestLongPiecesMergeAsAWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for v := range 20 {
		letters := "abcd"[:2+v%3]
		tokens := make([]string, 0, 256+400)
		for b := range 256 {
			tokens = append(tokens, string([]byte{byte(b)}))
		}
		pick := func() string { // a letter, or a token joined from letters
			i := r.IntN(len(letters) + len(tokens) - 256)
			if i < len(letters) {
				return letters[i : i+1]
			}
			return tokens[256+i-len(letters)]
		}
		seen := map[string]bool{}
		for len(tokens) < cap(tokens) {
			if j := pick() + pick(); len(j) <= 48 && !seen[j] {
				seen[j] = true
				tokens = append(tokens, j)
			}
		}
		file, err := vocab.Build(tokens)
		if err != nil {
			t.Fatal(err)
		}
		table, err := vocab.Parse(string(file))
		if err != nil {
			t.Fatal(err)
		}
		var m merger
		for range 5 {
			var b strings.Builder
			for b.Len() < 2*window+r.IntN(4*window) {
				b.WriteByte(letters[r.IntN(len(letters))])
			}
			piece := b.String()
			want := slices.Clone(m.heapMerge(table, piece))
			got := []int{0}
			unshared := m.longTokens(table, piece, func(start, end int) {
				if start != got[len(got)-1] {
					t.Fatalf("token at %d after one that ends at %d", start, got[len(got)-1])
				}
				got = append(got, end)
			})
			if !slices.Equal(got, want) {
				t.Fatalf("vocabulary %d, a %d-byte piece: windowed merge differs from the whole", v, len(piece))
			}
			if unshared > 0 {
				t.Errorf("vocabulary %d, a %d-byte piece: %d seams without a shared token", v, len(piece), unshared)
			}
		}
	}
}

func TestSharedToken(t *testing.T) {
	cases := []struct {
		a       []int
		aBase   int
		b       []int
		bBase   int
		want    int
		wantsOK bool
	}{
		{[]int{0, 2, 4, 6}, 100, []int{0, 2, 5}, 102, 102, true},       // the first token of b
		{[]int{0, 2, 4, 6, 9}, 100, []int{0, 1, 2, 4}, 102, 104, true}, // the third token of b
		{[]int{0, 2, 4, 6, 9}, 100, []int{0, 1, 3, 5, 8}, 102, 0, false},
		{[]int{0, 2, 4, 6, 9}, 100, []int{0, 1, 2, 3}, 102, 0, false}, // a boundary in common, no token
		{[]int{0, 3}, 0, []int{0, 1, 2}, 3, 0, false},                 // b starts where a ends
	}
	for i, c := range cases {
		got, ok := sharedToken(c.a, c.aBase, c.b, c.bBase)
		if ok != c.wantsOK || ok && got != c.want {
			t.Errorf("case %d: sharedToken = %d, %v; want %d, %v", i, got, ok, c.want, c.wantsOK)
		}
	}
}

// TestLongPieceCostIsLinear: counting a long piece allocates nothing that
// grows with it (the merge state of one window at most), so fifteen
// megabytes of newlines, once 3 GB of allocations, cost what a window
// does. Under the race detector the pooled merger is dropped at random, so
// there the bound is looser but still far below one allocation per window
// (a megabyte piece spans 256 of them).
func TestLongPieceCostIsLinear(t *testing.T) {
	e, err := Get("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	allocs := func(piece string) float64 {
		e.Count(piece) // the pooled merger grows to one window
		return testing.AllocsPerRun(5, func() { e.Count(piece) })
	}
	small := allocs(strings.Repeat("\n", 8<<10))
	for _, piece := range []string{strings.Repeat("\n", 1<<20), strings.Repeat("ab", 1<<19), longPieces()[14]} {
		got := allocs(piece)
		if !raceDetector && got > 2 || raceDetector && got > small+64 {
			t.Errorf("Count of a %d-byte piece: %v allocations (an 8 KiB piece: %v)", len(piece), got, small)
		}
	}
}

// TestLongestTokenFitsTheOverlap: every token is shorter than the overlap
// of two windows, so each window has a token boundary where the next may
// start.
func TestLongestTokenFitsTheOverlap(t *testing.T) {
	for _, name := range tiktokenNames {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		longest := 0
		for r := range e.table.Len() {
			longest = max(longest, len(e.table.Token(r)))
		}
		if longest >= overlap/2 {
			t.Errorf("%s: a token of %d bytes, the overlap %d", name, longest, overlap)
		}
	}
}

func TestEmbeddedFilesCheck(t *testing.T) {
	for _, name := range tiktokenNames {
		e, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.table.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestGetUnknown(t *testing.T) {
	if _, err := Get("p50k_base"); err == nil || !strings.Contains(err.Error(), `unknown encoding "p50k_base"`) {
		t.Errorf("Get(p50k_base) error = %v", err)
	}
}
