package main_test

// End-to-end tests of --http-listen: the same services over HTTP/1.1 and
// HTTP/2 with the Connect and gRPC-Web protocols, sent with net/http as
// curl or a browser would.

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	binenc "encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/testenv"
)

// httpClients are a client per HTTP version: HTTP/1.1, and HTTP/2 without
// TLS (h2c with prior knowledge, as gRPC-Web and Connect clients send it).
func httpClients() map[string]*http.Client {
	var h1, h2 http.Protocols
	h1.SetHTTP1(true)
	h2.SetUnencryptedHTTP2(true)
	return map[string]*http.Client{
		"HTTP/1.1": {Transport: &http.Transport{Protocols: &h1}},
		"HTTP/2":   {Transport: &http.Transport{Protocols: &h2}},
	}
}

// post sends body to method at addr with the content type and returns
// the response once its headers have come; its body closes with the test.
func post(t *testing.T, client *http.Client, addr, method, contentType string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, "http://"+addr+"/"+method, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// postJSON sends body to method as a Connect unary call with a JSON body,
// as `curl -H 'Content-Type: application/json' -d body` does.
func postJSON(t *testing.T, client *http.Client, addr, method, body string) (*http.Response, []byte) {
	t.Helper()
	resp := post(t, client, addr, method, "application/json", strings.NewReader(body))
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, got
}

// toMessagesRequest is a ToMessages request with one turn: large enough
// that the response has content from every part of the request.
const toMessagesRequest = `{
  "turns": [{"number": 1, "program": "(def x (tool/get-user {:id 7}))", "success": true,
             "prints": ["found Ada"], "result": {"edn": "{:name \"Ada\"}"}}],
  "options": {"mission": "Find the email of user 7.",
              "tools": [{"name": "get-user", "signature": "(id :int) -> {name :string}"}]}
}`

func TestHTTPServesTheSameService(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	if p.httpAddr == "" {
		t.Fatal("no \"HTTP listening\" log line with the address")
	}
	var req ptcsidecarv1.ToMessagesRequest
	if err := protojson.Unmarshal([]byte(toMessagesRequest), &req); err != nil {
		t.Fatal(err)
	}
	want, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).ToMessages(testContext(t), &req)
	if err != nil {
		t.Fatal(err)
	}

	for name, client := range httpClients() {
		t.Run(name, func(t *testing.T) {
			resp, body := postJSON(t, client, p.httpAddr, "ptcsidecar.v1.SidecarService/ToMessages", toMessagesRequest)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d, Content-Type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if resp.ProtoMajor != map[string]int{"HTTP/1.1": 1, "HTTP/2": 2}[name] {
				t.Errorf("answered over %s", resp.Proto)
			}
			var got ptcsidecarv1.ToMessagesResponse
			if err := protojson.Unmarshal(body, &got); err != nil {
				t.Fatalf("response is not a ToMessagesResponse in JSON: %v\n%s", err, body)
			}
			if !proto.Equal(&got, want) {
				t.Errorf("ToMessages over HTTP differs from gRPC:\n http: %v\n gRPC: %v", &got, want)
			}

			resp, body = postJSON(t, client, p.httpAddr, "grpc.health.v1.Health/Check", `{"service": "ptcsidecar.v1.SidecarService"}`)
			if resp.StatusCode != http.StatusOK || string(body) != `{"status":"SERVING"}` {
				t.Errorf("health over HTTP: status %d, %s", resp.StatusCode, body)
			}
		})
	}

	// JSON that does not decode never becomes a gRPC call.
	if resp, body := postJSON(t, http.DefaultClient, p.httpAddr, "ptcsidecar.v1.SidecarService/ToMessages", `{"turns": 5}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: %s %s, want 400", resp.Status, body)
	}

	// Every call went through the gRPC server's interceptors: two
	// ToMessages over HTTP and the one over gRPC are counted alike; the
	// HTTP requests are counted by status, the refused one included.
	wants := []string{
		`grpc_server_handled_total{grpc_code="OK",grpc_method="ToMessages",grpc_service="ptcsidecar.v1.SidecarService",grpc_type="unary"} 3`,
		`ptc_sidecar_http_requests_total{code="200"} 4`,
		`ptc_sidecar_http_requests_total{code="400"} 1`,
	}
	m := scrapeUntil(t, p.metricsAddr, wants...)
	for _, want := range wants {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(m, "ToMessages")+grepLines(m, "http_requests"))
		}
	}
	if code := p.terminate(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
}

func grepLines(text, substr string) string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// TestHTTPErrors: a failed call answers the HTTP status of its gRPC code
// with the same code and message in the Connect error body.
func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--max-recv-bytes", "1KiB")
	sidecar := ptcsidecarv1.NewSidecarServiceClient(p.client())
	for _, c := range []struct {
		name, method, body string
		// grpcCall makes the same call over gRPC, whose message the HTTP
		// caller must get; without one, wantMessage is the message.
		grpcCall    func() error
		wantMessage string
		wantStatus  int
		wantCode    string
	}{{
		name:   "bad EDN",
		method: "ToMessages", body: `{"turns": [{"program": "(", "result": {"edn": "{"}}]}`,
		grpcCall: func() error {
			_, err := sidecar.ToMessages(testContext(t), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{
				Program: "(", Result: &ptcsidecarv1.Value{Edn: "{"}}}})
			return err
		},
		wantStatus: http.StatusBadRequest, wantCode: "invalid_argument",
	}, {
		name:   "over --max-recv-bytes",
		method: "ToMessages", body: `{"options": {"mission": "` + strings.Repeat("x", 2000) + `"}}`,
		grpcCall: func() error {
			_, err := sidecar.ToMessages(testContext(t), &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Mission: strings.Repeat("x", 2000)}})
			return err
		},
		wantStatus: http.StatusTooManyRequests, wantCode: "resource_exhausted",
	}, {
		name:   "misspelled field",
		method: "ToMessages", body: `{"turn": []}`,
		wantStatus: http.StatusBadRequest, wantCode: "invalid_argument",
		wantMessage: `the body is not a ptcsidecar.v1.ToMessagesRequest in JSON: proto: (line 1:2): unknown field "turn"`,
	}, {
		name:   "not JSON",
		method: "EvalTurn", body: `(+ 1 2)`,
		wantStatus: http.StatusBadRequest, wantCode: "invalid_argument",
		wantMessage: `the body is not a ptcsidecar.v1.EvalTurnRequest in JSON: proto: syntax error (line 1:1): invalid value (`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			for name, client := range httpClients() {
				resp, body := postJSON(t, client, p.httpAddr, "ptcsidecar.v1.SidecarService/"+c.method, c.body)
				var connectErr struct{ Code, Message string }
				if err := json.Unmarshal(body, &connectErr); err != nil {
					t.Fatalf("%s: error body is not JSON: %v: %s", name, err, body)
				}
				if resp.StatusCode != c.wantStatus || connectErr.Code != c.wantCode || connectErr.Message == "" {
					t.Errorf("%s: status %d, %s; want %d with code %s and a message", name, resp.StatusCode, body, c.wantStatus, c.wantCode)
				}
				want := c.wantMessage
				if c.grpcCall != nil {
					want = status.Convert(c.grpcCall()).Message()
				}
				// protobuf-go writes its "proto:" prefix with a space or a
				// no-break space at random, so that no caller relies on it.
				if strings.ReplaceAll(connectErr.Message, "\u00a0", " ") != want {
					t.Errorf("%s: message %q, want %q", name, connectErr.Message, want)
				}
			}
		})
	}
}

// TestHTTPUnknownMethod: a method no service has is a plain 404, as in
// any Connect server.
func TestHTTPUnknownMethod(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	resp, body := postJSON(t, http.DefaultClient, p.httpAddr, "ptcsidecar.v1.SidecarService/Nope", `{}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d, %s; want 404", resp.StatusCode, body)
	}
}

// TestGRPCWeb calls ToMessages with the gRPC-Web protocol (binary
// protobuf, as a browser's grpc-web client sends it).
func TestGRPCWeb(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	var req ptcsidecarv1.ToMessagesRequest
	if err := protojson.Unmarshal([]byte(toMessagesRequest), &req); err != nil {
		t.Fatal(err)
	}
	want, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).ToMessages(testContext(t), &req)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := proto.Marshal(&req)
	if err != nil {
		t.Fatal(err)
	}
	resp := post(t, httpClients()["HTTP/1.1"], p.httpAddr, "ptcsidecar.v1.SidecarService/ToMessages",
		"application/grpc-web+proto", bytes.NewReader(frame(0, msg)))
	body := bufio.NewReader(resp.Body)
	_, data := readFrame(t, body)
	flags, trailers := readFrame(t, body)
	if flags != 0x80 || !strings.Contains(strings.ToLower(string(trailers)), "grpc-status: 0") {
		t.Fatalf("trailer frame (flags %#x): %q, want grpc-status: 0", flags, trailers)
	}
	var got ptcsidecarv1.ToMessagesResponse
	if err := proto.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(&got, want) {
		t.Errorf("ToMessages over gRPC-Web differs from gRPC")
	}
}

// frame is a length-prefixed message of gRPC-Web and Connect streams.
func frame(flags byte, msg []byte) []byte {
	return append(binenc.BigEndian.AppendUint32([]byte{flags}, uint32(len(msg))), msg...)
}

func readFrame(t *testing.T, r io.Reader) (byte, []byte) {
	t.Helper()
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		t.Fatalf("reading a frame header: %v", err)
	}
	msg := make([]byte, binenc.BigEndian.Uint32(head[1:]))
	if _, err := io.ReadFull(r, msg); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	return head[0], msg
}

// TestHTTPGracefulShutdown holds a health watch open over HTTP (a Connect
// server stream) through SIGTERM: the call is not cut off, it hears
// NOT_SERVING, and the shutdown timeout ends it.
func TestHTTPGracefulShutdown(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--shutdown-timeout", "500ms")
	resp := post(t, httpClients()["HTTP/1.1"], p.httpAddr, "grpc.health.v1.Health/Watch", "application/connect+json", bytes.NewReader(frame(0, []byte(`{}`))))
	body := bufio.NewReader(resp.Body)
	if _, msg := readFrame(t, body); string(msg) != `{"status":"SERVING"}` {
		t.Fatalf("first watch message %s, want SERVING", msg)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, msg := readFrame(t, body); string(msg) != `{"status":"NOT_SERVING"}` {
		t.Errorf("watch message after SIGTERM %s, want NOT_SERVING", msg)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("exit code = %d, want 0", code)
	}
	if _, err := net.Dial("tcp", p.httpAddr); err == nil {
		t.Errorf("HTTP port still accepts connections after exit")
	}
}

// TestREADMECurl runs the README's curl line against the real binary.
func TestREADMECurl(t *testing.T) {
	t.Parallel()
	curl := testenv.Program(t, "curl", "the README's curl line needs it (Debian: apt-get install curl)")
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^curl .*http://127\.0\.0\.1:8080/.*$`).Find(readme)
	if line == nil {
		t.Fatal("README has no curl line calling http://127.0.0.1:8080/")
	}
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	cmdline := strings.Replace(string(line), "curl ", curl+" --fail-with-body ", 1)
	cmdline = strings.ReplaceAll(cmdline, "127.0.0.1:8080", p.httpAddr)
	out, err := exec.CommandContext(testContext(t), "sh", "-c", cmdline).Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, out)
	}
	var got ptcsidecarv1.EvalTurnResponse
	if err := protojson.Unmarshal(out, &got); err != nil {
		t.Fatalf("curl printed no EvalTurnResponse: %v\n%s", err, out)
	}
	calls := got.GetPending().GetCalls()
	if len(calls) != 1 || calls[0].GetName() != "get-user" || calls[0].GetArgs().GetEdn() != "{:id 7}" {
		t.Errorf("README's curl line: want the pending call get-user {:id 7}, got %s", fmt.Sprint(&got))
	}
}

// TestHTTPOverTLS: with --tls-cert the HTTP endpoint serves HTTPS with the
// same certificate, HTTP/2 by ALPN and HTTP/1.1 alike.
func TestHTTPOverTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, cert := selfSigned(t, t.TempDir())
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	for _, h2 := range []bool{true, false} {
		var protocols http.Protocols
		protocols.SetHTTP1(!h2)
		protocols.SetHTTP2(h2)
		client := &http.Client{Transport: &http.Transport{Protocols: &protocols, TLSClientConfig: &tls.Config{RootCAs: roots}}}
		req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, "https://"+p.httpAddr+"/grpc.health.v1.Health/Check", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if wantMajor := map[bool]int{true: 2, false: 1}[h2]; resp.StatusCode != http.StatusOK || resp.ProtoMajor != wantMajor || string(body) != `{"status":"SERVING"}` {
			t.Errorf("health over HTTPS: %s over %s, %s; want SERVING over HTTP/%d", resp.Status, resp.Proto, body, wantMajor)
		}
	}
	if resp, err := http.Post("http://"+p.httpAddr+"/grpc.health.v1.Health/Check", "application/json", strings.NewReader(`{}`)); err == nil && resp.StatusCode == http.StatusOK {
		t.Errorf("plaintext HTTP to a TLS endpoint answered %s", resp.Status)
	}
}

// TestHTTPBidiStream runs EvalTurnStream over HTTP/2 with the Connect
// streaming protocol: the server asks for the tool call on the stream,
// the test answers it, and the Turn comes back.
func TestHTTPBidiStream(t *testing.T) {
	t.Parallel()
	// A stream's messages come as the call goes: --http-read-timeout
	// does not bound them.
	const readTimeout = 100 * time.Millisecond
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--http-read-timeout", readTimeout.String())
	body, send := io.Pipe()
	defer send.Close()
	sent := make(chan error, 1)
	go func() {
		_, err := send.Write(frame(0, []byte(`{"start": {"program": "(:name (tool/get-user {:id 7}))",
			"tools": [{"name": "get-user", "signature": "(id :int) -> {name :string}"}]}}`)))
		sent <- err
	}()
	resp := post(t, httpClients()["HTTP/2"], p.httpAddr, "ptcsidecar.v1.SidecarService/EvalTurnStream", "application/connect+json", body)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	received := bufio.NewReader(resp.Body)
	next := func() *ptcsidecarv1.EvalTurnStreamResponse {
		t.Helper()
		flags, msg := readFrame(t, received)
		var out ptcsidecarv1.EvalTurnStreamResponse
		if flags != 0 || protojson.Unmarshal(msg, &out) != nil {
			t.Fatalf("stream message (flags %#x): %s", flags, msg)
		}
		return &out
	}
	call := next().GetToolCall()
	if call.GetName() != "get-user" || call.GetArgs().GetEdn() != "{:id 7}" {
		t.Fatalf("tool call %v, want get-user {:id 7}", call)
	}
	time.Sleep(3 * readTimeout)
	if _, err := send.Write(frame(0, []byte(`{"toolResult": {"index": 0, "name": "get-user", "args": {"edn": "{:id 7}"}, "result": {"json": "{\"name\": \"Ada\"}"}}}`))); err != nil {
		t.Fatal(err)
	}
	if got := next().GetTurn().GetResult().GetEdn(); got != `"Ada"` {
		t.Errorf("turn result %s, want \"Ada\"", got)
	}
	send.Close()
	if flags, msg := readFrame(t, received); flags != 0x02 || strings.Contains(string(msg), "error") {
		t.Errorf("end of stream (flags %#x): %s, want no error", flags, msg)
	}
}

// TestHTTPBodyBounds: the body of a call must arrive within
// --http-read-timeout and hold at most twice --max-recv-bytes, and a JSON
// request's lists are counted before it is decoded. The read deadline
// ends with the body: a call that runs longer than it after a quick body
// is not cut, and streams are not bounded by it.
func TestHTTPBodyBounds(t *testing.T) {
	t.Parallel()
	const readTimeout = 300 * time.Millisecond
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--http-read-timeout", readTimeout.String(), "--max-steps", "none",
		"--max-recv-bytes", "64KiB", "--max-turns", "10")
	connectError := func(t *testing.T, resp *http.Response) (code, message string) {
		t.Helper()
		body, _ := io.ReadAll(resp.Body)
		var e struct{ Code, Message string }
		if err := json.Unmarshal(body, &e); err != nil {
			t.Fatalf("status %s, body %s", resp.Status, body)
		}
		return e.Code, e.Message
	}
	for name, client := range httpClients() {
		t.Run(name, func(t *testing.T) {
			// A body that stops coming.
			body, send := io.Pipe()
			defer send.Close()
			go send.Write([]byte(`{"turns": [{"program": "(+ 1`))
			resp := post(t, client, p.httpAddr, "ptcsidecar.v1.SidecarService/ToMessages", "application/json", body)
			if code, msg := connectError(t, resp); resp.StatusCode != http.StatusGatewayTimeout || code != "deadline_exceeded" ||
				!strings.Contains(msg, "did not arrive within 300ms (--http-read-timeout)") {
				t.Errorf("slow body: %s %s %q, want 504 deadline_exceeded", resp.Status, code, msg)
			}

			// A body over twice --max-recv-bytes, of no announced length.
			body, send = io.Pipe()
			go func() {
				send.Write([]byte(`{"options": {"mission": "` + strings.Repeat("x", 200<<10) + `"}}`))
				send.Close()
			}()
			resp = post(t, client, p.httpAddr, "ptcsidecar.v1.SidecarService/ToMessages", "application/json", body)
			if code, _ := connectError(t, resp); code != "resource_exhausted" {
				t.Errorf("a large body: %s %s, want resource_exhausted", resp.Status, code)
			}

			// Lists counted before decoding, within the size limit.
			resp, raw := postJSON(t, client, p.httpAddr, "ptcsidecar.v1.SidecarService/ToMessages", `{"turns": [`+strings.Repeat("{},", 20_000)+`{}]}`)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), "turns: more than the limit of 10 turns (--max-turns)") {
				t.Errorf("too many turns: %s %s", resp.Status, raw)
			}

			// A quick body, then an evaluation longer than the deadline.
			resp, raw = postJSON(t, client, p.httpAddr, "ptcsidecar.v1.SidecarService/EvalTurn",
				`{"program": "(loop [i 0] (recur (inc i)))", "limits": {"timeoutMs": 800, "maxSteps": 1000000000}}`)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), "evaluation timed out after 800ms") {
				t.Errorf("an evaluation past the read deadline: %s %s, want a timeout turn", resp.Status, raw)
			}
		})
	}
}
