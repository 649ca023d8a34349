package lisp

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Host runs tools for a program. The interpreter performs no I/O itself:
// every tool call goes through here, in program order.
type Host interface {
	CallTool(ctx context.Context, name string, args Value) (Value, error)
}

// PrintedArgsHost is a Host that sends a call's arguments on as text (the
// server's stream host): it is given the call with the arguments' text
// and JSON as the emit check printed and charged them (ArgsText,
// ArgsJSON), so that it sends them without printing the arguments again.
type PrintedArgsHost interface {
	Host
	CallToolPrinted(ctx context.Context, call ToolCallRecord) (Value, error)
}

// ErrSuspend is returned (possibly wrapped) by a Host that cannot answer a
// tool call yet, e.g. in the stateless replay protocol where the caller runs
// the tool and evaluates the program again with the answer. Eval then stops
// and returns it, with the pending call as the last entry of the result's
// ToolCalls.
var ErrSuspend = errors.New("tool call suspended")

// Env is everything an evaluation reads besides the program.
type Env struct {
	Prelude *Memory // user definitions from earlier turns; nil for none
	Data    *Map    // the data/ namespace; nil for none
	Tools   []string
	// ToolDocs are the signatures and descriptions of Tools, by name,
	// which doc prints; a tool without one is documented by its name.
	ToolDocs map[string]ToolDoc
	// PreviousResults are earlier turns' results, newest first (*1 *2 *3).
	PreviousResults []Value
	Host            Host
	// Limits are the sandbox budgets; a zero field means the default
	// (see Limits).
	Limits Limits
	// TurnNumber is recorded on the bindings this program defines.
	TurnNumber int
	// MaxNesting bounds the nesting of source and of the values a program
	// leaves with; 0 means DefaultMaxNesting, and more than
	// MaxValueNesting means MaxValueNesting.
	MaxNesting int
	// Arrived is when the request that asked for the evaluation arrived;
	// zero means when Eval is called. The timeout counts from it, so that
	// what the host did before (extracting the program, decoding the
	// values) is the evaluation's time too, and so is the result's
	// Duration.
	Arrived time.Time
	// Programs, when not nil, keeps the programs read for a later
	// evaluation of the same text (see Program).
	Programs ProgramCache
	// DataTexts are the texts of Data's records, printed when Data was
	// read (NewRecordTexts); a turn that emits them copies them. Nil:
	// they are printed.
	DataTexts *RecordTexts
}

// ProgramCache keeps programs read, by their text and nesting bound. Eval
// reads a program it does not find under the evaluation's step budget and
// clock (readFormSteps a form), and keeps it once it has read whole; one it finds
// is charged the steps its reading took, so that it ends as a fresh read
// would.
type ProgramCache interface {
	Program(source string, maxNesting int) *Program
	Keep(source string, maxNesting int, p *Program)
}

// ToolCallRecord is one tool call a program made.
type ToolCallRecord struct {
	Index int
	Name  string
	Args  Value
	// ArgsText and ArgsJSON are Args' wire text and JSON as the emit
	// check printed them, charged to the program (ValueText's rules):
	// the host sends them rather than printing Args again.
	ArgsText, ArgsJSON string
	Result             Value // nil when the call failed or is pending
	Err                string
	Duration           time.Duration
}

// Result is the outcome of one evaluation.
type Result struct {
	Value Value // the last form's value, the returned value, or the fail reason
	// ValueText is Value's wire text (WireText) as the emit check printed
	// it, when Value is what was checked; "" when it was not printed.
	// ValueJSON is, with it, Value's JSON (EncodeJSON) written in the same
	// pass, "" when Value has no JSON form.
	ValueText string
	ValueJSON string
	Prints    []string
	ToolCalls []ToolCallRecord
	// Memory is the new prelude: the old one plus this program's
	// definitions, or the old one unchanged when the program failed.
	Memory  *Memory
	Defined []string // names (re)defined, in order of first definition
	Err     *Error   // nil on success
	// Warnings are what the reader forgave in the program (which ran
	// anyway), such as a stray closing bracket at its end.
	Warnings []Warning
	Returned bool // the program called return
	Failed   bool // the program called fail
	Steps    int64
	// AllocBytes is the allocation charged to the program.
	AllocBytes int64
	Duration   time.Duration
}

// OK reports whether the program succeeded.
func (r *Result) OK() bool { return r.Err == nil }

// Eval reads, analyzes and evaluates a program. A program that fails is not
// a Go error: it is a Result with Err set. The Go error is non-nil only when
// the host suspended a tool call (errors.Is(err, ErrSuspend)).
func Eval(ctx context.Context, source string, env Env) (res *Result, err error) {
	return evaluate(ctx, source, nil, env)
}

// Program is a program's source read once into forms. A replayed turn
// evaluates the same text on every round trip; a host that keeps the
// Program skips reading it again, and analyzing it again when the names
// it resolved (prelude, tools, data keys) answer as they did last time.
// Analysis and evaluation only read forms (rewrites such as threading
// build new lists) and compiled nodes, so one Program may be evaluated by
// any number of goroutines at once. What a Program holds is at most
// HeldBytes.
type Program struct {
	source     string
	maxNesting int
	read       *readForms
	compiled   atomic.Pointer[compiledProgram] // the last successful analysis
}

// heldBytesPerForm is the most a Program holds for each form it read
// (readForms.count, at every depth), its compiled node included: up to
// 300 bytes measured, for vectors nested 900 deep, where an ordinary
// program holds 30-100 (TestProgramHoldsAtMostHeldBytes, every form
// shape). What the analysis builds besides (captured values, regex
// literals, constants) is counted by its charge.
const heldBytesPerForm = 384

// heldBytesPerTextByte is what a Program holds for each byte of its
// text: the text, and the strings and symbols read from it, copied into
// builders that may leave up to as much room again.
const heldBytesPerTextByte = 4

// compiledProgram is a program's analysis and the answers it relied on.
type compiledProgram struct {
	nodes  []node
	nslots int
	asked  []resolution
	// steps and alloc are what the analysis was charged; an evaluation
	// that reuses it is charged the same, so a replay stops where the
	// first run did.
	steps, alloc int64
	// warnings are what the analysis forgave (compiler.warnings).
	warnings []Warning
}

// ReadProgram reads source as Eval would with env.MaxNesting set to
// maxNesting. A source that does not read returns the parse error that
// Eval would report as the result's Err.
func ReadProgram(source string, maxNesting int) (*Program, error) {
	read, err := readProgram(source, maxNesting, nil)
	if err != nil {
		return nil, err
	}
	return &Program{source: source, maxNesting: maxNesting, read: read}, nil
}

// HeldBytes is at most what the program holds: heldBytesPerTextByte for
// each byte of its text, heldBytesPerForm for each form read, and what its
// last analysis was charged (AnalysisBytes). A host that keeps programs
// counts each by it once it has been evaluated.
func (p *Program) HeldBytes() int64 {
	return heldBytesPerTextByte*int64(len(p.source)) + heldBytesPerForm*p.read.count + p.AnalysisBytes()
}

// AnalysisBytes is what the program's last analysis was charged to
// build (its compiled regex literals and constant collections among it),
// which the program holds for as long as it is kept; 0 before it has been
// analyzed.
func (p *Program) AnalysisBytes() int64 {
	if cp := p.compiled.Load(); cp != nil {
		return cp.alloc
	}
	return 0
}

// EvalProgram is Eval of a program already read. The program's nesting
// bound takes the place of env.MaxNesting for the source; env.MaxNesting
// still bounds the values the program produces.
func EvalProgram(ctx context.Context, p *Program, env Env) (*Result, error) {
	return evaluate(ctx, p.source, p, env)
}

// evaluate runs source, or p when it is not nil (then source is p's).
func evaluate(ctx context.Context, source string, p *Program, env Env) (res *Result, err error) {
	start := env.Arrived
	if start.IsZero() {
		start = time.Now()
	}
	limits := env.Limits.WithDefaults()
	var clock *evalClock
	if limits.Timeout > 0 {
		clock = startEvalClock(ctx, limits.Timeout-time.Since(start))
		defer clock.stop()
		ctx = clock
	}
	th := newThread(ctx, limits)
	prog := newProgState(env)
	prog.clock = clock
	th.prog = prog
	res = &Result{Memory: env.Prelude}
	if res.Memory == nil {
		res.Memory = newMemory()
	}
	defer func() {
		// The single safety net: a bug in the interpreter must not take the
		// process down. Nothing a program does should reach it.
		if r := recover(); r != nil {
			res.Err = javaErrorf(executionError, noJavaClass, "internal interpreter error: %v", r)
			res.Value = Nil
			res.Memory = env.Prelude
			if res.Memory == nil {
				res.Memory = newMemory()
			}
			res.Defined = nil
			err = nil
		}
		if res.Err != nil {
			prog.fitError(th, res)
		}
		res.Prints = prog.prints
		res.ToolCalls = prog.toolCalls
		res.Steps = th.stepsUsed()
		res.AllocBytes = th.allocatedBytes()
		res.Duration = time.Since(start)
	}()

	th.reuseBuffers()
	value, evalErr := runProgram(th, prog, source, p, env, res)
	if evalErr == nil {
		// A lazy sequence that may end is the list it reads as. A
		// result nested deeper than it may leave with is refused here,
		// before the walk's recursion grows with it.
		limit := env.valueNesting()
		if value, evalErr = realizeEndsWithin(th, value, limit); evalErr == errTooDeep {
			evalErr = tooDeepError("the result", limit)
		}
	}
	th.recycleBuffers()
	var ret *earlyReturn
	var fl *failure
	switch {
	case evalErr == nil:
		res.Value = value
	case errors.As(evalErr, &ret):
		value, err := realizedToEmit(th, ret.value, "the result", env.valueNesting())
		if err != nil {
			res.Value, res.Err = Nil, asError(err)
			return res, nil
		}
		res.Value = value
		res.Returned = true
	case errors.As(evalErr, &fl):
		reason, err := realizedToEmit(th, fl.reason, "the fail reason", env.valueNesting())
		if err != nil {
			res.Value, res.Err = Nil, asError(err)
			return res, nil
		}
		fl.reason = reason
		if err := prog.checkEmitted(th, "the fail reason", fl.reason, env.Prelude); err != nil {
			res.Value, res.Err = Nil, err
			return res, nil
		}
		// The reason travels back as the turn's result: held to what a
		// result is held to, or the caller could not send the turn back.
		if err := checkSentKind("the fail reason", fl.reason); err != nil {
			res.Value, res.Err = Nil, err
			return res, nil
		}
		if err := prog.checkSentParts("the fail reason", fl.reason, prog.resultNoText, prog.resultPrinted); err != nil {
			res.Value, res.Err = Nil, err
			return res, nil
		}
		if limit := env.valueNesting(); nestsDeeper(fl.reason, limit) {
			res.Value, res.Err = Nil, tooDeepError("the fail reason", limit)
			return res, nil
		}
		res.Value, res.ValueText, res.ValueJSON = fl.reason, prog.emittedText, prog.emittedJSON
		res.Failed = true
		res.Err = Errorf(fail, "%s", failMessage(fl.reason))
		return res, nil
	case errors.Is(evalErr, ErrSuspend):
		res.Value = Nil
		return res, evalErr
	default:
		res.Value = Nil
		res.Err = asError(evalErr)
		return res, nil
	}
	// The size first: it bounds the walk that measures the nesting.
	mem := prog.commit(env.Prelude)
	if err := prog.checkEmitted(th, "the result", res.Value, mem); err != nil {
		res.Value, res.Returned, res.Err = Nil, false, err
		return res, nil
	}
	if err := checkResultKind(res.Value); err != nil {
		res.Value, res.Returned, res.Err = Nil, false, err
		return res, nil
	}
	if err := prog.checkResultParts(res.Value); err != nil {
		res.Value, res.Returned, res.Err = Nil, false, err
		return res, nil
	}
	if err := prog.checkNesting(res.Value); err != nil {
		res.Value, res.Returned, res.Err = Nil, false, err
		return res, nil
	}
	res.ValueText, res.ValueJSON = prog.emittedText, prog.emittedJSON
	res.Memory = mem
	res.Defined = prog.definedNames()
	return res, nil
}

// checkResultParts refuses a result holding, at any depth, a part that has
// no wire text (an atom, a reduced marker, a function a builtin built
// without source): it would print as #<...>, which nothing reads back.
// A definition holding one is refused likewise. The emit check found
// it as it printed the result, when it did.
func (p *progState) checkResultParts(v Value) *Error {
	return p.checkSentParts("the result", v, p.resultNoText, p.resultPrinted)
}

// checkSentParts is checkResultParts of anything a turn sends back, named
// what (a fail reason, a tool call's arguments): noText is the first part
// without a wire text the emit check found when printed says it printed
// v; else v is walked for one.
func (p *progState) checkSentParts(what string, v, noText Value, printed bool) *Error {
	bad := noText
	if !printed {
		bad, _, _, _ = definable(nil, v, p.env.valueNesting())
	}
	if bad == nil {
		return nil
	}
	part := withArticle(bad.TypeName())
	if b, ok := bad.(*Builtin); ok {
		part = "a function built by " + b.Name
	}
	hint := "return plain data taken out of it: @a for an atom, the value for (reduced x), a function defined with fn"
	if _, ok := bad.(*transient); ok {
		hint = "return the value the transient holds: (persistent! t)"
	}
	holds := "holds"
	if namesPlural(what) {
		holds = "hold"
	}
	return Errorf(validationError, "%s %s %s, which has no text it could be sent back as", what, holds, part).
		WithHint("%s", hint)
}

// checkNesting refuses a result or definition the wire could not carry
// back (see nestsDeeper).
func (p *progState) checkNesting(result Value) *Error {
	if p.emitChecked {
		return nil // checkEmitted measured them as it printed them
	}
	limit := p.env.valueNesting()
	if nestsDeeper(result, limit) {
		return tooDeepError("the result", limit)
	}
	for _, g := range p.globals {
		if g.changed && !g.shallow && nestsDeeper(g.binding.Value, limit) {
			return tooDeepError("the value of "+g.binding.Name, limit)
		}
	}
	return nil
}

func runProgram(th *Thread, prog *progState, source string, p *Program, env Env, res *Result) (Value, error) {
	p, err := readUnder(th, source, p, env)
	if err != nil {
		return nil, err
	}
	read := p.read
	res.Warnings = read.warnings
	prog.warnBytes = warningBytes(read.warnings)
	forms, reach, err := expandMultimethods(th, read.forms)
	if err != nil {
		return nil, err
	}
	starts := read.starts
	user, prelude, defined := map[string]bool{}, map[string]bool{}, map[string]bool{}
	if env.Prelude != nil {
		for _, b := range env.Prelude.bindings {
			user[b.Name], prelude[b.Name] = true, true
		}
	}
	definedNames(forms, defined)
	for name := range defined {
		user[name] = true
	}
	known := &names{user: user, prelude: prelude, tools: prog.tools, data: env.Data}
	var cp *compiledProgram
	if p != nil {
		if last := p.compiled.Load(); last != nil && known.answersAlike(last.asked) {
			cp = last
		}
	}
	if cp == nil {
		before, allocBefore := th.stepsUsed(), th.allocatedBytes()
		c := newCompiler(known, th, env.MaxNesting)
		c.pending = defined
		c.freeWalks = len(source)
		cp = &compiledProgram{nodes: make([]node, len(forms))}
		released := 0 // the forms before it have had their names released
		for i, f := range forms {
			if reach != nil && reach[i] > i {
				// A defmulti's function holds the methods below it, which
				// may call what the forms between them define. The forms
				// an earlier defmulti reached past i are released already:
				// each form is walked once, however many defmultis reach
				// over it.
				between := map[string]bool{}
				from := max(i+1, released)
				if from <= reach[i] {
					definedNames(read.forms[from:reach[i]+1], between)
					released = reach[i] + 1
				}
				for name := range between {
					delete(c.pending, name)
				}
			}
			c.pos = starts[i]
			if cp.nodes[i], err = c.compile(f, false); err != nil {
				return nil, err
			}
		}
		cp.nslots, cp.asked, cp.steps, cp.warnings = c.fn.nslots, known.asked, th.stepsUsed()-before, c.allWarnings()
		cp.alloc = th.allocatedBytes() - allocBefore
		if p != nil {
			p.compiled.Store(cp)
		}
	} else if err := th.step(cp.steps); err != nil {
		return nil, err
	} else if err := th.alloc(cp.alloc); err != nil {
		return nil, err
	}
	if len(cp.warnings) > 0 {
		res.Warnings = append(slices.Clip(res.Warnings), cp.warnings...)
		prog.warnBytes += warningBytes(cp.warnings)
	}
	fr := &frame{slots: make([]Value, cp.nslots)}
	var v Value = Nil
	for _, n := range cp.nodes {
		if v, err = n.eval(th, fr); err != nil {
			return nil, err
		}
	}
	if n := prog.runWarningsLeftOut; n > 0 {
		w := Warning{Type: WarningEvaluationOnly, Message: strconv.Itoa(n) +
			" more warnings of definitions made while running were left out after the first " + strconv.Itoa(maxWarnings)}
		prog.runWarnings = append(prog.runWarnings, w)
		prog.warnBytes += warningBytes([]Warning{w})
	}
	if len(prog.runWarnings) > 0 {
		res.Warnings = append(slices.Clip(res.Warnings), prog.runWarnings...)
	}
	return v, nil
}

// readUnder returns p, or the program of source that env.Programs keeps,
// charged to th as its reading was, or else reads source under th and
// keeps what it read, from a copy of source, in env.Programs.
func readUnder(th *Thread, source string, p *Program, env Env) (*Program, error) {
	if p == nil && env.Programs != nil {
		p = env.Programs.Program(source, env.MaxNesting)
	}
	if p != nil {
		return p, th.step(p.read.count * readFormSteps)
	}
	if env.Programs != nil {
		// What is kept holds its own bytes: the source may be cut from a
		// far larger text (a program in a raw response), which the kept
		// Program and every text read from it would otherwise hold.
		source = strings.Clone(source)
	}
	read, err := readProgram(source, env.MaxNesting, th)
	if err != nil {
		return nil, err
	}
	p = &Program{source: source, maxNesting: env.MaxNesting, read: read}
	if env.Programs != nil {
		env.Programs.Keep(source, env.MaxNesting, p)
	}
	return p, nil
}

// progState is what one evaluation accumulates besides its value.
type progState struct {
	env Env
	// emittedText and emittedJSON are the text and JSON of the result or
	// fail reason checkEmitted printed, which the host sends rather than
	// printing it again; resultNoText is its first part without a wire
	// text, resultPrinted that it was printed.
	emittedText   string
	emittedJSON   string
	resultNoText  Value
	resultPrinted bool
	// emitChecked records that checkEmitted printed the result and every
	// binding this turn changed, within the nesting limit.
	emitChecked bool
	tools       map[string]bool
	data        *Map
	previous    []Value
	globals     map[string]*global
	// runWarnings are the warnings of what the program did as it ran
	// (a def of a value that holds an atom), after the analysis's.
	runWarnings []Warning
	// ordersAsked are the hash maps and sets whose kept order this
	// evaluation was charged for (chargeKeptOrder).
	ordersAsked map[Value]bool
	// hierarchy is the global hierarchy derive builds (builtins_hierarchy.go), nil while empty.
	hierarchy *Map
	// lastName and lastCell remember the global looked up last: a
	// recursive function finds itself on every call. Cells are never
	// removed from globals, so a remembered one stays valid.
	lastName string
	lastCell *global
	// retClosure and retCell remember the closure whose return was noted
	// last and its global (nil when it has none); define forgets them.
	retClosure *closure
	retCell    *global
	order      []*global // new definitions, in order of first definition
	defined    []string
	prints     []string
	outBytes   int
	// capture, while with-out-str runs, takes what prints would output.
	capture *strings.Builder
	// memo holds the caches of memoized functions, by function.
	memo map[*byte]map[any]Value
	// emittedArgs is the printed size of the tool calls' arguments so far,
	// EDN and JSON.
	emittedArgs int64
	// warnBytes is the size of the turn's warnings so far, and
	// runWarningsLeftOut how many warnings made while running were past
	// maxWarnings.
	warnBytes          int64
	runWarningsLeftOut int

	toolCalls []ToolCallRecord
	// clock is the evaluation's timeout, paused during tool calls; nil
	// without one.
	clock *evalClock
}

// global is a user definition during an evaluation.
type global struct {
	binding Binding
	bound   bool
	changed bool // defined or called this turn
	// shallow says the value was found to nest within the program's
	// limit when it was defined, so checkNesting need not walk it again.
	shallow bool
	// evaluationOnly: (def name (atom ...)), which the program uses while
	// it runs and memory does not keep (an atom lives one evaluation).
	evaluationOnly bool
	// attrs is the metadata the definition was written with (^:private,
	// ^{...}, defn's attribute map), and meta what alter-meta! or
	// reset-meta! set when metaSet (meta.go: varMeta); both live with
	// this evaluation.
	attrs   *Map
	meta    *Map
	metaSet bool
	// definedAt is the position, from 1, of this name's entry in the
	// program's defined names; 0 while it is not among them.
	definedAt int
}

func newProgState(env Env) *progState {
	p := &progState{env: env, tools: map[string]bool{}, data: env.Data, previous: env.PreviousResults,
		globals: map[string]*global{}}
	for _, t := range env.Tools {
		p.tools[t] = true
	}
	if env.Prelude != nil {
		for _, b := range env.Prelude.bindings {
			p.globals[b.Name] = &global{binding: *b, bound: true}
		}
	}
	return p
}

func (p *progState) isDefined(name string) bool {
	g, ok := p.cell(name)
	return ok && g.bound
}

// cell returns the global called name, if the evaluation has one.
func (p *progState) cell(name string) (*global, bool) {
	if p.lastCell != nil && p.lastName == name {
		return p.lastCell, true
	}
	g, ok := p.globals[name]
	if ok {
		p.lastName, p.lastCell = name, g
	}
	return g, ok
}

func (p *progState) lookupGlobal(name string) (Value, error) {
	if g, ok := p.cell(name); ok && g.bound {
		return g.binding.Value, nil
	}
	isTool := p.tools[name]
	_, isData := lookupFlexible(p.data, Keyword(name))
	switch {
	case isTool && isData:
		return nil, Errorf(ambiguousReference, "%s is both a tool and a data key", name).
			WithHint("write tool/%s to call the tool or data/%s to read the data", name, name)
	case isTool:
		return &toolFunc{Name: name}, nil
	case isData:
		return p.dataValue(name), nil
	}
	return nil, Errorf(undefinedSymbol, "%s is used before it is defined", name).
		WithHint("define %s with def or defn before the code that uses it runs", name)
}

func (p *progState) dataValue(key string) Value {
	v, _ := lookupFlexible(p.data, Keyword(key))
	return v
}

func (p *progState) define(name string, v Value, doc string, shallow bool) {
	g, ok := p.globals[name]
	if !ok {
		g = &global{}
		p.globals[name] = g
		p.order = append(p.order, g)
	}
	p.retClosure, p.retCell = nil, nil
	g.binding = Binding{Name: name, Value: v, Docstring: doc, Turn: p.env.TurnNumber}
	g.bound, g.changed, g.shallow, g.evaluationOnly = true, true, shallow, false
	g.attrs, g.meta, g.metaSet = nil, nil, false
	if g.definedAt == 0 {
		p.defined = append(p.defined, name)
		g.definedAt = len(p.defined)
	}
}

// definedNames are the names the program defined, in the order of their
// latest first definition: each is the entry of p.defined its global
// points at, so that defining a name costs the same however many were
// defined before it.
func (p *progState) definedNames() []string {
	names := make([]string, 0, len(p.defined))
	for i, name := range p.defined {
		if p.globals[name].definedAt == i+1 {
			names = append(names, name)
		}
	}
	return names
}

// defineForEvaluation binds name to an atom for the rest of this
// evaluation only: the program's functions reach it by name while it
// runs, and commit leaves it out of memory (the prelude's binding of the
// name, if any, is kept), so it is not among the names defined.
func (p *progState) defineForEvaluation(name string, v Value, doc string) {
	p.define(name, v, doc, true)
	g := p.globals[name]
	g.evaluationOnly = true
	g.definedAt = 0 // its entry in p.defined no longer counts
}

// noteReturn records the type of a user function's latest return value.
func (p *progState) noteReturn(c *closure, v Value) {
	if c != p.retClosure {
		p.retClosure, p.retCell = c, p.globals[c.name]
	}
	g := p.retCell
	if g == nil || g.binding.Value != c {
		return
	}
	if !hasTypeLabel(v, g.binding.ReturnType) {
		g.binding.ReturnType = TypeLabel(v)
		g.changed = true
	}
}

// hasTypeLabel reports whether TypeLabel(v) is label, without building the
// label of a collection: a function that returns one on every call would
// otherwise allocate its label each time.
func hasTypeLabel(v Value, label string) bool {
	var prefix string
	var n int
	switch c := v.(type) {
	case *Vector:
		prefix, n = "list[", c.Len()
	case *Map:
		prefix, n = "map[", c.Len()
	case *Set:
		prefix, n = "set[", c.Len()
	default:
		return TypeLabel(v) == label
	}
	rest, ok := strings.CutPrefix(label, prefix)
	if !ok || len(rest) < 2 || rest[len(rest)-1] != ']' {
		return false
	}
	digits := rest[:len(rest)-1]
	var buf [20]byte
	return string(strconv.AppendInt(buf[:0], int64(n), 10)) == digits
}

// output writes what a print function printed: a line of the turn's
// output, or text for with-out-str (newline says whether the function
// ends it with one, as println does and print does not). The text was
// charged as it was written; with-out-str's copy of it is charged too.
func (p *progState) output(th *Thread, text string, newline bool) error {
	if p.capture == nil {
		return p.print(th, text)
	}
	if err := th.allocString(len(text) + 1); err != nil {
		return err
	}
	if max := th.limits.MaxOutputBytes; max > 0 && p.capture.Len()+len(text) > max {
		return Errorf(outputLimit, "output limit of %d bytes exceeded in with-out-str", max).
			WithHint("print less inside with-out-str")
	}
	p.capture.WriteString(text)
	if newline {
		p.capture.WriteByte('\n')
	}
	return nil
}

// outputUsed is how much of the output budget is spent: the turn's
// output, or inside with-out-str what it captured.
func (p *progState) outputUsed() int {
	if p.capture != nil {
		return p.capture.Len()
	}
	return p.outBytes
}

// print records a line of output. Its bytes were charged as the line was
// written (textWriter); the line itself costs heapPrintLine.
func (p *progState) print(th *Thread, line string) error {
	max := th.limits.MaxOutputBytes
	if max > 0 && p.outBytes+len(line) > max {
		return outputLimitError(max)
	}
	if err := th.alloc(heapPrintLine); err != nil {
		return err
	}
	p.outBytes += len(line)
	p.prints = append(p.prints, line)
	return nil
}

// minErrorText is the room an error's message and hint always have,
// whatever the turn emitted before it failed.
const minErrorText = 256

// fitError cuts the message and hint of a failed turn's error to what is
// left of the emit limit once its prints, tool-call arguments and (for
// fail) its reason are counted: the error travels back with the turn. The
// messages the interpreter writes show values cut short (shown), but a
// name or a fail reason may be long.
func (p *progState) fitError(th *Thread, res *Result) {
	limit := th.limits.MaxEmitBytes
	if limit <= 0 {
		return
	}
	used := p.emitUsed()
	switch {
	case res.Failed && res.ValueText != "":
		// Printed and charged already; the reason goes back as its wire
		// text and its JSON both, so the message's room is what they
		// leave (counting the text alone let a 1 MB reason go back three
		// times, 3 MB against the 2 MiB limit).
		used += int64(len(res.ValueText) + len(res.ValueJSON))
	case res.Failed:
		n, _ := printedSize(res.Value, limit, p.env.valueNesting())
		used += n
	}
	room := max(limit-used, minErrorText)
	e := res.Err
	if int64(len(e.Message)+len(e.Hint)) <= room {
		return
	}
	e.Hint = cutText(e.Hint, room/4)
	e.Message = cutText(e.Message, room-int64(len(e.Hint)))
}

// cutText is s cut to at most n bytes, with "..." in the place of what
// was cut, on a character boundary.
func cutText(s string, n int64) string {
	if int64(len(s)) <= n {
		return s
	}
	cut := int(max(n-3, 0))
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// outputLimitError is the failure of a print past the output limit.
func outputLimitError(max int) *Error {
	return Errorf(outputLimit, "output limit of %d bytes exceeded by println", max).
		WithHint("print less: summarize with count, take or select-keys instead of printing whole collections")
}

func (p *progState) callTool(th *Thread, name string, args Value) (Value, error) {
	max := th.limits.MaxToolCalls
	if max > 0 && len(p.toolCalls) >= max {
		return nil, Errorf(ToolCallLimit, "tool call limit of %d exceeded (calling tool/%s)", max, name).
			WithHint("make fewer tool calls per program: batch requests or filter before calling")
	}
	if err := th.alloc(heapToolCall); err != nil {
		return nil, err
	}
	// A lazy sequence the arguments hold goes as the list it reads as, as
	// one the result holds does: the caller echoes the arguments back, and
	// a lazy sequence's source is no value a tool takes.
	args, err := realizedToEmit(th, args, "the arguments of tool/"+name, p.env.valueNesting())
	if err != nil {
		return nil, err
	}
	// The size first: it bounds the walk that measures the nesting.
	text, json, noText, bad := p.checkEmitArgs(th, name, args)
	if bad != nil {
		return nil, bad
	}
	// The caller echoes the arguments back with the tool's answer: what
	// has no text that reads back would stop the run there.
	if bad := checkSentKind("the arguments of tool/"+name, args); bad != nil {
		return nil, bad
	}
	if bad := p.checkSentParts("the arguments of tool/"+name, args, noText, true); bad != nil {
		return nil, bad
	}
	if limit := p.env.valueNesting(); nestsDeeper(args, limit) {
		return nil, tooDeepError("the arguments of tool/"+name, limit)
	}
	rec := ToolCallRecord{Index: len(p.toolCalls), Name: name, Args: args, ArgsText: text, ArgsJSON: json}
	if p.env.Host == nil {
		rec.Err = "no tool host"
		p.toolCalls = append(p.toolCalls, rec)
		return nil, Errorf(toolError, "tool/%s cannot be called: no tools are available", name)
	}
	start := time.Now()
	v, err := p.hostCall(th, rec)
	rec.Duration = time.Since(start)
	if errors.Is(err, ErrSuspend) {
		p.toolCalls = append(p.toolCalls, rec)
		return nil, err
	}
	if err != nil {
		// The host's error text is the caller's (a tool's error answer);
		// anything else becomes an error written for the LLM.
		var failed *Error
		switch ctxErr := th.context().Err(); {
		case ctxErr != nil:
			failed = th.contextError(ctxErr)
		case errors.As(err, &failed): // the host's own, such as a tool that did not answer in time
		default:
			rec.Err = err.Error()
			failed = Errorf(toolError, "tool/%s failed: %s", name, err.Error()).
				WithHint("check the arguments against the tool's signature, or try another approach")
		}
		if rec.Err == "" {
			rec.Err = failed.Message
		}
		p.toolCalls = append(p.toolCalls, rec)
		return nil, failed
	}
	if v == nil {
		v = Nil
	}
	// The turn sends the answer back in its record, in its wire text,
	// which may be denser than the text it came in (a pretty-printed
	// answer): one the reader would refuse is a failed call, not a turn
	// that no later call takes back.
	if bad := readsBack(v, p.env.valueNesting(), "the answer of tool/"+name); bad != nil {
		failed := Errorf(toolError, "%s", bad.Message).
			WithHint("ask the tool for less, or for its data in another shape: %s", bad.Hint)
		rec.Err = failed.Message
		p.toolCalls = append(p.toolCalls, rec)
		return nil, failed
	}
	rec.Result = v
	p.toolCalls = append(p.toolCalls, rec)
	return v, nil
}

// hostCall runs a tool on the host with the evaluation's clock stopped:
// the time a tool takes is bounded by the host, not by Limits.Timeout.
func (p *progState) hostCall(th *Thread, call ToolCallRecord) (Value, error) {
	if p.clock != nil {
		p.clock.pause()
		defer p.clock.resume()
	}
	if printed, ok := p.env.Host.(PrintedArgsHost); ok {
		return printed.CallToolPrinted(th.context(), call)
	}
	return p.env.Host.CallTool(th.context(), call.Name, call.Args)
}

// commit builds the memory after a successful program: the prelude's
// bindings in their places with this turn's changes, then new names in
// order of first definition.
func (p *progState) commit(prelude *Memory) *Memory {
	m := newMemory()
	if prelude != nil {
		for _, b := range prelude.bindings {
			g := p.globals[b.Name]
			if g.changed && !g.evaluationOnly {
				m.put(g.binding)
			} else {
				m.put(*b)
			}
		}
	}
	for _, g := range p.order {
		if !g.evaluationOnly {
			m.put(g.binding)
		}
	}
	return m
}

// addRunWarning records a warning of what the program did as it ran. Each
// goes back in the turn and counts against the emit limit: like the
// analysis's, at most maxWarnings are kept, each cut to maxWarningBytes,
// and the rest are counted in one last warning. (A loop of definitions
// of atoms wrote one for each pass, megabytes of them with long names.)
func (p *progState) addRunWarning(w Warning) {
	if len(p.runWarnings) >= maxWarnings {
		p.runWarningsLeftOut++
		return
	}
	w.Message = cutText(w.Message, maxWarningBytes)
	p.runWarnings = append(p.runWarnings, w)
	p.warnBytes += warningBytes([]Warning{w})
}

// warningBytes is what ws take in the turn.
func warningBytes(ws []Warning) int64 {
	var n int64
	for _, w := range ws {
		n += int64(len(w.Type) + len(w.Message))
	}
	return n
}
