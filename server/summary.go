package server

import (
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// decodeSummary reads a ToMessagesRequest's summary; nil when it has none.
// Its fields are checked against the history by the summarize strategy.
func decodeSummary(s *ptcsidecarv1.Summary) *strategies.Summary {
	if s == nil {
		return nil
	}
	return &strategies.Summary{Text: s.GetText(), Through: int(s.GetThrough()), AskedAt: int(s.GetAskedAt()), Digest: s.GetDigest()}
}

// encodeSummaryRequest writes a response's summary request; nil when it
// has none.
func encodeSummaryRequest(r *strategies.SummaryRequest) *ptcsidecarv1.SummaryRequest {
	if r == nil {
		return nil
	}
	return &ptcsidecarv1.SummaryRequest{PrefixMessages: int32(r.PrefixMessages), Messages: encodeChatMessages(r.Messages),
		Through: int32(r.Through), AskedAt: int32(r.AskedAt), Digest: r.Digest}
}
