package server

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

var updateGolden = flag.Bool("update", false, "rewrite server/testdata golden files")

// TestEvalTurnFeedsToMessages runs a three-turn agent loop through the real
// RPCs: each Turn that EvalTurn returns goes back unchanged into
// ToMessages, whose USER message must be exactly the expected text.
func TestEvalTurnFeedsToMessages(t *testing.T) {
	c := dial(t, Config{Limits: lisp.DefaultLimits()})
	tools := []*ptcsidecarv1.ToolSpec{
		{Name: "get-user", Signature: "(id :int) -> {id :int, name :string}", Description: "Looks a user up by id."},
		{Name: "get-order", Signature: "(user :int) -> {total :float}"},
	}
	data := edn(`{:user-ids [7 8 9], :_token "secret"}`)
	programs := []string{
		// Turn 1 calls both tools, prints, and stores two values.
		"```clojure\n(def user (tool/get-user {:id (first data/user-ids)}))\n(def order (get-order {:user (:id user)}))\n(println \"found\" (:name user))\n```",
		// Turn 2 fails: the model misnames a function.
		"```clojure\n(defn total-of [o] \"Total of an order.\" (:totl o))\n(sum-all [order])\n```",
		// Turn 3 recovers.
		"```clojure\n(defn total-of \"Total of an order.\" [o] (:total o))\n(total-of order)\n```",
	}
	var turns []*ptcsidecarv1.Turn
	var memory *ptcsidecarv1.Memory
	for i, raw := range programs {
		turn, _ := runReplay(t, c, &ptcsidecarv1.EvalTurnRequest{
			RawResponse: raw, Prelude: memory, Data: data, Tools: tools, TurnNumber: int32(i + 1),
		})
		turns = append(turns, turn)
		memory = turn.GetMemory()
	}
	if turns[1].GetSuccess() || !turns[2].GetSuccess() {
		t.Fatalf("turn 2 should fail and turn 3 succeed: %v / %v", turns[1].GetError(), turns[2].GetError())
	}
	resp, err := c.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{
		Turns:  turns,
		Memory: memory,
		Options: &ptcsidecarv1.Options{
			Mission: "Find the order total of the first user.",
			Tools:   tools,
			Data:    data,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs := resp.GetMessages()
	if len(msgs) != 2 || msgs[0].GetRole() != "system" || msgs[1].GetRole() != "user" {
		t.Fatalf("messages = %v", msgs)
	}
	if msgs[0].GetContent() != lisp.SystemPrompt() {
		t.Error("SYSTEM is not the built-in PTC-Lisp reference")
	}
	golden := filepath.Join("testdata", "agent_loop_user.golden")
	got := msgs[1].GetContent()
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("USER message differs from %s (run with -update to see the new text):\n%s", golden, got)
	}
	if st := resp.GetStats(); st.GetTurnsCompressed() != 3 || st.GetToolCallsTotal() != 2 || st.GetErrorTurnsCollapsed() != 1 {
		t.Errorf("stats = %v", st)
	}
}
