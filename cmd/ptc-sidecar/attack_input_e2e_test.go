package main_test

// Attacks on what the server does with a request before and around the
// interpreter: compressed bodies, the program's extraction and reading,
// what a turn sends back, and the strategies' work on request-sized
// input. Each is sent to the shipped binary on a server of its own, as in
// attack_e2e_test.go, three times; the server's peak RSS and its own CPU
// time (from /proc, not the wall clock) are judged.

import (
	"bytes"
	"compress/gzip"
	"context"
	bin "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// fieldNumber is the number of m's field called name.
func fieldNumber(m proto.Message, name string) protowire.Number {
	return m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name)).Number()
}

// gzipped is head, n copies of fill and tail, gzipped as they are
// written: what a 200 MB message compresses to, never held whole.
func gzipped(t *testing.T, head string, fill byte, n int, tail string) []byte {
	t.Helper()
	var out bytes.Buffer
	z, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	z.Write([]byte(head))
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	for left := n; left > 0; left -= len(chunk) {
		z.Write(chunk[:min(left, len(chunk))])
	}
	z.Write([]byte(tail))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// textMessage is the protobuf head of a message whose field outer holds a
// message whose field inner is a text of n bytes, which follow.
func textMessage(outer, inner protowire.Number, n int) string {
	var in []byte
	in = protowire.AppendTag(in, inner, protowire.BytesType)
	in = protowire.AppendVarint(in, uint64(n))
	var head []byte
	head = protowire.AppendTag(head, outer, protowire.BytesType)
	head = protowire.AppendVarint(head, uint64(len(in)+n))
	return string(append(head, in...))
}

// compressedTransport is one way of sending a compressed request.
type compressedTransport struct {
	name      string
	http      bool   // to --http-listen rather than --listen
	method    string // ToMessages or EvalTurnStream
	json      bool
	enveloped bool // messages framed with a flag and a length
	header    map[string]string
}

func compressedTransports() []compressedTransport {
	grpcHeader := map[string]string{"Content-Type": "application/grpc", "Grpc-Encoding": "gzip", "Te": "trailers"}
	return []compressedTransport{
		{name: "gRPC", method: "ToMessages", enveloped: true, header: grpcHeader},
		{name: "gRPC stream", method: "EvalTurnStream", enveloped: true, header: grpcHeader},
		{name: "gRPC to the HTTP listener", http: true, method: "ToMessages", enveloped: true, header: grpcHeader},
		{name: "gRPC-Web", http: true, method: "ToMessages", enveloped: true,
			header: map[string]string{"Content-Type": "application/grpc-web+proto", "Grpc-Encoding": "gzip", "X-Grpc-Web": "1"}},
		{name: "Connect JSON, Content-Encoding", http: true, method: "ToMessages", json: true,
			header: map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip"}},
		{name: "Connect proto, Content-Encoding", http: true, method: "ToMessages",
			header: map[string]string{"Content-Type": "application/proto", "Content-Encoding": "gzip", "Connect-Protocol-Version": "1"}},
		{name: "Connect stream JSON", http: true, method: "EvalTurnStream", json: true, enveloped: true,
			header: map[string]string{"Content-Type": "application/connect+json", "Connect-Content-Encoding": "gzip"}},
	}
}

// body is the compressed request of n bytes of text: a ToMessages
// mission, or an EvalTurnStream's first program.
func (c compressedTransport) body(t *testing.T, n int) []byte {
	var z []byte
	switch {
	case c.json && c.method == "ToMessages":
		z = gzipped(t, `{"options":{"mission":"`, 'x', n, `"}}`)
	case c.json:
		z = gzipped(t, `{"start":{"program":"`, '1', n, `"}}`)
	case c.method == "ToMessages":
		z = gzipped(t, textMessage(fieldNumber(&ptcsidecarv1.ToMessagesRequest{}, "options"),
			fieldNumber(&ptcsidecarv1.Options{}, "mission"), n), 'x', n, "")
	default:
		z = gzipped(t, textMessage(fieldNumber(&ptcsidecarv1.EvalTurnStreamRequest{}, "start"),
			fieldNumber(&ptcsidecarv1.EvalTurnRequest{}, "program"), n), '1', n, "")
	}
	if !c.enveloped {
		return z
	}
	env := make([]byte, 5, 5+len(z))
	env[0] = 1 // compressed
	bin.BigEndian.PutUint32(env[1:], uint32(len(z)))
	return append(env, z...)
}

// send sends body and returns the outcome: "ok" or a gRPC code name.
func (c compressedTransport) send(t *testing.T, p *process, body []byte) string {
	t.Helper()
	addr := p.addr
	if c.http {
		addr = p.httpAddr
	}
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost,
		"http://"+addr+"/ptcsidecar.v1.SidecarService/"+c.method, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	resp, err := httpClients()["HTTP/2"].Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64*mib))
	if err != nil {
		t.Fatalf("%s: reading the answer: %v", c.name, err)
	}
	return answerCode(t, resp, raw)
}

// answerCode reads the outcome of a call in any of the protocols.
func answerCode(t *testing.T, resp *http.Response, raw []byte) string {
	t.Helper()
	grpcCode := func(s string) string {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			t.Fatalf("grpc-status %q", s)
		}
		if n == 0 {
			return "ok"
		}
		return strings.ToUpper(codeName(codes.Code(n)))
	}
	if s := resp.Header.Get("Grpc-Status"); s != "" {
		return grpcCode(s)
	}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "application/grpc") || strings.HasPrefix(ct, "application/connect+") {
		for len(raw) >= 5 {
			flag, n := raw[0], int(bin.BigEndian.Uint32(raw[1:5]))
			msg := raw[5:min(5+n, len(raw))]
			raw = raw[min(5+n, len(raw)):]
			switch {
			case flag&0x80 != 0: // gRPC-Web trailers
				for line := range strings.Lines(string(msg)) {
					if v, ok := strings.CutPrefix(strings.ToLower(line), "grpc-status:"); ok {
						return grpcCode(v)
					}
				}
			case flag&0x02 != 0: // Connect end of stream
				var end struct{ Error *struct{ Code string } }
				if err := json.Unmarshal(msg, &end); err != nil {
					t.Fatalf("end of stream %.200q: %v", msg, err)
				}
				if end.Error == nil {
					return "ok"
				}
				return strings.ToUpper(end.Error.Code)
			}
		}
		if s := resp.Trailer.Get("Grpc-Status"); s != "" {
			return grpcCode(s)
		}
		t.Fatalf("status %s, content type %s: no status in the answer", resp.Status, ct)
	}
	if resp.StatusCode == http.StatusOK {
		return "ok"
	}
	var e struct{ Code string }
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("status %s, body %.200q", resp.Status, raw)
	}
	return strings.ToUpper(e.Code)
}

// TestAttackCompressedBodies: a request of 200 MB of text gzipped to
// about 200 KB, over every transport and protocol that takes compressed
// messages, is refused as RESOURCE_EXHAUSTED having cost no more memory
// than 16 times its bytes plus 32 MiB; a compressed request within the
// limit is answered.
func TestAttackCompressedBodies(t *testing.T) {
	skipIfShort(t) // a server per transport
	for _, c := range compressedTransports() {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
			if got := c.send(t, p, c.body(t, 200_000)); got != "ok" {
				t.Errorf("200 KB compressed: %s, want ok", got)
			}
			bomb := c.body(t, 200<<20)
			before := peakRSSBytes(t, p.cmd.Process.Pid)
			cpu := serverCPUTime(t, p.cmd.Process.Pid)
			for i := range 3 {
				if got := c.send(t, p, bomb); got != "RESOURCE_EXHAUSTED" {
					t.Errorf("run %d: 200 MiB in %d bytes of gzip: %s, want RESOURCE_EXHAUSTED", i+1, len(bomb), got)
				}
			}
			peak := peakRSSBytes(t, p.cmd.Process.Pid) - before
			cpu = serverCPUTime(t, p.cmd.Process.Pid) - cpu
			bound := 16*int64(len(bomb)) + attackOverhead
			t.Logf("%-32s %7d bytes of gzip for 200 MiB: peak RSS +%d MiB (bound %d MiB), server CPU %v for three",
				c.name, len(bomb), peak/mib, bound/mib, cpu)
			if peak > bound*raceSlowdown {
				t.Errorf("peak RSS rose %d MiB, over 16 times the %d bytes sent plus 32 MiB", peak/mib, len(bomb))
			}
			if _, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).ListStrategies(testContext(t), &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
				t.Errorf("the server does not serve after it: %v", err)
			}
		})
	}
}

// inputAttack is an attack of attack_e2e_test.go with the most server CPU
// a sending may take: its timeout plus 250 ms on each of two cores for an
// evaluation (the collector works beside it), cpu for the others. It is
// judged on the least of three sendings, the request's own work: on a
// busy machine the others also pay for the garbage of those before them,
// and each core does less work per second of CPU time: past cpu, it is
// judged against the yardstick of cpu_yardstick_e2e_test.go.
type inputAttack struct {
	attack
	cpu time.Duration
}

// inputAttacks are the requests whose cost lies around the interpreter:
// extracting and reading the program, what the turn sends back, and the
// strategies' rewriting of a history or a memory.
func inputAttacks() []inputAttack {
	history := func() proto.Message {
		// Ids of one character each, all different, which all become
		// "_" as a provider takes them: each is renamed to the first of
		// _, __2, __3... that is free.
		const n = 8000
		calls := make([]*ptcsidecarv1.ChatToolCall, n)
		msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant"}}
		for i := range calls {
			id := string(rune(0x4E00 + i))
			calls[i] = &ptcsidecarv1.ChatToolCall{Id: id, Name: "t", Arguments: "{}"}
			msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: "ok"})
		}
		msgs[1].ToolCalls = calls
		return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results"}}
	}
	memory := func() proto.Message {
		bindings := make([]*ptcsidecarv1.Binding, 90_000)
		for i := range bindings {
			bindings[i] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("b%d", i), Value: &ptcsidecarv1.Value{Edn: strconv.Itoa(i)}, Turn: 1}
		}
		return &ptcsidecarv1.ToMessagesRequest{Memory: &ptcsidecarv1.Memory{Bindings: bindings},
			Options: &ptcsidecarv1.Options{Strategy: "cache-stable"},
			Turns:   []*ptcsidecarv1.Turn{{Number: 1, Program: "(def b0 0)", Success: true, Result: &ptcsidecarv1.Value{Edn: "0"}}}}
	}
	// The same shape in turns and in a chat history: as many small
	// messages as the request's lists may hold (100,000 elements), which
	// would decode to 12-16 times their bytes; refused, naming the list
	// whose elements take it over (server/counts.go).
	turns := func() proto.Message {
		turns := make([]*ptcsidecarv1.Turn, 1000)
		for i := range turns {
			calls := make([]*ptcsidecarv1.ToolCall, 90)
			for j := range calls {
				calls[j] = &ptcsidecarv1.ToolCall{Index: int32(j), Name: "t", Args: &ptcsidecarv1.Value{Edn: strconv.Itoa(j)}, Result: &ptcsidecarv1.Value{Edn: strconv.Itoa(i)}}
			}
			turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "(tool/t)", Success: true, Result: &ptcsidecarv1.Value{Edn: "1"}, ToolCalls: calls}
		}
		return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: "cache-stable"}}
	}
	chat := func() proto.Message {
		msgs := make([]*ptcsidecarv1.ChatMessage, 10_000)
		for i := range msgs {
			parts := make([]*ptcsidecarv1.ContentPart, 9)
			for j := range parts {
				parts[j] = &ptcsidecarv1.ContentPart{Type: "text", Text: strconv.Itoa(i*10 + j)}
			}
			msgs[i] = &ptcsidecarv1.ChatMessage{Role: []string{"user", "assistant"}[i%2], Parts: parts}
		}
		return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
	}
	evalCPU := 2 * (evalTimeoutMs*time.Millisecond + 250*time.Millisecond)
	return []inputAttack{
		{attack{name: "raw_response of one block of 15 M newlines", method: "EvalTurn", expect: "ok", kind: kindPrograms,
			req: func() proto.Message {
				return &ptcsidecarv1.EvalTurnRequest{RawResponse: "```clojure\n" + strings.Repeat("\n", 15_000_000) + "(+ 1 2)\n```",
					Limits: evalLimits()}
			}}, evalCPU},
		{attack{name: "program of 4.5 million top-level forms", method: "EvalTurn", expect: "failed", kind: kindPrograms,
			req: program(strings.Repeat("1 ", 4_500_000))}, evalCPU},
		{attack{name: "program 1 and 15 M unmatched )", method: "EvalTurn", expect: "ok", kind: kindPrograms,
			req: program("1" + strings.Repeat(")", 15_000_000))}, evalCPU},
		// What a turn echoes of the caller's: its answers, in its tool
		// calls, and the JSON of a result near the emit limit beside a
		// program's whole echo. The turn must reach a default client.
		{attack{name: "tool answers of 3 and 1.9 MB echoed beside a 1 MB program", method: "EvalTurn", expect: "ok", kind: kindValues,
			req: func() proto.Message {
				answer := func(i, n int) *ptcsidecarv1.ToolResult {
					return &ptcsidecarv1.ToolResult{Index: int32(i), Name: "get", Args: &ptcsidecarv1.Value{Edn: fmt.Sprintf("{:i %d}", i)},
						Result: &ptcsidecarv1.Value{Edn: `"` + strings.Repeat("x", n) + `"`}}
				}
				return &ptcsidecarv1.EvalTurnRequest{Program: ";; " + strings.Repeat("n", 1_000_000) + "\n(do (tool/get {:i 0}) (tool/get {:i 1}))",
					Tools: []*ptcsidecarv1.ToolSpec{{Name: "get"}}, ToolResults: []*ptcsidecarv1.ToolResult{answer(0, 3_000_000), answer(1, 1_900_000)},
					Limits: evalLimits()}
			}}, evalCPU},
		{attack{name: "prelude of 6 MB", method: "EvalTurn", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: func() proto.Message {
				bindings := make([]*ptcsidecarv1.Binding, 6)
				for i := range bindings {
					bindings[i] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("b%d", i), Value: &ptcsidecarv1.Value{Edn: `"` + strings.Repeat("x", 1_000_000) + `"`}}
				}
				return &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: &ptcsidecarv1.Memory{Bindings: bindings}, Limits: evalLimits()}
			}}, evalCPU},
		{attack{name: "8,000 tool-call ids that all become _", method: "ToMessages", expect: "ok", kind: kindTexts,
			req: history}, 2 * time.Second},
		{attack{name: "90,000 one-line bindings through cache-stable", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: memory}, 4 * time.Second},
		{attack{name: "1,000 turns of 90 one-line tool calls through cache-stable", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: turns}, 4 * time.Second},
		{attack{name: "10,000 history messages of 9 one-word parts through loop-slice", method: "ToMessages", expect: "INVALID_ARGUMENT", kind: kindValues,
			req: chat}, 4 * time.Second},
	}
}

// TestAttacksOnInput sends every input attack three times over both
// listeners, each to a server of its own; an EvalTurn's turn must also
// reach a gRPC client with the default receive limit (4 MiB).
func TestAttacksOnInput(t *testing.T) {
	skipIfShort(t) // a server per attack and listener
	skipIfRace(t, "each attack's server CPU and peak RSS, one request at a time")
	for _, a := range inputAttacks() {
		for _, listener := range []string{"gRPC", "HTTP"} {
			t.Run(a.name+"/"+listener, func(t *testing.T) { runInputAttack(t, a, listener) })
		}
	}
}

func runInputAttack(t *testing.T, a inputAttack, listener string) {
	flags := append([]string{"--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0"}, budgetTimeoutFlag()...)
	p := start(t, append(flags, a.serverFlags...)...)
	pid := p.cmd.Process.Pid
	before := peakRSSBytes(t, pid)
	var first attackOutcome
	var size int
	var peak int64
	least := time.Duration(math.MaxInt64)
	for i := range 3 {
		cpu := serverCPUTime(t, pid)
		out, n := sendAttack(t, p, listener, a.attack)
		least = min(least, serverCPUTime(t, pid)-cpu)
		if i == 0 {
			first, size, peak = out, n, peakRSSBytes(t, pid)-before
		} else if out.got != first.got {
			t.Errorf("run %d ended with %s (%.200s), the first with %s", i+1, out.got, out.message, first.got)
		}
		if !matches(a.expect, out.got) {
			t.Errorf("run %d ended with %s (%.300s), want %s", i+1, out.got, out.message, a.expect)
		}
		if len(out.message) > emitLimit {
			t.Errorf("its error message is %d bytes, over the emit limit", len(out.message))
		}
		if out.turn != nil {
			// As in runAttack: the turn's duration is wall clock, which a
			// loaded machine stretches while the work waits for a core;
			// past the bound it fails only if the server also spent that
			// much CPU time answering.
			limit := requestTimeout(a.attack) + 250*time.Millisecond
			if d := time.Duration(out.turn.GetDurationMs()) * time.Millisecond; d > limit*raceSlowdown && out.cpu > limit*raceSlowdown {
				t.Errorf("the request's work took %v and the server %v of CPU time, over its timeout plus 250ms", d, out.cpu)
			}
			turn := proto.Clone(out.turn).(*ptcsidecarv1.Turn)
			turn.Program, turn.RawResponse = "", ""
			if n := proto.Size(turn); n > emitLimit+64<<10 {
				t.Errorf("its turn is %d bytes besides its program, over the emit limit", n)
			}
		}
	}
	if a.method == "EvalTurn" && listener == "gRPC" {
		// A default client: its receive limit is 4 MiB.
		req := a.req().(*ptcsidecarv1.EvalTurnRequest)
		_, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).EvalTurn(testContext(t), req, grpc.MaxCallSendMsgSize(64*mib))
		if got := strings.ToUpper(codeName(status.Code(err))); err != nil && got != a.expect {
			t.Errorf("a gRPC client with the default receive limit: %v", err)
		}
	}
	select {
	case <-p.exited:
		t.Fatalf("the server died:\n%s", p.log())
	default:
	}
	perByte := a.kind.grpc
	if listener == "HTTP" {
		perByte = a.kind.http
	}
	bound := int64(perByte*float64(size)) + attackOverhead
	if a.method == "EvalTurn" {
		bound += allocBudget
	}
	t.Logf("%-48s %-4s %7.2f MiB  %-14s server CPU %6v least of 3  peak +%4d MiB (%.1fx + %d MiB; bound %d MiB)", a.name, listener,
		float64(size)/mib, first.got, least, peak/mib, float64(max(peak-attackOverhead, 0))/float64(max(size, 1)), attackOverhead/mib, bound/mib)
	if peak > bound*raceSlowdown {
		t.Errorf("peak RSS rose %d MiB, over %.0f times its %.2f MiB plus %d MiB (%s)", peak/mib, perByte, float64(size)/mib, (bound-int64(perByte*float64(size)))/mib, a.kind.name)
	}
	checkCPU(t, p, "the least of three sendings", least, a.cpu, func() time.Duration {
		out, _ := sendAttack(t, p, listener, a.attack)
		return out.cpu
	})
	if _, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).ListStrategies(testContext(t), &ptcsidecarv1.ListStrategiesRequest{}); err != nil {
		t.Errorf("the server does not serve after it: %v", err)
	}
}

// requestTimeout is the evaluation timeout an EvalTurn attack asks for.
func requestTimeout(a attack) time.Duration {
	if a.req == nil {
		return evalTimeoutMs * time.Millisecond
	}
	if r, ok := a.req().(*ptcsidecarv1.EvalTurnRequest); ok && r.GetLimits().GetTimeoutMs() > 0 {
		return time.Duration(r.GetLimits().GetTimeoutMs()) * time.Millisecond
	}
	return evalTimeoutMs * time.Millisecond
}

// TestInputAttacksUnderLoad sends each evaluation attack alone, then
// while other callers keep the server's other evaluation slot busy with
// programs that run to their timeout: it must end the same way. Reading,
// extraction and analysis are charged to budgets that do not depend on
// the machine's speed, and the clock only backs them up.
func TestInputAttacksUnderLoad(t *testing.T) {
	skipIfShort(t) // seconds of load per attack
	p := start(t, "--listen", "127.0.0.1:0", "--max-concurrent-evals", "2", "--eval-queue-wait", "10s")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	busy := &ptcsidecarv1.EvalTurnRequest{Program: "(loop [i 0] (recur (inc i)))",
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 3000, MaxSteps: 2_000_000_000}}
	for _, a := range inputAttacks() {
		if a.method != "EvalTurn" {
			continue
		}
		outcome := func() (string, int64) {
			out, _ := sendAttack(t, p, "gRPC", a.attack)
			return out.got, out.turn.GetDurationMs()
		}
		alone, aloneMs := outcome()
		stop := keepBusy(t, client, busy, 2) // one runs, one waits for the slot the attack leaves
		loaded, loadedMs := outcome()
		stop()
		t.Logf("%-48s alone %s after %d ms, under load %s after %d ms", a.name, alone, aloneMs, loaded, loadedMs)
		if loaded != alone {
			t.Errorf("%s: %s alone, %s under load", a.name, alone, loaded)
		}
	}
}

// keepBusy has n callers send busy over and over until the returned stop
// is called, which waits for them; it returns once the load runs.
func keepBusy(t *testing.T, client ptcsidecarv1.SidecarServiceClient, busy *ptcsidecarv1.EvalTurnRequest, n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				client.EvalTurn(testContext(t), busy)
			}
		})
	}
	time.Sleep(200 * time.Millisecond) // the load is running
	return func() {
		close(done)
		wg.Wait()
	}
}

// TestAttackAbandonedRendering: a history whose rendering takes about two
// seconds of CPU, sent once to the end, then with a 100 ms deadline. Once
// the caller has gone the server stops: the abandoned call costs a small
// part of the whole one, however long the server is watched after.
func TestAttackAbandonedRendering(t *testing.T) {
	skipIfShort(t) // a second of rendering, twice
	p := start(t, "--listen", "127.0.0.1:0", "--memo-bytes", "none")
	// 4 MB of words of random letters, slow to tokenize; nothing is
	// remembered between the two calls.
	r := rand.New(rand.NewPCG(7, 7))
	var history []*ptcsidecarv1.ChatMessage
	for i := range 300 {
		b := make([]byte, 14_000)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
			if j%40 == 39 {
				b[j] = ' '
			}
		}
		history = append(history, &ptcsidecarv1.ChatMessage{Role: "user", Content: string(b)},
			&ptcsidecarv1.ChatMessage{Role: "assistant", Content: fmt.Sprintf("done %d", i)})
	}
	// The 4.2 MB answer passes a default client's 4 MiB: this client raised its limit.
	req := &ptcsidecarv1.ToMessagesRequest{History: history, Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results", MaxResponseBytes: proto.Int32(64 * mib)}}
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	send := func(d time.Duration) (time.Duration, error) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		cpu := serverCPUTime(t, p.cmd.Process.Pid)
		_, err := client.ToMessages(ctx, req, grpc.MaxCallSendMsgSize(64*mib), grpc.MaxCallRecvMsgSize(64*mib))
		time.Sleep(time.Second) // whatever the server still does
		return serverCPUTime(t, p.cmd.Process.Pid) - cpu, err
	}
	whole, err := send(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	abandoned, err := send(100 * time.Millisecond)
	if status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("%v, want DEADLINE_EXCEEDED", err)
	}
	t.Logf("%d MiB of history: %v of the server's CPU to the end, %v abandoned after 100 ms", proto.Size(req)>>20, whole, abandoned)
	if abandoned > whole/2 {
		t.Errorf("abandoned, the call still cost %v of the %v it costs to the end", abandoned, whole)
	}
	checkCPU(t, p, "the abandoned call", abandoned, 300*time.Millisecond, func() time.Duration {
		d, _ := send(100 * time.Millisecond)
		return d
	})
}
