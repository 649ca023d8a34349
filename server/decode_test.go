package server

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// Request strings are views into the request's wire bytes (decodeRequest),
// so whatever the service keeps after a call must hold copies: one kept
// view keeps the whole request alive. Each call here is new to every cache
// (memory values, data, tool results, programs, tool signatures, the
// system prompt's lines) and carries a megabyte nobody reads; after the
// calls, the heap must not hold those megabytes.
func TestRequestBuffersAreNotRetained(t *testing.T) {
	svc := New(Config{})
	const calls, padding = 24, 1 << 20
	decode := func(m proto.Message, into requestMessage) {
		t.Helper()
		wire, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		wire = protowire.AppendTag(wire, 999, protowire.BytesType) // an unknown field
		wire = protowire.AppendBytes(wire, make([]byte, padding))
		if err := svc.codec.Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, into); err != nil {
			t.Fatal(err)
		}
	}
	before := liveHeap()
	for i := range calls {
		list := fmt.Sprintf("[%s {:call %d :name \"a name that is read as a view\"}]", strings.Repeat("1 ", 20), i)
		tm := new(ptcsidecarv1.ToMessagesRequest)
		decode(&ptcsidecarv1.ToMessagesRequest{
			Options: &ptcsidecarv1.Options{
				Mission:      fmt.Sprintf("Mission %d: count the items", i),
				SystemPrompt: fmt.Sprintf("You are agent %d.\nAnswer with a program.", i),
				Signature:    fmt.Sprintf("{total :int, call%d :string}", i),
				Tools:        []*ptcsidecarv1.ToolSpec{{Name: "search", Signature: fmt.Sprintf("(q :string, n%d :int) -> [:string]", i)}},
				Data:         edn(fmt.Sprintf("{:items %s}", list)),
			},
			Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: fmt.Sprintf("(tool/search {:q \"call %d\"})", i), Success: true,
				Result:    edn(list),
				ToolCalls: []*ptcsidecarv1.ToolCall{{Name: "search", Args: edn(fmt.Sprintf(`{:q "call %d of many"}`, i)), Result: edn(list)}},
			}},
			Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "items", Value: edn(list), Turn: 1}}},
		}, tm)
		if _, err := svc.ToMessages(context.Background(), tm); err != nil {
			t.Fatal(err)
		}
		et := new(ptcsidecarv1.EvalTurnRequest)
		decode(&ptcsidecarv1.EvalTurnRequest{
			Program:     fmt.Sprintf(`(def total (count data/items)) (tool/search {:q "call %d"}) (str "done " total)`, i),
			Data:        edn(fmt.Sprintf("{:items %s}", list)),
			Tools:       []*ptcsidecarv1.ToolSpec{{Name: "search"}},
			Prelude:     &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{{Name: "items", Value: edn(list), Turn: 1}}},
			ToolResults: []*ptcsidecarv1.ToolResult{{Index: 0, Name: "search", Args: edn(fmt.Sprintf(`{:q "call %d"}`, i)), Result: edn(list)}},
		}, et)
		if resp, err := svc.EvalTurn(context.Background(), et); err != nil || resp.GetTurn() == nil {
			t.Fatalf("EvalTurn: %v, %v", resp, err)
		}
	}
	grown := int64(liveHeap()) - int64(before)
	t.Logf("live heap grew by %d KB over %d calls of %d KB each", grown>>10, 2*calls, padding>>10)
	if grown > calls*padding/4 {
		t.Errorf("live heap grew by %d MB over %d calls: request buffers are kept", grown>>20, 2*calls)
	}
	if svc.values.Stats().Entries == 0 {
		t.Errorf("the value cache kept nothing: the test does not exercise it")
	}
}

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC() // a second cycle empties the sync.Pools
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// The aliasing decoder has no nesting limit of its own: it relies on no
// message of this service containing itself, directly or not, so that
// the schema bounds the nesting.
func TestNoRequestMessageIsRecursive(t *testing.T) {
	files := ptcsidecarv1.File_ptcsidecar_v1_service_proto.Services().Get(0)
	for i := range files.Methods().Len() {
		m := files.Methods().Get(i)
		if path := recursion(m.Input(), nil); path != "" {
			t.Errorf("%s: %s", m.Name(), path)
		}
	}
}

func recursion(md protoreflect.MessageDescriptor, open []protoreflect.FullName) string {
	for _, name := range open {
		if name == md.FullName() {
			return fmt.Sprintf("%s contains itself", name)
		}
	}
	open = append(open, md.FullName())
	for i := range md.Fields().Len() {
		if sub := md.Fields().Get(i).Message(); sub != nil {
			if path := recursion(sub, open); path != "" {
				return path
			}
		}
	}
	return ""
}
