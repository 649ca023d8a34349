package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/vanguard"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// summarizeAnswer is a ToMessages answer whose summary request repeats
// the first k of its n messages (one holding text), then adds one.
func summarizeAnswer(n, k int, text string) *ptcsidecarv1.ToMessagesResponse {
	out := &ptcsidecarv1.ToMessagesResponse{Stats: &ptcsidecarv1.CompressionStats{Strategy: "summarize", SummaryRequested: true}}
	for i := range n {
		m := &ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("step %d", i)}
		if i == 1 {
			m = &ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: "call_1", Name: "edit", Arguments: text}},
				Parts: []*ptcsidecarv1.ContentPart{{Type: "thinking", Text: "why", Signature: "sig"}}}
		}
		out.Messages = append(out.Messages, m)
	}
	sr := &ptcsidecarv1.SummaryRequest{Through: int32(k), AskedAt: int32(n), Digest: "v2:sha256:00"}
	for i := range k {
		sr.Messages = append(sr.Messages, proto.Clone(out.Messages[i]).(*ptcsidecarv1.ChatMessage))
	}
	sr.Messages = append(sr.Messages, &ptcsidecarv1.ChatMessage{Role: "user", Content: "Summarise."})
	out.SummaryRequest = sr
	return out
}

// TestUnmarshalSharing: the HTTP path decodes a ToMessages answer to what
// protobuf decodes, its summary request's repeated messages being the
// answer's own, and anything it cannot walk as protobuf does.
func TestUnmarshalSharing(t *testing.T) {
	codec := movingProtoCodec{vanguard.NewProtoCodec(protoregistry.GlobalTypes)}
	edited := summarizeAnswer(6, 4, "x")
	edited.SummaryRequest.Messages[2].Content = "changed"
	cases := map[string]*ptcsidecarv1.ToMessagesResponse{
		"summary request":           summarizeAnswer(8, 5, `{"old_string": "`+strings.Repeat("line\n", 1000)+`"}`),
		"no summary request":        {Messages: summarizeAnswer(3, 0, "y").Messages, Stats: &ptcsidecarv1.CompressionStats{Strategy: "full"}},
		"a repeated message edited": edited,
		"empty":                     {},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := proto.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			got := &ptcsidecarv1.ToMessagesResponse{}
			if err := codec.Unmarshal(data, got); err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("decoded\n%v\nwant\n%v", got, want)
			}
			for i, m := range got.GetSummaryRequest().GetMessages() {
				repeated := i < len(got.Messages) && proto.Equal(m, want.Messages[i])
				if shared := i < len(got.Messages) && m == got.Messages[i]; shared != repeated {
					t.Errorf("summary request message %d: shared %v, repeats the answer's %v", i, shared, repeated)
				}
			}
		})
	}
	// Bytes that are no such message are refused as protobuf refuses them.
	valid, _ := proto.Marshal(summarizeAnswer(3, 2, "z"))
	for _, bad := range [][]byte{{0x0a, 0x05, 0x01}, append(append([]byte{}, valid...), 0x52, 0x02, 0x0a, 0x7f), {0x0a, 0x02, 0x0a, 0x80}} {
		want := proto.Unmarshal(bad, &ptcsidecarv1.ToMessagesResponse{})
		got := codec.Unmarshal(bad, &ptcsidecarv1.ToMessagesResponse{})
		if (got == nil) != (want == nil) {
			t.Errorf("% x: decoded with error %v, protobuf's %v", bad, got, want)
		}
	}
}

// TestKeptAnswer: an answer kept until the handler returns reaches the
// caller as the handler wrote it: headers, code, body, trailers.
func TestKeptAnswer(t *testing.T) {
	handler := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Add("Trailer", "Grpc-Status")
		w.Header().Add("Trailer", "Grpc-Message")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("head"))
		w.Write(bytes.Repeat([]byte("b"), 3*answerChunk+7))
		w.(http.Flusher).Flush()
		w.Header().Set("Grpc-Status", "0")
		w.Header().Set(http.TrailerPrefix+"X-Late", "late")
	}
	direct := httptest.NewRecorder()
	handler(direct, nil)
	kept := &keptAnswer{header: http.Header{}}
	handler(kept, nil)
	if len(kept.chunks) < 4 {
		t.Errorf("the body is kept in %d chunks, want pieces of at most %d bytes", len(kept.chunks), answerChunk)
	}
	via := httptest.NewRecorder()
	kept.handOn(via)
	for _, c := range kept.chunks {
		if c != nil {
			t.Fatal("a chunk is still held after it was handed on")
		}
	}
	want, got := direct.Result(), via.Result()
	if got.StatusCode != want.StatusCode || got.Header.Get("Content-Type") != want.Header.Get("Content-Type") || !bytes.Equal(via.Body.Bytes(), direct.Body.Bytes()) {
		t.Errorf("handed on %s %v (%d bytes), want %s %v (%d bytes)", got.Status, got.Header, via.Body.Len(), want.Status, want.Header, direct.Body.Len())
	}
	if fmt.Sprint(got.Trailer) != fmt.Sprint(want.Trailer) {
		t.Errorf("trailers %v, want %v", got.Trailer, want.Trailer)
	}
	// Nothing written, nothing handed on.
	empty := httptest.NewRecorder()
	(&keptAnswer{header: http.Header{}}).handOn(empty)
	if empty.Body.Len() != 0 || len(empty.Header()) != 0 {
		t.Errorf("an empty answer handed on %v", empty.Result())
	}
}

// BenchmarkHTTPSummarizeAnswer is a summarize ToMessages over the HTTP
// endpoint in JSON whose history holds one edit argument of 5 MiB, which
// its answer holds twice (the prompt and the summary request): the
// memory the HTTP path spends on such an answer, server and client in
// one process.
func BenchmarkHTTPSummarizeAnswer(b *testing.B) {
	arg := fmt.Sprintf(`{"file_path": "/srv/a.go", "old_string": %q}`, strings.Repeat("line /srv/y.go 1\n", 5<<16))
	var history []*ptcsidecarv1.ChatMessage
	for i := range 3 {
		a := `{"path": "/srv/b.go"}`
		if i == 0 {
			a = arg
		}
		id := fmt.Sprintf("call_%d", i)
		history = append(history, &ptcsidecarv1.ChatMessage{Role: "user", Content: fmt.Sprintf("step %d", i)},
			&ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "edit", Arguments: a}}},
			&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: "ok"},
			&ptcsidecarv1.ChatMessage{Role: "assistant", Content: fmt.Sprintf("done %d", i)})
	}
	body, err := protojson.Marshal(&ptcsidecarv1.ToMessagesRequest{History: history, Options: &ptcsidecarv1.Options{Strategy: "summarize"}})
	if err != nil {
		b.Fatal(err)
	}
	cfg := defaultServeConfig()
	cfg.httpListen = "127.0.0.1:0"
	discard := slog.New(slog.DiscardHandler)
	sidecar := newSidecar(cfg, memo.New(int64(cfg.memoBytes)))
	srv, _ := newGRPCServer(cfg, discard, discard, nil, sidecar)
	web, err := newHTTPEndpoint(cfg, srv, sidecar, nil)
	if err != nil {
		b.Fatal(err)
	}
	go web.serve(discard)
	defer web.close()
	url := "http://" + web.addr() + "/ptcsidecar.v1.SidecarService/ToMessages"
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || n < 2*int64(len(arg)) {
			b.Fatalf("%s, %d bytes", resp.Status, n)
		}
	}
}
