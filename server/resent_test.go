package server

import (
	"bytes"
	"math"
	"slices"
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

// resentShape is a request of two-byte fields that protobuf-go would
// decode one by one, each an allocation or a merge the estimate does not
// see: a oneof alternated, a message, a text or a number sent again; and
// unknown fields, which protobuf-go keeps as they came, in one array.
type resentShape struct {
	name string
	m    proto.Message // the request's type
	wire func(n int) []byte
	path string // the field the answer names
	// most is the largest n served; 0 for maxSets, -1 for none.
	most int
}

func resentShapes() []resentShape {
	stream := &ptcsidecarv1.EvalTurnStreamRequest{}
	eval := &ptcsidecarv1.EvalTurnRequest{}
	tm := &ptcsidecarv1.ToMessagesRequest{}
	num := func(m proto.Message, name string) protowire.Number {
		return m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name)).Number()
	}
	varint := func(n protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, n, protowire.VarintType), v)
	}
	return []resentShape{
		{"start and tool_result alternated", stream, func(n int) []byte {
			return bytes.Repeat(slices.Concat(field(nil, stream, "start", nil), field(nil, stream, "tool_result", nil)), max(n/2, 1))[:2*n]
		}, "tool_result", 0},
		{"start sent again", stream, func(n int) []byte { return repeatField(stream, "start", nil, n) }, "start", 0},
		{"limits sent again inside start", stream, func(n int) []byte {
			return field(nil, stream, "start", repeatField(eval, "limits", nil, n))
		}, "start.limits", 0},
		{"limits sent again", eval, func(n int) []byte { return repeatField(eval, "limits", nil, n) }, "limits", 0},
		{"limits sent as a number", eval, func(int) []byte { return varint(num(eval, "limits"), 0) }, "limits", -1},
		{"an optional number sent again", tm, func(n int) []byte {
			return field(nil, tm, "options", bytes.Repeat(varint(num(&ptcsidecarv1.Options{}, "max_turns"), 1), n))
		}, "options.max_turns", 0},
		{"unknown fields", eval, func(n int) []byte { return bytes.Repeat(varint(1000, 0), n/2) }, "1000", 2 * maxUnknownFields},
		{"the program sent again", eval, func(n int) []byte { return repeatField(eval, "program", []byte("ab"), n) }, "program", 0},
		{"a value's text sent again", eval, func(n int) []byte {
			return field(nil, eval, "data", repeatField(&ptcsidecarv1.Value{}, "edn", []byte("ab"), n))
		}, "data.edn", 0},
		{"a number sent again", eval, func(n int) []byte { return bytes.Repeat(varint(num(eval, "turn_number"), 1), n) }, "turn_number", 0},
	}
}

// TestCodecRefusesAFieldSentTooOften: a singular field, sent more
// than once in one message or with another wire type, is refused
// naming it, and the codec decodes no more than the bytes before it: the
// decode's allocations (a count, not a time) do not grow with the request.
// Likewise past maxUnknownFields unknown fields.
func TestCodecRefusesAFieldSentTooOften(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	for _, shape := range resentShapes() {
		allocs := map[int]float64{}
		for _, n := range []int{maxSets, 10_000, 1_000_000} {
			wire := shape.wire(n)
			m := shape.m.ProtoReflect().New().Interface()
			err := decodeWire(t, svc, wire, m)
			most := shape.most
			if most == 0 {
				most = maxSets
			}
			switch {
			case n > most:
				if status.Code(err) != codes.InvalidArgument || !strings.HasPrefix(status.Convert(err).Message(), shape.path+": ") {
					t.Errorf("%s, %d times: %v, want INVALID_ARGUMENT naming %s", shape.name, n, err, shape.path)
				}
			case err != nil:
				t.Errorf("%s, %d times: %v, want it served", shape.name, n, err)
			}
			schema := svc.limits.schemas[m.ProtoReflect().Descriptor().FullName()]
			allocs[n] = testing.AllocsPerRun(2, func() {
				svc.limits.unmarshal(wire, shape.m.ProtoReflect().New().Interface(), schema)
			})
		}
		t.Logf("%s: %v allocations for 1, 10,000 and 1,000,000 fields", shape.name, allocs)
		// What protobuf-go is given to decode: the fields before the one
		// sent too often, and its mark; or the unknown fields up to the
		// one over the limit.
		wire := shape.wire(1_000_000)
		over, err := svc.limits.schemas[shape.m.ProtoReflect().Descriptor().FullName()].scan(wire, maxListElements, &tally{maxCost: math.MaxInt, maxSets: maxSets}, false)
		if over == nil || err != nil {
			t.Fatalf("%s: the scan found nothing to cut (%v)", shape.name, err)
		}
		decodes := 8 * maxSets
		if shape.most > 0 {
			decodes = len(shape.wire(shape.most + 2)) // one field over
		}
		if n := len(over.prefix(wire)); n > decodes {
			t.Errorf("%s: the codec decodes %d of 1,000,000 fields' bytes, want %d at most", shape.name, n, decodes)
		}
		if allocs[1_000_000] > 50 {
			t.Errorf("%s: decoding 1,000,000 fields took %v allocations", shape.name, allocs[1_000_000])
		}
	}
}

// BenchmarkDecodeResentFields decodes each resent shape at about 15 MiB
// with protobuf-go alone and with the server's codec and count check:
// where protobuf-go spends its CPU on them, and what the codec leaves of it.
func BenchmarkDecodeResentFields(b *testing.B) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	for _, shape := range resentShapes() {
		wire := shape.wire(15 << 20 * 1000 / len(shape.wire(1000)))
		for _, by := range []string{"protobuf-go", "codec"} {
			b.Run(shape.name+"/"+by, func(b *testing.B) {
				schema := svc.limits.schemas[shape.m.ProtoReflect().Descriptor().FullName()]
				b.SetBytes(int64(len(wire)))
				b.ReportAllocs()
				for b.Loop() {
					m := shape.m.ProtoReflect().New().Interface()
					if by == "protobuf-go" {
						proto.Unmarshal(wire, m)
						continue
					}
					if err := svc.limits.unmarshal(wire, m, schema); err != nil {
						b.Fatal(err)
					}
					svc.checkCounts(m)
				}
			})
		}
	}
}

// BenchmarkDecodeTinyElements decodes, with the server's codec and count
// check, each list of every request type filled with 100,000 tiny
// elements: the codec decodes it up to the element that takes it over
// the size rule or the element limit, the most decoding a request of tiny
// elements gets.
func BenchmarkDecodeTinyElements(b *testing.B) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	for i := range methods.Len() {
		md := methods.Get(i).Input()
		schema := svc.limits.schemas[md.FullName()]
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
		if err != nil {
			b.Fatal(err)
		}
		for _, shape := range tinyShapes(md, "", func(b []byte) []byte { return b }) {
			wire := shape.wire(100_000)
			b.Run(string(md.Name())+"."+shape.path, func(b *testing.B) {
				b.SetBytes(int64(len(wire)))
				for b.Loop() {
					m := mt.New().Interface()
					if err := svc.limits.unmarshal(wire, m, schema); err != nil {
						b.Fatal(err)
					}
					svc.checkCounts(m)
				}
			})
		}
	}
}
