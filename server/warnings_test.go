package server

import (
	"context"
	"strings"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// TestEvalTurnRecordsWarnings: a reply whose program ends with a stray
// bracket, split across two blocks, runs, and the turn says what was
// forgiven; ToMessages then shows it to the LLM.
func TestEvalTurnRecordsWarnings(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	reply := "```clojure\n(def n 41)\n```\nand then\n```clojure\n(inc n))\n```"
	turn, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{RawResponse: reply})
	if !turn.GetSuccess() || turn.GetResult().GetEdn() != "42" {
		t.Fatalf("turn = %v", turn)
	}
	var types []string
	for _, w := range turn.GetWarnings() {
		types = append(types, w.GetType())
	}
	if strings.Join(types, ",") != "joined_code_blocks,unmatched_closing_bracket" {
		t.Fatalf("warnings = %v", turn.GetWarnings())
	}
	for _, strategy := range []string{"single-user-coalesced", "full", "cache-stable"} {
		resp, err := c.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{
			Options: &ptcsidecarv1.Options{Strategy: strategy}, Turns: []*ptcsidecarv1.Turn{turn}, Memory: turn.GetMemory(),
		})
		if err != nil {
			t.Fatal(err)
		}
		msgs := resp.GetMessages()
		last := msgs[len(msgs)-1].GetContent()
		if !strings.Contains(last, "Warning: ignored 1 unmatched closing bracket") || !strings.Contains(last, "Warning: the reply held 2 code blocks") {
			t.Errorf("%s: the last message does not show the warnings:\n%s", strategy, last)
		}
	}
}
