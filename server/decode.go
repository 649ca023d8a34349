package server

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/experimental"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	protov2 "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/valuecache"
)

// Request bytes that are not a valid message (a proto3 string holding
// invalid UTF-8, a truncated field) fail in the codec, before any handler
// runs, and grpc-go answers every codec failure with INTERNAL, as if the
// server were at fault. For this service the caller is at fault, so its
// methods watch their own decoding: each registers the message it is about
// to fill with the codec; for a registered message the codec records why
// decoding failed instead of failing, and the method then answers
// INVALID_ARGUMENT with that reason, naming the field. Other services on
// the same server (health, reflection) keep grpc-go's behaviour.

// requestCodec is the standard proto codec plus that record, and its own
// decoder for this service's messages (read).
type requestCodec struct {
	encoding.CodecV2
	values  *valuecache.Cache // where resent value texts are found; may be nil
	buffers requestBuffers
	watched sync.Map // message -> error; nil while decoding succeeds
}

func newRequestCodec(values *valuecache.Cache) *requestCodec {
	return &requestCodec{CodecV2: encoding.GetCodecV2(proto.Name), values: values}
}

// requestMessage is a message of this service: gen/ has an aliasing
// decoder for each (vtprotobuf's unmarshal_unsafe).
type requestMessage interface {
	protov2.Message
	UnmarshalVTUnsafe([]byte) error
}

func (c *requestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ours := v.(requestMessage)
	if !ours {
		return c.CodecV2.Unmarshal(data, v)
	}
	var err error
	if b, ok := c.buffers.frames.contiguous(data); ok {
		err = c.read(b, m) // data is freed after Unmarshal returns
	} else {
		buf := data.MaterializeToBuffer(&c.buffers)
		err = c.read(buf.ReadOnlyData(), m)
		buf.Free()
	}
	if err == nil {
		return nil
	}
	if _, ok := c.watched.Load(v); !ok {
		return err
	}
	c.watched.Store(v, err)
	return nil // the method reports it
}

// read decodes b into m. A request is mostly wire values (memory, data,
// tool results: a megabyte for a long run) that a running agent resends
// on every call, and protobuf-go copies each into a new string, the
// garbage that cost a call more than everything else it does. Here the
// strings are first read as views into b, then replaced by strings the
// message owns (own.go): values the value cache holds are found there, not
// copied. b is only valid until read returns.
//
// What protobuf-go checks and the aliasing decoder does not, or not alike,
// is checked first by wireProblem, except the UTF-8 of values' texts,
// which the owner checks where the cache does not already vouch for them.
func (c *requestCodec) read(b []byte, m requestMessage) error {
	md := m.ProtoReflect().Descriptor()
	if path, problem := wireProblem(b, md, false); problem != "" {
		return invalidRequest(path, problem)
	}
	if err := m.UnmarshalVTUnsafe(b); err != nil {
		protov2.Reset(m)
		return invalidf("request", "not a valid message: %v", err)
	}
	o := owner{values: c.values}
	known := o.request(m)
	if known && !o.invalidUTF8 {
		return nil
	}
	protov2.Reset(m) // no view into b may outlive this call
	if !known {
		// A method added without its pass in own.go; its tests fail first.
		return status.Errorf(codes.Internal, "request: %T has no string ownership pass", m)
	}
	// Walk again, checking every string, to name the field.
	if path, problem := wireProblem(b, md, true); problem != "" {
		return invalidRequest(path, problem)
	}
	return invalidField("request", "a value's text is not valid UTF-8")
}

func invalidRequest(path, problem string) error {
	return invalidField(path, problem)
}

// wireProblem walks the wire form of a message of type md and reports the
// first thing wrong with it, with the path of the field in the form the
// other request errors use ("turns[2].program"; "" is the message itself):
//
//   - bytes that are not a message (truncated, a bad tag or field number,
//     unbalanced groups), named by the innermost message that holds them;
//   - a string that is not valid UTF-8, which proto3 forbids (a value's
//     text only when valueTexts is set: the owner checks those otherwise);
//   - a known field sent with a wire type its type cannot have: a client
//     built from a schema in which the field had another type. protobuf-go
//     would file it with the unknown fields and go on without it; the
//     caller is better served by hearing that its schema differs.
//
// problem is "" when there is nothing wrong. The walk allocates only to
// spell out what it found.
func wireProblem(msg []byte, md protoreflect.MessageDescriptor, valueTexts bool) (path, problem string) {
	return schemaOf(md).problem(msg, valueTexts)
}

func (s *wireSchema) problem(msg []byte, valueTexts bool) (path, problem string) {
	checkUTF8 := valueTexts || !s.values
	for b := msg; len(b) > 0; {
		at := len(msg) - len(b)
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", notAMessage(n)
		}
		if num > protowire.MaxValidNumber {
			return "", fmt.Sprintf("not a valid message: field number %d is out of range", num)
		}
		b = b[n:]
		f := s.field(num)
		if f != nil && !f.fits(typ) {
			return fieldName(msg[:at], f.desc), fmt.Sprintf("sent with wire type %d, which a field of type %s cannot have: is the client built from another version of the schema?", typ, f.desc.Kind())
		}
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return "", notAMessage(n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return "", notAMessage(n)
		}
		b = b[n:]
		switch {
		case f == nil:
		case f.sub != nil:
			if sub, problem := f.sub.problem(v, valueTexts); problem != "" {
				path = fieldName(msg[:at], f.desc)
				if sub != "" {
					path += "." + sub
				}
				return path, problem
			}
		case f.text:
			if checkUTF8 && !utf8.Valid(v) {
				return fieldName(msg[:at], f.desc), "invalid UTF-8: string fields must be valid UTF-8"
			}
		}
	}
	return "", ""
}

// wireSchema is what the wire walk needs of a message type, worked out
// once per type rather than asked of its descriptor at every field (a map
// lookup by number, then the field's kind and message, were a fifth of
// the walk).
type wireSchema struct {
	values bool        // the message is Value: its strings are values' texts
	fields []wireField // by number; numbers beyond are not in the schema
	large  map[protowire.Number]*wireField
}

// wireField is one field of a wireSchema.
type wireField struct {
	desc   protoreflect.FieldDescriptor
	want   protowire.Type // the wire type of one element
	packed bool           // a repeated scalar, which may also arrive packed
	text   bool           // a string
	sub    *wireSchema    // a message's schema; nil for other kinds
}

// denseFields bounds the number-indexed part of a schema; a field with a
// larger number (none in this service's schema today) is found in large.
const denseFields = 64

func (s *wireSchema) field(num protowire.Number) *wireField {
	if int(num) < len(s.fields) {
		if f := &s.fields[num]; f.desc != nil {
			return f
		}
		return nil
	}
	return s.large[num]
}

// fits reports whether the field may arrive with wire type typ.
func (f *wireField) fits(typ protowire.Type) bool {
	return typ == f.want || f.packed && typ == protowire.BytesType
}

var schemas sync.Map // protoreflect.FullName -> *wireSchema

// schemaOf returns md's schema, building it (and those of the messages it
// holds) on first use.
func schemaOf(md protoreflect.MessageDescriptor) *wireSchema {
	if s, ok := schemas.Load(md.FullName()); ok {
		return s.(*wireSchema)
	}
	built := map[protoreflect.FullName]*wireSchema{}
	s := buildSchema(md, built)
	for name, b := range built {
		schemas.LoadOrStore(name, b)
	}
	return s
}

func buildSchema(md protoreflect.MessageDescriptor, built map[protoreflect.FullName]*wireSchema) *wireSchema {
	if s, ok := built[md.FullName()]; ok {
		return s
	}
	s := &wireSchema{values: md.FullName() == valueDescriptor.FullName()}
	built[md.FullName()] = s // before the fields: a message may hold itself
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		want := wireType(fd.Kind())
		f := wireField{
			desc:   fd,
			want:   want,
			packed: fd.IsList() && want != protowire.BytesType && want != protowire.StartGroupType,
			text:   fd.Kind() == protoreflect.StringKind,
		}
		if fd.Kind() == protoreflect.MessageKind {
			f.sub = buildSchema(fd.Message(), built)
		}
		if num := fd.Number(); num < denseFields {
			if int(num) >= len(s.fields) {
				s.fields = append(s.fields, make([]wireField, int(num)+1-len(s.fields))...)
			}
			s.fields[num] = f
		} else {
			if s.large == nil {
				s.large = map[protowire.Number]*wireField{}
			}
			s.large[num] = &f
		}
	}
	return s
}

// valueDescriptor is the message whose strings are values' texts.
var valueDescriptor = (*ptcsidecarv1.Value)(nil).ProtoReflect().Descriptor()

// wireType is the wire type a single value of kind arrives with.
func wireType(kind protoreflect.Kind) protowire.Type {
	switch kind {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.GroupKind:
		return protowire.StartGroupType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	default:
		return protowire.VarintType
	}
}

func notAMessage(code int) string {
	return "not a valid message: " + protowire.ParseError(code).Error()
}

// fieldName names an occurrence of fd that follows the fields in before:
// for a repeated field, with its index among the occurrences.
func fieldName(before []byte, fd protoreflect.FieldDescriptor) string {
	if !fd.IsList() {
		return string(fd.Name())
	}
	index := 0
	for len(before) > 0 {
		num, _, n := protowire.ConsumeField(before)
		if n < 0 {
			break
		}
		if num == fd.Number() {
			index++
		}
		before = before[n:]
	}
	return fmt.Sprintf("%s[%d]", fd.Name(), index)
}

// decode wraps a method's decode function so that a recorded failure is
// the method's answer.
func (c *requestCodec) decode(dec func(any) error) func(any) error {
	return func(m any) error {
		c.watched.Store(m, nil)
		err := dec(m)
		if failure, _ := c.watched.LoadAndDelete(m); failure != nil {
			return failure.(error)
		}
		return err
	}
}

// decodingStream watches the decoding of every message a stream receives.
type decodingStream struct {
	grpc.ServerStream
	codec *requestCodec
}

func (s decodingStream) RecvMsg(m any) error {
	return s.codec.decode(s.ServerStream.RecvMsg)(m)
}

// Register adds the service to a gRPC server, which should be built with
// ServerOptions.
func (s *Service) Register(r grpc.ServiceRegistrar) {
	desc := ptcsidecarv1.SidecarService_ServiceDesc // a copy: the generated one stays untouched
	desc.Methods = append([]grpc.MethodDesc(nil), desc.Methods...)
	for i := range desc.Methods {
		handler := desc.Methods[i].Handler
		desc.Methods[i].Handler = func(srv any, ctx context.Context, dec func(any) error, in grpc.UnaryServerInterceptor) (any, error) {
			growStack(0)
			return handler(srv, ctx, s.codec.decode(dec), in)
		}
	}
	desc.Streams = append([]grpc.StreamDesc(nil), desc.Streams...)
	for i := range desc.Streams {
		handler := desc.Streams[i].Handler
		desc.Streams[i].Handler = func(srv any, stream grpc.ServerStream) error {
			growStack(0)
			return handler(srv, decodingStream{stream, s.codec})
		}
	}
	r.RegisterService(&desc, s)
}

// growStack makes room at once for what a call does on its goroutine.
// grpc-go runs each call on a goroutine of its own, whose stack starts
// small; decoding the request, then evaluating a program, grew it a
// doubling at a time, and each time the whole stack was copied and every
// frame on it adjusted: 5.4-5.6% of the server's CPU under EvalTurn calls,
// 1.5% when it is grown here first, while it is shallow, to 16 KiB. That
// size still comes from the runtime's per-CPU stack cache; a 32 KiB frame
// would take the heap's slower path for larger stacks (2.0% + 0.3%).
//
//go:noinline
func growStack(i int) byte {
	var frame [12 << 10]byte // with what is on the stack already: a 16 KiB stack
	frame[i] = 1             // a frame the compiler cannot leave out
	return frame[i/2]
}

// ServerOptions are the options a gRPC server needs for Register: the codec
// that lets this service answer undecodable requests with INVALID_ARGUMENT,
// and the buffer pool that does not clear what it hands out (requestBuffers).
// grpc-go marks its BufferPool option experimental: an upgrade that moves
// it fails to build here, and TestDirtyBuffersNeverReachAnswers says
// whether the transport still reads frames into the pool.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(s.codec),
		experimental.BufferPool(&s.codec.buffers),
	}
}
