package server

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// FuzzDecodeValue feeds caller text to the wire Value decoder as EDN and as
// JSON: it either fails with INVALID_ARGUMENT naming the field, or gives a
// value whose EDN (what the sidecar emits) decodes back to an equal value
// and whose JSON form, when it has one, decodes too. Empty text is no value.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range []string{
		`{:a [1 2.5 "x" #{:k nil}] "s" \c}`, `[1 -0.0 ##NaN ##Inf 9223372036854775807]`, `#{[1] {:a 1}}`,
		`{"name": 1, "a b": [true, null, 1e3, -2]}`, `"\u00e9\n"`, `(1 2)`, `[[[[]]]]`, `{:a}`, ``,
		`{(keyword "a b") (quote x)}`, `[(re-pattern "a\"b") (let [k 1] (fn [x] (+ k x)))]`, `(+ 1 2)`,
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	s := New(Config{MaxValueDepth: 20})
	decode := func(v *ptcsidecarv1.Value) (lisp.Value, error) {
		rd := s.newReader(context.Background(), false)
		defer rd.release()
		return rd.value(v, "data")
	}
	f.Fuzz(func(t *testing.T, text string, asJSON bool) {
		v := edn(text)
		suffix := ".edn"
		if asJSON {
			v, suffix = jsonValue(text), ".json"
		}
		got, err := decode(v)
		if err != nil {
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "data"+suffix+": ") {
				t.Fatalf("%q: error %v does not name the field", text, err)
			}
			return
		}
		if got == nil {
			if text != "" {
				t.Fatalf("%q decodes to no value", text)
			}
			return // both texts empty: an absent value
		}
		// The JSON form the sidecar emits next to the EDN is read back by
		// the sidecar's own JSON decoding.
		if j := encodeValue(got).GetJson(); j != "" {
			if _, err := decode(jsonValue(j)); err != nil {
				t.Fatalf("%q: the JSON form %s of %s does not decode: %v", text, j, lisp.Repr(got), err)
			}
		}
		written := lisp.WireText(got)
		again, err := decode(edn(written))
		if err != nil {
			t.Fatalf("%q decodes to %s, which does not decode back: %v", text, written, err)
		}
		if lisp.WireText(again) != written {
			t.Fatalf("%q: %s decodes back as %s", text, written, lisp.WireText(again))
		}
	})
}

// FuzzToMessages runs ToMessages end to end, decoding and rendering, over
// requests whose values and texts the fuzzer controls: every answer is a
// response or INVALID_ARGUMENT, never a panic or INTERNAL, and the same
// request gives the same response.
func FuzzToMessages(f *testing.F) {
	req := agentRequest()
	f.Add(req.Options.Data.GetEdn(), req.Turns[0].Result.GetEdn(), req.Turns[0].ToolCalls[0].Args.GetEdn(),
		req.Turns[0].Program, "printed", req.Options.Tools[0].Signature, uint8(0), true, false)
	f.Add(`{"items": [1, 2]}`, `nil`, `{}`, "(fail 1)", "", "", uint8(1), false, true)
	f.Add(`{}`, `[1 2 3]`, `[]`, "", "a\nb", "-> :int", uint8(2), false, false)
	s := New(Config{MaxValueDepth: 50, MaxTurns: 10, MaxHistory: 10})
	strategies := []string{"single-user-coalesced", "full", "loop-slice", "turn-aware", "cache-stable"}
	f.Fuzz(func(t *testing.T, data, result, args, program, print, signature string, strategy uint8, success, dataJSON bool) {
		dataValue := edn(data)
		if dataJSON {
			dataValue = jsonValue(data)
		}
		in := &ptcsidecarv1.ToMessagesRequest{
			Options: &ptcsidecarv1.Options{
				Strategy:  strategies[int(strategy)%len(strategies)],
				Mission:   print,
				Data:      dataValue,
				Signature: signature,
				Tools:     []*ptcsidecarv1.ToolSpec{{Name: "t", Signature: signature, Description: print}},
			},
			Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "v", Value: edn(result), Turn: 1}}},
			Turns: []*ptcsidecarv1.Turn{{
				Number: 1, Program: program, Prints: []string{print}, Result: edn(result), Success: success,
				ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "t", Args: edn(args), Result: edn(result)}},
				Error:     &ptcsidecarv1.TurnError{Type: "type_error", Message: print},
			}},
			History: []*ptcsidecarv1.ChatMessage{
				{Role: "system", Content: program},
				{Role: "user", Content: print},
				{Role: "assistant", ToolCalls: []*ptcsidecarv1.ChatToolCall{{Id: "1", Name: "t", Arguments: args}}},
				{Role: "tool", ToolCallId: "1", Content: result},
			},
		}
		a, err := s.ToMessages(context.Background(), in)
		if err != nil {
			if code := status.Code(err); code != codes.InvalidArgument {
				t.Fatalf("ToMessages: %v, want a response or INVALID_ARGUMENT", err)
			}
			return
		}
		b, err := s.ToMessages(context.Background(), in)
		if err != nil || !proto.Equal(a, b) {
			t.Fatalf("ToMessages is not deterministic: %v", err)
		}
	})
}

// FuzzDecodeRequest holds the request codec to protobuf-go on any bytes
// sent as any method's request, under small limits. The codec never fails
// (grpc-go would answer INTERNAL): bytes protobuf-go rejects, and bytes
// after the first list element over a limit, which the codec does not
// read, decode to a request the method's count check refuses with
// INVALID_ARGUMENT; a request within its limits (its elements counted and
// its decoded size estimated) decodes to what protobuf-go decodes; one
// over them decodes to no more than its wire bytes and fails the count
// check with INVALID_ARGUMENT. No bytes get another code.
func FuzzDecodeRequest(f *testing.F) {
	limits := newRequestLimits(&Config{MaxTurns: 3, MaxHistory: 4, Limits: lisp.Limits{MaxToolCalls: 2}})
	limits.maxElements = 24
	limits.slack = 1024 // small enough that the estimate of a few messages reaches it
	svc := &Service{limits: limits}
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	for _, m := range []proto.Message{agentRequest(), &ptcsidecarv1.EvalTurnRequest{Program: "(+ 1 2)", Data: edn("{:a 1}"),
		ToolResults: []*ptcsidecarv1.ToolResult{{Name: "t", Result: jsonValue("[1]")}}, Limits: &ptcsidecarv1.Limits{MaxSteps: 9}}} {
		wire, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		for i := range methods.Len() {
			f.Add(uint8(i), wire)
			f.Add(uint8(i), wire[:len(wire)/2])
		}
	}
	f.Add(uint8(0), []byte("\x0a\x02\xff\xfe"))          // invalid UTF-8
	f.Add(uint8(0), []byte("\xe8\xe8\xe8\xe8\x30\x30"))  // a field number out of range
	f.Add(uint8(0), []byte("\x43\x9c\x9c\x9c\x9c\x30"))  // a group closed by another field
	f.Add(uint8(0), bytes.Repeat([]byte{0x0a, 0x00}, 5)) // five empty turns
	f.Add(uint8(0), []byte("\x0a\x04\x3a\x02\x0a\x00\x0a\x00\x0a\x00"))
	f.Add(uint8(1), bytes.Repeat([]byte{0x3a, 0x00}, 6)) // the limits sent six times
	f.Fuzz(func(t *testing.T, method uint8, wire []byte) {
		input := methods.Get(int(method) % methods.Len()).Input()
		mt, err := protoregistry.GlobalTypes.FindMessageByName(input.FullName())
		if err != nil {
			t.Fatal(err)
		}
		want := mt.New().Interface()
		wantErr := proto.Unmarshal(wire, want)
		got := mt.New().Interface()
		if err := limits.unmarshal(wire, got, limits.schemas[input.FullName()]); err != nil {
			t.Fatalf("%s %x: the codec failed the request, which grpc-go answers INTERNAL: %v", input.Name(), wire, err)
		}
		countErr := svc.checkCounts(got)
		if countErr != nil && status.Code(countErr) != codes.InvalidArgument {
			t.Fatalf("%s %x: the count check says %v", input.Name(), wire, countErr)
		}
		if wantErr != nil {
			// Not a message, or a text not UTF-8: refused naming where.
			if countErr == nil {
				t.Fatalf("%s %x: protobuf-go says %v, the codec decoded\n%v", input.Name(), wire, wantErr, got)
			}
			return
		}
		if wantCountErr := svc.checkCounts(want); wantCountErr == nil {
			// A singular field sent more than once is refused on the
			// wire, where protobuf-go merges or replaces it.
			if status.Code(countErr) == codes.InvalidArgument && strings.Contains(status.Convert(countErr).Message(), ": sent more than") {
				if size := proto.Size(got); size > maxReencoded(wire) {
					t.Fatalf("%s %x: a field sent too often, decoded %d bytes' worth", input.Name(), wire, size)
				}
				return
			}
			if status.Code(countErr) == codes.InvalidArgument && proto.Size(want) < len(wire) {
				// Bytes that decode to less than they are (a field sent
				// again, which protobuf-go replaces or merges): the codec
				// counts what was sent and may refuse it for that.
				return
			}
			if countErr != nil || !proto.Equal(got, want) {
				t.Fatalf("%s %x: within the limits, decoded\n%v (%v)\nprotobuf-go decoded\n%v", input.Name(), wire, got, countErr, want)
			}
			return
		}
		if status.Code(countErr) != codes.InvalidArgument {
			t.Fatalf("%s %x: over the limits, the count check says %v", input.Name(), wire, countErr)
		}
		// A request the codec refused is empty but for the refusal's mark.
		if _, _, refused := refusal(got.ProtoReflect().GetUnknown()); !refused && proto.Size(got) > maxReencoded(wire) {
			t.Fatalf("%s %x: over the limits, decoded %d bytes' worth", input.Name(), wire, proto.Size(got))
		}
	})
}

// maxReencoded is the most a decoded message may take encoded again: a
// negative int32 sent in a five-byte varint is encoded in ten, so twice
// the bytes sent, never more.
func maxReencoded(wire []byte) int { return 2 * len(wire) }
