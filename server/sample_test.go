package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestToMessagesSampledValues checks that reading data and memory values
// only as deep as their samples (EDN lists cut after sample_limit
// elements) renders exactly what the whole values render: the same
// request with the values as JSON, which is always read whole, gives the
// same messages and statistics.
func TestToMessagesSampledValues(t *testing.T) {
	items := make([]string, 40)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id": %d, "tags": ["a%d", "b", "c", "d"], "nested": [[%d, 2, 3, 4], [5]], "_internal": "x"}`, i, i, i)
	}
	list := "[" + strings.Join(items, ", ") + "]"
	asJSON := func(s string) *ptcsidecarv1.Value {
		return &ptcsidecarv1.Value{Json: s}
	}
	asEDN := func(s string) *ptcsidecarv1.Value {
		v, err := lisp.DecodeJSON(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		return edn(lisp.Repr(v))
	}
	request := func(value func(string) *ptcsidecarv1.Value, limit *int32) *ptcsidecarv1.ToMessagesRequest {
		return &ptcsidecarv1.ToMessagesRequest{
			Options: &ptcsidecarv1.Options{
				Mission: "m", SystemPrompt: "s", SampleLimit: limit,
				Data: value(`{"products": ` + list + `, "matrix": [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], "n": 3}`),
			},
			Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{
				{Name: "all", Value: value(list), Turn: 1},
				{Name: "by_id", Value: value(`{"first": ` + list + `, "second": [1, 2, 3, 4, 5, 6]}`), Turn: 1},
				{Name: "empty", Value: value(`[]`), Turn: 1},
			}},
			Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "(def all data/products)", Success: true}},
		}
	}
	svc := New(Config{})
	for _, limit := range []*int32{nil, i32(0), i32(1), i32(2), i32(5), i32(50)} {
		got, err := svc.ToMessages(context.Background(), request(asEDN, limit))
		if err != nil {
			t.Fatal(err)
		}
		want, err := svc.ToMessages(context.Background(), request(asJSON, limit))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := got.GetMessages()[1].GetContent(), want.GetMessages()[1].GetContent(); g != w {
			t.Errorf("sample_limit %v: USER from EDN:\n%s\n--- from JSON:\n%s", limit, g, w)
		}
		if g, w := got.GetStats().String(), want.GetStats().String(); g != w {
			t.Errorf("sample_limit %v: stats from EDN %s, from JSON %s", limit, g, w)
		}
	}
}
