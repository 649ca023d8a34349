package server

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// A JSON request over a limit is refused by its count, before it is
// decoded, with the answer the methods give the decoded request; JSON that
// does not fit the request's schema is left to the decoder.
func TestCheckJSON(t *testing.T) {
	svc := New(Config{MaxTurns: 5, Limits: lisp.DefaultLimits()})
	many := func(n int, item string) string { return strings.TrimSuffix(strings.Repeat(item+",", n), ",") }
	cases := []struct {
		name string
		into proto.Message
		json string
		want string // the error's message; "" for none
	}{
		{"eleven megabytes of empty turns", &ptcsidecarv1.ToMessagesRequest{}, `{"turns":[` + many(4_000_000, "{}") + `]}`,
			"turns: more than the limit of 5 turns (--max-turns)"},
		{"empty bindings inside a turn", &ptcsidecarv1.RenderTraceRequest{},
			`{"turns":[{},{"memory":{"bindings":[` + many(100_001, `{"name":"`+strings.Repeat("b", 60)+`"}`) + `]}}]}`,
			"turns[1].memory.bindings: the request holds more than 100000 list elements in all, the limit"},
		{"prints by their proto name", &ptcsidecarv1.ToMessagesRequest{}, `{"turns":[{"tool_calls":[{}],"prints":[` + many(100_000, `""`) + `]}]}`,
			"turns[0].prints: the request holds more than 100000 list elements in all, the limit"},
		{"previous results inside start", &ptcsidecarv1.EvalTurnStreamRequest{},
			`{"start":{"program":"1","previousResults":[` + many(6, `{"edn":"1"}`) + `]}}`,
			"start.previous_results: more than the limit of 5 results (--max-turns)"},
		{"empty content parts", &ptcsidecarv1.ToMessagesRequest{}, `{"history":[{"role":"user","parts":[` + many(90_000, "{}") + `]}]}`,
			"history[0].parts: the request's elements are too small for its size: decoded, it would take more than 2 times its bytes plus 3 MiB; " +
				"send fewer, longer elements (join short content parts, messages, bindings or prints)"},
		{"within the limits", &ptcsidecarv1.ToMessagesRequest{}, `{"turns":[{"number":1,"result":{"edn":"[1 2]"}}],"options":{"tools":[{"name":"t"}]}}`, ""},
		{"nested eight million deep", &ptcsidecarv1.ToMessagesRequest{}, `{"turns":` + strings.Repeat("[", 8_000_000), ""},
		{"an unknown field before the turns", &ptcsidecarv1.ToMessagesRequest{}, `{"nope":1,"turns":[` + many(10, "{}") + `]}`, ""},
		{"a syntax error before the turns", &ptcsidecarv1.ToMessagesRequest{}, `{"options":{"mission":"x"  "turns":[` + many(10, "{}") + `]}`, ""},
		{"escaped keys", &ptcsidecarv1.ToMessagesRequest{}, `{"t\u0075rns":[` + many(6, "{}") + `]}`,
			"turns: more than the limit of 5 turns (--max-turns)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := svc.CheckJSON(tc.into, []byte(tc.json))
			if tc.want == "" {
				if err != nil {
					t.Errorf("CheckJSON: %v, want nil", err)
				}
				return
			}
			if st := status.Convert(err); st.Code() != codes.InvalidArgument || st.Message() != tc.want {
				t.Errorf("CheckJSON: %v, want INVALID_ARGUMENT %q", err, tc.want)
			}
		})
	}
}

// FuzzCheckJSON holds the count of JSON to the count of what it decodes
// to: where protojson decodes a request, CheckJSON refuses it exactly when
// the methods' check does, with the same answer. (The estimate of what a
// request decodes to is judged against the JSON's size in one and the
// protobuf size in the other; no input of a fuzzer's size comes near its
// 3 MiB slack.)
func FuzzCheckJSON(f *testing.F) {
	svc := New(Config{MaxTurns: 3, MaxHistory: 4, Limits: lisp.Limits{MaxToolCalls: 2}})
	svc.limits.maxElements = 24
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	over := agentRequest()
	for range 4 {
		over.Turns = append(over.Turns, &ptcsidecarv1.Turn{Prints: []string{"a", "b"}, ToolCalls: []*ptcsidecarv1.ToolCall{{}, {}}})
	}
	for _, m := range []proto.Message{agentRequest(), over, &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)", Data: edn("{:a 1}"),
		ToolResults: []*ptcsidecarv1.ToolResult{{Name: "t", Result: jsonValue("[1]")}, {}, {}}, Limits: &ptcsidecarv1.Limits{MaxSteps: 9}}} {
		for _, protoNames := range []bool{false, true} {
			text, err := protojson.MarshalOptions{UseProtoNames: protoNames}.Marshal(m)
			if err != nil {
				f.Fatal(err)
			}
			for i := range methods.Len() {
				f.Add(uint8(i), string(text))
			}
		}
	}
	f.Fuzz(func(t *testing.T, method uint8, text string) {
		input := methods.Get(int(method) % methods.Len()).Input()
		mt, err := protoregistry.GlobalTypes.FindMessageByName(input.FullName())
		if err != nil {
			t.Fatal(err)
		}
		m := mt.New().Interface()
		counted := svc.CheckJSON(m, []byte(text))
		if protojson.Unmarshal([]byte(text), m) != nil {
			return
		}
		decoded := svc.checkCounts(m)
		if status.Convert(counted).Message() != status.Convert(decoded).Message() {
			t.Fatalf("%s %s: counted as JSON %v, decoded %v", input.Name(), text, counted, decoded)
		}
	})
}
