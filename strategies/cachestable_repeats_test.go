package strategies

import (
	"strings"
	"testing"
)

// TestEntryLinesWithoutRepeats: a run of lines one earlier entry shows,
// of repeatMinRunes or more, becomes one line naming that turn; a short
// run, a line no entry showed and a run that changes turns stay as they
// are, and a blank line inside a run belongs to it.
func TestEntryLinesWithoutRepeats(t *testing.T) {
	body := "Body: " + strings.Repeat("the job exited 0 and wrote nothing ", 3)
	digest := "Digest: sha256:" + strings.Repeat("ab", 32)
	seen := entryLines{}
	seen.add([]string{"=== ID: chat-1 ===\n" + body + "\n" + digest}, 4)
	seen.add([]string{"Total: 2\n" + strings.Repeat("x", 90)}, 5)
	for _, c := range []struct{ in, want string }{
		{"=== ID: chat-1 ===\n" + body + "\n" + digest, ";; (3 lines as printed in turn 4)"},
		{"new line\n" + body + "\n\n" + digest + "\n\nend", "new line\n;; (2 lines as printed in turn 4)\n\nend"},
		{"=== ID: chat-1 ===\nTotal: 2", "=== ID: chat-1 ===\nTotal: 2"},
		{body + "\n" + strings.Repeat("x", 90), ";; (1 line as printed in turn 4)\n;; (1 line as printed in turn 5)"},
		{body + " and more", body + " and more"},
	} {
		got := seen.withoutRepeats([]string{"first print", c.in})
		if len(got) != 2 || got[0] != "first print" || got[1] != c.want {
			t.Errorf("%q:\ngot  %q\nwant %q", c.in, got, c.want)
		}
	}
	in := []string{"nothing repeats"}
	if got := seen.withoutRepeats(in); &got[0] != &in[0] {
		t.Error("prints with no repeat were copied")
	}
}

// TestCacheStableRepeatedOutput: a turn that prints again a record an
// earlier turn printed shows it once in the record: the later entry names
// the turn that shows it, and the values stay in the prompt verbatim.
func TestCacheStableRepeatedOutput(t *testing.T) {
	opts, err := Normalize(RawOptions{SystemPrompt: strings.Repeat("system ", 2000)})
	if err != nil {
		t.Fatal(err)
	}
	record := "=== ID: chat-2240 ===\nBody: Responder U: 'The upstream extract is also on seven-day retention, so we cannot replay it.'\nDigest: sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"
	turns := []Turn{
		{Number: 1, Success: true, Prints: []string{record}},
		{Number: 2, Success: true, Prints: []string{"Checking again", record}},
		{Number: 3, Success: true, Prints: []string{"done"}},
	}
	resp, err := cacheStable{}.Render(&Request{Options: opts, Turns: turns})
	if err != nil {
		t.Fatal(err)
	}
	user := resp.Messages[1].Content
	if n := strings.Count(user, "sha256:a799f4812f06a8849241762072888b6e12c12da7159ecdf764918eede01f6d2f"); n != 1 {
		t.Errorf("the digest is shown %d times, want once\n%s", n, user)
	}
	if !strings.Contains(user, ";; turn 2\n;; Output:\nChecking again\n;; (3 lines as printed in turn 1)\n") {
		t.Errorf("turn 2's entry does not name turn 1 for its repeated lines\n%s", user)
	}
	// The same run with the record printed once: the repeat costs the
	// reference line only.
	once := append([]Turn{}, turns...)
	once[1].Prints = []string{"Checking again"}
	resp2, err := cacheStable{}.Render(&Request{Options: opts, Turns: once})
	if err != nil {
		t.Fatal(err)
	}
	if extra := resp.Stats.TokensAfter - resp2.Stats.TokensAfter; extra > 12 {
		t.Errorf("the repeated record costs %d tokens, want at most the reference line's", extra)
	}
}
