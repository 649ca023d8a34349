// Command echoserver is the transport baseline of the load harness: a gRPC
// server built with the same grpc-go as ptc-sidecar, whose one method reads
// the request bytes without decoding them and answers with a response of
// the size the client asks for (metadata "x-response-bytes"). What it costs
// per request is what any gRPC service on this machine pays at least, so
// the harness divides the sidecar's numbers by it.
//
// It runs as its own process, like the sidecar, so that RSS and CPU are
// read the same way for both. It listens on loopback only and logs the
// bound address as a JSON line {"msg":"serving","addr":...} on stderr.
//
//	go run ./bench/cmd/echoserver --listen 127.0.0.1:0
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ptc-sidecar/ptc-sidecar/bench/rawcodec"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "loopback `host:port` to listen on (port 0 picks one)")
	flag.Parse()
	host, _, err := net.SplitHostPort(*listen)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(os.Stderr, "echoserver: --listen must be a loopback host:port, got %q\n", *listen)
		os.Exit(2)
	}
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "echoserver: %v\n", err)
		os.Exit(1)
	}
	srv := grpc.NewServer(grpc.ForceServerCodecV2(rawcodec.Codec{}), grpc.MaxRecvMsgSize(64<<20))
	srv.RegisterService(&serviceDesc, &echo{})
	line, _ := json.Marshal(map[string]string{"msg": "serving", "addr": lis.Addr().String()})
	fmt.Fprintln(os.Stderr, string(line))

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		srv.Stop()
	}()
	if err := srv.Serve(lis); err != nil {
		fmt.Fprintf(os.Stderr, "echoserver: %v\n", err)
		os.Exit(1)
	}
}

// echo answers every call with a response of the requested size. Responses
// are made once per size and shared: the baseline should cost what the
// transport costs, not what building a payload costs.
type echo struct {
	mu        sync.Mutex
	responses map[int]*rawcodec.Message
}

func (e *echo) response(size int) *rawcodec.Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.responses == nil {
		e.responses = make(map[int]*rawcodec.Message)
	}
	r, ok := e.responses[size]
	if !ok {
		b := make([]byte, size)
		for i := range b {
			b[i] = 'x'
		}
		r = &rawcodec.Message{Bytes: b}
		e.responses[size] = r
	}
	return r
}

func (e *echo) call(ctx context.Context, _ *rawcodec.Message) (*rawcodec.Message, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	sizes := md.Get(rawcodec.ResponseBytesHeader)
	if len(sizes) != 1 {
		return nil, status.Errorf(codes.InvalidArgument, "metadata %s: exactly one value required", rawcodec.ResponseBytesHeader)
	}
	size, err := strconv.Atoi(sizes[0])
	if err != nil || size < 0 || size > 64<<20 {
		return nil, status.Errorf(codes.InvalidArgument, "metadata %s: want a size in bytes up to 64 MiB, got %q", rawcodec.ResponseBytesHeader, sizes[0])
	}
	return e.response(size), nil
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: rawcodec.EchoService,
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: rawcodec.EchoMethod,
		Handler: func(srv any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new(rawcodec.Message)
			if err := dec(in); err != nil {
				return nil, err
			}
			return srv.(*echo).call(ctx, in)
		},
	}},
}
