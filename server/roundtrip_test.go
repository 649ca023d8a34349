package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The round-trip guarantee (docs/VALUES.md): every value the sidecar
// emits — a turn's result, memory bindings, tool-call arguments and
// results — is accepted when sent back and reads as the same value. These
// tests send each emitted value back through EvalTurn (as prelude,
// previous_results and echoed tool arguments under replay) and through
// ToMessages, and require the text it is then emitted as to be the text it
// was emitted as first.

// echoTool is the one tool the round-trip programs call; the test answers
// each call with its own arguments.
var echoTool = []*ptcsidecarv1.ToolSpec{{Name: "echo"}}

// roundTripLimits keep generated and fuzzed programs cheap.
func roundTripLimits() *ptcsidecarv1.Limits {
	return &ptcsidecarv1.Limits{MaxSteps: 20_000, MaxAllocBytes: 4 << 20, MaxToolCalls: 4, TimeoutMs: 2000}
}

// runEchoed evaluates program with the replay protocol, answering every
// tool call with the arguments it was emitted with, both as the echoed
// arguments and as the result. An RPC error is returned as is.
func runEchoed(svc *Service, program string) (*ptcsidecarv1.Turn, error) {
	return runReplayed(svc, program, echoTool)
}

// emitted lists the values a turn emits, each with the field it sits in.
func emitted(turn *ptcsidecarv1.Turn) (fields []string, values []*ptcsidecarv1.Value) {
	add := func(field string, v *ptcsidecarv1.Value) {
		if v != nil {
			fields, values = append(fields, field), append(values, v)
		}
	}
	add("result", turn.GetResult())
	for i, c := range turn.GetToolCalls() {
		add(fmt.Sprintf("tool_calls[%d].args", i), c.GetArgs())
		add(fmt.Sprintf("tool_calls[%d].result", i), c.GetResult())
	}
	for _, b := range turn.GetMemory().GetBindings() {
		add("memory "+b.GetName(), b.GetValue())
	}
	return fields, values
}

// checkRoundTrip runs program and sends every value its turn emits back.
// It reports whether the program ran to a turn (a program that does not
// make one, say because it is empty, has nothing to check) and whether
// the turn succeeded.
func checkRoundTrip(t testing.TB, svc *Service, program string) (ran, succeeded bool) {
	t.Helper()
	turn, err := runEchoed(svc, program)
	if err != nil {
		// The echoed arguments are refused under replay, or the program
		// is not one (empty: the caller's mistake, not an emitted value).
		if strings.TrimSpace(program) == "" {
			return false, false
		}
		t.Fatalf("program %q: sending the emitted tool arguments back: %v", program, err)
	}
	ctx := context.Background()
	fields, values := emitted(turn)
	for i, v := range values {
		// previous_results: *1 gives the value back, and it is emitted
		// as the text it arrived as.
		resp, err := svc.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "*1", PreviousResults: []*ptcsidecarv1.Value{v}})
		if err != nil {
			t.Fatalf("program %q: %s %s sent back as previous_results: %v", program, fields[i], v.GetEdn(), err)
		}
		if got := resp.GetTurn().GetResult().GetEdn(); got != v.GetEdn() {
			t.Fatalf("program %q: %s was emitted as\n%s\nand, sent back, as\n%s", program, fields[i], v.GetEdn(), got)
		}
	}
	// prelude: every binding reads, and reads as what it was emitted as.
	memory := turn.GetMemory()
	for _, b := range memory.GetBindings() {
		resp, err := svc.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: b.GetName(), Prelude: memory})
		if err != nil {
			t.Fatalf("program %q: memory sent back as prelude: %v", program, err)
		}
		if got := resp.GetTurn().GetResult().GetEdn(); got != b.GetValue().GetEdn() {
			t.Fatalf("program %q: binding %s was emitted as\n%s\nand, read from the prelude, as\n%s", program, b.GetName(), b.GetValue().GetEdn(), got)
		}
		if again := resp.GetTurn().GetMemory(); !proto.Equal(again, memory) {
			t.Fatalf("program %q: memory changed by a turn that defines nothing:\n%v\n%v", program, memory, again)
		}
	}
	// ToMessages takes the turn and its memory as they came.
	for _, strategy := range []string{"", "full"} {
		if _, err := svc.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn}, Memory: memory,
			Options: &ptcsidecarv1.Options{Strategy: strategy, Tools: echoTool}}); err != nil {
			t.Fatalf("program %q: ToMessages %q refuses the turn: %v", program, strategy, err)
		}
	}
	return true, turn.GetSuccess()
}

// TestRoundTripCases are the values that once broke a run, each as the
// result, a definition and the arguments of a tool call. The cases run in
// parallel on one Service, whose memo then hands the same decoded
// functions and regexes to concurrent evaluations (run it with -race).
func TestRoundTripCases(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits(), Memo: memo.New(32 << 20)})
	for _, expr := range roundTripSeeds {
		program := fmt.Sprintf("(def v %s)\n(tool/echo v)\n(tool/echo {:v v})\nv", expr)
		for _, run := range []string{"first", "again"} { // the same texts at the same time
			t.Run(expr+"/"+run, func(t *testing.T) {
				t.Parallel()
				turn, err := runEchoed(svc, program)
				if err != nil {
					t.Fatal(err)
				}
				if !turn.GetSuccess() {
					t.Fatalf("the program fails: %v", turn.GetError())
				}
				checkRoundTrip(t, svc, program)
			})
		}
	}
}

// roundTripSeeds are expressions whose values have no plain EDN form or
// sit at the edges of one.
var roundTripSeeds = []string{
	`(keyword "a b")`, `(keyword "")`, `(keyword ":x")`, `(keyword "a/")`, `(keyword "x;y")`, `(keyword "q\"")`,
	`(keyword "ns" "a b")`, `{(keyword "a b") 1, :a 2}`, `#{(keyword "a 1") [:a 1]}`, `#{[(keyword "a 1")] [:a 1]}`,
	`'x`, `'[a b/c d.e]`, `'{a b}`, `(quote %)`, `#(vector '% %)`,
	`(re-pattern "x")`, `#"\d+"`, `(re-pattern "a\"b")`, `(re-pattern "\\\\")`, `{:re #"[a-z]+"}`,
	`(fn [x] x)`, `#(+ % 1)`, `(let [k 3] (fn [x] (* k x)))`, `(let [k (keyword "a b") r #"x"] (fn [m] (get m k r)))`,
	`(fn self [n] (if (< n 1) n (self (dec n))))`, `(fn ([] 0) ([x & more] (apply + x more)))`,
	`inc`, `(partial + 1)`, `(comp str inc)`, `(juxt inc dec)`, `(complement nil?)`, `(constantly 'x)`, `(fnil inc 0)`,
	`[inc (fn [x] x) #"y"]`, `{inc 1}`, `tool/echo`,
	`##NaN`, `##Inf`, `##-Inf`, `-0.0`, `1.0E300`, `1.5E-7`, `1e20`, `(/ 1.0 3)`, `[##NaN {##NaN ##NaN}]`,
	`9223372036854775807`, `-9223372036854775808`, `(- -9223372036854775807 1)`,
	`1N`, `-0N`, `99999999999999999999`, `(*' 99999999999999999999 99999999999999999999)`, `(reduce *' (range 1 40))`,
	`(biginteger 99999999999999999999)`, `{1N [2N #{3N 99999999999999999999}]}`, `(inc' 9223372036854775807)`,
	`1.50M`, `-0.00M`, `1E+3M`, `1E-7M`, `(/ 1M 3.0)`, `{1.5M [2.50M #{3M 1.0E+20M}]}`, `(* 19.99M 3)`,
	`{nil 1, [1 2] 2, {:a 1} 3, 1.5 4, "s" 5, #{1} 6, true 7, 1 8, 1.0 9}`, `#{nil [1] {:a #{2}} 1.0 1}`,
	`[[[[{:a [#{[1]}]}]]]]`, `(hash-map nil nil)`, `{}`, `#{}`, `[]`,
	`"é 字 🙂"`, "\"\x01\x1b\x7f raw controls\"", `"\u0000\t\n\r\b\f\"\\"`, `"\ud83d"`, `"a;b ,c"`,
	`(str (keyword "a b"))`, `(name (keyword "a b"))`, `#'v`, `(var v)`,
}

// FuzzRoundTrip runs any program and sends every value it emits back
// (see checkRoundTrip).
func FuzzRoundTrip(f *testing.F) {
	for _, expr := range roundTripSeeds {
		f.Add(fmt.Sprintf("(def v %s)\n(tool/echo v)\nv", expr))
	}
	svc := New(Config{Limits: lisp.DefaultLimits()})
	f.Fuzz(func(t *testing.T, program string) {
		checkRoundTrip(t, svc, program)
	})
}

// TestRoundTripGenerated builds programs from the builtin table: random
// calls of every builtin (printing and control flow aside) on arguments
// drawn from literals of every kind and from other such calls, kept when
// they evaluate. Each program defines some of them, passes one to a tool
// and returns another; everything it emits must come back unchanged.
func TestRoundTripGenerated(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	gen := newExprGen(rand.New(rand.NewPCG(17, 1)))
	made := map[string]int{} // builtins whose calls evaluated, by name
	succeeded := 0
	const programs = 1000
	for range programs {
		var exprs []string
		for len(exprs) < 5 {
			e, name := gen.call(3)
			if evaluates(e) {
				exprs = append(exprs, e)
				made[name]++
			}
		}
		program := fmt.Sprintf("(def a %s)\n(def b %s)\n(def c %s)\n(tool/echo %s)\n%s", exprs[0], exprs[1], exprs[2], exprs[3], exprs[4])
		if _, ok := checkRoundTrip(t, svc, program); ok {
			succeeded++
		}
	}
	// Every builtin that can be called on generated arguments was.
	var never []string
	for _, b := range gen.builtins {
		if made[b.Name] == 0 {
			never = append(never, b.Name)
		}
	}
	t.Logf("%d of %d programs succeeded; %d of %d builtins made values; never: %v", succeeded, programs, len(made), len(gen.builtins), never)
	if succeeded < programs/2 {
		t.Errorf("only %d of %d programs succeeded: the generator tests little", succeeded, programs)
	}
	if len(made) < len(gen.builtins)*3/4 {
		t.Errorf("only %d of %d builtins made a value: %v never did", len(made), len(gen.builtins), never)
	}
}

// evaluates reports whether expr evaluates on its own.
func evaluates(expr string) bool {
	res, err := lisp.Eval(context.Background(), expr, lisp.Env{Limits: lisp.Limits{MaxSteps: 20_000, MaxAllocBytes: 1 << 20, MaxDepth: 50}})
	return err == nil && res.Err == nil
}

// exprGen writes random expressions.
type exprGen struct {
	r        *rand.Rand
	builtins []*lisp.Builtin
}

func newExprGen(r *rand.Rand) *exprGen {
	g := &exprGen{r: r}
	for _, b := range append(slices.Clone(lisp.Builtins()), lisp.CoreFunctions()...) {
		if b.Category != "io" {
			g.builtins = append(g.builtins, b)
		}
	}
	return g
}

// call is a call of a random builtin and the builtin's name.
func (g *exprGen) call(depth int) (string, string) {
	b := g.builtins[g.r.IntN(len(g.builtins))]
	n := b.MinArgs + g.r.IntN(3)
	if b.MaxArgs >= 0 {
		n = min(n, b.MaxArgs)
	}
	args := make([]string, n)
	for i := range args {
		args[i] = g.expr(depth - 1)
	}
	return "(" + strings.Join(append([]string{b.Name}, args...), " ") + ")", b.Name
}

// expr is a literal, a collection or a builtin call.
func (g *exprGen) expr(depth int) string {
	if depth <= 0 {
		return g.atom()
	}
	switch g.r.IntN(6) {
	case 0, 1:
		return g.atom()
	case 2:
		return "[" + g.exprs(depth) + "]"
	case 3:
		return "{" + g.exprs(depth) + "}" // an odd count or a repeated key fails: skipped
	case 4:
		return "#{" + g.exprs(depth) + "}"
	}
	e, _ := g.call(depth)
	return e
}

func (g *exprGen) exprs(depth int) string {
	parts := make([]string, g.r.IntN(5))
	for i := range parts {
		parts[i] = g.expr(depth - 1)
	}
	return strings.Join(parts, " ")
}

// atoms holds literals of every kind, functions among them.
var atoms = []string{
	"nil", "true", "false", "0", "1", "-1", "2", "3", "42", "7.25", "9223372036854775807", "-9223372036854775808",
	"1N", "-99999999999999999999", "1.50M", "-1E+3M", "1.5", "-0.0", "0.0", "1.0E300", "1.5E-7", "##NaN", "##Inf", "##-Inf",
	`""`, `"a b"`, `":x"`, `"a/b"`, `"/"`, `"x\"y"`, `"tab\there"`, `"é 字 🙂"`, `"a;b"`, "\"\x01\"", `"\u0000"`, `"[1 2]"`, `"{:a 1}"`,
	":a", ":b", ":user/id", "'x", "'sym.b", `#"\d+"`, `(re-pattern "a\"b")`,
	"(fn [x] x)", "#(+ % 1)", "inc", "str", "(partial + 1)", "(let [k 3] (fn [x] (* k x)))", "(constantly :a)",
	"[1 2 3]", `["a" "b"]`, "{:a 1 :b 2}", `{"k" [1 2]}`, "#{1 2}", "{[1] :v, nil 2, 1.5 3}",
}

func (g *exprGen) atom() string { return atoms[g.r.IntN(len(atoms))] }
