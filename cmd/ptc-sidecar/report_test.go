package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/cmd/ptc-sidecar/internal/chatlog"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/server"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// The report's test logs were written for these tests, in the shapes the
// providers' clients send (testdata/report):
//
//   - openai_requests.jsonl: an airline agent's Chat Completions request
//     bodies, one per call, each holding the conversation so far (content
//     null, a list of parts, tool messages with a name);
//   - anthropic_request.json: a coding agent's last Messages request body
//     (the system prompt as blocks, thinking, tool_use and tool_result
//     blocks, a tool result followed by the user's text).

func runReportCmd(t *testing.T, env reportEnv, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := reportCommand(args, &stdout, &stderr, env)
	return stdout.String(), stderr.String(), code
}

// row returns the figures of a strategy's row of the report: calls,
// refused, tokens, billed, bill ratio, recall, share losing.
func row(t *testing.T, out, label string) []float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(label) + ` +(\d+) +(\d+) +([\d,]+) +([\d,]+) +([\d.]+) +([\d.]+) +(\d+)%$`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no row %q in:\n%s", label, out)
	}
	var f []float64
	for _, s := range m[1:] {
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err != nil {
			t.Fatal(err)
		}
		f = append(f, v)
	}
	return f
}

func TestReportOpenAIRequestLog(t *testing.T) {
	out, stderr, code := runReportCmd(t, reportEnv{}, "testdata/report/openai_requests.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Four request bodies, each the one before and more: one conversation
	// of three calls.
	if !strings.Contains(out, "Chat conversations: 1 (3 calls, 3 of them with evidence: 5 values)") {
		t.Fatalf("header:\n%s", out)
	}
	raw := row(t, out, "raw history")
	if raw[0] != 3 || raw[5] != 1 || raw[6] != 0 {
		t.Fatalf("raw history row %v: want 3 calls, recall 1", raw)
	}
	// "Yes, please proceed." starts a new turn: seed 002's loop-slice
	// (window_only) sends it with the latest tool loop, led by the first
	// request (a kept part may not begin with the assistant's message), and
	// the cancellation loses the payment id read in the first loop (2 of 3
	// kept); the two calls before keep theirs. Mean (1 + 1 + 2/3) / 3.
	ls := row(t, out, "loop-slice window_only")
	if ls[0] != 3 || math.Abs(ls[5]-0.889) > 0.0005 || ls[6] != 33 {
		t.Fatalf("loop-slice window_only row %v: want recall 0.889, 33%% of calls losing", ls)
	}
	// The default form keeps every prompt and the earlier loop (too short
	// for a note to shorten): nothing is lost.
	if ls := row(t, out, "loop-slice"); ls[5] != 1 || ls[6] != 0 {
		t.Fatalf("loop-slice row %v: want recall 1", ls)
	}
	if ctr := row(t, out, "clear-tool-results"); ctr[5] != 1 {
		t.Fatalf("clear-tool-results keeps a short log whole: %v", ctr)
	}
	if strings.Contains(out, "lost evidence at") {
		t.Fatalf("examples listed without --examples:\n%s", out)
	}
	out, _, _ = runReportCmd(t, reportEnv{}, "--examples", "1", "testdata/report/openai_requests.jsonl")
	want := "loop-slice window_only lost evidence at:\n  testdata/report/openai_requests.jsonl, value 5, message 8: 1 of 3 values lost: \"credit_card_4421\"\n"
	if !strings.Contains(out, want) {
		t.Fatalf("no example %q in:\n%s", want, out)
	}
	if strings.Contains(out, "clear-tool-results lost") {
		t.Fatalf("an example for a strategy that lost nothing:\n%s", out)
	}
}

func TestReportAnthropicRequest(t *testing.T) {
	out, stderr, code := runReportCmd(t, reportEnv{}, "testdata/report/anthropic_request.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The Edit copies the path and the line it read two loops before; the
	// Read's path is the model's (the user said main.go).
	if !strings.Contains(out, "Chat conversations: 1 (3 calls, 1 of them with evidence: 2 values)") {
		t.Fatalf("header:\n%s", out)
	}
	if ls := row(t, out, "loop-slice window_only"); ls[5] != 0 || ls[6] != 100 {
		t.Fatalf("seed 002's loop-slice keeps only the Bash loop and the user's last text, losing both: %v", ls)
	}
	if ls := row(t, out, "loop-slice"); ls[5] != 1 {
		t.Fatalf("loop-slice keeps every prompt and the loops a note would not shorten: %v", ls)
	}
	if tb := row(t, out, "token-budget 8000"); tb[5] != 1 {
		t.Fatalf("token-budget 8000 keeps a short log whole: %v", tb)
	}
}

func TestReportReadsShapes(t *testing.T) {
	var logs chatlog.Logs
	f, err := os.Open("testdata/report/anthropic_request.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := logs.Read("a", f); err != nil {
		t.Fatal(err)
	}
	msgs := logs.Chats[0].Messages
	roles := ""
	for _, m := range msgs {
		roles += m.Role[:1]
	}
	// system, user, assistant (thinking + Read), tool, assistant (text +
	// Bash), tool, user ("Go on."), assistant (Edit), tool.
	if roles != "suatatuat" {
		t.Fatalf("roles %q, want suatatuat", roles)
	}
	if msgs[2].Reasoning != "I should read the file." || msgs[2].ToolCalls[0].Arguments != `{"file_path":"/src/app/main.go"}` {
		t.Fatalf("assistant message %+v", msgs[2])
	}
	if msgs[3].ToolCallID != "toolu_01" || !strings.Contains(msgs[3].Content, "hello, world") {
		t.Fatalf("tool result %+v", msgs[3])
	}

	// A JSONL of single messages is one conversation; the product's
	// tool-call shape and lowerCamelCase are read too.
	var lines chatlog.Logs
	jsonl := `{"role":"user","content":"find 12345"}
{"role":"assistant","toolCalls":[{"id":"a","name":"find","arguments":{"n":12345}}]}
{"role":"tool","toolCallId":"a","content":"found"}
`
	if err := lines.Read("l", strings.NewReader(jsonl)); err != nil {
		t.Fatal(err)
	}
	if len(lines.Chats) != 1 || len(lines.Chats[0].Messages) != 3 || lines.Chats[0].Messages[1].ToolCalls[0].Arguments != `{"n":12345}` || lines.Chats[0].Messages[2].ToolCallID != "a" {
		t.Fatalf("JSONL of messages read as %+v", lines.Chats)
	}
}

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"messages\": []}\n{\"foo\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runReportCmd(t, reportEnv{}, bad)
	if code != 1 || !strings.Contains(stderr, "bad.jsonl, value 2: an object with neither messages") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	badRole := filepath.Join(dir, "role.json")
	if err := os.WriteFile(badRole, []byte(`[{"role":"user","content":"hi"},{"role":"robot","content":"beep"},{"role":"assistant","tool_calls":[{"id":"x","function":{"name":"f","arguments":"{}"}}]}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code = runReportCmd(t, reportEnv{}, badRole); code != 1 || !strings.Contains(stderr, "history[1].") {
		t.Fatalf("a malformed message: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code = runReportCmd(t, reportEnv{}, filepath.Join(dir, "missing.json")); code != 1 {
		t.Fatalf("a missing file: exit %d, stderr %q", code, stderr)
	}
	if _, _, code = runReportCmd(t, reportEnv{}); code != 2 {
		t.Fatalf("no file: exit %d, want 2", code)
	}
	if _, stderr, code = runReportCmd(t, reportEnv{}, "--pricing", "cheap", "x.json"); code != 2 || !strings.Contains(stderr, "unknown pricing") {
		t.Fatalf("an unknown pricing: exit %d, stderr %q", code, stderr)
	}
}

// TestReportMatchesToMessages: the report's calls, tokens and bill for a
// strategy are the sums of what ToMessages returns for the same calls, on
// logs of each shape: the OpenAI request bodies and the Anthropic request
// the other tests read, and two shapes written for this test that no other
// test reads (an OpenAI log
// with a developer message, content parts in tool messages, parallel tool
// calls and a confirmation; an Anthropic log with a string system prompt,
// redacted thinking, parallel tool_use blocks, an error result and an
// image), and two with media counted by their provider's rule (an OpenAI
// gateway's logged calls, each a request and its reply, with a PNG
// screenshot and a WAV voice note; an Anthropic computer-use session whose
// tool results hold screenshots). Each log's reading is checked too: its calls and the values of
// its evidence.
func TestReportMatchesToMessages(t *testing.T) {
	for _, tc := range []struct {
		file     string
		calls    int
		evidence int    // calls with evidence
		value    string // a value the last call copied from the log
		provider string // --provider, and the requests' provider option
	}{
		{"openai_requests.jsonl", 3, 3, "NO6JO3", ""},
		{"anthropic_request.json", 3, 1, "/src/app/main.go", ""},
		{"openai_developer_parallel.json", 3, 3, "res-20931", ""},
		{"anthropic_parallel_errors.jsonl", 3, 3, "9f3c2ab71d0e", ""},
		{"openai_media_calls.jsonl", 3, 2, "job_55f0e1", ""},
		{"anthropic_screenshots.json", 4, 3, "1201", ""},
		// Sent to Anthropic: its screenshots counted by Anthropic's rule
		// with the default tokenizer, in the report as in ToMessages.
		{"anthropic_screenshots.json", 4, 3, "1201", strategies.ProviderAnthropic},
		// The shapes of TestReportNewShapes.
		{"openai_chat_shapes.json", 3, 2, "SUP-90417", ""},
		{"anthropic_server_tools.json", 3, 2, "8812", ""},
		{"openai_responses_items.jsonl", 3, 2, "ch_3PqM2a", ""},
		{"gateway_records.jsonl", 3, 3, "api-7f9c4d-p8zt1", ""},
		{"messy_messages.jsonl", 2, 2, "rest_20417", ""},
	} {
		t.Run(tc.file+" "+tc.provider, func(t *testing.T) {
			checkReportMatches(t, filepath.Join("testdata/report", tc.file), tc.calls, tc.evidence, tc.value, tc.provider)
		})
	}
}

// TestReportRealCodingSessions runs the report on the recorded coding-agent
// sessions of strategies/testdata/real-coding (real mini-swe-agent runs,
// each a Chat Completions request body of 33 to 106 calls, written for no
// test of the report), and checks its figures against ToMessages' on every
// call.
func TestReportRealCodingSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("325 calls through every configuration")
	}
	dir := "../../strategies/testdata/real-coding"
	for _, tc := range []struct {
		file     string
		calls    int
		evidence int
		value    string
	}{
		{"mini-swe-agent-django-11099.json", 42, 4, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"},
		{"mini-swe-agent-pydicom-901.json", 33, 1, "ls -la"},
		{"mini-swe-agent-sqlfluff-1625.json", 69, 4, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"},
		{"mini-swe-agent-astroid-1866.json", 75, 8, "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"},
		{"mini-swe-agent-django-15738.json", 106, 5, "cd /testbed && python -m pytest tests/migrations/test_operations.py::OperationTests::test_alter_unique_together -xvs 2>&1 | head -100"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if raceDetector && tc.file != "mini-swe-agent-pydicom-901.json" {
				// The report runs on one goroutine: the race detector
				// has nothing to find in the other logs' work.
				t.Skip("the same single-goroutine work as the pydicom log, several times slower under the race detector: runs without -race (make test)")
			}
			checkReportMatches(t, filepath.Join(dir, tc.file), tc.calls, tc.evidence, tc.value, "")
		})
	}
}

func checkReportMatches(t *testing.T, path string, calls, evidence int, value, provider string) {
	var logs chatlog.Logs
	file := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := logs.Read(file, f); err != nil {
		t.Fatal(err)
	}
	if len(logs.Chats) != 1 {
		t.Fatalf("read %d conversations, want 1", len(logs.Chats))
	}
	conv := logs.Chats[0].Messages
	withEvidence, last := 0, []strategies.Evidence(nil)
	for n := range conv {
		if ev := strategies.ChatEvidence(conv[:n], &conv[n]); len(ev) > 0 {
			withEvidence++
			last = ev
		}
	}
	found := false
	for _, e := range last {
		found = found || e.Value == value
	}
	if withEvidence != evidence {
		t.Errorf("%d calls with evidence, want %d", withEvidence, evidence)
	}
	if !found {
		t.Errorf("the last call's evidence %v lacks %q", last, value)
	}
	groups := reportGroups(t, &logs, provider)
	checkTalliesMatch(t, groups[0], [][]strategies.ChatMessage{conv}, provider)
	for _, tl := range groups[0].tallies[1:] {
		if tl.calls != calls {
			t.Errorf("%s: report %d calls, want %d", tl.label, tl.calls, calls)
		}
	}
}

// reportGroups runs the report on logs, priced as OpenAI's.
func reportGroups(t *testing.T, logs *chatlog.Logs, provider string) []*reportGroup {
	t.Helper()
	opts, err := newReportOptions(&reportFlags{pricing: "openai", provider: provider})
	if err != nil {
		t.Fatal(err)
	}
	groups, err := newReporter(opts).run(logs)
	if err != nil {
		t.Fatal(err)
	}
	return groups
}

// checkTalliesMatch checks that the report's figures for each strategy
// (calls, tokens, bill, evidence recall) are the sums, over the calls of
// convs, of what ToMessages returns for each call with the strategy's
// options: its stats, and the recall of the messages it returns.
func checkTalliesMatch(t *testing.T, g *reportGroup, convs [][]strategies.ChatMessage, provider string) {
	t.Helper()
	if g.sources != len(convs) {
		t.Errorf("the report counts %d conversations, want %d", g.sources, len(convs))
	}
	svc := server.New(server.Config{})
	for _, tl := range g.tallies[1:] {
		strategy, option, _ := strings.Cut(tl.label, " ")
		o := &ptcsidecarv1.Options{Strategy: strategy, Pricing: "openai", Provider: provider}
		if v, ok := strings.CutPrefix(option, "trigger "); ok {
			n, _ := strconv.Atoi(v)
			o.Trigger = ptrInt32(n)
		}
		if strategy == "token-budget" {
			n, _ := strconv.Atoi(option)
			o.MaxTokens = ptrInt32(n)
		}
		o.WindowOnly = option == "window_only"
		want := tally{label: tl.label}
		for _, conv := range convs {
			for n, m := range conv {
				if m.Role != strategies.RoleAssistant || len(m.ToolCalls) == 0 {
					continue
				}
				resp, err := svc.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{History: protoHistory(conv[:n]), Options: o})
				if err != nil {
					t.Fatalf("%s: %v", tl.label, err)
				}
				want.add("", int(resp.GetStats().GetTokensAfter()), resp.GetStats().GetBilledTokens(), strategies.ChatEvidence(conv[:n], &conv[n]), chatMessages(resp.GetMessages()))
			}
		}
		if tl.calls != want.calls || tl.tokens != want.tokens || math.Abs(tl.bill-want.bill) > 1e-6 ||
			tl.evidence != want.evidence || tl.values != want.values || tl.kept != want.kept || tl.losing != want.losing || math.Abs(tl.recall-want.recall) > 1e-9 {
			t.Errorf("%s: report %d calls, %d tokens, billed %.3f, %d of %d values kept (%d calls with evidence, %d losing); ToMessages %d calls, %d tokens, billed %.3f, %d of %d kept (%d, %d losing)",
				tl.label, tl.calls, tl.tokens, tl.bill, tl.kept, tl.values, tl.evidence, tl.losing, want.calls, want.tokens, want.bill, want.kept, want.values, want.evidence, want.losing)
		}
	}
}

func ptrInt32(n int) *int32 { v := int32(n); return &v }

func protoHistory(h []strategies.ChatMessage) []*ptcsidecarv1.ChatMessage {
	out := make([]*ptcsidecarv1.ChatMessage, len(h))
	for i, m := range h {
		pm := &ptcsidecarv1.ChatMessage{Role: m.Role, Content: m.Content, ToolCallId: m.ToolCallID, Reasoning: m.Reasoning, Name: m.Name, Source: m.Source, SenderId: m.SenderID}
		for _, tc := range m.ToolCalls {
			pm.ToolCalls = append(pm.ToolCalls, &ptcsidecarv1.ChatToolCall{Id: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
		}
		for _, p := range m.Parts { // the fields the logs' parts use
			x := p.Extras()
			pm.Parts = append(pm.Parts, &ptcsidecarv1.ContentPart{Type: p.Type, Text: p.Text, Signature: x.Signature,
				Data: x.Data, MediaType: x.MediaType, Url: x.URL, FileId: x.FileID, Detail: x.Detail})
		}
		out[i] = pm
	}
	return out
}

func TestReportRunRecord(t *testing.T) {
	out, stderr, code := runReportCmd(t, reportEnv{}, "testdata/trace_run.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "PTC-Lisp runs: 1 (3 calls") {
		t.Fatalf("header:\n%s", out)
	}
	full := row(t, out, "full")
	for _, name := range []string{"single-user-coalesced", "cache-stable"} {
		r := row(t, out, name)
		if r[0] != 3 || r[2] <= 0 || r[4] <= 0 {
			t.Fatalf("%s row %v", name, r)
		}
	}
	if full[4] != 1 {
		t.Fatalf("full is its own baseline: %v", full)
	}
}

func TestReportChartAndProgress(t *testing.T) {
	dir := t.TempDir()
	svg, page := filepath.Join(dir, "r.svg"), filepath.Join(dir, "r.html")
	_, stderr, code := runReportCmd(t, reportEnv{terminal: true}, "--svg", svg, "--html", page, "testdata/report/openai_requests.jsonl", "testdata/trace_run.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "100% of the logs, 6 calls") || !strings.Contains(stderr, "\r[") {
		t.Fatalf("no progress bar on a terminal: %q", stderr)
	}
	for _, file := range []string{svg, page} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, want := range []string{"<svg", "turn-aware (", "cache-stable (", "Chat conversations: bill against evidence recall", "PTC-Lisp runs: bill against"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", file, want)
			}
		}
		if strings.Contains(s, "<script") {
			t.Errorf("%s holds a script", file)
		}
	}
	if _, stderr, _ = runReportCmd(t, reportEnv{terminal: false}, "testdata/report/openai_requests.jsonl"); stderr != "" {
		t.Fatalf("a progress bar where stderr is no terminal: %q", stderr)
	}
}

func TestReportStdinAndRefused(t *testing.T) {
	// A system prompt longer than token-budget's 8,000 tokens: that form
	// refuses the call, the others send it.
	big := strings.Repeat("Policy line 4521 says nothing new. ", 1500)
	log := `{"messages": [{"role": "system", "content": "` + big + `"}, {"role": "user", "content": "look up order 88412"}, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "get", "arguments": "{\"order\": 88412}"}}]}, {"role": "tool", "tool_call_id": "a", "content": "ok"}]}`
	out, stderr, code := runReportCmd(t, reportEnv{stdin: strings.NewReader(log)}, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r := row(t, out, "token-budget 8000"); r[0] != 0 || r[1] != 1 {
		t.Fatalf("token-budget 8000 row %v: want the call refused", r)
	}
	if r := row(t, out, "token-budget 32000"); r[0] != 1 || r[1] != 0 || r[5] != 1 {
		t.Fatalf("token-budget 32000 row %v: want the call sent, its evidence kept", r)
	}
}

// --provider decides how the report counts media: the computer-use
// session's screenshots are counted by Anthropic's rule when the calls go
// to Anthropic, not by the rule of the tokenizer's provider (OpenAI's).
func TestReportProviderCountsMedia(t *testing.T) {
	tokens := func(args ...string) float64 {
		out, stderr, code := runReportCmd(t, reportEnv{}, append(args, "--no-progress", "testdata/report/anthropic_screenshots.json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return row(t, out, "loop-slice")[2]
	}
	if byTokenizer, byProvider := tokens(), tokens("--provider", "anthropic"); byTokenizer == byProvider {
		t.Errorf("loop-slice sends %v tokens with and without --provider anthropic: the screenshots are counted by one rule", byTokenizer)
	}
	if _, stderr, code := runReportCmd(t, reportEnv{}, "--provider", "bedrock", "x.json"); code != 2 || !strings.Contains(stderr, "provider") {
		t.Errorf("an unknown provider: exit %d, stderr %q", code, stderr)
	}
}

// TestReportNewShapes: what the logs of new shapes hold that no call is
// made of is counted, with its reason, on stderr and in the report, and
// the rest reported (TestReadNewShapes checks their reading).
func TestReportNewShapes(t *testing.T) {
	out, stderr, code := runReportCmd(t, reportEnv{}, "testdata/report/openai_responses_items.jsonl", "testdata/report/gateway_records.jsonl", "testdata/report/messy_messages.jsonl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"2: Responses item_reference items", "2: Responses web_search_call items", "1: choices after the first of a response with n > 1", "1: a value cut short by the end of its file (a log still being written?) (the first at testdata/report/messy_messages.jsonl, value 6 (byte 642))"} {
		if !strings.Contains(out, "  "+want) || !strings.Contains(stderr, "skipped "+want) {
			t.Errorf("%q is not in the report and on stderr:\n%s\n%s", want, out, stderr)
		}
	}
	if r := row(t, out, "raw history"); r[0] != 8 {
		t.Errorf("raw history row %v: want the 8 calls of the three logs", r)
	}
}

// Hostile logs end in a report or a clear error, never a crash: nesting
// millions deep, a value over -max-value-bytes (skipped and counted), tool
// call ids that all collide, a file of only blank lines.
func TestReportHostileLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deep := write("deep.json", strings.Repeat("[", 1<<20)+strings.Repeat("]", 1<<20))
	if _, stderr, code := runReportCmd(t, reportEnv{}, deep); code != 1 || !strings.Contains(stderr, "deep.json, value 1 (byte 0): not JSON") {
		t.Errorf("nesting a million deep: exit %d, %q", code, stderr)
	}
	var calls strings.Builder
	calls.WriteString(`{"messages":[{"role":"user","content":"go"}`)
	for k := 0; k < 40; k++ {
		fmt.Fprintf(&calls, `,{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get","arguments":"{\"n\":%d}"}}]},{"role":"tool","tool_call_id":"call_1","content":"value %d"}`, k, k*7919)
	}
	calls.WriteString("]}\n")
	big := `{"messages":[{"role":"user","content":"` + strings.Repeat("z", 20000) + `"}]}` + "\n"
	logs := write("calls.jsonl", big+calls.String())
	out, stderr, code := runReportCmd(t, reportEnv{}, "--max-value-bytes", "16384", logs)
	if code != 0 {
		t.Fatalf("colliding ids: exit %d: %s", code, stderr)
	}
	if r := row(t, out, "raw history"); r[0] != 40 || !strings.Contains(out, "1: a value over 16384 bytes (see -max-value-bytes)") {
		t.Errorf("colliding ids after a value over the limit: %v\n%s", r, out)
	}
	if _, stderr, code := runReportCmd(t, reportEnv{}, write("blank.jsonl", "\r\n\n  \n")); code != 1 || !strings.Contains(stderr, chatlog.ErrNoLogs.Error()) {
		t.Errorf("a file of blank lines: exit %d, %q", code, stderr)
	}
	if _, stderr, code := runReportCmd(t, reportEnv{}, "--max-value-bytes", "0", logs); code != 2 {
		t.Errorf("-max-value-bytes 0: exit %d, %q", code, stderr)
	}
}

// TestReportFreshSDKLogs runs the report on logs of real conversations
// written as SDKs and proxies record them, each call's request with its
// reply (internal/chatlog/testdata/real: an openai SDK log, a proxy's log
// of three conversations' calls interleaved, Anthropic Messages calls
// interleaved), and checks its figures against ToMessages' for the
// conversations the log's records hold, each record read alone: a record
// that another holds whole is an earlier call of the same conversation.
func TestReportFreshSDKLogs(t *testing.T) {
	for _, tc := range []struct {
		file          string
		conversations int
		calls         int
	}{
		{"openai_sdk_calls.jsonl", 1, 8},
		{"proxy_mixed_calls.jsonl", 3, 26},
		{"anthropic_sdk_calls.jsonl", 3, 26},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("internal/chatlog/testdata/real", tc.file)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var logs chatlog.Logs
			if err := logs.Read(tc.file, bytes.NewReader(raw)); err != nil {
				t.Fatal(err)
			}
			convs := recordConversations(t, raw)
			if len(convs) != tc.conversations {
				t.Fatalf("the records hold %d conversations, want %d", len(convs), tc.conversations)
			}
			g := reportGroups(t, &logs, "")[0]
			if g.tallies[0].calls != tc.calls {
				t.Errorf("%d calls, want %d", g.tallies[0].calls, tc.calls)
			}
			checkTalliesMatch(t, g, convs, "")
		})
	}
}

// recordConversations reads each line of a log of records alone, and
// keeps the conversations no other record holds whole.
func recordConversations(t *testing.T, raw []byte) [][]strategies.ChatMessage {
	t.Helper()
	var all [][]strategies.ChatMessage
	for i, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var one chatlog.Logs
		if err := one.Read(fmt.Sprint("line ", i+1), bytes.NewReader(line)); err != nil || len(one.Chats) != 1 {
			t.Fatalf("line %d: %v, %d conversations", i+1, err, len(one.Chats))
		}
		all = append(all, one.Chats[0].Messages)
	}
	var out [][]strategies.ChatMessage
	for i, c := range all {
		held := false
		for j, d := range all {
			if j != i && len(d) >= len(c) && reflect.DeepEqual(c, d[:len(c)]) && (len(d) > len(c) || j > i) {
				held = true
			}
		}
		if !held {
			out = append(out, c)
		}
	}
	return out
}

// A log interleaving more conversations than are held at once (66 agents'
// calls, one of each in turn) reports what the same records in
// conversation order do: a conversation given on early and continued is
// counted from where it was left.
func TestReportManyInterleavedConversations(t *testing.T) {
	raw, err := os.ReadFile("internal/chatlog/testdata/real/openai_sdk_calls.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	const agents = 66
	var interleaved, ordered strings.Builder
	copyOf := func(k int, line string) string { // agent k's own user id
		return strings.ReplaceAll(line, "mia_li_3668", fmt.Sprintf("mia_li_%d", 3668+k)) + "\n"
	}
	for i := range lines {
		for k := range agents {
			interleaved.WriteString(copyOf(k, lines[i]))
		}
	}
	for k := range agents {
		for i := range lines {
			ordered.WriteString(copyOf(k, lines[i]))
		}
	}
	figures := func(log string) []*tally {
		var logs chatlog.Logs
		if err := logs.Read("log", strings.NewReader(log)); err != nil {
			t.Fatal(err)
		}
		g := reportGroups(t, &logs, "")[0]
		if g.sources != agents {
			t.Errorf("%d conversations, want %d", g.sources, agents)
		}
		return g.tallies
	}
	got, want := figures(interleaved.String()), figures(ordered.String())
	for i := range want {
		g, w := got[i], want[i]
		if g.calls != w.calls || g.tokens != w.tokens || math.Abs(g.bill-w.bill) > 1e-6 || g.kept != w.kept || g.values != w.values || g.losing != w.losing {
			t.Errorf("%s: interleaved %d calls, %d tokens, %d of %d values kept; in order %d calls, %d tokens, %d of %d", w.label, g.calls, g.tokens, g.kept, g.values, w.calls, w.tokens, w.kept, w.values)
		}
	}
	if want[0].calls != agents*8 {
		t.Errorf("%d calls, want %d", want[0].calls, agents*8)
	}
}

// The progress bar tells how much of the work is done: a file of one long
// conversation is read whole before its calls run, and the bar then moves
// with its calls (weighted by the history each renders), never back, not
// at 100% while calls remain.
func TestReportProgressOfOneLongConversation(t *testing.T) {
	conv := longConversation(60)
	type call struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type message struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCalls  []call `json:"tool_calls,omitempty"`
		ToolCallID string `json:"tool_call_id,omitempty"`
	}
	var msgs []message
	for _, m := range conv.Messages {
		mm := message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			mm.ToolCalls = append(mm.ToolCalls, call{tc.ID, tc.Name, tc.Arguments})
		}
		msgs = append(msgs, mm)
	}
	body, err := json.Marshal(map[string]any{"messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "session.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runReportCmd(t, reportEnv{terminal: true}, file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	re := regexp.MustCompile(`\] +(\d+)% of the logs, (\d+) calls`)
	last, below := -1, 0
	for _, m := range re.FindAllStringSubmatch(stderr, -1) {
		pct, _ := strconv.Atoi(m[1])
		calls, _ := strconv.Atoi(m[2])
		if pct < last {
			t.Fatalf("the bar went back from %d%% to %d%%: %q", last, pct, stderr)
		}
		if pct == 100 && calls < 60 {
			t.Fatalf("100%% drawn after %d of 60 calls", calls)
		}
		if pct < 100 && calls > 0 {
			below++
		}
		last = pct
	}
	if below < 10 || last != 100 {
		t.Fatalf("%d draws while the calls ran, the last at %d%%: %q", below, last, stderr)
	}
}
