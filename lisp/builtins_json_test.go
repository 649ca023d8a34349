package lisp

import "testing"

// TestCheshireJSON: json/parse-string and json/generate-string behave as
// Cheshire's (cheshire.core 5), which the Clojure oracle does not ship:
// keys stay strings unless the second argument is true or keyword, blank
// text is nil, generated JSON is compact, and a require of cheshire.core
// is accepted as json/ only.
func TestCheshireJSON(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`(json/parse-string "{\"a\": 1, \"b\": [1, 2.5, null, true]}")`, `{"a" 1, "b" [1 2.5 nil true]}`},
		{`(json/parse-string "{\"a\": {\"b\": 1}}" true)`, `{:a {:b 1}}`},
		{`(json/parse-string "{\"a\": 1}" keyword)`, `{:a 1}`},
		{`(json/parse-string "  ")`, `nil`},
		{`(json/generate-string {:a 1 :b [1 2.5 nil true] "c" "x"})`, `"{\"a\":1,\"b\":[1,2.5,null,true],\"c\":\"x\"}"`},
		{`(cheshire.core/generate-string #{1})`, `"[1]"`},
		{`(require '[cheshire.core :as json]) (:a (json/parse-string (json/generate-string {:a [1]}) true))`, `[1]`},
	} {
		res := run(t, c.src, Env{})
		if res.Err != nil {
			t.Errorf("%s: %v", c.src, res.Err)
			continue
		}
		if got := Repr(res.Value); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
	for _, src := range []string{
		`(json/parse-string "[1,")`,
		`(json/parse-string 1)`,
		`(json/parse-string "{}" :yes)`,
		`(json/generate-string {:a ##NaN})`,
		`(require '[cheshire.core :as ch]) 1`,
	} {
		if res := run(t, src, Env{}); res.Err == nil {
			t.Errorf("%s: want an error, got %v", src, res.Err)
		}
	}
}
