package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// largeAnswerRequests are the request shapes whose answers are largest
// for their size, for a strategy that reads input: texts a strategy
// copies whole (contents, tool results, programs), control characters
// that JSON writes six times longer (a program sent as a tool call's
// arguments), and values rendered without limits (full's results).
func largeAnswerRequests(input strategies.Input, size int) map[string]*ptcsidecarv1.ToMessagesRequest {
	if input == strategies.InputHistory {
		n := size / (64 << 10)
		h := []*ptcsidecarv1.ChatMessage{{Role: "system", Content: "You look up invoices."}, {Role: "user", Content: "Total them."}}
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("call_%d", i)
			h = append(h,
				&ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "get_invoice", Arguments: fmt.Sprintf(`{"n":%d}`, i)}}},
				&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: strings.Repeat("\"\x01\n", 64<<10/3)})
		}
		h = append(h, &ptcsidecarv1.ChatMessage{Role: "assistant", Content: "Done."})
		return map[string]*ptcsidecarv1.ToMessagesRequest{"tool results of quotes and control characters": {History: h}}
	}
	turns := func(program string, result string) []*ptcsidecarv1.Turn {
		var ts []*ptcsidecarv1.Turn
		for used := 0; used < size; used += len(program) + len(result) {
			ts = append(ts, &ptcsidecarv1.Turn{Program: program, Result: edn(result)})
		}
		return ts
	}
	controls := strings.Repeat("\x01", 256<<10)
	text := `"` + strings.Repeat("\\n", 128<<10) + `"`
	return map[string]*ptcsidecarv1.ToMessagesRequest{
		"programs of control characters":          {Turns: turns(controls, "1")},
		"programs of control characters as calls": {Turns: turns(controls, "1"), Options: &ptcsidecarv1.Options{ProgramForm: "tool_call"}},
		"results of escaped line breaks":          {Turns: turns("(f)", text)},
	}
}

// TestEveryAnswerFitsTheCallersLimit: for every strategy and the request
// shapes whose answers are largest, a client with gRPC's default receive
// limit either receives the answer or gets RESOURCE_EXHAUSTED naming
// options.max_response_bytes, sent before the answer; never the client's
// own refusal of an answer the server sent. With the limit raised, the
// answer is sent whole, and it is at most a bounded multiple of the
// request.
func TestEveryAnswerFitsTheCallersLimit(t *testing.T) {
	const size = 2 << 20
	svc := New(Config{Limits: lisp.DefaultLimits()})
	client := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc, grpc.MaxRecvMsgSize(16<<20)))
	ctx := context.Background()
	for _, st := range strategies.All() {
		for shape, req := range largeAnswerRequests(st.Input(), size) {
			t.Run(st.Name()+"/"+shape, func(t *testing.T) {
				req = proto.Clone(req).(*ptcsidecarv1.ToMessagesRequest)
				if req.Options == nil {
					req.Options = &ptcsidecarv1.Options{}
				}
				req.Options.Strategy = st.Name()
				if st.Name() == "token-budget" {
					req.Options.MaxTokens = i32(1 << 20)
				}
				answer, err := client.ToMessages(ctx, req)
				switch {
				case err == nil:
					if n := proto.Size(answer); n > defaultReceiveLimit {
						t.Fatalf("a %d-byte answer reached a default client", n)
					}
				case status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "options.max_response_bytes"):
					t.Fatalf("want the answer or the refusal naming options.max_response_bytes, got %v", err)
				}
				raised := proto.Clone(req).(*ptcsidecarv1.ToMessagesRequest)
				raised.Options.MaxResponseBytes = i32(1 << 30)
				whole, err := svc.ToMessages(ctx, raised)
				if err != nil {
					t.Fatal(err)
				}
				in, out := proto.Size(req), proto.Size(whole)
				t.Logf("request %d bytes, answer %d bytes (%.2fx)", in, out, float64(out)/float64(in))
				if err == nil && answer != nil && proto.Size(answer) != out {
					t.Errorf("the default client's answer is %d bytes, the raised limit's %d", proto.Size(answer), out)
				}
				if (answer == nil) != (out > defaultReceiveLimit) {
					t.Errorf("a %d-byte answer was refused or sent against a %d limit", out, defaultReceiveLimit)
				}
				if out > 7*in+64<<10 {
					t.Errorf("a %d-byte request answered %d bytes, more than 7 times it", in, out)
				}
			})
		}
	}
}

// TestSummaryRequestFitsADefaultClient: a 2.1 MiB history past the
// trigger. The summary request in its default form names the prompt by
// its count of the answer's messages, and the answer reaches a client with
// gRPC's default receive limit; in the form that repeats the prompt
// (summary_request_form "whole", what earlier releases sent) the answer
// holds the history twice, over 4 MiB, and is refused naming the options
// to change, unless max_response_bytes is raised.
func TestSummaryRequestFitsADefaultClient(t *testing.T) {
	var h []*ptcsidecarv1.ChatMessage
	for len(h) == 0 || proto.Size(&ptcsidecarv1.ToMessagesRequest{History: h}) < 2100<<10 {
		h = summaryHistory(len(h)/2 + 400)
	}
	client := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, New(Config{Limits: lisp.DefaultLimits()}), grpc.MaxRecvMsgSize(16<<20)))
	ctx := context.Background()
	in := &ptcsidecarv1.ToMessagesRequest{History: h, Options: &ptcsidecarv1.Options{Strategy: "summarize"}}
	answer, err := client.ToMessages(ctx, in)
	if err != nil {
		t.Fatalf("the default form: %v", err)
	}
	r := answer.GetSummaryRequest()
	if r == nil || r.GetPrefixMessages() == 0 || len(r.GetMessages()) != 1 {
		t.Fatalf("want a summary request naming its prefix, got %d messages after %d", len(r.GetMessages()), r.GetPrefixMessages())
	}
	t.Logf("request %d bytes, answer %d bytes in the default form", proto.Size(in), proto.Size(answer))

	whole := proto.Clone(in).(*ptcsidecarv1.ToMessagesRequest)
	whole.Options.SummaryRequestForm = "whole"
	_, err = client.ToMessages(ctx, whole)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "options.max_response_bytes") || !strings.Contains(err.Error(), "summary_request_form") {
		t.Fatalf("the whole form to a default client: want RESOURCE_EXHAUSTED naming max_response_bytes and summary_request_form, got %v", err)
	}
	whole.Options.MaxResponseBytes = i32(16 << 20)
	raised, err := client.ToMessages(ctx, whole, grpc.MaxCallRecvMsgSize(16<<20))
	if err != nil {
		t.Fatalf("the whole form with the limit raised: %v", err)
	}
	wr := raised.GetSummaryRequest()
	if wr.GetPrefixMessages() != 0 || len(wr.GetMessages()) != int(r.GetPrefixMessages())+1 {
		t.Fatalf("the whole form: want %d messages repeated then the instruction, got %d", r.GetPrefixMessages(), len(wr.GetMessages()))
	}
	for i, m := range wr.GetMessages()[:r.GetPrefixMessages()] {
		if !proto.Equal(m, answer.GetMessages()[i]) {
			t.Fatalf("message %d of the whole form is not the answer's", i)
		}
	}
	t.Logf("answer %d bytes in the whole form", proto.Size(raised))
}

// TestRenderTraceFitsTheCallersLimit: a trace writes a border on every
// line, so a request of empty lines renders four times its size; past the
// caller's limit it is refused naming options.max_response_bytes, and
// sent whole with the limit raised.
func TestRenderTraceFitsTheCallersLimit(t *testing.T) {
	client := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, New(Config{Limits: lisp.DefaultLimits()}), grpc.MaxRecvMsgSize(16<<20)))
	ctx := context.Background()
	in := &ptcsidecarv1.RenderTraceRequest{Turns: []*ptcsidecarv1.Turn{{Program: strings.Repeat("\n", 1200<<10), Result: edn("1")}}}
	_, err := client.RenderTrace(ctx, in)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "options.max_response_bytes") {
		t.Fatalf("want RESOURCE_EXHAUSTED naming options.max_response_bytes, got %v", err)
	}
	in.Options = &ptcsidecarv1.Options{MaxResponseBytes: i32(64 << 20)}
	out, err := client.RenderTrace(ctx, in, grpc.MaxCallRecvMsgSize(64<<20))
	if err != nil {
		t.Fatal(err)
	}
	if n := proto.Size(out); n <= defaultReceiveLimit {
		t.Fatalf("a %d-byte trace: the request no longer renders past the default limit", n)
	}
}
