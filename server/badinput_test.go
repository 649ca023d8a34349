package server

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// badInputLimits are small request limits, so that the over-limit cases
// stay small.
var badInputConfig = Config{Limits: lisp.DefaultLimits(), MaxTurns: 3, MaxHistory: 4}

const badInputMaxRecvBytes = 1 << 20

// dialWire serves a Service the way the binary does, with a receive size
// limit, over an in-memory connection.
func dialWire(t *testing.T, cfg Config) *grpc.ClientConn {
	t.Helper()
	return serveInMemory(t, New(cfg), grpc.MaxRecvMsgSize(badInputMaxRecvBytes))
}

// rawCodec sends requests as given bytes, which lets a test send what no
// protobuf library would marshal (invalid UTF-8 in a string field), and
// reads responses as usual.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.([]byte); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return encoding.GetCodecV2(grpcproto.Name).Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return encoding.GetCodecV2(grpcproto.Name).Unmarshal(data, v)
}

func (rawCodec) Name() string { return grpcproto.Name }

// field appends one length-delimited field of m's message type by name.
func field(b []byte, m proto.Message, name string, payload []byte) []byte {
	fd := m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
	if fd == nil {
		panic("no field " + name)
	}
	b = protowire.AppendTag(b, fd.Number(), protowire.BytesType)
	return protowire.AppendBytes(b, payload)
}

// nested is a value nested depth levels deep: [[[...]]] or {"a":{"a":...}}.
func nested(open, close string, depth int) string {
	return strings.Repeat(open, depth) + strings.Repeat(close, depth)
}

const deep = 100_000

var invalidUTF8 = []byte("bad \xff\xfe byte")

func badInputCases() []badInput {
	tm := func(req *ptcsidecarv1.ToMessagesRequest) func(context.Context, *grpc.ClientConn) error {
		return func(ctx context.Context, c *grpc.ClientConn) error {
			_, err := ptcsidecarv1.NewSidecarServiceClient(c).ToMessages(ctx, req)
			return err
		}
	}
	opts := func(o *ptcsidecarv1.Options) func(context.Context, *grpc.ClientConn) error {
		return tm(&ptcsidecarv1.ToMessagesRequest{Options: o})
	}
	turn := func(t *ptcsidecarv1.Turn) func(context.Context, *grpc.ClientConn) error {
		return tm(&ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{t}})
	}
	history := func(m ...*ptcsidecarv1.ChatMessage) func(context.Context, *grpc.ClientConn) error {
		return tm(&ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "loop-slice"}, History: m})
	}
	eval := func(req *ptcsidecarv1.EvalTurnRequest) func(context.Context, *grpc.ClientConn) error {
		return func(ctx context.Context, c *grpc.ClientConn) error {
			if req.Program == "" && req.RawResponse == "" {
				req.Program = "(+ 1 2)"
			} else if req.Program == "-" {
				req.Program = ""
			}
			_, err := ptcsidecarv1.NewSidecarServiceClient(c).EvalTurn(ctx, req)
			return err
		}
	}
	// stream sends the messages in order and returns the RPC's status,
	// answering nothing itself.
	stream := func(msgs ...*ptcsidecarv1.EvalTurnStreamRequest) func(context.Context, *grpc.ClientConn) error {
		return func(ctx context.Context, c *grpc.ClientConn) error {
			s, err := ptcsidecarv1.NewSidecarServiceClient(c).EvalTurnStream(ctx)
			if err != nil {
				return err
			}
			for _, m := range msgs {
				if err := s.Send(m); err != nil {
					break // the server ended the stream; Recv has the status
				}
			}
			for {
				if _, err := s.Recv(); err != nil {
					return err
				}
			}
		}
	}
	start := func(req *ptcsidecarv1.EvalTurnRequest) *ptcsidecarv1.EvalTurnStreamRequest {
		switch req.Program {
		case "":
			req.Program = "(tool/search {:q 1})"
			req.Tools = append(req.Tools, &ptcsidecarv1.ToolSpec{Name: "search"})
		case "-":
			req.Program = ""
		}
		return &ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: req}}
	}
	answer := func(tr *ptcsidecarv1.ToolResult) *ptcsidecarv1.EvalTurnStreamRequest {
		return &ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: tr}}
	}
	raw := func(method string, msg []byte) func(context.Context, *grpc.ClientConn) error {
		return func(ctx context.Context, c *grpc.ClientConn) error {
			return c.Invoke(ctx, method, msg, new(ptcsidecarv1.ToMessagesResponse), grpc.ForceCodecV2(rawCodec{}))
		}
	}
	rawStream := func(msg []byte) func(context.Context, *grpc.ClientConn) error {
		return func(ctx context.Context, c *grpc.ClientConn) error {
			desc := &grpc.StreamDesc{ClientStreams: true, ServerStreams: true}
			s, err := c.NewStream(ctx, desc, ptcsidecarv1.SidecarService_EvalTurnStream_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
			if err != nil {
				return err
			}
			if err := s.SendMsg(msg); err != nil {
				return err
			}
			return s.RecvMsg(new(ptcsidecarv1.EvalTurnStreamResponse))
		}
	}
	tooMany := func(n int) []*ptcsidecarv1.Turn {
		out := make([]*ptcsidecarv1.Turn, n)
		for i := range out {
			out[i] = &ptcsidecarv1.Turn{Number: int32(i + 1), Program: "1", Success: true}
		}
		return out
	}
	user := func(s string) *ptcsidecarv1.ChatMessage { return &ptcsidecarv1.ChatMessage{Role: "user", Content: s} }
	big := strings.Repeat("x", badInputMaxRecvBytes+1)
	inv, inc := InvalidArgument, codes.ResourceExhausted

	return []badInput{
		// ToMessages: options.
		{"ToMessages/unknown strategy", opts(&ptcsidecarv1.Options{Strategy: "zip"}), inv, "options.strategy: ", "zip"},
		{"ToMessages/data malformed EDN", opts(&ptcsidecarv1.Options{Data: edn("{:a")}), inv, "options.data.edn: ", ""},
		{"ToMessages/data malformed JSON", opts(&ptcsidecarv1.Options{Data: jsonValue(`{"a":}`)}), inv, "options.data.json: ", ""},
		{"ToMessages/data wrong type", opts(&ptcsidecarv1.Options{Data: edn("[1 2]")}), inv, "options.data: ", "map"},
		{"ToMessages/data nested 100000 deep EDN", opts(&ptcsidecarv1.Options{Data: edn("{:a " + nested("[", "]", deep) + "}")}), inv, "options.data.edn: ", "1000"},
		{"ToMessages/data nested 100000 deep JSON", opts(&ptcsidecarv1.Options{Data: jsonValue(`{"a":` + nested("[", "]", deep) + "}")}), inv, "options.data.json: ", "1000"},
		{"ToMessages/max_turns negative", opts(&ptcsidecarv1.Options{MaxTurns: i32(-1)}), inv, "options.max_turns: ", "-1"},
		{"ToMessages/turns_left negative", opts(&ptcsidecarv1.Options{TurnsLeft: i32(-5)}), inv, "options.turns_left: ", "-5"},
		{"ToMessages/println_limit negative", opts(&ptcsidecarv1.Options{PrintlnLimit: i32(-1)}), inv, "options.println_limit: ", ""},
		{"ToMessages/tool_call_limit negative", opts(&ptcsidecarv1.Options{ToolCallLimit: i32(-1)}), inv, "options.tool_call_limit: ", ""},
		{"ToMessages/sample_limit negative", opts(&ptcsidecarv1.Options{SampleLimit: i32(-1)}), inv, "options.sample_limit: ", ""},
		{"ToMessages/sample_printable_limit negative", opts(&ptcsidecarv1.Options{SamplePrintableLimit: i32(-1)}), inv, "options.sample_printable_limit: ", ""},
		{"ToMessages/scan_window zero", opts(&ptcsidecarv1.Options{Strategy: "loop-slice", ScanWindow: i32(0)}), inv, "options.scan_window: ", ""},
		{"ToMessages/nudge_attempt zero", opts(&ptcsidecarv1.Options{Strategy: "turn-aware", NudgeAttempt: i32(0)}), inv, "options.nudge_attempt: ", ""},
		{"ToMessages/unknown tokenizer", opts(&ptcsidecarv1.Options{Tokenizer: "p50k"}), inv, "options.tokenizer: ", "p50k"},
		{"ToMessages/malformed signature", opts(&ptcsidecarv1.Options{Signature: "(x :int -> "}), inv, "options.signature: ", ""},
		{"ToMessages/tool without name", opts(&ptcsidecarv1.Options{Tools: []*ptcsidecarv1.ToolSpec{{Signature: "() -> :int"}}}), inv, "options.tools[0].name: ", ""},
		{"ToMessages/duplicate tool", opts(&ptcsidecarv1.Options{Tools: []*ptcsidecarv1.ToolSpec{{Name: "a"}, {Name: "a"}}}), inv, "options.tools[1].name: ", ""},
		{"ToMessages/tool malformed signature", opts(&ptcsidecarv1.Options{Tools: []*ptcsidecarv1.ToolSpec{{Name: "a", Signature: "(q :strin) ->"}}}), inv, "options.tools[0].signature: ", ""},
		// ToMessages: turns, memory, history.
		{"ToMessages/too many turns", tm(&ptcsidecarv1.ToMessagesRequest{Turns: tooMany(4)}), inv, "turns: ", "limit of 3"},
		{"ToMessages/too much history", history(user("a"), user("b"), user("c"), user("d"), user("e")), inv, "history: ", "limit of 4"},
		{"ToMessages/turn result malformed EDN", turn(&ptcsidecarv1.Turn{Number: 1, Result: edn(`"unterminated`)}), inv, "turns[0].result.edn: ", ""},
		{"ToMessages/turn result nested 100000 deep", turn(&ptcsidecarv1.Turn{Number: 1, Result: edn(nested("{:a ", "}", deep))}), inv, "turns[0].result.edn: ", "1000"},
		{"ToMessages/tool call args malformed JSON", turn(&ptcsidecarv1.Turn{Number: 1, ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "t", Args: jsonValue("[1,")}}}), inv, "turns[0].tool_calls[0].args.json: ", ""},
		{"ToMessages/tool call result nested 100000 deep JSON", turn(&ptcsidecarv1.Turn{Number: 1, ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "t", Result: jsonValue(nested(`{"a":`, "}", deep))}}}), inv, "turns[0].tool_calls[0].result.json: ", "1000"},
		{"ToMessages/turn memory value malformed", turn(&ptcsidecarv1.Turn{Number: 1, Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn("{:a")}}}}), inv, "turns[0].memory.bindings[0].value.edn: ", ""},
		{"ToMessages/memory value malformed JSON", tm(&ptcsidecarv1.ToMessagesRequest{Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: jsonValue("tru")}}}}), inv, "memory.bindings[0].value.json: ", ""},
		{"ToMessages/turns to a strategy that reads history", tm(&ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "turn-aware"}, Turns: tooMany(1)}), inv, "turns: ", `"turn-aware" reads history`},
		{"ToMessages/history to a strategy that reads turns", tm(&ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{user("hi")}}), inv, "history: ", `"single-user-coalesced" reads turns`},
		{"ToMessages/history role missing", history(&ptcsidecarv1.ChatMessage{Content: "hi"}), inv, "history[0].role: ", ""},
		{"ToMessages/history role unknown", history(&ptcsidecarv1.ChatMessage{Role: "robot"}), inv, "history[0].role: ", "robot"},
		{"ToMessages/history tool message without call id", history(user("hi"), &ptcsidecarv1.ChatMessage{Role: "tool", Content: "r"}), inv, "history[1].tool_call_id: ", ""},
		{"ToMessages/oversized", opts(&ptcsidecarv1.Options{Mission: big}), inc, "", "larger than max"},
		{"ToMessages/invalid UTF-8 in mission", raw(ptcsidecarv1.SidecarService_ToMessages_FullMethodName,
			field(nil, &ptcsidecarv1.ToMessagesRequest{}, "options", field(nil, &ptcsidecarv1.Options{}, "mission", invalidUTF8))),
			inv, "options.mission: ", "invalid UTF-8"},
		{"ToMessages/invalid UTF-8 in a turn's program", raw(ptcsidecarv1.SidecarService_ToMessages_FullMethodName,
			field(nil, &ptcsidecarv1.ToMessagesRequest{}, "turns", field(nil, &ptcsidecarv1.Turn{}, "program", invalidUTF8))),
			inv, "turns[0].program: ", "invalid UTF-8"},
		{"ToMessages/truncated message", raw(ptcsidecarv1.SidecarService_ToMessages_FullMethodName,
			[]byte{0x0a, 0x7f, 'a'}), inv, "turns: ", "invalid wire-format data"},
		{"ToMessages/truncated options", raw(ptcsidecarv1.SidecarService_ToMessages_FullMethodName,
			field(nil, &ptcsidecarv1.ToMessagesRequest{}, "options", []byte{0x0a, 0x7f, 'a'})), inv, "options.strategy: ", "invalid wire-format data"},
		{"ToMessages/truncated second turn", raw(ptcsidecarv1.SidecarService_ToMessages_FullMethodName,
			field(field(nil, &ptcsidecarv1.ToMessagesRequest{}, "turns", nil), &ptcsidecarv1.ToMessagesRequest{}, "turns", []byte{0x12, 0x05, '('})),
			inv, "turns[1].raw_response: ", "invalid wire-format data"},
		{"ToMessages/too many list elements in all", tm(&ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{{Prints: slices.Repeat([]string{"12345678"}, maxListElements)}}}),
			inv, "turns[0].prints: ", "more than 100000 list elements"},
		{"ToMessages/elements too small for the request's size", tm(&ptcsidecarv1.ToMessagesRequest{Memory: &ptcsidecarv1.Memory{Bindings: emptyBindings(maxListElements)}}),
			inv, "memory.bindings: ", "elements are too small for its size"},

		// EvalTurn.
		{"EvalTurn/no program", eval(&ptcsidecarv1.EvalTurnRequest{Program: "-"}), inv, "program: ", "empty"},
		{"EvalTurn/turn_number negative", eval(&ptcsidecarv1.EvalTurnRequest{TurnNumber: -2}), inv, "turn_number: ", "-2"},
		{"EvalTurn/data malformed EDN", eval(&ptcsidecarv1.EvalTurnRequest{Data: edn("{:a 1 :b}")}), inv, "data.edn: ", ""},
		{"EvalTurn/data malformed JSON", eval(&ptcsidecarv1.EvalTurnRequest{Data: jsonValue(`{"a" 1}`)}), inv, "data.json: ", ""},
		{"EvalTurn/data wrong type", eval(&ptcsidecarv1.EvalTurnRequest{Data: edn(`"text"`)}), inv, "data: ", "map"},
		{"EvalTurn/data nested 100000 deep EDN", eval(&ptcsidecarv1.EvalTurnRequest{Data: edn("{:a " + nested("(", ")", deep) + "}")}), inv, "data.edn: ", "1000"},
		{"EvalTurn/data nested 100000 deep JSON", eval(&ptcsidecarv1.EvalTurnRequest{Data: jsonValue(nested(`{"a":`, "}", deep))}), inv, "data.json: ", "1000"},
		{"EvalTurn/prelude value malformed", eval(&ptcsidecarv1.EvalTurnRequest{Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn("{:a")}}}}), inv, "prelude.bindings[0].value.edn: ", "never closed"},
		{"EvalTurn/prelude value nested 100000 deep", eval(&ptcsidecarv1.EvalTurnRequest{Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn(nested("[", "]", deep))}}}}), inv, "prelude.bindings[0].value.edn: ", "nested more than"},
		{"EvalTurn/prelude value nested 100000 deep JSON", eval(&ptcsidecarv1.EvalTurnRequest{Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: jsonValue(nested("[", "]", deep))}}}}), inv, "prelude.bindings[0].value.json: ", "1000"},
		{"EvalTurn/prelude binding without name", eval(&ptcsidecarv1.EvalTurnRequest{Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Value: edn("1")}}}}), inv, "prelude: ", ""},
		{"EvalTurn/prelude function malformed", eval(&ptcsidecarv1.EvalTurnRequest{Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "f", IsFn: true, Value: edn("(fn [x")}}}}), inv, "prelude.bindings[0].value.edn: ", "never closed"},
		{"EvalTurn/tool without name", eval(&ptcsidecarv1.EvalTurnRequest{Tools: []*ptcsidecarv1.ToolSpec{{}}}), inv, "tools[0].name: ", "empty"},
		{"EvalTurn/duplicate tool", eval(&ptcsidecarv1.EvalTurnRequest{Tools: []*ptcsidecarv1.ToolSpec{{Name: "a"}, {Name: "a"}}}), inv, "tools[1].name: ", "twice"},
		{"EvalTurn/max_steps negative", eval(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{MaxSteps: -1}}), inv, "limits.max_steps: ", "negative"},
		{"EvalTurn/max_alloc_bytes negative", eval(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{MaxAllocBytes: -1}}), inv, "limits.max_alloc_bytes: ", "negative"},
		{"EvalTurn/max_depth negative", eval(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{MaxDepth: -1}}), inv, "limits.max_depth: ", "negative"},
		{"EvalTurn/max_output_bytes negative", eval(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{MaxOutputBytes: -1}}), inv, "limits.max_output_bytes: ", "negative"},
		{"EvalTurn/max_tool_calls negative", eval(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{MaxToolCalls: -1}}), inv, "limits.max_tool_calls: ", "negative"},
		{"EvalTurn/timeout_ms negative", eval(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{TimeoutMs: -1}}), inv, "limits.timeout_ms: ", "negative"},
		{"EvalTurn/previous result malformed", eval(&ptcsidecarv1.EvalTurnRequest{PreviousResults: []*ptcsidecarv1.Value{edn("1"), edn("]")}}), inv, "previous_results[1].edn: ", ""},
		{"EvalTurn/previous result nested 100000 deep", eval(&ptcsidecarv1.EvalTurnRequest{PreviousResults: []*ptcsidecarv1.Value{jsonValue(nested("[", "]", deep))}}), inv, "previous_results[0].json: ", "1000"},
		{"EvalTurn/too many previous results", eval(&ptcsidecarv1.EvalTurnRequest{PreviousResults: []*ptcsidecarv1.Value{edn("1"), edn("2"), edn("3"), edn("4")}}), inv, "previous_results: ", "limit of 3 results (--max-turns)"},
		{"EvalTurn/too many tool results", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: emptyAnswers(51)}), inv, "tool_results: ", "limit of 50 answers (--max-tool-calls)"},
		{"EvalTurn/tool result out of order", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Index: 1, Name: "a"}}}), inv, "tool_results[0].index: ", "must be 0"},
		{"EvalTurn/tool result without name", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0}}}), inv, "tool_results[0].name: ", "empty"},
		{"EvalTurn/tool result with neither result nor error", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Name: "a", Args: edn("{:q 1}")}}}), inv, "tool_results[0].result: ", "neither result nor error"},
		{"EvalTurn/tool result with an empty result value", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Name: "a", Result: &ptcsidecarv1.Value{}}}}), inv, "tool_results[0].result: ", "neither result nor error"},
		{"EvalTurn/tool result args malformed", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Name: "a", Args: edn("{:q")}}}), inv, "tool_results[0].args.edn: ", ""},
		{"EvalTurn/tool result nested 100000 deep", eval(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Name: "a", Result: edn(nested("#{", "}", deep))}}}), inv, "tool_results[0].result.edn: ", "1000"},
		{"EvalTurn/oversized", eval(&ptcsidecarv1.EvalTurnRequest{Program: big}), inc, "", "larger than max"},
		{"EvalTurn/invalid UTF-8 in program", raw(ptcsidecarv1.SidecarService_EvalTurn_FullMethodName,
			field(nil, &ptcsidecarv1.EvalTurnRequest{}, "program", invalidUTF8)), inv, "program: ", "invalid UTF-8"},
		{"EvalTurn/invalid UTF-8 in data", raw(ptcsidecarv1.SidecarService_EvalTurn_FullMethodName,
			field(nil, &ptcsidecarv1.EvalTurnRequest{}, "data", field(nil, &ptcsidecarv1.Value{}, "edn", invalidUTF8))), inv, "data.edn: ", "invalid UTF-8"},

		// EvalTurnStream.
		{"EvalTurnStream/first message not a start", stream(answer(&ptcsidecarv1.ToolResult{Name: "a"})), inv, "start: ", ""},
		{"EvalTurnStream/start with too many previous results", stream(start(&ptcsidecarv1.EvalTurnRequest{PreviousResults: []*ptcsidecarv1.Value{edn("1"), edn("2"), edn("3"), edn("4")}})), inv, "start.previous_results: ", "limit of 3 results"},
		{"EvalTurnStream/start with tool results", stream(start(&ptcsidecarv1.EvalTurnRequest{ToolResults: []*ptcsidecarv1.ToolResult{{Name: "search"}}})), inv, "start.tool_results: ", ""},
		{"EvalTurnStream/start without program", stream(start(&ptcsidecarv1.EvalTurnRequest{Program: "-"})), inv, "start.program: ", ""},
		{"EvalTurnStream/start limits negative", stream(start(&ptcsidecarv1.EvalTurnRequest{Limits: &ptcsidecarv1.Limits{MaxSteps: -9}})), inv, "start.limits.max_steps: ", ""},
		{"EvalTurnStream/start data nested 100000 deep", stream(start(&ptcsidecarv1.EvalTurnRequest{Data: edn(nested("[", "]", deep))})), inv, "start.data.edn: ", "1000"},
		{"EvalTurnStream/answer to another tool", stream(start(&ptcsidecarv1.EvalTurnRequest{}), answer(&ptcsidecarv1.ToolResult{Index: 0, Name: "other", Result: edn("1")})), inv, "tool_result[0].name: ", "search"},
		{"EvalTurnStream/answer with neither result nor error", stream(start(&ptcsidecarv1.EvalTurnRequest{}), answer(&ptcsidecarv1.ToolResult{Index: 0, Name: "search"})), inv, "tool_result[0].result: ", "neither result nor error"},
		{"EvalTurnStream/answer out of order", stream(start(&ptcsidecarv1.EvalTurnRequest{}), answer(&ptcsidecarv1.ToolResult{Index: 3, Name: "search"})), inv, "tool_result[0].index: ", ""},
		{"EvalTurnStream/answer result nested 100000 deep", stream(start(&ptcsidecarv1.EvalTurnRequest{}), answer(&ptcsidecarv1.ToolResult{Name: "search", Result: jsonValue(nested("[", "]", deep))})), inv, "tool_result[0].result.json: ", "1000"},
		{"EvalTurnStream/second start instead of an answer", stream(start(&ptcsidecarv1.EvalTurnRequest{}), start(&ptcsidecarv1.EvalTurnRequest{})), inv, "tool_result: ", ""},
		{"EvalTurnStream/oversized", stream(start(&ptcsidecarv1.EvalTurnRequest{Program: big})), inc, "", "larger than max"},
		{"EvalTurnStream/invalid UTF-8 in start.program", rawStream(field(nil, &ptcsidecarv1.EvalTurnStreamRequest{}, "start",
			field(nil, &ptcsidecarv1.EvalTurnRequest{}, "program", invalidUTF8))), inv, "start.program: ", "invalid UTF-8"},
	}
}

// InvalidArgument is the code most cases expect, named short for the table.
const InvalidArgument = codes.InvalidArgument

type badInput struct {
	name     string
	call     func(context.Context, *grpc.ClientConn) error
	code     codes.Code
	prefix   string // the message starts with the field it names
	contains string // and says what is wrong
}

// TestBadInputTable sends every request field wrong in each way that
// matters and checks the code and that the message names the field. The
// server must survive all of it: a final well-formed call still succeeds.
func TestBadInputTable(t *testing.T) {
	conn := dialWire(t, badInputConfig)
	cases := badInputCases()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(t.Context(), conn)
			st := status.Convert(err)
			if st.Code() != tc.code || !strings.HasPrefix(st.Message(), tc.prefix) || !strings.Contains(st.Message(), tc.contains) {
				t.Errorf("got %v: %q\nwant %v starting %q containing %q", st.Code(), st.Message(), tc.code, tc.prefix, tc.contains)
			}
			if st.Code() == codes.InvalidArgument {
				checkFieldViolation(t, st)
			}
		})
	}
	resp, err := ptcsidecarv1.NewSidecarServiceClient(conn).EvalTurn(t.Context(), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)"})
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "3" {
		t.Fatalf("after %d bad inputs, a good request: %v, %v", len(cases), resp, err)
	}
	t.Logf("%d bad inputs", len(cases))
}

// checkFieldViolation requires an INVALID_ARGUMENT to carry one
// google.rpc.BadRequest field violation that says what the message says:
// the field it starts with, and the rest.
func checkFieldViolation(t *testing.T, st *status.Status) {
	t.Helper()
	var violations []*errdetails.BadRequest_FieldViolation
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			violations = append(violations, br.GetFieldViolations()...)
		}
	}
	if len(violations) != 1 {
		t.Fatalf("%q carries %d field violations, want 1 (details %v)", st.Message(), len(violations), st.Details())
	}
	v := violations[0]
	if v.GetField() == "" || v.GetField()+": "+v.GetDescription() != st.Message() {
		t.Errorf("field violation {%q, %q} does not match the message %q", v.GetField(), v.GetDescription(), st.Message())
	}
}

// emptyBindings is n bindings with nothing set: two bytes each on the wire.
func emptyBindings(n int) []*ptcsidecarv1.Binding {
	out := make([]*ptcsidecarv1.Binding, n)
	for i := range out {
		out[i] = &ptcsidecarv1.Binding{}
	}
	return out
}

// emptyAnswers is n tool results with nothing set.
func emptyAnswers(n int) []*ptcsidecarv1.ToolResult {
	out := make([]*ptcsidecarv1.ToolResult, n)
	for i := range out {
		out[i] = &ptcsidecarv1.ToolResult{}
	}
	return out
}
