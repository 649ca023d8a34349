package lisp

import (
	"strings"
	"testing"
)

func TestFormatFloat(t *testing.T) {
	a, b := 1.1, 2.2 // variables: Go constant arithmetic would be exact
	cases := map[float64]string{
		1:          "1.0",
		a + b:      "3.3000000000000003",
		0.1:        "0.1",
		-2.5:       "-2.5",
		1e7:        "1.0E7",
		1.5e-4:     "1.5E-4",
		0.001:      "0.001",
		123456.789: "123456.789",
		2.5e10:     "2.5E10",
		-1e-10:     "-1.0E-10",
		0:          "0.0",
	}
	for in, want := range cases {
		if got := formatFloat(in); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestReprCollections(t *testing.T) {
	b := NewMapBuilder(2)
	b.Set(Keyword("b"), NewVector([]Value{Int(1), String("x\n")}))
	b.Set(Keyword("a"), NewSet([]Value{Int(3), Int(1), Int(2)}))
	got := Repr(b.Map())
	want := `{:b [1 "x\n"], :a #{1 2 3}}`
	if got != want {
		t.Fatalf("Repr = %s, want %s", got, want)
	}
}

func TestWriteEscaped(t *testing.T) {
	cases := map[string]string{
		"plain":           "plain",
		"q\"b\\n\nt\tr\r": `q\"b\\n\nt\tr\r`,
		"héllo λ":         "héllo λ",
		"bad \x92 byte":   "bad \uFFFD byte",
		"cut \xe2\x82":    "cut \uFFFD\uFFFD",
		"\xff\"":          "\uFFFD\\\"",
	}
	for in, want := range cases {
		var b strings.Builder
		WriteEscaped(&b, in)
		if got := b.String(); got != want {
			t.Errorf("WriteEscaped(%q) = %q, want %q", in, got, want)
		}
	}
}
