package main_test

// An eighteenth pass of attacks of issue 33's classes, aimed at what no
// single request shows: many large requests at once, callers that never
// read their answers, and request bytes no client library writes.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// largeHistory is a ToMessages request of about 4 MiB: one message of
// words, which loop-slice renders and counts.
func largeHistory() *ptcsidecarv1.ToMessagesRequest {
	return &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: strings.Repeat("word ", 4<<20/5)}},
		Options: &ptcsidecarv1.Options{Strategy: "loop-slice", MaxResponseBytes: proto.Int32(attackReceiveLimit)}}
}

// callersAtOnce is how many large requests the crowd attacks send at once.
const callersAtOnce = 48

// crowdSlots is --max-concurrent-evals of the crowd attacks' servers: the
// number of large requests the server decodes at once, whatever the
// machine's processors.
const crowdSlots = 2

// sendLargeHTTP sends body to method over HTTP/2 as a Connect unary call
// in JSON: with its length, chunked (no length), or gzipped, and returns
// the outcome's code.
func sendLargeHTTP(t *testing.T, p *process, method string, body []byte, way string) string {
	var r io.Reader = bytes.NewReader(body)
	switch way {
	case "chunked":
		r = io.MultiReader(r) // the client cannot know its length
	case "gzip":
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(body)
		w.Close()
		r = &z
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard*raceSlowdown)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/"+method, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if way == "gzip" {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := httpClients()["HTTP/2"].Do(req)
	if err != nil {
		return "transport: " + err.Error()
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return "transport: " + err.Error()
	}
	if resp.StatusCode == http.StatusOK {
		return "ok"
	}
	var e struct{ Code string }
	json.Unmarshal(raw, &e)
	return strings.ToUpper(e.Code)
}

// sendLargeStream sends start as the one message of an EvalTurnStream call
// over HTTP in Connect's streaming JSON and returns the outcome's code: a
// message refused for its place ends the stream UNAVAILABLE (grpc-go's
// code for a request body that fails to read) with the refusal's message,
// read here as RESOURCE_EXHAUSTED.
func sendLargeStream(t *testing.T, p *process, start []byte) string {
	framed := append([]byte{0, 0, 0, 0, 0}, start...)
	framed[1], framed[2], framed[3], framed[4] = byte(len(start)>>24), byte(len(start)>>16), byte(len(start)>>8), byte(len(start))
	resp := post(t, httpClients()["HTTP/2"], p.httpAddr, "ptcsidecar.v1.SidecarService/EvalTurnStream", "application/connect+json", bytes.NewReader(framed))
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return "transport: " + err.Error()
	}
	if bytes.Contains(raw, []byte(`{"turn":`)) {
		return "ok"
	}
	var end struct {
		Error struct{ Code, Message string }
	}
	if len(raw) > 5 {
		json.Unmarshal(raw[5:], &end)
	}
	if end.Error.Code == "unavailable" && strings.HasPrefix(end.Error.Message, "resource_exhausted: ") {
		return "RESOURCE_EXHAUSTED"
	}
	return strings.ToUpper(end.Error.Code) + " " + end.Error.Message
}

// TestAttackManyLargeRequestsAtOnce: 48 ToMessages requests of 4 MiB at
// once, over HTTP with their length, chunked and gzipped, and over gRPC,
// three rounds on a server of its own with two evaluation slots. Each
// request's decoding is bounded by its size; over HTTP nothing bounded
// how many were decoded at once (the transcoder converts a body before
// the service can admit it): 48 raised the peak by 620 MiB. Now a large
// body waits for one of as many places as there are slots once it has
// arrived, holding its bytes, as a request waiting on the gRPC listener
// does (grpc-go reads each message whole before any code of the server
// runs). So the least peak of three rounds is within the bytes of the
// requests waiting (held once, with a length or without), what the
// slots decode (16 times the request each) and 32 MiB; every request ends
// ok or RESOURCE_EXHAUSTED.
func TestAttackManyLargeRequestsAtOnce(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "the server's RSS against its bound")
	req := largeHistory()
	jsonBody, err := protojson.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	wire, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	trace, err := protojson.Marshal(receivingAll(&ptcsidecarv1.RenderTraceRequest{History: req.History}))
	if err != nil {
		t.Fatal(err)
	}
	stream, err := protojson.Marshal(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: &ptcsidecarv1.EvalTurnRequest{
		Program: "(count *1)", PreviousResults: []*ptcsidecarv1.Value{{Edn: `"` + req.History[0].Content + `"`}}}}})
	if err != nil {
		t.Fatal(err)
	}
	slotsWork := int64(crowdSlots*16*len(jsonBody)) + attackOverhead
	// RenderTrace is a method the bound was not written for: it takes a
	// place as ToMessages does. EvalTurnStream's messages are each
	// admitted as they come.
	for _, way := range []string{"HTTP", "HTTP chunked", "HTTP gzip", "gRPC", "HTTP RenderTrace", "HTTP EvalTurnStream"} {
		t.Run(way, func(t *testing.T) {
			p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--max-concurrent-evals", fmt.Sprint(crowdSlots))
			pid := p.cmd.Process.Pid
			base := peakRSSBytes(t, pid)
			waiting := map[string]int{"HTTP": len(jsonBody), "HTTP chunked": len(jsonBody), "HTTP gzip": len(jsonBody), "gRPC": len(wire),
				"HTTP RenderTrace": len(trace), "HTTP EvalTurnStream": len(stream)}[way]
			bound := slotsWork + int64(callersAtOnce*waiting)
			least := int64(-1)
			for round := range 3 {
				if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
					t.Skipf("peak RSS cannot be reset: %v", err)
				}
				var mu sync.Mutex
				got := map[string]int{}
				var wg sync.WaitGroup
				for range callersAtOnce {
					wg.Go(func() {
						var code string
						switch way {
						case "gRPC":
							out, _ := sendAttack(t, p, "gRPC", attack{method: "ToMessages", req: func() proto.Message { return req }})
							code = out.got
						case "HTTP RenderTrace":
							code = sendLargeHTTP(t, p, "RenderTrace", trace, "")
						case "HTTP EvalTurnStream":
							code = sendLargeStream(t, p, stream)
						default:
							code = sendLargeHTTP(t, p, "ToMessages", jsonBody, strings.TrimPrefix(strings.TrimPrefix(way, "HTTP"), " "))
						}
						mu.Lock()
						got[code]++
						mu.Unlock()
					})
				}
				wg.Wait()
				peak := peakRSSBytes(t, pid) - base
				t.Logf("%s, round %d: %d at once of %.1f MiB: %v, peak +%d MiB (bound %d)", way, round+1, callersAtOnce, float64(len(jsonBody))/mib, got, peak/mib, bound/mib)
				for code, n := range got {
					if code != "ok" && code != "RESOURCE_EXHAUSTED" {
						t.Errorf("round %d: %d of %d ended %s", round+1, n, callersAtOnce, code)
					}
				}
				if got["ok"] == 0 {
					t.Errorf("round %d: none of %d was served", round+1, callersAtOnce)
				}
				if least < 0 || peak < least {
					least = peak
				}
			}
			if least > bound {
				t.Errorf("%d requests of %.1f MiB at once raised the peak by %d MiB, over %d MiB: their bytes, what %d slots decode and 32 MiB",
					callersAtOnce, float64(len(jsonBody))/mib, least/mib, bound/mib, crowdSlots)
			}
			endAliveAndRaceFree(t, p)
		})
	}
}

// TestAttackAnswersNotRead: callers that never read their answers of 3
// MiB held them for as long as they kept their connections (50 held 171
// MiB over HTTP, without end). Over HTTP an answer must now be taken
// within --http-read-timeout once it begins: past it the call ends and
// the caller reads a reset stream, not its answer. (Over gRPC the
// answer stays queued in grpc-go's transport, out of the server's reach;
// --max-connection-age bounds it, docs/RELIABILITY.md.)
func TestAttackAnswersNotRead(t *testing.T) {
	skipIfShort(t)
	const timeout = 2 * time.Second
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--http-read-timeout", timeout.String())
	req := largeHistory()
	req.History[0].Content = req.History[0].Content[:3<<20]
	msg, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	framed := append([]byte{0, 0, 0, 0, 0}, msg...)
	framed[1], framed[2], framed[3], framed[4] = byte(len(msg)>>24), byte(len(msg)>>16), byte(len(msg)>>8), byte(len(msg))
	var h2 http.Protocols
	h2.SetUnencryptedHTTP2(true)
	// A client that takes 64 KiB of an answer and no more until it is
	// read: each caller on a connection of its own.
	var answers []*http.Response
	for range 20 {
		client := &http.Client{Transport: &http.Transport{Protocols: &h2,
			HTTP2: &http.HTTP2Config{MaxReceiveBufferPerConnection: 64 << 10, MaxReceiveBufferPerStream: 64 << 10}}}
		r, err := http.NewRequestWithContext(testContext(t), http.MethodPost, "http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/ToMessages", bytes.NewReader(framed))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Content-Type", "application/grpc")
		r.Header.Set("TE", "trailers")
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		answers = append(answers, resp)
	}
	time.Sleep(timeout + time.Second)
	whole := 0
	for _, resp := range answers {
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && resp.Trailer.Get("Grpc-Status") == "0" {
			whole++
			t.Logf("read the whole answer, %d bytes, %v past the deadline", n, timeout+time.Second)
		}
	}
	if whole > 0 {
		t.Errorf("%d of %d answers not read for %v were still held, past --http-read-timeout %v", whole, len(answers), timeout+time.Second, timeout)
	}
	// An answer taken at once is whole.
	out, _ := sendAttack(t, p, "HTTP", attack{method: "ToMessages", req: func() proto.Message { return req }})
	if out.got != "ok" {
		t.Errorf("an answer read at once ended %s (%.200s)", out.got, out.message)
	}
	endAliveAndRaceFree(t, p)
}

// eighteenthPassAttacks are the single requests of the pass, each of
// which held: unknown fields as groups nested a million deep or never
// closed, and 15 MiB of one unknown field (gRPC, bytes no library
// writes); JSON bodies followed by more JSON or by garbage, a NUL and -0
// where they are allowed, a number as a text past any double, both
// spellings of different fields in one body (HTTP).
func eighteenthPassAttacks() []inputAttack {
	// A ToMessages request of nothing but the fields the schema does not
	// know (an EvalTurn attack is also sent by a default client as its
	// request decoded, which bytes no library writes have none of).
	unknownFields := func(tail func(b []byte) []byte) func() []byte {
		return func() []byte { return tail(nil) }
	}
	groups := func(open, close int) func() []byte {
		return unknownFields(func(b []byte) []byte {
			for range open {
				b = protowire.AppendTag(b, 1000, protowire.StartGroupType)
			}
			for range close {
				b = protowire.AppendTag(b, 1000, protowire.EndGroupType)
			}
			return b
		})
	}
	var out []inputAttack
	for _, w := range []struct {
		name   string
		wire   func() []byte
		expect string
	}{
		{"an unknown group nested a million deep", groups(1_000_000, 1_000_000), "INVALID_ARGUMENT"},
		{"two million unknown groups never closed", groups(2_000_000, 0), "INVALID_ARGUMENT"},
		{"an unknown group nested 100 deep", groups(100, 100), "ok"},
		{"one unknown field of 15 MiB", unknownFields(func(b []byte) []byte {
			return protowire.AppendBytes(protowire.AppendTag(b, 1000, protowire.BytesType), make([]byte, 15<<20))
		}), "ok"},
	} {
		out = append(out, inputAttack{attack{name: "wire: " + w.name, method: "ToMessages", expect: w.expect, kind: kindValues,
			wire: w.wire, grpcOnly: true}, time.Second}) // the bytes are the attack
	}
	body := func(s string) func() []byte { return func() []byte { return []byte(s) } }
	for _, j := range []struct{ name, body, expect string }{
		{"a body followed by garbage", `{"program":"1"} garbage`, "INVALID_ARGUMENT"},
		{"a body followed by another", `{"program":"1"}{"program":"2"}`, "INVALID_ARGUMENT"},
		{"a program holding a NUL", `{"program":"\"\u0000\""}`, "ok"},
		{"turnNumber of -0", `{"program":"1","turnNumber":-0}`, "ok"},
		{"timeoutMs as a text of 1e999999", `{"program":"1","limits":{"timeoutMs":"1e999999"}}`, "INVALID_ARGUMENT"},
		{"both spellings, of different fields", `{"program":"1","turn_number":2,"previousResults":[],"raw_response":""}`, "ok"},
	} {
		out = append(out, inputAttack{attack{name: "JSON: " + j.name, method: "EvalTurn", expect: j.expect, kind: kindValues,
			json: body(j.body), httpOnly: true}, time.Second}) // the JSON bodies are the attack
	}
	return out
}

// TestAttacksEighteenthPass sends every single attack of the eighteenth
// pass three times over the listeners it is for, each to a server of its
// own.
func TestAttacksEighteenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, eighteenthPassAttacks())
}
