package server

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

func TestEchoTextsFitTheirLimit(t *testing.T) {
	for _, c := range []struct {
		program, raw string
		cut          bool
	}{
		{"(+ 1 2)", "```clojure\n(+ 1 2)\n```", false},
		{strings.Repeat("é", 600), "", true},
		{strings.Repeat("x", 600), strings.Repeat("y", 600), true},
		{"(+ 1 2)", strings.Repeat("ü", 2000), true},
		{strings.Repeat("x", 400), strings.Repeat("y", 500), false},
	} {
		p, r, cut := echoTexts(c.program, c.raw, 1000)
		if cut != c.cut || len(p)+len(r) > 1000 || !utf8.ValidString(p) || !utf8.ValidString(r) {
			t.Errorf("%d and %d bytes: cut %v, %d and %d bytes, want cut %v within 1000", len(c.program), len(c.raw), cut, len(p), len(r), c.cut)
		}
		if !cut && (p != c.program || r != c.raw) {
			t.Errorf("%d and %d bytes: changed without a cut", len(c.program), len(c.raw))
		}
		if cut && len(c.program) > 500 && !strings.Contains(p, ";; ... ") {
			t.Errorf("a cut program does not say so: %.80q", p[len(p)-60:])
		}
	}
}

// TestTurnFitsADefaultClient: a program of 12 MB, all but its first byte
// stray brackets, sent as program and as raw_response, comes back in a
// turn that a gRPC client with the default 4 MiB receive limit takes.
func TestTurnFitsADefaultClient(t *testing.T) {
	svc := New(Config{})
	src := "1" + strings.Repeat(")", 12_000_000)
	for _, req := range []*ptcsidecarv1.EvalTurnRequest{{Program: src}, {RawResponse: "```clojure\n" + src + "\n```"}} {
		resp, err := svc.EvalTurn(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		turn := resp.GetTurn()
		if n := proto.Size(resp); n > 4<<20 || turn.GetResult().GetEdn() != "1" {
			t.Errorf("a turn of %d bytes, result %v", n, turn.GetResult())
		}
		var types []string
		for _, w := range turn.GetWarnings() {
			types = append(types, w.GetType())
		}
		if strings.Join(types, " ") != "unmatched_closing_bracket echo_cut" {
			t.Errorf("warnings %v, want the brackets' and the cut echo's", types)
		}
	}
}
