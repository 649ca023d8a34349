package server

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// valueReader reads the values of one request.
//
// A Value's EDN that does not read as EDN is the source of a value EDN
// cannot spell (a function, a regex, a symbol), and reading it runs that
// source in the sandbox, with a step budget in proportion to its text
// (lisp.ReadValue), bounded before it loads as EDN is, by the request's
// counted work (checkSource), and holding no evaluation slot of its own
// (sourceContext). Every value, EDN, JSON or
// source, is bounded by counted work (its read work and read cost,
// counted from the text before it is read, against a budget set by the
// evaluation timeout or the request's bytes), never by a server clock, so
// a request reads to the same answer alone and under load, however slow
// the machine; reading stops early only when the caller goes (its
// cancellation or deadline).
type valueReader struct {
	svc *Service
	ctx context.Context // the request's
	// held reports that the request holds an evaluation slot, and took
	// that admit took it (release gives it back).
	held, took bool
	// sourceFn is sourceContext, bound once: a method value taken for
	// every text read would allocate for each of a memory's bindings.
	sourceFn func() (context.Context, error)
	// cost is what the values read so far cost once read (lisp.ReadCost),
	// at most budget (see sized); budget 0 bounds nothing.
	cost, budget int64
	// readFor is the evaluation timeout that sets the read budget
	// (startReading); 0 when none does. readWall is the time spent
	// reading values and extracting the program so far (counted), what
	// readTime caps by their work.
	readFor, readWall time.Duration
	// workBudget bounds the request's read work: by its bytes
	// (lisp.ReadBounds) from sized on, by its evaluation
	// timeout (readCostPerSecond) from startReading on; 0 bounds nothing.
	// size is the request's bytes that sized it.
	workBudget int64
	size       int
	// numberWork is what reading the texts of the values read so far
	// takes besides what they cost once read (lisp.ReadWork: their
	// tokens, bytes and long numbers), and loading those that are source
	// (lisp.SourceReadWork), in the units of cost.
	numberWork int64
	// text is the text being read, loadedSource set once it is loaded
	// as source (sourceContext).
	text         string
	loadedSource bool
}

// startReading bounds the reading of the request's values by the work
// timeout allows (readCostPerSecond), in place of the request's bytes,
// and never by less than lisp.ReadWorkFloor, what any request may read
// whatever its timeout: every value a turn emits reads within that floor
// (lisp's emit check), so it is accepted back by the next request at any
// timeout the server accepts, a turn not knowing the timeout of the call
// its values are sent back in. The evaluation that follows runs under
// timeout, and the clock it starts is charged what reading took
// (readTime). timeout <= 0 leaves the bound by the request's bytes
// (sized).
//
// Reading itself runs under no server clock, only the caller's deadline
// and cancellation: a clock would refuse on a busy machine a request that
// reads alone, and the budget, counted before the work is done, already
// bounds how long reading takes.
func (rd *valueReader) startReading(timeout time.Duration) {
	if timeout <= 0 || rd.readFor > 0 {
		return
	}
	rd.readFor = timeout
	rd.workBudget = max(int64(timeout.Seconds()*readCostPerSecond), lisp.ReadWorkFloor)
}

// readCostPerSecond is how much read cost (lisp.ReadCost: what values
// take once read) and read work (lisp.ReadWork: their tokens, bytes and
// long numbers) a request's values may have together for each second of
// its evaluation timeout past the first (lisp.ReadWorkFloor is the same
// 24 MiB). Every kind of text measured reads at 4 ns a unit or less alone,
// so values under it take at most a tenth of the timeout to read on an
// unloaded machine, and values over it are refused by their work before
// they are read, the same alone and under load.
const readCostPerSecond = 24 << 20

// readNanosPerUnit is the most time the evaluation's clock is charged for
// each unit of read work and cost the request's values took (readTime):
// 2.5 times the slowest kind of text measured alone, so that alone the
// clock counts reading as the time it took, and on a machine loaded or
// slowed past that, reading a request at its budget takes at most a
// quarter of its timeout (24 MiB a second at 10 ns a unit), leaving the
// program the same three quarters however busy the machine.
const readNanosPerUnit = 10

// readTime is how much of took, the time decoding the request took, its
// evaluation's clock counts: all of it but the reading of values and
// program (readWall), and that up to readNanosPerUnit for each unit of
// the read work and cost counted, and at most a quarter of the timeout:
// under a timeout shorter than a second the budget is the floor every
// request reads (lisp.ReadWorkFloor), which takes more than a quarter of
// it, and the program still starts with three quarters of its timeout.
// A machine slower than that delays the answer but does not change it.
func (rd *valueReader) readTime(took time.Duration) time.Duration {
	if rd.readFor <= 0 {
		return took
	}
	counted := min(time.Duration(rd.numberWork+rd.cost)*readNanosPerUnit, rd.readFor/4)
	return took - rd.readWall + min(rd.readWall, counted)
}

// counted runs read, work whose time readTime caps by its counted work.
func (rd *valueReader) counted(read func()) {
	began := time.Now()
	read()
	rd.readWall += time.Since(began)
}

// readCtx is the context values are read under: the caller's.
func (rd *valueReader) readCtx() context.Context { return rd.ctx }

// sized bounds what the values of a request of size bytes cost together
// once read, so that many small values, each allowed its floor, do not
// cost more than one large one of the same bytes.
//
// It also bounds their read work by the request's bytes, until
// startReading bounds it by an evaluation timeout. Both bounds are lisp's
// (lisp.ReadBounds), the model the emit side checks what a turn sends
// back against: what a turn emits reads back.
func (rd *valueReader) sized(size int) {
	rd.budget, rd.workBudget = lisp.ReadBounds(size)
	rd.size = size
}

// overBudget reports whether the request's read work so far, and extra
// more, passes its bound: under an evaluation timeout, the work counts
// what the values cost once read too (building them takes time that
// timeout counts); bounded by the request's bytes, their cost has a
// per-byte bound of its own (budget).
func (rd *valueReader) overBudget(extra int64) bool {
	if rd.workBudget <= 0 {
		return false
	}
	work := rd.numberWork + extra
	if rd.readFor > 0 {
		work += rd.cost
	}
	return work > rd.workBudget
}

// charge counts a value read for the request, and refuses the request
// once its values cost more than its budget.
func (rd *valueReader) charge(cost int64, path func() string) error {
	rd.cost += cost
	if rd.overBudget(0) {
		return rd.overWork(path)
	}
	if rd.budget > 0 && rd.cost > rd.budget {
		return status.Errorf(codes.InvalidArgument,
			"%s: the request's values would take more than %d bytes once read, more than %d times the request's bytes and %d MiB besides: they are mostly collections of one or two small parts; send such data flatter",
			path(), rd.budget, lisp.ReadCostPerByte, lisp.ReadSlack>>20)
	}
	return nil
}

// overWork is the refusal of a request whose values would take longer to
// read than its evaluation timeout (readCostPerSecond) or, under none,
// its bytes (lisp.ReadBounds) allow.
func (rd *valueReader) overWork(path func() string) error {
	if rd.readFor <= 0 {
		return status.Errorf(codes.ResourceExhausted,
			"%s: the request's values would take more than %d bytes of read work (their tokens and bytes, the square of their long numbers' digits, each call of those that are source), more than its %d bytes allow (%d a byte and %d MiB besides); send fewer or shorter long numbers (or send them as strings) and fewer values of source",
			path(), rd.workBudget, rd.size, lisp.ReadWorkPerByte, lisp.ReadWorkFloor>>20)
	}
	return status.Errorf(codes.ResourceExhausted,
		"%s: the request's values would take more than %d bytes of read work (what they take once read, and their tokens, bytes and long numbers), more than the %s evaluation timeout reads (%s); send fewer or smaller values, or ask for a longer limits.timeout_ms",
		path(), rd.workBudget, rd.readFor.Round(time.Millisecond), rd.readRate())
}

// readRate says how the read budget under an evaluation timeout is set,
// for a refusal.
func (rd *valueReader) readRate() string {
	return fmt.Sprintf("%d MiB a second, and %d MiB whatever the timeout", readCostPerSecond>>20, lisp.ReadWorkFloor>>20)
}

// chargeExtraction counts extracting the program of raw, the request's
// field, against the same bound as reading its values (lisp.ExtractWork,
// counted before the extraction runs): a reply of millions of fences is
// refused by what extracting it costs, alone and under load alike,
// rather than by the clock, which refused it only when the machine was
// busy.
func (rd *valueReader) chargeExtraction(raw, field string) error {
	work := lisp.ExtractWork(raw)
	if !rd.chargeText(work) {
		return nil
	}
	return status.Errorf(codes.ResourceExhausted,
		"%s: extracting its program would cost %d, more than the %d the %s evaluation timeout allows the request's reading (%s; each ``` fence counts %d, each byte 1/8); send the program in one fenced block, or ask for a longer limits.timeout_ms",
		field, work, rd.workBudget, rd.readFor.Round(time.Millisecond), rd.readRate(), lisp.ExtractFenceWork)
}

// chargeCall counts work of decoding the arguments of program_call, the
// request's field, against the same bound, before it is done
// (programFromCall): decoding them is the request's work under its clock,
// which counted its wall time only, so a call of megabytes of escapes
// ended at its step limit alone and at its timeout under load.
func (rd *valueReader) chargeCall(work int64, field string) error {
	if !rd.chargeText(work) {
		return nil
	}
	return status.Errorf(codes.ResourceExhausted,
		"%s: decoding its arguments would cost %d more, past the %d the %s evaluation timeout allows the request's reading (%s; each byte counts %d, each of the program's %d more); send a shorter program, or ask for a longer limits.timeout_ms",
		field, work, rd.workBudget, rd.readFor.Round(time.Millisecond), rd.readRate(), callWorkPerByte, programWorkPerByte)
}

// chargeText counts work of reading the request's text that is not a
// value's (extracting or decoding its program) and reports whether the
// request's reading is over its budget. Under no evaluation timeout it
// counts nothing: the program is read and run unbounded by time.
func (rd *valueReader) chargeText(work int64) (over bool) {
	if rd.readFor <= 0 {
		return false
	}
	rd.numberWork += work
	return rd.overBudget(0)
}

// newReader returns a reader of values for the request of ctx; held says
// whether the request holds an evaluation slot already.
func (s *Service) newReader(ctx context.Context, held bool) *valueReader {
	rd := &valueReader{svc: s, ctx: ctx, held: held}
	rd.sourceFn = rd.sourceContext
	return rd
}

// admit takes an evaluation slot for the request unless it holds one.
func (rd *valueReader) admit() error {
	if rd.held {
		return nil
	}
	if err := rd.svc.evals.enter(rd.ctx); err != nil {
		return err
	}
	rd.held, rd.took = true, true
	return nil
}

// admitRequest readies rd for a request of size bytes before it is
// decoded: it bounds what the request's values may cost once read (sized)
// and, when the request is large, takes an evaluation slot (see
// admission).
func (rd *valueReader) admitRequest(size int) error {
	rd.sized(size)
	if rd.held || !rd.svc.evals.isLarge(size) {
		return nil
	}
	if err := rd.svc.evals.enterLarge(rd.ctx, size); err != nil {
		return err
	}
	rd.held, rd.took = true, true
	return nil
}

// handOver leaves the slot admit took to the caller, who gives it back.
func (rd *valueReader) handOver() { rd.took = false }

// release gives back the slot admit took, if it did.
func (rd *valueReader) release() {
	if rd.took {
		rd.held, rd.took = false, false
		rd.svc.evals.leave()
	}
}

// sourceContext is the context values read as source run under: the
// caller's, like every value's; what loading them takes is bounded by
// their step budget (lisp.ReadValue) and, before they load, by the
// request's bounds (checkSource), as what reading EDN takes is. It takes
// no evaluation slot: a value loaded takes none where the same value
// found remembered takes none, so the request's outcome depends neither
// on what other callers sent before it nor on how many are evaluating
// (a slot taken here refused it RESOURCE_EXHAUSTED under load, or before
// a later field's INVALID_ARGUMENT, where alone or remembered it read).
func (rd *valueReader) sourceContext() (context.Context, error) {
	rd.loadedSource = true
	if err := rd.checkSource(rd.text); err != nil {
		return nil, err
	}
	return rd.readCtx(), nil
}

// checkSource refuses text, a value's source, when loading it would pass
// the request's bounds: its read work (lisp.SourceReadWork) or what it
// holds at its peak (lisp.SourceReadCost), both counted by lisp from the
// text alone. It decides before the text is loaded and for a text
// remembered loaded alike (readAt): the value was remembered for another
// request, whose bounds may have let it through where this request's do
// not, and the same request must get the same answer whatever others
// sent before it.
func (rd *valueReader) checkSource(text string) error {
	if rd.overBudget(lisp.SourceReadWork(text)) {
		return rd.overWork(func() string { return "a value read as source" })
	}
	if held := lisp.SourceReadCost(text); rd.budget > 0 && rd.cost+held > rd.budget {
		return status.Errorf(codes.ResourceExhausted,
			"a value read as source: loading it would hold about %d bytes (each form %d, each call or quoted form %d more, each regex %d) beside the %d the values read so far take, more than the %d the request's values may take (%d times its bytes and %d MiB besides), however long its timeout; send fewer values of source",
			held, lisp.SourceFormCost, lisp.SourceCallCost, lisp.SourceRegexCost, rd.cost, rd.budget, lisp.ReadCostPerByte, lisp.ReadSlack>>20)
	}
	return nil
}

// value reads a wire Value as EDN or JSON. An unset Value decodes to nil
// (absent), which callers treat as "no value".
func (rd *valueReader) value(v *ptcsidecarv1.Value, field string) (lisp.Value, error) {
	return rd.sample(v, field, 0)
}

// sample is value for a value that is only shown as a sample: EDN lists
// and vectors keep their first keep elements, the rest is checked but not
// built (lisp.ParseEDNSample); keep <= 0 keeps all. Long texts are read
// once and remembered (remembered.go): the values are frozen, so callers
// may share them between evaluations.
func (rd *valueReader) sample(v *ptcsidecarv1.Value, field string, keep int) (lisp.Value, error) {
	return rd.sampleAt(v, keep, func() string { return field })
}

// sampleAt is sample for a field whose path is spelled out by path only
// when an error is reported: a request holds hundreds of values, and
// building each one's path cost more allocations than reading it from the
// cache.
func (rd *valueReader) sampleAt(v *ptcsidecarv1.Value, keep int, path func() string) (lisp.Value, error) {
	got, err := rd.readAt(v, keep, false, path)
	return got.value, err
}

// readAt is sampleAt that also makes the texts of the value's records
// when records is set (see remembered.readAndKeep).
func (rd *valueReader) readAt(v *ptcsidecarv1.Value, keep int, records bool, path func() string) (readValue, error) {
	how, key, notation := rd.keyOf(v, keep)
	key.records = records
	// What reading the text takes first (its tokens, bytes and long
	// numbers), counted from the text: the same charge whether the value
	// is remembered or not, before any of that work is done, so that the
	// same request is refused at the same field alone and under load. It
	// is remembered with the value: counting it again for a text resent
	// on every call cost as much as finding the value.
	got, found := rd.svc.remembered.find(key)
	if !found {
		got.work = lisp.ReadWork(key.text, key.json)
	}
	if rd.workBudget > 0 {
		rd.numberWork += got.work
		if err := rd.charge(0, path); err != nil {
			return readValue{}, err
		}
	}
	if !found {
		rd.counted(func() { got = rd.read(how, key, got.work) })
	} else if got.source {
		if err := rd.checkSource(key.text); err != nil {
			return readValue{}, err
		}
	}
	if got.source && rd.workBudget > 0 {
		// Whether it loaded, was refused or was remembered, the same charge.
		rd.numberWork += lisp.SourceReadWork(key.text)
		if err := rd.charge(0, path); err != nil {
			return readValue{}, err
		}
	}
	if err := got.err; err != nil {
		if _, isStatus := status.FromError(err); isStatus {
			return readValue{}, err // the request's, not the text's: see read
		}
		return readValue{}, invalidf(path()+notation, "%v", err)
	}
	if err := rd.charge(got.cost, path); err != nil {
		return readValue{}, err
	}
	return got, nil
}

// read reads the text of key, not remembered, as how says, and remembers
// what it gave with work, what reading its text takes: every value of
// every request comes in here, and through lisp.ReadWire, which decides
// EDN, JSON or source and applies the server's nesting setting. An error
// that stopped the reading for this request only (its context ended, no
// evaluation slot came, its read budget was passed) is a gRPC status,
// and is not remembered; what is wrong with the text is.
func (rd *valueReader) read(how lisp.WireRead, key valueKey, work int64) readValue {
	if key.text == "" {
		return readValue{}
	}
	rd.text = key.text
	return rd.svc.remembered.readAndKeep(key, work, func() (lisp.Value, int64, bool, error) {
		how.Source = rd.sourceFn // made only for a text not remembered
		rd.loadedSource = false
		v, cost, err := lisp.ReadWire(key.text, how)
		if status.Code(err) == codes.ResourceExhausted {
			return nil, 0, rd.loadedSource, err // refused by sourceContext
		}
		if err != nil && rd.readCtx().Err() != nil {
			// Stopped for this request (its caller went), not for what
			// the text is.
			return nil, 0, rd.loadedSource, rd.interrupted()
		}
		return v, cost, rd.loadedSource, err
	})
}

// keyOf is how v's text is read (edn when set, else json), the key its
// value is remembered under, and the suffix naming its notation.
func (rd *valueReader) keyOf(v *ptcsidecarv1.Value, keep int) (lisp.WireRead, valueKey, string) {
	how := lisp.WireRead{Ctx: rd.readCtx(), MaxNesting: rd.svc.maxValueDepth(), Keep: max(keep, 0)}
	text, notation := v.GetEdn(), ".edn"
	if text == "" {
		how.Keep = 0
		how.JSON, text, notation = true, v.GetJson(), ".json"
	}
	return how, valueKey{json: how.JSON, maxNesting: how.MaxNesting, keep: how.Keep, text: text}, notation
}

// interrupted is the status of a request whose values, or the program of
// its raw_response, stopped being read before they were: the request was
// cancelled or its deadline passed.
func (rd *valueReader) interrupted() error {
	if err := rd.readCtx().Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	return status.Error(codes.Canceled, "reading the request's values stopped before they were read")
}

// dataMap reads a request's data: a Value that must be a map, or is
// absent, with the texts of its records (lisp.RecordTexts), which a turn
// that emits them copies.
func (rd *valueReader) dataMap(v *ptcsidecarv1.Value, field string) (*lisp.Map, *lisp.RecordTexts, error) {
	got, err := rd.readAt(v, 0, true, func() string { return field })
	if err != nil || got.value == nil {
		return nil, nil, err
	}
	m, ok := got.value.(*lisp.Map)
	if !ok {
		return nil, nil, invalidf(field, "must be a map, got %s", got.value.TypeName())
	}
	return m, got.texts, nil
}

func (s *Service) maxValueDepth() int { return s.cfg.MaxValueDepth }

// encodeValue writes a value a caller consumes (tool-call arguments, tool
// results, a turn's result): in its wire text (lisp.WireText: EDN, or the
// source of what EDN cannot spell), the lossless form the sidecar always
// emits and reads back, and as JSON when the value has a JSON form
// (lisp.EncodeJSON); nil (absent) stays unset.
func encodeValue(v lisp.Value) *ptcsidecarv1.Value { return encodeValueText(v, "", "") }

// encodeValueText is encodeValue of v whose wire text, when not "", was
// printed already, with its JSON ("" when it has none) in the same pass
// (lisp.Result.ValueText and ValueJSON).
func encodeValueText(v lisp.Value, text, json string) *ptcsidecarv1.Value {
	if v == nil {
		return nil
	}
	if text != "" {
		return &ptcsidecarv1.Value{Edn: text, Json: json}
	}
	out := &ptcsidecarv1.Value{Edn: lisp.WireText(v)}
	if text, err := lisp.EncodeJSON(v); err == nil {
		out.Json = text
	}
	return out
}
