package testenv

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that records how a helper ended the test
// instead of ending it.
type recorder struct {
	testing.TB
	ended string // "skip: ..." or "fail: ..."
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	if r.ended == "" {
		r.ended = "skip: " + fmt.Sprint(args...)
	}
}
func (r *recorder) Skipf(format string, args ...any) { r.Skip(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	if r.ended == "" {
		r.ended = "fail: " + fmt.Sprintf(format, args...)
	}
}

func TestMissingSkipsOrFails(t *testing.T) {
	t.Setenv(RequireAll, "")
	r := &recorder{TB: t}
	Missing(r, "node is not installed: apt-get install nodejs")
	if r.ended != "skip: node is not installed: apt-get install nodejs" {
		t.Errorf("without %s: %q, want a skip naming the command", RequireAll, r.ended)
	}
	t.Setenv(RequireAll, "1")
	r = &recorder{TB: t}
	Missing(r, "node is not installed: apt-get install nodejs")
	if r.ended != "fail: node is not installed: apt-get install nodejs (PTC_SIDECAR_TEST_ALL=1: make test runs every test)" {
		t.Errorf("under %s=1: %q, want a failure naming the command", RequireAll, r.ended)
	}
}

func TestProgram(t *testing.T) {
	t.Setenv(RequireAll, "")
	r := &recorder{TB: t}
	Program(r, "/nonexistent/ptc-sidecar-test-tool", "install it with make tool")
	want := "skip: needs /nonexistent/ptc-sidecar-test-tool: runs without -short (make test)"
	if !testing.Short() {
		want = "skip: /nonexistent/ptc-sidecar-test-tool is not installed: install it with make tool"
	}
	if r.ended != want {
		t.Errorf("a missing program: %q, want %q", r.ended, want)
	}
	if testing.Short() {
		return
	}
	r = &recorder{TB: t}
	if path := Program(r, "go", "install Go"); r.ended != "" || path == "" {
		t.Errorf("go: %q, ended %q; want its path", path, r.ended)
	}
}
