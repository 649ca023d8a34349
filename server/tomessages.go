package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// ToMessages compresses a history into the next message array: the request
// is decoded into a strategies.Request (every Value parsed, every option
// normalized), the chosen strategy renders it, and the result goes back on
// the wire. Bad input is INVALID_ARGUMENT naming the field.
func (s *Service) ToMessages(ctx context.Context, in *ptcsidecarv1.ToMessagesRequest) (*ptcsidecarv1.ToMessagesResponse, error) {
	return s.toMessages(ctx, in, false)
}

// Wire is s as a gRPC server serves it. A request decoded off the wire
// belongs to its call alone, so ToMessages and RenderTrace let go of its
// memory, turns and history messages once they are converted into the
// strategies' form: protobuf holds a Binding and a Value message for each
// binding, 12 times its bytes on the wire for one-line bindings, which
// would otherwise live to the end of the call beside what the strategies
// render (docs/RELIABILITY.md). An in-process caller may send one request
// several times (the report command does), so s itself keeps it whole.
func (s *Service) Wire() ptcsidecarv1.SidecarServiceServer { return wire{s} }

type wire struct{ *Service }

func (w wire) ToMessages(ctx context.Context, in *ptcsidecarv1.ToMessagesRequest) (*ptcsidecarv1.ToMessagesResponse, error) {
	return w.toMessages(ctx, in, true)
}

func (w wire) RenderTrace(ctx context.Context, in *ptcsidecarv1.RenderTraceRequest) (*ptcsidecarv1.RenderTraceResponse, error) {
	return w.renderTrace(ctx, in, true)
}

// toMessages is ToMessages; when drop is set, in's memory, turns and
// history are released once decoded (Wire).
func (s *Service) toMessages(ctx context.Context, in *ptcsidecarv1.ToMessagesRequest, drop bool) (_ *ptcsidecarv1.ToMessagesResponse, err error) {
	defer func() { spanError(ctx, err) }()
	if err := s.checkCounts(in); err != nil {
		return nil, err
	}
	rd := s.newReader(ctx, false)
	defer rd.release() // a panic must not keep the slot
	size := proto.Size(in)
	if err := rd.admitRequest(size); err != nil {
		return nil, err
	}
	defer collectAfterLargeRequest(size)
	req, err := s.decodeToMessages(rd, in, drop)
	if err != nil {
		return nil, requestError(err)
	}
	req.Context = ctx
	req.AnswerLimit = req.Options.MaxResponseBytes
	resp, err := strategies.Render(req)
	rd.release()
	if err != nil {
		return nil, requestError(err)
	}
	out := encodeToMessages(resp)
	if err := checkAnswerSize(out, req.Options.MaxResponseBytes); err != nil {
		return nil, err
	}
	spanToMessages(ctx, len(req.Turns), out.GetStats())
	return out, nil
}

// requestError passes decoding errors (already INVALID_ARGUMENT naming the
// field) through, maps option and history errors to INVALID_ARGUMENT, and
// anything else to INTERNAL.
func requestError(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	if stopped := stoppedError(err); stopped != nil {
		return stopped
	}
	if invalid, ok := fieldError(err); ok {
		return invalid
	}
	return status.Error(codes.Internal, "ToMessages: "+err.Error())
}

// stoppedError is the status of a rendering the request's context ended
// (the caller went away, or its deadline passed) or the answer's size did
// (it passed options.max_response_bytes), or nil for another error.
func stoppedError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	var tooLarge *strategies.AnswerTooLargeError
	if errors.As(err, &tooLarge) {
		return answerTooLarge(0, tooLarge.Limit, nil)
	}
	return nil
}

func optionalInt(p *int32) *int {
	if p == nil {
		return nil
	}
	n := int(*p)
	return &n
}

func (s *Service) decodeToMessages(rd *valueReader, in *ptcsidecarv1.ToMessagesRequest, drop bool) (*strategies.Request, error) {
	req, err := s.decodeRequest(rd, in.GetTurns(), in.GetMemory(), in.GetOptions(), in.GetHistory(), drop)
	if err != nil {
		return nil, err
	}
	req.Summary = decodeSummary(in.GetSummary())
	return req, nil
}

// decodeRequest reads what every request about a run carries (ToMessages
// and RenderTrace alike) into a strategies.Request with normalized options,
// its values read by rd; its counts are checked (checkCounts). With drop,
// each binding, turn and history message is let go of in the request as
// soon as it is converted (Wire), so that the two forms of a request of
// many small messages are not both held at once.
func (s *Service) decodeRequest(rd *valueReader, turns []*ptcsidecarv1.Turn, memory *ptcsidecarv1.Memory, o *ptcsidecarv1.Options, history []*ptcsidecarv1.ChatMessage, drop bool) (*strategies.Request, error) {
	if o == nil {
		o = &ptcsidecarv1.Options{} // every option at its default
	}
	// The strategies show data and memory values only as samples of at
	// most sample_limit elements per list; building the rest of a large
	// value was most of a call's cost.
	keep := strategies.DefaultSampleLimit
	if o.SampleLimit != nil {
		keep = int(o.GetSampleLimit()) // out of range: Normalize refuses it
	}
	data, err := rd.sample(o.GetData(), "options.data", keep)
	if err != nil {
		return nil, err
	}
	raw := strategies.RawOptions{
		Strategy:             o.GetStrategy(),
		Mission:              o.GetMission(),
		SystemPrompt:         o.GetSystemPrompt(),
		Prompt:               o.GetPrompt(),
		Data:                 data,
		Signature:            o.GetSignature(),
		ProgramForm:          o.GetProgramForm(),
		MaxTurns:             optionalInt(o.MaxTurns),
		TurnsLeft:            optionalInt(o.TurnsLeft),
		PrintlnLimit:         optionalInt(o.PrintlnLimit),
		ToolCallLimit:        optionalInt(o.ToolCallLimit),
		SampleLimit:          optionalInt(o.SampleLimit),
		SamplePrintableLimit: optionalInt(o.SamplePrintableLimit),
		Tokenizer:            o.GetTokenizer(),
		ScanWindow:           optionalInt(o.ScanWindow),
		NudgeAttempt:         optionalInt(o.NudgeAttempt),
		Nudges:               o.GetNudgeMessages(),
		SnapshotToolPrefixes: o.GetSnapshotToolPrefixes(),
		Trigger:              optionalInt(o.Trigger),
		Keep:                 optionalInt(o.Keep),
		ClearAtLeast:         optionalInt(o.ClearAtLeast),
		ExcludeTools:         o.GetExcludeTools(),
		ClearToolInputs:      o.GetClearToolInputs(),
		Placeholder:          o.GetPlaceholder(),
		MaxTokens:            optionalInt(o.MaxTokens),
		TrimTo:               optionalInt(o.TrimTo),
		KeepThinkingTurns:    optionalInt(o.KeepThinkingTurns),
		SummaryTrigger:       optionalInt(o.SummaryTrigger),
		SummaryKeep:          optionalInt(o.SummaryKeep),
		SummaryPrompt:        o.GetSummaryPrompt(),
		SummaryHeader:        o.GetSummaryHeader(),
		SummaryRequestForm:   o.GetSummaryRequestForm(),
		MaxResponseBytes:     optionalInt(o.MaxResponseBytes),
		WindowOnly:           o.GetWindowOnly(),
		Provider:             o.GetProvider(),
		Pricing:              o.GetPricing(),
		CacheReadRate:        o.CacheReadRate,
		CacheWriteRate:       o.CacheWriteRate,
		Model:                o.GetModel(),
		MaxTokensFraction:    o.MaxTokensFraction,
		TriggerFraction:      o.TriggerFraction,
		MinCacheableTokens:   optionalInt(o.MinCacheableTokens),
	}
	for _, t := range o.GetTools() {
		raw.Tools = append(raw.Tools, strategies.ToolSpec{Name: t.GetName(), Signature: t.GetSignature(), Description: t.GetDescription()})
	}
	opts, err := s.remembered.strategies.Normalize(raw)
	if err != nil {
		return nil, err
	}
	req := &strategies.Request{Options: opts, Remembered: s.remembered.strategies}
	if req.Memory, err = decodeBindings(rd, memory, func() string { return "memory" }, keep, drop); err != nil {
		return nil, err
	}
	if len(turns) > 0 {
		req.Turns = make([]strategies.Turn, len(turns))
	}
	for i, t := range turns {
		if req.Turns[i], err = decodeTurn(rd, t, i); err != nil {
			return nil, err
		}
		if drop {
			turns[i] = nil
		}
	}
	if len(history) > 0 {
		req.History = make([]strategies.ChatMessage, len(history))
	}
	for i, m := range history {
		req.History[i] = decodeChatMessage(m)
		if drop {
			history[i] = nil
		}
	}
	return req, nil
}

// decodeBindings reads the bindings of a memory; path names the memory in
// errors (built only then, as are all paths below). With drop, each
// binding is let go of in m once read (decodeRequest).
func decodeBindings(rd *valueReader, m *ptcsidecarv1.Memory, path func() string, keep int, drop bool) ([]strategies.Binding, error) {
	bindings := m.GetBindings()
	if len(bindings) == 0 {
		return nil, nil
	}
	out := make([]strategies.Binding, 0, len(bindings))
	for i, b := range bindings {
		bd := strategies.Binding{Name: b.GetName(), Turn: int(b.GetTurn())}
		if b.GetIsFn() {
			// A function travels as its source; rendering needs only its
			// name, parameters, docstring and return type.
			bd.Fn = &strategies.Function{Source: b.GetValue().GetEdn(), Params: b.GetParams(),
				Docstring: b.GetDocstring(), ReturnType: b.GetReturnType()}
		} else {
			v, err := rd.sampleAt(b.GetValue(), keep, func() string { return fmt.Sprintf("%s.bindings[%d].value", path(), i) })
			if err != nil {
				return nil, err
			}
			if v == nil {
				v = lisp.Nil
			}
			bd.Value = v
		}
		out = append(out, bd)
		if drop {
			bindings[i] = nil
		}
	}
	return out, nil
}

// decodeTurn reads turns[i].
func decodeTurn(rd *valueReader, t *ptcsidecarv1.Turn, i int) (strategies.Turn, error) {
	turn := strategies.Turn{
		Number:        int(t.GetNumber()),
		RawResponse:   t.GetRawResponse(),
		Program:       t.GetProgram(),
		Prints:        t.GetPrints(),
		Defined:       t.GetDefined(),
		Success:       t.GetSuccess(),
		Returned:      t.GetReturned(),
		Failed:        t.GetFailed(),
		Duration:      time.Duration(t.GetDurationMs()) * time.Millisecond,
		ProgramCallID: t.GetProgramCallId(),
	}
	path := func() string { return fmt.Sprintf("turns[%d]", i) }
	var err error
	if turn.Result, err = rd.sampleAt(t.GetResult(), 0, func() string { return path() + ".result" }); err != nil {
		return turn, err
	}
	if e := t.GetError(); e != nil {
		turn.Error = &strategies.TurnError{Type: e.GetType(), Message: e.GetMessage(), Hint: e.GetHint()}
	}
	for _, w := range t.GetWarnings() {
		turn.Warnings = append(turn.Warnings, strategies.TurnWarning{Type: w.GetType(), Message: w.GetMessage()})
	}
	if calls := t.GetToolCalls(); len(calls) > 0 {
		turn.ToolCalls = make([]strategies.ToolCall, 0, len(calls))
	}
	for j, c := range t.GetToolCalls() {
		cpath := func() string { return fmt.Sprintf("%s.tool_calls[%d]", path(), j) }
		tc := strategies.ToolCall{
			Index: int(c.GetIndex()), Name: c.GetName(), Error: c.GetError(),
			Duration: time.Duration(c.GetDurationMs()) * time.Millisecond,
		}
		if tc.Args, err = rd.sampleAt(c.GetArgs(), 0, func() string { return cpath() + ".args" }); err != nil {
			return turn, err
		}
		if tc.Result, err = rd.sampleAt(c.GetResult(), 0, func() string { return cpath() + ".result" }); err != nil {
			return turn, err
		}
		turn.ToolCalls = append(turn.ToolCalls, tc)
	}
	if turn.Memory, err = decodeBindings(rd, t.GetMemory(), func() string { return path() + ".memory" }, 0, false); err != nil {
		return turn, err
	}
	turn.HasMemory = t.GetMemory() != nil
	return turn, nil
}

func decodeChatMessage(m *ptcsidecarv1.ChatMessage) strategies.ChatMessage {
	out := strategies.ChatMessage{
		Role: m.GetRole(), Content: m.GetContent(), Source: m.GetSource(), SenderID: m.GetSenderId(),
		ToolCallID: m.GetToolCallId(), Reasoning: m.GetReasoning(), Name: m.GetName(),
	}
	for _, tc := range m.GetToolCalls() {
		out.ToolCalls = append(out.ToolCalls, strategies.ChatToolCall{ID: tc.GetId(), Name: tc.GetName(), Arguments: tc.GetArguments()})
	}
	if parts := m.GetParts(); len(parts) > 0 {
		out.Parts = make([]strategies.ContentPart, len(parts))
		for j, p := range parts {
			out.Parts[j] = strategies.NewPart(p.GetType(), p.GetText(), strategies.PartExtra{
				Signature: p.GetSignature(), Data: p.GetData(),
				MediaType: p.GetMediaType(), URL: p.GetUrl(), FileID: p.GetFileId(),
				Width: int(p.GetWidth()), Height: int(p.GetHeight()), Detail: p.GetDetail(),
				Pages: int(p.GetPages()), DurationMS: int(p.GetDurationMs()), ProviderJSON: p.GetProviderJson(),
			})
		}
	}
	return out
}

// encodeParts puts a message's parts back on the wire.
func encodeParts(parts []strategies.ContentPart) []*ptcsidecarv1.ContentPart {
	if len(parts) == 0 {
		return nil
	}
	out := make([]*ptcsidecarv1.ContentPart, len(parts))
	for j, p := range parts {
		if p.Extra == nil {
			out[j] = &ptcsidecarv1.ContentPart{Type: p.Type, Text: p.Text}
			continue
		}
		x := p.Extra
		out[j] = &ptcsidecarv1.ContentPart{
			Type: p.Type, Text: p.Text, Signature: x.Signature, Data: x.Data,
			MediaType: x.MediaType, Url: x.URL, FileId: x.FileID,
			Width: int32(x.Width), Height: int32(x.Height), Detail: x.Detail,
			Pages: int32(x.Pages), DurationMs: int32(x.DurationMS), ProviderJson: x.ProviderJSON,
		}
	}
	return out
}

func encodeChatMessages(msgs []strategies.ChatMessage) []*ptcsidecarv1.ChatMessage {
	out := make([]*ptcsidecarv1.ChatMessage, 0, len(msgs))
	for _, m := range msgs {
		wm := &ptcsidecarv1.ChatMessage{
			Role: m.Role, Content: m.Content, Source: m.Source, SenderId: m.SenderID,
			ToolCallId: m.ToolCallID, Reasoning: m.Reasoning, Name: m.Name,
			Parts: encodeParts(m.Parts),
		}
		for _, tc := range m.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, &ptcsidecarv1.ChatToolCall{Id: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		out = append(out, wm)
	}
	return out
}

func encodeToMessages(r *strategies.Response) *ptcsidecarv1.ToMessagesResponse {
	out := &ptcsidecarv1.ToMessagesResponse{Messages: encodeChatMessages(r.Messages), SummaryRequest: encodeSummaryRequest(r.SummaryRequest)}
	s := r.Stats
	out.Stats = &ptcsidecarv1.CompressionStats{
		Strategy:                   s.Strategy,
		TurnsCompressed:            stat32(s.TurnsCompressed),
		ToolCallsTotal:             stat32(s.ToolCallsTotal),
		ToolCallsShown:             stat32(s.ToolCallsShown),
		ToolCallsDropped:           stat32(s.ToolCallsDropped),
		PrintlnsTotal:              stat32(s.PrintlnsTotal),
		PrintlnsShown:              stat32(s.PrintlnsShown),
		PrintlnsDropped:            stat32(s.PrintlnsDropped),
		ErrorTurnsCollapsed:        stat32(s.ErrorTurnsCollapsed),
		MessagesBefore:             stat32(s.MessagesBefore),
		MessagesAfter:              stat32(s.MessagesAfter),
		CharsBefore:                stat32(s.CharsBefore),
		CharsAfter:                 stat32(s.CharsAfter),
		TokensBefore:               stat32(s.TokensBefore),
		TokensAfter:                stat32(s.TokensAfter),
		Tokenizer:                  s.Tokenizer,
		SyntheticNudge:             s.SyntheticNudge,
		NudgesExhausted:            s.NudgesExhausted,
		ToolUsesCleared:            stat32(s.ToolUsesCleared),
		TokensCleared:              stat32(s.TokensCleared),
		StablePrefixTokens:         stat32(s.StablePrefixTokens),
		BilledTokens:               s.BilledTokens,
		CacheWriteTokens:           stat32(s.CacheWriteTokens),
		StablePrefixKnown:          s.StablePrefixKnown,
		StablePrefixNote:           s.StablePrefixNote,
		CacheBreakpoint:            encodeBreakpoint(s.CacheBreakpoint),
		Pricing:                    s.Pricing,
		NextCacheBreakpoint:        encodeBreakpoint(s.NextCacheBreakpoint),
		PromptSource:               s.PromptSource,
		MessagesDropped:            stat32(s.MessagesDropped),
		TokensDropped:              stat32(s.TokensDropped),
		ToolLoopsDropped:           stat32(s.ToolLoopsDropped),
		MessagesRepaired:           stat32(s.MessagesRepaired),
		ToolCallIdsRewritten:       stat32(s.ToolCallIDsRewritten),
		TaskPinned:                 s.TaskPinned,
		Provider:                   s.Provider,
		PromptsLed:                 stat32(s.PromptsLed),
		UnitsNoted:                 stat32(s.UnitsNoted),
		GreetingsDropped:           stat32(s.GreetingsDropped),
		PartTokens:                 stat32(s.PartTokens),
		PartsEstimated:             stat32(s.PartsEstimated),
		ThinkingCleared:            stat32(s.ThinkingCleared),
		ThinkingTokensCleared:      stat32(s.ThinkingTokensCleared),
		CompactionReplaced:         stat32(s.CompactionReplaced),
		MessagesSummarized:         stat32(s.MessagesSummarized),
		SummaryTokens:              stat32(s.SummaryTokens),
		SummaryRequested:           s.SummaryRequested,
		SummaryRequestTokens:       stat32(s.SummaryRequestTokens),
		SummaryRequestPrefixTokens: stat32(s.SummaryRequestPrefixTokens),
		Model:                      s.Model,
		ContextWindow:              stat32(s.ContextWindow),
		MinCacheableTokens:         stat32(s.MinCacheableTokens),
		StablePrefixUncached:       s.StablePrefixUncached,
		UncachedTokens:             stat32(s.UncachedTokens),
	}
	if pt := s.ProgramTool; pt != nil {
		out.Stats.ProgramTool = &ptcsidecarv1.ProgramTool{Name: pt.Name, Description: pt.Description, Parameters: pt.Parameters}
	}
	return out
}

// stat32 is a statistic as the wire's int32 holds it: a count past its
// largest value is sent as that value, never wrapped. A request of a few
// kilobytes can name media worth billions of tokens (40 documents of
// 65,536 pages are 8.9 billion under Anthropic's rule), which int32(n)
// sent as 320 million, and more ones as negative counts.
func stat32(n int) int32 {
	return int32(min(max(n, math.MinInt32), math.MaxInt32))
}

func encodeBreakpoint(b *strategies.Breakpoint) *ptcsidecarv1.CacheBreakpoint {
	if b == nil {
		return nil
	}
	return &ptcsidecarv1.CacheBreakpoint{MessageIndex: int32(b.Message), Offset: int32(b.Offset)}
}
