package main_test

// Attacks on what surrounds the service: the other services registered
// on the same server (health, reflection), whose messages are not the
// service's schema, and request metadata.

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// invalid are the hostile messages no message type decodes; the others
// are valid for a message whose field 1 is not a string, whose field 1 is
// then an unknown field.
var invalid = map[string]bool{"an invalid tag": true, "a field cut short": true, "100,000 nested unknown groups": true}

// hostileMessages are byte sequences no protobuf library writes, by what
// is wrong with them.
func hostileMessages() map[string][]byte {
	deep := make([]byte, 0, 200_000)
	for range 100_000 {
		deep = protowire.AppendTag(deep, 99, protowire.StartGroupType)
	}
	return map[string][]byte{
		"an invalid tag":                {0xff, 0xff, 0xff},
		"a field cut short":             {0x0a, 0x7f, 'a'},
		"invalid UTF-8 in field 1":      {0x0a, 0x02, 0xff, 0xfe},
		"field 1 of the wrong type":     {0x0d, 1, 2, 3, 4},
		"100,000 nested unknown groups": deep,
	}
}

// callRaw calls method with body as its request message, unary or as the
// first message of a stream, and returns the status of its end.
func callRaw(ctx context.Context, conn *grpc.ClientConn, service string, m protoreflect.MethodDescriptor, body []byte) error {
	name := "/" + service + "/" + string(m.Name())
	out := dynamicpb.NewMessage(m.Output())
	if !m.IsStreamingClient() && !m.IsStreamingServer() {
		return conn.Invoke(ctx, name, body, out, grpc.ForceCodecV2(rawCodec{}))
	}
	desc := &grpc.StreamDesc{ServerStreams: m.IsStreamingServer(), ClientStreams: m.IsStreamingClient()}
	stream, err := conn.NewStream(ctx, desc, name, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return err
	}
	if err := stream.SendMsg(body); err != nil {
		return err
	}
	if err := stream.CloseSend(); err != nil {
		return err
	}
	for {
		if err := stream.RecvMsg(out); err != nil {
			return err
		}
	}
}

// TestAttackOtherServicesBadBytes sends bytes that are not a valid
// message to every method of every service the server registers (the
// reflection service lists them), over the gRPC listener and the HTTP
// listener's gRPC protocol: each is INVALID_ARGUMENT, never grpc-go's
// INTERNAL (which says the server is at fault), and the server serves on.
func TestAttackOtherServicesBadBytes(t *testing.T) {
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	services := listServices(t, p.client())
	if len(services) < 4 {
		t.Fatalf("the server lists %v: want the service, health and reflection", services)
	}
	for _, listener := range []string{"gRPC", "HTTP"} {
		addr := p.addr
		if listener == "HTTP" {
			addr = p.httpAddr
		}
		conn := dial(t, addr)
		t.Cleanup(func() { conn.Close() })
		for _, service := range services {
			d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(service))
			if err != nil {
				t.Fatalf("%s: %v", service, err)
			}
			methods := d.(protoreflect.ServiceDescriptor).Methods()
			for i := range methods.Len() {
				m := methods.Get(i)
				for what, body := range hostileMessages() {
					// A valid request to Watch is answered as the stream
					// goes on: it ends at this deadline.
					ctx, cancel := context.WithTimeout(testContext(t), time.Second*raceSlowdown)
					err := callRaw(ctx, conn, service, m, body)
					cancel()
					got := status.Code(err)
					if got == codes.Internal || got == codes.Unknown || invalid[what] && got != codes.InvalidArgument {
						t.Errorf("%s: %s/%s of %s: %v, want INVALID_ARGUMENT", listener, service, m.Name(), what, err)
					}
				}
			}
		}
	}
	checkHealth(t, p.client(), "", healthpb.HealthCheckResponse_SERVING)
}
