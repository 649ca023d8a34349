package lisp

// Metadata, as Clojure has it: a map a value carries that is no part of
// its value. Vectors, lists, maps (records and sorted maps too), sets and
// functions written with fn or defn carry it; = and hash ignore it, and it
// prints only when asked for. The operations that return "the same
// collection, changed" keep it (conj, assoc, dissoc, disj, pop of a
// vector, empty, into onto it, merge into it), and those that build a new
// one (map, filter, vec, seq, into {}) start without it, exactly as
// Clojure's do; TestMetaFollowsClojure holds each to the oracle.
//
// A value's metadata is one of its parts to the walks that must see all
// a value holds (Freeze, Footprint: walk.withMeta), and none to those that
// see the value (printing, equality, hashing, emission). Its weight is
// not counted in the value's: weight bounds the text a value prints as,
// and metadata does not print.
//
// Vars carry metadata too: def and defn give a var its :name, :doc,
// :arglists and the reader's ^:private, ^:dynamic and attribute map
// (varMeta); it lives with the evaluation's definitions.

// metaOf returns v's metadata, nil for none.
func metaOf(v Value) *Map {
	switch v := v.(type) {
	case *Vector:
		return v.metadata()
	case *Map:
		return v.metadata()
	case *Set:
		return v.meta
	case *closure:
		return v.meta
	case *combined:
		if v.name == metaFnName {
			m, _ := v.args[1].(*Map)
			return m
		}
	}
	return nil
}

// metaFnName names the function with-meta makes of a builtin or of a
// function comp, partial or another combinator made: a combined function
// that calls the one it wraps, as Clojure's AFunction.withMeta makes a
// new function that applies the original. It prints, and is kept between
// turns, as the call that made it, (with-meta inc {:doc "x"}), which gives
// it back.
const metaFnName = "with-meta"

// fnWithMeta is f, a builtin or a combined function, carrying meta (nil:
// none); with-meta of one made by with-meta wraps the function it wraps.
func fnWithMeta(f Value, meta *Map) *combined {
	if c, ok := f.(*combined); ok && c.name == metaFnName {
		f = c.args[0]
	}
	args := []Value{f, metaValue(meta)}
	return &combined{name: metaFnName, args: args, weight: callWeight(metaFnName, args),
		fn: func(th *Thread, xs []Value) (Value, error) { return th.call(f, xs) }}
}

// withMeta returns v carrying meta (nil: none) in a new header that
// shares v's parts, or v itself when it carries meta already; ok is
// false for a value that cannot carry metadata.
func withMeta(v Value, meta *Map) (Value, bool) {
	if metaOf(v) == meta {
		switch v.(type) {
		case *Vector, *Map, *Set, *closure:
			return v, true
		}
	}
	switch v := v.(type) {
	case *Vector:
		return vectorWithMeta(v, meta), true
	case *Map:
		return mapWithMeta(v, meta), true
	case *Set:
		return setWithMeta(v, meta), true
	case *closure:
		c := *v
		c.meta = meta
		return &c, true
	case *Builtin, *combined:
		return fnWithMeta(v, meta), true
	}
	return nil, false
}

// vectorWithMeta is v carrying meta. The new header shares v's lineage:
// of two versions of one length, the first to extend it does so in
// place and the other copies (Vector.conj). Its nesting is left
// unmeasured, so that Freeze walks into the metadata.
func vectorWithMeta(v *Vector, meta *Map) *Vector {
	if v.metadata() == meta {
		return v
	}
	return &Vector{elems: v.elems, tail: v.tail, weight: v.weight & weightMask, form: newVectorForm(v.IsList(), v.isEntry(), meta)}
}

// mapWithMeta is vectorWithMeta for a map.
func mapWithMeta(m *Map, meta *Map) *Map {
	if m.metadata() == meta {
		return m
	}
	out := &Map{entries: m.entries, index: m.index, tail: m.tail, weight: m.weight & weightMask, traits: newMapTraits(m.class(), meta)}
	out.order.Store(m.order.Load())
	return out
}

// setWithMeta is vectorWithMeta for a set.
func setWithMeta(s *Set, meta *Map) *Set {
	if s.meta == meta {
		return s
	}
	out := &Set{elems: s.elems, index: s.index, tail: s.tail, weight: s.weight, meta: meta}
	out.order.Store(s.order.Load())
	return out
}

// keepMeta gives out the metadata of from, the collection it was made
// from by an operation that keeps it (Clojure's with-meta of the result
// by the argument's meta).
func keepMeta(from, out Value) Value {
	m := metaOf(from)
	if m == nil || metaOf(out) == m {
		return out
	}
	if v, ok := withMeta(out, m); ok {
		return v
	}
	return out
}

// metaArg reads the metadata argument of with-meta and reset-meta!: a map
// or nil, as Clojure's IPersistentMap cast.
func metaArg(fn string, v Value) (*Map, error) {
	switch m := v.(type) {
	case *Map:
		return m, nil
	case NilType:
		return nil, nil
	}
	return nil, castError(fn, "a map of metadata", v, "clojure.lang.IPersistentMap")
}

// carryError is what with-meta says of a value that cannot carry
// metadata: Clojure's ClassCastException for a number, string, keyword,
// boolean or character (a keyword, map or set called as a function is no
// function object), its NullPointerException for nil.
func carryError(fn string, v Value) *Error {
	switch v.(type) {
	case NilType:
		return Errorf(typeError, "%s of nil: nil carries no metadata", fn).
			asJava("NullPointerException", `Cannot invoke "clojure.lang.IObj.withMeta(clojure.lang.IPersistentMap)" because "x" is null`)
	case symbol:
		// Clojure's symbols carry metadata; here a symbol is its name
		// alone, so this is a refusal, not Clojure's exception.
		return javaErrorf(typeError, noJavaClass, "%s of the symbol %s: symbols carry no metadata in PTC-Lisp", fn, shown(v)).
			WithHint("keep the metadata beside the symbol in a map, {:sym 'a :meta {:k 1}}, and read it with (:meta m)")
	}
	return castError(fn, "a collection or a fn", v, "clojure.lang.IObj")
}

// builtinMeta is (meta x): x's metadata, nil for a value that carries none
// (a string, a number), as Clojure's.
func builtinMeta(th *Thread, args []Value) (Value, error) {
	switch v := args[0].(type) {
	case *varRef:
		if !th.prog.isDefined(v.Name) {
			if _, builtin := lookupFunction(v.Name); builtin {
				// Clojure's var has its docstring, :arglists, :added and
				// more, which a builtin here has not: nil would be a
				// different answer given silently.
				return nil, javaErrorf(typeError, noJavaClass, "meta of #'%s: PTC-Lisp's builtins carry no var metadata (Clojure's :doc, :arglists, :added)", v.Name)
			}
		}
		m := th.prog.varMeta(v.Name)
		if err := th.allocMap(int(itemCount(m))); err != nil {
			return nil, err
		}
		return m, nil
	case *atom:
		if v.meta != nil && !v.volatile && !v.delay {
			return v.meta, nil
		}
		return Nil, nil
	}
	if m := metaOf(args[0]); m != nil {
		return m, nil
	}
	return Nil, nil
}

// builtinWithMeta is (with-meta x m).
func builtinWithMeta(th *Thread, args []Value) (Value, error) {
	m, err := metaArg("with-meta", args[1])
	if err != nil {
		return nil, err
	}
	return attachMeta(th, "with-meta", args[0], m)
}

// attachMeta is x carrying m, charged its new header, or with-meta's
// error for a value that cannot carry it.
func attachMeta(th *Thread, fn string, x Value, m *Map) (Value, error) {
	out, ok := withMeta(x, m)
	if !ok {
		return nil, carryError(fn, x)
	}
	if out != x {
		if err := th.alloc(heapMapHead); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// builtinVaryMeta is (vary-meta x f & args): x with (apply f (meta x)
// args) as its metadata.
func builtinVaryMeta(th *Thread, args []Value) (Value, error) {
	if _, ok := withMeta(args[0], nil); !ok {
		return nil, carryError("vary-meta", args[0])
	}
	m, err := applyToMeta(th, "vary-meta", metaOf(args[0]), args[1], args[2:])
	if err != nil {
		return nil, err
	}
	return attachMeta(th, "vary-meta", args[0], m)
}

// applyToMeta calls (apply f old args), which must return a map or nil.
func applyToMeta(th *Thread, fn string, old *Map, f Value, args []Value) (*Map, error) {
	var cur Value = Nil
	if old != nil {
		cur = old
	}
	callArgs := append([]Value{cur}, args...)
	v, err := th.call(f, callArgs)
	if err != nil {
		return nil, err
	}
	return metaArg(fn, v)
}

// builtinAlterMeta is (alter-meta! ref f & args) on an atom or a var: the
// reference's metadata becomes (apply f its-meta args), which it returns.
// An atom and a var live one evaluation, so nothing shared changes.
func builtinAlterMeta(th *Thread, args []Value) (Value, error) {
	old, set, err := metaRef(th, "alter-meta!", args[0])
	if err != nil {
		return nil, err
	}
	m, err := applyToMeta(th, "alter-meta!", old, args[1], args[2:])
	if err != nil {
		return nil, err
	}
	set(m)
	return metaValue(m), nil
}

// builtinResetMeta is (reset-meta! ref m).
func builtinResetMeta(th *Thread, args []Value) (Value, error) {
	_, set, err := metaRef(th, "reset-meta!", args[0])
	if err != nil {
		return nil, err
	}
	m, err := metaArg("reset-meta!", args[1])
	if err != nil {
		return nil, err
	}
	set(m)
	return metaValue(m), nil
}

func metaValue(m *Map) Value {
	if m == nil {
		return Nil
	}
	return m
}

// metaRef is the metadata of a reference (an atom or a var) and how to
// set it.
func metaRef(th *Thread, fn string, ref Value) (*Map, func(*Map), error) {
	switch r := ref.(type) {
	case *atom:
		if !r.volatile && !r.delay {
			return r.meta, func(m *Map) { r.meta = m }, nil
		}
	case *varRef:
		if g, ok := th.prog.cell(r.Name); ok && g.bound {
			old, _ := th.prog.varMeta(r.Name).(*Map)
			return old, func(m *Map) { g.meta, g.metaSet = m, true }, nil
		}
		return nil, nil, Errorf(validationError, "%s: #'%s is not defined", fn, r.Name)
	}
	return nil, nil, castError(fn, "an atom or a var", ref, "clojure.lang.IReference")
}

// varMeta is (meta #'name): what Clojure gives for the keys programs read.
// :name, :doc and :arglists come from the definition (and so survive
// between turns with it); the reader's ^:private, ^:dynamic, ^{...} and
// defn's attribute map, and what alter-meta! set, live with this
// evaluation. :line, :column, :file and :ns are left out: they name
// Clojure's source files and namespace objects, which a program here has
// no counterpart of.
func (p *progState) varMeta(name string) Value {
	g, ok := p.cell(name)
	if !ok || !g.bound {
		return Nil
	}
	if g.metaSet {
		return metaValue(g.meta)
	}
	b := NewMapBuilder(4)
	if g.attrs != nil {
		for _, e := range g.attrs.Entries() {
			b.Set(e.Key, e.Val)
		}
	}
	if c, ok := g.binding.Value.(*closure); ok {
		b.Set(Keyword("arglists"), arglists(c))
	}
	if g.binding.Docstring != "" {
		b.Set(Keyword("doc"), String(g.binding.Docstring))
	}
	b.Set(Keyword("name"), symbol(name))
	return Freeze(b.Map())
}

// arglists is a function's :arglists, a list of its parameter vectors as
// written.
func arglists(c *closure) Value {
	out := make([]Value, 0, len(c.lam.arities))
	for _, ar := range c.lam.arities {
		out = append(out, quoted(ar.paramForm))
	}
	return newList(out)
}

// afterDefHead reports whether the list s is being read into starts
// with def, defn, defn- or defonce, so that the form read next is the
// name it binds.
func (r *reader) afterDefHead(s *seqForms) bool {
	if s.count || s.long != nil || r.stack.n <= s.mark {
		return false
	}
	switch r.stack.at(s.mark) {
	case symbol("def"), symbol("defn"), symbol("defn-"), symbol("defonce"):
		return true
	}
	return false
}

// afterQuoteHead reports whether the list being read is a (quote ...)
// form whose head is read: its argument is data, as after '.
func (r *reader) afterQuoteHead(s *seqForms) bool {
	return !s.count && s.long == nil && r.stack.n > s.mark && r.stack.at(s.mark) == symbol("quote")
}

// onlyTag reports whether metadata entries are a type hint alone.
func onlyTag(entries []Value) bool {
	return len(entries) == 2 && entries[0] == Keyword("tag")
}

// mergeMetaEntries is inner's metadata with outer's assoc'd onto it, as
// Clojure's reader merges ^:a ^:b x: inner's keys first, a key of both
// taking outer's value in inner's place.
func mergeMetaEntries(inner, outer []Value) []Value {
	out := append([]Value(nil), inner...)
	for i := 0; i+1 < len(outer); i += 2 {
		replaced := false
		for j := 0; j+1 < len(out); j += 2 {
			if k, ok := out[j].(Keyword); ok && k == outer[i] {
				out[j+1], replaced = outer[i+1], true
				break
			}
		}
		if !replaced {
			out = append(out, outer[i], outer[i+1])
		}
	}
	return out
}

// metaForm is a form the reader read with metadata (readMeta): a vector,
// map or set literal, which evaluates to the collection carrying the
// metadata, evaluated too, as Clojure's compiler does; or the name of a
// def, whose metadata goes to the var. It prints back as ^{...} form.
type metaForm struct {
	Meta *mapForm
	Form Value
}

func (*metaForm) TypeName() string                         { return "form" }
func (f *metaForm) walkParts() ([]Value, []MapEntry, bool) { return []Value{f.Meta, f.Form}, nil, true }
func (f *metaForm) writeText(p *printer, i int)            { openClose(p, i, 2, "^", "") }
func (f *metaForm) heapShape() int64                       { return vectorHeap.shape(2, false) }
func (f *metaForm) nameMeta() (symbol, *mapForm, bool) {
	s, ok := f.Form.(symbol)
	return s, f.Meta, ok
}

// nameAndMeta splits the name form of a def into the name and the
// metadata written on it (nil for none).
func nameAndMeta(f Value) (Value, *mapForm) {
	if mf, ok := f.(*metaForm); ok {
		if s, m, ok := mf.nameMeta(); ok {
			return s, m
		}
	}
	return f, nil
}

// compileMetaForm compiles a form read with metadata: the collection
// with its metadata attached (a constant when both are), or a name's
// form alone (metadata on a name means something only to def).
func (c *compiler) compileMetaForm(f *metaForm) (node, error) {
	form, err := c.compile(f.Form, false)
	if err != nil {
		return nil, err
	}
	if _, isName := f.Form.(symbol); isName {
		return form, nil
	}
	meta, err := c.compile(f.Meta, false)
	if err != nil {
		return nil, err
	}
	fc, formConst := form.(*constNode)
	mc, metaConst := meta.(*constNode)
	if formConst && metaConst {
		if v, ok := withMeta(fc.v, mc.v.(*Map)); ok {
			return &constNode{Freeze(v)}, nil
		}
	}
	return &metaNode{form: form, meta: meta}, nil
}

// metaNode evaluates a collection literal and attaches its metadata.
type metaNode struct{ form, meta node }

func (n *metaNode) eval(th *Thread, fr *frame) (Value, error) {
	v, err := n.form.eval(th, fr)
	if err != nil {
		return nil, err
	}
	m, err := n.meta.eval(th, fr)
	if err != nil {
		return nil, err
	}
	meta, err := metaArg("with-meta", m)
	if err != nil {
		return nil, err
	}
	return attachMeta(th, "with-meta", v, meta)
}

// quotedMeta is a quoted form read with metadata: the quoted collection
// carrying its quoted metadata.
func quotedMeta(f *metaForm) Value {
	q := quoted(f.Form)
	m, _ := quoted(f.Meta).(*Map)
	if v, ok := withMeta(q, m); ok {
		return v
	}
	return q
}

// metaBuiltins are Clojure's metadata functions.
var metaBuiltins = []*Builtin{
	{Name: "meta", Sig: "(meta x)", Doc: "x's metadata map, nil for none; (meta #'f) has :name, :doc, :arglists", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, // Fn: builtinMeta, set by init (it reads the registry)
		Cost: cost(chargedInBody("a var's metadata map, built when asked for: its header and an entry per key"))},
	{Name: "with-meta", Sig: "(with-meta x m)", Doc: "x carrying the metadata map m; = ignores it", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Fn: builtinWithMeta,
		Cost: cost(chargedInBody("the new header of the value carrying the metadata"))},
	{Name: "vary-meta", Sig: "(vary-meta x f & args)", Doc: "x with metadata (apply f (meta x) args)", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Fn: builtinVaryMeta,
		Cost: cost(calls(arg(1)), chargedInBody("the new header of the value carrying the metadata"))},
	{Name: "alter-meta!", Sig: "(alter-meta! ref f & args)", Doc: "sets an atom's or var's metadata to (apply f its-meta args)", Category: "idiom",
		MinArgs: 2, MaxArgs: variadic, Fn: builtinAlterMeta,
		Cost: cost(calls(arg(1)))},
	{Name: "reset-meta!", Sig: "(reset-meta! ref m)", Doc: "sets an atom's or var's metadata to m", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Fn: builtinResetMeta, Cost: cost(constant)},
}

// metaKeepers are the builtins whose result is "the same collection,
// changed", which keeps the metadata of the argument it was made from,
// as Clojure's do; each picks that argument (nil: none). The others build
// a new value, without metadata (map, filter, vec, seq, zipmap, ...).
var metaKeepers = map[string]func(args []Value) Value{
	"conj": firstArg, "assoc": firstArg, "dissoc": firstArg, "disj": firstArg, "into": firstArg,
	"empty": firstArg, "merge": firstArg, "select-keys": firstArg, "update": firstArg,
	"update-in": firstArg, "assoc-in": firstArg, "update-vals": firstArg, "update-keys": firstArg,
	"rename-keys": firstArg, "difference": firstArg,
	"merge-with": func(args []Value) Value { return argAt(args, 1) },
	"select":     func(args []Value) Value { return argAt(args, 1) },
	// sort and sort-by return their collection's metadata on the sorted
	// seq (Clojure's (with-meta (seq a) (meta coll))).
	"sort":    lastArgOf,
	"sort-by": lastArgOf,
	// pop keeps a vector's metadata; a list's pop is its rest, without.
	"pop": func(args []Value) Value {
		if v, ok := argAt(args, 0).(*Vector); ok && !v.IsList() {
			return v
		}
		return nil
	},
	// union conjoins the smaller set into the larger (the first when
	// they are as large), intersection keeps the smaller's items.
	"union": func(args []Value) Value {
		return bySize(args, func(a, b int) bool { return b > a })
	},
	"intersection": func(args []Value) Value {
		return bySize(args, func(a, b int) bool { return b < a })
	},
}

// metaDroppers are the builtins that may return their argument itself
// where Clojure returns a new value without its metadata: (vec v),
// (set s), and (seq v) of a vector (a list is its own seq, and keeps it).
var metaDroppers = map[string]bool{"vec": true, "set": true, "seq": true}

func firstArg(args []Value) Value { return argAt(args, 0) }

func lastArgOf(args []Value) Value { return argAt(args, len(args)-1) }

func argAt(args []Value, i int) Value {
	if i < 0 || i >= len(args) {
		return nil
	}
	return args[i]
}

// bySize is the set among args that better(its size, a later one's)
// never replaces, the first of equals.
func bySize(args []Value, better func(a, b int) bool) Value {
	var pick Value
	size := 0
	for _, a := range args {
		s, ok := a.(*Set)
		if !ok {
			continue
		}
		if pick == nil || better(size, s.Len()) {
			pick, size = s, s.Len()
		}
	}
	return pick
}

// The metadata keepers wrap their rows' functions once the rows exist,
// and meta, which asks the registry whether a name is a builtin's, is
// set then.
func init() {
	rowNamed(metaBuiltins, "meta").Fn = builtinMeta
	for _, section := range builtinSections {
		for _, b := range section {
			if metaDroppers[b.Name] && b.Fn != nil {
				fn := b.Fn
				b.Fn = func(th *Thread, args []Value) (Value, error) {
					v, err := fn(th, args)
					if err != nil || metaOf(v) == nil {
						return v, err
					}
					if l, ok := v.(*Vector); ok && l.IsList() && b.Name == "seq" {
						return v, nil
					}
					out, _ := withMeta(v, nil)
					return out, nil
				}
			}
			from, ok := metaKeepers[b.Name]
			if !ok || b.Fn == nil {
				continue
			}
			fn := b.Fn
			b.Fn = func(th *Thread, args []Value) (Value, error) {
				v, err := fn(th, args)
				if err != nil {
					return v, err
				}
				if src := from(args); src != nil {
					return keepMeta(src, v), nil
				}
				return v, nil
			}
		}
	}
}

// defAttrs compiles the metadata a def's name was written with
// (^:private, ^:dynamic, ^{:doc ...}) and defn's attribute map into one
// map form, with defn-'s :private; nil when there is none.
func (c *compiler) defAttrs(nameForm Value, attrMap *mapForm, private bool) (node, error) {
	_, nm := nameAndMeta(nameForm)
	var entries []Value
	if private {
		entries = []Value{Keyword("private"), trueValue}
	}
	if nm != nil {
		entries = mergeMetaEntries(entries, nm.Elems)
	}
	if attrMap != nil {
		entries = mergeMetaEntries(entries, attrMap.Elems)
	}
	if len(entries) == 0 {
		return nil, nil
	}
	return c.compile(&mapForm{Elems: entries, Pos: c.pos}, false)
}

// evalAttrs evaluates a definition's metadata, and takes a :doc string
// in it as its docstring when it has none.
func (n *defNode) evalAttrs(th *Thread, fr *frame) (*Map, string, error) {
	if n.attrs == nil {
		return nil, n.doc, nil
	}
	v, err := n.attrs.eval(th, fr)
	if err != nil {
		return nil, "", err
	}
	m, err := metaArg(n.name, v)
	if err != nil {
		return nil, "", err
	}
	doc := n.doc
	if d, ok := m.Get(Keyword("doc")); ok {
		if s, isString := d.(String); isString && doc == "" {
			doc = string(s)
		}
		m = m.dissoc(Keyword("doc"))
	}
	return Freeze(m).(*Map), doc, nil
}
