package lisp

import "strings"

// Classes: type, class and instance?, and the class names models compare
// them with (String, java.lang.Long, clojure.lang.Keyword, ...). Values
// have no Java classes here, so a class is its name: (type 1) is the
// class java.lang.Long, which prints as that name, equals the class the
// symbol Long or java.lang.Long names, and is an instance of the classes
// and interfaces Clojure 1.11 says a Long is (classSupers).
//
// A value's class is the one Clojure gives the value PTC-Lisp holds. Where
// that can differ from what Clojure would have built, the name is not
// available to programs, so that no comparison answers wrongly: Clojure
// keeps a hash map a hash map when it shrinks and makes one with hash-map
// however small, so clojure.lang.PersistentArrayMap and
// clojure.lang.PersistentHashMap are refused with a hint to use map?
// (type prints them, told apart as hashorder.go does); integers are 64-bit,
// so Integer, which count and int return in Clojure, is refused, as is
// Character (characters are one-character strings). What
// follows from the language's own choices stays: a sequence function
// returns a vector, whose class is clojure.lang.PersistentVector
// (docs/LANGUAGE.md lists these).

// javaClass is a class, by its full name.
type javaClass string

func (javaClass) TypeName() string { return "class" }

// The interfaces and superclasses instance? knows, in groups, as Clojure
// 1.11 reports them for each class below.
var (
	collectionSupers = []javaClass{"java.lang.Object", "java.lang.Iterable", "clojure.lang.IPersistentCollection",
		"clojure.lang.Seqable", "clojure.lang.Counted", "clojure.lang.IMeta", "clojure.lang.IObj"}
	mapSupers = append([]javaClass{"java.util.Map", "clojure.lang.IFn", "clojure.lang.AFn", "clojure.lang.IPersistentMap",
		"clojure.lang.Associative", "clojure.lang.ILookup", "clojure.lang.APersistentMap"}, collectionSupers...)
	setSupers = append([]javaClass{"java.util.Collection", "java.util.Set", "clojure.lang.IFn", "clojure.lang.AFn",
		"clojure.lang.IPersistentSet", "clojure.lang.APersistentSet"}, collectionSupers...)
	listSupers = append([]javaClass{"java.util.Collection", "java.util.List", "clojure.lang.IPersistentList",
		"clojure.lang.IPersistentStack", "clojure.lang.ISeq", "clojure.lang.Sequential"}, collectionSupers...)
	sortedSupers = []javaClass{"clojure.lang.Reversible", "clojure.lang.Sorted"}
	// A transient's class is a value a program may keep ((class (transient
	// [])) kept by def) and must read back by its name.
	transientSupers = []javaClass{"java.lang.Object", "clojure.lang.IFn", "clojure.lang.AFn", "clojure.lang.Counted",
		"clojure.lang.ITransientCollection"}
	transientMapSupers = append([]javaClass{"clojure.lang.ILookup", "clojure.lang.ITransientAssociative",
		"clojure.lang.ITransientAssociative2", "clojure.lang.ITransientMap", "clojure.lang.ATransientMap"}, transientSupers...)
)

// classSupers are the classes each class is an instance of, itself and
// java.lang.Object included. Every class or interface named here is
// listed for every class that is one, so that instance? is exact for the
// names it knows; a name it does not know is not defined.
var classSupers = map[javaClass][]javaClass{
	"java.lang.Long":       {"java.lang.Object", "java.lang.Number", "java.lang.Comparable"},
	"java.lang.Double":     {"java.lang.Object", "java.lang.Number", "java.lang.Comparable"},
	"java.lang.Float":      {"java.lang.Object", "java.lang.Number", "java.lang.Comparable"},
	"clojure.lang.BigInt":  {"java.lang.Object", "java.lang.Number"},
	"java.math.BigInteger": {"java.lang.Object", "java.lang.Number", "java.lang.Comparable"},
	"java.math.BigDecimal": {"java.lang.Object", "java.lang.Number", "java.lang.Comparable"},
	"java.lang.String":     {"java.lang.Object", "java.lang.Comparable", "java.lang.CharSequence"},
	"java.lang.Boolean":    {"java.lang.Object", "java.lang.Comparable"},
	"clojure.lang.Keyword": {"java.lang.Object", "java.lang.Comparable", "clojure.lang.IFn",
		"clojure.lang.Named"},
	"clojure.lang.Symbol": {"java.lang.Object", "java.lang.Comparable", "clojure.lang.IFn", "clojure.lang.AFn",
		"clojure.lang.Named", "clojure.lang.IMeta", "clojure.lang.IObj"},
	"clojure.lang.PersistentVector": append([]javaClass{"java.lang.Comparable", "java.util.Collection", "java.util.List",
		"java.util.RandomAccess", "clojure.lang.IFn", "clojure.lang.AFn", "clojure.lang.IPersistentVector",
		"clojure.lang.IPersistentStack", "clojure.lang.Sequential", "clojure.lang.Associative", "clojure.lang.Indexed",
		"clojure.lang.Reversible", "clojure.lang.ILookup", "clojure.lang.APersistentVector"}, collectionSupers...),
	"clojure.lang.PersistentList":           append([]javaClass{"clojure.lang.ASeq"}, listSupers...),
	"clojure.lang.PersistentList$EmptyList": listSupers,
	"clojure.lang.PersistentArrayMap":       mapSupers,
	"clojure.lang.PersistentHashMap":        mapSupers,
	"clojure.lang.PersistentTreeMap":        append(sortedSupers, mapSupers...),
	"clojure.lang.PersistentHashSet":        setSupers,
	"clojure.lang.PersistentTreeSet":        append(sortedSupers, setSupers...),
	"java.util.regex.Pattern":               {"java.lang.Object"},
	"clojure.lang.Atom":                     {"java.lang.Object", "clojure.lang.IDeref", "clojure.lang.IAtom", "clojure.lang.IMeta"},
	"clojure.lang.Volatile":                 {"java.lang.Object", "clojure.lang.IDeref"},
	"clojure.lang.Delay":                    {"java.lang.Object", "clojure.lang.IDeref", "clojure.lang.IPending"},
	"clojure.lang.Var":                      {"java.lang.Object", "clojure.lang.IFn", "clojure.lang.IDeref", "clojure.lang.IMeta"},
	"clojure.lang.ExceptionInfo":            {"java.lang.Object", "java.lang.Throwable", "java.lang.Exception", "java.lang.RuntimeException", "clojure.lang.IExceptionInfo"},
	"java.lang.Class":                       {"java.lang.Object"},
	"clojure.lang.PersistentVector$TransientVector": append([]javaClass{"clojure.lang.ILookup", "clojure.lang.Indexed",
		"clojure.lang.ITransientAssociative", "clojure.lang.ITransientAssociative2", "clojure.lang.ITransientVector"}, transientSupers...),
	"clojure.lang.PersistentArrayMap$TransientArrayMap": transientMapSupers,
	"clojure.lang.PersistentHashMap$TransientHashMap":   transientMapSupers,
	"clojure.lang.PersistentHashSet$TransientHashSet": append([]javaClass{"clojure.lang.ITransientSet", "clojure.lang.ATransientSet"},
		transientSupers...),
	fnClass: {"java.lang.Object", "clojure.lang.IFn", "clojure.lang.Fn", "clojure.lang.AFn", "clojure.lang.IMeta", "clojure.lang.IObj"},
}

// fnClass stands for the classes of functions, which Clojure names after
// where each was defined (user$eval12$fn__13): type refuses functions,
// and instance? knows their interfaces.
const fnClass javaClass = "fn"

// functionClassName is the name of the class Clojure compiles function f
// to, which a ClassCastException's message names: a var's function is
// its namespace and munged name, clojure.core$even_QMARK_ or user$f (a
// function defined with defn). Clojure numbers the class of a function
// made by fn or by a combinator (user$eval12$fn__13,
// clojure.core$partial$fn__5908) in the order it compiles them, which
// nothing here repeats: those are named without the numbers, user$fn or
// clojure.core$partial$fn.
func functionClassName(f Value) string {
	switch f := f.(type) {
	case *Builtin:
		if q := clojureVarName(f.Name); q != "" {
			ns, name, _ := cutNamespace(q)
			return ns + "$" + mungeName(name)
		}
		return "clojure.core$" + mungeName(f.Name)
	case *closure:
		if f.name != "" {
			return "user$" + mungeName(f.name)
		}
	case *combined:
		return "clojure.core$" + mungeName(f.name) + "$fn"
	}
	return "user$fn"
}

// mungeName is a name as Clojure's compiler spells it in a class name
// (clojure.lang.Compiler's CHAR_MAP).
func mungeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if m, ok := mungedChars[r]; ok {
			b.WriteString(m)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var mungedChars = map[rune]string{'-': "_", ':': "_COLON_", '+': "_PLUS_", '>': "_GT_", '<': "_LT_", '=': "_EQ_",
	'~': "_TILDE_", '!': "_BANG_", '@': "_CIRCA_", '#': "_SHARP_", '\'': "_SINGLEQUOTE_", '"': "_DOUBLEQUOTE_",
	'%': "_PERCENT_", '^': "_CARET_", '&': "_AMPERSAND_", '*': "_STAR_", '|': "_BAR_", '{': "_LBRACE_",
	'}': "_RBRACE_", '[': "_LBRACK_", ']': "_RBRACK_", '/': "_SLASH_", '\\': "_BSLASH_", '?': "_QMARK_"}

// inexactClasses are the class names a program may not use, since no
// value here tells whether Clojure's would be one, each with what to
// write instead. Maps of the first two still print their class (type)
// and read back from stored source.
var inexactClasses = map[string]string{
	"clojure.lang.PersistentArrayMap": "whether Clojure made an array map or a hash map depends on how the map was built: test (map? x)",
	"clojure.lang.PersistentHashMap":  "whether Clojure made an array map or a hash map depends on how the map was built: test (map? x)",
	"Integer":                         "integers are 64-bit here (Clojure's Long), and Clojure's Integers come from count and int: test (integer? x)",
	"Character":                       "characters are one-character strings here: test (char? x)",
	"clojure.lang.LazySeq":            "sequence functions return vectors here: test (sequential? x) or (vector? x)",
	"clojure.lang.MapEntry":           "map entries are [key value] vectors here: test (vector? x)",
	"clojure.lang.Ratio":              "there are no ratios: / returns a float; test (number? x)",
	"java.lang.Integer":               "integers are 64-bit here (Clojure's Long), and Clojure's Integers come from count and int: test (integer? x)",
	"java.lang.Character":             "characters are one-character strings here: test (char? x)",
}

// classNamed resolves a class name as a program writes it: java.lang's
// classes by their short name too, as Clojure imports them. stored allows
// the map classes type prints, for source read back from the wire.
func classNamed(name string, stored bool) (javaClass, string, bool) {
	if hint, ok := inexactClasses[name]; ok {
		if !stored || !strings.HasPrefix(name, "clojure.lang.Persistent") {
			return "", hint, true
		}
		return javaClass(name), "", true
	}
	if stored && recordClassName(name) {
		return javaClass(name), "", true // a record's class, (type r) kept
	}
	c, ok := classNames[name]
	return c, "", ok
}

// knownClasses are the classes of classSupers and all they list, the
// classes instance? knows; classNames are the names that resolve to a
// known class: each by its full name, java.lang's by their short names
// too.
var knownClasses, classNames = indexClasses()

func indexClasses() (map[javaClass]bool, map[string]javaClass) {
	known, names := map[javaClass]bool{}, map[string]javaClass{}
	for c, supers := range classSupers {
		known[c] = c != fnClass
		for _, s := range supers {
			known[s] = true
		}
	}
	for _, s := range recordSupers {
		known[s] = true
	}
	// Every exception class a program may throw or catch names a class, so
	// that (instance? IllegalStateException e) tests what catch would.
	for short := range javaSupers {
		known[javaClass(javaClassName(short))] = true
	}
	for c, ok := range known {
		if ok {
			names[string(c)] = c
			if short, ok := strings.CutPrefix(string(c), "java.lang."); ok {
				names[short] = c
			}
			if short, ok := strings.CutPrefix(string(c), "java.math."); ok {
				names[short] = c // Clojure imports BigDecimal and BigInteger too
			}
		}
	}
	return known, names
}

// classOf is the class of v, or an error with a hint for a value whose
// class Clojure names after where it was made (functions) or that has no
// counterpart.
func classOf(fn string, v Value) (javaClass, error) {
	switch v := v.(type) {
	case Int:
		return "java.lang.Long", nil
	case *BigDec:
		return "java.math.BigDecimal", nil
	case *BigInt:
		if v.integer {
			return "java.math.BigInteger", nil
		}
		return "clojure.lang.BigInt", nil
	case Float:
		return "java.lang.Double", nil
	case Float32:
		return "java.lang.Float", nil
	case String:
		return "java.lang.String", nil
	case Bool:
		return "java.lang.Boolean", nil
	case Keyword:
		return "clojure.lang.Keyword", nil
	case symbol:
		return "clojure.lang.Symbol", nil
	case *Vector:
		switch {
		case !v.IsList():
			return "clojure.lang.PersistentVector", nil
		case v.Len() == 0:
			return "clojure.lang.PersistentList$EmptyList", nil
		}
		return "clojure.lang.PersistentList", nil
	case *Map:
		switch {
		case v.class() != nil:
			return javaClass(v.class().name), nil
		case orderOf(v) != nil:
			return "clojure.lang.PersistentTreeMap", nil
		case !v.isHashMap(): // see hashorder.go: which maps Clojure makes hash maps
			return "clojure.lang.PersistentArrayMap", nil
		}
		return "clojure.lang.PersistentHashMap", nil
	case *Set:
		if orderOf(v) != nil {
			return "clojure.lang.PersistentTreeSet", nil
		}
		return "clojure.lang.PersistentHashSet", nil
	case *regex:
		return "java.util.regex.Pattern", nil
	case *atom:
		if v.volatile {
			return "clojure.lang.Volatile", nil
		}
		if v.delay {
			return "clojure.lang.Delay", nil
		}
		return "clojure.lang.Atom", nil
	case *transient:
		return transientClass(v), nil
	case *varRef:
		return "clojure.lang.Var", nil
	case javaClass:
		return "java.lang.Class", nil
	case *thrown:
		if v.class != "" {
			return javaClass(javaClassName(v.class)), nil
		}
		return "", javaErrorf(typeError, noJavaClass, "%s cannot name the Java class of a caught interpreter error", fn).
			WithHint("read it with (ex-message e)")
	case Callable:
		return fnClass, nil
	}
	return "", javaErrorf(typeError, noJavaClass, "%s has no class for %s", fn, describe(v)).
		WithHint("test values with predicates such as (string? x), (map? x) or (fn? x)")
}

func builtinType(fn string) func(*Thread, []Value) (Value, error) {
	return func(th *Thread, args []Value) (Value, error) {
		if args[0] == Nil {
			return Nil, nil
		}
		c, err := classOf(fn, args[0])
		if err != nil {
			return nil, err
		}
		if c == fnClass {
			return nil, javaErrorf(typeError, noJavaClass, "%s cannot name a function's class: Clojure names it after where the function was made", fn).
				WithHint("test it with (fn? x)")
		}
		return c, nil
	}
}

func builtinInstance(th *Thread, args []Value) (Value, error) {
	c, ok := args[0].(javaClass)
	if !ok {
		return nil, typeErrorf("instance?", "a class such as String or clojure.lang.Keyword", args[0]).
			WithHint("the class comes first: (instance? String x)")
	}
	if args[1] == Nil {
		return falseValue, nil
	}
	of, err := classOf("instance?", args[1])
	if err != nil {
		return nil, err
	}
	if of == c {
		return trueValue, nil
	}
	supers := classSupers[of]
	if m, ok := args[1].(*Map); ok && m.class() != nil {
		supers = recordSupers
	}
	if t, ok := args[1].(*thrown); ok {
		supers = exceptionSupers(t.class)
	}
	for _, s := range supers {
		if s == c {
			return trueValue, nil
		}
	}
	return falseValue, nil
}

// exceptionSupers are the classes an exception of class (a short name of
// javaSupers) is an instance of, by Java's hierarchy: an
// ArithmeticException is a RuntimeException, an Exception, a Throwable.
func exceptionSupers(class string) []javaClass {
	supers := []javaClass{"java.lang.Object"}
	for c := class; c != ""; c = javaSupers[c] {
		supers = append(supers, javaClass(javaClassName(c)))
	}
	if class == "ExceptionInfo" {
		supers = append(supers, "clojure.lang.IExceptionInfo")
	}
	return supers
}

var classBuiltins = []*Builtin{
	{Name: "type", Sig: "(type x)", Doc: "the class of x, named as Clojure names it; nil for nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinType("type"), Cost: cost(constant)},
	{Name: "class", Sig: "(class x)", Doc: "the class of x, named as Clojure names it; nil for nil", Category: "idiom",
		MinArgs: 1, MaxArgs: 1, Fn: builtinType("class"), Cost: cost(constant)},
	{Name: "instance?", Sig: "(instance? c x)", Doc: "x is an instance of class c", Category: "idiom",
		MinArgs: 2, MaxArgs: 2, Fn: builtinInstance, Cost: cost(constant)},
}
