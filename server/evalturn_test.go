package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// dial serves a Service over an in-memory connection and returns a real
// gRPC client for it.
func dial(t *testing.T, cfg Config) ptcsidecarv1.SidecarServiceClient {
	t.Helper()
	return ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, New(cfg)))
}

// serveInMemory serves svc the way the binary does (its server options,
// then opts) over an in-memory connection and returns a client connection.
func serveInMemory(t *testing.T, svc *Service, opts ...grpc.ServerOption) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(4 << 20)
	srv := grpc.NewServer(append(svc.ServerOptions(), opts...)...)
	ptcsidecarv1.RegisterSidecarServiceServer(srv, svc)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func edn(s string) *ptcsidecarv1.Value {
	return &ptcsidecarv1.Value{Edn: s}
}

func jsonValue(s string) *ptcsidecarv1.Value {
	return &ptcsidecarv1.Value{Json: s}
}

// tools answers tool calls the way a caller's own tool code would.
var tools = map[string]func(args string) string{
	"get-user":  func(args string) string { return `{:id 7, :name "Ada"}` },
	"get-order": func(args string) string { return `{:total 12.5}` },
}

// runReplay drives the replay protocol as a caller does: evaluate, run the
// pending tool, append the answer, evaluate again, until a Turn comes back.
func runReplay(t *testing.T, c ptcsidecarv1.SidecarServiceClient, req *ptcsidecarv1.EvalTurnRequest) (*ptcsidecarv1.Turn, int) {
	t.Helper()
	for rounds := 1; rounds < 20; rounds++ {
		resp, err := c.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatalf("EvalTurn round %d: %v", rounds, err)
		}
		if turn := resp.GetTurn(); turn != nil {
			return turn, rounds
		}
		calls := resp.GetPending().GetCalls()
		if len(calls) != 1 {
			t.Fatalf("round %d: pending calls = %v, want one", rounds, calls)
		}
		call := calls[0]
		if int(call.GetIndex()) != len(req.ToolResults) {
			t.Fatalf("pending index %d, want %d", call.GetIndex(), len(req.ToolResults))
		}
		req.ToolResults = append(req.ToolResults, &ptcsidecarv1.ToolResult{
			Index: call.GetIndex(), Name: call.GetName(), Args: call.GetArgs(),
			Result: edn(tools[call.GetName()](call.GetArgs().GetEdn())), DurationMs: 3,
		})
	}
	t.Fatal("no turn after 20 rounds")
	return nil, 0
}

func TestEvalTurnReplaysToolCalls(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{
		RawResponse: "I'll look the user up.\n```clojure\n(def user (tool/get-user {:id 7}))\n(def order (get-order {:user (:id user)}))\n(println \"name:\" (:name user))\n(:total order)\n```",
		Tools:       []*ptcsidecarv1.ToolSpec{{Name: "get-user"}, {Name: "get-order"}},
		TurnNumber:  2,
	}
	turn, rounds := runReplay(t, c, req)
	if rounds != 3 {
		t.Errorf("rounds = %d, want 3 (two pending calls, then the turn)", rounds)
	}
	if !turn.GetSuccess() || turn.GetResult().GetEdn() != "12.5" {
		t.Fatalf("turn success=%v result=%v error=%v", turn.GetSuccess(), turn.GetResult(), turn.GetError())
	}
	if got := strings.Join(turn.GetPrints(), "|"); got != "name: Ada" {
		t.Errorf("prints = %q", got)
	}
	if turn.GetNumber() != 2 || turn.GetProgram() == "" || !strings.HasPrefix(turn.GetRawResponse(), "I'll look") {
		t.Errorf("number=%d program=%q raw=%q", turn.GetNumber(), turn.GetProgram(), turn.GetRawResponse())
	}
	if got := strings.Join(turn.GetDefined(), ","); got != "user,order" {
		t.Errorf("defined = %q", got)
	}
	calls := turn.GetToolCalls()
	if len(calls) != 2 || calls[1].GetName() != "get-order" || calls[1].GetArgs().GetEdn() != "{:user 7}" ||
		calls[0].GetResult().GetEdn() != `{:id 7, :name "Ada"}` || calls[0].GetDurationMs() != 3 {
		t.Errorf("tool calls = %v", calls)
	}
	var names []string
	for _, b := range turn.GetMemory().GetBindings() {
		names = append(names, b.GetName())
		if b.GetTurn() != 2 {
			t.Errorf("binding %s turn = %d, want 2", b.GetName(), b.GetTurn())
		}
	}
	if strings.Join(names, ",") != "user,order" {
		t.Errorf("memory = %v", names)
	}
}

func TestEvalTurnMemoryCarriesToTheNextTurn(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	first, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{
		Program:    `(declare factor) (defn scale "Multiplies by the factor." [x] (* factor x)) (def factor 3) (scale 2)`,
		TurnNumber: 1,
	})
	if !first.GetSuccess() {
		t.Fatalf("turn 1 failed: %v", first.GetError())
	}
	second, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{
		Program:         `(+ (scale 5) *1)`,
		Prelude:         first.GetMemory(),
		PreviousResults: []*ptcsidecarv1.Value{first.GetResult()},
		TurnNumber:      2,
	})
	if !second.GetSuccess() || second.GetResult().GetEdn() != "21" {
		t.Fatalf("turn 2: success=%v result=%v error=%v", second.GetSuccess(), second.GetResult(), second.GetError())
	}
	b := second.GetMemory().GetBindings()[0]
	if b.GetName() != "scale" || !b.GetIsFn() || b.GetDocstring() != "Multiplies by the factor." || b.GetReturnType() != "integer" {
		t.Errorf("scale binding = %v", b)
	}
}

func TestEvalTurnFailedProgramIsATurn(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	prelude := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "kept", Value: edn("[1 2]"), Turn: 1}}}
	turn, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(def kept 99) (undefined-thing 1)`, Prelude: prelude})
	if turn.GetSuccess() || turn.GetError().GetType() != "undefined_symbol" || turn.GetResult() != nil {
		t.Fatalf("turn = %v", turn)
	}
	mem := turn.GetMemory().GetBindings()
	if len(mem) != 1 || mem[0].GetValue().GetEdn() != "[1 2]" {
		t.Errorf("a failed program changed memory: %v", mem)
	}
}

func TestEvalTurnToolErrorReachesTheProgram(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	resp, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{
		Program:     `(tool/get-user {:id 1})`,
		Tools:       []*ptcsidecarv1.ToolSpec{{Name: "get-user"}},
		ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "get-user", Args: edn("{:id 1}"), Error: "user service down"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	turn := resp.GetTurn()
	if turn.GetSuccess() || turn.GetError().GetType() != "tool_error" || !strings.Contains(turn.GetError().GetMessage(), "user service down") {
		t.Fatalf("turn = %v", turn)
	}
	if turn.GetToolCalls()[0].GetError() != "user service down" {
		t.Errorf("tool call = %v", turn.GetToolCalls()[0])
	}
}

func TestEvalTurnReplayMismatch(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	base := func(results ...*ptcsidecarv1.ToolResult) *ptcsidecarv1.EvalTurnRequest {
		return &ptcsidecarv1.EvalTurnRequest{
			Program:     `(tool/get-user {:id 1})`,
			Tools:       []*ptcsidecarv1.ToolSpec{{Name: "get-user"}, {Name: "get-order"}},
			ToolResults: results,
		}
	}
	cases := map[string]*ptcsidecarv1.EvalTurnRequest{
		"other tool":   base(&ptcsidecarv1.ToolResult{Index: 0, Name: "get-order", Args: edn("{:id 1}"), Result: edn("1")}),
		"other args":   base(&ptcsidecarv1.ToolResult{Index: 0, Name: "get-user", Args: edn("{:id 2}"), Result: edn("1")}),
		"extra answer": base(&ptcsidecarv1.ToolResult{Index: 0, Name: "get-user", Args: edn("{:id 1}"), Result: edn("1")}, &ptcsidecarv1.ToolResult{Index: 1, Name: "get-user", Args: edn("{:id 1}"), Result: edn("1")}),
	}
	for name, req := range cases {
		_, err := c.EvalTurn(context.Background(), req)
		if status.Code(err) != codes.FailedPrecondition || !strings.Contains(status.Convert(err).Message(), "tool_results[") {
			t.Errorf("%s: err = %v, want FAILED_PRECONDITION naming the index", name, err)
		}
	}
	// Arguments compare as values: JSON text that means the same map replays.
	resp, err := c.EvalTurn(context.Background(), base(&ptcsidecarv1.ToolResult{Index: 0, Name: "get-user", Args: jsonValue(`{"id": 1}`), Result: jsonValue(`{"ok": true}`)}))
	if err != nil || resp.GetTurn().GetResult().GetEdn() != "{:ok true}" {
		t.Errorf("JSON answer: resp=%v err=%v", resp, err)
	}
}

func TestEvalTurnInvalidArguments(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	cases := []struct {
		field string
		req   *ptcsidecarv1.EvalTurnRequest
	}{
		{"program", &ptcsidecarv1.EvalTurnRequest{}},
		{"data.edn", &ptcsidecarv1.EvalTurnRequest{Program: "1", Data: edn("{:a")}},
		{"data", &ptcsidecarv1.EvalTurnRequest{Program: "1", Data: edn("[1 2]")}},
		{"data.json", &ptcsidecarv1.EvalTurnRequest{Program: "1", Data: jsonValue(`{"a": }`)}},
		{"turn_number", &ptcsidecarv1.EvalTurnRequest{Program: "1", TurnNumber: -1}},
		{"tools[1].name", &ptcsidecarv1.EvalTurnRequest{Program: "1", Tools: []*ptcsidecarv1.ToolSpec{{Name: "a"}, {Name: "a"}}}},
		{"limits.max_steps", &ptcsidecarv1.EvalTurnRequest{Program: "1", Limits: &ptcsidecarv1.Limits{MaxSteps: -5}}},
		{"previous_results[0].edn", &ptcsidecarv1.EvalTurnRequest{Program: "1", PreviousResults: []*ptcsidecarv1.Value{edn(`"open`)}}},
		{"tool_results[0].index", &ptcsidecarv1.EvalTurnRequest{Program: "1", ToolResults: []*ptcsidecarv1.ToolResult{{Index: 3, Name: "x"}}}},
		{"prelude", &ptcsidecarv1.EvalTurnRequest{Program: "1", Prelude: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "map", Value: edn("1")}}}}},
	}
	for _, tc := range cases {
		_, err := c.EvalTurn(context.Background(), tc.req)
		st := status.Convert(err)
		if st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), tc.field+": ") {
			t.Errorf("%s: got %v %q, want INVALID_ARGUMENT naming the field", tc.field, st.Code(), st.Message())
		}
	}
}

// The limits an evaluation runs with: zero in the server's configuration is
// the default, zero in a request is the server's limit, a request lowers a
// limit and never raises or lifts it, and a limit the server lifted can be
// set by the request.
func TestEvalTurnLimitsOnlyLower(t *testing.T) {
	d := lisp.DefaultLimits()
	with := func(l lisp.Limits, edit func(*lisp.Limits)) lisp.Limits {
		edit(&l)
		return l
	}
	cases := []struct {
		name   string
		server lisp.Limits
		req    *ptcsidecarv1.Limits
		want   lisp.Limits
	}{
		{"nothing set", lisp.Limits{}, nil, d},
		{"empty request", lisp.Limits{}, &ptcsidecarv1.Limits{}, d},
		{"server sets one, keeps the other defaults", lisp.Limits{MaxSteps: 1000}, nil,
			with(d, func(l *lisp.Limits) { l.MaxSteps = 1000 })},
		{"request lowers, cannot raise", lisp.Limits{MaxSteps: 1000, MaxDepth: 50, Timeout: time.Second},
			&ptcsidecarv1.Limits{MaxSteps: 10, MaxDepth: 500, TimeoutMs: 50, MaxToolCalls: 4},
			with(d, func(l *lisp.Limits) {
				l.MaxSteps, l.MaxDepth, l.Timeout, l.MaxToolCalls = 10, 50, 50*time.Millisecond, 4
			})},
		{"request above the defaults", lisp.Limits{}, &ptcsidecarv1.Limits{MaxSteps: d.MaxSteps * 10, MaxAllocBytes: d.MaxAllocBytes * 10}, d},
		{"server unlimited: request sets it", lisp.Limits{MaxSteps: lisp.Unlimited, Timeout: lisp.Unlimited},
			&ptcsidecarv1.Limits{MaxSteps: 7, TimeoutMs: 20},
			with(d, func(l *lisp.Limits) { l.MaxSteps, l.Timeout = 7, 20*time.Millisecond })},
		{"server unlimited: request leaves it", lisp.Limits{MaxOutputBytes: lisp.Unlimited}, &ptcsidecarv1.Limits{},
			with(d, func(l *lisp.Limits) { l.MaxOutputBytes = lisp.Unlimited })},
		{"server timeout under a millisecond", lisp.Limits{Timeout: 300 * time.Microsecond}, &ptcsidecarv1.Limits{TimeoutMs: 1},
			with(d, func(l *lisp.Limits) { l.Timeout = 300 * time.Microsecond })},
	}
	for _, c := range cases {
		got, err := New(Config{Limits: c.server}).evalLimits(c.req, "limits")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: limits = %+v, want %+v", c.name, got, c.want)
		}
	}
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	turn, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(loop [i 0] (recur (inc i)))`, Limits: &ptcsidecarv1.Limits{MaxSteps: 500}})
	if turn.GetError().GetType() != "step_limit" {
		t.Errorf("infinite loop: %v", turn.GetError())
	}
}

// TestEvalTurnEmitLimit: a turn whose memory would print larger than the
// emit limit fails with emit_limit and sends back the prelude unchanged,
// so the caller can go on; a request's max_emit_bytes lowers the limit.
func TestEvalTurnEmitLimit(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	prelude := &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "n", Value: edn("1")}}}
	turn, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{Prelude: prelude,
		Program: `(def s (apply str (repeat 100000 "0123456789"))) (def w (vec (repeat 60 s))) (count w)`})
	if e := turn.GetError(); e.GetType() != "emit_limit" || e.GetHint() == "" || !strings.Contains(e.GetMessage(), "w") {
		t.Errorf("shared 60 MB definition: %v", e)
	}
	if !proto.Equal(turn.GetMemory(), prelude) || len(turn.GetDefined()) != 0 {
		t.Errorf("memory after a failed turn = %v, want the prelude", turn.GetMemory())
	}
	turn, _ = runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(apply str (repeat 200 "x"))`,
		Limits: &ptcsidecarv1.Limits{MaxEmitBytes: 100}})
	if turn.GetError().GetType() != "emit_limit" {
		t.Errorf("request limit of 100 bytes: %v", turn.GetError())
	}
}

// streamTurn drives EvalTurnStream as a caller does, answering each call.
func streamTurn(t *testing.T, c ptcsidecarv1.SidecarServiceClient, req *ptcsidecarv1.EvalTurnRequest, answer func(*ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult) (*ptcsidecarv1.Turn, []string, error) {
	t.Helper()
	stream, err := c.EvalTurnStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_Start{Start: req}}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for {
		msg, err := stream.Recv()
		if err != nil {
			return nil, seen, err
		}
		if turn := msg.GetTurn(); turn != nil {
			if _, err := stream.Recv(); err != io.EOF {
				t.Errorf("after the turn: %v, want EOF", err)
			}
			return turn, seen, nil
		}
		call := msg.GetToolCall()
		seen = append(seen, call.GetName())
		if err := stream.Send(&ptcsidecarv1.EvalTurnStreamRequest{Message: &ptcsidecarv1.EvalTurnStreamRequest_ToolResult{ToolResult: answer(call)}}); err != nil {
			return nil, seen, err
		}
	}
}

func TestEvalTurnStream(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{
		Program: `(let [u (tool/get-user {:id 7}) o (tool/get-order {:user (:id u)})] (str (:name u) " " (:total o)))`,
		Tools:   []*ptcsidecarv1.ToolSpec{{Name: "get-user"}, {Name: "get-order"}},
	}
	turn, seen, err := streamTurn(t, c, req, func(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
		return &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: call.GetName(), Result: edn(tools[call.GetName()](""))}
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "get-user,get-order" || turn.GetResult().GetEdn() != `"Ada 12.5"` {
		t.Errorf("seen=%v turn=%v", seen, turn)
	}
}

func TestEvalTurnStreamProtocolErrors(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{Program: `(tool/get-user {:id 7})`, Tools: []*ptcsidecarv1.ToolSpec{{Name: "get-user"}}}
	_, _, err := streamTurn(t, c, req, func(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
		return &ptcsidecarv1.ToolResult{Index: call.GetIndex() + 1, Name: call.GetName()}
	})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "tool_result[0].index") {
		t.Errorf("wrong index: %v", err)
	}
	_, _, err = streamTurn(t, c, req, func(call *ptcsidecarv1.ToolCall) *ptcsidecarv1.ToolResult {
		return &ptcsidecarv1.ToolResult{Index: call.GetIndex(), Name: "other", Result: edn("1")}
	})
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "tool_result[0].name") {
		t.Errorf("wrong name: %v", err)
	}
}

// The values a caller consumes come with a JSON form next to the EDN when
// they have one, memory never does, and a turn sent back as it came (both
// texts set) reads as its EDN.
func TestEvalTurnEmitsJSONForms(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{
		Program: `(def big 9007199254740993)
(def u (tool/get-user {:id big, :tags #{:a}}))
(tool/get-order {1 :x})
{:user u, :big big, :nan ##NaN}`,
		Tools: []*ptcsidecarv1.ToolSpec{{Name: "get-user"}, {Name: "get-order"}},
	}
	resp, err := c.EvalTurn(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.GetPending().GetCalls()[0].GetArgs(); got.GetEdn() != "{:id 9007199254740993, :tags #{:a}}" ||
		got.GetJson() != `{"id":9007199254740993,"tags":["a"]}` {
		t.Errorf("pending args = %v", got)
	}
	turn, _ := runReplay(t, c, req)
	if !turn.GetSuccess() {
		t.Fatalf("turn failed: %v", turn.GetError())
	}
	calls := turn.GetToolCalls()
	for i, want := range []struct{ args, result string }{
		{`{"id":9007199254740993,"tags":["a"]}`, `{"id":7,"name":"Ada"}`},
		{``, `{"total":12.5}`}, // {1 :x} has an integer key
	} {
		if calls[i].GetArgs().GetJson() != want.args || calls[i].GetResult().GetJson() != want.result {
			t.Errorf("tool call %d: args %v result %v, want json %s and %s", i, calls[i].GetArgs(), calls[i].GetResult(), want.args, want.result)
		}
	}
	if r := turn.GetResult(); r.GetJson() != "" || !strings.Contains(r.GetEdn(), `##NaN`) {
		t.Errorf("result holding NaN = %v, want EDN only", r)
	}
	for _, b := range turn.GetMemory().GetBindings() {
		if b.GetValue().GetJson() != "" {
			t.Errorf("memory binding %s carries json %q", b.GetName(), b.GetValue().GetJson())
		}
	}
	// Sent back whole, edn is read and json ignored, even when it disagrees.
	turn.ToolCalls[0].Result.Json = `"not what the edn says"`
	out, err := c.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn},
		Memory: turn.GetMemory(), Options: &ptcsidecarv1.Options{Strategy: "full"}})
	if err != nil {
		t.Fatalf("ToMessages of the turn as emitted: %v", err)
	}
	text := fmt.Sprint(out.GetMessages())
	if !strings.Contains(text, `Ada`) || strings.Contains(text, "not what the edn says") {
		t.Errorf("ToMessages read the json text of a value that has edn:\n%s", text)
	}
}

// TestEvalTurnDocOfATool: doc of a tool prints the signature and
// description the request declared for it.
func TestEvalTurnDocOfATool(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	req := &ptcsidecarv1.EvalTurnRequest{
		RawResponse: "```clojure\n(doc tool/search)\n(dir \"tool\")\n```",
		Tools: []*ptcsidecarv1.ToolSpec{
			{Name: "search", Signature: "(query :string, limit :int) -> [:string]", Description: "find documents"},
			{Name: "fetch"},
		},
	}
	turn, _ := runReplay(t, c, req)
	want := "-------------------------|tool/search|(query :string, limit :int) -> [:string]|  find documents|fetch|search"
	if got := strings.Join(turn.GetPrints(), "|"); !turn.GetSuccess() || got != want {
		t.Errorf("success=%v error=%v prints=%q, want %q", turn.GetSuccess(), turn.GetError(), got, want)
	}
}
