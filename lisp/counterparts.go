package lisp

import (
	"strings"
	"sync"
)

// The hints for the clojure.core vars PTC-Lisp leaves out, by family.
// Each names the form to write instead, so that following it literally
// gives Clojure's answer or, for what the sandbox cannot do (I/O, threads,
// the host), a form that runs; lisp/testdata/coverage/table.txt follows
// every one (TestCoverageTable).

// counterpartFamilies share one hint among the vars of a family.
var counterpartFamilies = []struct{ names, hint string }{
	{`aclone aget alength amap areduce aset aset-boolean aset-byte aset-char aset-double aset-float aset-int
		aset-long aset-short boolean-array booleans byte-array bytes char-array chars double-array doubles
		float-array floats int-array ints long-array longs make-array object-array short-array shorts
		to-array-2d`,
		"there are no Java arrays: use a vector, (vec coll) for the array, (nth v i) for aget, (assoc v i x) for aset, (count v) for alength, (mapv f v) for amap, (reduce f init v) for areduce, (vec (repeat n nil)) for (make-array T n); an array written in a loop is an atom of a vector, (atom (vec (repeat n 0))) for (int-array n), (swap! a assoc i x) for (aset a i x), (nth @a i) for (aget a i) and @a for the array"},
	{`agent send send-off send-via await await-for await1 clear-agent-errors restart-agent error-handler error-mode
		set-error-handler! set-error-mode! set-agent-send-executor! set-agent-send-off-executor!
		release-pending-sends shutdown-agents`,
		"programs run on one thread, so there are no agents: keep the state in an atom, (atom x) for (agent x), (swap! a f args) for (send a f args), and drop await"},
	{"agent-error agent-errors", "an atom never holds an error: write nil, and keep the state in an atom"},
	{`ref alter commute ref-set ensure dosync sync ref-history-count ref-max-history ref-min-history`,
		"programs run on one thread, so there are no refs or transactions: use an atom, (atom x) for (ref x), (swap! a f args) for alter or commute, (reset! a x) for ref-set, @a for ensure, and drop dosync"},
	{"future future-call locking io!",
		"programs run on one thread: write the expression itself in place of (future e), (locking x e) or (io! e), call the function of (future-call f), and drop the @; for parallel tool calls use pmap or pcalls"},
	{"future? future-done? future-cancelled? future-cancel",
		"there are no futures: (future? x) and (future-cancelled? x) are false, (future-done? x) true; write the literal"},
	{"promise deliver", "there are no promises: use the value you would deliver in place of @p"},
	{"pvalues", "use (pcalls (fn [] e1) (fn [] e2)) for (pvalues e1 e2)"},
	{"seque", "use the collection itself"},
	{"add-tap remove-tap tap>", "there is no tap: print the value with (println x)"},
	{"random-sample", "programs are deterministic: pass random values in as data, or pick by position, e.g. (nth coll (mod i (count coll)))"},
	{"vector-of", "use (vector x ...): vectors hold any value"},
	{"bytes?", "there are no byte arrays: (bytes? x) is false"},
	{"rationalize", "there are no ratios; / returns a float: use the number itself"},
	{"numerator denominator", "there are no ratios; / returns a float: use (double (/ a b))"},
	{"hash-combine hash-ordered-coll hash-unordered-coll mix-collection-hash", "compare values with =; a map or set finds keys by value"},
	{"parse-uuid", "there are no UUID values: keep the UUID as its string"},
	{"uuid? uri? inst?", "there are no UUID, URI or Inst values: (uuid? x), (uri? x) and (inst? x) are false; keep them as strings"},
	{"inst-ms inst-ms*", "there are no Inst values: keep instants as strings or numbers, and pass the time in as data"},
	{"read read+string read-line", "there is no input stream: pass text in as data and parse it, e.g. (parse-long s)"},
	{`slurp spit load load-file load-reader file-seq line-seq xml-seq flush resultset-seq enumeration-seq
		iterator-seq compile add-classpath with-open with-in-str PrintWriter-on`,
		"there is no file, network or console I/O: read external data with a tool/ function or data/name, and write output with (println x) or as the program's value"},
	{`all-ns alias create-ns find-ns in-ns intern loaded-libs ns-aliases ns-imports ns-interns ns-map ns-name
		ns-publics ns-refers ns-resolve ns-unalias ns-unmap refer refer-clojure remove-ns requiring-resolve
		resolve the-ns find-var var-set bound? thread-bound? with-local-vars alter-var-root find-keyword
		special-symbol? munge namespace-munge get-thread-bindings push-thread-bindings pop-thread-bindings
		with-bindings with-bindings* bound-fn bound-fn* with-redefs-fn with-loading-context test
		seq-to-map-for-destructuring`,
		"the program is one namespace whose names are fixed when it runs: call functions by name and define them with def or defn, e.g. (defn f [x] (inc x)) (f 1)"},
	{"var-get", "write the name itself: (f x) for ((var-get #'f) x)"},
	{"with-redefs", "redefine the name with def, (def f g) before the code that calls f, for (with-redefs [f g] ...); def it back after that code if later code needs the original"},
	{"binding", "redefine the root with def, (def *x* v2) before the code that reads *x*, for (binding [*x* v2] ...), and (def *x* v) after that code to restore it"},
	{"destructure macroexpand macroexpand-1", "there are no macros to expand: write the form itself"},
	{"macroexpand-all", "there are no macros to expand: write the quoted form itself, '(f x)"},
	{"struct struct-map create-struct accessor", "use a map with keyword keys: {:name \"a\" :age 3}, and read a field with (:name m)"},
	{"extend-protocol extend-type extend", "use a function that dispatches with cond or case"},
	{"prefer-method", "write (prefer-method name x y) at the top level, after the defmulti of name: (defmulti f identity) (defmethod f ::a [_] 1) (defmethod f ::b [_] 2) (prefer-method f ::a ::b)"},
	{`find-protocol-impl
		find-protocol-method -cache-protocol-fn -reset-methods definterface gen-class gen-interface proxy
		proxy-super construct-proxy get-proxy-class init-proxy update-proxy proxy-mappings proxy-name
		proxy-call-with-super bean bases supers cast definline method-sig primitives-classnames ->ArrayChunk
		->Eduction ->Vec ->VecNode ->VecSeq EMPTY-NODE Inst StackTraceElement->vec chunk chunk-append
		chunk-buffer chunk-cons chunk-first chunk-next chunk-rest chunked-seq? print-ctor print-dup print-method
		print-simple default-data-readers reader-conditional reader-conditional? tagged-literal tagged-literal?
		class?`,
		"PTC-Lisp has no JVM classes or proxies, and protocols only as defprotocol with defrecord and extend-type: represent things as maps and dispatch with case, e.g. (case (:type shape) :circle (* 3 (:r shape)) 0)"},
	{"reify", "define a record that implements the protocol, with a field for each local its methods use, and make one where the reify was: (defrecord Impl [k] P (m [_ n] (* k n))) then (->Impl k); for reify of Object's toString alone, write the string it returns"},
	{"Throwable->map", "use (ex-message e) and (ex-data e)"},
	{"memfn", "write a function that calls the builtin: (fn [s] (clojure.string/upper-case s)) for (memfn toUpperCase)"},
	{"char-escape-string char-name-string", "use (pr-str s) to see a string's escapes"},
	{"clojure-version", "write the version you need as a literal string, e.g. \"1.11.1\""},
	{`*agent* *allow-unresolved-vars* *assert* *clojure-version* *command-line-args* *compile-files*
		*compile-path* *compiler-options* *data-readers* *default-data-reader-fn* *e *err* *file*
		*flush-on-newline* *fn-loader* *in* *math-context* *ns* *out* *print-dup* *print-length* *print-level*
		*print-meta* *print-readably* *read-eval* *reader-resolver* *source-path*
		*suppress-read* *unchecked-math* *use-context-classloader* *verbose-defrecords* *warn-on-reflection*`,
		"the runtime's settings are not visible here: keep a setting you need in a def, e.g. (def settings {:print-length nil})"},
	{"unquote unquote-splicing", "there is no syntax-quote: build the list with (list 'a x), or (apply list 'a xs) to splice"},
}

// familyHints maps each var of counterpartFamilies to its hint; built on
// first use, as clojureNames.
var familyHints = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, f := range counterpartFamilies {
		for _, n := range strings.Fields(f.names) {
			m[n] = f.hint
		}
	}
	return m
})
