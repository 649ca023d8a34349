package lisp

// *print-meta*: within (binding [*print-meta* true] body...), pr-str,
// prn, prn-str and str print a collection's metadata before it, as
// Clojure's printer does: ^{:k 1} [1], and ^T [1] for metadata that is
// only a :tag T. *print-namespace-maps*: true outside a binding, as
// clojure.main binds it; within (binding [*print-namespace-maps* false]
// ...) a map whose keys share a namespace prints whole, {:a/b 1}. binding
// of any other var is refused as before (the program is one namespace
// whose names are fixed when it runs).

// printVar is a dynamic var of the printer a program may bind.
type printVar uint8

const (
	printMetaVar printVar = iota
	printNamespaceMapsVar
)

// printVars are the names the bindable vars are written with.
var printVars = map[Value]printVar{
	symbol("*print-meta*"): printMetaVar, symbol("clojure.core/*print-meta*"): printMetaVar,
	symbol("*print-namespace-maps*"): printNamespaceMapsVar, symbol("clojure.core/*print-namespace-maps*"): printNamespaceMapsVar,
}

// compilePrintMetaBinding compiles (binding [*print-meta* v ...] body...)
// and the same of *print-namespace-maps*; a binding of any other var is
// refused as an undefined binding is.
func compilePrintMetaBinding(c *compiler, l *list, tail bool) (node, error) {
	var pairs []Value
	if len(l.Elems) >= 2 {
		if v, ok := l.Elems[1].(*Vector); ok && v.Len()%2 == 0 && v.Len() > 0 {
			pairs = v.Elems()
		}
	}
	if pairs == nil {
		return nil, c.undefined("binding")
	}
	var values []node
	var vars []printVar
	for i := 0; i < len(pairs); i += 2 {
		pv, ok := printVars[pairs[i]]
		if !ok {
			return nil, c.undefined("binding")
		}
		vars = append(vars, pv)
		n, err := c.compile(pairs[i+1], false)
		if err != nil {
			return nil, err
		}
		values = append(values, n)
	}
	body, err := c.compileBody(l.Elems[2:], false)
	if err != nil {
		return nil, err
	}
	return &printMetaNode{vars: vars, values: values, body: body}, nil
}

// printMetaNode is a binding of the printer's vars: its body runs with
// each var the evaluation keeps set to the last value bound to it (all
// values computed first, as Clojure's binding does), and restored after.
type printMetaNode struct {
	vars   []printVar
	values []node
	body   node
}

func (n *printMetaNode) eval(th *Thread, fr *frame) (Value, error) {
	meta, plainMaps := th.printMeta, th.plainMaps
	for i, value := range n.values {
		v, err := value.eval(th, fr)
		if err != nil {
			return nil, err
		}
		switch n.vars[i] {
		case printMetaVar:
			meta = truthy(v)
		case printNamespaceMapsVar:
			plainMaps = !truthy(v)
		}
	}
	savedMeta, savedPlain := th.printMeta, th.plainMaps
	th.printMeta, th.plainMaps = meta, plainMaps
	v, err := n.body.eval(th, fr)
	th.printMeta, th.plainMaps = savedMeta, savedPlain
	return v, err
}

// printVarReadNode is the value of a printer's var: *print-meta* is false
// outside a binding, *print-namespace-maps* true.
type printVarReadNode struct{ v printVar }

func (n printVarReadNode) eval(th *Thread, _ *frame) (Value, error) {
	if n.v == printNamespaceMapsVar {
		return Bool(!th.plainMaps), nil
	}
	return Bool(th.printMeta), nil
}

// metaPrefix writes ^meta and a space before at, a collection with
// metadata, as Clojure's print-meta: the :tag alone when it is the only
// key, else the whole map (printed with its own metadata).
func (p *printer) metaPrefix(at Value) error {
	m := metaOf(at)
	if m == nil || m.Len() == 0 {
		return nil
	}
	var shown Value = m
	if tag, ok := m.Get(Keyword("tag")); ok && m.Len() == 1 {
		shown = tag
	}
	p.out.writeByte('^')
	sub := printer{out: p.out, mode: p.mode, th: p.th, limit: p.limit, bare: p.bare, clojureOrder: p.clojureOrder, namespaceMaps: p.namespaceMaps, meta: true}
	if err := sub.print(shown); err != nil {
		return err
	}
	p.out.writeByte(' ')
	return nil
}
