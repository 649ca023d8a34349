package main_test

import (
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

func ednValue(text string) *ptcsidecarv1.Value {
	return &ptcsidecarv1.Value{Edn: text}
}

// TestToMessagesEndToEnd compresses an agent run through the real binary:
// a failed turn followed by a successful one, with a tool call and a print.
func TestToMessagesEndToEnd(t *testing.T) {
	t.Parallel()
	p := start(t, "--listen", "127.0.0.1:0")
	sidecar := ptcsidecarv1.NewSidecarServiceClient(p.client())
	ctx := testContext(t)

	req := &ptcsidecarv1.ToMessagesRequest{
		Options: &ptcsidecarv1.Options{
			Mission: "Total the prices.",
			Data:    ednValue(`{:prices [1.1 2.2 3.5 4 5]}`),
			Tools:   []*ptcsidecarv1.ToolSpec{{Name: "notify", Signature: "(to :string, message :string) -> :bool"}},
		},
		Memory: &ptcsidecarv1.Memory{Bindings: []*ptcsidecarv1.Binding{
			{Name: "total", Value: ednValue("15.8"), Turn: 2},
		}},
		Turns: []*ptcsidecarv1.Turn{
			{Number: 1, Program: "(sum data/prices)", Success: false,
				Error: &ptcsidecarv1.TurnError{Type: "unbound_symbol", Message: "undefined symbol sum"}},
			{Number: 2, Program: `(def total (reduce + data/prices)) (println "total" total) (tool/notify {:to "ops" :message "done"})`,
				Prints: []string{"total 15.8"}, Result: ednValue("true"), Success: true,
				ToolCalls: []*ptcsidecarv1.ToolCall{{Index: 0, Name: "notify", Args: ednValue(`{:to "ops" :message "done"}`), Result: ednValue("true")}}},
		},
	}
	resp, err := sidecar.ToMessages(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := `Total the prices.

;; === tool/ ===
tool/notify(to string, message string) -> bool

;; === data/ ===
data/prices                   ; list[5], sample: [1.1 2.2 3.5 ...] (5 items, showing first 3)

;; === user/ (your prelude) ===
total                         ; = float

;; Tool calls made:
;   notify({:message "done" :to "ops"})

;; Output:
total 15.8

Turns left: 3`
	if msgs := resp.GetMessages(); len(msgs) != 2 || msgs[0].GetRole() != "system" || msgs[0].GetContent() == "" || msgs[1].GetContent() != want {
		t.Errorf("messages:\n%v\nwant USER:\n%s", msgs, want)
	}
	if s := resp.GetStats(); s.GetErrorTurnsCollapsed() != 1 || s.GetMessagesBefore() != 6 || s.GetTokensBefore() <= s.GetTokensAfter() {
		t.Errorf("stats: %v", s)
	}

	req.Turns[1].ToolCalls[0].Args = ednValue(`{:to "ops"`)
	_, err = sidecar.ToMessages(ctx, req)
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.HasPrefix(st.Message(), "turns[1].tool_calls[0].args.edn: ") {
		t.Errorf("unparsable args: %v, want INVALID_ARGUMENT naming turns[1].tool_calls[0].args.edn", err)
	}
}
