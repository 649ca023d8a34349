package lisp

import (
	"strings"
	"testing"
)

func TestParseEDNSample(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[1 2 3 4 5]`, `[1 2 nil nil nil]`},
		{`(1 "a" :b [1 2 3] {:a 1})`, `(1 "a" nil nil nil)`},
		{`[[1 2 3] [4 5 6] [7 8 9]]`, `[[1 2 nil] [4 5 nil] nil]`},
		{`{:a [1 2 3 4] :b #{1 2 3 4} :c {:d 1 :e 2 :f 3}}`, `{:a [1 2 nil nil], :b #{1 2 3 4}, :c {:d 1, :e 2, :f 3}}`},
		{`[{:xs [1 2 3]} {:xs [4 5 6]} {:xs [7]}]`, `[{:xs [1 2 nil]} {:xs [4 5 nil]} nil]`},
		{`#{[1 2 3] [1 2 4]}`, `#{[1 2 3] [1 2 4]}`},
		{`{[1 2 3] [5 6 7] [1 2 4] 0}`, `{[1 2 3] [5 6 nil], [1 2 4] 0}`},
		{`"text"`, `"text"`},
		{`[1 2]`, `[1 2]`},
	} {
		v, err := ParseEDNSample(c.in, 0, 2)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := Repr(v); got != c.want {
			t.Errorf("ParseEDNSample(%s, keep 2) = %s, want %s", c.in, got, c.want)
		}
		full, _ := ParseEDN(c.in, 0)
		if TypeLabel(v) != TypeLabel(full) {
			t.Errorf("%s: type label %s, full parse %s", c.in, TypeLabel(v), TypeLabel(full))
		}
	}
}

// TestParseEDNSampleErrors checks that the dropped part of a value is still
// read in full: errors and nesting limits are those of ParseEDN.
func TestParseEDNSampleErrors(t *testing.T) {
	for _, in := range []string{
		`[1 2 3 {:a}]`,
		`[1 2 3 "open`,
		`[1 2 3 [4 5 (6]]`,
		`[1 2 3 #{1 2]`,
		`[1 2 3 \qq]`,
		`[1 2 3 (fn [x] x) #(inc %)]`,
		`[1 2 3 4] extra`,
		`[1 2 3 ` + strings.Repeat("[", 50) + strings.Repeat("]", 50) + `]`,
	} {
		_, want := ParseEDN(in, 20)
		_, got := ParseEDNSample(in, 20, 2)
		if want == nil {
			t.Fatalf("%s: ParseEDN accepts it; the case tests nothing", in)
		}
		if got == nil || got.Error() != want.Error() {
			t.Errorf("%s: ParseEDNSample error %v, ParseEDN %v", in, got, want)
		}
	}
}

// FuzzParseEDNSample checks that sampling never changes whether a text is
// accepted, the error, or the type label of the value.
func FuzzParseEDNSample(f *testing.F) {
	for _, s := range []string{`[1 2 3 4]`, `{:a [1 2 3] :b #{[1] [2]}}`, `[1 2 3 {:a}]`, `([[[1 2 3]]] "x" \a ##NaN #"re")`, `[1 2 3 "\u00e9\n"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		full, ferr := ParseEDN(in, 30)
		sample, serr := ParseEDNSample(in, 30, 2)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
			t.Fatalf("%q: ParseEDN error %v, ParseEDNSample error %v", in, ferr, serr)
		}
		if ferr == nil && !sameSample(full, sample, 2) {
			t.Fatalf("%q: sampled as %s, reads as %s", in, Repr(sample), Repr(full))
		}
	})
}

// sameSample reports whether sample is full with only elements of lists
// and vectors past keep left out (nil), at every depth.
func sameSample(full, sample Value, keep int) bool {
	switch f := full.(type) {
	case *Vector:
		s, ok := sample.(*Vector)
		if !ok || s.Len() != f.Len() {
			return false
		}
		for i := range min(keep, f.Len()) {
			if !sameSample(f.index(i), s.index(i), keep) {
				return false
			}
		}
		return true
	case *Map:
		s, ok := sample.(*Map)
		if !ok || s.Len() != f.Len() {
			return false
		}
		for i, e := range f.Entries() {
			se := s.Entries()[i]
			if hashKey(e.Key) != hashKey(se.Key) || !sameSample(e.Val, se.Val, keep) {
				return false
			}
		}
		return true
	case *Set:
		s, ok := sample.(*Set)
		return ok && s.Len() == f.Len()
	}
	return hashKey(full) == hashKey(sample)
}
