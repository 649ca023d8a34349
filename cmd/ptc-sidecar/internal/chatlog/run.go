package chatlog

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// WithMemorySnapshots returns the run's turns, numbered, each with the
// memory after it: its own snapshot when the record has one, else the
// bindings of the run's last memory that turns up to it defined (a value
// redefined later shows its last value: the record says no more).
func WithMemorySnapshots(run *ptcsidecarv1.RenderTraceRequest) []*ptcsidecarv1.Turn {
	turns := make([]*ptcsidecarv1.Turn, len(run.GetTurns()))
	for k, t := range run.GetTurns() {
		t = proto.Clone(t).(*ptcsidecarv1.Turn)
		if t.Number == 0 {
			t.Number = int32(k + 1)
		}
		if t.Memory == nil {
			t.Memory = definedUpTo(run.GetMemory(), t.Number)
		}
		turns[k] = t
	}
	return turns
}

// MemoryBefore is the memory the call before turns[k] renders: the
// snapshot after the turn before, or the host's prelude before the first.
func MemoryBefore(run *ptcsidecarv1.RenderTraceRequest, turns []*ptcsidecarv1.Turn, k int) *ptcsidecarv1.Memory {
	if k > 0 {
		return turns[k-1].GetMemory()
	}
	return definedUpTo(run.GetMemory(), 0)
}

// definedUpTo is the bindings of m that turns numbered up to n defined
// (turn 0: the host's prelude).
func definedUpTo(m *ptcsidecarv1.Memory, n int32) *ptcsidecarv1.Memory {
	out := &ptcsidecarv1.Memory{}
	for _, b := range m.GetBindings() {
		if b.GetTurn() <= n {
			out.Bindings = append(out.Bindings, b)
		}
	}
	return out
}

// BindingsOf reads a memory's bindings for the evidence: names and values.
func BindingsOf(m *ptcsidecarv1.Memory) ([]strategies.Binding, error) {
	var out []strategies.Binding
	for i, b := range m.GetBindings() {
		bd := strategies.Binding{Name: b.GetName(), Turn: int(b.GetTurn())}
		if b.GetIsFn() {
			bd.Fn = &strategies.Function{}
		}
		if v := b.GetValue(); v != nil && !b.GetIsFn() {
			var err error
			switch {
			case v.GetEdn() != "":
				bd.Value, err = lisp.ParseEDN(v.GetEdn(), 0)
			case v.GetJson() != "":
				bd.Value, err = lisp.DecodeJSON(v.GetJson(), 0)
			}
			if err != nil {
				return nil, fmt.Errorf("memory.bindings[%d].value: %v", i, err)
			}
		}
		out = append(out, bd)
	}
	return out, nil
}
