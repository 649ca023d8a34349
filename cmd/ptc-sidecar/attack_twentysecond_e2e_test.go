package main_test

// A twenty-second pass of attacks of issue 33's classes, on what the
// server reports about a request and on the newer message kinds at
// scale: spans that keep the caller's names while the collector does not
// answer, and images, reasoning and the program sent as a tool call, in
// sizes and shapes no agent sends.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// stuckCollector listens as an OpenTelemetry collector that accepts
// connections and never answers, and returns its address.
func stuckCollector(t *testing.T) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 1024)
	t.Cleanup(func() {
		lis.Close()
		close(held)
		for c := range held {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			select {
			case held <- c:
			default:
				c.Close()
			}
		}
	}()
	return lis.Addr().String()
}

// TestAttackNamesInSpans: 600 EvalTurn calls, each naming a tool of 1 MiB
// that the program stops at, to a server whose collector accepts and
// never answers: the exporter's queue holds up to 2,048 spans, and each
// kept its tool's name whole (ptc.eval.pending_tool). A span now keeps at
// most server.MaxSpanText of any text, in a copy of its own. The least
// rise of three servers is held to the bound of one request: 16 times
// its size, plus 32 MiB and the allocation budget.
func TestAttackNamesInSpans(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "the server's memory while spans wait for a collector")
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")
	const calls, nameBytes = 600, 1 << 20
	var least int64 = -1
	var size int
	for range 3 {
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+stuckCollector(t))
		p := start(t, "--listen", "127.0.0.1:0")
		pid := p.cmd.Process.Pid
		before := peakRSSBytes(t, pid)
		client := ptcsidecarv1.NewSidecarServiceClient(p.client())
		for i := range calls {
			name := fmt.Sprintf("t%d-%s", i, strings.Repeat("n", nameBytes))
			req := &ptcsidecarv1.EvalTurnRequest{Program: "(tool/" + name + " {})", Tools: []*ptcsidecarv1.ToolSpec{{Name: name}}}
			size = proto.Size(req)
			resp, err := client.EvalTurn(testContext(t), req)
			if err != nil || resp.GetPending() == nil {
				t.Fatalf("call %d: %v, want the tool call pending", i, err)
			}
		}
		rise := peakRSSBytes(t, pid) - before
		if least < 0 || rise < least {
			least = rise
		}
		endAliveAndRaceFree(t, p)
	}
	bound := 16*int64(size) + attackOverhead + allocBudget
	t.Logf("%d calls of %.2f MiB: peak RSS +%d MiB at least (bound %d MiB)", calls, float64(size)/mib, least/mib, bound/mib)
	if least > bound {
		t.Errorf("peak RSS rose %d MiB at least, over %d MiB: 16 times one request of %.2f MiB plus %d MiB and the allocation budget",
			least/mib, bound/mib, float64(size)/mib, attackOverhead/mib)
	}
}

// TestAttackDistinctNamesInReports: 100,000 calls, each naming something
// no other call names, over both listeners: unknown methods and paths,
// unknown strategies, tokenizers and providers, and tool names that
// carry a newline and a log line of their own. The metrics endpoint
// grows no series (its text stays within 64 KiB of what it was), every
// log line is one JSON object of at most 16 KiB, and the server's
// resident memory after them is within 32 MiB of what it was.
func TestAttackDistinctNamesInReports(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "the server's memory after 100,000 calls")
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0")
	pid := p.cmd.Process.Pid
	conn := p.client()
	client := ptcsidecarv1.NewSidecarServiceClient(conn)
	injected := "\n{\"level\":\"ERROR\",\"msg\":\"forged\"}\n"
	send := func(i int) {
		name := fmt.Sprintf("name-%d-%s", i, injected)
		ctx := testContext(t)
		switch i % 5 {
		case 0:
			conn.Invoke(ctx, fmt.Sprintf("/x%d.Y/M%d", i, i), &ptcsidecarv1.ListStrategiesRequest{}, &ptcsidecarv1.ListStrategiesResponse{})
		case 1:
			resp, err := http.Post("http://"+p.httpAddr+fmt.Sprintf("/x%d.Y/M%d", i, i), "application/json", strings.NewReader("{}"))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		case 2:
			client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "hi"}},
				Options: &ptcsidecarv1.Options{Strategy: name}})
		case 3:
			client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "hi"}},
				Options: &ptcsidecarv1.Options{Strategy: "loop-slice", Tokenizer: name, Provider: name, Model: name}})
		case 4:
			client.EvalTurn(ctx, &ptcsidecarv1.EvalTurnRequest{Program: "(tool/missing {})", Tools: []*ptcsidecarv1.ToolSpec{{Name: name}}})
		}
	}
	// Warm up, so that what the first calls allocate once is in before.
	for i := range 500 {
		send(i)
	}
	metricsBefore := len(scrape(t, p.metricsAddr))
	rssBefore := rssBytes(t, pid)
	const calls, workers = 100_000, 8
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < calls; i += workers {
				send(500 + i)
			}
		})
	}
	wg.Wait()
	metricsAfter := scrape(t, p.metricsAddr)
	rssAfter := rssBytes(t, pid)
	t.Logf("%d calls: /metrics %d -> %d bytes, RSS %d -> %d MiB", calls, metricsBefore, len(metricsAfter), rssBefore/mib, rssAfter/mib)
	if len(metricsAfter) > metricsBefore+64<<10 {
		t.Errorf("/metrics grew from %d to %d bytes after %d distinct names", metricsBefore, len(metricsAfter), calls)
	}
	if strings.Contains(metricsAfter, "name-") || strings.Contains(metricsAfter, "x7.Y") {
		t.Errorf("/metrics carries a name a caller chose")
	}
	if rssAfter > rssBefore+attackOverhead {
		t.Errorf("resident memory rose from %d to %d MiB after %d distinct names, over %d MiB more", rssBefore/mib, rssAfter/mib, calls, attackOverhead/mib)
	}
	for _, line := range strings.Split(p.log(), "\n") {
		var fields map[string]any
		if err := json.Unmarshal([]byte(line), &fields); err != nil || len(line) > 16<<10 {
			t.Errorf("a log line of %d bytes that is not one JSON object (%v): %.200s", len(line), err, line)
			break
		}
		if fields["msg"] == "forged" {
			t.Errorf("a caller's name became a log line of its own: %.200s", line)
			break
		}
	}
	endAliveAndRaceFree(t, p)
}

// TestAttackPipelinedRequests: 100 HTTP/1.1 connections, each writing
// 100 ToMessages requests back to back before it reads an answer
// (pipelining), while the gRPC listener's health is checked: every answer
// comes, in order, 200 with the strategy's messages, health stays
// SERVING, and the server's peak RSS rises within 16 times the bytes
// sent plus 32 MiB.
func TestAttackPipelinedRequests(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "the server's memory under 10,000 pipelined requests")
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	pid := p.cmd.Process.Pid
	before := peakRSSBytes(t, pid)
	body := `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"loop-slice"}}`
	request := "POST /ptcsidecar.v1.SidecarService/ToMessages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	const conns, perConn = 100, 100
	pipelined := strings.Repeat(request, perConn)
	var wg sync.WaitGroup
	answered := make(chan int, conns)
	for range conns {
		wg.Go(func() {
			c, err := net.Dial("tcp", p.httpAddr)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			if _, err := io.WriteString(c, pipelined); err != nil {
				t.Error(err)
				return
			}
			r := bufio.NewReader(c)
			n := 0
			for range perConn {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Errorf("answer %d of a pipelined connection: %v", n+1, err)
					break
				}
				raw, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"messages"`) {
					t.Errorf("answer %d of a pipelined connection: %s %.200s", n+1, resp.Status, raw)
					break
				}
				n++
			}
			answered <- n
		})
	}
	health := p.client()
	for range 10 {
		checkHealth(t, health, "", healthpb.HealthCheckResponse_SERVING)
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	close(answered)
	total := 0
	for n := range answered {
		total += n
	}
	peak := peakRSSBytes(t, pid) - before
	sent := int64(conns * len(pipelined))
	t.Logf("%d of %d pipelined requests answered; peak RSS +%d MiB (bound %d MiB)", total, conns*perConn, peak/mib, (16*sent+attackOverhead)/mib)
	if total != conns*perConn {
		t.Errorf("%d of %d pipelined requests answered", total, conns*perConn)
	}
	if peak > 16*sent+attackOverhead {
		t.Errorf("peak RSS rose %d MiB, over 16 times the %d bytes sent plus %d MiB", peak/mib, sent, attackOverhead/mib)
	}
	checkHealth(t, health, "", healthpb.HealthCheckResponse_SERVING)
	endAliveAndRaceFree(t, p)
}

// TestAttackSlowHeaders: 500 connections to the HTTP listener, each
// sending its headers a byte every 200 ms (slowloris). Meanwhile the
// gRPC listener's health stays SERVING and a ToMessages over HTTP is
// answered; each slow connection is closed by the server once its
// headers have taken 5 s (ReadHeaderTimeout), so none is left open.
func TestAttackSlowHeaders(t *testing.T) {
	skipIfShort(t)
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	const conns = 500
	closed := make(chan bool, conns)
	for range conns {
		go func() {
			c, err := net.Dial("tcp", p.httpAddr)
			if err != nil {
				closed <- false
				return
			}
			defer c.Close()
			io.WriteString(c, "POST /ptcsidecar.v1.SidecarService/ToMessages HTTP/1.1\r\nHost: x\r\nX-Slow: ")
			// Up to 60 s of a byte every 200 ms: the server must end it
			// long before.
			for range 300 {
				time.Sleep(200 * time.Millisecond)
				if _, err := c.Write([]byte("a")); err != nil {
					closed <- true
					return
				}
			}
			closed <- false
		}()
	}
	health := p.client()
	body := `{"history":[{"role":"user","content":"hi"}],"options":{"strategy":"loop-slice"}}`
	for range 5 {
		time.Sleep(400 * time.Millisecond)
		checkHealth(t, health, "", healthpb.HealthCheckResponse_SERVING)
		resp, err := http.Post("http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/ToMessages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatalf("ToMessages over HTTP among slow headers: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ToMessages over HTTP among slow headers: %s", resp.Status)
		}
	}
	ended := 0
	for range conns {
		if <-closed {
			ended++
		}
	}
	if ended != conns {
		t.Errorf("%d of %d slow connections closed by the server", ended, conns)
	}
	endAliveAndRaceFree(t, p)
}

// twentySecondPassAttacks are the single requests of the pass: the newer
// message kinds at scale, to every strategy that reads a history, and
// the program sent as a tool call in shapes no model writes.
func twentySecondPassAttacks() []inputAttack {
	var out []inputAttack
	programCall := func(arguments string) func() proto.Message {
		return func() proto.Message {
			return &ptcsidecarv1.EvalTurnRequest{ProgramCall: &ptcsidecarv1.ChatToolCall{Id: "c1", Name: "run_ptc_lisp", Arguments: arguments},
				Limits: evalLimits()}
		}
	}
	for _, c := range []struct{ name, arguments, expect string }{
		{"arguments that are not JSON", strings.Repeat("{\"program\": (+ 1 2) ", 200_000), "no_program"},
		{"arguments of JSON 100,000 deep", `{"program":"1","x":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}`, "no_program"},
		{"a program of 4 MiB in the arguments", `{"program":"[` + strings.Repeat("1 ", 2<<20) + `]"}`, "step_limit"},
		{"a program field 100,000 times", `{"program":"1",` + strings.Repeat(`"program":"1",`, 100_000) + `"x":1}`, "ok"},
	} {
		out = append(out, inputAttack{attack{name: "EvalTurn program_call: " + c.name, method: "EvalTurn", expect: c.expect, kind: kindPrograms,
			req: programCall(c.arguments)}, 2 * time.Second})
	}
	// The same value of 1 MiB in every field that carries one: the
	// request's reading is one budget, not one per field (refused at the
	// second binding, naming it), and a memory past what a turn may echo
	// is refused naming the prelude.
	everyField := func(edn string, program string) func() proto.Message {
		return func() proto.Message {
			v := func() *ptcsidecarv1.Value { return &ptcsidecarv1.Value{Edn: edn} }
			return &ptcsidecarv1.EvalTurnRequest{Program: program, Data: &ptcsidecarv1.Value{Edn: "{:x " + edn + "}"},
				Prelude:         &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "a", Value: v()}, {Name: "b", Value: v()}}},
				PreviousResults: []*ptcsidecarv1.Value{v(), v(), v()}, Limits: evalLimits()}
		}
	}
	for _, c := range []struct{ name, edn, program, expect string }{
		{"a vector of 1 MiB of small integers", "[" + strings.Repeat("1 ", 1<<19) + "]", "(count (concat *1 *2 *3 a b (:x data/x)))", "RESOURCE_EXHAUSTED"},
		{"a text of 1 MiB", `"` + strings.Repeat("t", 1<<20) + `"`, "(count (str *1 *2 *3 a b))", "INVALID_ARGUMENT"},
	} {
		out = append(out, inputAttack{attack{name: "EvalTurn, in every field at once: " + c.name, method: "EvalTurn", expect: c.expect, kind: kindValues,
			req: everyField(c.edn, c.program)}, 2 * time.Second})
	}
	image := func(data string) *ptcsidecarv1.ContentPart {
		return &ptcsidecarv1.ContentPart{Type: "image", MediaType: "image/png", Data: data}
	}
	// Each ends ok, but 100,000 parts, refused for decoding to more than
	// their bytes allow, naming the field.
	shapes := []struct {
		name, expect string
		msgs         func() []*ptcsidecarv1.ChatMessage
	}{
		{"an image data URL of 4 MiB", "ok", func() []*ptcsidecarv1.ChatMessage {
			return []*ptcsidecarv1.ChatMessage{{Role: "user", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "text", Text: "look"}, image("data:image/png;base64," + strings.Repeat("iVBO", 1<<20))}}}
		}},
		{"100,000 image parts", "INVALID_ARGUMENT", func() []*ptcsidecarv1.ChatMessage {
			parts := make([]*ptcsidecarv1.ContentPart, 100_000)
			for i := range parts {
				parts[i] = image("AAAA")
			}
			return []*ptcsidecarv1.ChatMessage{{Role: "user", Parts: parts}}
		}},
		{"a media type of 1 MiB that lies", "ok", func() []*ptcsidecarv1.ChatMessage {
			return []*ptcsidecarv1.ChatMessage{{Role: "user", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "text", Text: "look"}, {Type: "image", MediaType: "text/html\n" + strings.Repeat("x", 1<<20), Data: "AAAA"}}}}
		}},
		{"reasoning of 4 MiB with a signature of 1 MiB", "ok", func() []*ptcsidecarv1.ChatMessage {
			return []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "thinking", Text: strings.Repeat("hmm ", 1<<20), Signature: strings.Repeat("s", 1<<20)}, {Type: "text", Text: "done"}}},
				{Role: "user", Content: "again"}}
		}},
	}
	for _, shape := range shapes {
		for _, strategy := range []string{"clear-tool-results", "loop-slice", "summarize", "token-budget", "turn-aware"} {
			out = append(out, inputAttack{attack{name: "ToMessages " + strategy + ": " + shape.name, method: "ToMessages", expect: shape.expect, kind: kindHistory,
				req: historyRequest(strategy, shape.msgs)}, 2 * time.Second})
		}
	}
	return out
}

// TestAttacksTwentySecondPass sends every single attack of the
// twenty-second pass three times over both listeners, each to a server
// of its own.
func TestAttacksTwentySecondPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, twentySecondPassAttacks())
}
