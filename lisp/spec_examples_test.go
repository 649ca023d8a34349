package lisp

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// specExample is one "code ; => expected" line of the language reference,
// extracted into testdata/spec_examples.jsonl (go test -run SpecExamples
// -update -spec-reference PATH re-extracts it from a copy of the upstream
// specification).
// Skip, when set, says why the example cannot run as written: it reads
// data or tools, uses names the example only imagines, or its expectation
// is prose.
type specExample struct {
	Section  string `json:"section"`
	Code     string `json:"code"`
	Expected string `json:"expected"`
	Skip     string `json:"skip,omitempty"`
}

func TestSpecExamples(t *testing.T) {
	path := filepath.Join("testdata", "spec_examples.jsonl")
	if *update && *specReference != "" {
		writeSpecExamples(t, *specReference, path)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	ran, skipped := 0, 0
	for sc.Scan() {
		var ex specExample
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		if ex.Skip != "" {
			skipped++
			continue
		}
		ran++
		res := run(t, ex.Code, Env{})
		if isErrorExpectation(ex.Expected) {
			if res.Err == nil {
				t.Errorf("§%s %s: got %s, want an error (%s)", ex.Section, ex.Code, Repr(res.Value), ex.Expected)
			}
			continue
		}
		if res.Err != nil {
			t.Errorf("§%s %s: %v, want %s", ex.Section, ex.Code, res.Err, ex.Expected)
			continue
		}
		want, err := readComparable(ex.Expected)
		if err != nil {
			t.Errorf("§%s %s: unreadable expectation %q", ex.Section, ex.Code, ex.Expected)
			continue
		}
		got, err := readComparable(Repr(res.Value))
		if err != nil || !conformanceEqual(want, got) {
			t.Errorf("§%s %s = %s, want %s", ex.Section, ex.Code, Repr(res.Value), ex.Expected)
		}
	}
	t.Logf("spec examples: %d run, %d skipped", ran, skipped)
}

func isErrorExpectation(s string) bool {
	u := strings.ToUpper(s)
	return strings.Contains(u, "ERROR")
}

// specReference is the upstream language specification the examples are
// extracted from; the repository keeps only what was extracted.
var specReference = flag.String("spec-reference", "",
	"with -update, the path of ptc-lisp-specification.md (github.com/andreasronge/ptc_runner) to extract testdata/spec_examples.jsonl from")

// writeSpecExamples extracts the examples, keeping the skip reasons already
// recorded for examples that are unchanged.
func writeSpecExamples(t *testing.T, ref, path string) {
	old := map[string]string{}
	if data, err := os.ReadFile(path); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			var ex specExample
			if json.Unmarshal([]byte(line), &ex) == nil && ex.Skip != "" {
				old[ex.Code+"\x00"+ex.Expected] = ex.Skip
			}
		}
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, ex := range extractSpecExamples(string(data)) {
		if ex.Skip == "" {
			ex.Skip = old[ex.Code+"\x00"+ex.Expected]
		}
		line, _ := json.Marshal(ex)
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func extractSpecExamples(doc string) []specExample {
	var out []specExample
	section := ""
	inCode := false
	var buf []string
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inCode = !inCode && strings.HasPrefix(trimmed, "```clojure")
			buf = nil
			continue
		case !inCode && strings.HasPrefix(trimmed, "#"):
			if f := strings.Fields(trimmed); len(f) > 1 {
				section = strings.TrimSuffix(f[1], ".")
			}
			continue
		case !inCode:
			continue
		}
		code, expected, found := strings.Cut(line, "; =>")
		if !found {
			if _, err := read(strings.Join(buf, "\n"), 0); err == nil && len(buf) > 0 {
				buf = nil
			}
			if trimmed != "" && !strings.HasPrefix(trimmed, ";") {
				buf = append(buf, line)
			}
			continue
		}
		candidate := strings.TrimSpace(code)
		if forms, err := read(candidate, 0); err != nil || len(forms) == 0 {
			candidate = strings.TrimSpace(strings.Join(append(buf, code), "\n"))
		}
		buf = nil
		expected = strings.TrimSpace(expected)
		if expected == "" || strings.HasPrefix(expected, "...") || strings.HasPrefix(expected, "TODO") ||
			strings.HasPrefix(expected, "BUG") {
			continue
		}
		if forms, err := read(candidate, 0); err != nil || len(forms) == 0 {
			continue
		}
		if !isErrorExpectation(expected) {
			forms, err := read(expected, 0)
			if err != nil || len(forms) == 0 || containsSymbol(forms[0]) {
				continue
			}
			expected = Repr(forms[0])
		}
		out = append(out, specExample{Section: section, Code: candidate, Expected: expected})
	}
	return out
}

func containsSymbol(f Value) bool {
	switch f := f.(type) {
	case symbol:
		return true
	case *list:
		for _, e := range f.Elems {
			if containsSymbol(e) {
				return true
			}
		}
	case *Vector:
		for _, e := range f.Elems() {
			if containsSymbol(e) {
				return true
			}
		}
	case *mapForm:
		for _, e := range f.Elems {
			if containsSymbol(e) {
				return true
			}
		}
	case *setForm:
		for _, e := range f.Elems {
			if containsSymbol(e) {
				return true
			}
		}
	}
	return false
}
