package strategies

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The values note lists each value once, the latest unit's first, leaves
// out what the notes show, and fits its share; the scan of the dropped
// units stops once it has more than the share can hold.
func TestBudgetValuesNote(t *testing.T) {
	tok := counterFor(DefaultTokenizer, "")
	h := []ChatMessage{
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "edit", Arguments: `{"path": "scan/a.go", "old": "return opts, nil"}`}}},
		{Role: RoleTool, ToolCallID: "a", Content: "done"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "b", Name: "find", Arguments: `{"path": "scan/a.go", "id": "O-99187", "seen": "shown-id"}`}}},
		{Role: RoleTool, ToolCallID: "b", Content: "none"},
	}
	ch := newChatHistory(h)
	vals := ch.droppedValues([][]int{{2, 3}, {0, 1}}, "a note that holds shown-id", 100)
	got, err := budgetValuesNote(nil, tok, vals, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := budgetValuesHeader + "\nO-99187\nscan/a.go\nreturn opts, nil"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	small, err := budgetValuesNote(nil, tok, vals, 16)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := CountTokens(DefaultTokenizer, small); n > 16 || !strings.HasPrefix(small, budgetValuesHeader) && small != "" {
		t.Errorf("note %q of %d tokens for a share of 16", small, n)
	}
	if none, _ := budgetValuesNote(nil, tok, vals, 3); none != "" {
		t.Errorf("a share too small for one value gave %q", none)
	}
}

// A unit's values: its calls' argument values, a JSON result's values, the
// paths that begin a text result's lines; none longer than the bound.
func TestUnitValues(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{
			{ID: "a", Name: "edit", Arguments: `{"path": "store/x.go", "old": "return n, nil", "new": "` + strings.Repeat("y", budgetValueChars+1) + `"}`},
			{ID: "b", Name: "find", Arguments: `{"q": "C-1"}`},
		}},
		{Role: RoleTool, ToolCallID: "a", Content: "store/x.go:3: ok\nindex/y.go:9: ok\n"},
		{Role: RoleTool, ToolCallID: "b", Content: `{"id": "C-55821", "n": 12345}`},
	}
	ch := newChatHistory(h)
	got := strings.Join(ch.unitValues(nil, []int{0, 1, 2}), "|")
	want := "return n, nil|store/x.go|C-1|store/x.go|index/y.go|C-55821|12345"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDroppedValuesScanIsBounded(t *testing.T) {
	var h []ChatMessage
	var dropped [][]int
	for i := range 200 {
		h = append(h, ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "c", Name: "read", Arguments: `{"path": "dir/file` + strings.Repeat("x", i%50) + `.go"}`}}})
		dropped = append(dropped, []int{i})
	}
	vals := newChatHistory(h).droppedValues(dropped, "", 10)
	size := 0
	for _, v := range vals {
		size += len(v) + 1
	}
	if len(vals) == 0 || size > budgetValuesScanChars*10+100 {
		t.Errorf("%d values, %d characters, for a share of 10 tokens", len(vals), size)
	}
}

// oldShortArgumentValues is what token-budget took of a call's arguments
// before they were read a token at a time: every value argumentValues
// finds in the decoded tree, then those no longer than budgetValueChars.
func oldShortArgumentValues(args string) []string {
	var out []string
	for _, v := range argumentValues(nil, args) {
		if utf8.RuneCountInString(v) <= budgetValueChars {
			out = append(out, v)
		}
	}
	return out
}

// TestShortArgumentValuesAsDecoded: reading the arguments a token at a
// time (whatever their size, and as token-budget reads them) finds the values the decoded tree gave, in the same order, on the
// arguments of the recorded and generated conversations and on random
// changes of them (cut short, keys repeated, nested deep, bytes flipped).
func TestShortArgumentValuesAsDecoded(t *testing.T) {
	var args []string
	convs := append(append(loadRealChat(t), loadRealCoding(t)...), codingSessions()...)
	for _, c := range convs {
		for _, m := range c.messages {
			for _, tc := range m.ToolCalls {
				args = append(args, tc.Arguments)
			}
		}
	}
	if len(args) < 100 {
		t.Fatalf("only %d arguments in the conversations", len(args))
	}
	args = append(args, "", " ", "null", "12345678", `"a lone string"`, `{"a": 1,}`, `{"a" 1}`, `[1, 2`, `{"k": "first value", "k": "second"}`,
		`{"k": "first value", "k": {}}`, `{"k": {"x": "inner one"}, "k": 7}`, `{"a": "xyz"} trailing text`, "{\"a\": \"\xff\xfe bytes\"}",
		`{"b": "`+strings.Repeat("é", budgetValueChars)+`", "a": "`+strings.Repeat("é", budgetValueChars+1)+`"}`,
		strings.Repeat("[", maxJSONDepth)+`"deep value"`+strings.Repeat("]", maxJSONDepth),
		strings.Repeat("[", maxJSONDepth+1)+`"deep value"`+strings.Repeat("]", maxJSONDepth+1),
		strings.Repeat(`{"a":`, 50)+`"nested value"`+strings.Repeat("}", 50), "not json at all, but text", "  {broken json of some length  ")
	rng := rand.New(rand.NewPCG(33, 1))
	mutate := func(s string) string {
		if s == "" {
			return s
		}
		switch rng.IntN(6) {
		case 0:
			return s[:rng.IntN(len(s))]
		case 1:
			i := rng.IntN(len(s))
			const noise = "{}[],:\"\\ 0a\xff"
			j := rng.IntN(len(noise))
			return s[:i] + noise[j:j+1] + s[i:]
		case 2:
			return `{"z": ` + s + `, "a": ` + s + `, "z": "again here"}`
		case 3:
			return "[" + s + ", " + s + "]"
		case 4:
			i := rng.IntN(len(s))
			return s[:i] + s[i+1:]
		}
		return strings.Repeat("[", 5) + s + strings.Repeat("]", 5)
	}
	checked := 0
	for _, a := range args {
		cases := []string{a}
		for range 8 {
			cases = append(cases, mutate(cases[rng.IntN(len(cases))]))
		}
		for _, c := range cases {
			want := oldShortArgumentValues(c)
			if got := streamArgumentValues(nil, c, appendShort); !slices.Equal(got, want) {
				t.Fatalf("arguments %.300q read a token at a time:\ngot  %q\nwant %q", c, got, want)
			}
			if got, all := streamArgumentValues(nil, c, appendAll), decodedArgumentValues(nil, c); !slices.Equal(got, all) {
				t.Fatalf("arguments %.300q, every value read a token at a time:\ngot  %q\nwant %q", c, got, all)
			}
			if got := shortArgumentValues(nil, c); !slices.Equal(got, want) {
				t.Fatalf("arguments %.300q:\ngot  %q\nwant %q", c, got, want)
			}
			checked++
		}
	}
	t.Logf("%d arguments read alike", checked)
}

// BenchmarkShortArgumentValues reads one edit argument of 100,000 small
// edits and 2 MiB of content, a token at a time (stream) and, as before,
// decoded whole (tree).
func BenchmarkShortArgumentValues(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"file_path": "/srv/a.go", "edits": [`)
	for i := range 100_000 {
		fmt.Fprintf(&sb, `{"old": "line %d of the old text", "new": "line %d"},`, i, i)
	}
	sb.WriteString(`{}], "content": "` + strings.Repeat(`x\n`, 1<<20) + `"}`)
	arg := sb.String()
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			shortArgumentValues(nil, arg)
		}
	})
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			oldShortArgumentValues(arg)
		}
	})
}

// BenchmarkShortArgumentValuesTypical reads the generated coding
// sessions' arguments, as token-budget does each call for its dropped
// steps.
func BenchmarkShortArgumentValuesTypical(b *testing.B) {
	var args []string
	for _, c := range codingSessions() {
		for _, m := range c.messages {
			for _, tc := range m.ToolCalls {
				args = append(args, tc.Arguments)
			}
		}
	}
	b.Run("stream", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, a := range args {
				streamArgumentValues(nil, a, appendShort)
			}
		}
	})
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, a := range args {
				oldShortArgumentValues(a)
			}
		}
	})
}

// TestArgumentValuesAllocateByTheirValues: a tool call's arguments of 4
// MiB of small objects are read for their evidence without a decoded
// tree of every object, holding only what is kept: what reading them
// allocates (encoding/json's tokens, each let go of at once) stays within
// 40 times their bytes (29 times when written). Decoded whole into maps,
// they allocated 223 MiB (53 times) each time they were read, and a
// ToMessages call of clear-tool-results held 185 MiB.
func TestArgumentValuesAllocateByTheirValues(t *testing.T) {
	args := `{"items":[` + strings.Repeat(`{"k":"v"},`, 4<<20/10) + `{"path":"/srv/app/main.go"}]}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := argumentValues(nil, args)
	runtime.ReadMemStats(&after)
	if !slices.Equal(got, []string{"/srv/app/main.go"}) {
		t.Errorf("argumentValues kept %.200q, want the one path", got)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%.1f MiB allocated to read %.1f MiB of arguments", float64(allocated)/(1<<20), float64(len(args))/(1<<20))
	if bound := uint64(40 * len(args)); allocated > bound {
		t.Errorf("reading %d bytes of arguments allocated %d bytes, over %d", len(args), allocated, bound)
	}
}
