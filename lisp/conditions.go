package lisp

// fnConditions takes Clojure's condition map off the front of a fn body:
// as in Clojure, a map that is the first of several body forms holds the
// conditions, {:pre [tests] :post [tests]}, where a :post test reads the
// return value as %. The body becomes
//
//	(assert pre1) ... (let [% (do body...)] (assert post1) ... %)
//
// so a failed condition is Clojure's AssertionError with its message,
// "Assert failed: (pos? x)".
func (c *compiler) fnConditions(body []Value) ([]Value, error) {
	if len(body) < 2 {
		return body, nil
	}
	m, ok := body[0].(*mapForm)
	if !ok {
		return body, nil
	}
	var pre, post []Value
	for i := 0; i+1 < len(m.Elems); i += 2 {
		k := m.Elems[i]
		if k != Keyword("pre") && k != Keyword("post") {
			continue
		}
		vec, ok := m.Elems[i+1].(*Vector)
		if !ok {
			return nil, c.errorf(validationError, "%s takes a vector of tests, e.g. {:pre [(pos? x)]}", shown(k)).
				WithHint("write {:pre [(pos? x)] :post [(number? %%)]} before the body")
		}
		for _, test := range vec.Elems() {
			a := &list{Elems: []Value{symbol("assert"), test}, Pos: m.Pos}
			if k == Keyword("pre") {
				pre = append(pre, a)
			} else {
				post = append(post, a)
			}
		}
	}
	rest := body[1:]
	if len(post) > 0 {
		ret := symbol("%")
		let := []Value{symbol("let"), NewVector([]Value{ret, &list{Elems: append([]Value{symbol("do")}, rest...), Pos: m.Pos}})}
		let = append(append(let, post...), ret)
		rest = []Value{&list{Elems: let, Pos: m.Pos}}
	}
	return append(pre, rest...), nil
}
