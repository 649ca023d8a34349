package server

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

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
// list elements in the whole request than maxListElements; and it
// estimates what the request decodes to, which may be at most
// decodeFactor times its bytes plus decodeSlack (counts.go). It also
// counts how often each singular field is sent in one message: protobuf-go
// decodes every sending (a oneof's member alternated is an allocation
// each time, a message sent again a merge), so a 15 MiB request of
// two-byte fields cost over two seconds of CPU before any handler ran;
// past maxSets sendings the request is refused naming the field.
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
// allow plus that one, sent empty, and the method's count check
// (checkCounts), which every method runs first, finds that element and
// answers INVALID_ARGUMENT naming the field. For the same reason the
// codec never fails bytes that are not a valid message either, nor bytes
// that decode to other than the wire's count of them: no request byte
// sequence is INTERNAL. It decodes such a request to an empty message
// marked with the refusal (refuse), which the count check answers with
// INVALID_ARGUMENT naming the field where the bytes went wrong.

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
		if err := c.CodecV2.Unmarshal(data, v); err != nil {
			// The same rule as for this service's requests: bytes that are
			// not a valid message are the caller's fault, answered by
			// RefuseUndecodedUnary and RefuseUndecodedStream.
			refuse(m, err)
		}
		return nil
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return c.limits.unmarshal(buf.ReadOnlyData(), m, schema)
}

// unmarshal is protobuf-go's Unmarshal of b into m, of the part of b up to
// the first list element over a limit when there is one.
// It returns no error: a request it cannot decode, or whose decoding
// disagrees with the wire's count, is decoded to an empty message marked
// with the refusal (refuse).
func (l *requestLimits) unmarshal(b []byte, m protov2.Message, schema *wireSchema) error {
	t := tally{maxCost: l.maxCost(len(b)), maxSets: l.maxSets}
	over, err := schema.scan(b, l.maxElements, &t, false)
	if err != nil {
		refuse(m, err)
		return nil
	}
	if over == nil {
		if err := protov2.Unmarshal(b, m); err != nil {
			refuse(m, schema.locate(b, err))
		}
		return nil
	}
	if err := protov2.Unmarshal(over.prefix(b), m); err != nil {
		refuse(m, schema.locate(b, err))
		return nil
	}
	t = tally{maxCost: l.maxCost(len(b))}
	if _, problem := l.count(m.ProtoReflect(), schema, &t); problem == "" {
		// The wire's count found more than the decoded request holds: bytes
		// no protobuf library writes (a map key sent again, which replaces
		// its entry; a oneof's member replaced inside a message sent
		// twice). Refused rather than served in part.
		refuse(m, &wireError{path: over.path(schema), reason: "sent in a way no protobuf library writes (a map key sent again, or a field replaced " +
			"inside a message sent twice), which decodes to less than its bytes were counted for; send each key and field once"})
	}
	return nil
}

// wireError is bytes that are not a valid request, or not one the codec
// decodes as it counts it: where in the request, as a field path, and why.
type wireError struct {
	path, reason string
}

func (e *wireError) Error() string { return e.path + ": " + e.reason }

// refusalNumber is the field number of the codec's refusal mark among a
// request's unknown fields: the last a protobuf message may have, which
// no message of the schema uses.
const refusalNumber = protowire.MaxValidNumber

// RefusedRequest is the wire bytes of a request that carries only the
// refusal mark with reason, which the count check answers as
// INVALID_ARGUMENT "request: reason". A transport step before the codec
// whose failure grpc-go would answer INTERNAL (a gRPC message whose gzip
// does not decompress) hands these bytes on instead.
func RefusedRequest(reason string) []byte {
	mark := protowire.AppendTag(nil, refusalNumber, protowire.BytesType)
	return protowire.AppendString(mark, "request\x00"+reason)
}

// refuse empties m and marks it with err, which the count check
// (requestLimits.count) answers as INVALID_ARGUMENT naming err's field.
func refuse(m protov2.Message, err error) {
	protov2.Reset(m)
	var we *wireError
	if !errors.As(err, &we) {
		we = &wireError{reason: err.Error()}
	}
	mark := protowire.AppendTag(nil, refusalNumber, protowire.BytesType)
	mark = protowire.AppendString(mark, cmp.Or(we.path, "request")+"\x00"+we.reason)
	m.ProtoReflect().SetUnknown(mark)
}

// refusal is the field path and the reason of a refusal mark among the
// unknown fields u, and false when u holds none. A caller may send the
// mark itself; what it says is then cut short and made valid text.
func refusal(u []byte) (path, reason string, ok bool) {
	for len(u) > 0 {
		num, typ, n := protowire.ConsumeTag(u)
		if n < 0 {
			return "", "", false
		}
		m := protowire.ConsumeFieldValue(num, typ, u[n:])
		if m < 0 {
			return "", "", false
		}
		if num == refusalNumber && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(u[n:])
			path, reason, _ := strings.Cut(string(v[:min(len(v), maxRefusal)]), "\x00")
			return strings.ToValidUTF8(path, "?"), strings.ToValidUTF8(reason, "?"), true
		}
		u = u[n+m:]
	}
	return "", "", false
}

// maxRefusal bounds what a refusal mark may say, a forged one included.
const maxRefusal = 1024

// locate is where in msg, a message of s that protobuf-go refused with
// err though scan read it, the bytes go wrong: a text that is not UTF-8,
// which scan does not look at when a request decodes, or else protobuf-go's
// reason for the whole request.
func (s *wireSchema) locate(msg []byte, err error) error {
	t := tally{maxCost: math.MaxInt, maxSets: math.MaxInt, checkUTF8: true}
	if _, werr := s.scan(msg, math.MaxInt, &t, false); werr != nil {
		return werr
	}
	return &wireError{reason: "not a valid protobuf message: " + err.Error()}
}

// path is the field path of the element o locates, in a message of s.
func (o *overrun) path(s *wireSchema) string {
	var b strings.Builder
	for ; o != nil; o = o.inner {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		var f *wireField
		if s != nil && int(o.num) < len(s.fields) {
			f = s.fields[o.num]
		}
		if f == nil {
			fmt.Fprint(&b, o.num)
			s = nil
			continue
		}
		b.WriteString(string(f.desc.Name()))
		s = f.sub
	}
	return b.String()
}

// wireSchema is what the count needs of a message type, worked out once.
type wireSchema struct {
	fields   []*wireField // by number; nil where the schema has no field
	hasLists bool         // the message or one inside it has a list
	walk     bool         // the message or one inside it adds to the estimate or has a singular field
	limited  int          // how many of fields have a limit of their own
	alloc    int          // what one message takes decoded; 0 for a map entry
}

// wireField is one field of a wireSchema.
type wireField struct {
	desc   protoreflect.FieldDescriptor
	list   bool
	isMap  bool
	text   bool        // a list of strings or bytes, whose lengths add to the estimate
	scalar bool        // a list of numbers or booleans
	sub    *wireSchema // a message field's schema; a map's entry
	cost   int         // the estimate of one element, entry or message, texts aside
	single int         // a field allocated when set: its slot among its message's, shared by a oneof; -1 for others
	once   int         // a singular field: its slot among its message's, shared by a oneof; -1 for lists and maps
	limit  int         // most elements of the list; 0: only the request's total
	noun   string      // what the list holds, for the error
	flag   string      // the server flag that sets limit
	slot   int         // where the list's count is kept while its message is walked
}

// maxSets is how often a singular field may be sent in one message: once,
// as protobuf libraries send it. Protobuf lets a parser merge a request
// joined from messages that each set it, but every sending after the
// first adds to the request's bytes, which the size rule allows twice
// over, and to the decoding, while the decoded request holds no more: 15
// MiB of content parts whose 13 fields are each sent 4 times decode with
// 3.3 million allocations, 0.5 million sent once.
const maxSets = 1

// maxLimitedLists bounds the lists of one message with a limit of their own
// (two at most today), so that scan counts them on its stack; maxSingles
// likewise bounds its fields allocated when set (messages, oneofs and
// optionals: 16 at most today, in Options) and its singular fields.
const (
	maxLimitedLists = 4
	maxSingles      = 64
)

// overrun locates the first list element over a limit: in its message the
// field that holds it, or, when inner is set, holds the message that does.
type overrun struct {
	field, value, end int // the field's start, its content's start, its end
	num               protowire.Number
	inner             *overrun
	empty             bool // the element is a message, which the prefix sends empty
	// resent is set for a singular field sent once too often, or with
	// another wire type: the prefix sends it with mark, a wire type not
	// its own, which protobuf-go keeps among the message's unknown
	// fields, where the count check finds it (resentField).
	resent bool
	mark   protowire.Type
}

// scan walks msg, a message of schema s, counting list elements and the
// estimate into t. It reports the first element over a limit, nil if
// there is none, and an error for bytes that are not a message: the same
// that protobuf-go rejects (FuzzDecodeRequest holds the two to that).
// merging is set for a message field sent again, which protobuf-go merges
// into the message it decoded first: its messages are not counted again.
func (s *wireSchema) scan(msg []byte, maxTotal int, t *tally, merging bool) (*overrun, error) {
	var counts [maxLimitedLists]int
	var held [maxSingles]heldField
	var sets [maxSingles]int
	for at := 0; at < len(msg); {
		num, typ, n := protowire.ConsumeTag(msg[at:])
		if n < 0 {
			return nil, notAMessage(n)
		}
		value := at + n
		var f *wireField
		if int(num) < len(s.fields) {
			f = s.fields[num]
		}
		n = protowire.ConsumeFieldValue(num, typ, msg[value:])
		if n < 0 {
			return nil, &wireError{path: f.name(num), reason: notAMessage(n).Error()}
		}
		field, end := at, value+n
		at = end
		// A field sent with another wire type than its own is kept by
		// protobuf-go as an unknown field, as bytes.
		// protobuf-go keeps a field it does not know, or one sent with
		// another wire type than its own, as bytes among the message's
		// unknown fields, one append each (not in a map's entry, which it
		// drops).
		if s.alloc > 0 && (f == nil || typ != wireType(f.desc.Kind()) && (!f.scalar || typ != protowire.BytesType)) {
			t.unknown++
			if t.unknown > maxUnknownFields {
				return &overrun{field: field, value: value, end: end, num: num}, nil
			}
		}
		switch {
		case f == nil:
			continue
		case f.scalar:
			t.cost += f.cost * scalars(f.desc.Kind(), typ, msg[value:end])
			if t.cost > t.maxCost {
				return &overrun{field: field, value: value, end: end, num: num}, nil
			}
			continue
		case f.once >= 0:
			// Each time a oneof changes member protobuf-go allocates the new
			// one, each time a message is sent again it merges it, each
			// time a text is sent again it allocates it: work the estimate
			// does not see, a million times over in a request of two-byte
			// fields (maxSets).
			sets[f.once]++
			if sets[f.once] > cmp.Or(t.maxSets, maxSets) || typ != wireType(f.desc.Kind()) {
				mark := protowire.VarintType
				if wireType(f.desc.Kind()) == protowire.VarintType {
					mark = protowire.BytesType
				}
				return &overrun{field: field, value: value, end: end, num: num, resent: true, mark: mark}, nil
			}
		case typ != wireType(f.desc.Kind()):
			continue
		}
		var content []byte
		if typ == protowire.BytesType {
			content, _ = protowire.ConsumeBytes(msg[value:])
		}
		if t.checkUTF8 && f.desc.Kind() == protoreflect.StringKind && !utf8.Valid(content) {
			return nil, &wireError{path: f.element(msg[:field], num), reason: "holds invalid UTF-8; a string field holds UTF-8 text (send other bytes base64-encoded)"}
		}
		if f.list {
			t.elements++
			if f.limit > 0 {
				counts[f.slot]++
			}
			if t.elements > maxTotal || f.limit > 0 && counts[f.slot] > f.limit {
				return &overrun{field: field, value: value, end: end, num: num, empty: f.sub != nil}, nil
			}
		}
		inMerge, h := merging, (*heldField)(nil)
		switch {
		case f.list || f.isMap:
			t.cost += f.cost
			if f.text {
				t.cost += textSize(len(content))
			}
		case f.single >= 0 && !merging:
			h = &held[f.single]
			if h.num == num {
				inMerge = true // merged into the message it holds, or a number set again
				break
			}
			// A oneof's other member replaces what the field held, and
			// all that was counted inside it.
			t.cost += f.cost - h.cost
			t.elements -= h.elements
			t.unknown -= h.unknown
			*h = heldField{num: num, cost: f.cost}
		}
		if t.cost > t.maxCost {
			return &overrun{field: field, value: value, end: end, num: num, empty: f.sub != nil}, nil
		}
		if f.sub == nil || !f.sub.walk {
			continue
		}
		cost, elements, unknown := t.cost, t.elements, t.unknown
		inner, err := f.sub.scan(content, maxTotal, t, inMerge)
		if inner != nil || err != nil {
			if inner != nil {
				inner = &overrun{field: field, value: end - len(content), end: end, num: num, inner: inner}
			}
			var we *wireError
			if errors.As(err, &we) {
				err = &wireError{path: f.element(msg[:field], num) + "." + we.path, reason: we.reason}
			}
			return inner, err
		}
		if h != nil {
			h.cost += t.cost - cost
			h.elements += t.elements - elements
			h.unknown += t.unknown - unknown
		}
	}
	return nil, nil
}

// heldField is what a field allocated when set holds, as a message's scan
// has counted it: which of the oneof's members, and the estimate, list
// elements and unknown fields counted for it.
type heldField struct {
	num                     protowire.Number
	cost, elements, unknown int
}

// scalars is how many numbers or booleans of kind k a field's value of
// wire type typ holds: one, or as many as are packed in it; none for a
// value protobuf-go keeps as an unknown field.
func scalars(k protoreflect.Kind, typ protowire.Type, value []byte) int {
	want := wireType(k)
	if typ == want {
		return 1
	}
	if typ != protowire.BytesType {
		return 0
	}
	packed, _ := protowire.ConsumeBytes(value)
	switch want {
	case protowire.Fixed32Type:
		return len(packed) / 4
	case protowire.Fixed64Type:
		return len(packed) / 8
	}
	n := 0
	for _, b := range packed { // a varint ends at its first byte under 0x80
		if b < 0x80 {
			n++
		}
	}
	return n
}

// wireType is the wire type of a value of kind k, unpacked.
func wireType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

// name is f's name, or num where the schema has no field f.
func (f *wireField) name(num protowire.Number) string {
	if f == nil {
		return fmt.Sprint(num)
	}
	return string(f.desc.Name())
}

// element is f's name, with the index of its element that starts after
// before when f is a list: its fields of number num in before, the bytes
// of its message before it (read only for an error).
func (f *wireField) element(before []byte, num protowire.Number) string {
	if f == nil || !f.list {
		return f.name(num)
	}
	i := 0
	for len(before) > 0 {
		n, typ, k := protowire.ConsumeTag(before)
		if k < 0 {
			break
		}
		m := protowire.ConsumeFieldValue(n, typ, before[k:])
		if m < 0 {
			break
		}
		if n == num {
			i++
		}
		before = before[k+m:]
	}
	return fmt.Sprintf("%s[%d]", f.name(num), i)
}

func notAMessage(code int) error {
	return fmt.Errorf("proto: cannot parse invalid wire-format data: %w", protowire.ParseError(code))
}

// prefix is msg up to the end of the element o locates: a message that
// decodes to everything msg holds before that element, and the element,
// empty if it is a message (its content was not counted). Only the fields
// that hold it are rewritten, their lengths shortened.
func (o *overrun) prefix(msg []byte) []byte {
	if o.inner == nil && !o.empty && !o.resent {
		return msg[:o.end]
	}
	return o.appendPrefix(make([]byte, 0, o.size()), msg)
}

// size is the length of o's prefix.
func (o *overrun) size() int {
	switch {
	case o.inner != nil:
		return o.field + protowire.SizeTag(o.num) + protowire.SizeBytes(o.inner.size())
	case o.empty, o.resent:
		return o.field + protowire.SizeTag(o.num) + 1
	}
	return o.end
}

func (o *overrun) appendPrefix(out, msg []byte) []byte {
	switch {
	case o.inner != nil:
		out = append(out, msg[:o.field]...)
		out = protowire.AppendTag(out, o.num, protowire.BytesType)
		out = protowire.AppendVarint(out, uint64(o.inner.size()))
		return o.inner.appendPrefix(out, msg[o.value:o.end])
	case o.empty:
		out = append(out, msg[:o.field]...)
		out = protowire.AppendTag(out, o.num, protowire.BytesType)
		return protowire.AppendVarint(out, 0)
	case o.resent:
		out = append(out, msg[:o.field]...)
		out = protowire.AppendTag(out, o.num, o.mark)
		return protowire.AppendVarint(out, 0) // an empty text, or a zero
	}
	return append(out, msg[:o.end]...)
}
