package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
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
	web, err := newHTTPEndpoint(cfg, srv)
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
