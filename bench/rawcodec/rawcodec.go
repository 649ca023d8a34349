// Package rawcodec is a gRPC codec that passes messages through as bytes.
// The load harness marshals each request once and sends the same bytes to
// the sidecar and to the echo server, and neither client side decodes the
// answer, so the client's work is the same for both servers. Its name is
// "proto": the sidecar reads the bytes with its usual protobuf codec.
package rawcodec

import "google.golang.org/grpc/mem"

// Echo service and method names, and the metadata key with which a client
// tells the echo server how large a response to send.
const (
	EchoService         = "ptcsidecar.bench.Echo"
	EchoMethod          = "Echo"
	EchoFullMethod      = "/" + EchoService + "/" + EchoMethod
	ResponseBytesHeader = "x-response-bytes"
)

// Message is a message on the wire. Outgoing, Bytes is sent as is;
// incoming, only the size is kept: nobody reads the content.
type Message struct {
	Bytes []byte
	Size  int
}

// Codec implements encoding.CodecV2 for *Message.
type Codec struct{}

// Marshal sends the bytes without copying them.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.(*Message).Bytes)}, nil
}

// Unmarshal records the size of what arrived.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	v.(*Message).Size = data.Len()
	return nil
}

// Name is "proto" so that a protobuf server accepts the bytes.
func (Codec) Name() string { return "proto" }
