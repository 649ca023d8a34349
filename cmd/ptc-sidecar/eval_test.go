package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runEvalCommand(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"eval"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEvalCommandPrintsResultAndOutput(t *testing.T) {
	code, out, errOut := runEvalCommand(t, "-e", `(println "checking") {:sum (+ 1 2) :s #{:a}}`)
	if code != 0 || out != "{:sum 3, :s #{:a}}\n" || errOut != "checking\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestEvalCommandJSONOutput(t *testing.T) {
	code, out, errOut := runEvalCommand(t, "-json", "-e", `{:total 2.5 :tags #{:a} :none nil}`)
	if code != 0 || out != "{\"total\":2.5,\"tags\":[\"a\"],\"none\":null}\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, out, errOut = runEvalCommand(t, "-json", "-e", `(fn [x] x)`)
	if code != 1 || out != "" || !strings.Contains(errOut, "no JSON form") {
		t.Fatalf("a function: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestEvalCommandFailure(t *testing.T) {
	code, out, errOut := runEvalCommand(t, "-e", `(println "before") (fail "no luck")`)
	if code != 1 || out != "" || !strings.Contains(errOut, "before\n") || !strings.Contains(errOut, "error: fail: no luck") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	code, _, errOut = runEvalCommand(t, "-max-steps", "100", "-e", "(loop [] (recur))")
	if code != 1 || !strings.Contains(errOut, "step_limit") {
		t.Fatalf("step limit: code %d, stderr %q", code, errOut)
	}
}

func TestEvalCommandFiles(t *testing.T) {
	data := writeFile(t, "data.json", `{"orders": [{"total": 5}, {"total": 50}], "Not A Keyword": 1}`)
	tools := writeFile(t, "tools.edn", `{:lookup {:name "Ada"}}`)
	prelude := writeFile(t, "prelude.clj", `(defn big? [o] (> (:total o) 10))`)
	code, out, errOut := runEvalCommand(t, "-data", data, "-tools", tools, "-prelude", prelude,
		"-e", `[(count (filter big? data/orders)) (:name (tool/lookup {:id 1})) (get data/orders 5 :none)]`)
	if code != 0 || out != "[1 \"Ada\" :none]\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	mem := writeFile(t, "memory.json", `{"bindings": [{"name": "k", "value": {"edn": "7"}, "turn": 1},
		{"name": "f", "value": {"edn": "(fn [x] (* x k))"}, "isFn": true, "params": ["x"]}]}`)
	code, out, errOut = runEvalCommand(t, "-prelude", mem, "-e", "(f 6)")
	if code != 0 || out != "42\n" {
		t.Fatalf("JSON prelude: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestEvalCommandStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved }()
	go func() {
		w.WriteString("(def x 20)\n(+ x 22)\n")
		w.Close()
	}()
	code, out, _ := runEvalCommand(t)
	if code != 0 || out != "42\n" {
		t.Fatalf("code %d, stdout %q", code, out)
	}
}

func TestEvalCommandUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"-max-steps", "-1"}, {"-max-depth", "none"}, {"-data", "/does/not/exist", "-e", "1"}, {"extra"}, {"-nope"}} {
		if code, _, errOut := runEvalCommand(t, args...); code != 2 || errOut == "" {
			t.Errorf("eval %v: code %d, stderr %q", args, code, errOut)
		}
	}
	if code, out, _ := runEvalCommand(t, "-h"); code != 0 || !strings.Contains(out, "-max-steps") {
		t.Errorf("help: code %d, %q", code, out)
	}
}
