package server

import (
	"context"
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
// source in the sandbox: it is an evaluation like any program. So it runs
// under the request's context, within the server's evaluation timeout,
// holding an evaluation slot (admission.go), with a budget in proportion
// to its text (lisp.ReadValue). Plain EDN and JSON build data in time
// linear in the text and are bounded by what they build (their read cost,
// counted against a budget derived from the request's bytes, never a
// clock), so a request reads to the same answer alone and under load;
// they stop only when the caller goes (its cancellation or deadline).
type valueReader struct {
	svc *Service
	ctx context.Context // the request's
	// held reports that the request holds an evaluation slot, and took
	// that admit took it (release gives it back).
	held, took bool
	// source is ctx bounded by the evaluation timeout, from the first
	// value read as source on; nil before.
	source context.Context
	cancel context.CancelFunc
	// sourceFn is sourceContext, bound once: a method value taken for
	// every text read would allocate for each of a memory's bindings.
	sourceFn func() (context.Context, error)
	// cost is what the values read so far cost once read (lisp.ReadCost),
	// at most budget (see sized); budget 0 bounds nothing.
	cost, budget int64
	// reading is ctx ended by the request's evaluation timeout counted
	// from when its values began to be read (startReading), readFor that
	// timeout; nil reads under ctx alone.
	reading  context.Context
	stopRead context.CancelFunc
	readFor  time.Duration
	// workBudget bounds the request's read work: by its bytes
	// (readWorkPerByte, readWorkFloor) from sized on, by its evaluation
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

// startReading bounds the reading of the request's values by timeout, the
// clock its evaluation runs under, counted from now: a value of a million
// entries takes seconds to read, and the evaluation's clock, which starts
// when the request's work does, counts them (startClock). timeout <= 0
// bounds nothing.
func (rd *valueReader) startReading(timeout time.Duration) {
	if timeout <= 0 || rd.reading != nil {
		return
	}
	clock := timeout
	if c := rd.svc.cfg.readClock; c > 0 {
		clock = c
	}
	rd.reading, rd.stopRead = context.WithTimeout(rd.ctx, clock)
	rd.readFor = timeout
	rd.workBudget = int64(timeout.Seconds() * readCostPerSecond)
}

// readCostPerSecond is how much read cost (lisp.ReadCost: what values
// take once read) and read work (lisp.ReadWork: their tokens, bytes and
// long numbers) a request's values may have together for each second of
// its evaluation timeout. Every kind of text measured reads at 4 ns a
// unit or less alone, ten times faster than this, so values under it
// finish reading well inside the timeout even on a loaded machine, and
// values over it are refused by their work, the same alone and under
// load, rather than by the clock, which would refuse them only when the
// machine is busy.
const readCostPerSecond = 24 << 20

// readCtx is the context values are read under.
func (rd *valueReader) readCtx() context.Context {
	if rd.reading != nil {
		return rd.reading
	}
	return rd.ctx
}

// readWorkPerByte and readWorkFloor bound the read work (lisp.ReadWork,
// and lisp.SourceReadWork for values that are source) of a request that
// reads its values under no evaluation timeout (ToMessages, RenderTrace,
// an answer on a stream, an evaluation with no timeout): readWorkPerByte
// for each byte of the request, and readWorkFloor besides. Text of
// ordinary tokens costs at most 28 a byte (JSON of empty arrays; a vector
// of one-digit numbers 9, of keywords 6), so any such request within
// --max-recv-bytes reads, however many turns it holds; what passes the
// bound is the text whose work grows faster than its bytes: long
// integers, decimals and radix literals, whose conversion is quadratic in
// their digits (a radix-36 literal of 100,000 digits costs 69 a byte),
// and values of source (768 a call). Their cost once read is bounded
// apart (sized's budget), so the request's reading takes at most about
// (readWorkPerByte + lisp.ReadCostPerByte) * 4 ns a byte alone, decided
// by what the text holds, the same alone and under load.
const (
	readWorkPerByte = 40
	readWorkFloor   = readCostPerSecond
)

// readSlack is what the values of one request may cost once read beyond
// lisp.ReadCostPerByte times its bytes: each value may cost a small floor
// more than its multiple (lisp.ReadCostLimit), and a history of a
// thousand turns whose results are small sets of pairs claims a few
// hundred kilobytes of it.
const readSlack = 8 << 20

// sized bounds what the values of a request of size bytes cost together
// once read, so that many small values, each allowed its floor, do not
// cost more than one large one of the same bytes.
//
// It also bounds their read work by the request's bytes (readWorkPerByte),
// until startReading bounds it by an evaluation timeout.
func (rd *valueReader) sized(size int) {
	rd.budget = lisp.ReadCostPerByte*int64(size) + readSlack
	rd.size = size
	rd.workBudget = readWorkPerByte*int64(size) + readWorkFloor
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
			path(), rd.budget, lisp.ReadCostPerByte, readSlack>>20)
	}
	return nil
}

// overWork is the refusal of a request whose values would take longer to
// read than its evaluation timeout (readCostPerSecond) or, under none,
// its bytes (readWorkPerByte) allow.
func (rd *valueReader) overWork(path func() string) error {
	if rd.readFor <= 0 {
		return status.Errorf(codes.ResourceExhausted,
			"%s: the request's values would take more than %d bytes of read work (their tokens and bytes, the square of their long numbers' digits, each call of those that are source), more than its %d bytes allow (%d a byte and %d MiB besides); send fewer or shorter long numbers (or send them as strings) and fewer values of source",
			path(), rd.workBudget, rd.size, readWorkPerByte, readWorkFloor>>20)
	}
	return status.Errorf(codes.ResourceExhausted,
		"%s: the request's values would take more than %d bytes of read work (what they take once read, and their tokens, bytes and long numbers), more than the %s evaluation timeout reads (%d MiB a second); send fewer or smaller values, or ask for a longer limits.timeout_ms",
		path(), rd.workBudget, rd.readFor.Round(time.Millisecond), readCostPerSecond>>20)
}

// chargeExtraction counts extracting the program of raw, the request's
// field, against the same bound as reading its values (lisp.ExtractWork,
// counted before the extraction runs): a reply of millions of fences is
// refused by what extracting it costs, alone and under load alike,
// rather than by the clock, which refused it only when the machine was
// busy.
func (rd *valueReader) chargeExtraction(raw, field string) error {
	if rd.readFor <= 0 {
		return nil // no evaluation timeout: the program is read and run unbounded by time
	}
	work := lisp.ExtractWork(raw)
	rd.numberWork += work
	if !rd.overBudget(0) {
		return nil
	}
	return status.Errorf(codes.ResourceExhausted,
		"%s: extracting its program would cost %d, more than the %d the %s evaluation timeout allows the request's reading (%d MiB a second; each ``` fence counts %d, each byte 1/8); send the program in one fenced block, or ask for a longer limits.timeout_ms",
		field, work, rd.workBudget, rd.readFor.Round(time.Millisecond), readCostPerSecond>>20, lisp.ExtractFenceWork)
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

// release gives back the slot admit took, if it did, and stops the source
// clock.
func (rd *valueReader) release() {
	if rd.took {
		rd.held, rd.took = false, false
		rd.svc.evals.leave()
	}
	if rd.cancel != nil {
		rd.cancel()
	}
	if rd.stopRead != nil {
		rd.stopRead()
	}
}

// sourceContext is the context values read as source run under: the
// request's, ended by the server's evaluation timeout counted from the
// first such value. It takes an evaluation slot first.
func (rd *valueReader) sourceContext() (context.Context, error) {
	// Refused before it is loaded when what loading it takes would pass
	// the request's bound (readAt charges it, loaded or remembered).
	rd.loadedSource = true
	if rd.overBudget(lisp.SourceReadWork(rd.text)) {
		return nil, rd.overWork(func() string { return "a value read as source" })
	}
	if err := rd.admit(); err != nil {
		return nil, err
	}
	if rd.source == nil {
		rd.source, rd.cancel = rd.readCtx(), func() {}
		if t := rd.svc.cfg.Limits.Timeout; t > 0 {
			rd.source, rd.cancel = context.WithTimeout(rd.readCtx(), t)
		}
	}
	return rd.source, nil
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
		got = rd.read(how, key, got.work)
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
// evaluation slot came, the evaluation timeout passed) is a gRPC status,
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
		if err != nil && (rd.readCtx().Err() != nil || rd.source != nil && rd.source.Err() != nil) {
			// Stopped for this request (its caller, the evaluation
			// timeout), not for what the text is.
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

// interrupted is the status of a request whose values stopped being read
// as source before they were: the request was cancelled or its deadline
// passed, or the evaluation timeout ran out.
func (rd *valueReader) interrupted() error {
	if err := rd.ctx.Err(); err != nil {
		return status.FromContextError(err).Err()
	}
	if rd.reading != nil && rd.reading.Err() != nil {
		return status.Errorf(codes.ResourceExhausted,
			"reading the request's values (and its program from raw_response) took longer than %s, the evaluation timeout, which counts from when reading began; send fewer or smaller values, or ask for a longer limits.timeout_ms",
			rd.readFor.Round(time.Millisecond))
	}
	return status.Errorf(codes.ResourceExhausted,
		"the request's values that are source (functions, regexes and the like) took longer than %s to read, the evaluation timeout; send fewer or smaller ones",
		rd.svc.cfg.Limits.Timeout.Round(time.Millisecond))
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
