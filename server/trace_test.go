package server

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// traceRequest is agentRequest as a RenderTraceRequest, without the data
// (whose sample line is wider than a box).
func traceRequest(view string) *ptcsidecarv1.RenderTraceRequest {
	r := agentRequest()
	r.Options.Data = nil
	return &ptcsidecarv1.RenderTraceRequest{Turns: r.Turns, Memory: r.Memory, Options: r.Options, View: view}
}

func TestRenderTraceTurns(t *testing.T) {
	client := sidecarClient(t)
	req := traceRequest("")
	req.Usage = true
	resp, err := client.RenderTrace(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	text := resp.GetText()
	for _, want := range []string{
		"┌─ Turn 1 · ok ─",
		"│ Program:\n│   (def cheap",
		"│   #0 search-reviews(\"Mouse\")\n│     → \"Great mouse\"\n",
		"│ Result: \"Great mouse\"\n",
		"│ (score [p]) -> integer  (turn 1)\n",
		"┌─ Compression ─",
		"│ Strategy: single-user-coalesced\n│ Turns: 1 compressed\n│ Tool calls: 1/1 shown (0 dropped)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("trace lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b") {
		t.Errorf("the RPC coloured its text:\n%s", text)
	}
}

// The compressed view holds exactly the messages ToMessages returns for the
// same turns, memory and options.
func TestRenderTraceCompressedIsToMessages(t *testing.T) {
	client := sidecarClient(t)
	ctx := context.Background()
	tr, err := client.RenderTrace(ctx, traceRequest("compressed"))
	if err != nil {
		t.Fatal(err)
	}
	in := traceRequest("compressed")
	tm, err := client.ToMessages(ctx, &ptcsidecarv1.ToMessagesRequest{Turns: in.Turns, Memory: in.Memory, Options: in.Options})
	if err != nil {
		t.Fatal(err)
	}
	got := boxContents(tr.GetText())
	if len(tm.GetMessages()) != 2 {
		t.Fatalf("ToMessages sent %d messages, want SYSTEM and USER", len(tm.GetMessages()))
	}
	var want []string
	for _, m := range tm.GetMessages() {
		want = append(want, m.GetContent())
	}
	if strings.Join(got, "\n=====\n") != strings.Join(want, "\n=====\n") {
		t.Errorf("compressed view holds\n%q\nToMessages sent\n%q", got, want)
	}
}

// boxContents returns the text inside each box, border removed.
func boxContents(text string) []string {
	var out []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "┌"):
			cur = nil
		case strings.HasPrefix(line, "└"):
			out = append(out, strings.Join(cur, "\n"))
		case line == "│":
			cur = append(cur, "")
		case strings.HasPrefix(line, "│ "):
			cur = append(cur, strings.TrimPrefix(line, "│ "))
		}
	}
	return out
}

func TestRenderTraceInvalid(t *testing.T) {
	client := sidecarClient(t)
	bad := traceRequest("compressed")
	bad.Turns[0].Result = edn("[1 2")
	badOption := traceRequest("")
	badOption.Options.PrintlnLimit = i32(-1)
	// The compressed view renders what ToMessages would send, and refuses
	// what ToMessages refuses: turns to a strategy that reads history.
	turnsToChat := traceRequest("compressed")
	turnsToChat.Options.Strategy = "loop-slice"
	for name, c := range map[string]struct {
		req   *ptcsidecarv1.RenderTraceRequest
		field string
	}{
		"view":                 {traceRequest("summary"), "view: unknown view \"summary\""},
		"value":                {bad, "turns[0].result.edn"},
		"option":               {badOption, "options.println_limit"},
		"turns to a chat view": {turnsToChat, `turns: strategy "loop-slice" reads history, not turns`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := client.RenderTrace(context.Background(), c.req)
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), c.field) {
				t.Errorf("got %v, want INVALID_ARGUMENT naming %s", err, c.field)
			}
		})
	}
}
