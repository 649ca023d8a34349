package main_test

// A fourteenth pass of attacks of issue 33's classes, aimed at the
// server, the strategies and the transports: RenderTrace over texts of
// millions of short lines, carriage returns and tabs (what a person's
// terminal view makes of a request's bytes), and content codings named in
// any case over every HTTP transport. Each request attack is sent three
// times over each listener to a server of its own and judged as the input
// attacks are (runInputAttack).

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// fourteenthPassAttacks are RenderTrace requests whose texts render to
// many lines: a print, a raw response, a history message and a tool's
// answer, each of about size bytes, in both views.
func fourteenthPassAttacks(size int) []inputAttack {
	turn := func(print, raw string) *ptcsidecarv1.Turn {
		return &ptcsidecarv1.Turn{Number: 1, Program: "(println data/rows)", Success: true,
			Prints: []string{print}, RawResponse: raw, Result: &ptcsidecarv1.Value{Edn: "nil"}}
	}
	texts := []struct{ name, text string }{
		{"newlines", strings.Repeat("\n", size)},
		{"carriage returns", strings.Repeat("\r", size)},
		{"tabs", strings.Repeat("\t", size)},
		{"one-letter lines", strings.Repeat("a\n", size/2)},
	}
	var out []inputAttack
	for _, x := range texts {
		out = append(out,
			inputAttack{attack{name: "RenderTrace of a print of " + x.name, method: "RenderTrace", expect: "ok", kind: kindRendered,
				req: func() proto.Message {
					return &ptcsidecarv1.RenderTraceRequest{Turns: []*ptcsidecarv1.Turn{turn(x.text, "")}}
				}}, 4 * time.Second},
			inputAttack{attack{name: "RenderTrace of a history message of " + x.name, method: "RenderTrace", expect: "ok", kind: kindRendered,
				req: func() proto.Message {
					return &ptcsidecarv1.RenderTraceRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: x.text}},
						Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}}
				}}, 4 * time.Second})
	}
	half := strings.Repeat("\n", size/2)
	out = append(out,
		inputAttack{attack{name: "RenderTrace of a print and a raw response of newlines, compressed view", method: "RenderTrace", expect: "ok", kind: kindRendered,
			req: func() proto.Message {
				return &ptcsidecarv1.RenderTraceRequest{View: "compressed", Raw: true, Turns: []*ptcsidecarv1.Turn{turn(half, half)},
					Options: &ptcsidecarv1.Options{Strategy: "full"}}
			}}, 4 * time.Second},
		inputAttack{attack{name: "RenderTrace of a tool answer of newlines, compressed view", method: "RenderTrace", expect: "ok", kind: kindRendered,
			req: func() proto.Message {
				return &ptcsidecarv1.RenderTraceRequest{View: "compressed", Options: &ptcsidecarv1.Options{Strategy: "turn-aware"},
					History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"},
						{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: "c1", Name: "read", Arguments: "{}"}}},
						{Role: "tool", ToolCallId: "c1", Content: strings.Repeat("\n", size)}}}
			}}, 4 * time.Second},
	)
	return out
}

// TestAttacksFourteenthPass sends every attack of the fourteenth pass
// three times over both listeners, each to a server of its own.
func TestAttacksFourteenthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, fourteenthPassAttacks(4_800_000))
}

// TestAttackCodingNamesAnyCase: an HTTP content coding named in upper or
// mixed case (RFC 9110: case-insensitive) is the coding, in Connect's
// unary and streamed calls: a small compressed request is answered, and a
// bomb of 200 MiB in 200 KB of gzip is refused RESOURCE_EXHAUSTED by its
// decompressed size within 16 times its bytes plus 32 MiB, the same every
// time. A coding the server does not take stays refused (415). gRPC's and
// gRPC-Web's grpc-encoding is matched as sent, as grpc-go's server does
// it: `GZIP` there is UNIMPLEMENTED over both listeners, in gRPC's way
// (no HTTP 415, which a gRPC client reports as a transport failure).
func TestAttackCodingNamesAnyCase(t *testing.T) {
	skipIfShort(t) // a server
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	runs := 3
	if raceSlowdown > 1 {
		runs = 1 // the outcome is decided by the bytes and headers alone
	}
	for _, c := range compressedTransports() {
		if c.header["Grpc-Encoding"] != "" {
			for _, name := range []string{"GZIP", "deflate", "snappy"} {
				t.Run(c.name+"/"+name, func(t *testing.T) {
					c.header = renamedCoding(c.header, name)
					if got := c.send(t, p, c.body(t, 200_000)); got != "UNIMPLEMENTED" {
						t.Errorf("grpc-encoding %s: %s, want UNIMPLEMENTED, as grpc-go answers", name, got)
					}
				})
			}
			continue
		}
		for _, name := range []string{"GZIP", "Gzip", "gZiP"} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				c.header = renamedCoding(c.header, name)
				if got := c.send(t, p, c.body(t, 200_000)); got != "ok" {
					t.Errorf("200 KB compressed, coding %q: %s, want ok", name, got)
				}
				if raceSlowdown > 1 {
					return // 200 MiB of gzip takes the race detector a minute
				}
				bomb := c.body(t, 200<<20)
				before := peakRSSBytes(t, p.cmd.Process.Pid)
				for i := range runs {
					if got := c.send(t, p, bomb); got != "RESOURCE_EXHAUSTED" {
						t.Errorf("run %d: 200 MiB in %d bytes of gzip, coding %q: %s, want RESOURCE_EXHAUSTED", i+1, len(bomb), name, got)
					}
				}
				peak := peakRSSBytes(t, p.cmd.Process.Pid) - before
				if bound := 16*int64(len(bomb)) + attackOverhead; peak > bound {
					t.Errorf("peak RSS rose %d MiB, over 16 times the %d bytes sent plus 32 MiB", peak/mib, len(bomb))
				}
			})
		}
	}
	// A coding the server does not take, in any case, is still refused.
	for _, name := range []string{"DEFLATE", "X-GZIP", "GZIP, GZIP", "Br"} {
		req, err := http.NewRequestWithContext(testContext(t), http.MethodPost,
			"http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/ToMessages", bytes.NewReader(gzipped(t, `{"options":{"mission":"`, 'x', 1000, `"}}`)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", name)
		resp, err := httpClients()["HTTP/2"].Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, mib))
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Encoding %q: %s, want 415 Unsupported Media Type", name, resp.Status)
		}
	}
}

// renamedCoding is header with each coding it names replaced by name.
func renamedCoding(header map[string]string, name string) map[string]string {
	out := map[string]string{}
	for k, v := range header {
		if strings.HasSuffix(k, "-Encoding") {
			v = name
		}
		out[k] = v
	}
	return out
}
