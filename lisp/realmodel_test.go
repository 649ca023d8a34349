package lisp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// The recorded agent runs in testdata/realmodel are programs a real model
// (deepseek-v3.2) wrote, turn by turn, against a PTC-Lisp runtime that ran
// them; README.md there says where they come from and how they were
// extracted. The replay runs each run's programs in order, as the sidecar
// would: memory travels through its wire form between turns, *1..*3 carry
// the earlier results, and the evidence tools answer what the recorded tools
// answered.

const realModelDir = "testdata/realmodel"

// realModelFloor is how many of the 109 recorded programs run here at least
// as well as they ran when recorded: all of them. The replay fails below it.
const realModelFloor = 109

// realModelKnownFailures are the programs that fail here although the
// recorded runtime ran them, each with its cause (README.md has the
// detail). Any other failure fails the test; a listed program that passes
// is reported so that its entry can go.
var realModelKnownFailures = map[string]string{}

type recordedProgram struct {
	File          string `json:"file"`
	Recorded      string `json:"recorded"` // "ok", "returned" or "error"
	RecordedError string `json:"recorded_error"`
	SHA256        string `json:"sha256"`
	Published     bool   `json:"published"` // the run published this program's returned value
	source        string
}

type recordedRun struct {
	Run      string            `json:"run"`
	Incident string            `json:"incident"`
	Programs []recordedProgram `json:"programs"`
}

// programOutcome is what the replay saw for one program.
type programOutcome struct {
	id            string // run/file
	recorded      string
	recordedError string
	err           *lisp.Error
	returned      bool
	trailing      bool // the program closes more brackets than it opens, at its end
	warnings      []lisp.Warning
	report        string // for a returned value: how it differs from the published report, "" when equal
}

// ok reports whether the program ran at least as well as it did when
// recorded: a program the recorded runtime failed may fail or succeed.
func (o programOutcome) ok() bool {
	if o.err != nil {
		return o.recorded == "error"
	}
	return o.recorded != "returned" || o.returned
}

func TestRecordedModelPrograms(t *testing.T) {
	runs := loadRecordedRuns(t)
	var outcomes []programOutcome
	for _, run := range runs {
		outcomes = append(outcomes, replayRecordedRun(t, run)...)
	}

	passed, trailing := 0, 0
	for _, o := range outcomes {
		if o.trailing {
			trailing++
			if !hasUnmatchedCloseWarning(o.warnings) && o.err == nil {
				t.Errorf("%s: ran with a stray closing bracket but no %s warning", o.id, lisp.WarningUnmatchedClose)
			}
		}
		if o.err != nil && string(o.err.Kind) == "parse_error" && o.recorded != "error" {
			t.Errorf("%s: parse error the recorded runtime did not have: %v", o.id, o.err)
		}
		cause, known := realModelKnownFailures[o.id]
		switch {
		case o.ok() && o.report != "":
			t.Errorf("%s: returned a report that differs from the one the run published: %s", o.id, o.report)
		case o.ok():
			passed++
			if known {
				t.Logf("%s: now runs as recorded; remove it from realModelKnownFailures (%s)", o.id, cause)
			}
			switch {
			case o.recorded == "error" && o.err == nil:
				t.Logf("%-40s ok, where the recorded runtime failed (%s)", o.id, o.recordedError)
			case o.recorded == "error":
				t.Logf("%-40s fails as recorded (%s): %v", o.id, o.recordedError, o.err)
			default:
				t.Logf("%-40s ok", o.id)
			}
		case known:
			t.Logf("%-40s fails (known: %s): %v", o.id, cause, o.err)
		default:
			t.Errorf("%s: recorded %s, replay failed: %v", o.id, o.recorded, o.err)
		}
	}
	t.Logf("%d programs in %d runs: %d run as recorded, %d end with a stray closing bracket",
		len(outcomes), len(runs), passed, trailing)
	if passed < realModelFloor {
		t.Errorf("%d programs run as recorded, below the floor of %d", passed, realModelFloor)
	}
}

func hasUnmatchedCloseWarning(ws []lisp.Warning) bool {
	return slices.ContainsFunc(ws, func(w lisp.Warning) bool { return w.Type == lisp.WarningUnmatchedClose })
}

// replayRecordedRun evaluates one run's programs in order.
func replayRecordedRun(t *testing.T, run recordedRun) []programOutcome {
	t.Helper()
	host := loadEvidenceHost(t, run.Incident)
	tools := []string{"evidence.list_sources", "evidence.search", "evidence.get"}
	prelude := loadEvidencePrelude(t, tools)
	var previous []lisp.Value
	var out []programOutcome
	for _, p := range run.Programs {
		o := programOutcome{id: run.Run + "/" + p.File, recorded: p.Recorded, recordedError: p.RecordedError,
			trailing: endsWithStrayClosers(p.source)}
		res, err := lisp.Eval(context.Background(), mapEvidenceNamespace(p.source), lisp.Env{
			Prelude: prelude, Tools: tools, Host: host, PreviousResults: previous, TurnNumber: len(out) + 1,
		})
		if err != nil {
			t.Fatalf("%s: Go error %v", o.id, err)
		}
		o.err, o.returned, o.warnings = res.Err, res.Returned, res.Warnings
		if res.Err == nil && res.Returned && p.Published {
			o.report = compareWithPublishedReport(t, run.Run, res.Value)
		}
		out = append(out, o)
		if res.Err != nil {
			continue
		}
		// The sidecar is stateless: memory reaches the next turn as wire
		// bindings, so the replay sends it through that form too.
		prelude, err = lisp.DecodeMemory(context.Background(), res.Memory.Encode())
		if err != nil {
			t.Fatalf("%s: memory does not load back: %v", o.id, err)
		}
		previous = append([]lisp.Value{res.Value}, previous...)
		previous = previous[:min(len(previous), 3)]
	}
	return out
}

// compareWithPublishedReport checks a returned value against the report
// the recorded run published, as JSON: the final program's answer is only
// right if every tool answer, definition and builtin on the way was.
func compareWithPublishedReport(t *testing.T, run string, v lisp.Value) string {
	t.Helper()
	var want any
	readJSONFile(t, filepath.Join(realModelDir, "reports", run+".json"), &want)
	text, err := lisp.EncodeJSON(v)
	if err != nil {
		return fmt.Sprintf("the value has no JSON form: %v", err)
	}
	var got any
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		return fmt.Sprintf("EncodeJSON wrote invalid JSON: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		return "got " + text
	}
	return ""
}

func loadRecordedRuns(t *testing.T) []recordedRun {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(realModelDir, "runs", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no recorded runs under %s: %v", realModelDir, err)
	}
	var runs []recordedRun
	for _, dir := range dirs {
		var run recordedRun
		readJSONFile(t, filepath.Join(dir, "run.json"), &run)
		for i := range run.Programs {
			p := &run.Programs[i]
			b, err := os.ReadFile(filepath.Join(dir, p.File))
			if err != nil {
				t.Fatal(err)
			}
			p.source = string(b)
			if got := sha256Hex(b); got != p.SHA256 {
				t.Fatalf("%s/%s: sha256 %s, run.json says %s: the program is no longer verbatim", run.Run, p.File, got, p.SHA256)
			}
		}
		runs = append(runs, run)
	}
	return runs
}

func loadEvidencePrelude(t *testing.T, tools []string) *lisp.Memory {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(realModelDir, "incident_evidence.lisp"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := lisp.Eval(context.Background(), string(src), lisp.Env{Tools: tools})
	if err != nil || res.Err != nil {
		t.Fatalf("incident_evidence.lisp: %v %v", err, res.Err)
	}
	mem, err := lisp.DecodeMemory(context.Background(), res.Memory.Encode())
	if err != nil {
		t.Fatalf("incident_evidence.lisp does not load back from memory: %v", err)
	}
	return mem
}

// mapEvidenceNamespace rewrites incident.evidence/name, the recorded
// runtime's namespace for the evidence API, to user/name, where the replay
// defines it. Strings, comments and regex literals are left alone, so the
// rest of the program reaches the reader byte for byte.
func mapEvidenceNamespace(src string) string {
	const from, to = "incident.evidence/", "user/"
	var b strings.Builder
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '"':
			j := stringEnd(src, i)
			b.WriteString(src[i:j])
			i = j
		case c == ';':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			b.WriteString(src[i : i+j])
			i += j
		case strings.HasPrefix(src[i:], from) && (i == 0 || strings.IndexByte(" \t\r\n,([{'`@#^~", src[i-1]) >= 0):
			b.WriteString(to)
			i += len(from)
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// stringEnd returns the index just past the string literal opening at i
// (or the end of src when it is not closed).
func stringEnd(src string, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// endsWithStrayClosers reports whether src closes more brackets than it
// opens and nothing but closers, blanks and comments follows the first
// unmatched one: the habit the reader forgives. It counts on its own so the
// measure does not depend on the reader under test.
func endsWithStrayClosers(src string) bool {
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			i = stringEnd(src, i) - 1
		case ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case '\\':
			i++ // a character literal such as \(
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return onlyClosersLeft(src[i+1:])
			}
		}
	}
	return false
}

func onlyClosersLeft(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ')', ']', '}', ' ', '\t', '\r', '\n', ',':
		case ';':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			return false
		}
	}
	return true
}

// evidenceHost answers the evidence tools from one incident's recorded
// evidence: the list_sources answer as recorded, every record as the get
// tool returned it, and the unfiltered search as the summaries of all
// records in recorded order. A search with a filter has no recorded answer
// and fails the call rather than guess the server's matching.
type evidenceHost struct {
	incident    string
	listSources lisp.Value
	records     []map[string]lisp.Value // body, content_digest, evidence_id, observed_at, source, title
	values      []lisp.Value            // each record as one map, keys in recorded order
}

func (h *evidenceHost) CallTool(_ context.Context, name string, args lisp.Value) (lisp.Value, error) {
	m, ok := args.(*lisp.Map)
	if !ok {
		return nil, fmt.Errorf("%s: expected an argument map, got %s", name, lisp.Repr(args))
	}
	arg := func(k string) (lisp.Value, bool) { return m.Get(lisp.String(k)) }
	if id, _ := arg("incident_id"); id != lisp.Value(lisp.String(h.incident)) {
		return nil, fmt.Errorf("%s: unknown incident_id %s", name, lisp.Repr(id))
	}
	switch name {
	case "evidence.list_sources":
		return h.listSources, nil
	case "evidence.search":
		for _, k := range []string{"query", "source", "limit"} {
			if v, ok := arg(k); ok {
				return nil, fmt.Errorf("evidence.search with %s %s: the replay holds only the unfiltered search", k, lisp.Repr(v))
			}
		}
		summaries := make([]lisp.Value, len(h.records))
		for i, r := range h.records {
			summaries[i] = stringMap("content_digest", r["content_digest"], "evidence_id", r["evidence_id"],
				"observed_at", r["observed_at"], "source", r["source"], "title", r["title"])
		}
		return stringMap("incident_id", lisp.String(h.incident), "matched", lisp.Int(len(h.records)),
			"records", lisp.NewVector(summaries), "truncated", lisp.Bool(false)), nil
	case "evidence.get":
		id, _ := arg("evidence_id")
		for i, r := range h.records {
			if r["evidence_id"] == id {
				return stringMap("evidence_id", id, "found", lisp.Bool(true), "record", h.values[i]), nil
			}
		}
		return stringMap("evidence_id", id, "found", lisp.Bool(false)), nil
	}
	return nil, fmt.Errorf("no such tool %s", name)
}

// stringMap builds a map with string keys, the shape the recorded runtime
// gave decoded JSON.
func stringMap(kv ...any) *lisp.Map {
	b := lisp.NewMapBuilder(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		b.Set(lisp.String(kv[i].(string)), kv[i+1].(lisp.Value))
	}
	return b.Map()
}

func loadEvidenceHost(t *testing.T, incident string) *evidenceHost {
	t.Helper()
	path := filepath.Join(realModelDir, "evidence", incident+".json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	v, err := jsonToValue(dec)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	top := v.(*lisp.Map)
	h := &evidenceHost{incident: incident}
	if id, _ := top.Get(lisp.String("incident_id")); id != lisp.Value(lisp.String(incident)) {
		t.Fatalf("%s: incident_id %s", path, lisp.Repr(id))
	}
	h.listSources, _ = top.Get(lisp.String("list_sources"))
	recs, _ := top.Get(lisp.String("records"))
	for _, r := range recs.(*lisp.Vector).Elems() {
		fields := map[string]lisp.Value{}
		for _, e := range r.(*lisp.Map).Entries() {
			fields[string(e.Key.(lisp.String))] = e.Val
		}
		h.records = append(h.records, fields)
		h.values = append(h.values, r)
	}
	return h
}

// jsonToValue decodes one JSON value keeping object keys as strings, in
// their order in the file.
func jsonToValue(dec *json.Decoder) (lisp.Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok := tok.(type) {
	case nil:
		return lisp.Nil, nil
	case bool:
		return lisp.Bool(tok), nil
	case string:
		return lisp.String(tok), nil
	case json.Number:
		if n, err := tok.Int64(); err == nil {
			return lisp.Int(n), nil
		}
		f, err := tok.Float64()
		return lisp.Float(f), err
	case json.Delim:
		switch tok {
		case '[':
			var elems []lisp.Value
			for dec.More() {
				e, err := jsonToValue(dec)
				if err != nil {
					return nil, err
				}
				elems = append(elems, e)
			}
			_, err := dec.Token()
			return lisp.NewVector(elems), err
		case '{':
			b := lisp.NewMapBuilder(0)
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := jsonToValue(dec)
				if err != nil {
					return nil, err
				}
				b.Set(lisp.String(k.(string)), v)
			}
			_, err := dec.Token()
			return b.Map(), err
		}
	}
	return nil, errors.New("unexpected JSON token")
}

func readJSONFile(t *testing.T, path string, into any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
