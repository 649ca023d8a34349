package lisp

import (
	"strings"
)

// whereOperators are the comparison operators of (where field op value).
var whereOperators = map[string]bool{
	"=": true, "not=": true, ">": true, "<": true, ">=": true, "<=": true, "includes": true, "in": true,
}

type whereNode struct {
	field node
	op    string // "" for the truthiness test (where :field)
	value node
}

func (n *whereNode) eval(th *Thread, fr *frame) (Value, error) {
	f, err := n.field.eval(th, fr)
	if err != nil {
		return nil, err
	}
	var path []Value
	switch f := f.(type) {
	case Keyword, String:
		path = []Value{f}
	case *Vector:
		path = f.Elems()
		// The path is the predicate's own text, not a part the walk
		// reaches: it holds field keys, and nothing with state, nesting
		// or a text that might not read back.
		for _, k := range path {
			if !isPlainScalar(k) {
				return nil, javaErrorf(typeError, noJavaClass, "where expected a path of field keys, got %s in it", withArticle(k.TypeName())).
					WithHint("write the path as keywords, strings or numbers: (where [:a :b] = value)")
			}
		}
	default:
		return nil, javaErrorf(typeError, noJavaClass, "where expected a field keyword or a path vector, got %s", f.TypeName()).
			WithHint("write (where :field = value) or (where [:a :b] = value)")
	}
	p := &wherePredicate{path: path, op: n.op, value: Nil}
	if n.value != nil {
		if p.value, err = n.value.eval(th, fr); err != nil {
			return nil, err
		}
	}
	if err := th.allocClosure(2); err != nil {
		return nil, err
	}
	t := textWriter{counting: true}
	p.writeText(&printer{out: &t}, 0)
	p.weight = addWeight(t.size()+1, weightOf(p.value))
	return p, nil
}

func compileWhere(c *compiler, l *list, tail bool) (node, error) {
	args := l.Elems[1:]
	if len(args) != 1 && len(args) != 3 {
		hint := "write (where :field op value) with op one of =, not=, >, <, >=, <=, includes, in; or (where :field) for truthiness"
		if len(args) == 2 {
			hint = "Use (where " + shown(args[0]) + " = " + shown(args[1]) + ") for equality comparison"
		}
		return nil, c.errorf(validationError, "where expects a field, an operator and a value, got %d form%s", len(args), plural(len(args))).
			WithHint("%s", hint)
	}
	field, err := c.compile(args[0], false)
	if err != nil {
		return nil, err
	}
	n := &whereNode{field: field}
	if len(args) == 3 {
		op, ok := args[1].(symbol)
		if !ok || !whereOperators[string(op)] {
			return nil, c.errorf(validationError, "where operator must be one of =, not=, >, <, >=, <=, includes, in; got %s", formText(args[1])).
				WithHint("write (where :field = value)")
		}
		n.op = string(op)
		if n.value, err = c.compile(args[2], false); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// wherePredicate is the predicate function a where form builds.
type wherePredicate struct {
	path   []Value
	op     string
	value  Value
	weight int64 // see valueWeight
}

func (*wherePredicate) TypeName() string { return "function" }

func (p *wherePredicate) ParamNames() []string { return []string{"item"} }

// valueWeight counts its text and the compared value, which it prints
// with.
func (p *wherePredicate) valueWeight() int64 { return p.weight }

// writeText writes the where call that makes the predicate, its value
// (when it has an operator) as its one held value.
func (p *wherePredicate) writeText(pr *printer, i int) {
	if i == 0 {
		pr.out.writeString("(where ")
		p.writePath(pr)
		if p.op != "" {
			pr.out.writeByte(' ')
			pr.out.writeString(p.op)
			pr.out.writeByte(' ')
			return
		}
	}
	pr.out.writeByte(')')
}

// writePath writes the field or the path of fields.
func (p *wherePredicate) writePath(pr *printer) {
	if len(p.path) == 1 {
		pr.form(p.path[0])
		return
	}
	pr.out.writeByte('[')
	for i, k := range p.path {
		if i > 0 {
			pr.out.writeByte(' ')
		}
		pr.form(k)
	}
	pr.out.writeByte(']')
}

// heldValues is the value it compares with, when it has an operator.
func (p *wherePredicate) heldValues() []Value {
	if p.op == "" {
		return nil
	}
	return []Value{p.value}
}

func (p *wherePredicate) Call(th *Thread, args []Value) (Value, error) {
	if len(args) != 1 {
		return nil, arityError("where predicate", "(pred item)", len(args))
	}
	var x Value = args[0]
	for _, k := range p.path {
		m, _ := x.(*Map)
		if m == nil {
			if v, ok := x.(*Vector); ok {
				if i, ok := k.(Int); ok && i >= 0 && int(i) < v.Len() {
					x = v.index(int(i))
					continue
				}
			}
			x = Nil
			break
		}
		x, _ = lookupFlexible(m, k)
	}
	if err := p.charge(th, x); err != nil {
		return nil, err
	}
	return Bool(p.test(x)), nil
}

// charge charges for what test(x) compares: the field and the value, or
// for in, each member of the value.
func (p *wherePredicate) charge(th *Thread, x Value) error {
	switch p.op {
	case "":
		return nil
	case "in":
		return chargeEqual(th, []Value{x, p.value})
	}
	return chargeEqual(th, []Value{x, whereCoerce(p.value)})
}

// whereCoerce turns keywords into strings, so :active matches "active"
// (spec 7.1); booleans and other values are unchanged.
func whereCoerce(v Value) Value {
	if k, ok := v.(Keyword); ok {
		return String(k)
	}
	return v
}

func (p *wherePredicate) test(x Value) bool {
	switch p.op {
	case "":
		return truthy(x)
	case "=":
		return Equal(whereCoerce(x), whereCoerce(p.value))
	case "not=":
		return !Equal(whereCoerce(x), whereCoerce(p.value))
	case "in":
		return whereMember(p.value, x)
	case "includes":
		switch c := x.(type) {
		case String:
			if s, ok := whereCoerce(p.value).(String); ok {
				return strings.Contains(string(c), string(s))
			}
			return false
		case *Vector, *Set:
			return whereMember(c, p.value)
		case *Map:
			_, ok := lookupFlexible(c, p.value)
			return ok
		}
		return false
	}
	c, ok := whereOrder(x, p.value)
	if !ok {
		return false
	}
	switch p.op {
	case ">":
		return c > 0
	case "<":
		return c < 0
	case ">=":
		return c >= 0
	default:
		return c <= 0
	}
}

// whereMember reports whether coll holds x, keywords matching strings.
func whereMember(coll, x Value) bool {
	var elems []Value
	switch c := coll.(type) {
	case *Vector:
		elems = c.Elems()
	case *Set:
		if c.contains(x) {
			return true
		}
		elems = c.Elems()
	default:
		return false
	}
	want := whereCoerce(x)
	for _, e := range elems {
		if Equal(whereCoerce(e), want) {
			return true
		}
	}
	return false
}

// whereOrder compares numbers with numbers and strings with strings; any
// other pairing (nil, mixed types) does not compare, and the test is false.
func whereOrder(a, b Value) (int, bool) {
	if isBig(a, b) || isDec(a, b) {
		if _, ok := asFloat(a); ok {
			if _, ok := asFloat(b); ok {
				return compareNumbers(a, b)
			}
		}
		return 0, false
	}
	switch a := a.(type) {
	case Int:
		switch b := b.(type) {
		case Int:
			return intCmp(a, b), true
		case Float, Float32:
			f, _ := floatValue(b)
			return floatCmp(float64(a), f)
		}
	case Float, Float32:
		x, _ := floatValue(a)
		if y, ok := asFloat(b); ok {
			return floatCmp(x, y)
		}
	case String:
		if b, ok := b.(String); ok {
			return strings.Compare(string(a), string(b)), true
		}
	}
	return 0, false
}

func intCmp(a, b Int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func floatCmp(a, b float64) (int, bool) {
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	case a == b:
		return 0, true
	}
	return 0, false // NaN
}
