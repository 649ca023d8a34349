package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

var traceRun = filepath.Join("testdata", "trace_run.json")

// runTraceCommand runs the trace command as if stdout were (or were not) a
// terminal, with the given environment and stdin.
func runTraceCommand(t *testing.T, terminal bool, environ map[string]string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := traceEnv{stdin: strings.NewReader(stdin), terminal: terminal, getenv: func(k string) string { return environ[k] }}
	code = traceCommand(args, &out, &errOut, env)
	return code, out.String(), errOut.String()
}

func TestTraceCommandViews(t *testing.T) {
	code, out, errOut := runTraceCommand(t, false, nil, "", traceRun)
	if code != 0 || errOut != "" {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"┌─ Turn 1 · ok · 45ms", "│   #0 search(\"mouse\")  (40ms)", "┌─ Turn 2 · error", "│ Returned: {:name \"Pad\" :price 9}"} {
		if !strings.Contains(out, want) {
			t.Errorf("turns view lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Raw response") || strings.Contains(out, "Compression") {
		t.Errorf("turns view without --raw or --usage shows them:\n%s", out)
	}

	// Flags after the file, as a user types them.
	code, out, _ = runTraceCommand(t, false, nil, "", traceRun, "--view", "compressed", "--usage")
	if code != 0 || !strings.Contains(out, "┌─ Message 2/2 · USER") || !strings.Contains(out, "│ Tokens: ") || !strings.Contains(out, "│ Errors: 1 turn(s) collapsed") {
		t.Errorf("compressed view with usage: code %d\n%s", code, out)
	}
	code, out, _ = runTraceCommand(t, false, nil, "", "--raw", traceRun)
	if code != 0 || !strings.Contains(out, "│ Raw response:\n│   Let me search.") {
		t.Errorf("--raw: code %d\n%s", code, out)
	}
}

func TestTraceCommandReadsStdin(t *testing.T) {
	in := `{"view": "compressed", "options": {"system_prompt": "S", "mission": "M", "max_turns": 1}}`
	code, out, errOut := runTraceCommand(t, false, nil, in, "-")
	want := "┌─ Message 1/2 · SYSTEM ───"
	if code != 0 || !strings.HasPrefix(out, want) || !strings.Contains(out, "│ M\n") {
		t.Errorf("code %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}

func TestTraceCommandColour(t *testing.T) {
	for _, c := range []struct {
		name     string
		terminal bool
		environ  map[string]string
		args     []string
		colour   bool
	}{
		{"terminal", true, nil, nil, true},
		{"pipe", false, nil, nil, false},
		{"terminal with NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, nil, false},
		{"always", false, nil, []string{"--color", "always"}, true},
		{"always wins over NO_COLOR", false, map[string]string{"NO_COLOR": "1"}, []string{"--color=always"}, true},
		{"never on a terminal", true, nil, []string{"--color", "never"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runTraceCommand(t, c.terminal, c.environ, "", append(c.args, traceRun)...)
			if code != 0 {
				t.Fatalf("code %d, stderr %q", code, errOut)
			}
			if got := strings.Contains(out, "\x1b["); got != c.colour {
				t.Errorf("colour = %v, want %v", got, c.colour)
			}
		})
	}
}

func TestTraceCommandErrors(t *testing.T) {
	badJSON := writeFile(t, "bad.json", `{"turns": [{"nubmer": 1}]}`)
	badValue := writeFile(t, "value.json", `{"turns": [{"number": 1, "result": {"edn": "{:a"}}]}`)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", nil, 2, "want one FILE"},
		{"two files", []string{traceRun, traceRun}, 2, "got 2 arguments"},
		{"unknown flag", []string{"--colour", "never", traceRun}, 2, "flag provided but not defined: -colour"},
		{"bad colour", []string{"--color", "sometimes", traceRun}, 2, `invalid value "sometimes" for flag -color`},
		{"missing file", []string{filepath.Join(t.TempDir(), "none.json")}, 1, "none.json: no such file"},
		{"unknown field", []string{badJSON}, 1, `unknown field "nubmer"`},
		{"bad value", []string{badValue}, 1, "turns[0].result.edn: "},
		{"bad view", []string{"--view", "summary", traceRun}, 1, `view: unknown view "summary"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runTraceCommand(t, false, nil, "", c.args...)
			if code != c.code || out != "" || !strings.Contains(errOut, c.want) {
				t.Errorf("code %d (want %d), stdout %q, stderr %q (want %q)", code, c.code, out, errOut, c.want)
			}
		})
	}
}

func TestTraceCommandHelp(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"trace", "-h"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "Usage: ptc-sidecar trace [flags] FILE") {
		t.Errorf("code %d, stdout %q", code, out.String())
	}
}

// The examples of docs/TRACE.md are the command's output on the test run,
// so the documentation cannot drift from the code.
func TestTraceDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "TRACE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{traceRun}, {"--view", "compressed", traceRun}} {
		code, out, errOut := runTraceCommand(t, false, nil, "", args...)
		if code != 0 {
			t.Fatalf("%v: code %d, stderr %q", args, code, errOut)
		}
		if !strings.Contains(string(doc), "```\n"+out+"```\n") {
			t.Errorf("docs/TRACE.md lacks the output of trace %v:\n%s", args, out)
		}
	}
}

// A logged ToMessagesRequest is a valid input: its fields are those of a
// RenderTraceRequest.
func TestTraceCommandReadsToMessagesLog(t *testing.T) {
	logged, err := protojson.Marshal(&ptcsidecarv1.ToMessagesRequest{
		Options: &ptcsidecarv1.Options{Strategy: "loop-slice"},
		History: []*ptcsidecarv1.ChatMessage{{Role: "user", Content: "hello"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runTraceCommand(t, false, nil, string(logged), "--view", "compressed", "-")
	if code != 0 || !strings.Contains(out, "┌─ Message 1/1 · USER") || !strings.Contains(out, "│ hello\n") {
		t.Errorf("code %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
}
