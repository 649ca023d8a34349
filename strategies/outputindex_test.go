package strategies

import (
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"strconv"
	"strings"
	"testing"
)

// The identifiers of printed text: quoted strings without white space,
// unquoted tokens of 8 or more characters mixing letters and digits but a
// time of day alone; prose, short tokens and plain numbers are left out,
// and each is listed once.
func TestIDListText(t *testing.T) {
	l := newIDList(1000, nil)
	l.text(`2026-01-23T10:05:00Z - chat - logs are gone; {"source" "logs", "digest" "sha256:4faba222", "n" 412093, "note" "two words"}`)
	l.text(`again 2026-01-23T10:05:00Z, ticket T-1001 and INC-1101: done at 10:05:00Z, not 23:59:60.5Z.`)
	want := "2026-01-23T10:05:00Z source logs digest sha256:4faba222 note INC-1101"
	if got := l.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	for tok, want := range map[string]bool{"09:11:47Z": true, "23:59:60.5Z": true, "9:05Z": true, "2026-01-23T10:05:00Z": false, "10:05:00": false, "sha256:1:2Z": false, "Z": false} {
		if got := timeOfDay(tok); got != want {
			t.Errorf("timeOfDay(%q) = %v, want %v", tok, got, want)
		}
	}
}

// A list stops at its bound and says so; once full it takes nothing more,
// so a list made from more text begins with the list made from less.
func TestIDListBound(t *testing.T) {
	l := newIDList(40, nil)
	l.text(`"alpha-0001" "beta-0002" "gamma-0003" "delta-0004" "eps"`)
	got := l.String()
	if got != "alpha-0001 beta-0002 gamma-0003 ..." {
		t.Errorf("got %q", got)
	}
}

// A cut output lists what its excerpt, the prompt before the record and
// earlier entries do not show; an output shown whole lists nothing; the
// excerpt gives up room to the list.
func TestCutOutput(t *testing.T) {
	var lines []string
	for i := range 120 {
		lines = append(lines, "record "+strings.Repeat("x", 20)+" evidence_id deploy-"+string(rune('a'+i%26))+"0440 observed 2026-01-1"+string(rune('0'+i%10))+"T02:14:00Z")
	}
	earlier := map[string]bool{"deploy-b0440": true}
	known := knownIdentifiers("the data names deploy-c0440")
	shown, rest, ids := cutOutput(lines, lines, known, earlier, Pricing{ReadRate: 0.1, WriteRate: 1.25})
	if len(rest) == 0 || ids == "" {
		t.Fatalf("a long output is not cut or lists nothing: %d lines left out, list %q", len(rest), ids)
	}
	text := strings.Join(shown, "\n")
	for _, id := range strings.Fields(strings.TrimSuffix(ids, " ...")) {
		if strings.Contains(text, id) || earlier[id] || known[id] {
			t.Errorf("%s is listed though shown already", id)
		}
	}
	for _, want := range []string{"deploy-z0440", "2026-01-19T02:14:00Z"} {
		if !strings.Contains(ids+text, want) {
			t.Errorf("%s is neither shown nor listed: %q", want, ids)
		}
	}
	if n := len([]rune(text)); n >= entryExcerptRunes {
		t.Errorf("the excerpt keeps %d characters beside a list", n)
	}
	// An output of 1,300 characters whose excerpt and list would save too
	// little of its room to pay for writing the list is shown whole where
	// reads are cheap, and cut where they cost what fresh input does; a
	// longer one is cut where reads are cheap too.
	var medium []string
	for i := range 10 {
		medium = append(medium, "the nightly job wrote its file and reported success to the scheduler, as it does every night, nothing else at 2026-01-1"+strconv.Itoa(i)+"T02:14:00Z")
	}
	anthropic, none := Pricing{ReadRate: 0.1, WriteRate: 1.25}, Pricing{ReadRate: 1, WriteRate: 1}
	if shown, rest, ids := cutOutput(medium, medium, nil, map[string]bool{}, anthropic); len(rest) != 0 || ids != "" || len(shown) != len(medium) {
		t.Errorf("anthropic: an output of 1,300 characters is cut (%d lines left out, list %q)", len(rest), ids)
	}
	if _, rest, ids := cutOutput(medium, medium, nil, map[string]bool{}, none); len(rest) == 0 || ids == "" {
		t.Errorf("none: an output of 1,300 characters is not cut (%d lines left out, list %q)", len(rest), ids)
	}
	if _, rest, _ := cutOutput(lines[:20], lines[:20], known, earlier, anthropic); len(rest) == 0 {
		t.Errorf("anthropic: an output of 1,600 characters is shown whole")
	}
	short := []string{"only 2026-01-19T02:14:00Z"}
	if _, rest, ids := cutOutput(short, short, nil, map[string]bool{}, Pricing{ReadRate: 0.1, WriteRate: 1.25}); len(rest) != 0 || ids != "" {
		t.Errorf("a short output is cut (%d) or lists %q", len(rest), ids)
	}
}

// A summary's list begins with the list of any summary of fewer turns, so
// a re-base reads it from the cache; it leaves out what the prompt before
// the record shows, it lists what a turn that printed nothing returned, and
// it is kept, at half its length at most, under every pricing.
func TestSummaryIndexes(t *testing.T) {
	result, err := lisp.ParseEDN(`["tickets" "alerts" "known-source"]`, 0)
	if err != nil {
		t.Fatal(err)
	}
	turns := []Turn{
		{Success: true, Prints: []string{`{"evidence_id" "deploy-0440" "digest" "sha256:4faba222"}`}},
		{Success: false, Prints: []string{`"failed-turn-value"`}},
		{Success: true, Prints: []string{`observed 2026-01-23T10:05:00Z by "deploy-0440" and "known-source"`}},
		{Success: true, Result: result},
	}
	anthropic, _ := resolvePricing("anthropic", nil, nil)
	o := &Options{Pricing: anthropic, SampleLimit: 3, SamplePrintableLimit: 80}
	lists := summaryIndexes(turns, knownIdentifiers(`the data names "known-source"`), o)
	first := "evidence_id deploy-0440 digest sha256:4faba222"
	want := []string{"", first, first, first + " 2026-01-23T10:05:00Z", first + " 2026-01-23T10:05:00Z tickets alerts"}
	for n := range lists {
		if lists[n] != want[n] {
			t.Errorf("%d turns: got %q, want %q", n, lists[n], want[n])
		}
		if n > 0 && !strings.HasPrefix(lists[n], lists[n-1]) {
			t.Errorf("%d turns: %q does not begin with %q", n, lists[n], lists[n-1])
		}
	}
	for _, name := range PricingNames() {
		p, _ := resolvePricing(name, nil, nil)
		if got, most := summaryIndexBound(p), summaryIndexChars; got < most/2 || got > most {
			t.Errorf("%s: the summary's list holds %d characters, want %d to %d", name, got, most/2, most)
		}
	}
	openai, _ := resolvePricing("openai", nil, nil)
	o.Pricing = openai
	if got := summaryIndexes(turns, knownIdentifiers(`the data names "known-source"`), o)[3]; got != want[3] {
		t.Errorf("under openai the summary lists %q, want %q", got, want[3])
	}
}

// A list looks at maxIDCandidates tokens at most, even when each is
// skipped, so a huge output costs a bounded time.
func TestIDListCandidates(t *testing.T) {
	var b strings.Builder
	for i := range 3 * maxIDCandidates {
		b.WriteString(`"id-` + strconv.Itoa(i) + `" `)
	}
	looked := 0
	l := newIDList(1<<20, func(string) bool { looked++; return true })
	l.text(b.String())
	if looked != maxIDCandidates || !l.full {
		t.Errorf("looked at %d candidates (full %v), want %d", looked, l.full, maxIDCandidates)
	}
}
