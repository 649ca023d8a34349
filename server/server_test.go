package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// fakeStrategy is a Strategy with fixed descriptions; it never renders.
type fakeStrategy struct{}

func (fakeStrategy) Name() string            { return "fake-strategy" }
func (fakeStrategy) Description() string     { return "Sends nothing; used to test the wire form." }
func (fakeStrategy) Input() strategies.Input { return strategies.InputHistory }
func (fakeStrategy) Options() []strategies.OptionDoc {
	return []strategies.OptionDoc{
		{Name: "scan_window", Default: "20", Description: "Messages scanned."},
		{Name: "nudge_messages", Default: "", Description: "Nudge wordings."},
	}
}
func (fakeStrategy) Render(*strategies.Request) (*strategies.Response, error) {
	panic("fakeStrategy.Render must not be called")
}

func TestStrategyInfo(t *testing.T) {
	got := strategyInfo(fakeStrategy{})
	want := &ptcsidecarv1.StrategyInfo{
		Name:        "fake-strategy",
		Description: "Sends nothing; used to test the wire form.",
		Input:       "history",
		Options: []*ptcsidecarv1.OptionInfo{
			{Name: "scan_window", DefaultValue: "20", Description: "Messages scanned."},
			{Name: "nudge_messages", DefaultValue: "", Description: "Nudge wordings."},
		},
	}
	if !proto.Equal(got, want) {
		t.Errorf("strategyInfo:\n got %v\nwant %v", got, want)
	}
}

func TestListStrategiesListsTheRegistry(t *testing.T) {
	resp, err := New(Config{}).ListStrategies(context.Background(), &ptcsidecarv1.ListStrategiesRequest{})
	if err != nil {
		t.Fatalf("ListStrategies: %v", err)
	}
	var got []string
	for _, s := range resp.GetStrategies() {
		got = append(got, s.GetName())
		if s.GetInput() != string(strategies.InputTurns) && s.GetInput() != string(strategies.InputHistory) {
			t.Errorf("strategy %q: input %q is neither turns nor history", s.GetName(), s.GetInput())
		}
	}
	want := strategies.Names()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ListStrategies names = %v, want the registry's %v", got, want)
	}
}
