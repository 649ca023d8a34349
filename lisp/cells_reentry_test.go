package lisp

import (
	"strings"
	"testing"
)

// TestCellsThatNeedTheirOwnValue: a cell whose body asks for the value
// it is making, directly or through other cells and functions. Clojure
// runs the body again until the stack overflows; here the inner request
// throws that StackOverflowError at once, which only (catch Throwable ...)
// or (catch StackOverflowError ...) takes, and the cell is not realized
// until its body returns. A delay gave Go's nil as its value while its
// body ran (an internal interpreter error); the lazy sequence rows are
// the kind that had the rule already.
func TestCellsThatNeedTheirOwnValue(t *testing.T) {
	cases := []struct{ src, want string }{
		{`(def d (delay @d)) @d`, "error execution_error"},
		{`(def d (delay (inc @d))) @d`, "error execution_error"},
		{`(def d (delay (force d))) (force d)`, "error execution_error"},
		{`(def d (delay (deref d))) (str [1 @d])`, "error execution_error"},
		{`(let [a (atom nil) d (delay (inc (deref @a)))] (reset! a d) @d)`, "error execution_error"},
		{`(declare e) (def d (delay @e)) (def e (delay @d)) @e`, "error execution_error"},
		{`(def d (delay ((fn [] @d)))) @d`, "error execution_error"},
		{`(def d (delay (first (lazy-seq [@d])))) @d`, "error execution_error"},
		{`(declare d) (def f (memoize (fn [x] @d))) (def d (delay (f 1))) @d`, "error execution_error"},
		{`(def d (delay (try @d (catch Exception e :caught)))) @d`, "error execution_error"},
		{`(def d (delay (try @d (catch Throwable e :caught)))) [@d @d (realized? d)]`, "value [:caught :caught true]"},
		{`(def d (delay (try @d (catch StackOverflowError e (type e))))) (str @d)`, `value "class java.lang.StackOverflowError"`},
		{`(def d (delay (realized? d))) [@d (realized? d)]`, "value [false true]"},
		{`(def d (delay [d])) (str @d)`, `value "[#<delay>]"`},
		{`(def s (lazy-seq (first s))) s`, "error execution_error"},
		{`(def s (lazy-seq (cons 1 s))) (take 3 s)`, "value [1 1 1]"},
	}
	for _, c := range cases {
		res := run(t, c.src, Env{})
		if res.Err != nil && strings.Contains(res.Err.Message, "internal interpreter error") {
			t.Errorf("%s: %s", c.src, res.Err.Message)
			continue
		}
		if got := genOutcomeOf(res); got != c.want {
			t.Errorf("%s: %s (%v), want %s", c.src, got, res.Err, c.want)
		}
	}
}

// TestEscapedWithinWritesWhatTheWholeTextWrites: a writer with room for n
// bytes is given the part of a string that escapedWithin keeps, and
// keeps what the whole string's escaped text has in its first n bytes,
// full exactly when that text is longer than n.
func TestEscapedWithinWritesWhatTheWholeTextWrites(t *testing.T) {
	texts := []string{
		"", "plain", `quote " and \ back`, "new\nline\ttab\rreturn",
		"é ß 日本 😀", "\xff\xfe bad", "a\xe2\x82", "\xe2\x82\xac\xe2", "\x80\x80\x80\x80\x80\x80",
		strings.Repeat("é\"", 50), strings.Repeat("😀\n", 40),
	}
	for _, s := range texts {
		whole := string(appendEscaped(nil, s))
		for room := 1; room <= len(whole)+2; room++ {
			w := textWriter{limit: int64(room)}
			writeEscaped(&w, s)
			want := whole
			if len(want) > room {
				want = want[:room]
			}
			if string(w.buf) != want || w.full != (len(whole) > room) {
				t.Errorf("%q in %d bytes: %q (full %v), want %q (full %v)", s, room, w.buf, w.full, want, len(whole) > room)
			}
		}
	}
}
