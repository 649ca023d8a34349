package main_test

// A twelfth pass of attacks of issue 33's classes, aimed at the server and
// the strategies and what the last releases added there: compressed
// requests that do not decompress, over every transport that takes them;
// the newer kinds of chat content (images inline and as data URLs, PDFs of
// many page objects, provider compaction, reasoning cleared by
// keep_thinking_turns, summaries the caller's model wrote) and the program
// sent as a tool call, each request-sized; what a ToMessages answer is
// worth against what was sent. Each request attack is sent three times
// over each listener to a server of its own and judged as the input
// attacks are (runInputAttack).

import (
	"bytes"
	bin "encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// corruptions are ways a gzip stream the caller sends can be broken,
// each applied to a whole stream z.
var corruptions = []struct {
	name  string
	apply func(z []byte) []byte
}{
	{"cut in half", func(z []byte) []byte { return z[:len(z)/2] }},
	{"a wrong checksum", func(z []byte) []byte {
		out := append([]byte(nil), z...)
		out[len(out)-8] ^= 0xff // the CRC-32 of the trailer
		return out
	}},
	{"a wrong length", func(z []byte) []byte {
		out := append([]byte(nil), z...)
		out[len(out)-1] ^= 0x40 // the trailer's size, mod 2^32
		return out
	}},
	{"no gzip at all", func(z []byte) []byte { return []byte("this is not gzip, though the request says it is") }},
}

// corrupted is body, a compressedTransport's request, with its gzip
// stream broken by apply (and its envelope's length made right).
func (c compressedTransport) corrupted(body []byte, apply func([]byte) []byte) []byte {
	if !c.enveloped {
		return apply(body)
	}
	z := apply(body[5:])
	env := make([]byte, 5, 5+len(z))
	env[0] = body[0]
	bin.BigEndian.PutUint32(env[1:], uint32(len(z)))
	return append(env, z...)
}

// TestAttackCorruptCompressedBodies: a compressed request whose gzip is
// cut short, fails its checksum or its length, or is no gzip at all, over
// every transport that takes compressed messages, is the caller's fault:
// INVALID_ARGUMENT, never INTERNAL or UNKNOWN (an HTTP 500), the same every
// time; and the server serves a good one after.
func TestAttackCorruptCompressedBodies(t *testing.T) {
	skipIfShort(t) // a server
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	for _, c := range compressedTransports() {
		t.Run(c.name, func(t *testing.T) {
			good := c.body(t, 200_000)
			runs := 3
			if raceSlowdown > 1 {
				runs = 1 // the outcome is decided by the bytes alone
			}
			for _, k := range corruptions {
				for i := range runs {
					if got := c.send(t, p, c.corrupted(good, k.apply)); got != "INVALID_ARGUMENT" {
						t.Errorf("gzip %s, run %d: %s, want INVALID_ARGUMENT", k.name, i+1, got)
					}
				}
			}
			if got := c.send(t, p, good); got != "ok" {
				t.Errorf("the whole request after them: %s, want ok", got)
			}
		})
	}
}

// twelfthPassAttacks are request-sized chat histories and runs in what
// the newer message kinds and the program's tool-call form carry, each
// through every strategy that reads it; size is about the bytes each
// carries.
func twelfthPassAttacks(size int) []inputAttack {
	callID := func(i int) string { return fmt.Sprintf("call_%d", i) }
	pathArgs := func(i int) string { return fmt.Sprintf(`{"path": "/srv/app/mod%d/main.go"}`, i) }
	loops := func(first ...*ptcsidecarv1.ChatMessage) []*ptcsidecarv1.ChatMessage {
		return append(first, toolLoops(3, callID, pathArgs, func(int) string { return "ok" })...)
	}
	budget := int32(20_000)
	// A PNG header of 65,536 x 65,536 pixels, then bytes that are no image.
	png := "iVBORw0KGgoAAAANSUhEUgABAAAAAQAACAIAAAA="
	// What a compaction's summary or a thinking block says besides.
	filler := strings.Repeat("the user asked for the totals by region ", 45)
	shapes := []struct {
		name string
		msgs func() []*ptcsidecarv1.ChatMessage
	}{
		{fmt.Sprintf("an image as a data URL of %d bytes", size), func() []*ptcsidecarv1.ChatMessage {
			return loops(&ptcsidecarv1.ChatMessage{Role: "user", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "text", Text: "what is in it?"}, {Type: "image", Url: "data:image/png;base64," + png[:36] + strings.Repeat("QUJD", size/4)}}})
		}},
		{fmt.Sprintf("%d images of 65,536 x 65,536 pixels", size/400), func() []*ptcsidecarv1.ChatMessage {
			parts := make([]*ptcsidecarv1.ContentPart, size/400)
			for i := range parts {
				parts[i] = &ptcsidecarv1.ContentPart{Type: "image", Data: png, MediaType: "image/png"}
			}
			return loops(&ptcsidecarv1.ChatMessage{Role: "user", Parts: append(parts, &ptcsidecarv1.ContentPart{Type: "text", Text: "compare them"})})
		}},
		{fmt.Sprintf("a PDF of %d bytes of page objects", size), func() []*ptcsidecarv1.ChatMessage {
			// "%PDF-1.4\n" then "/Type /Page\n" over and over, in base64.
			return loops(&ptcsidecarv1.ChatMessage{Role: "user", Parts: []*ptcsidecarv1.ContentPart{
				{Type: "text", Text: "summarise it"}, {Type: "document", MediaType: "application/pdf",
					Data: "JVBERi0xLjQK" + strings.Repeat("L1R5cGUgL1BhZ2UK", size/16)}}})
		}},
		{fmt.Sprintf("%d compactions", size/2000), func() []*ptcsidecarv1.ChatMessage {
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}}
			for i := range size / 2000 {
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "assistant", Parts: []*ptcsidecarv1.ContentPart{
					{Type: "compaction", Text: fmt.Sprintf("so far: /srv/app/mod%d/main.go ", i) + filler}, {Type: "text", Text: "next"}}},
					&ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("step %d", i)})
			}
			return msgs
		}},
		{fmt.Sprintf("%d thinking blocks, 1 kept", size/2000), func() []*ptcsidecarv1.ChatMessage {
			msgs := []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}}
			for i := range size / 2000 {
				msgs = append(msgs, &ptcsidecarv1.ChatMessage{Role: "assistant", Parts: []*ptcsidecarv1.ContentPart{
					{Type: "thinking", Text: fmt.Sprintf("I think /srv/app/mod%d/main.go ", i) + filler, Signature: "c2ln"}, {Type: "redacted_thinking", Data: "ZGF0YQ=="},
					{Type: "text", Text: "next"}}},
					&ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("step %d", i)})
			}
			return msgs
		}},
		// Arguments that are no JSON object are wrapped for Anthropic's API
		// as {"unparsed_arguments": text}: four copies of them a render.
		{fmt.Sprintf("a tool call's arguments of JSON %d deep", size/2), func() []*ptcsidecarv1.ChatMessage {
			deep := strings.Repeat("[", size/2) + strings.Repeat("]", size/2)
			return append([]*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}},
				toolLoops(3, callID, func(i int) string {
					if i == 0 {
						return deep
					}
					return "{}"
				}, func(int) string { return "ok" })...)
		}},
	}
	var out []inputAttack
	for _, s := range shapes {
		for _, st := range chatStrategies {
			out = append(out, inputAttack{attack{name: s.name + ", " + st, method: "ToMessages", expect: "ok", kind: kindHistory,
				req: func() proto.Message {
					o := &ptcsidecarv1.Options{Strategy: st, Provider: "anthropic"}
					if st == "token-budget" {
						o.MaxTokens = &budget
					}
					one := int32(1)
					o.KeepThinkingTurns = &one
					return &ptcsidecarv1.ToMessagesRequest{History: s.msgs(), Options: o}
				}}, 4 * time.Second})
		}
	}
	// The program as a tool call: turns whose call ids are long and all
	// sanitize alike, through every turn strategy.
	for _, st := range strings.Fields("full cache-stable single-user-coalesced summarize-turns") {
		out = append(out, inputAttack{attack{name: fmt.Sprintf("%d turns whose program call ids sanitize alike, %s", size/5000, st), method: "ToMessages", expect: "ok", kind: kindHistory,
			req: func() proto.Message {
				turns := make([]*ptcsidecarv1.Turn, size/5000) // --max-turns is 1,000
				for i := range turns {
					turns[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: fmt.Sprintf("(def v%d %d)", i, i), Success: true,
						Result: &ptcsidecarv1.Value{Edn: "1"}, ProgramCallId: strings.Repeat("é", 2200) + string(rune(0x4E00+i)),
						RawResponse: "I will define it."}
				}
				return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Options: &ptcsidecarv1.Options{Strategy: st, ProgramForm: "tool_call"}}
			}}, 4 * time.Second})
	}
	return out
}

// TestAttacksTwelfthPass sends every attack of the twelfth pass three
// times over both listeners, each to a server of its own.
func TestAttacksTwelfthPass(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "each attack's memory, CPU and time against its bound, on a server of its own")
	runInputAttacks(t, twelfthPassAttacks(4_800_000))
}

// TestAttackMediaTokensSaturate: 40 documents of 65,536 pages named by
// file id (a request of a few kilobytes) are 8.9 billion tokens under
// Anthropic's rule; the statistics say the int32 the wire holds at most,
// never a count wrapped into a small or negative one.
func TestAttackMediaTokensSaturate(t *testing.T) {
	p := start(t, "--listen", "127.0.0.1:0")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	parts := []*ptcsidecarv1.ContentPart{{Type: "text", Text: "read these"}}
	for i := range 40 {
		parts = append(parts, &ptcsidecarv1.ContentPart{Type: "document", FileId: fmt.Sprintf("file_%d", i), Pages: 65_536})
	}
	for _, st := range chatStrategies {
		if st == "token-budget" {
			continue // refuses a request over its budget
		}
		resp, err := client.ToMessages(testContext(t), &ptcsidecarv1.ToMessagesRequest{
			History: []*ptcsidecarv1.ChatMessage{{Role: "user", Parts: parts}, {Role: "assistant", Content: "ok"}},
			Options: &ptcsidecarv1.Options{Strategy: st, Provider: "anthropic"}}, grpc.MaxCallRecvMsgSize(64*mib))
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		s := resp.GetStats()
		if s.GetTokensBefore() != math.MaxInt32 || s.GetTokensAfter() != math.MaxInt32 || s.GetPartTokens() != math.MaxInt32 {
			t.Errorf("%s: tokens before %d, after %d, of parts %d; want %d each", st, s.GetTokensBefore(), s.GetTokensAfter(), s.GetPartTokens(), math.MaxInt32)
		}
	}
}

// TestAttackStackedEncodings: a Connect request whose Content-Encoding
// names an encoding the server does not take (deflate, br, zstd) or
// stacks several (gzip twice, gzip after identity), with 200 MiB of gzip
// behind it, is refused as unsupported before any of it is decompressed:
// HTTP 415, the server's peak RSS within 16 times the bytes sent plus
// 32 MiB, the same every time.
func TestAttackStackedEncodings(t *testing.T) {
	skipIfShort(t) // a server
	skipIfRace(t, "peak RSS of 200 MiB of gzip, which the race detector takes a minute to compress")
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	bomb := gzipped(t, `{"options":{"mission":"`, 'x', 200<<20, `"}}`)
	before := peakRSSBytes(t, p.cmd.Process.Pid)
	for _, enc := range []string{"deflate", "br", "zstd", "gzip, gzip", "identity, gzip", "gzip, identity", "x-gzip"} {
		for i := range 3 {
			req, err := http.NewRequestWithContext(testContext(t), http.MethodPost,
				"http://"+p.httpAddr+"/ptcsidecar.v1.SidecarService/ToMessages", bytes.NewReader(bomb))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Encoding", enc)
			resp, err := httpClients()["HTTP/2"].Do(req)
			if err != nil {
				t.Fatalf("%s: %v", enc, err)
			}
			io.Copy(io.Discard, io.LimitReader(resp.Body, mib))
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnsupportedMediaType {
				t.Errorf("Content-Encoding %q, run %d: %s, want 415 Unsupported Media Type", enc, i+1, resp.Status)
			}
		}
	}
	peak := peakRSSBytes(t, p.cmd.Process.Pid) - before
	t.Logf("%d bytes of gzip under 7 encodings, 3 times each: peak RSS +%d MiB", len(bomb), peak/mib)
	if bound := 16*int64(len(bomb)) + attackOverhead; peak > bound*raceSlowdown {
		t.Errorf("peak RSS rose %d MiB, over 16 times the %d bytes sent plus 32 MiB", peak/mib, len(bomb))
	}
}
