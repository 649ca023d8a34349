package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/ptc-sidecar/ptc-sidecar/internal/testenv"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestBadRequestDetailsFromPython: a Python client on the ptc_sidecar package's stubs
// reads the field of an INVALID_ARGUMENT from its google.rpc.BadRequest
// details, without parsing the message.
func TestBadRequestDetailsFromPython(t *testing.T) {
	const install = "install them with `apt-get install python3 python3-grpcio python3-protobuf`"
	python := testenv.Program(t, "/usr/bin/python3", install)
	if err := exec.Command(python, "-c", "import grpc, google.protobuf").Run(); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s cannot import grpc and protobuf (%v): %s", python, err, install))
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	svc := New(Config{Limits: lisp.DefaultLimits()})
	srv := grpc.NewServer(svc.ServerOptions()...)
	ptcsidecarv1.RegisterSidecarServiceServer(srv, svc)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)

	descriptors := filepath.Join(t.TempDir(), "rpc.pb")
	set, err := proto.Marshal(descriptorSet(&spb.Status{}, &errdetails.BadRequest{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(descriptors, set, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, filepath.Join("testdata", "bad_request_client.py"), lis.Addr().String(), descriptors)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	want := map[string]string{ // case -> the field its violation names
		"unknown strategy":                    "options.strategy",
		"turns to a history strategy":         "turns",
		"malformed data":                      "data.edn",
		"tool answer without result or error": "tool_results[0].result",
	}
	lines := bufio.NewScanner(bytes.NewReader(out))
	seen := 0
	for lines.Scan() {
		var got struct {
			Case, Code, Message string
			Violations          []struct{ Field, Description string }
		}
		if err := json.Unmarshal(lines.Bytes(), &got); err != nil {
			t.Fatalf("%v in %s", err, lines.Text())
		}
		seen++
		field, known := want[got.Case]
		switch {
		case !known:
			t.Errorf("unexpected case %q", got.Case)
		case got.Code != "INVALID_ARGUMENT" || len(got.Violations) != 1:
			t.Errorf("%s: %s %q with violations %v", got.Case, got.Code, got.Message, got.Violations)
		case got.Violations[0].Field != field || field+": "+got.Violations[0].Description != got.Message:
			t.Errorf("%s: violation %+v, want field %s matching the message %q", got.Case, got.Violations[0], field, got.Message)
		}
	}
	if seen != len(want) {
		t.Errorf("python reported %d cases, want %d:\n%s", seen, len(want), out)
	}
}

// descriptorSet holds the files that define msgs, with every file they
// import, each after its imports.
func descriptorSet(msgs ...proto.Message) *descriptorpb.FileDescriptorSet {
	set := &descriptorpb.FileDescriptorSet{}
	added := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if added[fd.Path()] {
			return
		}
		added[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	for _, m := range msgs {
		add(m.ProtoReflect().Descriptor().ParentFile())
	}
	return set
}
