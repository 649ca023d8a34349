package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer collects a process's output while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// consoleSpan is the part of the console exporter's JSON that the test reads.
type consoleSpan struct {
	Name        string
	SpanContext struct{ TraceID string }
	Parent      struct {
		SpanID string
		Remote bool
	}
	Attributes []struct {
		Key   string
		Value struct{ Value any }
	}
	Resource []struct {
		Key   string
		Value struct{ Value any }
	}
}

// TestTracesOnTheConsole runs the binary with OTEL_TRACES_EXPORTER=console
// and a caller's traceparent on an HTTP call: the span printed at exit
// continues the caller's trace and carries the cost attributes.
func TestTracesOnTheConsole(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "console")
	t.Setenv("OTEL_SERVICE_NAME", "agent-sidecar")
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, "http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/ToMessages",
		strings.NewReader(toMessagesRequest))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ToMessages over HTTP: %s", resp.Status)
	}
	if code := p.terminate(); code != 0 {
		t.Fatalf("exit code = %d, want 0", code)
	}

	var spans []consoleSpan
	dec := json.NewDecoder(bytes.NewReader(p.stdout.Bytes()))
	for {
		var s consoleSpan
		if err := dec.Decode(&s); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("stdout is not the console exporter's JSON: %v\n%s", err, p.stdout.Bytes())
		}
		spans = append(spans, s)
	}
	if len(spans) != 1 || spans[0].Name != "ptcsidecar.v1.SidecarService/ToMessages" {
		t.Fatalf("spans printed: %+v, want the one ToMessages span", spans)
	}
	s := spans[0]
	if s.SpanContext.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent.SpanID != "00f067aa0ba902b7" || !s.Parent.Remote {
		t.Errorf("span does not continue the caller's trace: trace %s, parent %s", s.SpanContext.TraceID, s.Parent.SpanID)
	}
	attrs := map[string]any{}
	for _, a := range s.Attributes {
		attrs[a.Key] = a.Value.Value
	}
	for _, key := range []string{"ptc.strategy", "ptc.turns", "ptc.tokens_before", "ptc.tokens_after", "ptc.tool_calls"} {
		if _, ok := attrs[key]; !ok {
			t.Errorf("span lacks %s: %v", key, attrs)
		}
	}
	if attrs["ptc.turns"] != float64(1) {
		t.Errorf("ptc.turns = %v, want 1", attrs["ptc.turns"])
	}
	service := ""
	for _, a := range s.Resource {
		if a.Key == "service.name" {
			service, _ = a.Value.Value.(string)
		}
	}
	if service != "agent-sidecar" {
		t.Errorf("service.name %q, want OTEL_SERVICE_NAME's agent-sidecar", service)
	}
}
