package server

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// Shutdown answers every call that runs an evaluation, UNAVAILABLE saying
// what it stopped: a stream waiting for a tool's answer, one waiting for
// its start message, and an evaluation in a loop; calls after it too.
func TestShutdownAnswersEveryEvaluation(t *testing.T) {
	svc := New(Config{Limits: busyLimits(time.Minute), MaxConcurrentEvals: 4})
	c := ptcsidecarv1.NewSidecarServiceClient(serveInMemory(t, svc))
	waiting := openStream(t, c, &ptcsidecarv1.EvalTurnRequest{Program: `(:name (tool/get-user {:id 7}))`, Tools: getUser})
	unstarted, err := c.EvalTurnStream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var busy sync.WaitGroup
	var busyErr error
	busy.Go(func() {
		_, busyErr = c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: `(loop [i 0] (recur (inc i)))`})
	})
	for svc.AdmissionStats().Running != 1 {
		time.Sleep(5 * time.Millisecond)
	}

	svc.Shutdown(context.Background())
	_, err = waiting.Recv()
	want := "the server is shutting down and stopped this call while it waited for the answer to tool call 0 (tool/get-user); nothing of it was kept"
	if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.HasPrefix(st.Message(), want) {
		t.Errorf("stream waiting for a tool: %v, want UNAVAILABLE %q", err, want)
	}
	_, err = unstarted.Recv()
	if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "stopped this call before its start message came") {
		t.Errorf("stream without start: %v, want UNAVAILABLE", err)
	}
	busy.Wait()
	if st := status.Convert(busyErr); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "stopped this call before its evaluation finished") {
		t.Errorf("evaluation in a loop: %v, want UNAVAILABLE", busyErr)
	}
	if _, err := c.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: `(+ 1 2)`}); status.Code(err) != codes.Unavailable {
		t.Errorf("an evaluation after the shutdown: %v, want UNAVAILABLE", err)
	}
	if svc.AdmissionStats().Running != 0 {
		t.Errorf("%d evaluation slots still held", svc.AdmissionStats().Running)
	}
}
