package server

import (
	"context"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// ListStrategies lists every registered compression strategy with the input
// it reads and the options it honours.
func (s *Service) ListStrategies(_ context.Context, in *ptcsidecarv1.ListStrategiesRequest) (*ptcsidecarv1.ListStrategiesResponse, error) {
	if err := s.checkCounts(in); err != nil { // bytes the codec refused (codec.go)
		return nil, err
	}
	all := strategies.All()
	resp := &ptcsidecarv1.ListStrategiesResponse{
		Strategies: make([]*ptcsidecarv1.StrategyInfo, 0, len(all)),
	}
	for _, st := range all {
		resp.Strategies = append(resp.Strategies, strategyInfo(st))
	}
	return resp, nil
}

// strategyInfo describes one strategy on the wire.
func strategyInfo(st strategies.Strategy) *ptcsidecarv1.StrategyInfo {
	docs := st.Options()
	info := &ptcsidecarv1.StrategyInfo{
		Name:        st.Name(),
		Description: st.Description(),
		Input:       string(st.Input()),
		Options:     make([]*ptcsidecarv1.OptionInfo, 0, len(docs)),
	}
	for _, d := range docs {
		info.Options = append(info.Options, &ptcsidecarv1.OptionInfo{
			Name:         d.Name,
			DefaultValue: d.Default,
			Description:  d.Description,
		})
	}
	return info
}
