package lisp

import (
	"context"
	"math"
	"sync"
	"time"
)

// Limits are the sandbox budgets of one evaluation. Steps and allocation are
// counted, not timed, so a replayed evaluation stops at exactly the same point;
// Timeout is only a wall-clock backstop.
//
// A zero field means the default (DefaultLimits), whatever the other fields
// hold: Limits{MaxSteps: 10} changes the step budget and keeps every other.
// Unlimited asks for no limit on a resource; MaxDepth cannot be unlimited,
// and Unlimited there means MaxCallDepth.
type Limits struct {
	MaxSteps       int64 // evaluation steps (calls, loop iterations, elements visited)
	MaxAllocBytes  int64 // bytes charged for strings and collections built
	MaxDepth       int   // nested function calls, at most MaxCallDepth
	MaxOutputBytes int   // total println output
	MaxToolCalls   int   // tool calls per evaluation
	// MaxEmitBytes bounds the printed size of what the turn sends back
	// (result, memory, tool-call arguments, prints), shared structure
	// counted as printed, so that the caller can receive it and send the
	// memory back. Unlimited lifts the bound, not the check that what the
	// turn sends reads back.
	MaxEmitBytes int64
	Timeout      time.Duration // wall-clock backstop on the evaluation's own time; tool calls do not count
}

// Unlimited, as the value of a Limits field, lifts that limit. Any negative
// value does the same; this is its name.
const Unlimited = -1

// DefaultLimits are the budgets used for the fields the host leaves zero.
func DefaultLimits() Limits {
	return Limits{
		MaxSteps:       1_000_000,
		MaxAllocBytes:  10 << 20,
		MaxDepth:       200,
		MaxOutputBytes: 64 << 10,
		MaxToolCalls:   50,
		MaxEmitBytes:   2 << 20,
		Timeout:        5 * time.Second,
	}
}

// WithDefaults returns l with its zero fields set to DefaultLimits', every
// negative field set to Unlimited and MaxDepth brought within
// [1, MaxCallDepth]: the budgets an evaluation under l runs with.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	l.MaxSteps = resolveLimit(l.MaxSteps, d.MaxSteps)
	l.MaxAllocBytes = resolveLimit(l.MaxAllocBytes, d.MaxAllocBytes)
	l.MaxOutputBytes = resolveLimit(l.MaxOutputBytes, d.MaxOutputBytes)
	l.MaxToolCalls = resolveLimit(l.MaxToolCalls, d.MaxToolCalls)
	l.MaxEmitBytes = resolveLimit(l.MaxEmitBytes, d.MaxEmitBytes)
	l.Timeout = resolveLimit(l.Timeout, d.Timeout)
	switch depth := resolveLimit(l.MaxDepth, d.MaxDepth); {
	case depth < 0, depth > MaxCallDepth:
		l.MaxDepth = MaxCallDepth
	default:
		l.MaxDepth = depth
	}
	return l
}

// resolveLimit is the rule of a Limits field: zero is the default, a
// negative value is Unlimited.
func resolveLimit[T ~int | ~int64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return Unlimited
	}
	return v
}

// ctxCheckInterval is how many steps pass between looks at the context; a
// look is cheap but not free, and a step is far cheaper.
const ctxCheckInterval = 1024

// Thread is the state of one evaluation: its budgets and what it has used.
// A Thread is not safe for concurrent use; each evaluation has its own.
type Thread struct {
	ctx       context.Context
	limits    Limits
	steps     int64
	stepCheck int64 // see step
	allocated int64
	depth     int

	// prog is the program-level state of the evaluation (user definitions,
	// prints, tool calls); nil for a thread that only runs builtins.
	prog *progState
	// recurArgs carries the values of a recur to its loop or function.
	recurArgs []Value
	// scratch holds the arguments of calls to builtins that only read them
	// during the call (see Builtin.borrows), so such calls allocate no slice.
	scratch []Value
	// frames are the frames of returned closure calls, for reuse.
	frames []*frame
	// decimals is the precision with-precision gives decimal arithmetic
	// within its body; nil outside one.
	decimals *mathContext
	// printMeta is *print-meta*, true within (binding [*print-meta* true]
	// ...): pr-str, prn and str print a value's metadata before it.
	printMeta bool
	// plainMaps is *print-namespace-maps* bound false: a map whose keys
	// share a namespace prints whole, {:a/b 1}, not #:a{:b 1}.
	plainMaps bool
	// lazy is what this evaluation realized of lazy sequences (lazyseq.go).
	lazy map[*infiniteSeq]*seqMemo
	// walks names this evaluation as the owner of the walks of sequences
	// it makes by rest, next and drop (seqwalk.go); nil until it makes one.
	walks *walkOwner
	// multis are the method tables of the multimethods this evaluation
	// defined, by name (multimethods_introspect.go).
	multis map[string]*multiTable
}

// mathContext is the precision decimal arithmetic rounds to, nil when it
// is exact.
func (th *Thread) mathContext() *mathContext {
	if th == nil {
		return nil
	}
	return th.decimals
}

// threadBuffers are a thread's scratch stack and free frames, which
// evaluations pass on to the next through bufferPool: they grow to what a
// program needs, and a new evaluation need not grow them again.
type threadBuffers struct {
	scratch []Value
	frames  []*frame
}

var bufferPool sync.Pool // of *threadBuffers

// maxPooledScratch and maxPooledFrames bound what is kept between
// evaluations, so that one large or deeply recursive program does not pin
// its memory for good.
const (
	maxPooledScratch = 1 << 16
	maxPooledFrames  = 256
)

// reuseBuffers gives th the buffers of an earlier evaluation, if any.
func (th *Thread) reuseBuffers() {
	if b, ok := bufferPool.Get().(*threadBuffers); ok {
		th.scratch, th.frames = b.scratch, b.frames
		b.scratch, b.frames = nil, nil
	}
}

// recycleBuffers hands th's buffers on once its evaluation has ended
// normally (a panic may leave values on them). Both hold no values: the
// scratch stack is empty and free frames are cleared.
func (th *Thread) recycleBuffers() {
	if len(th.scratch) != 0 || cap(th.scratch) > maxPooledScratch {
		return
	}
	frames := th.frames
	if len(frames) > maxPooledFrames {
		clear(frames[maxPooledFrames:])
		frames = frames[:maxPooledFrames]
	}
	bufferPool.Put(&threadBuffers{scratch: th.scratch, frames: frames})
	th.scratch, th.frames = nil, nil
}

// takeFrame returns an empty frame of nslots slots for a closure call; the
// caller gives it back with releaseFrame when the call returns.
func (th *Thread) takeFrame(nslots int, free []Value) *frame {
	n := len(th.frames)
	if n == 0 {
		return newFrame(nslots, free)
	}
	fr := th.frames[n-1]
	th.frames = th.frames[:n-1]
	fr.reset(nslots, free)
	return fr
}

// releaseFrame puts fr back on the free list, letting go of its values.
func (th *Thread) releaseFrame(fr *frame) {
	for i := len(fr.slots) - 1; i >= 0; i-- { // not range: that compiles to a memclr call
		fr.slots[i] = nil
	}
	fr.slots, fr.free = nil, nil
	th.frames = append(th.frames, fr)
}

// newThread returns a thread bound to ctx with the given limits, zero
// fields meaning the default (see Limits).
func newThread(ctx context.Context, limits Limits) *Thread {
	th := &Thread{ctx: ctx, limits: limits.WithDefaults()}
	th.setStepCheck()
	return th
}

// MaxCallDepth is the ceiling on Limits.MaxDepth. Each PTC-Lisp call nests a
// few Go calls, and Go aborts the whole process when a goroutine's stack
// outgrows its limit, so the depth budget can never be unbounded.
const MaxCallDepth = 10_000

// context is the evaluation's context, passed on to host calls.
func (th *Thread) context() context.Context { return th.ctx }

// limitsInUse returns the thread's budgets, defaults filled in.
func (th *Thread) limitsInUse() Limits { return th.limits }

// stepsUsed is the number of steps charged so far.
func (th *Thread) stepsUsed() int64 { return th.steps }

// allocatedBytes is the number of bytes charged so far.
func (th *Thread) allocatedBytes() int64 { return th.allocated }

// step charges n evaluation steps. Builtins that visit k elements charge k.
func (th *Thread) step(n int64) error {
	// The common case, small enough to inline: no budget or context check
	// falls due before stepCheck.
	if s := th.steps + n; s < th.stepCheck {
		th.steps = s
		return nil
	}
	return th.stepChecked(n)
}

// maxStepsAtOnce is the most one operation that cannot be interrupted
// may count (stepAtOnce, and a regex match: maxMatchWork): the default
// step budget, at most 0.12 s of CPU (BenchmarkCalibration).
const maxStepsAtOnce = 1_000_000

// stepAtOnce charges n steps for work done in one Go call that looks at
// neither the clock nor the context until it returns: arithmetic,
// conversion and primality tests of big integers and decimals. The
// deadline is seen only between such calls, so one of them is refused
// when it alone would count more than maxStepsAtOnce, however high the
// step limit or with none: lifting the limit lets a program make more of
// these calls, never a longer one. (With no step limit, a primality test
// of a 160,000-bit integer ran for hours past a 300 ms timeout, and a
// gcd of two million-digit ones for 9 s.) When the step limit refuses
// the charge anyway, its error is the one reported, as before.
func (th *Thread) stepAtOnce(n int64) error {
	// Refused here only where the step limit would let the charge through:
	// there is none (MaxSteps <= 0), or the steps left cover it.
	if n > maxStepsAtOnce && (th.limits.MaxSteps <= 0 || th.steps <= th.limits.MaxSteps-n) {
		return Errorf(stepLimit, "one operation would count %d steps, more than the %d any single operation may take (once started, it cannot be stopped)", n, maxStepsAtOnce).
			WithHint("the numbers are too large for one operation; work with fewer digits")
	}
	return th.step(n)
}

// stepChecked is step when the charge may pass the budget or reach the
// next look at the context; it then moves stepCheck to the next of those.
func (th *Thread) stepChecked(n int64) error {
	before := th.steps
	th.steps += n
	if th.limits.MaxSteps > 0 && th.steps > th.limits.MaxSteps {
		th.steps = th.limits.MaxSteps + 1 // a refused charge is not work done
		th.stepCheck = 0
		return Errorf(stepLimit, "step limit of %d exceeded", th.limits.MaxSteps).
			WithHint("the program does too much work; process less data per turn or avoid unbounded loops")
	}
	th.setStepCheck()
	if before/ctxCheckInterval != th.steps/ctxCheckInterval {
		if err := th.ctx.Err(); err != nil {
			return th.contextError(err)
		}
	}
	return nil
}

// setStepCheck sets stepCheck to the step count at which step must next
// look at the budget or the context: the next multiple of
// ctxCheckInterval, or the first step past the budget if that comes
// sooner.
func (th *Thread) setStepCheck() {
	next := (th.steps/ctxCheckInterval + 1) * ctxCheckInterval
	if th.steps < 0 {
		next = 0 // only a negative charge gets here; stay on the checked path
	}
	if max := th.limits.MaxSteps; max > 0 && max+1 < next {
		next = max + 1
	}
	th.stepCheck = next
}

// alloc charges n bytes of newly built strings or collections.
func (th *Thread) alloc(n int64) error {
	switch {
	case n < 0: // no charge gives budget back
		n = 0
	case n > maxCharge:
		n = maxCharge
	}
	th.allocated += n
	if th.limits.MaxAllocBytes > 0 && th.allocated > th.limits.MaxAllocBytes {
		th.allocated = th.limits.MaxAllocBytes + 1 // a refused charge allocates nothing
		return Errorf(memoryLimit, "memory limit of %d bytes exceeded", th.limits.MaxAllocBytes).
			WithHint("the program builds too much data; take or filter before building large strings or collections")
	}
	return nil
}

func (th *Thread) contextError(err error) *Error {
	if err == context.DeadlineExceeded {
		return Errorf(timeout, "evaluation timed out after %s of its own time (waiting for tools does not count)", th.limits.Timeout).
			WithHint("the program took too long; do less work per turn")
	}
	// The caller went away or the server is stopping: no one reads the
	// turn, but it must still not carry Go's error text.
	return Errorf(timeout, "evaluation cancelled before it finished: the request was cancelled").
		WithHint("run the program again")
}

// call applies f to args with depth accounting. Builtins that take functions
// (map, filter, reduce, sort-by, ...) call back through here.
func (th *Thread) call(f Value, args []Value) (Value, error) {
	var c Callable
	switch f := f.(type) {
	case *closure: // the common cases, without looking up an interface
		c = f
	case *Builtin:
		c = f
	default:
		var ok bool
		if s, isSym := f.(symbol); isSym {
			c = symbolLookup{s}
		} else if c, ok = f.(Callable); !ok {
			e := javaErrorf(typeError, "ClassCastException", "%s is not a function", f.TypeName()).
				WithHint("only functions, keywords, maps and sets can be called")
			if f == Nil {
				return nil, e.asJava("NullPointerException", "")
			}
			return nil, e.asJava("ClassCastException", javaCastMessage(javaValueClass(f), "clojure.lang.IFn"))
		}
	}
	if err := th.enterCall(); err != nil {
		return nil, err
	}
	th.depth++
	v, err := c.Call(th, args)
	th.depth--
	return v, err
}

// callClosure is Call for a closure. closure.Call keeps no part of its
// argument slice, so a caller's args may live on the Go stack.
func (th *Thread) callClosure(c *closure, args []Value) (Value, error) {
	if err := th.enterCall(); err != nil {
		return nil, err
	}
	th.depth++
	v, err := c.Call(th, args)
	th.depth--
	return v, err
}

// callBorrowed calls f with a copy of args on the scratch stack, so that
// args itself need not escape to the heap. Only for an f that keeps no part
// of its argument slice: the builtins whose rows say borrows read theirs and run no
// program code; a closure copies its arguments into its frame before its
// body runs, so the stack moving later (a nested call growing it) does no
// harm; a keyword returns a value, never the slice.
func (th *Thread) callBorrowed(f Value, args []Value) (Value, error) {
	base := len(th.scratch)
	th.scratch = append(th.scratch, args...)
	v, err := th.call(f, th.scratch[base:len(th.scratch):len(th.scratch)])
	th.popScratch(base)
	return v, err
}

// popCollected pops the values pushed on the scratch stack above base and
// returns them in a new slice of their exact length (nil for none).
func (th *Thread) popCollected(base int) []Value {
	var out []Value
	if n := len(th.scratch) - base; n > 0 {
		out = make([]Value, n)
		copy(out, th.scratch[base:])
	}
	th.popScratch(base)
	return out
}

// popScratch drops the scratch stack back to base, letting go of the values.
// The stack holds a few values at a time, where a loop beats a memclr call.
func (th *Thread) popScratch(base int) {
	s := th.scratch[base:]
	for i := len(s) - 1; i >= 0; i-- { // not range: that compiles to a memclr call
		s[i] = nil
	}
	th.scratch = th.scratch[:base]
}

// enterCall charges the step of a call and refuses one that would pass
// the depth limit. (newThread makes MaxDepth positive.)
func (th *Thread) enterCall() error {
	if th.steps+1 < th.stepCheck && th.depth < th.limits.MaxDepth {
		th.steps++
		return nil
	}
	return th.enterCallChecked()
}

func (th *Thread) enterCallChecked() error { // outside enterCall, so that it inlines
	if th.depth >= th.limits.MaxDepth {
		return Errorf(depthLimit, "call depth limit of %d exceeded", th.limits.MaxDepth).
			WithHint("recursion is too deep; use loop/recur or a sequence function instead")
	}
	return th.stepChecked(1)
}

// checkWeight refuses a value whose printed size would pass
// maxValueWeight, however little it cost to build by sharing.
func (th *Thread) checkWeight(v Value) error {
	if weightOf(v) <= maxValueWeight {
		return nil
	}
	err := Errorf(memoryLimit, "value too large: it would print as more than %d MB", maxValueWeight>>20)
	switch v.(type) {
	case *closure, *infiniteSeq:
		// A function holds all it captured, and a lazy sequence the
		// functions and sequences it was made from: a recursive sequence
		// whose functions each capture the whole sequence before them
		// doubles at every level (the sieve that captures s for (first s)).
		return err.WithHint("a function keeps each value it captures whole, and a lazy sequence what it is made from; bind only what a function uses before making it: (let [p (first s)] #(zero? (mod %% p))), not #(zero? (mod %% (first s)))")
	}
	return err.WithHint("the program nests shared data exponentially; build only what you need")
}

// maxCharge is the most one charge counts: more than any budget, and
// far enough from the largest int64 that adding it cannot wrap round.
const maxCharge = math.MaxInt64 / 4

// bytesFor is n items of per bytes each, saturating at maxCharge: a count
// a program chose (an index, a size) must not wrap round to a small
// charge, or to a negative one. (nth (range) 4611686018427387904) asked
// for 16 bytes, then for a slice Go could not make.
func bytesFor(per int64, n int) int64 {
	if n <= 0 {
		return 0
	}
	if int64(n) > maxCharge/per {
		return maxCharge
	}
	return per * int64(n)
}

// The charges for what a builtin is about to build, from the one table of
// heap shapes (heap.go).

// allocString charges for a new string of n bytes.
func (th *Thread) allocString(n int) error { return th.alloc(heapString + bytesFor(1, n)) }

// allocVector charges for a new vector of n elements.
func (th *Thread) allocVector(n int) error { return th.alloc(vectorHeap.built(n)) }

// allocSet charges for a new set of n elements.
func (th *Thread) allocSet(n int) error { return th.alloc(setHeap.built(n)) }

// allocClosure charges for a new closure capturing n bindings.
func (th *Thread) allocClosure(n int) error { return th.alloc(heapFunction + bytesFor(heapHeld, n)) }

// allocMap charges for a new map of n entries.
func (th *Thread) allocMap(n int) error { return th.alloc(mapHeap.built(n)) }
