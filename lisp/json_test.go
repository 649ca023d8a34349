package lisp

import (
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
		{`9223372036854775808`, "9.223372036854776E18"},
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
	for _, in := range []string{``, `[1,]`, `{"a"}`, `[1] 2`, `{"a":1`, `nul`, `1e999`, `'x'`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		_, err := DecodeJSON(in, 0)
		if err == nil {
			t.Errorf("DecodeJSON(%.20q) succeeded, want an error", in)
			continue
		}
		if e := AsError(err); e.Kind != ParseError || !strings.HasPrefix(e.Message, "invalid JSON") {
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

func TestEncodeJSON(t *testing.T) {
	v := hashMap(kw("a"), Int(1), str("b c"), vec(fl(2), Nil, True, kw("k")), Int(3), set(str("y"), str("x")), kw("h"), str("<&>"))
	got, err := EncodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":1,"b c":[2.0,null,true,"k"],"3":["x","y"],"h":"<&>"}`
	if got != want {
		t.Errorf("EncodeJSON = %s, want %s", got, want)
	}
	back, err := DecodeJSON(got, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r := Repr(back); r != `{:a 1, "b c" [2.0 nil true "k"], "3" ["x" "y"], :h "<&>"}` {
		t.Errorf("round trip = %s", r)
	}
	for _, bad := range []Value{fl(math.NaN()), fl(math.Inf(1)), builtinFn("inc"), vec(mustRegex(t, "a"))} {
		if _, err := EncodeJSON(bad); err == nil {
			t.Errorf("EncodeJSON(%s) succeeded, want an error", Repr(bad))
		}
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
		if !ValidKeywordName(k) {
			continue
		}
		v, err := ParseEDN(Repr(Keyword(k)), 0)
		if err != nil || !Equal(v, Keyword(k)) {
			t.Errorf("keyword %q prints as %s, which reads back as %v, %v", k, Repr(Keyword(k)), v, err)
		}
	}
}
