package lisp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// Every hint the interpreter gives is followed literally by a test: each
// place in the package's source that attaches a hint to an error (a call
// of WithHint, or deleteHint for a namespace header) is reached by a
// refused or out-of-scope program of testdata/coverage/table.txt or
// hints.txt, whose rewrite, the hint followed literally, TestCoverageTable
// and TestInteropAndHints run and compare with Clojure's recorded answer.
// A site no program can reach in a way Clojure can judge is listed in
// hintSitesNotFollowed with the reason; a new site with neither fails.

// hintSite is one place in the source that gives a hint.
type hintSite struct {
	File, Func string
	Line       int
	// Hint is the source text of the hint's first argument, which with the
	// file and function names the site across edits.
	Hint string
}

func (s hintSite) key() string { return s.File + " " + s.Func + ": " + s.Hint }

// hintSitesNotFollowed are the sites no table row reaches, by key, with
// why: the hint does not ask for a rewrite Clojure could judge.
var hintSitesNotFollowed = map[string]string{
	"builtins_compare.go builtinHash: \"compare values with =; a map or set finds keys by value\"":                                                           notFollowedIdentity,
	"analyze.go nests: \"split long threading pipelines or deeply nested expressions\"":                                                                      notFollowedBudget,
	"builtins_map.go updateIn: \"use a short path of keys, one per level of nesting\"":                                                                       notFollowedBudget,
	"parse_number.go decimalTooLong: \"a number in data has at most a few dozen digits; take the digits you need with subs first\"":                          notFollowedBudget,
	"emit.go emitError: \"return or def a summary instead (count, take, select-keys, first); keep large intermediate values in a let inside the program\"":   notFollowedBudget,
	"emit.go emitText: \"values leaving the program must nest at most %d levels, counting those calls; flatten the data, or use plain keywords or strings\"": notFollowedBudget,
	"emit.go keyTextError: keyTextHint":                                                     notFollowedBudget,
	"emit.go longNumberError: \"send a number of at most %d digits, or its text: (str n)\"": notFollowedBudget,
	"memory.go leastReadBudgetError: \"return or def a summary instead (count, take, select-keys, first), or fewer and larger parts: a string rather than a vector of characters\"":      notFollowedBudget,
	"emit.go sourceReadsBack: \"a value of source is read back within %s of memory and a few steps a byte; return or def the data, and keep the functions that make it in the program\"": notFollowedBudget,
	"json.go charge: readCostHint": notFollowedBudget,
	"nesting.go tooDeepError: \"values leaving the program must nest at most %d levels; flatten the data or return a summary\"":    notFollowedBudget,
	"nesting.go walkTooDeepError: \"build flatter data: nest maps and vectors a few levels, not one level per item\"":              notFollowedBudget,
	"program.go callTool: \"make fewer tool calls per program: batch requests or filter before calling\"":                          notFollowedBudget,
	"program.go output: \"print less inside with-out-str\"":                                                                        notFollowedBudget,
	"program.go outputLimitError: \"print less: summarize with count, take or select-keys instead of printing whole collections\"": notFollowedBudget,
	"readcost.go readCostError: readCostHint":                                                                                      notFollowedBudget,
	"bigdec.go decDigitsError: \"round it first with (.setScale x 2 java.math.RoundingMode/HALF_UP), or use (double x)\"":          notFollowedBudget,
	"reader.go bigDec: \"write at most %d digits, and an exponent between -2147483648 and 2147483647\"":                            notFollowedBudget,
	"reader.go charge: readCostHint":     notFollowedBudget,
	"reader.go enter: tooDeepHint":       notFollowedBudget,
	"reader.go hashedWhole: keyTextHint": notFollowedBudget,
	"regex.go chargeMatch: \"match a shorter string (split it first) or use a simpler pattern with fewer repetitions\"":                                         notFollowedBudget,
	"regex.go compileRegex: \"use a shorter pattern, or split the work into several simpler patterns\"":                                                         notFollowedBudget,
	"thread.go alloc: \"the program builds too much data; take or filter before building large strings or collections\"":                                        notFollowedBudget,
	"thread.go checkWeight: \"the program nests shared data exponentially; build only what you need\"":                                                          notFollowedBudget,
	"thread.go contextError: \"run the program again\"":                                                                                                         notFollowedBudget,
	"thread.go contextError: \"the program took too long; do less work per turn\"":                                                                              notFollowedBudget,
	"thread.go enterCallChecked: \"recursion is too deep; use loop/recur or a sequence function instead\"":                                                      notFollowedBudget,
	"closure.go callDeep: \"recursion is too deep for the function's nesting; flatten the body or use loop/recur\"":                                             notFollowedBudget,
	"thread.go stepChecked: \"the program does too much work; process less data per turn or avoid unbounded loops\"":                                            notFollowedBudget,
	"thread.go stepAtOnce: \"the numbers are too large for one operation; work with fewer digits\"":                                                             notFollowedBudget,
	"classes.go classOf: \"read it with (ex-message e)\"":                                                                                                       notFollowedNoClass,
	"classes.go classOf: \"test values with predicates such as (string? x), (map? x) or (fn? x)\"":                                                              notFollowedNoClass,
	"namespaces.go namespaceVar: genericHint":                                                                                                                   notFollowedFallback,
	"specials_header.go compileImport: \"(import ...) form\"":                                                                                                   notFollowedFallback,
	"specials_header.go compileNs: \"(:import ...) clause of the ns form\"":                                                                                     notFollowedFallback,
	"analyze.go fallback: \"write tool/%s to call the tool or data/%s to read the data\"":                                                                       notFollowedHost,
	"analyze.go undefined: \"data/ is a namespace, not a value: read one input with data/name (%s)\"":                                                           notFollowedHost,
	"analyze.go undefined: \"data/ is a namespace, not a value: read one input with data/name; this program has no data\"":                                      notFollowedHost,
	"analyze.go unknownTool: \"declared tools: %s\"":                                                                                                            notFollowedHost,
	"analyze.go unknownTool: \"no tools are available in this program\"":                                                                                        notFollowedHost,
	"program.go callTool: \"ask the tool for less, or for its data in another shape: %s\"":                                                                      notFollowedHost,
	"program.go callTool: \"check the arguments against the tool's signature, or try another approach\"":                                                        notFollowedHost,
	"program.go lookupGlobal: \"write tool/%s to call the tool or data/%s to read the data\"":                                                                   notFollowedHost,
	"builtins_agg.go fieldValues: \"only nil and missing values are skipped; convert strings with parse-long or parse-double first\"":                           notFollowedOwn,
	"builtins_agg.go fieldValues: \"pass the collection itself, without apply: (%s %s coll)\"":                                                                  notFollowedOwn,
	"builtins_introspect.go builtinDir: \"(dir) lists the namespaces: %s\"":                                                                                     notFollowedOwn,
	"builtins_json.go builtinJSONGenerate: \"JSON holds nil, booleans, numbers, strings, keywords, vectors, sets and maps with string or keyword keys\"":        notFollowedOwn,
	"builtins_json.go builtinJSONGenerate: \"json/generate-string writes compact JSON and takes no options; print it with (println (json/generate-string x))\"": notFollowedOwn,
	"builtins_json.go parseJSONText: \"catch it with (try (%s s) (catch Exception e nil)) where the text may not be JSON\"":                                     notFollowedOwn,
	"core.go combinator: \"pass predicates such as (where :age > 18) or :active\"":                                                                              notFollowedOwn,
	"interop_date.go builtinDate: `write it as ISO-8601, e.g. \"2026-01-08T14:30:00Z\" or \"2026-01-08\"`":                                                      notFollowedOwn,
	"namespaces.go notInNamespace: \"%s is PTC-Lisp's own, in no namespace: write (%s ...), as in %s\"":                                                         notFollowedOwn,
	"specials_header.go libspec: \"then call its functions as json/: (json/parse-string s true), (json/generate-string x)\"":                                    notFollowedOwn,
	"where.go compileWhere: \"write (where :field = value)\"":                                                                                                   notFollowedOwn,
	"where.go compileWhere: hint": notFollowedOwn,
	"where.go eval: \"write (where :field = value) or (where [:a :b] = value)\"":                                                                           notFollowedOwn,
	"where.go eval: \"write the path as keywords, strings or numbers: (where [:a :b] = value)\"":                                                           notFollowedOwn,
	"reader.go readForm: \"there is a closing bracket without a matching opening one\"":                                                                    notFollowedWrapped,
	"extract.go NoProgramError: \"answer with one PTC-Lisp program in a fenced block: ```clojure on its own line, the program, then ``` on its own line\"": notFollowedReply,
	"reader.go readDispatch: varQuoteHint":                                                 notFollowedWire,
	"reader.go atom: \"values are literal data; quote text as a string or use a keyword\"": notFollowedWire,
	"reader.go parseEDNCounted: \"send an EDN value such as nil, 42 or {:a 1}\"":           notFollowedWire,
	"reader.go parseEDNCounted: \"send exactly one EDN value\"":                            notFollowedWire,
	"wire.go ReadWire: \"flatten the data; deeply nested values are not supported\"":       notFollowedWire,
	"wire.go ReadWire: e.Hint": notFollowedWire,
}

// Why a hint site is not followed by a row.
const (
	notFollowedIdentity = "the hash of a function or an atom, which Clojure takes from its identity, a different number each run: no program has one answer to follow"
	notFollowedBudget   = "a budget or size limit: the hint asks for less work or smaller data, which changes the program's answer; budget_test.go and attack_test.go reach it"
	notFollowedHost     = "a tool or a data/ input: Clojure has no tool/ or data/ to answer the program or its rewrite"
	notFollowedOwn      = "a form PTC-Lisp has and Clojure has not (sum-by, json/, where, dir, the specification's date strings): Clojure cannot answer the program or its rewrite"
	notFollowedWire     = "a value a client sends on the wire, not a program"
	notFollowedReply    = "the shape of a model's reply (a fenced program), not a program"
	notFollowedWrapped  = "a ) before any form: the oracle reads a program inside (do ...), which that ) closes, so Clojure cannot judge it"
	notFollowedNoClass  = "a value or a caught error with no Java class here: no program found reaches it that Clojure runs"
	notFollowedFallback = "a fallback the refusals before it leave unreached: every var has a hint of its own (TestCoverageTable), and each import refusal already carries a hint that deleteHint extends"
)

// scanHintSites lists the hint sites of the package's non-test source.
func scanHintSites(t *testing.T) []hintSite {
	t.Helper()
	var sites []hintSite
	forEachSourceFile(t, func(fset *token.FileSet, name string, src []byte, f *ast.File) {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				arg, at := 0, call.Pos()
				switch f := call.Fun.(type) {
				case *ast.SelectorExpr:
					if f.Sel.Name != "WithHint" {
						return true
					}
					at = f.Sel.Pos() // the line a chained call runs on
				case *ast.Ident:
					if f.Name != "deleteHint" {
						return true
					}
					arg = 2 // what is deleted
				default:
					return true
				}
				a := call.Args[arg]
				if arg == 0 && len(call.Args) > 1 {
					if lit, ok := a.(*ast.BasicLit); ok && lit.Value == `"%s"` {
						a = call.Args[1] // the hint is that value
					}
				}
				sites = append(sites, hintSite{
					File: name, Func: fn.Name.Name, Line: fset.Position(at).Line,
					Hint: string(src[fset.Position(a.Pos()).Offset:fset.Position(a.End()).Offset]),
				})
				return true
			})
		}
	})
	return sites
}

// forEachSourceFile parses each non-test Go file of the package and calls
// visit with it.
func forEachSourceFile(t *testing.T, visit func(fset *token.FileSet, name string, src []byte, f *ast.File)) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		visit(fset, name, src, f)
	}
}

// hintSiteOf is the file and line of the code that gave e's hint.
func hintSiteOf(e *Error) (string, int) {
	if e.site == 0 {
		return "", 0
	}
	fr, _ := runtime.CallersFrames([]uintptr{e.site}).Next()
	return filepath.Base(fr.File), fr.Line
}

// TestEveryHintSiteIsFollowed: every hint site of the source is reached
// by a refused or out-of-scope row of the coverage tables (whose rewrites
// the table tests follow), or is listed with its reason in
// hintSitesNotFollowed; a listed site no longer in the source, or now
// reached by a row, is reported too.
func TestEveryHintSiteIsFollowed(t *testing.T) {
	sites := scanHintSites(t)
	if len(sites) < 100 {
		t.Fatalf("found %d hint sites; the source has over 200", len(sites))
	}
	byLine := map[string]*hintSite{}
	keys := map[string]bool{}
	for i := range sites {
		s := &sites[i]
		byLine[s.File+":"+itoa(s.Line)] = s
		keys[s.key()] = true
	}
	reached := map[string][]string{}
	for _, file := range []string{"table.txt", "hints.txt"} {
		for _, r := range parseCoverageTable(t, file) {
			if r.Status == "exact" {
				continue
			}
			for _, e := range r.Examples {
				res := run(t, e.Src, Env{})
				if res.Err == nil || e.Rewrite == "" {
					continue // TestCoverageTable and TestInteropAndHints report it
				}
				f, line := hintSiteOf(res.Err)
				s, ok := byLine[f+":"+itoa(line)]
				if !ok {
					t.Errorf("%s:%d: %s gives its hint at %s:%d, which is no hint site the scan found", file, e.Line, e.Src, f, line)
					continue
				}
				reached[s.key()] = append(reached[s.key()], e.Src)
			}
		}
	}
	var missing []string
	for _, s := range sites {
		_, exempt := hintSitesNotFollowed[s.key()]
		switch {
		case len(reached[s.key()]) > 0 && exempt:
			t.Errorf("%s:%d is reached by %s: delete it from hintSitesNotFollowed", s.File, s.Line, reached[s.key()][0])
		case len(reached[s.key()]) == 0 && !exempt:
			missing = append(missing, s.File+":"+itoa(s.Line)+" "+s.key())
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("hint site %s: no refused row of testdata/coverage/hints.txt reaches it; add a program, the rewrite its hint asks for, and record Clojure's answer", m)
	}
	for k := range hintSitesNotFollowed {
		if !keys[k] {
			t.Errorf("hintSitesNotFollowed lists %q, which is no longer a hint site", k)
		}
	}
	t.Logf("%d hint sites giving %d distinct hints: %d reached by a row, %d not followed", len(sites), len(keys), len(reached), len(hintSitesNotFollowed))
}
