package main_test

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// emitTotalPrograms are turns that send back as much as each part of a
// turn allows at once: a program echoed to its cut, the prints to the
// output limit, a hundred analysis warnings of a kilobyte, thousands of
// warnings of definitions made while the program ran, a result, fail
// reason or memory near the emit limit, and an error whose message quotes
// megabytes.
func emitTotalPrograms() []struct{ name, src, want string } {
	var defs strings.Builder
	for i := range 100 {
		fmt.Fprintf(&defs, "(def %s%d (atom 1))\n", strings.Repeat("w", 1100), i)
	}
	echo := ";; " + strings.Repeat("c", 1_200_000) + "\n" // past the 1 MiB echo
	prints := `(dotimes [i 600] (println (apply str (repeat 100 "p"))))`
	runWarnings := `(dotimes [i 2000] (def b (atom i)))`
	// text is a string of n bytes of c, built in n/100 steps.
	text := func(n int, c string) string {
		return fmt.Sprintf(`(apply str (repeat %d %q))`, n/100, strings.Repeat(c, 100))
	}
	head := echo + defs.String()
	return []struct{ name, src, want string }{
		{"result", head + "(do " + prints + runWarnings + text(1_900_000, "r") + ")", "ok"},
		// Without the echo the turn is within 4 MiB with the JSON forms
		// whole: only the emit limit holds them.
		{"result, a short program", "(do " + prints + text(1_900_000, "r") + ")", "ok"},
		{"fail reason, a short program", "(do " + prints + "(fail " + text(1_900_000, "f") + "))", "fail"},
		{"result of control characters", head + "(do " + prints + runWarnings +
			fmt.Sprintf(`(apply str (repeat 19000 "%s"))`, strings.Repeat(`\u0001`, 100)) + ")", "ok"},
		{"memory", head + "(do " + prints + runWarnings + `(def kept (vec (repeat 150000 "0123456789"))) 1)`, "ok"},
		{"fail reason", head + "(do " + prints + runWarnings + "(fail " + text(1_950_000, "f") + "))", "fail"},
		{"error quoting a value", head + "(do " + prints + runWarnings +
			"(def kept " + text(1_400_000, "k") + ") (throw (ex-info " + text(3_000_000, "e") + " {:v (vec (range 100000))})))", "execution_error"},
		{"error quoting a big number", head + "(do " + prints + runWarnings +
			`(let [n (bigint (apply str (repeat 60000 "9")))] (dotimes [i 3] (try (long n) (catch Exception e (println (ex-message e))))) (long n)))`, "execution_error"},
	}
}

// TestEverythingSentBackFitsADefaultClient: whatever a turn sends back,
// all at once (result, memory, prints, warnings, an error quoting values,
// its statistics and the echo of its program), the response fits the
// 4 MiB a gRPC client receives by default, over gRPC and over HTTP, and
// all it sends besides the echo of its program is held to the emit limit.
func TestEverythingSentBackFitsADefaultClient(t *testing.T) {
	skipIfShort(t)
	skipIfRace(t, "megabyte turns, several each")
	p := start(t, "--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:0")
	client := ptcsidecarv1.NewSidecarServiceClient(p.client())
	for _, c := range emitTotalPrograms() {
		req := &ptcsidecarv1.EvalTurnRequest{Program: c.src}
		// A default client: no receive limit raised.
		resp, err := client.EvalTurn(testContext(t), req, grpc.MaxCallSendMsgSize(64*mib))
		if err != nil {
			t.Fatalf("%s: a gRPC client with the default receive limit: %v", c.name, err)
		}
		checkTurnTotal(t, c.name+" over gRPC", resp.GetTurn(), proto.Size(resp), c.want)
		out, _ := sendAttack(t, p, "HTTP", attack{name: c.name, method: "EvalTurn", req: func() proto.Message { return req }})
		if out.turn == nil {
			t.Fatalf("%s over HTTP: %s %.300s", c.name, out.got, out.message)
		}
		checkTurnTotal(t, c.name+" over HTTP", out.turn, proto.Size(&ptcsidecarv1.EvalTurnResponse{Outcome: &ptcsidecarv1.EvalTurnResponse_Turn{Turn: out.turn}}), c.want)
	}
}

// checkTurnTotal checks a turn's outcome and that its response of size
// bytes fits 4 MiB.
func checkTurnTotal(t *testing.T, what string, turn *ptcsidecarv1.Turn, size int, want string) {
	t.Helper()
	got := "ok"
	if !turn.GetSuccess() {
		got = turn.GetError().GetType()
	}
	if got != want {
		t.Errorf("%s: ended %s (%.200s), want %s", what, got, turn.GetError().GetMessage(), want)
	}
	var warnings int
	for _, w := range turn.GetWarnings() {
		warnings += len(w.GetMessage())
	}
	t.Logf("%-34s %7d bytes: program %d, prints %d, warnings %d (%d bytes), result %d, memory %d, error %d",
		what, size, len(turn.GetProgram()), len(strings.Join(turn.GetPrints(), "")), len(turn.GetWarnings()), warnings,
		len(turn.GetResult().GetEdn())+len(turn.GetResult().GetJson()), proto.Size(turn.GetMemory()), len(turn.GetError().GetMessage()))
	if size > 4<<20 {
		t.Errorf("%s: the response is %d bytes, more than the 4 MiB a gRPC client receives by default", what, size)
	}
	// The emit limit holds everything the turn made, JSON forms, warnings
	// and the error included; the echo of the caller's program is the
	// caller's own and bounded apart (1 MiB). What is left is protobuf's
	// framing and the few fixed fields.
	const emitLimit, framing = 2 << 20, 64 << 10
	if own := size - len(turn.GetProgram()) - len(turn.GetRawResponse()); own > emitLimit+framing {
		t.Errorf("%s: the turn sends back %d bytes besides the program's echo, more than the %d-byte emit limit and %d of framing",
			what, own, emitLimit, framing)
	}
}
