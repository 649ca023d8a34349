package main_test

// Decoding under load: a request whose values are refused for what they
// would cost once read must be refused the same way whatever else the
// server is doing. The reader counts what it builds against a budget
// derived from the request's bytes, so the answer does not depend on the
// machine's speed as long as reading fits the request's timeout, which
// backs it (valueTimeoutMs).

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// decodeAttacks are the interpreter's attacks whose outcome is decided by
// decoding their values.
func decodeAttacks() []attack {
	var out []attack
	for _, a := range interpreterAttacks() {
		if a.kind == kindValues {
			out = append(out, a)
		}
	}
	return out
}

// TestDecodeAttacksUnderLoad sends each decoding attack three times at
// once while other callers keep every evaluation slot busy with programs
// that run to their timeout: all three end as the attack alone does. The
// queue wait is long enough that every request gets its slot however busy
// the machine: a request refused a slot (RESOURCE_EXHAUSTED, retryable)
// is the admission's answer to overload, not what its values decode to.
func TestDecodeAttacksUnderLoad(t *testing.T) {
	skipIfShort(t) // seconds of load per attack
	p := start(t, append([]string{"--listen", "127.0.0.1:0", "--max-concurrent-evals", "2", "--eval-queue-wait", "4m"}, valueTimeoutFlag()...)...)
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	busy := &ptcsidecarv1.EvalTurnRequest{Program: "(loop [i 0] (recur (inc i)))",
		Limits: &ptcsidecarv1.Limits{TimeoutMs: 2000, MaxSteps: 2_000_000_000}}
	for i, a := range decodeAttacks() {
		t.Run(a.name, func(t *testing.T) {
			if raceSlowdown > 1 && i%4 != 0 {
				// The race binary decodes each several times slower;
				// a quarter of the attacks, spread over the kinds,
				// puts its decoding under the same load.
				t.Skip("one attack in four under the race detector: runs every one without -race (make test)")
			}
			alone, _ := sendAttack(t, p, "gRPC", a)
			if !matches(a.expect, alone.got) {
				t.Fatalf("alone it ended with %s (%.300s), want %s", alone.got, alone.message, a.expect)
			}
			stop := keepBusy(t, client, busy, 2)
			got := make([]attackOutcome, 3)
			var runs sync.WaitGroup
			for i := range got {
				runs.Go(func() { got[i], _ = sendAttack(t, p, "gRPC", a) })
			}
			runs.Wait()
			stop()
			for i, out := range got {
				t.Logf("run %d under load: %s (%.120s)", i+1, out.got, out.message)
				if out.got != alone.got {
					t.Errorf("run %d under load ended with %s (%.300s), alone with %s", i+1, out.got, out.message, alone.got)
				}
				if strings.Contains(out.message, "timeout") {
					t.Errorf("run %d was judged by a clock: %.300s", i+1, out.message)
				}
			}
		})
	}
}

// tinyShape is a request of n elements as small as its list allows.
type tinyShape struct {
	name   string
	method string
	req    func(n int) proto.Message
}

// tinyShapes are the worst requests of small elements, one for each kind
// of list a request holds: a few bytes on the wire, a message of a
// hundred to five hundred bytes decoded, and what the server builds from
// it.
func tinyShapes() []tinyShape {
	chat := func(strategy string, message func(i int) *ptcsidecarv1.ChatMessage) func(n int) proto.Message {
		return func(n int) proto.Message {
			msgs := make([]*ptcsidecarv1.ChatMessage, n)
			for i := range msgs {
				msgs[i] = message(i)
			}
			return &ptcsidecarv1.ToMessagesRequest{History: msgs, Options: &ptcsidecarv1.Options{Strategy: strategy}}
		}
	}
	role := func(i int) string { return []string{"user", "assistant"}[i%2] }
	bindings := func(n int) []*ptcsidecarv1.Binding {
		out := make([]*ptcsidecarv1.Binding, n)
		for i := range out {
			out[i] = &ptcsidecarv1.Binding{Name: fmt.Sprintf("b%d", i), Value: &ptcsidecarv1.Value{Edn: "1"}}
		}
		return out
	}
	parts := func(text string) func(n int) proto.Message {
		return func(n int) proto.Message {
			return chat("loop-slice", func(i int) *ptcsidecarv1.ChatMessage {
				parts := make([]*ptcsidecarv1.ContentPart, 9)
				for j := range parts {
					parts[j] = &ptcsidecarv1.ContentPart{Type: "text", Text: text + strconv.Itoa(j)}
				}
				return &ptcsidecarv1.ChatMessage{Role: role(i), Parts: parts}
			})(n / 10)
		}
	}
	return []tinyShape{
		{"history of 9 one-word parts a message, loop-slice", "ToMessages", parts("")},
		// The same, larger: up to 4 and 16 MiB within the 100,000 elements.
		{"history of 9 parts of 40 letters, loop-slice", "ToMessages", parts(strings.Repeat("w", 40))},
		{"history of 9 parts of 170 letters, loop-slice", "ToMessages", parts(strings.Repeat("w", 170))},
		{"history of one-letter text parts, one message, turn-aware", "ToMessages", func(n int) proto.Message {
			return chat("turn-aware", func(int) *ptcsidecarv1.ChatMessage {
				parts := make([]*ptcsidecarv1.ContentPart, n)
				for i := range parts {
					parts[i] = &ptcsidecarv1.ContentPart{Type: "text", Text: "w"}
				}
				return &ptcsidecarv1.ChatMessage{Role: "user", Parts: parts}
			})(1)
		}},
		{"history of one-letter messages, loop-slice", "ToMessages", chat("loop-slice", func(i int) *ptcsidecarv1.ChatMessage {
			return &ptcsidecarv1.ChatMessage{Role: role(i), Content: "w"}
		})},
		{"tool calls of one letter, clear-tool-results", "ToMessages", func(n int) proto.Message {
			calls := make([]*ptcsidecarv1.ChatToolCall, n)
			for i := range calls {
				calls[i] = &ptcsidecarv1.ChatToolCall{Id: strconv.Itoa(i), Name: "t"}
			}
			return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", ToolCalls: calls}},
				Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results"}}
		}},
		{"memory of one-line bindings, cache-stable", "ToMessages", func(n int) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Memory: &ptcsidecarv1.Memory{Bindings: bindings(n)}, Options: &ptcsidecarv1.Options{Strategy: "cache-stable"},
				Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "1", Success: true, Result: &ptcsidecarv1.Value{Edn: "1"}}}}
		}},
		{"turns of empty tool calls, cache-stable", "ToMessages", func(n int) proto.Message {
			turns := make([]*ptcsidecarv1.Turn, 1000)
			for i := range turns {
				turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "1", Success: true, ToolCalls: make([]*ptcsidecarv1.ToolCall, n/1000)}
			}
			return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: "cache-stable"}}
		}},
		{"a turn of one-letter prints, single-user-coalesced", "ToMessages", func(n int) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "1", Success: true, Prints: slices.Repeat([]string{"p"}, n)}}}
		}},
		{"options of one-letter excluded tools", "ToMessages", func(n int) proto.Message {
			return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}},
				Options: &ptcsidecarv1.Options{Strategy: "clear-tool-results", ExcludeTools: slices.Repeat([]string{"t"}, n)}}
		}},
		{"prelude of one-line bindings", "EvalTurn", func(n int) proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: &ptcsidecarv1.Memory{Bindings: bindings(n)}, Limits: evalLimits()}
		}},
		{"tools of one letter", "EvalTurn", func(n int) proto.Message {
			tools := make([]*ptcsidecarv1.ToolSpec, n)
			for i := range tools {
				tools[i] = &ptcsidecarv1.ToolSpec{Name: "t" + strconv.Itoa(i)}
			}
			return &ptcsidecarv1.EvalTurnRequest{Program: "1", Tools: tools, Limits: evalLimits()}
		}},
	}
}

// sendHTTP sends req to the HTTP listener in the Connect protocol, as
// JSON gzipped or as protobuf, and returns how it ended and the request's
// size (a gzipped one's once decompressed).
func sendHTTP(t *testing.T, p *process, method string, req proto.Message, gzipped bool) (out attackOutcome, size int) {
	t.Helper()
	var text []byte
	var err error
	if gzipped {
		text, err = protojson.Marshal(req)
	} else {
		text, err = proto.Marshal(req)
	}
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.NewBuffer(text)
	if gzipped {
		body = &bytes.Buffer{}
		z := gzip.NewWriter(body)
		z.Write(text)
		z.Close()
	}
	hr, err := http.NewRequestWithContext(testContext(t), http.MethodPost, "http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/"+method, body)
	if err != nil {
		t.Fatal(err)
	}
	if gzipped {
		hr.Header.Set("Content-Type", "application/json")
		hr.Header.Set("Content-Encoding", "gzip")
	} else {
		hr.Header.Set("Content-Type", "application/proto")
		hr.Header.Set("Connect-Protocol-Version", "1")
	}
	out.got, out.message = postAnswer(t, hr)
	return out, len(text)
}

// postAnswer sends hr over HTTP/2 and returns the answer's outcome, as
// answerCode reads it, and its error's message.
func postAnswer(t *testing.T, hr *http.Request) (got, message string) {
	t.Helper()
	resp, err := httpClients()["HTTP/2"].Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got = answerCode(t, resp, raw)
	if got == "ok" {
		return got, ""
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/connect+") {
		return got, connectStreamError(raw)
	}
	var e struct{ Message string }
	json.Unmarshal(raw, &e)
	return got, e.Message
}

// TestTinyElements sends each tiny shape at growing sizes over gRPC and
// HTTP (JSON, JSON gzipped, whose size is its decompressed size, and
// Connect's protobuf), to a server of its own for each: every size is served or refused naming a
// list (INVALID_ARGUMENT), and the server's peak RSS stays within 16 times
// the request plus 32 MiB, the bound of decoding.
//
// The peak of one request depends on when the server's collector runs as
// well as on what the request costs: a collection that ends while a
// request is decoded sets the next heap goal from that request's live
// heap, and on a loaded machine the collector's marking lags the
// allocation further. Alone a 2.4 MiB history peaked at +22 MiB, among
// other tests' processes at +71. So a size over its bound is sent again,
// up to tinyAttempts times in all, the peak reset before each send
// (peakOfRequest), and judged by the least: a request that costs more
// than its bound is over it every time.
func TestTinyElements(t *testing.T) {
	skipIfShort(t) // a server per shape and listener, several sizes each
	skipIfRace(t, "memory per request size")
	for _, shape := range tinyShapes() {
		for _, listener := range []string{"gRPC", "HTTP", "HTTP gzip", "HTTP proto"} {
			t.Run(shape.name+"/"+listener, func(t *testing.T) {
				p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
				before := peakRSSBytes(t, p.cmd.Process.Pid)
				refused := 0
				for n := 10_000; n <= 100_000 && refused < 2; n = n * 3 / 2 {
					bound := int64(attackOverhead)
					if shape.method == "EvalTurn" {
						bound += allocBudget
					}
					send := func() (attackOutcome, int) {
						if strings.HasPrefix(listener, "HTTP ") {
							return sendHTTP(t, p, shape.method, receivingAll(shape.req(n)), listener == "HTTP gzip")
						}
						return sendAttack(t, p, listener, attack{name: shape.name, method: shape.method, req: func() proto.Message { return shape.req(n) }})
					}
					out, size, peak, attempts := peakOfRequest(t, p, before, func(size int) int64 { return 16*int64(size) + bound }, send)
					bound += 16 * int64(size)
					t.Logf("%-52s %-9s %6d elements %6.2f MiB  %-16s peak +%3d MiB (%4.1fx; bound %3d MiB; %d sent)  %.90s", shape.name, listener, n,
						float64(size)/mib, out.got, peak/mib, float64(peak)/float64(size), bound/mib, attempts, out.message)
					switch {
					case out.got == "INVALID_ARGUMENT" && strings.Contains(out.message, "too small for its size"):
						refused++
					case out.got == "INVALID_ARGUMENT" && strings.Contains(out.message, "limit"):
						refused = 2 // a count over its limit: no larger size is read
					case out.got != "ok":
						t.Errorf("%d elements: %s (%.300s), want ok or INVALID_ARGUMENT naming the list", n, out.got, out.message)
					}
					if peak > bound*raceSlowdown {
						t.Errorf("%d elements, %.2f MiB: peak RSS rose %d MiB (the least of %d sends), over 16 times the request plus %d MiB", n, float64(size)/mib, peak/mib, attempts, (bound-16*int64(size))/mib)
					}
				}
			})
		}
	}
}

// tinyAttempts is how many times TestTinyElements sends a size at most.
const tinyAttempts = 3

// peakOfRequest sends a request with send until its peak is within
// bound(size), at most tinyAttempts times, and returns the last outcome,
// the request's size, the least peak RSS over before (the server's peak
// after start) and how many sends it took. Before each send the server's
// peak is reset to its current RSS (clear_refs), so that each send's peak
// counts what the server holds and what that send adds, not an earlier
// send's peak; what the server kept from earlier sends still counts.
func peakOfRequest(t *testing.T, p *process, before int64, bound func(size int) int64, send func() (attackOutcome, int)) (out attackOutcome, size int, peak int64, attempts int) {
	t.Helper()
	clearRefs := fmt.Sprintf("/proc/%d/clear_refs", p.cmd.Process.Pid)
	for attempts < tinyAttempts {
		if attempts > 0 {
			if err := os.WriteFile(clearRefs, []byte("5"), 0); err != nil {
				t.Logf("peak RSS not reset (%v): judged by the first send", err)
				return out, size, peak, attempts
			}
		}
		out, size = send()
		attempts++
		rise := peakRSSBytes(t, p.cmd.Process.Pid) - before
		if attempts == 1 || rise < peak {
			peak = rise
		}
		if peak <= bound(size)*raceSlowdown {
			break
		}
	}
	return out, size, peak, attempts
}
