package lisp

// Transients, as Clojure's: (transient coll) is a vector, map or set that
// conj!, assoc!, dissoc!, disj! and pop! change in place, so that a
// program which bashes one for its effect,
//
//	(let [t (transient [])] (doseq [x xs] (conj! t x)) (persistent! t))
//
// gets the items, as in Clojure, and one that uses what they return gets
// the same. persistent! ends it: any later use is Clojure's "Transient
// used after persistent! call".
//
// A transient is state of the one evaluation that made it, as an atom
// is: it cannot be kept between turns or be (or be inside) a turn's
// result (checkResultKind, unstorable), and its walk has no parts, so
// nothing copies, freezes or measures it; only persistent! lets what it
// holds out, as a value.
//
// Each change is the persistent operation on what it holds (conj, assoc,
// ...), charged as that builtin is; a vector grows in place, since the
// transient holds the longest version of it.
type transient struct {
	coll Value // *Vector, *Map or *Set: what it holds now
	// arrayMap marks a map transient made from a map of at most eight
	// entries, Clojure's TransientArrayMap: the assoc! that would give it
	// a ninth key returns a new transient (a hash map's) and leaves this
	// one as it was, so bashing it in place keeps eight entries.
	arrayMap bool
	done     bool // persistent! has been called
}

func (*transient) TypeName() string { return "transient" }

func (*transient) walkParts() ([]Value, []MapEntry, bool) { return nil, nil, false }
func (v *transient) writeText(p *printer, _ int)          { p.scalar(v, false) }
func (*transient) heapShape() int64                       { return heapFunction }

// arrayMapMax is the most entries Clojure's array map holds.
const arrayMapMax = 8

// usedAfterPersistent is Clojure's error for a transient used after
// persistent!.
func usedAfterPersistent(fn string) *Error {
	return Errorf(executionError, "%s: transient used after persistent! call", fn).
		WithHint("persistent! ends a transient: use the value it returned, or make a new one with (transient coll)").
		asJava("IllegalAccessError", "Transient used after persistent! call")
}

// transientArg is args[0] as a live transient.
func transientArg(fn string, v Value) (*transient, error) {
	t, ok := v.(*transient)
	if !ok && v == Nil {
		return nil, typeErrorf(fn, "a transient", v).
			WithHint("make one with (transient coll), and get the value back with (persistent! t)")
	}
	if !ok {
		return nil, typeErrorf(fn, "a transient", v).
			WithHint("make one with (transient coll), and get the value back with (persistent! t)").
			asJava("ClassCastException", javaCastMessage(javaClassOf(v), "clojure.lang.ITransientCollection"))
	}
	if t.done {
		return nil, usedAfterPersistent(fn)
	}
	return t, nil
}

// transientClass is t's class, as Clojure names it.
func transientClass(t *transient) javaClass {
	switch {
	case t.arrayMap:
		return "clojure.lang.PersistentArrayMap$TransientArrayMap"
	}
	switch t.coll.(type) {
	case *Map:
		return "clojure.lang.PersistentHashMap$TransientHashMap"
	case *Set:
		return "clojure.lang.PersistentHashSet$TransientHashSet"
	}
	return "clojure.lang.PersistentVector$TransientVector"
}

// javaClassOf is v's class name for a ClassCastException's message.
func javaClassOf(v Value) string {
	c, err := classOf("", v)
	if err != nil {
		return v.TypeName()
	}
	return string(c)
}

// held is what a live transient holds, for the builtins that read one
// (count, get, nth, contains?, find, and calling it).
func (t *transient) held(fn string) (Value, error) {
	if t.done {
		return nil, usedAfterPersistent(fn)
	}
	return t.coll, nil
}

// Call looks a key (or index) up, as (t k) does in Clojure.
func (t *transient) Call(th *Thread, args []Value) (Value, error) {
	coll, err := t.held("transient")
	if err != nil {
		return nil, err
	}
	if len(args) < 1 || len(args) > 2 {
		return nil, arityError("transient", "(t key) or (t key default)", len(args))
	}
	def := Value(Nil)
	if len(args) == 2 {
		def = args[1]
	}
	return getValue(th, coll, args[0], def)
}

// readingTransient lets a builtin that reads a collection read a
// transient's, as Clojure's count, get, nth, contains? and find do.
func readingTransient(fn string, f func(*Thread, []Value) (Value, error)) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		t, ok := args[0].(*transient)
		if !ok {
			return f(th, args)
		}
		coll, err := t.held(fn)
		if err != nil {
			return nil, err
		}
		read := append([]Value{coll}, args[1:]...)
		return f(th, read)
	}
}

func builtinTransient(th *Thread, args []Value) (Value, error) {
	switch c := args[0].(type) {
	case *Vector:
		if !c.IsList() {
			return &transient{coll: vectorWithMeta(c, nil)}, nil // persistent! gives a value without metadata, as Clojure's
		}
	case *Map:
		if c.class() != nil {
			return nil, castError("transient", "a vector, map or set", c, "clojure.lang.IEditableCollection").
				WithHint("make a map of the record first: (transient (into {} r))")
		}
		if orderOf(c) == nil {
			return &transient{coll: mapWithMeta(c, nil), arrayMap: c.Len() <= arrayMapMax}, nil
		}
	case *Set:
		if orderOf(c) == nil {
			return &transient{coll: setWithMeta(c, nil)}, nil
		}
	}
	if args[0] == Nil {
		return nil, typeErrorf("transient", "a vector, hash map or hash set", Nil).
			asJava("NullPointerException", `Cannot invoke "clojure.lang.IEditableCollection.asTransient()" because "coll" is null`)
	}
	return nil, typeErrorf("transient", "a vector, hash map or hash set", args[0]).
		WithHint("a list or a sorted collection has no transient: build it with conj, or make a vector with (vec coll) first").
		asJava("ClassCastException", javaCastMessage(javaClassOf(args[0]), "clojure.lang.IEditableCollection"))
}

func builtinPersistent(th *Thread, args []Value) (Value, error) {
	t, err := transientArg("persistent!", args[0])
	if err != nil {
		return nil, err
	}
	t.done = true
	return t.coll, nil
}

// change runs the persistent builtin named op on what t holds and keeps
// its result.
func (t *transient) change(th *Thread, op *Builtin, args ...Value) error {
	v, err := op.Call(th, append([]Value{t.coll}, args...))
	if err != nil {
		return err
	}
	t.coll = v
	return nil
}

var (
	conjRow   = rowNamed(collectionBuiltins, "conj")
	assocRow  = rowNamed(mapBuiltins, "assoc")
	dissocRow = rowNamed(mapBuiltins, "dissoc")
	disjRow   = rowNamed(setBuiltins, "disj")
	popRow    = rowNamed(sequenceBuiltins, "pop")
)

// assocOne is (assoc! t k v) on one key, returning the transient that
// holds the result: t itself, or for an array map given a ninth key a
// new one (see arrayMap).
func (t *transient) assocOne(th *Thread, k, v Value) (*transient, error) {
	if m, ok := t.coll.(*Map); ok && t.arrayMap && m.Len() >= arrayMapMax {
		if _, has := m.Get(k); !has {
			grown := &transient{coll: m}
			return grown, grown.change(th, assocRow, k, v)
		}
	}
	return t, t.change(th, assocRow, k, v)
}

// builtinConjBang is conj!: (conj!) a new transient vector, (conj! t) t,
// (conj! t x) x added to t.
func builtinConjBang(th *Thread, args []Value) (Value, error) {
	switch len(args) {
	case 0:
		return &transient{coll: emptyVector}, nil
	case 1:
		return args[0], nil
	}
	t, err := transientArg("conj!", args[0])
	if err != nil {
		return nil, err
	}
	if _, isMap := t.coll.(*Map); !isMap || args[1] == Nil {
		return t, t.change(th, conjRow, args[1])
	}
	// A map takes a [k v] pair or a map's entries, each assoc!'d in turn.
	var pairs []Value
	switch x := args[1].(type) {
	case *Vector:
		if x.Len() != 2 || x.IsList() {
			return t, t.change(th, conjRow, x) // conj's own error
		}
		pairs = x.elems
	case *Map:
		for _, e := range x.entries {
			pairs = append(pairs, e.Key, e.Val)
		}
	default:
		return t, t.change(th, conjRow, x)
	}
	return assocPairs(th, t, pairs)
}

// assocPairs assoc!s k1 v1 k2 v2 ... in turn, each on the transient the
// one before returned.
func assocPairs(th *Thread, t *transient, kvs []Value) (Value, error) {
	for i := 0; i+1 < len(kvs); i += 2 {
		var err error
		if t, err = t.assocOne(th, kvs[i], kvs[i+1]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func builtinAssocBang(th *Thread, args []Value) (Value, error) {
	t, err := transientArg("assoc!", args[0])
	if err != nil {
		return nil, err
	}
	if len(args)%2 == 0 {
		return nil, arityError("assoc!", "(assoc! t k v) or (assoc! t k v k2 v2 ...)", len(args))
	}
	if _, isMap := t.coll.(*Map); !isMap {
		return t, t.change(th, assocRow, args[1:]...)
	}
	return assocPairs(th, t, args[1:])
}

// changeBang is a builtin that changes a transient in place with op: its
// arguments after the transient are op's.
func changeBang(name string, op *Builtin) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		t, err := transientArg(name, args[0])
		if err != nil {
			return nil, err
		}
		if len(args) == 1 && name != "pop!" {
			return t, nil
		}
		return t, t.change(th, op, args[1:]...)
	}
}

// transientBuiltins are Clojure's transient functions. Like aliasBuiltins
// they cost no prompt tokens.
var transientBuiltins = []*Builtin{
	{Name: "transient", Sig: "(transient coll)", Doc: "a vector, map or set that conj!, assoc!, dissoc!, disj! and pop! change in place, until persistent!", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinTransient, Cost: cost(builds)},
	{Name: "persistent!", Sig: "(persistent! t)", Doc: "the value a transient holds; the transient cannot be used after", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinPersistent, Cost: cost(constant)},
	{Name: "conj!", Sig: "(conj! t x)", Doc: "adds x to transient t, in place, and returns it", Category: "idiom",
		MinArgs: 0, MaxArgs: 2, Fn: builtinConjBang, Cost: cost(updates)},
	{Name: "assoc!", Sig: "(assoc! t k v ...)", Doc: "sets k to v in transient t, in place, and returns it", Category: "idiom",
		MinArgs: 3, MaxArgs: variadic, Fn: builtinAssocBang, Cost: cost(updates)},
	{Name: "dissoc!", Sig: "(dissoc! t k ...)", Doc: "removes the keys from transient map t, in place, and returns it", Category: "idiom",
		MinArgs: 1, MaxArgs: variadic, Fn: changeBang("dissoc!", dissocRow), Cost: cost(updates)},
	{Name: "disj!", Sig: "(disj! t x ...)", Doc: "removes the items from transient set t, in place, and returns it", Category: "idiom",
		MinArgs: 1, MaxArgs: variadic, Fn: changeBang("disj!", disjRow), Cost: cost(updates)},
	{Name: "pop!", Sig: "(pop! t)", Doc: "removes the last item of transient vector t, in place, and returns it", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: changeBang("pop!", popRow), Cost: cost(updates)},
}
