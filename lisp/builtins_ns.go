package lisp

import (
	"regexp"
	"strings"
)

// namespaceBuiltins are the Clojure vars whose bare name means something
// else here, reached only under their namespace (namespaces.go):
// (clojure.set/join xrel yrel) is the relational join, while (join sep
// coll) is clojure.string's; (clojure.core/replace smap coll) replaces
// items, while (replace s match replacement) is clojure.string's.
var namespaceBuiltins = []*Builtin{
	{Name: "clojure.data/diff", Sig: "(clojure.data/diff a b)", Doc: "[only-in-a only-in-b in-both], maps by key and vectors by index recursively, nil for an empty part", Category: "idiom", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: builtinDataDiff,
		Cost: cost(visits(arg(0)), visits(arg(1)), testsEquality, buildsItems)},
	{Name: "clojure.core/replace", Sig: "(clojure.core/replace smap coll)", Doc: "coll with each item that is a key of smap replaced by its value", Category: "idiom", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: builtinCoreReplace,
		Cost: cost(visits(arg(1)), lookups, builds), lazy: lazyReplace},
	{Name: "clojure.string/split", Sig: "(clojure.string/split s re) (clojure.string/split s re limit)", Doc: "parts of s around the regex re; trailing empty parts dropped", Category: "string", reach: inNamespace,
		MinArgs: 2, MaxArgs: 3, Fn: func(th *Thread, args []Value) (Value, error) {
			// Clojure's split takes a pattern only; the bare split of
			// PTC-Lisp takes a string too.
			if sep, ok := args[1].(String); ok {
				return nil, typeErrorf("clojure.string/split", "a regex as the separator", args[1]).
					WithHint("write the separator as a regex: (clojure.string/split s %s)", regexLiteral(string(sep))).
					asJava("ClassCastException", "class java.lang.String cannot be cast to class java.util.regex.Pattern")
			}
			return splitString(th, "clojure.string/split", args[0], args[1], args[2:])
		},
		Cost: cost(scans(arg(0)), matching(arg(1), arg(0), true), chargedInBody("the parts: a string and an element each, charged before they are built, as the separator is found"))},
	{Name: "clojure.string/re-quote-replacement", Sig: "(clojure.string/re-quote-replacement s)", Doc: "s with a backslash before each \\ and $, so that replace puts it in literally", Category: "string", reach: inNamespace,
		MinArgs: 1, MaxArgs: 1, Fn: func(th *Thread, args []Value) (Value, error) {
			s, ok := args[0].(String)
			if !ok {
				return nil, typeErrorf("clojure.string/re-quote-replacement", "a string", args[0])
			}
			// Java's Matcher/quoteReplacement, which Clojure's calls.
			// A Replacer built for each call allocated 6.7 KB of tables.
			// A text with nothing to quote is returned as it is: a copy
			// of it would be kept uncharged (builds charges no argument).
			if !strings.ContainsAny(string(s), `\$`) {
				return s, nil
			}
			var b strings.Builder
			b.Grow(len(s))
			for i := range len(s) {
				if s[i] == '\\' || s[i] == '$' {
					b.WriteByte('\\')
				}
				b.WriteByte(s[i])
			}
			return String(b.String()), nil
		},
		Cost: cost(scans(arg(0)), builds)},
	{Name: "clojure.string/escape", Sig: "(clojure.string/escape s cmap)", Doc: "s with each character c for which (cmap c) is not nil replaced by (str (cmap c))", Category: "string", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: builtinEscape,
		Cost: cost(scans(arg(0)), calls(arg(0)), builds)},
	{Name: "clojure.walk/postwalk-replace", Sig: "(clojure.walk/postwalk-replace smap form)", Doc: "form with every node that is a key of smap replaced by its value, children first", Category: "collection", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return walkReplace(th, "clojure.walk/postwalk-replace", args, postwalk)
		},
		Cost: cost(rebuilds(arg(1)), lookups)},
	{Name: "clojure.walk/prewalk-replace", Sig: "(clojure.walk/prewalk-replace smap form)", Doc: "form with every node that is a key of smap replaced by its value, parents first", Category: "collection", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return walkReplace(th, "clojure.walk/prewalk-replace", args, prewalk)
		},
		Cost: cost(lookups, chargedInBody("a step per node, and each collection it rebuilds (walkOnce)"))},
	{Name: "clojure.set/join", Sig: "(clojure.set/join xrel yrel) (clojure.set/join xrel yrel {xkey ykey})", Doc: "the set of merged pairs of maps of xrel and yrel that agree on the keys they share (or on km's)", Category: "set", reach: inNamespace,
		MinArgs: 2, MaxArgs: 3, Fn: builtinSetJoin,
		Cost: cost(hashesItems(arg(0)), hashesItems(arg(1)), hashesItems(arg(2)), chargedInBody("a step and the allocation of each merged map (joinRow)"), builds)},
	{Name: "clojure.set/index", Sig: "(clojure.set/index xrel ks)", Doc: "map from the values of ks to the set of the maps of xrel that have them", Category: "set", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			rows, err := relation(th, "clojure.set/index", args[0])
			if err != nil {
				return nil, err
			}
			idx, err := indexRows(th, rows, args[1])
			if err != nil {
				return nil, err
			}
			b := NewMapBuilder(idx.len())
			for _, e := range idx.m.Entries() {
				rows, err := setOf(th, "clojure.set/index", e.Val)
				if err != nil {
					return nil, err
				}
				b.Set(e.Key, rows)
			}
			return b.Map(), nil
		},
		Cost: cost(hashesItems(arg(0)), hashesItems(arg(1)), builds)},
	{Name: "clojure.set/project", Sig: "(clojure.set/project xrel ks)", Doc: "the set of the maps of xrel with only the keys ks", Category: "set", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return eachRow(th, "clojure.set/project", args[0], func(row Value) (Value, error) {
				return selectKeysOfRow(th, row, args[1])
			})
		},
		Cost: cost(hashesItems(arg(0)), calls(arg(0)), builds)},
	{Name: "clojure.set/rename", Sig: "(clojure.set/rename xrel {old new})", Doc: "the set of the maps of xrel with keys renamed", Category: "set", reach: inNamespace,
		MinArgs: 2, MaxArgs: 2, Fn: func(th *Thread, args []Value) (Value, error) {
			return eachRow(th, "clojure.set/rename", args[0], func(row Value) (Value, error) {
				return renameKeysOfRow(th, row, args[1])
			})
		},
		Cost: cost(hashesItems(arg(0)), visits(arg(1)), builds)},
}

// builtinCoreReplace is clojure.core's replace: a vector stays a vector,
// any other collection gives the sequence of its items; smap is a map or
// a vector, which maps its indices to its items.
func builtinCoreReplace(th *Thread, args []Value) (Value, error) {
	smap := args[0]
	switch smap.(type) {
	case *Map, *Vector, NilType:
	default:
		return nil, typeErrorf("clojure.core/replace", "a map or vector of replacements", smap)
	}
	items, err := seqOf(th, "clojure.core/replace", args[1], anySeq)
	if err != nil {
		return nil, err
	}
	out, err := makeSlice(th, len(items))
	if err != nil {
		return nil, err
	}
	for _, x := range items {
		switch m := smap.(type) {
		case *Map:
			k, err := realizedKey(th, x)
			if err != nil {
				return nil, err
			}
			if v, ok := m.Get(k); ok {
				x = v
			}
		case *Vector:
			if i, ok := x.(Int); ok && i >= 0 && int(i) < m.Len() {
				x = m.elems[i]
			}
		}
		out = append(out, x)
	}
	return NewVector(out), nil
}

// relation reads a clojure.set relation: a collection of maps.
func relation(th *Thread, fn string, v Value) ([]Value, error) {
	rows, err := seqOf(th, fn, v, anySeq)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if _, ok := r.(*Map); !ok {
			// Clojure's select-keys or get of the row: not supported on a non-map
			return nil, Errorf(typeError, "%s expected a collection of maps, got one holding %s", fn, describe(r)).
				WithHint("a relation is a set or vector of maps: #{{:id 1 :name \"a\"}}").notSeqable(r)
		}
	}
	return rows, nil
}

// eachRow is the set of f of each map of the relation rel.
func eachRow(th *Thread, fn string, rel Value, f func(Value) (Value, error)) (Value, error) {
	rows, err := relation(th, fn, rel)
	if err != nil {
		return nil, err
	}
	out := make([]Value, len(rows))
	for i, r := range rows {
		if out[i], err = f(r); err != nil {
			return nil, err
		}
	}
	return setOf(th, fn, NewVector(out))
}

// indexRows maps the projection of each row on ks to the vector of the
// rows that have it. The rows are grouped first and each group's vector
// made once: a vector remade per row would weigh its rows again each time.
func indexRows(th *Thread, rows []Value, ks Value) (*MapBuilder, error) {
	var keys []Value
	var groups [][]Value
	at := NewMapBuilder(len(rows)) // projection -> its group's index
	for _, r := range rows {
		key, err := projection(th, r, ks, nil)
		if err != nil {
			return nil, err
		}
		if i, ok := at.get(key); ok {
			groups[i.(Int)] = append(groups[i.(Int)], r)
			continue
		}
		at.Set(key, Int(len(groups)))
		keys = append(keys, key)
		groups = append(groups, []Value{r})
	}
	idx := NewMapBuilder(len(keys))
	for i, k := range keys {
		idx.Set(k, NewVector(groups[i]))
	}
	return idx, nil
}

// projection is row with only the keys ks, renamed by rename when not
// nil.
func projection(th *Thread, row, ks, rename Value) (Value, error) {
	key, err := selectKeysOfRow(th, row, ks)
	if err != nil || rename == nil {
		return key, err
	}
	return renameKeysOfRow(th, key, rename)
}

// selectKeysOfRow and renameKeysOfRow are select-keys and rename-keys of
// one row of a relation, charged a step per key as those builtins are:
// every row is projected, so the work grows with the rows times the keys.
func selectKeysOfRow(th *Thread, row, ks Value) (Value, error) {
	if err := chargeEachItem(th, []Value{ks}, chargeKey); err != nil {
		return nil, err
	}
	return builtinSelectKeys(th, []Value{row, ks})
}

func renameKeysOfRow(th *Thread, row, renames Value) (Value, error) {
	if err := chargeEachItem(th, []Value{row, renames}, chargeKey); err != nil {
		return nil, err
	}
	return builtinRenameKeys(th, []Value{row, renames})
}

// builtinSetJoin is clojure.set/join: with two relations, the natural
// join on the keys their first maps share (every pair when none); with
// km, the join of xrel's key k with yrel's key (km k).
func builtinSetJoin(th *Thread, args []Value) (Value, error) {
	x, err := relation(th, "clojure.set/join", args[0])
	if err != nil {
		return nil, err
	}
	y, err := relation(th, "clojure.set/join", args[1])
	if err != nil {
		return nil, err
	}
	// r is indexed, s scanned: the smaller relation is r, as in Clojure,
	// whose merge puts s's map last.
	r, s := x, y
	if len(x) > len(y) {
		r, s = y, x
	}
	var rKeys, sKeys, rename Value
	if len(args) == 2 {
		if len(x) == 0 || len(y) == 0 {
			return emptySet, nil
		}
		var shared []Value
		for _, e := range x[0].(*Map).Entries() {
			if _, ok := y[0].(*Map).Get(e.Key); ok {
				shared = append(shared, e.Key)
			}
		}
		rKeys, sKeys = NewVector(shared), NewVector(shared)
	} else {
		km, err := mapArg("clojure.set/join", args[2])
		if err != nil {
			return nil, err
		}
		if km == nil {
			km = NewMapBuilder(0).Map()
		}
		var xs, ys []Value
		for _, e := range km.Entries() {
			xs, ys = append(xs, e.Key), append(ys, e.Val)
		}
		// s's projection is renamed into r's keys.
		if len(x) <= len(y) {
			inv, err := builtinMapInvert(th, []Value{km})
			if err != nil {
				return nil, err
			}
			rKeys, sKeys, rename = NewVector(xs), NewVector(ys), inv
		} else {
			rKeys, sKeys, rename = NewVector(ys), NewVector(xs), km
		}
	}
	idx, err := indexRows(th, r, rKeys)
	if err != nil {
		return nil, err
	}
	var out []Value
	for _, row := range s {
		key, err := projection(th, row, sKeys, rename)
		if err != nil {
			return nil, err
		}
		found, ok := idx.get(key)
		if !ok {
			continue
		}
		for _, f := range found.(*Vector).elems {
			merged, err := joinRow(th, f, row)
			if err != nil {
				return nil, err
			}
			out = append(out, merged)
		}
	}
	return setOf(th, "clojure.set/join", NewVector(out))
}

// joinRow is (merge a b), charged a step and its allocation.
func joinRow(th *Thread, a, b Value) (Value, error) {
	if err := th.step(1); err != nil {
		return nil, err
	}
	m, err := mergeMaps(th, "clojure.set/join", []Value{a, b})
	if err != nil {
		return nil, err
	}
	if err := th.allocMap(m.(*Map).Len()); err != nil {
		return nil, err
	}
	return m, nil
}

// builtinEscape is clojure.string/escape: cmap, a map or a function, is
// called with each character, a one-character string.
func builtinEscape(th *Thread, args []Value) (Value, error) {
	s, ok := args[0].(String)
	if !ok {
		return nil, typeErrorf("clojure.string/escape", "a string", args[0])
	}
	// The text is copied from the first character replaced: one with none
	// is returned as it is, as a copy would be kept uncharged (builds
	// charges no argument).
	var b strings.Builder
	copying := false
	for i, r := range string(s) {
		v, err := call(th, "clojure.string/escape", args[1], String(r))
		if err != nil {
			return nil, err
		}
		if v == Nil {
			if copying {
				b.WriteRune(r)
			}
			continue
		}
		if !copying {
			b.WriteString(string(s[:i]))
			copying = true
		}
		text := Str(v)
		if err := th.alloc(int64(len(text))); err != nil {
			return nil, err
		}
		b.WriteString(text)
	}
	if !copying {
		return s, nil
	}
	return String(b.String()), nil
}

// walkReplace is clojure.walk's postwalk-replace or prewalk-replace:
// walk with a function that replaces each node that is a key of smap.
func walkReplace(th *Thread, fn string, args []Value, walk func(*Thread, Value, Value, int) (Value, error)) (Value, error) {
	smap, err := mapArg(fn, args[0])
	if err != nil {
		return nil, err
	}
	f, err := madeFn(th, fn, args[:1], func(th *Thread, xs []Value) (Value, error) {
		if smap != nil {
			k, err := realizedKey(th, xs[0]) // a node may be a whole collection
			if err != nil {
				return nil, err
			}
			if v, ok := smap.Get(k); ok {
				return v, nil
			}
		}
		return xs[0], nil
	})
	if err != nil {
		return nil, err
	}
	return walk(th, f, args[1], 0)
}

// regexLiteral is the regex literal that matches text literally: "." is
// #"\.".
func regexLiteral(text string) string {
	return `#"` + strings.ReplaceAll(regexp.QuoteMeta(text), `"`, `\"`) + `"`
}
