package server

import (
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// An answer is sent only when the caller can receive it: a gRPC client
// refuses a message over its receive limit (4 MiB by default) after the
// server did the work and sent it, with an error that names neither the
// request nor what to change. options.max_response_bytes states the
// caller's limit (default: the gRPC default); a larger answer is refused
// here, before it is sent, with RESOURCE_EXHAUSTED naming the option. A
// caller that raised its client's limit raises the option with it and
// gets what earlier releases sent.

// checkAnswerSize refuses answer when its wire size passes limit.
func checkAnswerSize(answer proto.Message, limit int) error {
	size := proto.Size(answer)
	if size <= limit {
		return nil
	}
	return answerTooLarge(size, limit, answer)
}

// answerTooLarge is the refusal of an answer of size bytes, or of one
// whose rendering stopped as it passed limit (size 0: the strategies and
// RenderTrace do not build an answer past it, strategies.AnswerRoom).
// answer, when known, chooses the advice.
func answerTooLarge(size, limit int, answer proto.Message) error {
	would := fmt.Sprintf("would be %d bytes, more than the %d the caller receives", size, limit)
	if size == 0 {
		would = fmt.Sprintf("passed the %d bytes the caller receives, where its rendering stopped", limit)
	}
	advice := "send less, or choose a strategy that sends less"
	if r, ok := answer.(*ptcsidecarv1.ToMessagesResponse); ok && wholeSummaryRequest(r.GetSummaryRequest()) {
		advice = `set options.summary_request_form to "prefix" (the default), whose summary request names the prompt by its message count instead of repeating it`
	}
	return status.Error(codes.ResourceExhausted, fmt.Sprintf(
		"options.max_response_bytes: the answer %s (a gRPC client's default is %d); %s, or raise max_response_bytes with the client's receive limit",
		would, defaultReceiveLimit, advice))
}

// defaultReceiveLimit is what a gRPC client receives by default.
const defaultReceiveLimit = 4 << 20

// wholeSummaryRequest reports whether r repeats the prompt it asks to
// summarise (summary_request_form "whole").
func wholeSummaryRequest(r *ptcsidecarv1.SummaryRequest) bool {
	return r != nil && r.GetPrefixMessages() == 0 && len(r.GetMessages()) > 1
}
