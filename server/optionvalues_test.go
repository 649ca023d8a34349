package server

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// TestUnknownOptionValuesNameTheirField: every option that takes one of
// a set of names (or a grammar), given a value outside it that carries a
// newline, under every strategy, is INVALID_ARGUMENT naming the option.
func TestUnknownOptionValuesNameTheirField(t *testing.T) {
	c := sidecarClient(t)
	bad := "nope\n" + strings.Repeat("x", 100)
	options := map[string]func(*ptcsidecarv1.Options){
		"tokenizer":            func(o *ptcsidecarv1.Options) { o.Tokenizer = bad },
		"pricing":              func(o *ptcsidecarv1.Options) { o.Pricing = bad },
		"provider":             func(o *ptcsidecarv1.Options) { o.Provider = bad },
		"prompt":               func(o *ptcsidecarv1.Options) { o.Prompt = bad },
		"program_form":         func(o *ptcsidecarv1.Options) { o.ProgramForm = bad },
		"summary_request_form": func(o *ptcsidecarv1.Options) { o.SummaryRequestForm = bad },
		"model":                func(o *ptcsidecarv1.Options) { o.Model = bad },
		"signature":            func(o *ptcsidecarv1.Options) { o.Signature = bad },
	}
	names := []string{""}
	for _, s := range strategies.All() {
		names = append(names, s.Name())
	}
	for _, strategy := range names {
		for name, set := range options {
			o := &ptcsidecarv1.Options{Strategy: strategy}
			set(o)
			_, err := c.ToMessages(t.Context(), &ptcsidecarv1.ToMessagesRequest{History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "hi"}}, Options: o})
			if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "options."+name) {
				t.Errorf("strategy %q, %s unknown: %v %.200q, want INVALID_ARGUMENT naming options.%s", strategy, name, st.Code(), st.Message(), name)
			}
		}
	}
}
