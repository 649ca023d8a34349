package server

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/valuecache"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
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
			codec := newRequestCodec(valuecache.New(1 << 20))
			for round := range 2 { // the second finds the value texts in the cache
				b := bytes.Clone(wire)
				got := mt.New().Interface().(requestMessage)
				if err := codec.read(b, got); err != nil {
					t.Fatalf("%s: %v", mt.Descriptor().Name(), err)
				}
				remember(codec.values, got)
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

// remember puts the text of every value in m into the cache, as the
// methods do when they read them.
func remember(values *valuecache.Cache, m proto.Message) {
	eachValue(m.ProtoReflect(), func(v *ptcsidecarv1.Value) {
		k := valuecache.Key{Text: v.GetEdn() + v.GetJson()}
		values.Decode(k, func() (lisp.Value, error) { return lisp.Int(len(k.Text)), nil })
	})
}

// eachValue calls visit with every value in m, at any depth.
func eachValue(m protoreflect.Message, visit func(*ptcsidecarv1.Value)) {
	if v, ok := m.Interface().(*ptcsidecarv1.Value); ok {
		visit(v)
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil:
		case fd.IsList():
			for i := range v.List().Len() {
				eachValue(v.List().Get(i).Message(), visit)
			}
		default:
			eachValue(v.Message(), visit)
		}
		return true
	})
}

// Values' texts are checked for UTF-8 by the owner, not by the wire walk,
// and only where the cache does not hold them: a text that is not valid
// UTF-8 must be rejected wherever a value appears, named by its field, as
// protobuf-go would reject it, also when an almost equal text is cached.
func TestEveryValueTextIsChecked(t *testing.T) {
	for _, mt := range requestTypes(t) {
		for variant := range 2 {
			sent := mt.New()
			next := 0
			fill(sent, variant, &next)
			var values []*ptcsidecarv1.Value
			eachValue(sent, func(v *ptcsidecarv1.Value) { values = append(values, v) })
			for i, v := range values {
				valid := fmt.Sprintf(`["spoil me, a value text" %d]`, i)
				if variant == 0 {
					v.Edn, v.Json = valid, ""
				} else {
					v.Edn, v.Json = "", valid
				}
			}
			for i := range values {
				wire, err := proto.Marshal(sent.Interface())
				if err != nil {
					t.Fatal(err)
				}
				codec := newRequestCodec(valuecache.New(1 << 20))
				remember(codec.values, sent.Interface()) // every valid text is cached
				// The same length, so the wire stays well formed.
				spoilt := bytes.Replace(wire, fmt.Appendf(nil, `["spoil me, a value text" %d]`, i), fmt.Appendf(nil, "[\"\xffpoil me, a value text\" %d]", i), 1)
				if bytes.Equal(spoilt, wire) {
					t.Fatalf("%s: value %d not found in the wire bytes", mt.Descriptor().Name(), i)
				}
				if _, problem := wireProblem(spoilt, mt.Descriptor(), false); problem != "" {
					t.Errorf("%s value %d: the wire walk checked the text itself (%s); the owner is to", mt.Descriptor().Name(), i, problem)
				}
				err = codec.read(spoilt, mt.New().Interface().(requestMessage))
				if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "invalid UTF-8") ||
					!strings.Contains(err.Error(), ".edn:") && !strings.Contains(err.Error(), ".json:") {
					t.Errorf("%s value %d: %v; want INVALID_ARGUMENT naming the value's text", mt.Descriptor().Name(), i, err)
				}
				if proto.Unmarshal(spoilt, mt.New().Interface()) == nil {
					t.Fatalf("%s value %d: protobuf-go accepts the spoilt bytes; the test does not spoil them", mt.Descriptor().Name(), i)
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
		if err := svc.codec.read(bytes.Clone(wire), req); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.ToMessages(t.Context(), req); err != nil {
			t.Fatal(err)
		}
		return req.Memory.Bindings[0].Value.GetEdn()
	}
	first := text()
	second := text()
	if second != memory || unsafe.StringData(second) != unsafe.StringData(first) {
		t.Errorf("the resent text is a new copy")
	}
	if svc.values.Stats().Hits == 0 {
		t.Errorf("the value was not found in the cache")
	}
}
