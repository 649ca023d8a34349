package lisp

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`null`, "nil"},
		{`true`, "true"},
		{`42`, "42"},
		{`-7`, "-7"},
		{`3.5`, "3.5"},
		{`1e3`, "1000.0"},
		{`2.0`, "2.0"},
		{`9223372036854775807`, "9223372036854775807"},
		{`9223372036854775808`, "9223372036854775808N"},
		{`-123456789012345678901234567890`, "-123456789012345678901234567890N"},
		{`9223372036854775808.0`, "9.223372036854776E18"},
		{`"a\nb"`, `"a\nb"`},
		{`[1, "x", null, [true]]`, `[1 "x" nil [true]]`},
		{`{"name": 1, "user-id": 2, "first name": 3, "1abc": 4, "_token": 5, "a/b": 6, "ok?": 7, "x.y": 8}`,
			`{:name 1, :user-id 2, "first name" 3, "1abc" 4, :_token 5, "a/b" 6, :ok? 7, "x.y" 8}`},
		{`{"a": {"b": [1, 2]}, "a": 3}`, `{:a 3}`},
		{`{}`, "{}"},
		{`[]`, "[]"},
		{` {"k" : "v"} `, `{:k "v"}`},
	}
	for _, c := range cases {
		v, err := DecodeJSON(c.in, 0)
		if err != nil {
			t.Errorf("DecodeJSON(%s): %v", c.in, err)
			continue
		}
		if got := Repr(v); got != c.want {
			t.Errorf("DecodeJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	for _, in := range []string{``, `[1,]`, `{"a"}`, `[1] 2`, `{"a":1`, `nul`, `1e999`, strings.Repeat("9", 100_001), `'x'`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		_, err := DecodeJSON(in, 0)
		if err == nil {
			t.Errorf("DecodeJSON(%.20q) succeeded, want an error", in)
			continue
		}
		if e := asError(err); e.Kind != parseError || !strings.HasPrefix(e.Message, "invalid JSON") {
			t.Errorf("DecodeJSON(%.20q) error = %v, want a parse_error about invalid JSON", in, err)
		}
	}
	if _, err := DecodeJSON("[[[1]]]", 2); err == nil || !strings.Contains(err.Error(), "deeper than 2") {
		t.Errorf("depth 3 with limit 2: %v", err)
	}
	if _, err := DecodeJSON("[[1]]", 2); err != nil {
		t.Errorf("depth 2 with limit 2: %v", err)
	}
}

// TestEncodeJSON pins the JSON mapping of docs/VALUES.md, the awkward
// values included: what each value becomes, or that it has no JSON form.
func TestEncodeJSON(t *testing.T) {
	for _, c := range []struct{ edn, json string }{
		{`nil`, `null`},
		{`[true false]`, `[true,false]`},
		{`9007199254740993`, `9007199254740993`}, // 2^53+1: exact, not rounded
		{`-9223372036854775808`, `-9223372036854775808`},
		{`[2.0 -0.0 1.5E300 1.0E-7]`, `[2.0,-0.0,1.5e+300,1e-07]`},
		{`:ok`, `"ok"`},
		{`{:a 1, "b c" [nil :k], :h "<&>\n\"\\"}`, `{"a":1,"b c":[null,"k"],"h":"<&>\n\"\\"}`},
		{`{:z 1, :a 2}`, `{"z":1,"a":2}`}, // insertion order
		{`#{"y" :x 3}`, `["y",3,"x"]`},    // printed order: "y" 3 :x
		{`"\u0001é😀"`, `"\u0001é😀"`},
		{`{1 :a}`, ``}, // a key that is neither a string nor a keyword
		{`{[1] 2}`, ``},
		{`{nil 2}`, ``},
		{`{:a 1, "a" 2}`, ``},  // one name for two keys
		{`#{:a "a"}`, ``},      // one text for two elements
		{`[{:x {2.5 1}}]`, ``}, // anywhere inside
	} {
		v, err := ParseEDN(c.edn, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.edn, err)
		}
		got, err := EncodeJSON(v)
		if c.json == "" {
			if err == nil || !strings.Contains(err.Error(), "no JSON form") {
				t.Errorf("EncodeJSON(%s) = %s, %v; want no JSON form", c.edn, got, err)
			}
			continue
		}
		if err != nil || got != c.json {
			t.Errorf("EncodeJSON(%s) = %s, %v; want %s", c.edn, got, err, c.json)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("EncodeJSON(%s) = %s is not valid JSON", c.edn, got)
		}
	}
	for _, bad := range []Value{fl(math.NaN()), fl(math.Inf(1)), vec(fl(math.Inf(-1))), builtinFn("inc"),
		vec(mustRegex(t, "a")), hashMap(kw("f"), builtinFn("inc")), str("\xff"), symbol("s")} {
		if got, err := EncodeJSON(bad); err == nil {
			t.Errorf("EncodeJSON(%s) = %s, want no JSON form", Repr(bad), got)
		}
	}
}

// Sets and maps past the small-collection scan find their repeats by
// hashing.
func TestEncodeJSONRepeatsInLargeCollections(t *testing.T) {
	b := NewMapBuilder(0)
	var elems []Value
	for i := range 20 {
		b.Set(kw(fmt.Sprintf("k%d", i)), Int(i))
		elems = append(elems, kw(fmt.Sprintf("k%d", i)))
	}
	m := b.Map()
	if _, err := EncodeJSON(m); err != nil {
		t.Fatal(err)
	}
	if _, err := EncodeJSON(m.assoc(str("k17"), Int(0))); err == nil {
		t.Error("a map with :k17 and \"k17\" among 21 keys has a JSON form")
	}
	if _, err := EncodeJSON(NewSet(append(elems, str("k3")))); err == nil {
		t.Error("a set with :k3 and \"k3\" among 21 elements has a JSON form")
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `[[[]]]`, `1e400`, `"\u00e9"`, `{"a":{"b":{}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := DecodeJSON(s, 64)
		if err != nil {
			return
		}
		// Whatever decodes must encode and decode back to an equal value.
		text, err := EncodeJSON(v)
		if err != nil {
			t.Fatalf("EncodeJSON of decoded %q: %v", s, err)
		}
		back, err := DecodeJSON(text, 64)
		if err != nil {
			t.Fatalf("re-decoding %q: %v", text, err)
		}
		if !Equal(v, back) {
			t.Fatalf("round trip of %q: %s != %s", s, Repr(v), Repr(back))
		}
	})
}

// TestKeywordKeysReadBack checks that every object key DecodeJSON turns
// into a keyword prints as EDN that the reader reads back as that keyword,
// so JSON data survives the EDN wire.
func TestKeywordKeysReadBack(t *testing.T) {
	keys := []string{"a", "name", "user-id", "user_id", "_token", "ok?", "save!", "a*b", "x1", "-", "+", "->", "<=", "=", "-x", "+a", "A", "aB9", "*"}
	const chars = "aZ9_-+*<>=?!./: é1"
	for i := range 2000 {
		// Also every short string over a small alphabet, valid or not.
		k := ""
		for n := i; n > 0; n /= len(chars) {
			k += string(chars[n%len(chars)])
		}
		keys = append(keys, k)
	}
	for _, k := range keys {
		if !validKeywordName(k) {
			continue
		}
		v, err := ParseEDN(Repr(Keyword(k)), 0)
		if err != nil || !Equal(v, Keyword(k)) {
			t.Errorf("keyword %q prints as %s, which reads back as %v, %v", k, Repr(Keyword(k)), v, err)
		}
	}
}

// BenchmarkEmitValue compares the two texts the sidecar emits for a tool
// result of 100 records: EDN (always) and the JSON form (when it has one).
func BenchmarkEmitValue(b *testing.B) {
	records := make([]Value, 100)
	for i := range records {
		records[i] = hashMap(kw("id"), Int(i), kw("name"), str(fmt.Sprintf("item %d", i)),
			kw("price"), fl(float64(i)+0.5), kw("tags"), vec(kw("new"), str("sale")))
	}
	v := vec(records...)
	b.Run("edn", func(b *testing.B) {
		for b.Loop() {
			_ = Repr(v)
		}
	})
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			if _, err := EncodeJSON(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLongText writes a long text as json/generate-string does, on
// a thread: 400 rows of 400 integers. Its B/op against text-bytes is what
// growing the writer's buffer allocates besides the text, which a pooled
// buffer too small for it does not save; charged-bytes is what the thread
// is charged for it, which should come near it.
func BenchmarkLongText(b *testing.B) {
	rows := make([]Value, 400)
	for i := range rows {
		row := make([]Value, 400)
		for j := range row {
			row[j] = Int(i + j)
		}
		rows[i] = vec(row...)
	}
	v := vec(rows...)
	for b.Loop() {
		th := newThread(context.Background(), Limits{MaxSteps: Unlimited, MaxAllocBytes: Unlimited, MaxDepth: 100})
		text, err := encodeJSON(th, v)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(text)), "text-bytes")
		b.ReportMetric(float64(th.allocatedBytes()), "charged-bytes")
	}
}
