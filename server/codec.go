package server

import (
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	protov2 "google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// What a request may cost is bounded before it is unmarshalled. An empty
// element of a repeated message field is two bytes on the wire and about a
// hundred and fifty once decoded, so a 16 MiB request of nothing but empty
// turns would be decoded into over a gigabyte before any handler could
// count them. The request codec therefore walks the wire bytes first
// (protowire, no allocation) and counts the elements of every list against
// the request's limits (requestLimits): a list over its own limit, or more
// list elements in the whole request than maxListElements.
//
// Nesting needs no count of its own: no message of the schema holds itself
// (TestNoRequestMessageIsRecursive), so known fields nest only as deep as
// the schema, and protobuf-go keeps unknown fields as bytes without
// building anything from them.
//
// grpc-go answers any codec error with INTERNAL, as if the server were at
// fault, and a request over a limit is the caller's fault. So the codec
// does not fail it: it unmarshals only the part of the request up to the
// first element over a limit, which holds no more elements than the limits
// allow plus that one, and the method's count check
// (checkCounts), which every method runs first, finds that element and
// answers INVALID_ARGUMENT naming the field. Bytes that are not a valid
// message get what grpc-go gives them: INTERNAL, with protobuf-go's reason.

// requestCodec is grpc-go's proto codec with the count first for this
// service's requests.
type requestCodec struct {
	encoding.CodecV2
	limits *requestLimits
}

// ServerOptions are the options a gRPC server serving s needs: the codec
// that bounds what a request costs before it is unmarshalled. grpc-go marks
// its codec option experimental; it is the only hook before unmarshalling.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.ForceServerCodecV2(s.codec())}
}

func (s *Service) codec() requestCodec {
	return requestCodec{CodecV2: encoding.GetCodecV2(proto.Name), limits: s.limits}
}

func (c requestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(protov2.Message)
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	schema := c.limits.schemas[m.ProtoReflect().Descriptor().FullName()]
	if schema == nil { // another service's message (health, reflection)
		return c.CodecV2.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return c.limits.unmarshal(buf.ReadOnlyData(), m, schema)
}

// unmarshal is protobuf-go's Unmarshal of b into m, of the part of b up to
// the first list element over a limit when there is one.
func (l *requestLimits) unmarshal(b []byte, m protov2.Message, schema *wireSchema) error {
	total := 0
	over, err := schema.scan(b, l.maxElements, &total)
	if err != nil {
		return err
	}
	if over == nil {
		return protov2.Unmarshal(b, m)
	}
	if err := protov2.Unmarshal(over.prefix(b), m); err != nil {
		return err
	}
	total = 0
	if _, problem := l.count(m.ProtoReflect(), schema, &total); problem == "" {
		// Cannot happen while the count on the wire and the count of the
		// decoded message agree; refuse rather than serve part of a request.
		protov2.Reset(m)
		return fmt.Errorf("request: over its limits at byte %d", over.end)
	}
	return nil
}

// wireSchema is what the count needs of a message type, worked out once.
type wireSchema struct {
	fields   []*wireField // by number; nil where the schema has no field
	hasLists bool         // the message or one inside it has a list
	limited  int          // how many of fields have a limit of their own
}

// wireField is one field of a wireSchema.
type wireField struct {
	desc  protoreflect.FieldDescriptor
	list  bool
	sub   *wireSchema // a message field's schema
	limit int         // most elements of the list; 0: only the request's total
	noun  string      // what the list holds, for the error
	flag  string      // the server flag that sets limit
	slot  int         // where the list's count is kept while its message is walked
}

// maxLimitedLists bounds the lists of one message with a limit of their own
// (two at most today), so that scan counts them on its stack.
const maxLimitedLists = 4

// overrun locates the first list element over a limit: in its message the
// field that holds it, or, when inner is set, holds the message that does.
type overrun struct {
	field, value, end int // the field's start, its content's start, its end
	num               protowire.Number
	inner             *overrun
}

// scan walks msg, a message of schema s, counting list elements into total.
// It reports the first element over a limit, nil if there is none, and an
// error for bytes that are not a message: the same that protobuf-go rejects
// (FuzzDecodeRequest holds the two to that).
func (s *wireSchema) scan(msg []byte, maxTotal int, total *int) (*overrun, error) {
	var counts [maxLimitedLists]int
	for at := 0; at < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[at:])
		if n < 0 {
			return nil, notAMessage(n)
		}
		value := at + n
		n = protowire.ConsumeFieldValue(num, typ, msg[value:])
		if n < 0 {
			return nil, notAMessage(n)
		}
		field, end := at, value+n
		at = end
		var f *wireField
		if int(num) < len(s.fields) {
			f = s.fields[num]
		}
		// A field sent with another wire type than its own is kept by
		// protobuf-go as an unknown field, as bytes.
		if f == nil || typ != protowire.BytesType {
			continue
		}
		if f.list {
			*total++
			if f.limit > 0 {
				counts[f.slot]++
			}
			if *total > maxTotal || f.limit > 0 && counts[f.slot] > f.limit {
				return &overrun{field: field, value: value, end: end, num: num}, nil
			}
		}
		if f.sub == nil || !f.sub.hasLists {
			continue
		}
		content, _ := protowire.ConsumeBytes(msg[value:])
		inner, err := f.sub.scan(content, maxTotal, total)
		if inner != nil || err != nil {
			if inner != nil {
				inner = &overrun{field: field, value: end - len(content), end: end, num: num, inner: inner}
			}
			return inner, err
		}
	}
	return nil, nil
}

func notAMessage(code int) error {
	return fmt.Errorf("proto: cannot parse invalid wire-format data: %w", protowire.ParseError(code))
}

// prefix is msg up to the end of the element o locates: a message that
// decodes to everything msg holds before that element, and the element.
// Only the fields that hold it are rewritten, their lengths shortened.
func (o *overrun) prefix(msg []byte) []byte {
	if o.inner == nil {
		return msg[:o.end]
	}
	return o.appendPrefix(make([]byte, 0, o.size()), msg)
}

// size is the length of o's prefix.
func (o *overrun) size() int {
	if o.inner == nil {
		return o.end
	}
	return o.field + protowire.SizeTag(o.num) + protowire.SizeBytes(o.inner.size())
}

func (o *overrun) appendPrefix(out, msg []byte) []byte {
	if o.inner == nil {
		return append(out, msg[:o.end]...)
	}
	out = append(out, msg[:o.field]...)
	out = protowire.AppendTag(out, o.num, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(o.inner.size()))
	return o.inner.appendPrefix(out, msg[o.value:o.end])
}
