package lisp

import (
	"sort"
	"strings"
	"sync"
)

// "Did you mean" hints. A name that is not defined gets, in order: the
// hint for a Clojure feature PTC-Lisp leaves out (unsupportedHints); for
// any other Clojure function, what does its work here, or no guess at all
// (unimplementedHint), since a real Clojure name is no misspelling and the
// name nearest to it does something else (symbol is not symbol?, reduced
// not reduce); for a name from another language, its PTC-Lisp
// counterpart (foreignNames); and only then the names nearest to it
// (suggest), which catches misspellings.

// clojureNames are the public names of clojure.core in Clojure 1.11, from
//
//	clojure -e "(doseq [n (sort (map str (keys (ns-publics 'clojure.core))))] (println n))"
//
// Like the other tables of hints, it is built on first use: most programs
// never need it, and a table built at start-up stays in the heap at rest.
// What every program needs of it, which builtins a program may define, is
// ownNames.
var clojureNames = sync.OnceValue(clojureCoreSet)

func clojureCoreSet() map[string]bool {
	names := map[string]bool{}
	for _, n := range strings.Fields(clojureCoreNames) {
		names[n] = true
	}
	return names
}

const clojureCoreNames = `
* *' *1 *2 *3 *agent* *allow-unresolved-vars* *assert* *clojure-version* *command-line-args*
*compile-files* *compile-path* *compiler-options* *data-readers* *default-data-reader-fn* *e
*err* *file* *flush-on-newline* *fn-loader* *in* *math-context* *ns* *out* *print-dup*
*print-length* *print-level* *print-meta* *print-namespace-maps* *print-readably* *read-eval*
*reader-resolver* *source-path* *suppress-read* *unchecked-math* *use-context-classloader*
*verbose-defrecords* *warn-on-reflection* + +' - -' -> ->> ->ArrayChunk ->Eduction ->Vec
->VecNode ->VecSeq -cache-protocol-fn -reset-methods .. / < <= = == > >= EMPTY-NODE Inst NaN?
PrintWriter-on StackTraceElement->vec Throwable->map abs accessor aclone add-classpath add-tap
add-watch agent agent-error agent-errors aget alength alias all-ns alter alter-meta!
alter-var-root amap ancestors and any? apply areduce array-map as-> aset aset-boolean aset-byte
aset-char aset-double aset-float aset-int aset-long aset-short assert assoc assoc! assoc-in
associative? atom await await-for await1 bases bean bigdec bigint biginteger binding bit-and
bit-and-not bit-clear bit-flip bit-not bit-or bit-set bit-shift-left bit-shift-right bit-test
bit-xor boolean boolean-array boolean? booleans bound-fn bound-fn* bound? bounded-count butlast
byte byte-array bytes bytes? case cast cat char char-array char-escape-string char-name-string
char? chars chunk chunk-append chunk-buffer chunk-cons chunk-first chunk-next chunk-rest
chunked-seq? class class? clear-agent-errors clojure-version coll? comment commute comp
comparator compare compare-and-set! compile complement completing concat cond cond-> cond->>
condp conj conj! cons constantly construct-proxy contains? count counted? create-ns
create-struct cycle dec dec' decimal? declare dedupe default-data-readers definline definterface
defmacro defmethod defmulti defn defn- defonce defprotocol defrecord defstruct deftype delay
delay? deliver denominator deref derive descendants destructure disj disj! dissoc dissoc!
distinct distinct? doall dorun doseq dosync dotimes doto double double-array double? doubles
drop drop-last drop-while eduction empty empty? ensure ensure-reduced enumeration-seq
error-handler error-mode eval even? every-pred every? ex-cause ex-data ex-info ex-message extend
extend-protocol extend-type extenders extends? false? ffirst file-seq filter filterv find
find-keyword find-ns find-protocol-impl find-protocol-method find-var first flatten float
float-array float? floats flush fn fn? fnext fnil for force format frequencies future
future-call future-cancel future-cancelled? future-done? future? gen-class gen-interface gensym
get get-in get-method get-proxy-class get-thread-bindings get-validator group-by halt-when hash
hash-combine hash-map hash-ordered-coll hash-set hash-unordered-coll ident? identical? identity
if-let if-not if-some ifn? import in-ns inc inc' indexed? infinite? init-proxy inst-ms inst-ms*
inst? instance? int int-array int? integer? interleave intern interpose into into-array ints io!
isa? iterate iteration iterator-seq juxt keep keep-indexed key keys keyword keyword? last
lazy-cat lazy-seq let letfn line-seq list list* list? load load-file load-reader load-string
loaded-libs locking long long-array longs loop macroexpand macroexpand-1 make-array
make-hierarchy map map-entry? map-indexed map? mapcat mapv max max-key memfn memoize merge
merge-with meta method-sig methods min min-key mix-collection-hash mod munge name namespace
namespace-munge nat-int? neg-int? neg? newline next nfirst nil? nnext not not-any? not-empty
not-every? not= ns ns-aliases ns-imports ns-interns ns-map ns-name ns-publics ns-refers
ns-resolve ns-unalias ns-unmap nth nthnext nthrest num number? numerator object-array odd? or
parents parse-boolean parse-double parse-long parse-uuid partial partition partition-all
partition-by pcalls peek persistent! pmap pop pop! pop-thread-bindings pos-int? pos? pr pr-str
prefer-method prefers primitives-classnames print print-ctor print-dup print-method print-simple
print-str printf println println-str prn prn-str promise proxy proxy-call-with-super
proxy-mappings proxy-name proxy-super push-thread-bindings pvalues qualified-ident?
qualified-keyword? qualified-symbol? quot rand rand-int rand-nth random-sample random-uuid range
ratio? rational? rationalize re-find re-groups re-matcher re-matches re-pattern re-seq read
read+string read-line read-string reader-conditional reader-conditional? realized? record?
reduce reduce-kv reduced reduced? reductions ref ref-history-count ref-max-history
ref-min-history ref-set refer refer-clojure reify release-pending-sends rem remove
remove-all-methods remove-method remove-ns remove-tap remove-watch repeat repeatedly replace
replicate require requiring-resolve reset! reset-meta! reset-vals! resolve rest restart-agent
resultset-seq reverse reversible? rseq rsubseq run! satisfies? second select-keys send send-off
send-via seq seq-to-map-for-destructuring seq? seqable? seque sequence sequential? set
set-agent-send-executor! set-agent-send-off-executor! set-error-handler! set-error-mode!
set-validator! set? short short-array shorts shuffle shutdown-agents simple-ident?
simple-keyword? simple-symbol? slurp some some-> some->> some-fn some? sort sort-by sorted-map
sorted-map-by sorted-set sorted-set-by sorted? special-symbol? spit split-at split-with str
string? struct struct-map subs subseq subvec supers swap! swap-vals! symbol symbol? sync
tagged-literal tagged-literal? take take-last take-nth take-while tap> test the-ns thread-bound?
time to-array to-array-2d trampoline transduce transient tree-seq true? type unchecked-add
unchecked-add-int unchecked-byte unchecked-char unchecked-dec unchecked-dec-int
unchecked-divide-int unchecked-double unchecked-float unchecked-inc unchecked-inc-int
unchecked-int unchecked-long unchecked-multiply unchecked-multiply-int unchecked-negate
unchecked-negate-int unchecked-remainder-int unchecked-short unchecked-subtract
unchecked-subtract-int underive unquote unquote-splicing unreduced unsigned-bit-shift-right
update update-in update-keys update-proxy update-vals uri? use uuid? val vals var-get var-set
var? vary-meta vec vector vector-of vector? volatile! volatile? vreset! vswap! when when-first
when-let when-not when-some while with-bindings with-bindings* with-in-str with-loading-context
with-local-vars with-meta with-open with-out-str with-precision with-redefs with-redefs-fn
xml-seq zero? zipmap
`

// clojureCounterparts say what does the work of a Clojure function that
// PTC-Lisp leaves out, in one line that names the working form.
var clojureCounterparts = map[string]string{
	"any?":           "use (constantly true): any? is true of everything",
	"unreduced":      "use (if (reduced? x) (reduce (fn [_ v] v) nil [x]) x), or keep the value before wrapping it in reduced",
	"ensure-reduced": "use (if (reduced? x) x (reduced x))",
	"defmacro":       "there are no macros: write a function with defn",
	"defrecord":      "use a map with keyword keys: {:name \"a\" :age 3}",
	"defstruct":      "use a map with keyword keys: {:name \"a\" :age 3}",
	"deftype":        "write defrecord in its place, with the same name and fields: (defrecord Pair [a b]) makes (Pair. 1 2) and (->Pair 1 2), whose fields read with (.-a p) or (:a p)",
	"defprotocol":    "use a function that dispatches with cond or case",
	"defmulti":       "use a function that dispatches with cond or case",
	"defmethod":      "write the (defmulti name dispatch-fn) and every defmethod of it in the same program",
	"re-matcher":     "use (re-find re s), or (re-seq re s) for every match",
	"re-groups":      "use (re-find re s), which gives [whole group1 ...] for a pattern with groups",
	"bounded-count":  "use (count (take n coll))",
	"gensym":         "use a keyword or string you build, e.g. (keyword (str \"k\" i))",
	"replicate":      "use (repeat n x)",
	"halt-when":      "use reduce with reduced to stop early",
	"iteration":      "use loop/recur, calling the tool each turn of the loop",
}

// unimplementedHint is the hint for a Clojure function PTC-Lisp leaves
// out: what does its work, or a pointer to the builtins. ok is false for
// a name Clojure does not define.
func unimplementedHint(name string) (hint string, ok bool) {
	if !clojureNames()[name] {
		return "", false
	}
	if h, ok := clojureCounterparts[name]; ok {
		return h, true
	}
	if h, ok := familyHints()[name]; ok {
		return h, true
	}
	return genericHint, true
}

// genericHint is the hint for a Clojure function with no counterpart
// named; every var of the coverage table has a better one
// (TestCoverageTable).
const genericHint = "write it with the builtins the system prompt lists"

// foreignNames are what models bring from other languages, with the
// PTC-Lisp function that does the same.
var foreignNames = map[string]string{
	"len": "count", "length": "count", "size": "count", "count-of": "count",
	"append": "conj", "push": "conj", "add": "conj",
	"lower": "lower-case", "upper": "upper-case", "toLowerCase": "lower-case", "toUpperCase": "upper-case",
	"downcase": "lower-case", "strip": "trim", "substring": "subs", "substr": "subs", "slice": "subvec",
	"indexOf": "index-of", "includes": "includes?", "contains": "contains?", "has?": "contains?",
	"has-key?": "contains?", "startsWith": "starts-with?", "endsWith": "ends-with?", "startswith": "starts-with?",
	"endswith": "ends-with?", "sum": "(reduce + coll)", "mean": "(/ (reduce + coll) (count coll))",
	"average": "(/ (reduce + coll) (count coll))", "flatMap": "mapcat", "flat-map": "mapcat",
	"enumerate": "map-indexed", "uniq": "distinct", "unique": "distinct", "head": "first", "tail": "rest",
	"values": "vals", "items": "seq", "toString": "str", "to-string": "str", "parseInt": "parse-long",
	"parse-int": "parse-long", "parseFloat": "parse-double", "parse-float": "parse-double",
	"lambda": "fn", "sorted": "sort", "print-line": "println", "puts": "println", "console.log": "println",
	"null?": "nil?", "not-nil?": "some?", "isEmpty": "empty?", "is-empty?": "empty?", "foreach": "doseq",
	"for-each": "doseq", "each": "doseq", "str-join": "clojure.string/join", "string-join": "clojure.string/join",
}

// suggest returns what name most likely meant: its counterpart when it
// comes from another language, else up to three known names close to it.
func (c *compiler) suggest(name string) []string {
	if f, ok := foreignNames[name]; ok {
		if namespacePublics()["clojure.string"][f] && !clojureNames()[f] {
			f = "clojure.string/" + f // the name Clojure knows it by too
		}
		return []string{f}
	}
	return c.nearest(name)
}

// nearest returns up to three known names close to name, by edit
// distance.
func (c *compiler) nearest(name string) []string {
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	seen := map[string]bool{}
	consider := func(n string) {
		if seen[n] || n == name {
			return
		}
		seen[n] = true
		limit := 2
		if len(name) <= 3 {
			limit = 1
		}
		// The distance is at least the difference in length: a long name
		// is measured against none, in time bounded whatever its length.
		if diff := len(name) - len(n); diff > 4*limit || -diff > 4*limit {
			return
		}
		// A name no longer than the distance shares nothing with n: (g x)
		// is not a misspelt (+ x).
		if d := editDistance(name, n); d <= limit && d < len(name) {
			cands = append(cands, cand{n, d})
		}
	}
	for _, lv := range c.locals {
		consider(lv.name)
	}
	for _, b := range Builtins() {
		consider(b.Name)
	}
	for _, b := range coreFunctions {
		consider(b.Name)
	}
	for n := range specialForms {
		consider(n)
	}
	for n := range c.names.user {
		consider(n)
	}
	for n := range c.names.tools {
		consider("tool/" + n)
		consider(n)
	}
	if c.names.data != nil {
		for _, e := range c.names.data.Entries() {
			if k, ok := e.Key.(Keyword); ok {
				consider("data/" + string(k))
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].d != cands[j].d {
			return cands[i].d < cands[j].d
		}
		return cands[i].name < cands[j].name
	})
	var out []string // the nearest only: a farther name is a worse guess
	for i := 0; i < len(cands) && i < 3 && cands[i].d == cands[0].d; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// editDistance counts the insertions, deletions, substitutions and swaps
// of two neighbouring characters that turn a into b (the optimal string
// alignment distance): a swap, the commonest slip (frist, conut), is one
// edit.
func editDistance(a, b string) int {
	if a == b {
		return 0
	}
	ra, rb := []rune(a), []rune(b)
	before := make([]int, len(rb)+1) // row i-2
	prev := make([]int, len(rb)+1)   // row i-1
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(rb)]
}
