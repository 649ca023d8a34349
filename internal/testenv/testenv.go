// Package testenv decides whether a test that needs more than Go runs:
// one that needs a program on PATH (node, python3, curl), the tokenizer
// oracle, or a build of the binary. Only tests import it.
//
// `go test -short ./...` (make test-short) is the inner loop: it needs
// nothing but Go, so such a test skips there, saying what runs it. Without
// -short it runs where what it needs is installed and skips, saying how to
// install it, where it is not. make test and CI set PTC_SIDECAR_TEST_ALL=1,
// which turns every such skip into a failure: nothing is skipped there.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// RequireAll is the environment variable under which a test that cannot
// run fails instead of skipping; the Makefile's full test targets set it.
const RequireAll = "PTC_SIDECAR_TEST_ALL"

// SkipShort skips the test under -short, where it has what it needs or
// not: what names what the test needs beyond Go ("node and the tokenizer
// oracle", "a build of the binary").
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("needs %s: runs without -short (make test)", what)
	}
}

// Missing skips the test, or fails it under PTC_SIDECAR_TEST_ALL=1: why
// says what is missing and the command that installs it.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireAll) == "1" {
		t.Fatalf("%s (%s=1: make test runs every test)", why, RequireAll)
	}
	t.Skip(why)
}

// Program returns the path of the program name (a name looked up on PATH
// or an absolute path). It skips the test under -short, and where the
// program is missing it calls Missing with install, the command that
// installs it.
func Program(t testing.TB, name, install string) string {
	t.Helper()
	SkipShort(t, name)
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" is not installed: "+install)
	}
	return path
}
