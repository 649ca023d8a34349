package main_test

// The attack harness: the requests an attacker sends to make one request
// cost more than its size, or to take the process down, each sent to the
// shipped binary with its default flags, over gRPC and over the HTTP
// listener (Connect, JSON), on a server of its own so that its peak memory
// is its own. For each it checks what docs/RELIABILITY.md states:
//
//   - the process is alive and serving afterwards;
//   - the server's peak RSS rose by at most the request's stated multiple
//     of its bytes plus 32 MiB, and by at most the allocation budget plus
//     32 MiB more for an evaluation;
//   - an evaluation ends within its timeout plus 250 ms of the server's
//     CPU time, with the same outcome (value or error type) each time it
//     runs;
//   - no error message or turn is larger than the emit limit, and every
//     turn is taken back as the history and the memory of a later call.
//
// TestAttacks logs one line per attack and listener: the figures of the
// attack table (the wall clock of each request, and the server's CPU
// time answering it, which a busy machine does not stretch).

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// attack is one hostile request.
type attack struct {
	name   string
	method string // of ptcsidecar.v1.SidecarService
	// req builds the request. wire and json, when set, are the bytes sent
	// instead over gRPC and over HTTP: what no protobuf library or
	// protojson would write.
	req  func() proto.Message
	wire func() []byte
	json func() []byte
	// expect is the outcome: a gRPC code name, a turn's error type, "ok",
	// or "failed" for any failed turn.
	expect string
	// kind is what the request is, which states the multiple of its
	// bytes its peak RSS may reach, besides the 32 MiB (and the allocation
	// budget, for an evaluation).
	kind requestKind
	// grpcOnly and httpOnly restrict the listeners, for a reason given
	// where the attack is defined.
	grpcOnly, httpOnly bool
	// serverFlags are flags of the server an input attack is sent to
	// (runInputAttack), besides its listeners and timeout.
	serverFlags []string
}

const (
	mib = 1 << 20
	// attackOverhead is the stated overhead of one request or evaluation
	// above its multiple: the transport's buffers and the collector's
	// headroom.
	attackOverhead = 32 * mib
	// allocBudget is --max-alloc-bytes by default.
	allocBudget = 10 * mib
	// emitLimit is the default max_emit_bytes.
	emitLimit = 2 * mib
	// evalTimeoutMs is the timeout the evaluations of the harness ask for.
	evalTimeoutMs = 1000
	// softMemoryLimit is --memory-limit by default: the collector lets
	// the heap grow to it before it works hard.
	softMemoryLimit = 128 * mib
)

// requestKind is a kind of request with the multiples of its bytes that
// one request of it may raise the server's peak RSS by, over gRPC and
// over HTTP (SECURITY.md, "What one request may cost in memory"). Over
// HTTP the transcoder keeps the JSON request decoded and the protobuf
// encoded from it for the whole call, two times the request more, which
// the values' multiple covers.
type requestKind struct {
	name       string
	grpc, http float64
}

var (
	kindLists = requestKind{"lists of empty elements", 4, 6}
	kindTexts = requestKind{"texts rendered and tokenized", 8, 10}
	// A chat strategy keeps texts of the history whole, writes notes and
	// lists of their values beside them, and sends the kept ones back.
	kindHistory  = requestKind{"chat histories rendered, noted and sent back", 12, 16}
	kindValues   = requestKind{"values read whole", 16, 20}
	kindPrograms = requestKind{"a program's text", 32, 34}
	// Over HTTP a large response costs what a large request does.
	kindRendered = requestKind{"values read and rendered whole", 16, 24}
)

func evalLimits() *ptcsidecarv1.Limits { return &ptcsidecarv1.Limits{TimeoutMs: evalTimeoutMs} }

// program is an EvalTurn attack: the program alone.
func program(src string) func() proto.Message {
	return func() proto.Message { return &ptcsidecarv1.EvalTurnRequest{Program: src, Limits: evalLimits()} }
}

// earlierResult is an EvalTurn attack: v sent as an earlier result, which
// the program counts. Reading megabytes of values is the request's work,
// under its timeout; these attacks are about what reading them costs in
// memory and how the read cost refuses them, so they ask for a timeout
// that reading them fits on a loaded machine (valueTimeoutMs, up to the
// server's, valueTimeoutFlag). TestAttacksFifthPass attacks the clock.
func earlierResult(v *ptcsidecarv1.Value) func() proto.Message {
	return func() proto.Message {
		return &ptcsidecarv1.EvalTurnRequest{Program: "(count *1)", Limits: &ptcsidecarv1.Limits{TimeoutMs: valueTimeoutMs},
			PreviousResults: []*ptcsidecarv1.Value{v}}
	}
}

// valueTimeoutMs is the timeout of the attacks that send megabytes of
// values to be read (earlierResult).
const valueTimeoutMs = 60_000

// valueTimeoutFlag lets a server's evaluations run valueTimeoutMs.
func valueTimeoutFlag() []string {
	return []string{"--eval-timeout", strconv.Itoa(valueTimeoutMs) + "ms"}
}

// turnResult is a ToMessages attack: edn as the result of the one turn.
func turnResult(edn string) func() proto.Message {
	return func() proto.Message {
		return &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "x", Success: true, Result: &ptcsidecarv1.Value{Edn: edn}}}}
	}
}

// repeatWire is n copies of one length-delimited field number holding
// payload.
func repeatWire(num protowire.Number, payload []byte, n int) []byte {
	var one []byte
	one = protowire.AppendTag(one, num, protowire.BytesType)
	one = protowire.AppendBytes(one, payload)
	return []byte(strings.Repeat(string(one), n))
}

// bigVector is the source of a vector of 60 references to one string of a
// million bytes: 10 MiB of budget builds what prints as 60 MB.
const bigVector = `(let [s (apply str (repeat 1000 (apply str (repeat 1000 "x")))) v (vec (repeat 60 s))] `

// letLookups is a program of n let bindings whose body looks up the first
// of them m times: analysis found each name by a scan of the names bound.
func letLookups(n, m int) string {
	var b strings.Builder
	b.WriteString("(let [")
	for i := range n {
		fmt.Fprintf(&b, "a%d 1 ", i)
	}
	b.WriteString("] (count [")
	b.WriteString(strings.Repeat("a0 ", m))
	b.WriteString("]))")
	return b.String()
}

// requestAttacks are the requests whose cost the server bounds before
// the interpreter runs: counts, depths, texts, renderings, decoding.
func requestAttacks() []attack {
	r := rand.New(rand.NewPCG(24, 24))
	letters := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abehqtxz"[r.IntN(8)]
		}
		return string(b)
	}
	return []attack{
		// Requests that cost far more than their bytes once decoded.
		{name: "empty turns, 11.4 MiB", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindLists,
			wire: func() []byte { return repeatWire(1, nil, 11_400_000/2) },
			json: func() []byte { return []byte(`{"turns":[` + strings.Repeat("{},", 11_400_000/3) + `{}]}`) }},
		{name: "empty tool calls in one turn", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindLists,
			wire: func() []byte { return repeatWire(1, repeatWire(6, nil, 4_000_000), 1) },
			json: func() []byte { return []byte(`{"turns":[{"toolCalls":[` + strings.Repeat("{},", 4_000_000) + `{}]}]}`) }},
		{name: "empty bindings in memory", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindLists,
			wire: func() []byte { return repeatWire(3, repeatWire(1, nil, 4_000_000), 1) },
			json: func() []byte { return []byte(`{"prelude":{"bindings":[` + strings.Repeat("{},", 4_000_000) + `{}]}}`) }},
		// JSON nested 8 million deep: a protobuf message of the schema
		// nests only as deep as the schema, so this is JSON's alone.
		{name: "JSON nested 8 million deep", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindLists, httpOnly: true,
			json: func() []byte { return []byte(`{"turns":` + strings.Repeat("[", 8_000_000)) }},
		{name: "signature nested 8 million deep", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindTexts,
			req: func() proto.Message {
				return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Signature: strings.Repeat("[", 8_000_000)}}
			}},
		{name: "tool signature of maps 4 million deep", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindTexts,
			req: func() proto.Message {
				return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{
					Tools: []*ptcsidecarv1.ToolSpec{{Name: "t", Signature: "(a " + strings.Repeat("{a ", 4_000_000)}}}}
			}},
		{name: "mission of 15 MB of newlines", method: "ToMessages", expect: "ok", kind: kindTexts,
			req: func() proto.Message {
				return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: strings.Repeat("\n", 15_000_000)}}
			}},
		{name: "mission of 4 MB of letters", method: "ToMessages", expect: "ok", kind: kindTexts,
			req: func() proto.Message {
				return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: letters(4_000_000)}}
			}},
		// A value that is source and runs past its budget, sent twice:
		// the second is answered from what the server remembers.
		{name: "previous result read as source past its budget", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: func() proto.Message {
				src := "(let [n (loop [i 0] (recur (inc i)))] (fn [] n))"
				return &ptcsidecarv1.EvalTurnRequest{Program: "(count (*1))", Limits: evalLimits(),
					PreviousResults: []*ptcsidecarv1.Value{{Edn: src + strings.Repeat(" ", 415-len(src))}}}
			}},
	}
}

// interpreterAttacks are the requests whose cost the interpreter bounds:
// values decoded, and programs whose work no budget or clock saw, or whose
// text was built before it was charged.
func interpreterAttacks() []attack {
	// vectors is n copies of item in a vector.
	vectors := func(item string, n int) string { return "[" + strings.Repeat(item, n) + "]" }
	nested := func(open, close string, depth int) string {
		return strings.Repeat(open, depth) + strings.Repeat(close, depth)
	}
	return []attack{
		{name: "dense EDN result, 9.5 MiB of []", method: "EvalTurn", expect: "ok", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Edn: vectors("[]", 4_750_000)})},
		{name: "dense JSON result, 9.5 MiB of []", method: "EvalTurn", expect: "ok", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Json: "[" + strings.Repeat("[],", 3_160_000) + "[]]"})},
		{name: "dense EDN turn result, 9.5 MiB of {}", method: "ToMessages", expect: "ok", kind: kindValues,
			req: turnResult(vectors("{}", 4_750_000))},
		// Collections of one element: a vector's header and its element's
		// slot for three bytes of text, and for two when they nest; a set
		// holding a collection keeps a hash index of its own. They read
		// to 25-80 times their text, and are refused past 16.
		{name: "one-element vectors, 6 MiB of [1]", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Edn: vectors("[1]", 2_100_000)})},
		{name: "one-element vectors nested 1000 deep, 6 MiB", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Edn: vectors(nested("[", "]", 998), 3_150)})},
		{name: "sets of a collection, 10 MiB of #{[]}", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Edn: vectors("#{[]}", 2_100_000)})},
		{name: "one-element JSON arrays, 8 MiB", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Json: "[" + strings.Repeat("[1],", 2_100_000) + "[1]]"})},
		// Each value within the floor it may cost beyond its multiple,
		// 1,000 of them in one request, each text different, as an
		// attacker's would be, so that none is remembered for another.
		{name: "1000 turn results of 150 sets of a collection", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: func() proto.Message {
				turns := make([]*ptcsidecarv1.Turn, 1000)
				for i := range turns {
					turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "x", Success: true,
						Result: &ptcsidecarv1.Value{Edn: vectors("#{[]} ", 150) + strings.Repeat(" ", i)}}
				}
				return &ptcsidecarv1.ToMessagesRequest{Turns: turns}
			}},
		// Each set (map) hashes the whole of the set (map key) it holds:
		// read whole, 300 KB of these took 13.7 s and 33 GB.
		{name: "sets in sets 998 deep, 9 MiB", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: earlierResult(&ptcsidecarv1.Value{Edn: vectors(nested("#{", "}", 998), 3_150)})},
		{name: "maps keyed by maps 500 deep, 9 MiB", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: turnResult(vectors(nested("{", "} 1", 499), 3_150))},
		// The server renders the floats as the interpreter prints them;
		// reading them is the interpreter's, 106 MB for these before its
		// decoded values were made lean.
		{name: "full of 1e308 floats, 5.7 MiB", method: "ToMessages", expect: "ok", kind: kindRendered,
			req: func() proto.Message {
				edn := "[" + strings.Repeat("1e308 ", 1_000_000) + "]"
				return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "full"},
					Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "x", Success: true, Result: &ptcsidecarv1.Value{Edn: edn}}}}
			}},
		{name: "printing sets nested in sets", method: "EvalTurn", expect: "any", kind: kindPrograms, req: program(
			"(loop [s #{} i 0] (if (< i 11) (recur #{s #{s 1}} (inc i)) (count (str s))))")},
		// A program's forms and analysis hold about 25 times its text.
		{name: "1.4 MiB of let bindings and lookups", method: "EvalTurn", expect: "any", kind: kindPrograms, req: program(
			letLookups(80_000, 150_000))},
		// The step limit ends it after 10-20 ms of CPU; on a machine at load
		// 20-27 a 1 s clock once ended it first, so it asks for the default
		// (programAttack).
		{name: "frequencies of 100,000 plain elements, 1000 times", method: "EvalTurn", expect: "step_limit", kind: kindPrograms, req: budgeted(
			"(let [r (vec (repeat 100000 1))] (dotimes [i 1000] (frequencies r)) :done)")},
		{name: "str of a closure with a 100 KB body, 10,000 times", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			`(let [f (fn [] "` + strings.Repeat("x", 100_000) + `")] (count (apply str (repeat 10000 f))))`)},
		{name: "println of 60 MB of print weight", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + "(println v) :done)")},
		{name: "str/join of 60 MB of print weight", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + `(count (str/join "," v)))`)},
		{name: "type error describing a closure over 60 MB", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + "(inc (fn [] v)))")},
		{name: "condp without a match on 60 MB", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + "(condp = v 1 :a))")},
		{name: "assoc on a vector at a 60 MB index", method: "EvalTurn", expect: "failed", kind: kindPrograms, req: program(
			bigVector + "(assoc [1] v 2))")},
	}
}

// attackReceiveLimit is what the attacks' gRPC client receives (its
// MaxCallRecvMsgSize); over HTTP the client takes any size.
const attackReceiveLimit = 64 * mib

// receivingAll is req stating the attacks' client receive limit
// (options.max_response_bytes) when it is a ToMessages or RenderTrace
// request that states none, as a caller that raised its client's limit
// does: the attacks measure the server's work and memory for answers of
// any size, not the refusal of an answer a default client cannot take.
func receivingAll(req proto.Message) proto.Message {
	var opts **ptcsidecarv1.Options
	switch r := req.(type) {
	case *ptcsidecarv1.ToMessagesRequest:
		r = proto.CloneOf(r)
		req, opts = r, &r.Options
	case *ptcsidecarv1.RenderTraceRequest:
		r = proto.CloneOf(r)
		req, opts = r, &r.Options
	default:
		return req
	}
	if *opts == nil {
		*opts = &ptcsidecarv1.Options{}
	}
	if (*opts).MaxResponseBytes == nil {
		(*opts).MaxResponseBytes = proto.Int32(attackReceiveLimit)
	}
	return req
}

// attackOutcome is how one sending of an attack ended.
type attackOutcome struct {
	got     string // gRPC code name, turn error type, or "ok"
	message string
	turn    *ptcsidecarv1.Turn
	took    time.Duration // wall clock, for the log only
	cpu     time.Duration // the server's CPU time while it was answered
}

// sendAttack sends a over listener ("gRPC" or "HTTP") to p and returns
// how it ended and the bytes sent.
func sendAttack(t *testing.T, p *process, listener string, a attack) (out attackOutcome, size int) {
	t.Helper()
	respType := map[string]proto.Message{"ToMessages": &ptcsidecarv1.ToMessagesResponse{}, "EvalTurn": &ptcsidecarv1.EvalTurnResponse{},
		"RenderTrace": &ptcsidecarv1.RenderTraceResponse{}}[a.method]
	resp := respType.ProtoReflect().New().Interface()
	var body []byte
	var err error
	if listener == "gRPC" {
		if a.wire != nil {
			body = a.wire()
		} else if body, err = proto.Marshal(receivingAll(a.req())); err != nil {
			t.Fatal(err)
		}
	} else {
		if a.json != nil {
			body = a.json()
		} else if body, err = protojson.Marshal(receivingAll(a.req())); err != nil {
			t.Fatal(err)
		}
	}
	began, cpuBefore := time.Now(), serverCPUTime(t, p.cmd.Process.Pid)
	defer func() { out.cpu = serverCPUTime(t, p.cmd.Process.Pid) - cpuBefore }()
	// Only a request that never ends reaches the guard: it fails the
	// attack instead of the test run.
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard*raceSlowdown)
	defer cancel()
	if listener == "gRPC" {
		err = p.client().Invoke(ctx, "/ptcsidecar.v1.SidecarService/"+a.method, body, resp,
			grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallSendMsgSize(64*mib), grpc.MaxCallRecvMsgSize(attackReceiveLimit))
		out.took = time.Since(began)
		if err != nil {
			st := status.Convert(err)
			out.got, out.message = strings.ToUpper(codeName(st.Code())), st.Message()
			return out, len(body)
		}
	} else {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/"+a.method, strings.NewReader(string(body)))
		if rerr != nil {
			t.Fatal(rerr)
		}
		req.Header.Set("Content-Type", "application/json")
		hr, herr := httpClients()["HTTP/2"].Do(req)
		if herr != nil {
			out.took = time.Since(began)
			out.got, out.message = "DEADLINE_EXCEEDED", herr.Error()
			return out, len(body)
		}
		raw, rerr := io.ReadAll(hr.Body)
		hr.Body.Close()
		if rerr != nil {
			out.took = time.Since(began)
			out.got, out.message = "DEADLINE_EXCEEDED", rerr.Error()
			return out, len(body)
		}
		out.took = time.Since(began)
		if hr.StatusCode != http.StatusOK {
			var e struct{ Code, Message string }
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatalf("%s over HTTP: status %s, body %.200s", a.name, hr.Status, raw)
			}
			out.got, out.message = strings.ToUpper(e.Code), e.Message
			return out, len(body)
		}
		if err := protojson.Unmarshal(raw, resp); err != nil {
			t.Fatalf("%s over HTTP: %v", a.name, err)
		}
	}
	out.got = "ok"
	if r, ok := resp.(*ptcsidecarv1.EvalTurnResponse); ok {
		out.turn = r.GetTurn()
		if !out.turn.GetSuccess() {
			out.got, out.message = out.turn.GetError().GetType(), out.turn.GetError().GetMessage()
		}
	}
	return out, len(body)
}

// matches reports whether an outcome is the expected one.
func matches(expect, got string) bool {
	switch expect {
	case "any": // a turn: what matters is its bounds
		return got == "ok" || got == strings.ToLower(got)
	case "failed":
		return got != "ok" && got == strings.ToLower(got) // a turn's error type
	case "failed-or-invalid":
		return got == "INVALID_ARGUMENT" || got == "RESOURCE_EXHAUSTED" || got != "ok" && got == strings.ToLower(got)
	}
	return got == expect
}

// readTimedOut reports whether a request was refused because reading its
// values that are source outlasted the evaluation timeout. That guard is
// the wall clock's, which a busy machine reaches before the reader finds
// what an idle one refuses a value for: the request is refused either
// way, and its memory is judged the same.
func readTimedOut(out attackOutcome) bool {
	return out.got == "RESOURCE_EXHAUSTED" && strings.Contains(out.message, "to read, the evaluation timeout")
}

// checkTurnGoesBack sends turn back as the history of a ToMessages call
// and its result and memory as the earlier results and the prelude of an
// EvalTurn: neither may be refused.
func checkTurnGoesBack(t *testing.T, p *process, name string, turn *ptcsidecarv1.Turn) {
	t.Helper()
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	ctx := testContext(t)
	max := grpc.MaxCallSendMsgSize(64 * mib)
	if _, err := client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn}}, max); status.Code(err) == codes.InvalidArgument {
		t.Errorf("%s: its turn is refused as history: %v", name, err)
	}
	back := &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: turn.GetMemory()}
	if turn.GetResult() != nil {
		back.PreviousResults = []*ptcsidecarv1.Value{turn.GetResult()}
	}
	if _, err := client.EvalTurn(ctx, back, max); status.Code(err) == codes.InvalidArgument {
		t.Errorf("%s: its result or memory is refused back: %v", name, err)
	}
}

// TestAttacks sends every request attack over both listeners, each to a
// server of its own.
func TestAttacks(t *testing.T) { runAttacks(t, requestAttacks()) }

// TestAttacksOnTheInterpreter does the same with the interpreter's.
func TestAttacksOnTheInterpreter(t *testing.T) {
	skipIfRace(t, "each attack's server CPU and peak RSS, one request at a time")
	runAttacks(t, interpreterAttacks())
}

func runAttacks(t *testing.T, attacks []attack) {
	skipIfShort(t) // each attack on a server of its own: a minute in all
	for _, a := range attacks {
		for _, listener := range []string{"gRPC", "HTTP"} {
			if a.grpcOnly && listener == "HTTP" || a.httpOnly && listener == "gRPC" {
				continue
			}
			t.Run(a.name+"/"+listener, func(t *testing.T) { runAttack(t, a, listener) })
		}
	}
}

func runAttack(t *testing.T, a attack, listener string) {
	p := start(t, append([]string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"}, valueTimeoutFlag()...)...)
	before := peakRSSBytes(t, p.cmd.Process.Pid)
	runs := 1
	if a.method == "EvalTurn" && a.wire == nil {
		runs = 2 // the same outcome each time
	}
	var first attackOutcome
	var size int
	var peak int64 // one request's, on a server of its own
	for i := range runs {
		out, n := sendAttack(t, p, listener, a)
		if a.expect == "INVALID_ARGUMENT" && readTimedOut(out) {
			t.Logf("refused for the time its source values took to read, not for what they hold: %.200s", out.message)
			out.got = a.expect
		}
		if i == 0 {
			first, size, peak = out, n, peakRSSBytes(t, p.cmd.Process.Pid)-before
		} else if out.got != first.got {
			t.Errorf("ran again, it ended with %s (%.200s), first with %s", out.got, out.message, first.got)
		}
		if !matches(a.expect, out.got) {
			t.Errorf("ended with %s (%.300s), want %s", out.got, out.message, a.expect)
		}
		if len(out.message) > emitLimit {
			t.Errorf("its error message is %d bytes, over the emit limit", len(out.message))
		}
		if a.method == "EvalTurn" && out.turn != nil {
			// The turn's duration is wall clock, which a busy machine
			// stretches while the evaluation waits for a core: past the
			// bound, it fails only if the server also spent that much CPU
			// time answering (reading the request included), which
			// waiting does not cost.
			limit := (requestTimeout(a) + 250*time.Millisecond) * raceSlowdown
			if d := time.Duration(out.turn.GetDurationMs()) * time.Millisecond; d > limit && out.cpu > limit {
				t.Errorf("the evaluation took %v and the server %v of CPU time, over its timeout plus 250ms", d, out.cpu)
			}
			turn := proto.Clone(out.turn).(*ptcsidecarv1.Turn)
			turn.Program, turn.RawResponse = "", ""
			if n := proto.Size(turn); n > emitLimit+64<<10 {
				t.Errorf("its turn is %d bytes besides its program, over the emit limit", n)
			}
			checkTurnGoesBack(t, p, a.name, out.turn)
		}
	}
	select {
	case <-p.exited:
		t.Fatalf("the server died:\n%s", p.log())
	default:
	}
	again := peakRSSBytes(t, p.cmd.Process.Pid) - before
	perByte := a.kind.grpc
	if listener == "HTTP" {
		perByte = a.kind.http
	}
	bound := int64(perByte*float64(size)) + attackOverhead
	if a.method == "EvalTurn" {
		bound += allocBudget
	}
	if _, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).ListStrategies(testContext(t), &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
		t.Errorf("the server does not serve after it: %v", err)
	}
	t.Logf("%-50s %-4s %9.2f MiB  %-20s %8v (CPU %8v)  peak +%4d MiB (%.1fx + %d MiB; bound %d MiB), +%d MiB sent again", a.name, listener, float64(size)/mib,
		first.got, first.took.Round(time.Millisecond), first.cpu, peak/mib, float64(max(peak-attackOverhead, 0))/float64(max(size, 1)),
		attackOverhead/mib, bound/mib, again/mib)
	if peak > bound*raceSlowdown {
		t.Errorf("peak RSS rose %d MiB, over %.0f times its %.2f MiB plus %d MiB (%s)", peak/mib, perByte, float64(size)/mib, (bound-int64(perByte*float64(size)))/mib, a.kind.name)
	}
	// Sent again, it may find the first one's garbage still in the heap,
	// up to the soft memory limit, where the collector begins to work hard.
	if again > (bound+softMemoryLimit)*raceSlowdown {
		t.Errorf("sent again, peak RSS rose %d MiB, over the soft memory limit and its bound", again/mib)
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestAttackRememberedFunctions: values that are source, each a short
// function over a string its source builds, sent one after another. What
// the server remembers of them stays within --memo-bytes (48 MiB) by
// what they hold, not by the bytes of their text.
func TestAttackRememberedFunctions(t *testing.T) {
	p := start(t, "--listen", "127.0.0.1:0")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	before := peakRSSBytes(t, p.cmd.Process.Pid)
	const n = 150
	for i := range n {
		text := fmt.Sprintf(`(let [s (apply str (repeat 900 (apply str (repeat 1000 "%04d"))))] (fn [] s))`, i) + strings.Repeat(" ", 16<<10)
		resp, err := client.EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: "(count (*1))",
			PreviousResults: []*ptcsidecarv1.Value{{Edn: text}}})
		if err != nil || resp.GetTurn().GetError() != nil {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
	}
	peak := peakRSSBytes(t, p.cmd.Process.Pid) - before
	rss := rssBytes(t, p.cmd.Process.Pid)
	t.Logf("%d functions over 3.6 MB strings remembered: peak RSS +%d MiB, RSS %d MiB after", n, peak/mib, rss/mib)
	// What the memo holds (at most 48 MiB of what its values hold) and
	// one request's reading are live; the collector lets the heap grow to
	// the soft memory limit (128 MiB) before it works hard.
	if bound := int64(128*mib + attackOverhead); peak > bound*raceSlowdown {
		t.Errorf("peak RSS rose %d MiB, over the soft memory limit plus %d MiB", peak/mib, attackOverhead/mib)
	}
}

// TestAttackSharedClosure: a function sent as an earlier result is read
// once and shared by every evaluation that sends it; callers that extend
// the map it holds while others read it must not reach each other, nor
// end the process.
func TestAttackSharedClosure(t *testing.T) {
	// 32 callers for 8 slots: none is refused for the time it waits, so
	// a busy machine changes nothing of what is judged.
	p := start(t, "--listen", "127.0.0.1:0", "--max-concurrent-evals", "8", "--eval-queue-wait", hangGuard.String())
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	fn := &ptcsidecarv1.Value{Edn: "(let [m (reduce (fn [a i] (assoc a [i] i)) {} (range 9))] (fn [] m))"}
	programs := []string{
		"(count (reduce (fn [a i] (assoc a [i] i)) (*1) (range 100 400)))",
		"(reduce (fn [a i] (+ a (get (*1) [(mod i 9)]))) 0 (range 900))",
	}
	want := []string{"309", "3600"}
	var wg sync.WaitGroup
	for w := range 32 {
		wg.Go(func() {
			for range 25 { // 800 evaluations sharing the function
				resp, err := client.EvalTurn(testContext(t), &ptcsidecarv1.EvalTurnRequest{Program: programs[w%2], PreviousResults: []*ptcsidecarv1.Value{fn}})
				if err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
				if got := resp.GetTurn().GetResult().GetEdn(); got != want[w%2] {
					t.Errorf("worker %d: %s, want %s", w, got, want[w%2])
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case <-p.exited:
		t.Fatalf("the server died:\n%s", p.log())
	default:
	}
	if code := p.terminate(); code != 0 { // 66: the race detector saw a race
		t.Errorf("exit code %d", code)
	}
}

// TestAttackSlowBodies: a thousand HTTP calls whose bodies never finish
// arriving. Each is answered DEADLINE_EXCEEDED once --http-read-timeout
// (10 s by default) has passed, and the server's memory stays small
// meanwhile. (When the last was answered is logged, not judged: a busy
// machine delays it.)
func TestAttackSlowBodies(t *testing.T) {
	skipIfShort(t) // waits out --http-read-timeout
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	before := peakRSSBytes(t, p.cmd.Process.Pid)
	const callers = 1000
	began := time.Now()
	var wg sync.WaitGroup
	var answered, deadline atomic.Int64
	var slowest atomic.Int64
	for range callers {
		wg.Go(func() {
			conn, err := net.Dial("tcp", p.httpAddr)
			if err != nil {
				t.Error(err)
				return
			}
			defer conn.Close()
			fmt.Fprintf(conn, "POST /ptcsidecar.v1.SidecarService/ToMessages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{\"options\": {\"mission\": \"")
			stop := make(chan struct{})
			go func() { // a byte now and then, never the whole body
				for {
					select {
					case <-stop:
						return
					case <-time.After(500 * time.Millisecond):
						conn.Write([]byte("x"))
					}
				}
			}()
			defer close(stop)
			conn.SetReadDeadline(time.Now().Add(hangGuard))
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				return
			}
			resp.Body.Close()
			answered.Add(1)
			if resp.StatusCode == http.StatusGatewayTimeout {
				deadline.Add(1)
			}
			for took := int64(time.Since(began)); ; {
				if old := slowest.Load(); took <= old || slowest.CompareAndSwap(old, took) {
					break
				}
			}
		})
	}
	wg.Wait()
	peak := peakRSSBytes(t, p.cmd.Process.Pid) - before
	t.Logf("%d slow bodies: %d answered, %d with 504 deadline_exceeded, the last after %v; peak RSS +%d MiB",
		callers, answered.Load(), deadline.Load(), time.Duration(slowest.Load()).Round(time.Millisecond), peak/mib)
	if deadline.Load() != callers {
		t.Errorf("%d of %d slow bodies answered DEADLINE_EXCEEDED", deadline.Load(), callers)
	}
	if peak > attackOverhead*2*raceSlowdown {
		t.Errorf("peak RSS rose %d MiB", peak/mib)
	}
}
