package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// sidecarClient is a client of a Service with the default configuration,
// through a real gRPC stack.
func sidecarClient(t *testing.T) ptcsidecarv1.SidecarServiceClient {
	return dial(t, Config{Limits: lisp.DefaultLimits()})
}

func i32(n int32) *int32 { return &n }

// agentRequest is the second call of an agent run: one successful turn that
// defined a value, called a tool and printed.
func agentRequest() *ptcsidecarv1.ToMessagesRequest {
	return &ptcsidecarv1.ToMessagesRequest{
		Options: &ptcsidecarv1.Options{
			Mission:      "Find well-reviewed products in stock",
			SystemPrompt: "You write PTC-Lisp.",
			Tools:        []*ptcsidecarv1.ToolSpec{{Name: "search-reviews", Signature: "(query :string) -> :string", Description: "Review summaries"}},
			Data:         edn(`{:products [{:name "Laptop" :price 1200} {:name "Mouse" :price 25}] :_token "secret"}`),
		},
		Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{
			{Name: "cheap", Value: edn(`[{:name "Mouse" :price 25}]`), Turn: 1},
			{Name: "score", IsFn: true, Value: edn("(fn [p] (:price p))"), Params: []string{"p"}, ReturnType: "integer", Turn: 1},
		}},
		Turns: []*ptcsidecarv1.Turn{{
			Number:    1,
			Program:   `(def cheap (filter (fn [p] (< (:price p) 100)) data/products)) (defn score [p] (:price p)) (score (first cheap)) (tool/search-reviews "Mouse")`,
			Result:    edn(`"Great mouse"`),
			ToolCalls: []*ptcsidecarv1.ToolCall{{Index: 0, Name: "search-reviews", Args: edn(`["Mouse"]`), Result: edn(`"Great mouse"`)}},
			Success:   true,
		}},
	}
}

func TestToMessagesOverGRPC(t *testing.T) {
	client := sidecarClient(t)
	resp, err := client.ToMessages(context.Background(), agentRequest())
	if err != nil {
		t.Fatal(err)
	}
	wantUser := `Find well-reviewed products in stock

;; === tool/ ===
tool/search-reviews(query string) -> string  ; Review summaries

;; === data/ ===
data/_token                   ; string, [Hidden]
data/products                 ; list[2], sample: [{:name "Laptop" :price 1200} {:name "Mouse" :price 25}]

;; === user/ (your prelude) ===
(score [p]) -> integer
cheap                         ; = list[1], sample: [{:name "Mouse" :price 25}]

;; Tool calls made:
;   search-reviews("Mouse")

Turns left: 4`
	msgs := resp.GetMessages()
	if len(msgs) != 2 || msgs[0].GetRole() != "system" || msgs[0].GetContent() != "You write PTC-Lisp." || msgs[1].GetRole() != "user" {
		t.Fatalf("messages: %v", msgs)
	}
	if got := msgs[1].GetContent(); got != wantUser {
		t.Errorf("USER:\n%s\nwant:\n%s", got, wantUser)
	}
	st := resp.GetStats()
	if st.GetStrategy() != "single-user-coalesced" || st.GetTurnsCompressed() != 1 || st.GetToolCallsShown() != 1 ||
		st.GetMessagesBefore() != 4 || st.GetMessagesAfter() != 2 || st.GetTokenizer() != "o200k_base" ||
		st.GetTokensAfter() <= 0 || st.GetTokensBefore() <= 0 || st.GetCharsAfter() != int32(len("You write PTC-Lisp.")+len(wantUser)) {
		t.Errorf("stats: %v", st)
	}

	again, err := client.ToMessages(context.Background(), agentRequest())
	if err != nil || !proto.Equal(resp, again) {
		t.Errorf("the same request gave a different response (%v)", err)
	}
}

// TestToMessagesBill: the cost statistics reach the wire. The request is a
// second call whose earlier call (no turns, empty memory) is rebuilt from
// it; SYSTEM, mission, tools and data are the same in both.
func TestToMessagesBill(t *testing.T) {
	client := sidecarClient(t)
	req := agentRequest()
	req.Options.Pricing = "openai"
	resp, err := client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	st := resp.GetStats()
	stable, after := st.GetStablePrefixTokens(), st.GetTokensAfter()
	if !st.GetStablePrefixKnown() || stable <= 0 || stable >= after || st.GetCacheWriteTokens() != after-stable ||
		st.GetBilledTokens() != 0.5*float64(stable)+float64(after-stable) || st.GetPricing() != "openai" {
		t.Errorf("stats: %v", st)
	}
	// The stable prefix runs into the USER message, past the mission, tools
	// and data, which is also where the next call's will end.
	bp, next := st.GetCacheBreakpoint(), st.GetNextCacheBreakpoint()
	if bp.GetMessageIndex() != 1 || next.GetMessageIndex() != 1 || bp.GetOffset() < next.GetOffset() {
		t.Errorf("breakpoints %v and %v", bp, next)
	}
	req.Options.CacheReadRate = proto.Float64(0.2)
	resp, err = client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if st := resp.GetStats(); st.GetPricing() != "custom" || st.GetBilledTokens() != 0.2*float64(stable)+float64(after-stable) {
		t.Errorf("with cache_read_rate 0.2: %v", st)
	}
	// A model whose minimum cacheable prefix the stable prefix falls short
	// of: no cache hit, everything written; a minimum above the prompt:
	// everything billed fresh.
	req.Options.CacheReadRate = nil
	req.Options.Model = "gpt-4o"
	req.Options.MinCacheableTokens = proto.Int32(stable + 1)
	resp, err = client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if st := resp.GetStats(); st.GetModel() != "gpt-4o" || st.GetContextWindow() != 128000 || st.GetMinCacheableTokens() != stable+1 ||
		!st.GetStablePrefixUncached() || st.GetCacheWriteTokens() != after || st.GetUncachedTokens() != 0 || st.GetBilledTokens() != float64(after) {
		t.Errorf("with a minimum above the stable prefix: %v", st)
	}
	req.Options.MinCacheableTokens = proto.Int32(after + 1)
	resp, err = client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if st := resp.GetStats(); st.GetCacheWriteTokens() != 0 || st.GetUncachedTokens() != after || st.GetBilledTokens() != float64(after) {
		t.Errorf("with a minimum above the prompt: %v", st)
	}
}

// TestToMessagesChatOverGRPC: a coding agent's chat log through the wire.
// The request from before the scan window serves (prompt_source task), the
// participant's name survives, the loop dropped before the window leaves a
// ledger note, a reused tool-call id is rewritten, and window_only asks for
// the seed's nudge instead.
func TestToMessagesChatOverGRPC(t *testing.T) {
	client := sidecarClient(t)
	call := func(id, path string) *ptcsidecarv1.ChatMessage {
		return &ptcsidecarv1.ChatMessage{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: id, Name: "read_file", Arguments: `{"path": "` + path + `"}`}}}
	}
	result := func(id, text string) *ptcsidecarv1.ChatMessage {
		return &ptcsidecarv1.ChatMessage{Role: "tool", ToolCallId: id, Content: text}
	}
	req := &ptcsidecarv1.ToMessagesRequest{
		// Priced without caching, where a note always pays for itself (a
		// two-call conversation under a cache's rates keeps the loop whole).
		Options: &ptcsidecarv1.Options{Strategy: "loop-slice", ScanWindow: i32(2), Pricing: "none"},
		History: []*ptcsidecarv1.ChatMessage{
			{Role: "user", Name: "ada", Content: "Fix the scanner."},
			call("call_0", "scan.go"), result("call_0", "package scan\n"+strings.Repeat("// a line of the scanner\n", 100)),
			call("call_0", "scan_test.go"), result("call_0", "package scan // tests"),
		},
	}
	resp, err := client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	msgs, st := resp.GetMessages(), resp.GetStats()
	if len(msgs) != 4 || msgs[0].GetName() != "ada" || msgs[0].GetContent() != "Fix the scanner." ||
		msgs[1].GetSource() != "system" || !strings.Contains(msgs[1].GetContent(), `called read_file({"path": "scan.go"}) -> package scan`) ||
		msgs[2].GetToolCalls()[0].GetId() != "call_0_2" || msgs[3].GetToolCallId() != "call_0_2" {
		t.Fatalf("messages: %v", msgs)
	}
	if st.GetPromptSource() != "task" || st.GetToolCallIdsRewritten() != 1 || st.GetMessagesDropped() != 2 || st.GetToolLoopsDropped() != 1 || st.GetSyntheticNudge() {
		t.Errorf("stats: %v", st)
	}
	req.Options.WindowOnly = true
	resp, err = client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The nudge is last; the loop is led by the request it worked on, so
	// that the conversation opens with the user's message.
	last := resp.GetMessages()[len(resp.GetMessages())-1]
	if st := resp.GetStats(); st.GetPromptSource() != "nudge" || !st.GetSyntheticNudge() || last.GetSource() != "system" ||
		st.GetProvider() != "all" || st.GetPromptsLed() != 1 || resp.GetMessages()[0].GetContent() != "Fix the scanner." {
		t.Errorf("window_only: %v", resp)
	}
	// An OpenAI-compatible provider takes the seed's own form: the loop
	// first, the nudge after it.
	req.Options.Provider = "openai"
	resp, err = client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if msgs, st := resp.GetMessages(), resp.GetStats(); len(msgs) != 3 || msgs[0].GetRole() != "assistant" || msgs[2].GetSource() != "system" ||
		st.GetProvider() != "openai" || st.GetPromptsLed() != 0 {
		t.Errorf("window_only, provider openai: %v", resp)
	}
	req.Options.Provider = "bedrock"
	if _, err = client.ToMessages(context.Background(), req); status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "options.provider") {
		t.Errorf("an unknown provider: %v", err)
	}

	req.Options = &ptcsidecarv1.Options{Strategy: "token-budget", MaxTokens: i32(3)}
	_, err = client.ToMessages(context.Background(), req)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "options.max_tokens") || !strings.Contains(err.Error(), "user's request") {
		t.Errorf("a budget that cannot hold the request: %v", err)
	}
	req.Options = &ptcsidecarv1.Options{Strategy: "token-budget", MaxTokens: i32(100), TrimTo: i32(200)}
	_, err = client.ToMessages(context.Background(), req)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "options.trim_to") {
		t.Errorf("trim_to over max_tokens: %v", err)
	}
}

// TestToMessagesJSONValues: JSON data gives the same message as the
// equivalent EDN (object keys that are keyword names become keywords).
func TestToMessagesJSONValues(t *testing.T) {
	client := sidecarClient(t)
	viaEDN, err := client.ToMessages(context.Background(), agentRequest())
	if err != nil {
		t.Fatal(err)
	}
	req := agentRequest()
	req.Options.Data = &ptcsidecarv1.Value{Json: `{"products": [{"name": "Laptop", "price": 1200}, {"name": "Mouse", "price": 25}], "_token": "secret"}`}

	viaJSON, err := client.ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(viaEDN, viaJSON) {
		t.Errorf("JSON data renders differently:\n%s\nvs EDN:\n%s", viaJSON.GetMessages()[1].GetContent(), viaEDN.GetMessages()[1].GetContent())
	}
}

// TestToMessagesEmptyRequest: no options at all means every default; SYSTEM
// is the built-in reference and USER the turns indicator alone.
func TestToMessagesEmptyRequest(t *testing.T) {
	resp, err := sidecarClient(t).ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := resp.GetMessages()
	if len(msgs) != 2 || msgs[0].GetContent() != lisp.SystemPrompt() || msgs[1].GetContent() != "Turns left: 5" {
		t.Errorf("messages: %v", msgs)
	}
}

// TestToMessagesPromptVariant: options.prompt picks the built-in system
// prompt's variant, and ListStrategies shows the option with its default.
func TestToMessagesPromptVariant(t *testing.T) {
	client := sidecarClient(t)
	for variant, want := range map[string]string{"": lisp.SystemPrompt(), "lean": lisp.SystemPrompt(), "full": lisp.FullSystemPrompt()} {
		req := agentRequest()
		req.Options.SystemPrompt, req.Options.Prompt = "", variant
		resp, err := client.ToMessages(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.GetMessages()[0].GetContent(); got != want {
			t.Errorf("prompt %q: SYSTEM starts %.60q", variant, got)
		}
	}
	list, err := client.ListStrategies(context.Background(), &ptcsidecarv1.ListStrategiesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.GetStrategies() {
		if s.GetInput() != "turns" {
			continue
		}
		found := false
		for _, o := range s.GetOptions() {
			found = found || o.GetName() == "prompt" && o.GetDefaultValue() == "lean"
		}
		if !found {
			t.Errorf("ListStrategies: %s does not list option prompt with default lean", s.GetName())
		}
	}
}

func TestToMessagesFullStrategy(t *testing.T) {
	req := agentRequest()
	req.Options.Strategy = "full"
	resp, err := sidecarClient(t).ToMessages(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range resp.GetMessages() {
		roles = append(roles, m.GetRole())
	}
	if strings.Join(roles, ",") != "system,user,assistant,user" {
		t.Errorf("roles %v", roles)
	}
	if got := resp.GetMessages()[3].GetContent(); got != ";; Result: \"Great mouse\"\n\nTurns left: 4" {
		t.Errorf("feedback %q", got)
	}
}

func TestToMessagesRejectsBadInput(t *testing.T) {
	client := sidecarClient(t)
	cases := []struct {
		name   string
		modify func(*ptcsidecarv1.ToMessagesRequest)
		code   codes.Code
		prefix string
	}{
		{"unparsable tool args", func(r *ptcsidecarv1.ToMessagesRequest) {
			r.Turns = append(r.Turns, &ptcsidecarv1.Turn{Number: 2}, &ptcsidecarv1.Turn{Number: 3,
				ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "x", Args: edn("{:a")}}})
		}, codes.InvalidArgument, "turns[2].tool_calls[0].args.edn: parse_error"},
		{"unparsable turn result", func(r *ptcsidecarv1.ToMessagesRequest) { r.Turns[0].Result = edn(`"open`) }, codes.InvalidArgument, "turns[0].result.edn: parse_error"},
		{"unparsable binding", func(r *ptcsidecarv1.ToMessagesRequest) { r.Memory.Bindings[0].Value = edn("[1 2") }, codes.InvalidArgument, "memory.bindings[0].value.edn: parse_error"},
		{"unparsable data", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Data = edn("{:a 1") }, codes.InvalidArgument, "options.data.edn: parse_error"},
		{"data not a map", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Data = edn("[1 2]") }, codes.InvalidArgument, "options.data: must be a map, got vector"},
		{"unknown strategy", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Strategy = "zip" }, codes.InvalidArgument, "options.strategy: unknown strategy"},
		{"unknown prompt variant", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Prompt = "short" }, codes.InvalidArgument, `options.prompt: must be "lean" or "full", got "short"`},
		{"limit out of range", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.PrintlnLimit = i32(-1) }, codes.InvalidArgument, "options.println_limit: "},
		{"bad tool signature", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Tools[0].Signature = "(q :str) -> :any" }, codes.InvalidArgument, "options.tools[0].signature: "},
		{"unparsable json", func(r *ptcsidecarv1.ToMessagesRequest) {
			r.Options.Data = &ptcsidecarv1.Value{Json: `{"a": 1`}
		}, codes.InvalidArgument, "options.data.json: parse_error"},
		{"json tool result", func(r *ptcsidecarv1.ToMessagesRequest) {
			r.Turns[0].ToolCalls[0].Result = &ptcsidecarv1.Value{Json: `[1,`}
		}, codes.InvalidArgument, "turns[0].tool_calls[0].result.json: parse_error"},
		{"blank edn", func(r *ptcsidecarv1.ToMessagesRequest) { r.Turns[0].Result = edn(" ") }, codes.InvalidArgument, "turns[0].result.edn: parse_error"},
		{"turn memory", func(r *ptcsidecarv1.ToMessagesRequest) {
			r.Turns[0].Memory = &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "x", Value: edn("sym")}}}
		}, codes.InvalidArgument, "turns[0].memory.bindings[0].value.edn: parse_error"},
		{"unknown pricing", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Pricing = "openai-latest" }, codes.InvalidArgument, `options.pricing: unknown pricing "openai-latest"`},
		{"cache read rate above 1", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.CacheReadRate = proto.Float64(1.5) }, codes.InvalidArgument, "options.cache_read_rate: must be between 0 and 1"},
		{"unknown model", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Model = "gpt-7" }, codes.InvalidArgument, `options.model: unknown model "gpt-7"`},
		{"fraction without model", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.TriggerFraction = proto.Float64(0.5) }, codes.InvalidArgument, "options.trigger_fraction: needs model"},
		{"tool without name", func(r *ptcsidecarv1.ToMessagesRequest) { r.Options.Tools[0].Name = "" }, codes.InvalidArgument, "options.tools[0].name: must not be empty"},
		{"chat message with unknown role", func(r *ptcsidecarv1.ToMessagesRequest) {
			r.Options.Strategy = "loop-slice"
			r.Turns, r.Memory = nil, nil
			r.History = []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "hi"}, {Role: "robot", Content: "beep"}}
		}, codes.InvalidArgument, "history[1].role: unknown role"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := agentRequest()
			c.modify(req)
			_, err := client.ToMessages(context.Background(), req)
			st := status.Convert(err)
			if st.Code() != c.code || !strings.HasPrefix(st.Message(), c.prefix) {
				t.Errorf("got %v %q, want %v starting %q", st.Code(), st.Message(), c.code, c.prefix)
			}
		})
	}
}

// TestWireLetsGoOfTheRequest: the service as a gRPC server serves it
// releases each memory binding, turn and history message of a request
// once converted, and answers as the service itself does, which leaves
// the request whole for a caller that sends it again (the report command).
func TestWireLetsGoOfTheRequest(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	chat := func() *ptcsidecarv1.ToMessagesRequest {
		return &ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "loop-slice"},
			History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "go"}, {Role: "assistant", Content: "done"}}}
	}
	for _, request := range []func() *ptcsidecarv1.ToMessagesRequest{agentRequest, chat} {
		req := request()
		want, err := svc.ToMessages(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(req, request()) {
			t.Fatal("ToMessages changed its request")
		}
		again, err := svc.ToMessages(context.Background(), req)
		if err != nil || !proto.Equal(again, want) {
			t.Fatalf("the same request again: %v, %v", again, err)
		}

		req = request()
		got, err := svc.Wire().ToMessages(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(got, want) {
			t.Errorf("over the wire:\n%v\nin process:\n%v", got, want)
		}
		for i, b := range req.GetMemory().GetBindings() {
			if b != nil {
				t.Errorf("memory.bindings[%d] still held after decoding", i)
			}
		}
		for i, turn := range req.GetTurns() {
			if turn != nil {
				t.Errorf("turns[%d] still held after decoding", i)
			}
		}
		for i, m := range req.GetHistory() {
			if m != nil {
				t.Errorf("history[%d] still held after decoding", i)
			}
		}
	}

	trace := &ptcsidecarv1.RenderTraceRequest{Turns: agentRequest().Turns, Memory: agentRequest().Memory}
	wantTrace, err := svc.RenderTrace(context.Background(), trace)
	if err != nil {
		t.Fatal(err)
	}
	gotTrace, err := svc.Wire().RenderTrace(context.Background(), trace)
	if err != nil || gotTrace.GetText() != wantTrace.GetText() {
		t.Errorf("RenderTrace over the wire: %q, %v; want %q", gotTrace.GetText(), err, wantTrace.GetText())
	}
	if trace.GetTurns()[0] != nil || trace.GetMemory().GetBindings()[0] != nil {
		t.Error("RenderTrace over the wire kept the request's turns and memory")
	}
}
