package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// runBinary runs the built binary with NO_COLOR unset and stdout a pipe.
func runBinary(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out.String(), errOut.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// The trace command and the RenderTrace RPC of a running server render a
// logged request to the same text; written to a pipe, the command does not
// colour it.
func TestTraceCommandMatchesRenderTrace(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "trace_run.json")
	for _, view := range []string{"turns", "compressed"} {
		code, cliText, errOut := runBinary(t, "trace", "--usage", "--raw", "--view", view, path)
		if code != 0 || errOut != "" {
			t.Fatalf("trace --view %s: code %d, stderr %q", view, code, errOut)
		}
		if strings.Contains(cliText, "\x1b") {
			t.Errorf("trace coloured a pipe:\n%s", cliText)
		}

		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		req := &ptcsidecarv1.RenderTraceRequest{}
		if err := protojson.Unmarshal(b, req); err != nil {
			t.Fatal(err)
		}
		req.View, req.Usage, req.Raw = view, true, true
		p := start(t, "--listen", "127.0.0.1:0")
		resp, err := ptcsidecarv1.NewSidecarServiceClient(p.client()).RenderTrace(testContext(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetText() != cliText {
			t.Errorf("view %s: RenderTrace returned\n%s\nthe trace command printed\n%s", view, resp.GetText(), cliText)
		}
	}
}

func TestTraceCommandExitCodes(t *testing.T) {
	t.Parallel()
	if code, _, errOut := runBinary(t, "trace"); code != 2 || !strings.Contains(errOut, "want one FILE") {
		t.Errorf("no file: code %d, stderr %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"view": "everything"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runBinary(t, "trace", bad); code != 1 || !strings.Contains(errOut, `view: unknown view "everything"`) {
		t.Errorf("bad view: code %d, stderr %q", code, errOut)
	}
}
