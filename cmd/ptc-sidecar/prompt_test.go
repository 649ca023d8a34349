package main

import (
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

func TestPromptCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		out  string
		err  string
	}{
		{[]string{"prompt"}, 0, lisp.SystemPrompt(), ""},
		{[]string{"prompt", "-variant", "lean"}, 0, lisp.SystemPrompt(), ""},
		{[]string{"prompt", "-variant", "full"}, 0, lisp.FullSystemPrompt(), ""},
		{[]string{"prompt", "-variant", "short"}, 2, "", `-variant must be "lean" or "full", got "short"`},
		{[]string{"prompt", "extra"}, 2, "", `unexpected argument "extra"`},
	} {
		var out, errOut strings.Builder
		code := run(c.args, &out, &errOut)
		if code != c.code || out.String() != c.out || !strings.Contains(errOut.String(), c.err) {
			t.Errorf("%q: exit %d, stdout %.40q, stderr %q; want exit %d, stdout %.40q, stderr with %q",
				c.args, code, out.String(), errOut.String(), c.code, c.out, c.err)
		}
	}
	var out strings.Builder
	if code := run([]string{"prompt", "-h"}, &out, &out); code != 0 || !strings.Contains(out.String(), "-variant") {
		t.Errorf("prompt -h: exit %d, %q", code, out.String())
	}
}
