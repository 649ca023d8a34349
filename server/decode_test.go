package server

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// requestTypes are the messages the service's methods receive.
func requestTypes(t testing.TB) []protoreflect.MessageType {
	methods := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0).Methods()
	var types []protoreflect.MessageType
	for i := range methods.Len() {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(methods.Get(i).Input().FullName())
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, mt)
	}
	return types
}

// fill sets every field of m, at every depth: strings long and short, two
// elements per list, and the oneof member that variant picks.
func fill(m protoreflect.Message, variant int, next *int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if o := fd.ContainingOneof(); o != nil && !o.IsSynthetic() && o.Fields().Get(variant%o.Fields().Len()) != fd {
			continue
		}
		value := func() protoreflect.Value {
			*next++
			switch fd.Kind() {
			case protoreflect.StringKind:
				// Every other string is long enough for the value cache.
				return protoreflect.ValueOfString(fmt.Sprintf("%q text %d", fd.Name(), *next) + strings.Repeat("-", 20*(*next%2)))
			case protoreflect.BoolKind:
				return protoreflect.ValueOfBool(true)
			case protoreflect.Int32Kind:
				return protoreflect.ValueOfInt32(int32(*next))
			case protoreflect.Int64Kind:
				return protoreflect.ValueOfInt64(int64(*next))
			}
			panic(fmt.Sprintf("fill: %s is a %s", fd.FullName(), fd.Kind()))
		}
		switch {
		case fd.IsList() && fd.Message() != nil:
			for range 2 {
				fill(m.Mutable(fd).List().AppendMutable().Message(), variant, next)
			}
		case fd.IsList():
			for range 2 {
				m.Mutable(fd).List().Append(value())
			}
		case fd.Message() != nil:
			fill(m.Mutable(fd).Message(), variant, next)
		default:
			m.Set(fd, value())
		}
	}
}

// Decoded requests hold no view into their wire bytes, which go back to
// the transport's pool: with every field of every request set, the bytes
// are overwritten after decoding and the message must still be what was
// sent. A string field own.go forgets fails here.
func TestDecodedRequestsOwnTheirStrings(t *testing.T) {
	for _, mt := range requestTypes(t) {
		for variant := range 2 {
			sent := mt.New()
			next := 0
			fill(sent, variant, &next)
			wire, err := proto.Marshal(sent.Interface())
			if err != nil {
				t.Fatal(err)
			}
			for round := range 2 { // the second may find the value texts canonical
				b := bytes.Clone(wire)
				got := mt.New().Interface().(requestMessage)
				if err := decodeRequest(b, got); err != nil {
					t.Fatalf("%s: %v", mt.Descriptor().Name(), err)
				}
				for i := range b {
					b[i] = 'X'
				}
				if !proto.Equal(got, sent.Interface()) {
					t.Fatalf("%s variant %d round %d: after its wire bytes changed, the message reads\n%v\nwant\n%v",
						mt.Descriptor().Name(), variant, round, got, sent.Interface())
				}
			}
		}
	}
}

// The aliasing decoder has no nesting limit of its own: it relies on no
// request message containing itself, directly or not, so that the schema
// bounds the nesting.
func TestNoRequestMessageIsRecursive(t *testing.T) {
	for _, mt := range requestTypes(t) {
		if path := recursion(mt.Descriptor(), nil); path != "" {
			t.Errorf("%s: %s", mt.Descriptor().Name(), path)
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

// A value's text that the value cache holds is not allocated again when a
// later request resends it: the decoder hands out the cache's copy.
func TestResentValueTextsAreNotCopied(t *testing.T) {
	svc := New(Config{})
	memory := fmt.Sprintf("[%s]", strings.Repeat(`{:id 1 :name "a product"} `, 50))
	wire, err := proto.Marshal(&ptcsidecarv1.ToMessagesRequest{
		Options: &ptcsidecarv1.Options{Mission: "count"},
		Memory:  &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "items", Value: edn(memory), Turn: 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	text := func() string {
		req := new(ptcsidecarv1.ToMessagesRequest)
		if err := decodeRequest(bytes.Clone(wire), req); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ToMessages(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		return req.Memory.Bindings[0].Value.GetEdn()
	}
	first := text()
	runtime.GC() // only the cache keeps the text canonical now
	second := text()
	if second != memory || unsafe.StringData(second) != unsafe.StringData(first) {
		t.Errorf("the resent text is a new copy")
	}
	if svc.values.Stats().Hits == 0 {
		t.Errorf("the value was not found in the cache")
	}
}
