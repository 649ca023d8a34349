package strategies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

func TestParseSignature(t *testing.T) {
	cases := []struct {
		src, params, ret string
	}{
		{"(query :string, limit :int) -> [:string]", "query string, limit int", "[string]"},
		{"() -> :any", "", "any"},
		{":any", "", "any"},
		{"{name :string, price :float}", "", "{name string, price float}"},
		{"() -> {name :string, price :float}", "", "{name string, price float}"},
		{"{}", "", "{}"},
		{"[:any]", "", "[any]"},
		{"[{}]", "", "[{}]"},
		{"{id :int, email :string?}", "", "{id int, email string?}"},
		{"(user {id :int, name :string}, limit :int) -> [{order_id :int}]", "user {id int, name string}, limit int", "[{order_id int}]"},
		{"(user_id :int) -> {name :string, orders [:map]}", "user_id int", "{name string, orders [map]}"},
		{"(query :string, options {limit :int?, sort :string?}) ->\n{results [{id :int, score :float, metadata :map}], total :int}",
			"query string, options {limit int?, sort string?}", "{results [{id int, score float, metadata map}], total int}"},
		{"{summary :string, _raw_data [:map]}", "", "{summary string, _raw_data [map]}"},
		{"(id :int, name :string) -> :bool", "id int, name string", "bool"},
		{"(status :keyword) -> [:keyword]?", "status keyword", "[keyword]?"},
		{"  ( a :int b :int )  ->  :int  ", "a int, b int", "int"},
		{"{user {profile {settings {theme :string}}}}", "", "{user {profile {settings {theme string}}}}"},
		{"(user-name :string) -> :string", "user-name string", "string"},
	}
	for _, c := range cases {
		sig, err := ParseSignature(c.src)
		if err != nil {
			t.Errorf("ParseSignature(%q): %v", c.src, err)
			continue
		}
		if got := sig.ParamsText(); got != c.params {
			t.Errorf("ParseSignature(%q) params = %q, want %q", c.src, got, c.params)
		}
		if got := sig.Return.String(); got != c.ret {
			t.Errorf("ParseSignature(%q) return = %q, want %q", c.src, got, c.ret)
		}
		checkSignatureText(t, c.src)
	}
}

// checkSignatureText checks that the remembered parts of a signature are
// what parsing it gives, the first time and when remembered.
func checkSignatureText(t *testing.T, src string) {
	t.Helper()
	want := signatureText{}
	if sig, err := ParseSignature(src); err != nil {
		want.err = err
	} else {
		want.params, want.ret = sig.ParamsText(), sig.Return.String()
	}
	r := NewRemembered(memo.New(1 << 20))
	for _, got := range []signatureText{parseSignatureText(src), r.signature(src), r.signature(src)} {
		if got.params != want.params || got.ret != want.ret || (got.err == nil) != (want.err == nil) ||
			(got.err != nil && got.err.Error() != want.err.Error()) {
			t.Fatalf("signature text of %q, parsed or remembered: %+v; ParseSignature gives %+v", src, got, want)
		}
	}
}

func TestParseSignatureErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"", "empty signature"},
		{"   ", "empty signature"},
		{"[]", "at offset 1: a list type needs an element type, e.g. [:any]"},
		{":str", "at offset 0: unknown type :str"},
		{"(query :string", `missing ")"`},
		{"(query :string) [:string]", "at offset 16: expected -> after the parameter list"},
		{"(query) -> :any", "at offset 6: expected a type"},
		{"(:string) -> :any", `at offset 1: expected a name, found ":"`},
		{"(a :int, a :int) -> :any", `duplicate name "a"`},
		{"{id :int", `missing "}"`},
		{"[:int", `missing "]"`},
		{":int :int", "unexpected"},
		{"string", `expected a type (:string, [..] or {..}), found "s"`},
		{"() ->", "expected a type, found the end"},
	}
	for _, c := range cases {
		_, err := ParseSignature(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSignature(%q) error = %v, want it to contain %q", c.src, err, c.want)
		}
		checkSignatureText(t, c.src)
	}
}

// TestParseSignatureDuplicateFirst: a name given twice is reported where
// the parser reaches its repetition, before any error after it and after
// any before it, nested lists included (the messages and offsets a parser
// that stopped at each repetition gave).
func TestParseSignatureDuplicateFirst(t *testing.T) {
	cases := []struct{ src, want string }{
		{"(a :int, a :int) -> :any", "at offset 10: duplicate name \"a\""},
		{"(a :int, b :int, a :int, b :bad) -> :any", "at offset 18: duplicate name \"a\""},
		{"(a :int, b {c :int, c :int}, a :int) -> :any", "at offset 21: duplicate name \"c\""},
		{"(a :int, b {c :int, d :bad}, a :int) -> :any", "at offset 22: unknown type :bad (known: :string :int :float :bool :keyword :any :map)"},
		{"(a :int, a {c :int, d :bad}) -> :any", "at offset 10: duplicate name \"a\""},
		{"(a :int, b :int, b :int, a :int) -> :any", "at offset 18: duplicate name \"b\""},
		{"(a :int, b :int, a :int, b :int) -> :any", "at offset 18: duplicate name \"a\""},
		{"(x {a :int, b :int, a :int, b :int}, x :int) -> :any", "at offset 21: duplicate name \"a\""},
		{"(a :int, b :int, a) -> :any", "at offset 18: duplicate name \"a\""},
		{"(a :int, b :int, a :int", "at offset 18: duplicate name \"a\""},
		{"(a :int?, a :string?) -> :any", "at offset 11: duplicate name \"a\""},
		{"(a :int, a :int?, b [:int], b :x) -> :any", "at offset 10: duplicate name \"a\""},
	}
	for _, c := range cases {
		if _, err := ParseSignature(c.src); err == nil || err.Error() != c.want {
			t.Errorf("ParseSignature(%q) error = %v, want %s", c.src, err, c.want)
		}
	}
	// The fields of one required primitive type share it; an optional
	// one has its own.
	sig, err := ParseSignature("(a :string, b :string, c :string?, d {e :string}) -> :string")
	if err != nil {
		t.Fatal(err)
	}
	p := sig.Params
	if p[0].Type != p[1].Type || p[0].Type != p[3].Type.Fields[0].Type || p[2].Type == p[0].Type || !p[2].Type.Optional || p[0].Type.Optional {
		t.Errorf("types %+v %+v %+v", p[0].Type, p[1].Type, p[2].Type)
	}
}

// TestParseSignatureNesting: list and map types nest at most
// maxSignatureNesting levels, and a signature of millions of brackets is
// refused at that depth instead of recursing into them.
func TestParseSignatureNesting(t *testing.T) {
	nested := func(levels int, open, close string) string {
		return strings.Repeat(open, levels) + ":int" + strings.Repeat(close, levels)
	}
	for _, c := range []struct{ open, close string }{{"[", "]"}, {"{a ", "}"}} {
		if _, err := ParseSignature(nested(maxSignatureNesting, c.open, c.close)); err != nil {
			t.Errorf("%d levels of %s: %v", maxSignatureNesting, c.open, err)
		}
		want := fmt.Sprintf("types nest deeper than %d levels", maxSignatureNesting)
		for _, levels := range []int{maxSignatureNesting + 1, 1 << 22} {
			_, err := ParseSignature(nested(levels, c.open, c.close))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%d levels of %s: error %v, want %q", levels, c.open, err, want)
			}
		}
	}
	if _, err := ParseSignature("(a " + strings.Repeat("[", 1<<22)); err == nil {
		t.Error("an unclosed parameter of millions of brackets parsed")
	}
}

// FuzzParseSignature: no input panics, and a parsed signature renders
// without colons.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"(query :string, limit :int) -> [:string]", "{a :int?}", "[{}]", ":any", "(a {b [:map]}) -> :bool"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkSignatureText(t, src)
		sig, err := ParseSignature(src)
		if err != nil {
			return
		}
		if strings.Contains(sig.ParamsText()+sig.Return.String(), ":") {
			t.Errorf("rendered signature of %q keeps a colon", src)
		}
	})
}
