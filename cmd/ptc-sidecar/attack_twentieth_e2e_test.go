package main_test

// A twentieth pass of attacks of issue 33's classes, on the server, the
// transports and the strategies: timeout headers that are not timeouts on
// every RPC and listener, JSON at the edges of its number and field
// rules, and every strategy given histories of hostile shapes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// sendWithHeader sends a gRPC, gRPC-Web or Connect call of method (a
// full path) as an HTTP request of httpMethod with body (protobuf,
// unframed) and the header key set to value, and returns its outcome's
// code name and message.
func sendWithHeader(t *testing.T, addr, protocol, httpMethod, method string, body []byte, key, value string) (string, string) {
	n := len(body)
	framed := append([]byte{0, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
	contentType := map[string]string{"gRPC": "application/grpc", "gRPC-Web": "application/grpc-web+proto", "Connect": "application/proto"}[protocol]
	if protocol == "Connect" {
		framed = body
	}
	req, err := http.NewRequestWithContext(testContext(t), httpMethod, "http://"+addr+method, bytes.NewReader(framed))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("TE", "trailers")
	if key != "" {
		req.Header[key] = []string{value}
	}
	resp, err := httpClients()["HTTP/2"].Do(req)
	if err != nil {
		return "transport: " + err.Error(), ""
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if protocol == "Connect" {
		if resp.StatusCode == http.StatusOK {
			return "ok", ""
		}
		var e struct{ Code, Message string }
		json.Unmarshal(raw, &e)
		return strings.ToUpper(e.Code), e.Message
	}
	code, message := resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	if code == "" {
		code, message = resp.Trailer.Get("Grpc-Status"), resp.Trailer.Get("Grpc-Message")
	}
	if code == "" && protocol == "gRPC-Web" {
		// gRPC-Web sends its trailers as the body's last frame.
		for _, line := range strings.Split(string(raw), "\r\n") {
			if v, ok := strings.CutPrefix(strings.ToLower(line), "grpc-status:"); ok {
				code = strings.TrimSpace(v)
			}
		}
	}
	names := map[string]string{"0": "ok", "3": "INVALID_ARGUMENT", "13": "INTERNAL", "4": "DEADLINE_EXCEEDED", "12": "UNIMPLEMENTED"}
	if name, ok := names[code]; ok {
		return name, message
	}
	return fmt.Sprintf("HTTP %d, grpc-status %q", resp.StatusCode, code), message
}

// TestAttackCallerHeaders: headers grpc-go's transport refused as a
// fault of the server's though they are the caller's, on each RPC (the
// sidecar's, and the health service's, which no code of the server's was
// written for) over the gRPC listener and over the HTTP listener in gRPC,
// gRPC-Web and Connect, three times each: a timeout header that is not a
// timeout, binary metadata that is not base64, and (on the gRPC
// listener; the HTTP listener answers 405) a :method other than POST.
// The HTTP listener answered HTTP 400 without a gRPC status (read as
// INTERNAL by a gRPC client) or with the parser's words; each is now
// INVALID_ARGUMENT naming the header. The gRPC listener's transport
// refuses them INTERNAL before any of the server's code runs, and is
// held to that: refused, never served. A well-formed header, or an empty
// one, is served on both.
func TestAttackCallerHeaders(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	eval, err := proto.Marshal(&ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"})
	if err != nil {
		t.Fatal(err)
	}
	toMessages, err := proto.Marshal(&ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "hi"}}, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}})
	if err != nil {
		t.Fatal(err)
	}
	methods := []struct {
		path string
		body []byte
	}{
		{"/ptcsidecar.v1.SidecarService/EvalTurn", eval},
		{"/ptcsidecar.v1.SidecarService/ToMessages", toMessages},
		{"/ptcsidecar.v1.SidecarService/ListStrategies", nil},
		{"/grpc.health.v1.Health/Check", nil},
	}
	malformed := map[string][]string{
		"Grpc-Timeout":       {"9999999999H", "1x", "-1S", "S", "1", "+1S", " 1S", "1.5S", "0x10S", "123456789S", "1S1", strings.Repeat("9", 100_000) + "S"},
		"Connect-Timeout-Ms": {"abc", "-5", "99999999999999999999", "12345678901", "1.5", "+1", " 1", "1e3"},
		"X-Trace-Bin":        {"!!!", "AAE=AAE=", "A"},
		":method":            {http.MethodGet, http.MethodPut, http.MethodDelete},
	}
	wellFormed := map[string][]string{"Grpc-Timeout": {"1S", "99999999u", "8H", ""}, "Connect-Timeout-Ms": {"1000", "0000010000", ""},
		"X-Trace-Bin": {"AAEC", "AAE", "AA==", ""}, ":method": {http.MethodPost}}
	// The gRPC listener's refusals are grpc-go's own, made in its
	// transport before any of the server's code runs: INTERNAL, never
	// served (docs/API.md says why they are left so).
	for _, listener := range []struct {
		name, addr string
		keys       []string
		want       string
	}{
		{"gRPC listener", p.addr, []string{"Grpc-Timeout", "X-Trace-Bin", ":method"}, "INTERNAL"},
		{"HTTP gRPC", p.httpAddr, []string{"Grpc-Timeout", "X-Trace-Bin"}, "INVALID_ARGUMENT"},
		{"HTTP gRPC-Web", p.httpAddr, []string{"Grpc-Timeout", "X-Trace-Bin"}, "INVALID_ARGUMENT"},
		{"HTTP Connect", p.httpAddr, []string{"Connect-Timeout-Ms", "X-Trace-Bin"}, "INVALID_ARGUMENT"},
	} {
		protocol := strings.TrimPrefix(listener.name, "HTTP ")
		if protocol == "gRPC listener" {
			protocol = "gRPC"
		}
		for _, m := range methods {
			if protocol == "Connect" && strings.HasPrefix(m.path, "/grpc.health") {
				continue // the health service is gRPC's
			}
			for _, key := range listener.keys {
				send := func(value string) (string, string) {
					if key == ":method" {
						return sendWithHeader(t, listener.addr, protocol, value, m.path, m.body, "", "")
					}
					return sendWithHeader(t, listener.addr, protocol, http.MethodPost, m.path, m.body, key, value)
				}
				for _, value := range malformed[key] {
					for run := range 3 {
						got, message := send(value)
						named := listener.want == "INTERNAL" || strings.Contains(strings.ToLower(message), strings.ToLower(key))
						if got != listener.want || !named {
							t.Errorf("%s %s, %s %.40q, run %d: %s (%.200s), want %s naming the header",
								listener.name, m.path, key, value, run+1, got, message, listener.want)
						}
					}
				}
				for _, value := range wellFormed[key] {
					want := "ok"
					if value == "" && key == "Grpc-Timeout" && listener.want == "INTERNAL" {
						want = "INTERNAL" // grpc-go's transport takes an empty grpc-timeout for a malformed one
					}
					if got, message := send(value); got != want {
						t.Errorf("%s %s, %s %q: %s (%.200s), want %s", listener.name, m.path, key, value, got, message, want)
					}
				}
			}
		}
	}
	endAliveAndRaceFree(t, p)
}

// twentiethPassAttacks are the single requests of the pass: JSON at the
// edges of protojson's rules (HTTP), and every strategy that reads a
// history given histories of hostile shapes.
func twentiethPassAttacks() []inputAttack {
	body := func(s string) func() []byte { return func() []byte { return []byte(s) } }
	var out []inputAttack
	for _, j := range []struct{ name, method, body, expect string }{
		{"an int64 of 1e400", "EvalTurn", `{"program":"1","limits":{"maxSteps":1e400}}`, "INVALID_ARGUMENT"},
		{"an int64 of -0", "EvalTurn", `{"program":"1","limits":{"maxSteps":-0}}`, "ok"},
		{"an int64 as a text of -0", "EvalTurn", `{"program":"1","limits":{"maxSteps":"-0"}}`, "ok"},
		{"an int64 past 2^53 as a text", "EvalTurn", `{"program":"1","limits":{"maxAllocBytes":"9007199254740993"}}`, "ok"},
		{"an int64 past 2^53 as a number", "EvalTurn", `{"program":"1","limits":{"maxAllocBytes":9007199254740993}}`, "ok"},
		{"an int64 past 2^63 as a text", "EvalTurn", `{"program":"1","limits":{"maxSteps":"9223372036854775808"}}`, "INVALID_ARGUMENT"},
		{"an int64 of 1.5", "EvalTurn", `{"program":"1","limits":{"timeoutMs":1.5}}`, "INVALID_ARGUMENT"},
		{"an int64 of NaN", "EvalTurn", `{"program":"1","limits":{"maxSteps":"NaN"}}`, "INVALID_ARGUMENT"},
		{"a key twice", "EvalTurn", `{"program":"1","program":"2"}`, "INVALID_ARGUMENT"},
		{"an object twice", "EvalTurn", `{"program":"1","limits":{},"limits":{"maxSteps":5}}`, "INVALID_ARGUMENT"},
		{"an unknown field", "EvalTurn", `{"program":"1","nope":{"a":[1,2,3]}}`, "INVALID_ARGUMENT"},
		{"JSON 100,000 deep in a text field", "EvalTurn", `{"program":"(count data/x)","data":{"json":"{\"x\":` + strings.Repeat(`[`, 100_000) + strings.Repeat(`]`, 100_000) + `}"}}`, "INVALID_ARGUMENT"},
		{"a double of NaN", "ToMessages", `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"token-budget","maxTokens":100,"cacheReadRate":"NaN"}}`, "INVALID_ARGUMENT"},
		{"a double of Infinity", "ToMessages", `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"token-budget","maxTokens":100,"cacheReadRate":"Infinity"}}`, "INVALID_ARGUMENT"},
		{"a double of 1e400", "ToMessages", `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"token-budget","maxTokens":100,"cacheReadRate":1e400}}`, "INVALID_ARGUMENT"},
		{"a double of -0", "ToMessages", `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"token-budget","maxTokens":100,"cacheReadRate":-0}}`, "ok"},
		{"an int32 past 2^31 as a text", "ToMessages", `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"token-budget","maxTokens":"3000000000"}}`, "INVALID_ARGUMENT"},
	} {
		out = append(out, inputAttack{attack{name: "JSON: " + j.name, method: j.method, expect: j.expect, kind: kindValues,
			json: body(j.body), httpOnly: true}, time.Second}) // the JSON bodies are the attack
	}
	// The strategies that read a history; the others read turns, whose
	// hostile shapes strategyTurnAttacks sends.
	strategies := []string{"clear-tool-results", "loop-slice", "summarize", "token-budget", "turn-aware"}
	// Each ends ok, but where the strategy refuses it naming what is
	// wrong: token-budget a message past its budget, every strategy a
	// history past --max-history or a part where it does not belong.
	shapes := []struct {
		name, expect string
		msgs         func() []*ptcsidecarv1.ChatMessage
	}{
		{"one message of 4 MiB", "ok", func() []*ptcsidecarv1.ChatMessage {
			return []*ptcsidecarv1.ChatMessage{{Role: "user", Content: strings.Repeat("word ", 4<<20/5)}}
		}},
		{"100,000 empty messages", "INVALID_ARGUMENT", func() []*ptcsidecarv1.ChatMessage {
			msgs := make([]*ptcsidecarv1.ChatMessage, 100_000)
			for i := range msgs {
				msgs[i] = &ptcsidecarv1.ChatMessage{Role: []string{"user", "assistant"}[i%2]}
			}
			return msgs
		}},
		{"tool arguments of 4 MiB of JSON", "ok", func() []*ptcsidecarv1.ChatMessage {
			args := `{"items":[` + strings.Repeat(`{"k":"v"},`, 4<<20/10) + `{}]}`
			return toolLoops(2, func(i int) string { return fmt.Sprintf("call_%d", i) }, first(args), func(int) string { return "ok" })
		}},
		{"images not base64, ids that collide once cleaned", "ok", func() []*ptcsidecarv1.ChatMessage {
			var msgs []*ptcsidecarv1.ChatMessage
			for i, id := range []string{"call 1", "call/1", "call.1", "call_1", "call\x001", "call\u00e91"} {
				msgs = append(msgs,
					&ptcsidecarv1.ChatMessage{Role: "user", Parts: []*ptcsidecarv1.ContentPart{{Type: "text", Text: fmt.Sprintf("look %d", i)},
						{Type: "image", MediaType: "image/png", Data: strings.Repeat("!not base64~", 10_000)}}},
					&ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "read", Arguments: `{"path":"/a"}`}}},
					&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: "ok"})
			}
			return msgs
		}},
		// Refused naming the part: reasoning belongs to an assistant
		// message.
		{"reasoning and thinking parts inside a tool result", "INVALID_ARGUMENT", func() []*ptcsidecarv1.ChatMessage {
			return []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"},
				{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: "c1", Name: "read", Arguments: `{"path":"/a"}`}}},
				{Role: "tool", ToolCallId: "c1", Parts: []*ptcsidecarv1.ContentPart{{Type: "text", Text: "ok"},
					{Type: "reasoning", Text: "a thought inside a result"}, {Type: "thinking", Text: "another", Signature: "sig"},
					{Type: "redacted_thinking", Data: "%%%"}}}}
		}},
	}
	for _, shape := range shapes {
		for _, strategy := range strategies {
			expect := shape.expect
			if strategy == "token-budget" && shape.name == "one message of 4 MiB" {
				expect = "INVALID_ARGUMENT"
			}
			out = append(out, inputAttack{attack{name: "ToMessages " + strategy + ": " + shape.name, method: "ToMessages", expect: expect, kind: kindHistory,
				req: historyRequest(strategy, shape.msgs)}, 2 * time.Second})
		}
	}
	return out
}

// historyRequest is a ToMessages request of strategy over the history
// msgs builds, its answer within what the attack's client reads, and
// token-budget's budget 20,000 tokens.
func historyRequest(strategy string, msgs func() []*ptcsidecarv1.ChatMessage) func() proto.Message {
	return func() proto.Message {
		o := &ptcsidecarv1.Options{Strategy: strategy, MaxResponseBytes: proto.Int32(attackReceiveLimit)}
		if strategy == "token-budget" {
			o.MaxTokens = proto.Int32(20_000)
		}
		return &ptcsidecarv1.ToMessagesRequest{History: msgs(), Options: o}
	}
}

// TestAttacksTwentiethPass sends every single attack of the twentieth
// pass three times over the listeners it is for, each to a server of its
// own.
func TestAttacksTwentiethPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, twentiethPassAttacks())
}
