package lisp

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestInteropGrid replays testdata/interopgrid/oracle.tsv: the Java methods
// and statics programs call (String, Character, Math, Integer, Long,
// Double, BigInteger, BigDecimal, java.time, exceptions), each at each
// arity with typical, edge and wrong-type arguments (gen.py), and Clojure
// 1.11's answer to each (oracle.clj; this test never runs Clojure). A
// probe passes when PTC-Lisp gives Clojure's value or throws Clojure's
// exception class, differs for a documented reason (genprobeKnown,
// interopKnown), or is refused with a hint that names the builtin doing
// the same (a call of it, in the hint). Any other outcome is listed in
// open.txt, which can only shrink: the test fails on a probe that fails
// and is not listed, and on a listed probe that now passes.
func TestInteropGrid(t *testing.T) {
	probes := loadProbeFile(t, "testdata/interopgrid/oracle.tsv", 3000)
	replayProbes(t, probes, judgeInteropProbe, interopOpenFile, "TestInteropGrid")
}

// replayProbes judges every probe (in parallel), fails the test on a
// failing probe openFile does not list and on a listed probe that passes,
// and with -update writes openFile anew. Passing outcomes: pass, known,
// skipped, hinted.
func replayProbes(t *testing.T, probes []genProbe, judge func(genProbe) genOutcome, openFile, test string) {
	t.Helper()
	outcomes := make([]genOutcome, len(probes))
	const chunks = 8
	var wg sync.WaitGroup
	for c := 0; c < chunks; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := c; i < len(probes); i += chunks {
				outcomes[i] = judge(probes[i])
			}
		}(c)
	}
	wg.Wait()

	open := loadOpenList(t, openFile)
	byKind, byReason := map[string]int{}, map[string]int{}
	byForm := map[string]map[string]int{}
	var stillOpen []string
	for i, o := range outcomes {
		byKind[o.kind]++
		if o.reason != "" {
			byReason[o.reason]++
		}
		f := genProbeVar(probes[i].src)
		if byForm[f] == nil {
			byForm[f] = map[string]int{}
		}
		byForm[f][o.kind]++
		failing := o.kind != "pass" && o.kind != "known" && o.kind != "skipped" && o.kind != "hinted"
		if failing {
			stillOpen = append(stillOpen, o.kind+"\t"+probes[i].src)
		}
		switch {
		case failing && !open[probes[i].src] && !*update:
			t.Errorf("%s %s\n  clojure: %s\n  got:     %s", o.kind, probes[i].src, probes[i].answer(), o.got)
		case !failing && open[probes[i].src] && !*update:
			t.Errorf("%s now passes (%s): delete its line from %s (go test ./lisp -run %s -update)", probes[i].src, o.kind, openFile, test)
		}
	}
	if *update {
		header := "# Probes of oracle.tsv that PTC-Lisp still answers wrongly, one a line:\n" +
			"# the outcome, a tab, the probe. Open defects, not documented differences:\n" +
			"# " + test + " fails when one of them passes (delete its line) or\n" +
			"# when a probe not listed fails. Written by go test ./lisp -run " + test + " -update\n"
		if err := os.WriteFile(openFile, []byte(header+strings.Join(stillOpen, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if testing.Verbose() {
		forms := make([]string, 0, len(byForm))
		for f := range byForm {
			forms = append(forms, f)
		}
		sort.Strings(forms)
		var b strings.Builder
		for _, f := range forms {
			fmt.Fprintf(&b, "%-28s %v\n", f, byForm[f])
		}
		for r, n := range byReason {
			fmt.Fprintf(&b, "known %5d  %s\n", n, r)
		}
		t.Logf("%d probes: %v\nby form:\n%s", len(probes), byKind, b.String())
	}
}

const interopOpenFile = "testdata/interopgrid/open.txt"

// loadOpenList reads an open list: the probes still failing, by program.
func loadOpenList(t *testing.T, path string) map[string]bool {
	t.Helper()
	open := map[string]bool{}
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return open
		}
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		_, src, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: no tab in %q", path, line)
		}
		open[src] = true
	}
	return open
}

// loadProbeFile reads an oracle file of probes, one a line: the program,
// a tab, and Clojure's answer; it holds at least that many probes.
func loadProbeFile(t *testing.T, path string, least int) []genProbe {
	t.Helper()
	var probes []genProbe
	for i, line := range readLines(t, path) {
		f := strings.SplitN(line, "\t", 3)
		if len(f) < 2 || (f[1] != "timeout" && len(f) != 3) {
			t.Fatalf("%s:%d: malformed line %q", path, i+1, line)
		}
		p := genProbe{src: f[0], kind: f[1]}
		if len(f) == 3 {
			// the oracles evaluate in the namespace genprobe, where a
			// program runs in user: a record a probe defines is the same
			p.text = strings.ReplaceAll(f[2], "#genprobe.", "#user.")
		}
		probes = append(probes, p)
	}
	if len(probes) < least {
		t.Fatalf("%s holds %d probes; its generator writes over %d", path, len(probes), least)
	}
	return probes
}

func judgeInteropProbe(p genProbe) genOutcome {
	o, res := runProbe(p)
	if res == nil {
		return o
	}
	got := o.got
	if o.kind == "pass" {
		return o
	}
	if reason := genprobeKnownReason(p, res); reason != "" {
		return genOutcome{kind: "known", got: got, reason: reason}
	}
	for _, k := range interopKnown {
		if k.match(p, res) {
			return genOutcome{kind: "known", got: got, reason: k.reason}
		}
	}
	// A form refused outright (a method the sandbox has not) with the
	// builtin that does its work named is what the interop table asks for,
	// whatever Clojure does with these arguments.
	if (o.kind == "refused" || o.kind == "wrong-class" && res.Err.Kind == validationError) && hintNamesBuiltin(p.src, res.Err) {
		return genOutcome{kind: "hinted", got: got}
	}
	return o
}

// hintNamesBuiltin: the refusal's hint calls a builtin (or special form)
// the probe does not, the one that does the same work. A hint listing the
// methods that run names no call and does not count.
func hintNamesBuiltin(src string, e *Error) bool {
	for _, m := range hintCallHeads.FindAllStringSubmatch(e.Hint, -1) {
		name := m[1]
		if strings.Contains(src, "("+name+" ") {
			continue
		}
		if _, ok := lookupFunction(name); ok {
			return true
		}
		if _, ok := builtins.statics[name]; ok {
			return true
		}
		if _, short, ok := strings.Cut(name, "/"); ok && builtins.inNS[name] != nil {
			return true
		} else if _, ok := lookupFunction(short); ok && strings.HasPrefix(name, "clojure.") {
			return true
		}
		if _, ok := specialForms[name]; ok {
			return true
		}
	}
	return false
}

// dateAsText: a probe passes a date's text where Java takes a LocalDate.
var dateAsText = regexp.MustCompile(`[^e] "2024-01-31"`)

// interopKnown are the documented differences of Java interop
// (docs/LANGUAGE.md, Java interop), each a class of probe and its reason.
var interopKnown = []struct {
	reason string
	match  func(p genProbe, res *Result) bool
}{
	{"a java.time value is the string Java's toString gives (docs/LANGUAGE.md), so a method of it takes that string too, and equals it",
		func(p genProbe, res *Result) bool {
			return res.Err == nil && dateAsText.MatchString(p.src)
		}},
}
