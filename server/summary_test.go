package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// summaryHistory is a chat agent's log after n tool loops, each result
// large enough that a few of them cross a small trigger.
func summaryHistory(n int) []*ptcsidecarv1.ChatMessage {
	h := []*ptcsidecarv1.ChatMessage{
		{Role: "system", Content: "You look up invoices."},
		{Role: "user", Content: "Total the open invoices of account AC-7781."},
	}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("call_%d", i)
		h = append(h,
			&ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "get_invoice", Arguments: fmt.Sprintf(`{"n":%d}`, i)}}},
			&ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: fmt.Sprintf(`{"invoice":"INV-%05d","amount":%d,"note":"%s"}`, i, 1000+i, strings.Repeat("line item ", 60))},
		)
	}
	return h
}

// TestSummaryRoundTripOverGRPC: past the trigger the response carries a
// summary request; the summary sent back takes the place of what it
// covers, and the next call's prompt starts with the same messages; a
// summary sent with a history whose covered messages differ is
// INVALID_ARGUMENT naming summary.digest.
func TestSummaryRoundTripOverGRPC(t *testing.T) {
	client := sidecarClient(t)
	ctx := context.Background()
	opts := &ptcsidecarv1.Options{Strategy: "summarize", SummaryTrigger: i32(600), SummaryKeep: i32(2)}
	h := summaryHistory(6)
	first, err := client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	r := first.GetSummaryRequest()
	if r == nil || !first.GetStats().GetSummaryRequested() {
		t.Fatalf("%d tokens past a trigger of 600 and no summary request", first.GetStats().GetTokensAfter())
	}
	// The prompt to summarise is named by its count of the answer's
	// messages, not repeated: the request adds the instruction alone.
	if len(r.GetMessages()) != 1 || r.GetPrefixMessages() < 2 || int(r.GetPrefixMessages()) > len(first.GetMessages()) {
		t.Fatalf("the request names %d of the answer's %d messages and adds %d, want a prefix and the instruction", r.GetPrefixMessages(), len(first.GetMessages()), len(r.GetMessages()))
	}
	last := r.GetMessages()[0]
	if last.GetRole() != "user" || !strings.HasPrefix(last.GetContent(), "Summarise the conversation above") {
		t.Errorf("the request ends with %v, not the instruction", last)
	}
	whole, err := client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: h, Options: withSummaryRequestForm(opts, "whole")})
	if err != nil {
		t.Fatal(err)
	}
	wr := whole.GetSummaryRequest()
	if wr.GetPrefixMessages() != 0 || len(wr.GetMessages()) != int(r.GetPrefixMessages())+1 || !proto.Equal(wr.GetMessages()[len(wr.GetMessages())-1], last) {
		t.Fatalf("summary_request_form whole: want the %d messages repeated then the instruction, got %d (prefix %d)", r.GetPrefixMessages(), len(wr.GetMessages()), wr.GetPrefixMessages())
	}
	for i, m := range wr.GetMessages()[:r.GetPrefixMessages()] {
		if !proto.Equal(m, first.GetMessages()[i]) {
			t.Errorf("request message %d is not the prompt's: %v", i, m)
		}
	}
	if r.GetAskedAt() != int32(len(h)) || r.GetThrough() != 12 {
		t.Errorf("through %d asked_at %d, want 12 and %d", r.GetThrough(), r.GetAskedAt(), len(h))
	}
	sum := &ptcsidecarv1.Summary{Text: "INV-00001..INV-00005, amounts 1001..1005", Through: r.GetThrough(), AskedAt: r.GetAskedAt(), Digest: r.GetDigest()}
	second, err := client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: h, Options: opts, Summary: sum})
	if err != nil {
		t.Fatal(err)
	}
	msgs := second.GetMessages()
	if len(msgs) != 4 || msgs[0].GetRole() != "system" || !strings.HasSuffix(msgs[1].GetContent(), sum.Text) || !proto.Equal(msgs[2], h[12]) {
		t.Fatalf("want system, summary, history[12:], got %v", msgs)
	}
	if st := second.GetStats(); st.GetMessagesSummarized() != 11 || st.GetSummaryTokens() == 0 || second.GetSummaryRequest() != nil {
		t.Errorf("stats %v, summary request %v", st, second.GetSummaryRequest())
	}
	next := summaryHistory(7)
	third, err := client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: next, Options: opts, Summary: sum})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := third.GetStats().GetStablePrefixTokens(), second.GetStats().GetTokensAfter(); got != want {
		t.Errorf("the call after the summary reads %d tokens from the cache, want all %d the summarised call sent", got, want)
	}

	other := summaryHistory(6)
	other[3] = &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: "call_1", Content: "something else"}
	_, err = client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: other, Options: opts, Summary: sum})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "summary.digest: ") {
		t.Fatalf("a summary of other messages: %v, want INVALID_ARGUMENT naming summary.digest", err)
	} else {
		checkFieldViolation(t, st)
	}
	_, err = client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{History: h, Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}, Summary: sum})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "summary: ") {
		t.Fatalf("a summary to loop-slice: %v, want INVALID_ARGUMENT naming summary", err)
	}
}

// withSummaryRequestForm is a copy of opts with summary_request_form set.
func withSummaryRequestForm(opts *ptcsidecarv1.Options, form string) *ptcsidecarv1.Options {
	o := proto.Clone(opts).(*ptcsidecarv1.Options)
	o.SummaryRequestForm = form
	return o
}
