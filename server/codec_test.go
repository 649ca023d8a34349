package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The count needs no nesting limit of its own: no request message contains
// itself, directly or not, so the schema bounds the nesting.
func TestNoRequestMessageIsRecursive(t *testing.T) {
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	for i := range methods.Len() {
		if path := recursion(methods.Get(i).Input(), nil); path != "" {
			t.Errorf("%s: %s", methods.Get(i).Input().Name(), path)
		}
	}
}

func recursion(md protoreflect.MessageDescriptor, open []protoreflect.FullName) string {
	for _, name := range open {
		if name == md.FullName() {
			return fmt.Sprintf("%s contains itself", name)
		}
	}
	open = append(open, md.FullName())
	for i := range md.Fields().Len() {
		if sub := md.Fields().Get(i).Message(); sub != nil {
			if path := recursion(sub, open); path != "" {
				return path
			}
		}
	}
	return ""
}

// repeatField is n copies of one field of m's type holding payload.
func repeatField(m proto.Message, name string, payload []byte, n int) []byte {
	return bytes.Repeat(field(nil, m, name, payload), n)
}

// decodeWire runs the server's codec on wire as a request of m's type, then
// the methods' count check.
func decodeWire(t *testing.T, svc *Service, wire []byte, m proto.Message) error {
	t.Helper()
	if err := svc.limits.unmarshal(wire, m, svc.limits.schemas[m.ProtoReflect().Descriptor().FullName()]); err != nil {
		t.Fatalf("codec: %v", err)
	}
	return svc.checkCounts(m)
}

// A request far over a limit is decoded only up to the first element over
// it, so it costs what that part costs; the count check then names the list.
func TestCodecDecodesUpToTheFirstElementOverALimit(t *testing.T) {
	svc := New(Config{MaxTurns: 5, Limits: lisp.DefaultLimits()})
	cases := []struct {
		name    string
		wire    []byte
		into    proto.Message
		decoded func(proto.Message) int // the elements decoded of the list over its limit
		wantErr string
	}{
		{"a million empty turns", repeatField(&ptcsidecarv1.ToMessagesRequest{}, "turns", nil, 1_000_000), &ptcsidecarv1.ToMessagesRequest{},
			func(m proto.Message) int { return len(m.(*ptcsidecarv1.ToMessagesRequest).Turns) }, "turns: more than the limit of 5 turns (--max-turns)"},
		{"a million empty previous results inside start", field(nil, &ptcsidecarv1.EvalTurnStreamRequest{}, "start",
			repeatField(&ptcsidecarv1.EvalTurnRequest{}, "previous_results", nil, 1_000_000)), &ptcsidecarv1.EvalTurnStreamRequest{},
			func(m proto.Message) int {
				return len(m.(*ptcsidecarv1.EvalTurnStreamRequest).GetStart().PreviousResults)
			},
			"start.previous_results: more than the limit of 5 results"},
		{"a million empty bindings in the third turn's memory", append(repeatField(&ptcsidecarv1.ToMessagesRequest{}, "turns", nil, 2),
			field(nil, &ptcsidecarv1.ToMessagesRequest{}, "turns", field(nil, &ptcsidecarv1.Turn{}, "memory",
				repeatField(&ptcsidecarv1.Memory{}, "bindings", nil, 1_000_000)))...), &ptcsidecarv1.ToMessagesRequest{},
			func(m proto.Message) int {
				return len(m.(*ptcsidecarv1.ToMessagesRequest).Turns[2].GetMemory().GetBindings())
			},
			"turns[2].memory.bindings: the request holds more than 100000 list elements in all"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeWire(t, svc, tc.wire, tc.into)
			if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), tc.wantErr) {
				t.Errorf("got %v, want INVALID_ARGUMENT %q", err, tc.wantErr)
			}
			limit := 5
			if strings.Contains(tc.wantErr, "in all") {
				limit = maxListElements - 3 // the three turns count too
			}
			if n := tc.decoded(tc.into); n != limit+1 {
				t.Errorf("decoded %d elements of the list, want %d: the first over the limit and those before", n, limit+1)
			}
		})
	}
}

// Each list with a limit of its own is refused one element over it, with
// the flag that sets the limit, whichever method's request holds it.
func TestEveryListLimitIsReported(t *testing.T) {
	svc := New(Config{MaxTurns: 2, MaxHistory: 3, Limits: lisp.Limits{MaxToolCalls: 4}})
	seen := 0
	for name, schema := range svc.limits.schemas {
		for _, f := range schema.fields {
			if f == nil || f.limit == 0 {
				continue
			}
			seen++
			var wire []byte
			for range f.limit + 1 {
				wire = protowire.AppendTag(wire, f.desc.Number(), protowire.BytesType)
				wire = protowire.AppendBytes(wire, nil)
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
			if err != nil {
				t.Fatal(err)
			}
			err = decodeWire(t, svc, wire, mt.New().Interface())
			want := fmt.Sprintf("%s: more than the limit of %d %s (%s)", f.desc.Name(), f.limit, f.noun, f.flag)
			if st := status.Convert(err); st.Code() != codes.InvalidArgument || st.Message() != want {
				t.Errorf("%s: got %v, want %q", f.desc.FullName(), err, want)
			}
		}
	}
	if seen != 6 {
		t.Errorf("%d lists with a limit of their own, want 6 (turns and history twice, previous_results, tool_results)", seen)
	}
}
