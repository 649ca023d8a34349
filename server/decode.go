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
	"github.com/ptc-sidecar/ptc-sidecar/valuecache"
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
	buf := data.MaterializeToBuffer(&c.buffers)
	defer buf.Free()
	err := c.read(buf.ReadOnlyData(), m)
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
		return status.Errorf(codes.InvalidArgument, "request: not a valid message: %v", err)
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
	return status.Errorf(codes.InvalidArgument, "request: a value's text is not valid UTF-8")
}

func invalidRequest(path, problem string) error {
	if path == "" {
		path = "request"
	}
	return status.Errorf(codes.InvalidArgument, "%s: %s", path, problem)
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
	fields := md.Fields()
	checkUTF8 := valueTexts || md != valueDescriptor
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
		fd := fields.ByNumber(num)
		if fd != nil && !wireTypeFits(fd, typ) {
			return fieldName(msg[:at], fd), fmt.Sprintf("sent with wire type %d, which a field of type %s cannot have: is the client built from another version of the schema?", typ, fd.Kind())
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
		if fd == nil {
			continue
		}
		switch fd.Kind() {
		case protoreflect.StringKind:
			if checkUTF8 && !utf8.Valid(v) {
				return fieldName(msg[:at], fd), "invalid UTF-8: string fields must be valid UTF-8"
			}
		case protoreflect.MessageKind:
			if sub, problem := wireProblem(v, fd.Message(), valueTexts); problem != "" {
				path = fieldName(msg[:at], fd)
				if sub != "" {
					path += "." + sub
				}
				return path, problem
			}
		}
	}
	return "", ""
}

// valueDescriptor is the message whose strings are values' texts.
var valueDescriptor = (*ptcsidecarv1.Value)(nil).ProtoReflect().Descriptor()

// wireTypeFits reports whether a field of fd's type may arrive with wire
// type typ; repeated numbers may arrive packed.
func wireTypeFits(fd protoreflect.FieldDescriptor, typ protowire.Type) bool {
	var want protowire.Type
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return typ == protowire.BytesType
	case protoreflect.GroupKind:
		return typ == protowire.StartGroupType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		want = protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		want = protowire.Fixed64Type
	default:
		want = protowire.VarintType
	}
	return typ == want || fd.IsList() && typ == protowire.BytesType
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
func (s *Service) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(s.codec),
		experimental.BufferPool(&s.codec.buffers),
	}
}
