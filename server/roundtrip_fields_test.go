package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// One way in (docs/VALUES.md, "Reading"): every field that carries a
// value reads it the same way, so a value is accepted by all of them or
// refused by all of them, for the same reason.

// fieldAnswer is what one field made of a value: "" when it was
// accepted, else the status code and the message after the field's path.
type fieldAnswer struct {
	field, answer string
}

// answerOf reduces an RPC's outcome to what the field made of the value.
func answerOf(err error) string {
	if err == nil {
		return ""
	}
	st := status.Convert(err)
	msg := st.Message()
	if _, rest, ok := strings.Cut(msg, ": "); ok {
		msg = rest // the path names the field, which differs
	}
	return st.Code().String() + ": " + msg
}

// throughEveryField sends v, which must be a map (data is one), in every
// field of every RPC that carries a value. The history of the chat
// strategies carries no value, only text: v's text there is content, and
// is answered separately.
func throughEveryField(svc *Service, v *ptcsidecarv1.Value) (answers []fieldAnswer, history error) {
	return throughEveryFieldAt(svc, v, nil)
}

// throughEveryFieldAt is throughEveryField with EvalTurn's requests
// asking for limits.
func throughEveryFieldAt(svc *Service, v *ptcsidecarv1.Value, limits *ptcsidecarv1.Limits) (answers []fieldAnswer, history error) {
	ctx := context.Background()
	tools := []*ptcsidecarv1.ToolSpec{{Name: "echo"}}
	one := &ptcsidecarv1.Value{Edn: "1"}
	eval := func(req *ptcsidecarv1.EvalTurnRequest) error {
		if req.Program == "" {
			req.Program = "1"
		}
		req.Limits = limits
		_, err := svc.EvalTurn(ctx, req)
		return err
	}
	toMessages := func(req *ptcsidecarv1.ToMessagesRequest) error {
		_, err := svc.ToMessages(ctx, req)
		return err
	}
	turn := func(result *ptcsidecarv1.Value, call *ptcsidecarv1.ToolCall) *ptcsidecarv1.Turn {
		t := &ptcsidecarv1.Turn{Number: 1, Program: "(tool/echo 1)", Success: true, Result: result}
		if call != nil {
			t.ToolCalls = []*ptcsidecarv1.ToolCall{call}
		}
		return t
	}
	memory := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "v", Value: v, Turn: 1}}}
	for _, f := range []struct {
		field string
		call  func() error
	}{
		{"data", func() error { return eval(&ptcsidecarv1.EvalTurnRequest{Data: v}) }},
		{"prelude", func() error { return eval(&ptcsidecarv1.EvalTurnRequest{Prelude: memory}) }},
		{"previous_results", func() error {
			return eval(&ptcsidecarv1.EvalTurnRequest{PreviousResults: []*ptcsidecarv1.Value{v}})
		}},
		{"tool_results.result", func() error {
			return eval(&ptcsidecarv1.EvalTurnRequest{Program: "(tool/echo {:a 1})", Tools: tools,
				ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "echo", Args: edn("{:a 1}"), Result: v}}})
		}},
		{"tool_results.args", func() error {
			// The program makes a call with v's value, and the answer
			// echoes the arguments the call was sent with, as a caller
			// does: they are read, then compared. They are v's text but
			// for a lazy sequence v holds, which a call sends as the list
			// it reads as.
			req := &ptcsidecarv1.EvalTurnRequest{Program: "(tool/echo *1)", Tools: tools, PreviousResults: []*ptcsidecarv1.Value{v}, Limits: limits}
			resp, err := svc.EvalTurn(ctx, req)
			if err != nil || resp.GetPending() == nil {
				return err // v was refused, or reading it failed the program before its call
			}
			req.ToolResults = []*ptcsidecarv1.ToolResult{{Index: 0, Name: "echo", Args: resp.GetPending().GetCalls()[0].GetArgs(), Result: one}}
			return eval(req)
		}},
		{"options.data", func() error {
			return toMessages(&ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Data: v, Tools: tools}})
		}},
		{"memory", func() error { return toMessages(&ptcsidecarv1.ToMessagesRequest{Memory: memory}) }},
		{"turns.result", func() error {
			return toMessages(&ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn(v, nil)}})
		}},
		{"turns.tool_calls", func() error {
			return toMessages(&ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{
				turn(one, &ptcsidecarv1.ToolCall{Index: 0, Name: "echo", Args: v, Result: v})}})
		}},
	} {
		answers = append(answers, fieldAnswer{f.field, answerOf(f.call())})
	}
	history = toMessages(&ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results"},
		History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: v.GetEdn() + v.GetJson()}}})
	return answers, history
}

// readWorkRefusal begins the refusal of values that would take too long
// to read; the bound it names after that depends on the RPC.
const readWorkRefusal = "the request's values would take more than"

// sameAnswer fails t unless every field gave the answer want ("" for
// accepted; a refusal matches when it contains want).
func sameAnswer(t *testing.T, name string, answers []fieldAnswer, history error, want string) {
	t.Helper()
	for _, a := range answers {
		switch {
		case want == "" && a.answer != "":
			t.Errorf("%s: %s refuses it: %s", name, a.field, a.answer)
		case want != "" && !strings.Contains(a.answer, want):
			t.Errorf("%s: %s answers %q, want a refusal containing %q", name, a.field, a.answer, want)
		case want == readWorkRefusal && !strings.HasPrefix(a.answer, "ResourceExhausted: "+readWorkRefusal):
			t.Errorf("%s: %s answers %q, want RESOURCE_EXHAUSTED by its read work", name, a.field, a.answer)
		case want != readWorkRefusal && a.answer != answers[0].answer:
			t.Errorf("%s: %s answers %q, %s %q", name, a.field, a.answer, answers[0].field, answers[0].answer)
		}
	}
	if history != nil {
		t.Errorf("%s: the chat history, which holds text, refuses it: %v", name, history)
	}
}

// TestValueFieldsAgree sends the same values through every field, under
// the default nesting setting and a low one.
func TestValueFieldsAgree(t *testing.T) {
	deep9 := "{:a " + strings.Repeat("[", 8) + "1" + strings.Repeat("]", 8) + "}"
	for _, c := range []struct {
		name    string
		depth   int // the server's --max-value-depth; 0: default
		value   *ptcsidecarv1.Value
		refusal string // "" accepted
	}{
		{"constructed keywords", 0, edn(`{(keyword "a b") [(keyword "") #{(keyword ":y")}]}`), ""},
		{"regex, symbol, list, function", 0, edn(`{:re (re-pattern "a\"b") :sym (quote x) :l (list 1 2) :f (fn [x] x)}`), ""},
		{"JSON", 0, &ptcsidecarv1.Value{Json: `{"a b":[1,{"c":null}]}`}, ""},
		{"9 deep, depth 3", 3, edn(deep9), "nested more than 3 levels"},
		{"9 deep, JSON, depth 3", 3, &ptcsidecarv1.Value{Json: `{"a":[[[[[[[[1]]]]]]]]}`}, "deep"},
		{"a constructed keyword at depth 3, depth 3", 3, edn(`{:a [[(keyword "a b")]]}`), "nested more than 3 levels"},
		{"the same, depth 4", 4, edn(`{:a [[(keyword "a b")]]}`), ""},
		{"a bare symbol", 0, edn(`{:a foo}`), "symbol foo is not allowed"},
		{"source that makes data", 0, edn(`{:a (+ 1 2)}`), "symbol + is not allowed"},
		{"source that loops", 0, edn(`{:a (loop [] (recur)) :f inc}`), "step_limit"},
		{"too dense", 0, edn("{:a #{" + denseSet(20_000) + "}}"), "once read"},
		{"malformed", 0, edn(`{:a [1 2}`), "InvalidArgument"},
		// Read work: EvalTurn bounds it by its timeout, ToMessages by the
		// request's bytes; a value well under both reads everywhere, one
		// well over both is refused everywhere, for its read work, before
		// it is read (the bound each field names differs).
		{"2 radix-36 literals of 100,000 digits", 0, edn("{:a [" + strings.Repeat("36r"+strings.Repeat("Z", 100_000)+" ", 2) + "]}"), ""},
		{"40 radix-36 literals of 100,000 digits", 0, edn("{:a [" + strings.Repeat("36r"+strings.Repeat("Z", 100_000)+" ", 40) + "]}"), readWorkRefusal},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if c.depth > 0 {
				cfg.MaxValueDepth = c.depth
			}
			answers, history := throughEveryField(New(cfg), c.value)
			sameAnswer(t, c.name, answers, history, c.refusal)
		})
	}
}

// denseSet is the elements of a set of n one-element vectors: each costs
// a slot, a vector and an index entry, far more than its text.
func denseSet(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[%d] ", i)
	}
	return b.String()
}

// TestEmittedValuesReadBackInEveryField is the property: every value a
// turn emits, random values of every kind (constructed keywords and
// symbols, regexes, lists, sorted collections, dates, functions, floats
// that EDN spells with ##, records), is accepted by every field of a server with
// the same settings. A value that cannot be written within the settings
// (nested too deep once its calls are counted) is refused when the turn
// would emit it, not when it is sent back.
func TestEmittedValuesReadBackInEveryField(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 7))
	runs := 400
	if testing.Short() {
		runs = 150
	}
	for _, depth := range []int{0, 4} {
		cfg := DefaultConfig()
		if depth > 0 {
			cfg.MaxValueDepth = depth
		}
		svc := New(cfg)
		emitted, refused, records := 0, 0, 0
		for range runs {
			expr := randomValueExpr(r, 4)
			program := fmt.Sprintf("(defrecord R [a b])\n(def v {:v %s})\nv", expr)
			resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: program})
			if err != nil {
				t.Fatalf("%s: %v", program, err)
			}
			turn := resp.GetTurn()
			if !turn.GetSuccess() {
				if e := turn.GetError(); e.GetType() != "depth_limit" && e.GetType() != "parse_error" {
					t.Fatalf("%s: the program fails: %v", program, e)
				}
				refused++
				continue
			}
			emitted++
			if strings.Contains(turn.GetResult().GetEdn(), "#user.R{") {
				records++
			}
			answers, history := throughEveryField(svc, turn.GetResult())
			sameAnswer(t, program, answers, history, "")
			sameValueBack(t, svc, program, turn.GetResult())
			// The memory binding, as it was emitted, too.
			var bound *ptcsidecarv1.Value
			for _, b := range turn.GetMemory().GetBindings() {
				if b.GetName() == "v" {
					bound = b.GetValue()
				}
			}
			answers, history = throughEveryField(svc, bound)
			sameAnswer(t, program+" (memory)", answers, history, "")
			if t.Failed() {
				t.FailNow()
			}
		}
		t.Logf("depth %d: %d values emitted and read back in every field (%d holding records), %d refused when emitted", depth, emitted, records, refused)
		if records == 0 {
			t.Errorf("depth %d: no emitted value held a record", depth)
		}
		if emitted < runs/2 {
			t.Errorf("depth %d: only %d of %d programs emitted a value", depth, emitted, runs)
		}
	}
}

// TestWideSourceValuesReadBackInEveryField: a value of source many
// times over (20,000 transducers, memoized functions, symbols) is
// accepted back by every field, or refused when the turn would emit it
// (emit_limit), never emitted and then refused. Before, such a map was
// emitted (300 KB to 850 KB of source) and refused memory_limit by every
// field it was sent back in.
func TestWideSourceValuesReadBackInEveryField(t *testing.T) {
	svc := New(DefaultConfig())
	for _, expr := range []string{
		"(zipmap (map keyword (map str (range 20000))) (repeat (map inc)))",
		"(update-vals (zipmap (map keyword (map str (range 20000))) (repeat 1)) (constantly (memoize (fn [x] (vec (range x))))))",
		"(vec (repeat 20000 (comp (map inc) (filter odd?))))",
		"(vec (repeat 15000 (map inc)))",
		"(vec (map (fn [i] (keyword (str \"a b\" i))) (range 20000)))",
	} {
		program := "{:v " + expr + "}"
		resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: program,
			Limits: &ptcsidecarv1.Limits{MaxSteps: 10_000_000, MaxAllocBytes: 64 << 20}})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		turn := resp.GetTurn()
		if !turn.GetSuccess() {
			if e := turn.GetError(); e.GetType() != "emit_limit" || !strings.Contains(e.GetMessage(), "would not read back") {
				t.Errorf("%s: the program fails: %v", expr, e)
			}
			continue
		}
		answers, history := throughEveryField(svc, turn.GetResult())
		sameAnswer(t, fmt.Sprintf("%s (%d bytes)", expr, len(turn.GetResult().GetEdn())), answers, history, "")
	}
}

// TestVarQuoteRefusedInEveryField: EDN has no #' (Clojure's EDN reader
// refuses it), so no field takes #'x as data, and the refusal names it;
// a var a turn emits is written as the form that makes it, (var user/f),
// and read back by every field.
func TestVarQuoteRefusedInEveryField(t *testing.T) {
	svc := New(DefaultConfig())
	answers, history := throughEveryField(svc, edn("{:a #'x}"))
	sameAnswer(t, "#'x", answers, history, "#' (a var) is not allowed in a value")
	resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(defn f [] 1) {:f #'f :inc #'inc}"})
	if err != nil || !resp.GetTurn().GetSuccess() {
		t.Fatalf("a result holding vars: %v %v", err, resp.GetTurn().GetError())
	}
	if got, want := resp.GetTurn().GetResult().GetEdn(), "{:f (var user/f), :inc (var clojure.core/inc)}"; got != want {
		t.Errorf("a result holding vars is written %s, want %s", got, want)
	}
	answers, history = throughEveryField(svc, resp.GetTurn().GetResult())
	sameAnswer(t, "vars a turn emits", answers, history, "")
}

// sameValueBack fails t unless v, a turn's result, comes back the same
// value through the fields an evaluation reads it from: data,
// previous_results and a prelude binding, each returned by a program and
// emitted again. Same means equal (=), or, for what holds functions,
// which equal only themselves, the same text once read: a sorted
// collection travels as a plain one, and may print in another order.
func sameValueBack(t *testing.T, svc *Service, program string, v *ptcsidecarv1.Value) {
	t.Helper()
	memory := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "v", Value: v, Turn: 1}}}
	for _, back := range []struct {
		field string
		req   *ptcsidecarv1.EvalTurnRequest
	}{
		{"data", &ptcsidecarv1.EvalTurnRequest{Program: "{:v data/v}", Data: v}},
		{"previous_results", &ptcsidecarv1.EvalTurnRequest{Program: "*1", PreviousResults: []*ptcsidecarv1.Value{v}}},
		{"prelude", &ptcsidecarv1.EvalTurnRequest{Program: "v", Prelude: memory}},
	} {
		resp, err := svc.EvalTurn(context.Background(), back.req)
		if err != nil || !resp.GetTurn().GetSuccess() {
			t.Errorf("%s: sent back in %s: %v %v", program, back.field, err, resp.GetTurn().GetError())
			continue
		}
		got := resp.GetTurn().GetResult().GetEdn()
		if got == v.GetEdn() {
			continue
		}
		want, werr := lisp.ReadValue(context.Background(), v.GetEdn(), 0, 0)
		have, herr := lisp.ReadValue(context.Background(), got, 0, 0)
		if werr != nil || herr != nil || !lisp.Equal(want, have) && lisp.WireText(want) != lisp.WireText(have) {
			t.Errorf("%s: sent back in %s, it comes back as\n%s\nnot\n%s", program, back.field, got, v.GetEdn())
		}
	}
}

// randomValueExpr writes an expression that makes a random value at most
// depth levels deep, of every kind a turn can emit.
func randomValueExpr(r *rand.Rand, depth int) string {
	names := []string{"", "a b", ":x", "a/", "/", "x;y", `q"`, "ok", "user/id", "é字", "a,b", "[", "#x", "1"}
	name := func() string { return fmt.Sprintf("%q", names[r.IntN(len(names))]) }
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	leaf := func() string {
		switch r.IntN(23) {
		case 22: // transducers, memoized functions and finite lazy sequences
			return pick("(map inc)", "(comp (map inc) (filter odd?))", "(memoize inc)", "(every-pred odd? pos?)",
				"(lazy-seq [1 2])", "(take 3 (range))", "(map inc [1 2])", "(concat (lazy-seq [1]) [2])")
		case 16: // numbers of many digits, as BigInt, BigInteger and BigDecimal
			return pick("123456789012345678901234567890N", "-98765432109876543210N", `(biginteger "123456789012345678901234567890123")`,
				"(*' 99999999999 99999999999 99999999999)", "-1234567890.12345678901234567890M", `(bigdec "1E+30")`, "0.000000000000000000001M")
		case 17: // dates and times, java.util.Date and java.time
			return pick(`(java.time.LocalDateTime/parse "2024-01-02T03:04:05")`, `(java.time.Instant/parse "2024-01-02T03:04:05Z")`,
				`(LocalTime/parse "10:15:30")`, `(.plusDays (LocalDate/parse "2024-02-28") 1)`, `(java.time.Duration/ofSeconds 5)`)
		case 18: // regexes the backtracking engine runs: lookaround, backreferences, atomic groups
			return pick(`#"(?<=a)b"`, `#"(a)\1"`, `(re-pattern "(?!x)y+")`, `#"(?>a+)b"`, `(re-pattern "(?<w>\\w)\\k<w>")`)
		case 19: // characters, which are strings here, and ratios, which are doubles
			return pick(`\a`, `\newline`, `\u00e9`, `(char 0)`, `(/ 1 3)`, `(/ -7 2)`, `(double 1/2)`)
		case 20: // namespaced maps, sub-vectors, views of maps, metadata
			return pick(`{:a/x 1 :a/y "2"}`, `(hash-map :n/a 1 :n/b [2])`, `(subvec [1 2 3 4] 1 3)`, `(keys {:a 1 :b 2})`,
				`(with-meta [1 2] {:m 1})`, `(partition 2 2 [:pad] [1 2 3])`)
		case 21: // symbols and keywords of odd names
			return pick(`(symbol "ns" "x")`, `(keyword "ns" "")`, `(keyword "a/b" "c")`, `(symbol "x?")`, `(keyword "1")`, `(keyword "a" "b c")`)
		case 0:
			return fmt.Sprint(r.Int64() - r.Int64())
		case 1:
			return []string{"1.5", "-0.0", "1.0E300", "##NaN", "##Inf", "##-Inf", "(/ 1.0 3)"}[r.IntN(7)]
		case 2:
			return name()
		case 3:
			return "(keyword " + name() + ")"
		case 4:
			return "(keyword " + name() + " " + name() + ")"
		case 5:
			return []string{"'x", "'a.b/c", "(quote %)", `(symbol "ok")`}[r.IntN(4)]
		case 6:
			return []string{`#"\d+"`, `(re-pattern "a\"b")`, `(re-pattern "\\\\")`, `(re-pattern "[a-z]+ x")`}[r.IntN(4)]
		case 7:
			return []string{"(java.util.Date. 1700000000000)", `(java.util.Date. "2024-01-02T03:04:05Z")`, `(LocalDate/parse "2024-02-29")`}[r.IntN(3)]
		case 8:
			return []string{"(fn [x] x)", "inc", "(partial + 1)", "(let [k (keyword \"a b\")] (fn [m] (get m k)))"}[r.IntN(4)]
		case 9:
			return []string{"nil", "true", "false"}[r.IntN(3)]
		case 10:
			return ":k"
		}
		return fmt.Sprint(r.IntN(100))
	}
	if depth <= 1 || r.IntN(3) == 0 {
		return leaf()
	}
	parts := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = randomValueExpr(r, depth-1)
		}
		return strings.Join(s, " ")
	}
	n := r.IntN(4)
	switch r.IntN(11) {
	case 8: // a sorted collection with a comparator travels as a plain one
		elems := make([]string, n)
		for i := range elems {
			elems[i] = fmt.Sprint(r.IntN(50))
		}
		return pick("(sorted-set-by > ", "(sorted-set-by (fn [a b] (compare b a)) ") + strings.Join(elems, " ") + ")"
	case 9:
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("%q %s", names[r.IntN(len(names))], randomValueExpr(r, depth-1))
		}
		return "(sorted-map-by (fn [a b] (compare b a)) " + strings.Join(keys, " ") + ")"
	case 6:
		return "(->R " + parts(2) + ")" // a record, of the program's defrecord
	case 7:
		return "(assoc (->R " + parts(2) + ") :c " + parts(1) + ")"

	case 0:
		return "[" + parts(n) + "]"
	case 1:
		return "(list " + parts(n) + ")"
	case 2:
		return "(hash-map " + parts(2*n) + ")"
	case 3:
		return "(hash-set " + parts(n) + ")"
	case 4:
		keys := make([]string, n)
		for i := range keys {
			keys[i] = fmt.Sprintf("%d %s", r.IntN(50), randomValueExpr(r, depth-1))
		}
		return "(sorted-map " + strings.Join(keys, " ") + ")"
	case 5:
		elems := make([]string, n)
		for i := range elems {
			elems[i] = fmt.Sprintf("%q", names[r.IntN(len(names))])
		}
		return "(sorted-set " + strings.Join(elems, " ") + ")"
	}
	return "(vec (list " + parts(n) + "))"
}

// TestOneReadingPerText: a text read in one field is read the same in
// every other, in any order, by a server that remembers what it read.
// (When the prelude read its values its own way, it remembered the EDN
// error of a value that is source, and every later field that met the
// same text, a run's result sent back as previous_results or to
// ToMessages, was refused with it; which came first decided.)
func TestOneReadingPerText(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Memo = memo.New(32 << 20)
	for _, text := range []string{`{(keyword "a b") [(keyword "") #{(keyword ":y")}]}`, `(re-pattern "x+")`, `[(quote x) (list 1 2)]`} {
		svc := New(cfg)
		v := edn(text)
		memory := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "v", Value: v}}}
		if _, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "v", Prelude: memory}); err != nil {
			t.Fatalf("%s as prelude: %v", text, err)
		}
		answers, history := throughEveryField(svc, edn("{:v "+text+"}"))
		sameAnswer(t, text, answers, history, "")
		if _, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "*1", PreviousResults: []*ptcsidecarv1.Value{v}}); err != nil {
			t.Errorf("%s as previous_results after the prelude: %v", text, err)
		}
		if _, err := svc.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "v", Success: true, Result: v}}}); err != nil {
			t.Errorf("%s as a turn's result after the prelude: %v", text, err)
		}
	}
}

// TestDataRecordsEmittedAsPrinted: a server that remembers its data
// copies the texts of the data's records into what a turn emits; the turn
// is byte for byte the one a server that prints them makes, on the first
// call and on the calls that find the data remembered.
func TestDataRecordsEmittedAsPrinted(t *testing.T) {
	cfg := DefaultConfig()
	plain := New(cfg)
	cfg.Memo = memo.New(32 << 20)
	remembering := New(cfg)
	data := edn(`{:orders [{:id 1, :s "a \"q\" é", :f 1.5, :k :paid} {:id 2, :n nil, :b true, :k :refunded}
		{:id 3, :nested {:x 1}, :k :paid} {"str key" 1, :k :paid}], :set #{{:id 9}}, :keyed {{:id 8} :v}}`)
	program := `(def paid (filter #(= (:k %) :paid) data/orders))
(def by-k (group-by :k data/orders))
(tool/echo (first paid))
{:paid paid :set data/set :keyed data/keyed :n (count by-k)}`
	var want *ptcsidecarv1.Turn
	for i, svc := range []*Service{plain, remembering, remembering, remembering} {
		req := &ptcsidecarv1.EvalTurnRequest{Program: program, Data: data, Tools: echoTool,
			ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "echo", Args: edn(`{:id 1, :s "a \"q\" é", :f 1.5, :k :paid}`), Result: edn("1")}}}
		resp, err := svc.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		turn := resp.GetTurn()
		if !turn.GetSuccess() {
			t.Fatalf("call %d: %v", i, turn.GetError())
		}
		turn.DurationMs = 0
		if i == 0 {
			want = turn
			continue
		}
		if !proto.Equal(turn, want) {
			t.Fatalf("call %d, remembering the data:\n%v\nprinting it:\n%v", i, turn, want)
		}
	}
	got, ok := remembering.remembered.values.Get(valueKey{maxNesting: cfg.MaxValueDepth, records: true, text: data.GetEdn()})
	if !ok || got.texts.Size() == 0 {
		t.Fatalf("the data is not remembered with its records' texts")
	}
}
