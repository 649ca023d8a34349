package lisp

// *print-meta*: within (binding [*print-meta* true] body...), pr-str,
// prn, prn-str and str print a collection's metadata before it, as
// Clojure's printer does: ^{:k 1} [1], and ^T [1] for metadata that is
// only a :tag T. binding of any other var is refused as before (the
// program is one namespace whose names are fixed when it runs).

// printMetaVars are the names *print-meta* is written with.
var printMetaVars = map[Value]bool{symbol("*print-meta*"): true, symbol("clojure.core/*print-meta*"): true}

// compilePrintMetaBinding compiles (binding [*print-meta* v ...] body...);
// a binding of any other var is refused as an undefined binding is.
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
	for i := 0; i < len(pairs); i += 2 {
		if !printMetaVars[pairs[i]] {
			return nil, c.undefined("binding")
		}
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
	return &printMetaNode{values: values, body: body}, nil
}

// printMetaNode is a binding of *print-meta*: its body runs with the
// evaluation's printMeta set to the last value bound, and restored after.
type printMetaNode struct {
	values []node
	body   node
}

func (n *printMetaNode) eval(th *Thread, fr *frame) (Value, error) {
	on := th.printMeta
	for _, value := range n.values {
		v, err := value.eval(th, fr)
		if err != nil {
			return nil, err
		}
		on = truthy(v)
	}
	saved := th.printMeta
	th.printMeta = on
	v, err := n.body.eval(th, fr)
	th.printMeta = saved
	return v, err
}

// printMetaReadNode is the value of *print-meta*: false outside a binding.
type printMetaReadNode struct{}

func (printMetaReadNode) eval(th *Thread, _ *frame) (Value, error) { return Bool(th.printMeta), nil }

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
