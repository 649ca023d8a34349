package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/bench/fixture"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

// detailedHealth fails every check with a status that carries details.
type detailedHealth struct {
	healthpb.UnimplementedHealthServer
}

var violation = &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "service", Description: "no such service"}}}

func (detailedHealth) Check(context.Context, *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	st, err := status.New(codes.FailedPrecondition, "the check cannot run").WithDetails(violation)
	if err != nil {
		return nil, err
	}
	return nil, st.Err()
}

// TestHTTPErrorKeepsDetails: a status's details reach an HTTP caller in
// the Connect error body, as a gRPC caller gets them.
func TestHTTPErrorKeepsDetails(t *testing.T) {
	srv := grpc.NewServer()
	healthpb.RegisterHealthServer(srv, detailedHealth{})
	cfg := defaultServeConfig()
	cfg.httpListen = "127.0.0.1:0"
	web, err := newHTTPEndpoint(cfg, srv, server.New(server.Config{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	go web.serve(slog.New(slog.DiscardHandler))
	defer web.close()

	resp, err := http.Post("http://"+web.addr()+"/grpc.health.v1.Health/Check", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got struct {
		Code, Message string
		Details       []struct{ Type, Value string }
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if resp.StatusCode != http.StatusBadRequest || got.Code != "failed_precondition" || got.Message != "the check cannot run" || len(got.Details) != 1 {
		t.Fatalf("%s: %s; want 400, failed_precondition, the message and one detail", resp.Status, body)
	}
	raw, err := base64.RawStdEncoding.DecodeString(got.Details[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	var detail errdetails.BadRequest
	if err := proto.Unmarshal(raw, &detail); err != nil || got.Details[0].Type != "google.rpc.BadRequest" || !proto.Equal(&detail, violation) {
		t.Errorf("detail %s %v (%v), want %v", got.Details[0].Type, &detail, err, violation)
	}
}

// BenchmarkToMessagesOver compares one caller's ToMessages (the bench
// fixture's 20-turn request) over loopback TCP: gRPC, then the HTTP
// endpoint with a Connect JSON body and with a Connect protobuf body, then
// gRPC with tracing on (spans into an in-memory recorder).
func BenchmarkToMessagesOver(b *testing.B) {
	req := fixture.ToMessages()
	jsonBody, err := protojson.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	protoBody, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	var sidecar *server.Service
	serveTCP := func(b *testing.B, tracing *tracing) (*grpc.Server, string) {
		cfg := defaultServeConfig()
		cfg.tracing = tracing
		discard := slog.New(slog.DiscardHandler)
		sidecar = newSidecar(cfg, memo.New(int64(cfg.memoBytes)))
		srv, _ := newGRPCServer(cfg, discard, discard, nil, sidecar)
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go srv.Serve(lis)
		b.Cleanup(srv.Stop)
		return srv, lis.Addr().String()
	}
	grpcCall := func(b *testing.B, addr string) {
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		client := ptcsidecarv1.NewSidecarServiceClient(conn)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.ToMessages(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	}
	httpCall := func(b *testing.B, contentType string, body []byte) {
		srv, _ := serveTCP(b, nil)
		cfg := defaultServeConfig()
		cfg.httpListen = "127.0.0.1:0"
		web, err := newHTTPEndpoint(cfg, srv, sidecar, nil)
		if err != nil {
			b.Fatal(err)
		}
		go web.serve(slog.New(slog.DiscardHandler))
		defer web.close()
		url := "http://" + web.addr() + "/ptcsidecar.v1.SidecarService/ToMessages"
		b.ReportAllocs()
		for b.Loop() {
			resp, err := http.Post(url, contentType, bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatal(resp.Status)
			}
		}
	}
	b.Run("grpc", func(b *testing.B) {
		_, addr := serveTCP(b, nil)
		grpcCall(b, addr)
	})
	b.Run("http-json", func(b *testing.B) { httpCall(b, "application/json", jsonBody) })
	b.Run("http-proto", func(b *testing.B) { httpCall(b, "application/proto", protoBody) })
	b.Run("grpc-traced", func(b *testing.B) {
		_, addr := serveTCP(b, newTracing(tracetest.NewSpanRecorder(), resource.Empty()))
		grpcCall(b, addr)
	})
}
