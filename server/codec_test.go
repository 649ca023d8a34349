package server

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/structpb"

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
		{"a million prints in the third turn", append(repeatField(&ptcsidecarv1.ToMessagesRequest{}, "turns", nil, 2),
			field(nil, &ptcsidecarv1.ToMessagesRequest{}, "turns",
				repeatField(&ptcsidecarv1.Turn{}, "prints", []byte("12345678"), 1_000_000))...), &ptcsidecarv1.ToMessagesRequest{},
			func(m proto.Message) int { return len(m.(*ptcsidecarv1.ToMessagesRequest).Turns[2].Prints) },
			"turns[2].prints: the request holds more than 100000 list elements in all"},
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

// The element over a limit is decoded empty: its content was never
// counted, and could hold millions of elements of its own.
func TestCodecDecodesTheElementOverALimitEmpty(t *testing.T) {
	svc := New(Config{MaxTurns: 5, Limits: lisp.DefaultLimits()})
	wire := append(repeatField(&ptcsidecarv1.ToMessagesRequest{}, "turns", nil, 5),
		field(nil, &ptcsidecarv1.ToMessagesRequest{}, "turns", repeatField(&ptcsidecarv1.Turn{}, "prints", nil, 1_000_000))...)
	m := &ptcsidecarv1.ToMessagesRequest{}
	err := decodeWire(t, svc, wire, m)
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "turns: more than the limit of 5 turns") {
		t.Errorf("got %v, want INVALID_ARGUMENT naming turns", err)
	}
	if len(m.Turns) != 6 || len(m.Turns[5].Prints) != 0 {
		t.Errorf("decoded %d turns, the last with %d prints; want 6, the last empty", len(m.Turns), len(m.Turns[len(m.Turns)-1].Prints))
	}
}

// A request that would decode to more than its size allows is decoded only
// up to the element that takes it over, and the count check names the list.
func TestCodecDecodesUpToTheElementOverTheEstimate(t *testing.T) {
	svc := New(Config{Limits: lisp.DefaultLimits()})
	svc.limits.maxSets = 2 // the tool calls' args sent twice are merged, not refused
	cases := []struct {
		name    string
		wire    []byte
		into    proto.Message
		wantErr string
	}{
		{"empty content parts", field(nil, &ptcsidecarv1.ToMessagesRequest{}, "history",
			repeatField(&ptcsidecarv1.ChatMessage{}, "parts", nil, 90_000)), &ptcsidecarv1.ToMessagesRequest{}, "history[0].parts: "},
		{"empty bindings inside start", field(nil, &ptcsidecarv1.EvalTurnStreamRequest{}, "start", field(nil, &ptcsidecarv1.EvalTurnRequest{}, "prelude",
			repeatField(&ptcsidecarv1.Memory{}, "bindings", nil, 90_000))), &ptcsidecarv1.EvalTurnStreamRequest{}, "start.prelude.bindings: "},
		{"tool calls of empty values, each sent twice", field(nil, &ptcsidecarv1.ToMessagesRequest{}, "turns", repeatField(&ptcsidecarv1.Turn{}, "tool_calls",
			append(field(nil, &ptcsidecarv1.ToolCall{}, "args", nil), field(nil, &ptcsidecarv1.ToolCall{}, "args", nil)...), 60_000)),
			&ptcsidecarv1.ToMessagesRequest{}, "turns[0].tool_calls"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeWire(t, svc, tc.wire, tc.into)
			if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), tc.wantErr) ||
				!strings.Contains(st.Message(), "too small for its size") {
				t.Errorf("got %v, want INVALID_ARGUMENT %q... too small for its size", err, tc.wantErr)
			}
			decoded := tally{maxCost: math.MaxInt}
			svc.limits.count(tc.into.ProtoReflect(), svc.limits.schemas[tc.into.ProtoReflect().Descriptor().FullName()], &decoded)
			if most := svc.limits.maxCost(len(tc.wire)) + 512; decoded.cost > most {
				t.Errorf("decoded %d bytes' worth of a %d-byte request, over the %d its size allows and one element", decoded.cost, len(tc.wire), most)
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

// tinyElement is the smallest element of the list field f with something
// in each of its fields: every text one byte, every number 1, every
// message field an empty message. Lists inside it are left empty.
func tinyElement(f protoreflect.FieldDescriptor) []byte {
	if f.Kind() != protoreflect.MessageKind {
		return []byte("x")
	}
	var out []byte
	fds := f.Message().Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.IsList() || fd.IsMap() || fd.ContainingOneof() != nil && fd.ContainingOneof().Fields().Get(0) != fd {
			continue
		}
		switch fd.Kind() {
		case protoreflect.MessageKind:
			out = protowire.AppendTag(out, fd.Number(), protowire.BytesType)
			out = protowire.AppendBytes(out, nil)
		case protoreflect.StringKind, protoreflect.BytesKind:
			out = protowire.AppendTag(out, fd.Number(), protowire.BytesType)
			out = protowire.AppendString(out, "x")
		case protoreflect.DoubleKind, protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind:
			out = protowire.AppendTag(out, fd.Number(), protowire.Fixed64Type)
			out = protowire.AppendFixed64(out, 1)
		case protoreflect.FloatKind, protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind:
			out = protowire.AppendTag(out, fd.Number(), protowire.Fixed32Type)
			out = protowire.AppendFixed32(out, 1)
		default:
			out = protowire.AppendTag(out, fd.Number(), protowire.VarintType)
			out = protowire.AppendVarint(out, 1)
		}
	}
	return out
}

// tinyShape is a request of n tiny elements in one list of a request type.
type tinyShape struct {
	path string
	wire func(n int) []byte
}

// tinyShapes are, for every list and map inside requests of md's type
// (through messages and the first element of lists), a request holding
// many tiny elements there.
func tinyShapes(md protoreflect.MessageDescriptor, path string, wrap func([]byte) []byte) []tinyShape {
	var out []tinyShape
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		name := path + string(fd.Name())
		in := func(content []byte) []byte {
			b := protowire.AppendTag(nil, fd.Number(), protowire.BytesType)
			return wrap(protowire.AppendBytes(b, content))
		}
		switch {
		case fd.IsMap():
			out = append(out, tinyShape{name, func(n int) []byte {
				var entries []byte
				for i := range n {
					var entry []byte
					entry = protowire.AppendTag(entry, 1, protowire.BytesType)
					entry = protowire.AppendString(entry, fmt.Sprint(i))
					entry = protowire.AppendTag(entry, 2, protowire.BytesType)
					entry = protowire.AppendBytes(entry, tinyElement(fd.MapValue()))
					entries = protowire.AppendTag(entries, fd.Number(), protowire.BytesType)
					entries = protowire.AppendBytes(entries, entry)
				}
				return wrap(entries)
			}})
		case fd.IsList():
			out = append(out, tinyShape{name, func(n int) []byte {
				var elements []byte
				for range n {
					if fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind {
						elements = protowire.AppendTag(elements, fd.Number(), protowire.BytesType)
						elements = protowire.AppendBytes(elements, tinyElement(fd))
					} else {
						elements = protowire.AppendTag(elements, fd.Number(), protowire.VarintType)
						elements = protowire.AppendVarint(elements, 1)
					}
				}
				return wrap(elements)
			}})
			if fd.Kind() == protoreflect.MessageKind {
				out = append(out, tinyShapes(fd.Message(), name+"[0].", in)...)
			}
		case fd.Kind() == protoreflect.MessageKind:
			out = append(out, tinyShapes(fd.Message(), name+".", in)...)
		}
	}
	return out
}

// The estimate is what decoding takes: for every list of every request
// type filled with tiny elements, no less than the decoded request holds
// once collected and no more than decoding allocated, and the same from
// the wire as from the decoded request. A list or a message type added to
// the requests is measured here without a change.
func TestEstimateIsWhatDecodingTakes(t *testing.T) {
	limits := newRequestLimits(&Config{})
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	shapes := 0
	for i := range methods.Len() {
		md := methods.Get(i).Input()
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
		if err != nil {
			t.Fatal(err)
		}
		schema := limits.schemas[md.FullName()]
		for _, shape := range tinyShapes(md, "", func(b []byte) []byte { return b }) {
			shapes++
			checkEstimate(t, fmt.Sprintf("%s.%s", md.Name(), shape.path), limits, schema, mt, shape.wire(20_000))
		}
	}
	if shapes < 30 {
		t.Errorf("%d shapes, want every list of every request", shapes)
	}
}

// decodedSize is what decoding wire into a message of type mt holds once
// collected and what it allocated, in bytes; inspect sees the message.
func decodedSize(t *testing.T, mt protoreflect.MessageType, wire []byte, inspect func(proto.Message)) (live, allocated int64) {
	var before, decoded, held, dropped runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := mt.New().Interface()
	if err := proto.Unmarshal(wire, m); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&decoded)
	runtime.GC()
	runtime.ReadMemStats(&held)
	inspect(m)
	runtime.KeepAlive(m)
	m = nil
	runtime.GC()
	runtime.ReadMemStats(&dropped)
	return int64(held.HeapAlloc) - int64(dropped.HeapAlloc), int64(decoded.TotalAlloc - before.TotalAlloc)
}

// The estimate covers what the requests' schema does not hold yet: maps,
// oneofs of numbers, texts and messages, measured on protobuf's own
// Struct and ListValue (a map of Values, and a list of them).
func TestEstimateCoversMapsAndOneofs(t *testing.T) {
	limits := newRequestLimits(&Config{})
	built := map[protoreflect.FullName]*wireSchema{}
	value := func(member string, payload []byte, typ protowire.Type) []byte {
		fd := (&structpb.Value{}).ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(member))
		b := protowire.AppendTag(nil, fd.Number(), typ)
		if typ == protowire.BytesType {
			return protowire.AppendBytes(b, payload)
		}
		return append(b, payload...)
	}
	values := map[string][]byte{
		"bool":   value("bool_value", []byte{1}, protowire.VarintType),
		"number": value("number_value", protowire.AppendFixed64(nil, 1), protowire.Fixed64Type),
		"text":   value("string_value", []byte("x"), protowire.BytesType),
		"struct": value("struct_value", nil, protowire.BytesType),
	}
	for name, v := range values {
		for _, md := range []protoreflect.MessageDescriptor{(&structpb.Struct{}).ProtoReflect().Descriptor(), (&structpb.ListValue{}).ProtoReflect().Descriptor()} {
			var wire []byte
			for i := range 20_000 {
				element := v
				if md.Name() == "Struct" { // a map entry: key 1, value 2
					element = protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), fmt.Sprint("k", i))
					element = protowire.AppendBytes(protowire.AppendTag(element, 2, protowire.BytesType), v)
				}
				wire = protowire.AppendBytes(protowire.AppendTag(wire, 1, protowire.BytesType), element)
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatal(err)
			}
			checkEstimate(t, fmt.Sprintf("%s of %s", md.Name(), name), limits, buildSchema(md, nil, built), mt, wire)
		}
	}
}

// checkEstimate holds the estimate of wire, a message of type mt and of
// schema, to what decoding it takes: no less than the decoded message
// holds once collected, no more than decoding allocated, and the same
// from the wire as from the decoded message.
func checkEstimate(t *testing.T, what string, limits *requestLimits, schema *wireSchema, mt protoreflect.MessageType, wire []byte) {
	t.Helper()
	onWire := tally{maxCost: math.MaxInt}
	if over, err := schema.scan(wire, math.MaxInt, &onWire, false); over != nil || err != nil {
		t.Fatalf("%s: scan: %v %v", what, over, err)
	}
	got := tally{maxCost: math.MaxInt}
	ok := false
	// MemStats counts the whole process: a goroutine another test left can
	// allocate or free meanwhile, so a shape passes when one of three
	// measurements agrees.
	for try := 0; try < 3 && !ok; try++ {
		live, allocated := decodedSize(t, mt, wire, func(m proto.Message) {
			got = tally{maxCost: math.MaxInt}
			limits.count(m.ProtoReflect(), schema, &got)
		})
		t.Logf("%-62s wire %7d  estimate %8d  live %8d  allocated %8d", what, len(wire), got.cost, live, allocated)
		ok = live <= int64(got.cost) && int64(got.cost) <= allocated+allocated/8
	}
	if !ok {
		t.Errorf("%s: the estimate is not between what the decoded message holds and what decoding allocated", what)
	}
	if got.cost != onWire.cost {
		t.Errorf("%s: estimated %d from the wire, %d decoded", what, onWire.cost, got.cost)
	}
}

// Bytes no protobuf library writes, which protobuf-go still decodes: a
// oneof's member replaced by another, a message sent twice (merged), a
// number sent twice. The wire's estimate is the decoded request's, or
// lower for a merge, never higher: a request the codec cuts short always
// fails the count check.
func TestEstimateOfRepeatedFields(t *testing.T) {
	limits := newRequestLimits(&Config{})
	stream := &ptcsidecarv1.EvalTurnStreamRequest{}
	start := func(n int) []byte {
		return field(nil, stream, "start", field(nil, &ptcsidecarv1.EvalTurnRequest{}, "prelude",
			repeatField(&ptcsidecarv1.Memory{}, "bindings", nil, n)))
	}
	answer := field(nil, stream, "tool_result", field(nil, &ptcsidecarv1.ToolResult{}, "args", nil))
	cases := []struct {
		name  string
		wire  []byte
		merge bool // the wire's estimate may be the lower
	}{
		{"start replaced by an answer", append(start(1000), answer...), false},
		{"an answer replaced by start", append(answer, start(1000)...), false},
		{"start, an answer, start", slices.Concat(start(1000), answer, start(10)), false},
		{"start sent twice", append(start(1000), start(10)...), true},
		{"unknown fields in start replaced by an answer", slices.Concat(field(nil, stream, "start",
			protowire.AppendVarint(protowire.AppendTag(nil, 1000, protowire.VarintType), 0)), answer), false},
		{"the limits sent twice", slices.Concat(field(nil, stream, "start", slices.Concat(
			field(nil, &ptcsidecarv1.EvalTurnRequest{}, "limits", nil), field(nil, &ptcsidecarv1.EvalTurnRequest{}, "limits", nil)))), true},
	}
	schema := limits.schemas[stream.ProtoReflect().Descriptor().FullName()]
	for _, tc := range cases {
		onWire := tally{maxCost: math.MaxInt, maxSets: math.MaxInt} // merged and replaced, not refused
		if over, err := schema.scan(tc.wire, math.MaxInt, &onWire, false); over != nil || err != nil {
			t.Fatalf("%s: scan: %v %v", tc.name, over, err)
		}
		m := &ptcsidecarv1.EvalTurnStreamRequest{}
		if err := proto.Unmarshal(tc.wire, m); err != nil {
			t.Fatal(err)
		}
		decoded := tally{maxCost: math.MaxInt}
		limits.count(m.ProtoReflect(), schema, &decoded)
		if onWire.cost > decoded.cost || !tc.merge && onWire.cost != decoded.cost || onWire.elements != decoded.elements || onWire.unknown != decoded.unknown {
			t.Errorf("%s: the wire estimates %d (%d elements, %d unknown fields), the decoded request %d (%d, %d)", tc.name,
				onWire.cost, onWire.elements, onWire.unknown, decoded.cost, decoded.elements, decoded.unknown)
		}
	}
}

// Two byte sequences no protobuf library writes make the wire's estimate
// higher than the decoded request's: a map key sent twice (in two
// entries, the second replacing the first), and a oneof's member replaced inside a message sent twice (here a map
// entry's value). Cut short on the wire and then found within its
// limits once decoded, such a request was INTERNAL; it is refused as
// INVALID_ARGUMENT naming the map.
func TestCodecRefusesWhatItCannotCount(t *testing.T) {
	limits := newRequestLimits(&Config{})
	md := (&structpb.Struct{}).ProtoReflect().Descriptor()
	schema := buildSchema(md, nil, map[protoreflect.FullName]*wireSchema{})
	value := func(member protoreflect.Name, payload []byte) []byte {
		fd := (&structpb.Value{}).ProtoReflect().Descriptor().Fields().ByName(member)
		return protowire.AppendBytes(protowire.AppendTag(nil, fd.Number(), protowire.BytesType), payload)
	}
	entry := func(i int, twice bool) []byte {
		key := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), fmt.Sprint("k", i))
		e := key
		if !twice {
			// The value sent twice: a list of 20 values replaced by a text.
			list := value("list_value", bytes.Repeat(protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), value("string_value", []byte("x"))), 20))
			e = protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), list)
		}
		return protowire.AppendBytes(protowire.AppendTag(e, 2, protowire.BytesType), value("string_value", []byte("y")))
	}
	for _, twice := range []bool{true, false} {
		var wire []byte
		for i := range 2000 {
			k := i
			if twice {
				k = i / 2 // each key in two entries: the second replaces the first
			}
			wire = protowire.AppendBytes(protowire.AppendTag(wire, 1, protowire.BytesType), entry(k, twice))
		}
		onWire := tally{maxCost: math.MaxInt, maxSets: math.MaxInt}
		if over, err := schema.scan(wire, math.MaxInt, &onWire, false); over != nil || err != nil {
			t.Fatalf("scan: %v %v", over, err)
		}
		m := &structpb.Struct{}
		if err := proto.Unmarshal(wire, m); err != nil {
			t.Fatal(err)
		}
		decoded := tally{maxCost: math.MaxInt}
		limits.count(m.ProtoReflect(), schema, &decoded)
		t.Logf("a key in two entries %v: the wire estimates %d, the decoded request %d", twice, onWire.cost, decoded.cost)
		if onWire.cost <= decoded.cost {
			t.Fatalf("the wire's estimate is not the higher: the case no longer tests the disagreement")
		}
		// A bound between the two: the wire's count cuts the request
		// short, the decoded part is within it.
		l := *limits
		l.factor, l.slack, l.maxSets = 0, (onWire.cost+decoded.cost)/2, math.MaxInt
		got := &structpb.Struct{}
		if err := l.unmarshal(wire, got, schema); err != nil {
			t.Fatalf("the codec failed the request (INTERNAL): %v", err)
		}
		check := tally{maxCost: math.MaxInt}
		path, problem := l.count(got.ProtoReflect(), schema, &check)
		if !strings.HasPrefix(path, "fields") || !strings.Contains(problem, "no protobuf library writes") {
			t.Errorf("refused as %q: %q, want the map named", path, problem)
		}
	}
}

// An error may quote what the caller sent: its status's message, and a
// field violation's field and description, are cut to maxStatusText. A
// 12 MB role quoted whole left a grpc-go client waiting for the answer.
func TestStatusTextIsCut(t *testing.T) {
	long := strings.Repeat("q", 1<<20)
	for name, err := range map[string]error{
		"invalid field": invalidf("history[0].role", "unknown role %q", long),
		"long field":    invalidField(long, "x"),
		"other status":  CutStatus(status.Errorf(codes.FailedPrecondition, "the answer is for %q", long)),
	} {
		st := status.Convert(err)
		if n := len(st.Message()); n > 2*maxStatusText+64 {
			t.Errorf("%s: a message of %d bytes", name, n)
		}
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok {
				for _, v := range br.GetFieldViolations() {
					if len(v.GetField())+len(v.GetDescription()) > 2*maxStatusText+64 {
						t.Errorf("%s: a field violation of %d bytes", name, len(v.GetField())+len(v.GetDescription()))
					}
				}
			}
		}
	}
}
