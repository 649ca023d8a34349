package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/cmd/ptc-sidecar/internal/chatlog"
	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/server"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

func init() {
	registerCommand(command{
		name:    "report",
		summary: "what each strategy would send, bill and take away from the model on your own logs (FILE...)",
		run:     runReport,
	})
}

// reportEnv is what the report command reads from its surroundings, so
// that tests can stand in for a terminal.
type reportEnv struct {
	stdin    io.Reader
	terminal bool // stderr is a terminal: draw the progress bar
}

func runReport(args []string, stdout, stderr io.Writer) int {
	return reportCommand(args, stdout, stderr, reportEnv{stdin: os.Stdin, terminal: isTerminal(os.Stderr)})
}

type reportFlags struct {
	pricing    string
	readRate   float64
	writeRate  float64
	tokenizer  string
	provider   string
	html, svg  string
	setRates   map[string]bool
	noProgress bool
	examples   int
	maxValue   int
}

func newReportFlagSet(f *reportFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.pricing, "pricing", strategies.DefaultPricing, "`preset` the bills are priced with: "+strings.Join(strategies.PricingNames(), ", "))
	fs.Float64Var(&f.readRate, "cache-read-rate", 0, "price of a token read from the cache, 0..1 times a fresh input token's; overrides the preset's")
	fs.Float64Var(&f.writeRate, "cache-write-rate", 0, "price of a token written to the cache, 0..10 times a fresh input token's; overrides the preset's")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "tokenizer of the token figures (default "+strategies.DefaultTokenizer+")")
	fs.StringVar(&f.provider, "provider", "", "`provider` the calls go to ("+strategies.ProviderOpenAI+", "+strategies.ProviderAnthropic+", "+strategies.ProviderGemini+"): its message rules, and its rule for counting images, audio and documents (default: rules every provider accepts; media by the tokenizer's provider)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML page with the tables and a chart of bill against recall to `FILE`")
	fs.StringVar(&f.svg, "svg", "", "also write the chart of bill against recall as an SVG image to `FILE`")
	fs.BoolVar(&f.noProgress, "no-progress", false, "never draw the progress bar (it is drawn only when stderr is a terminal)")
	fs.IntVar(&f.examples, "examples", 0, "after each table, list the first `N` calls of each strategy that lost evidence, with the values lost")
	fs.IntVar(&f.maxValue, "max-value-bytes", chatlog.DefaultMaxValueBytes, "skip (and count) a JSON value, a line of JSON Lines or a whole JSON file, larger than `N` bytes; it is read through, never held")
	return fs
}

func reportCommand(args []string, stdout, stderr io.Writer, env reportEnv) int {
	var f reportFlags
	fs := newReportFlagSet(&f)
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printReportUsage(stdout, fs)
		return 0
	}
	if err == nil && len(files) == 0 {
		err = errors.New("want at least one FILE (or - for stdin)")
	}
	var opts reportOptions
	if err == nil {
		f.setRates = map[string]bool{}
		fs.Visit(func(fl *flag.Flag) { f.setRates[fl.Name] = true })
		opts, err = newReportOptions(&f)
	}
	if err == nil && f.examples < 0 {
		err = fmt.Errorf("invalid value %d for flag -examples: want 0 or more", f.examples)
	}
	if err == nil && f.maxValue <= 0 {
		err = fmt.Errorf("invalid value %d for flag -max-value-bytes: want 1 or more", f.maxValue)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar report: %v\nRun 'ptc-sidecar report -h' for the flags.\n", err)
		return 2
	}
	opts.examples = f.examples
	rp := newReporter(opts)
	if env.terminal && !f.noProgress {
		rp.progress = &progressBar{w: stderr, total: filesSize(files)}
	}
	// The files are read one conversation at a time, each run as it is
	// read, so that memory holds the largest conversation, not the logs.
	logs := chatlog.Logs{Chat: rp.addChat, RunRecord: rp.addRun, MaxValueBytes: f.maxValue}
	for _, name := range files {
		if err := readLogFile(&logs, name, env.stdin, rp.progress); err != nil {
			if rp.progress != nil {
				rp.progress.done()
			}
			fmt.Fprintf(stderr, "ptc-sidecar report: %v\n", err)
			return 1
		}
	}
	if rp.progress != nil {
		rp.progress.finish()
	}
	for _, sk := range logs.Skipped {
		fmt.Fprintf(stderr, "ptc-sidecar report: skipped %d: %s (the first at %s)\n", sk.Count, sk.Reason, sk.First)
	}
	groups := rp.groups()
	if len(groups) == 0 {
		fmt.Fprintf(stderr, "ptc-sidecar report: %v\n", chatlog.ErrNoLogs)
		return 1
	}
	var text strings.Builder
	for i, g := range groups {
		if i > 0 {
			text.WriteString("\n")
		}
		g.writeTable(&text, opts.pricing)
	}
	writeSkipped(&text, logs.Skipped)
	if _, err := io.WriteString(stdout, text.String()); err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar report: %v\n", err)
		return 1
	}
	for _, out := range []struct {
		file string
		data func() string
	}{
		{f.svg, func() string { return chartSVG(groups) }},
		{f.html, func() string { return reportHTML(groups, text.String()) }},
	} {
		if out.file == "" {
			continue
		}
		if err := os.WriteFile(out.file, []byte(out.data()), 0o644); err != nil {
			fmt.Fprintf(stderr, "ptc-sidecar report: %v\n", err)
			return 1
		}
	}
	return 0
}

func readLogFile(logs *chatlog.Logs, name string, stdin io.Reader, p *progressBar) error {
	if name == "-" {
		return logs.Read("stdin", stdin)
	}
	fh, err := os.Open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	return logs.Read(name, &countingReader{fh, p})
}

// filesSize is the bytes of files, 0 when one is stdin or not a regular
// file (the progress bar then draws nothing).
func filesSize(files []string) int64 {
	var total int64
	for _, name := range files {
		st, err := os.Stat(name)
		if name == "-" || err != nil || !st.Mode().IsRegular() {
			return 0
		}
		total += st.Size()
	}
	return total
}

// countingReader counts the bytes read of the logs for the progress bar.
type countingReader struct {
	r io.Reader
	p *progressBar
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if c.p != nil {
		c.p.read += int64(n)
	}
	return n, err
}

// writeSkipped writes what the logs held that the report left out, and why.
func writeSkipped(w io.Writer, skipped []chatlog.Skip) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "\nLeft out of the logs:\n")
	for _, sk := range skipped {
		fmt.Fprintf(w, "  %d: %s (the first at %s)\n", sk.Count, sk.Reason, sk.First)
	}
}

func printReportUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: ptc-sidecar report [flags] FILE...\n\n"+
		"Runs every strategy on every call of your own logs and prints, per strategy, the tokens it\n"+
		"sends, its bill with prompt caching and its evidence recall: the share of the values the\n"+
		"model's next call copied from its context that the compressed prompt still holds.\n\n"+
		"FILE (- for stdin) holds JSON or JSON Lines: OpenAI Chat Completions message lists or request\n"+
		"bodies, OpenAI Responses request bodies, Anthropic Messages request bodies, logged calls (a\n"+
		"request with its reply beside it), the product's ChatMessage conversations, or PTC-Lisp run\n"+
		"records (a RenderTraceRequest as JSON). Each assistant message with tool calls, or each\n"+
		"program of a run, is one call; a log of one request per call, its conversations interleaved\n"+
		"or not, counts each call once. What no call is made of (Responses reasoning and built-in tool\n"+
		"items, a last line cut short, a value over -max-value-bytes) is counted, with its reason, on\n"+
		"stderr and in the report. Exits 2 on bad flags, 1 on a file it cannot read.\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// reportOptions are the settings every strategy of the report runs with.
type reportOptions struct {
	raw      strategies.RawOptions // pricing, tokenizer and provider
	pricing  strategies.Pricing
	examples int // calls that lost evidence to list per strategy
}

func newReportOptions(f *reportFlags) (reportOptions, error) {
	raw := strategies.RawOptions{Strategy: "loop-slice", Pricing: f.pricing, Tokenizer: f.tokenizer, Provider: f.provider}
	if f.setRates["cache-read-rate"] {
		raw.CacheReadRate = &f.readRate
	}
	if f.setRates["cache-write-rate"] {
		raw.CacheWriteRate = &f.writeRate
	}
	o, err := strategies.Normalize(raw)
	if err != nil {
		return reportOptions{}, err
	}
	raw.Strategy = ""
	return reportOptions{raw: raw, pricing: o.Pricing}, nil
}

// chatConfig is one chat strategy with its options, as the report names it.
type chatConfig struct {
	label string
	opts  strategies.Options
}

// chatConfigs are the chat strategies the report runs, each in its default
// form and in the forms whose trade-offs differ most.
func (o reportOptions) chatConfigs() ([]chatConfig, error) {
	intp := func(n int) *int { return &n }
	forms := []struct {
		label string
		set   func(*strategies.RawOptions)
	}{
		{"loop-slice", nil},
		{"loop-slice window_only", func(r *strategies.RawOptions) { r.WindowOnly = true }},
		{"turn-aware", nil},
		{"turn-aware window_only", func(r *strategies.RawOptions) { r.WindowOnly = true }},
		{"clear-tool-results", nil},
		{"clear-tool-results trigger 8000", func(r *strategies.RawOptions) { r.Trigger = intp(8000) }},
		{"clear-tool-results trigger 20000", func(r *strategies.RawOptions) { r.Trigger = intp(20000) }},
		{"token-budget 8000", func(r *strategies.RawOptions) { r.MaxTokens = intp(8000) }},
		{"token-budget 32000", func(r *strategies.RawOptions) { r.MaxTokens = intp(32000) }},
		{"token-budget 64000", func(r *strategies.RawOptions) { r.MaxTokens = intp(64000) }},
	}
	out := make([]chatConfig, 0, len(forms))
	for _, form := range forms {
		raw := o.raw
		raw.Strategy, _, _ = strings.Cut(form.label, " ")
		if form.set != nil {
			form.set(&raw)
		}
		opts, err := strategies.Normalize(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", form.label, err)
		}
		out = append(out, chatConfig{form.label, opts})
	}
	return out, nil
}

// turnStrategies are the strategies the report runs on PTC-Lisp runs;
// full, the uncompressed run, first: it is their baseline.
var turnStrategies = []string{"full", "single-user-coalesced", "cache-stable"}

// tally adds up one strategy's calls.
type tally struct {
	label    string
	calls    int
	refused  int // calls the strategy refused (a budget too small for the request)
	tokens   int
	bill     float64
	evidence int     // calls with evidence
	losing   int     // of them, calls that lost some
	recall   float64 // sum of the recall of the calls with evidence
	values   int     // evidence values of all calls
	kept     int
	// The first calls that lost evidence, up to maxExamples.
	examples    []lossExample
	maxExamples int
}

// lossExample is a call that lost evidence: where it is, and what it lost.
type lossExample struct {
	where string
	r     strategies.Recall
}

// add counts a call at where of tokens and bill, whose evidence ev the
// strategy's messages sent keep or lose.
func (t *tally) add(where string, tokens int, bill float64, ev []strategies.Evidence, sent []strategies.ChatMessage) {
	t.calls++
	t.tokens += tokens
	t.bill += bill
	if len(ev) == 0 {
		return
	}
	r := strategies.MeasureRecall(ev, sent)
	t.evidence++
	t.recall += r.Share()
	t.values += r.Evidence
	t.kept += r.Kept
	if r.Kept < r.Evidence {
		t.losing++
		if len(t.examples) < t.maxExamples {
			t.examples = append(t.examples, lossExample{where, r})
		}
	}
}

// meanRecall is the mean recall of the calls with evidence (1 without any).
func (t *tally) meanRecall() float64 {
	if t.evidence == 0 {
		return 1
	}
	return t.recall / float64(t.evidence)
}

// losingShare is the share of the calls with evidence that lost some.
func (t *tally) losingShare() float64 {
	if t.evidence == 0 {
		return 0
	}
	return float64(t.losing) / float64(t.evidence)
}

// reportGroup is the figures of one kind of log: chat conversations, or
// PTC-Lisp runs. tallies[0] is the baseline.
type reportGroup struct {
	title    string
	baseline string // what "bill vs" compares with
	sources  int
	tallies  []*tally
}

// reporter runs the strategies over the logs' calls, one conversation or
// run at a time as the logs are read.
type reporter struct {
	opts     reportOptions
	rem      *strategies.Remembered
	svc      *server.Service
	progress *progressBar
	configs  []chatConfig
	chatG    *reportGroup // nil before the first conversation
	runG     *reportGroup // nil before the first run
}

func newReporter(opts reportOptions) *reporter {
	return &reporter{opts: opts, rem: strategies.NewRemembered(memo.New(256 << 20)), svc: server.New(server.Config{})}
}

// run adds every conversation and run of logs and returns the groups.
func (rp *reporter) run(logs *chatlog.Logs) ([]*reportGroup, error) {
	for _, c := range logs.Chats {
		if err := rp.addChat(c); err != nil {
			return nil, err
		}
	}
	for _, r := range logs.Runs {
		if err := rp.addRun(r); err != nil {
			return nil, err
		}
	}
	return rp.groups(), nil
}

// groups are the figures so far: chats, then runs, for the kinds met.
func (rp *reporter) groups() []*reportGroup {
	var out []*reportGroup
	for _, g := range []*reportGroup{rp.chatG, rp.runG} {
		if g != nil {
			out = append(out, g)
		}
	}
	return out
}

// addChat adds the calls of one conversation.
func (rp *reporter) addChat(c chatlog.Conversation) error {
	if rp.chatG == nil {
		configs, err := rp.opts.chatConfigs()
		if err != nil {
			return err
		}
		rp.configs = configs
		g := &reportGroup{title: "Chat conversations", baseline: "raw history"}
		g.tallies = append(g.tallies, &tally{label: "raw history"})
		for _, c := range configs {
			g.tallies = append(g.tallies, &tally{label: c.label, maxExamples: rp.opts.examples})
		}
		rp.chatG = g
	}
	if c.From == 0 { // else it continues a conversation counted before
		rp.chatG.sources++
	}
	isCall := func(n int) bool {
		m := &c.Messages[n]
		return n >= c.From && m.Role == strategies.RoleAssistant && len(m.ToolCalls) > 0
	}
	calls, lengths := 0, int64(0)
	for n := range c.Messages {
		if isCall(n) {
			calls, lengths = calls+1, lengths+int64(n)
		}
	}
	rp.progress.start(calls, lengths)
	defer rp.progress.end()
	for n := range c.Messages {
		if !isCall(n) {
			continue
		}
		where := fmt.Sprintf("%s, message %d", c.Label, n)
		if err := rp.chatCall(rp.chatG, rp.configs, c.Messages[:n], &c.Messages[n], where); err != nil {
			return fmt.Errorf("%s: the call of message %d: %v", c.Label, n, err)
		}
		rp.progress.step(n)
	}
	return nil
}

// chatCall runs the baseline and every configuration on the history h
// before next, adding each to its tally of g.
func (rp *reporter) chatCall(g *reportGroup, configs []chatConfig, h []strategies.ChatMessage, next *strategies.ChatMessage, where string) error {
	ev := strategies.ChatEvidence(h, next)
	base, err := strategies.RawHistory(&strategies.Request{History: h, Options: configs[0].opts, Remembered: rp.rem})
	if err != nil {
		return err
	}
	g.tallies[0].add(where, base.Stats.TokensAfter, base.Stats.BilledTokens, ev, base.Messages)
	for i, c := range configs {
		resp, err := strategies.Render(&strategies.Request{History: h, Options: c.opts, Remembered: rp.rem})
		var herr *strategies.HistoryError
		switch {
		case errors.As(err, &herr):
			return err // a malformed message: no strategy reads it
		case err != nil:
			g.tallies[i+1].refused++
			continue
		}
		g.tallies[i+1].add(where, resp.Stats.TokensAfter, resp.Stats.BilledTokens, ev, resp.Messages)
	}
	return nil
}

// addRun adds the calls of one run.
func (rp *reporter) addRun(r chatlog.Run) error {
	if rp.runG == nil {
		rp.runG = &reportGroup{title: "PTC-Lisp runs", baseline: "full"}
		for _, name := range turnStrategies {
			rp.runG.tallies = append(rp.runG.tallies, &tally{label: name, maxExamples: rp.opts.examples})
		}
	}
	rp.runG.sources++
	if err := rp.run1(rp.runG, r); err != nil {
		return fmt.Errorf("%s: %v", r.Label, err)
	}
	return nil
}

// run1 adds the calls of one run: the call before each turn, whose answer
// is the turn's program.
func (rp *reporter) run1(g *reportGroup, r chatlog.Run) error {
	turns := chatlog.WithMemorySnapshots(r.Req)
	ctx := context.Background()
	rp.progress.start(len(turns), int64(len(turns)*(len(turns)-1)/2))
	defer rp.progress.end()
	for k := range turns {
		program := turns[k].GetProgram()
		if program == "" {
			program = turns[k].GetRawResponse()
		}
		memory := chatlog.MemoryBefore(r.Req, turns, k)
		bindings, err := chatlog.BindingsOf(memory)
		if err != nil {
			return fmt.Errorf("turns[%d]: %v", k, err)
		}
		var ev []strategies.Evidence
		for i, name := range turnStrategies {
			resp, err := rp.svc.ToMessages(ctx, rp.turnRequest(r.Req, turns[:k], memory, name))
			if err != nil {
				return fmt.Errorf("the call before turns[%d], %s: %s", k, name, status.Convert(err).Message())
			}
			sent := chatMessages(resp.GetMessages())
			if i == 0 { // full: the context the evidence is looked for in
				ev = strategies.TurnEvidence(program, sent, bindings)
			}
			st := resp.GetStats()
			g.tallies[i].add(fmt.Sprintf("%s, turn %d", r.Label, k+1), int(st.GetTokensAfter()), st.GetBilledTokens(), ev, sent)
		}
		rp.progress.step(k)
	}
	return nil
}

// turnRequest is the ToMessages request of a run's call with the
// strategy name, priced as the report is.
func (rp *reporter) turnRequest(run *ptcsidecarv1.RenderTraceRequest, turns []*ptcsidecarv1.Turn, memory *ptcsidecarv1.Memory, name string) *ptcsidecarv1.ToMessagesRequest {
	opts := proto.Clone(run.GetOptions()).(*ptcsidecarv1.Options)
	if opts == nil {
		opts = &ptcsidecarv1.Options{}
	}
	opts.Strategy = name
	opts.Pricing = rp.opts.raw.Pricing
	opts.CacheReadRate = rp.opts.raw.CacheReadRate
	opts.CacheWriteRate = rp.opts.raw.CacheWriteRate
	if rp.opts.raw.Tokenizer != "" {
		opts.Tokenizer = rp.opts.raw.Tokenizer
	}
	if rp.opts.raw.Provider != "" {
		opts.Provider = rp.opts.raw.Provider
	}
	return &ptcsidecarv1.ToMessagesRequest{Turns: turns, Memory: memory, Options: opts}
}

func chatMessages(msgs []*ptcsidecarv1.ChatMessage) []strategies.ChatMessage {
	out := make([]strategies.ChatMessage, len(msgs))
	for i, m := range msgs {
		out[i] = strategies.ChatMessage{Role: m.GetRole(), Content: m.GetContent(), Reasoning: m.GetReasoning(), ToolCallID: m.GetToolCallId(), Name: m.GetName()}
		for _, tc := range m.GetToolCalls() {
			out[i].ToolCalls = append(out[i].ToolCalls, strategies.ChatToolCall{ID: tc.GetId(), Name: tc.GetName(), Arguments: tc.GetArguments()})
		}
		for _, p := range m.GetParts() { // the text a part shows the model counts as kept
			out[i].Parts = append(out[i].Parts, strategies.NewPart(p.GetType(), p.GetText(), strategies.PartExtra{
				Signature: p.GetSignature(), Data: p.GetData(), MediaType: p.GetMediaType(), URL: p.GetUrl(), FileID: p.GetFileId(),
				Width: int(p.GetWidth()), Height: int(p.GetHeight()), Detail: p.GetDetail(), Pages: int(p.GetPages()),
				DurationMS: int(p.GetDurationMs()), ProviderJSON: p.GetProviderJson()}))
		}
	}
	return out
}

// writeTable writes the group's figures, one row per strategy.
func (g *reportGroup) writeTable(w io.Writer, p strategies.Pricing) {
	base := g.tallies[0]
	evCalls, values := base.evidence, base.values
	fmt.Fprintf(w, "%s: %d (%d calls, %d of them with evidence: %d values). Bills priced %s: cache reads %g, writes %g of a fresh input token.\n\n",
		g.title, g.sources, base.calls, evCalls, values, p.Name, p.ReadRate, p.WriteRate)
	fmt.Fprintf(w, "%-34s %6s %8s %13s %13s %9s %7s %14s\n", "strategy", "calls", "refused", "tokens sent", "billed", "bill vs "+shortBaseline(g.baseline), "recall", "calls losing")
	for _, t := range g.tallies {
		fmt.Fprintf(w, "%-34s %6d %8d %13s %13s %9.2f %7.3f %13.0f%%\n",
			t.label, t.calls, t.refused, thousands(t.tokens), thousands(int(t.bill+0.5)), ratio(t.bill, base.bill), t.meanRecall(), 100*t.losingShare())
	}
	for _, t := range g.tallies {
		if len(t.examples) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s lost evidence at:\n", t.label)
		for _, ex := range t.examples {
			lost := make([]string, len(ex.r.Lost))
			for i, e := range ex.r.Lost {
				lost[i] = shortQuote(e.Value)
			}
			fmt.Fprintf(w, "  %s: %d of %d values lost: %s\n", ex.where, len(ex.r.Lost), ex.r.Evidence, strings.Join(lost, ", "))
		}
	}
}

// shortQuote quotes v, cut to 60 characters.
func shortQuote(v string) string {
	if r := []rune(v); len(r) > 60 {
		v = string(r[:60]) + "..."
	}
	return fmt.Sprintf("%q", v)
}

func shortBaseline(b string) string {
	if b == "raw history" {
		return "raw"
	}
	return b
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// progressBar draws on a terminal how much of the report is done: the
// share of the logs' bytes read, less the part of the conversation being
// run that is still to run, and the calls run. A conversation is run once
// it is read whole, and its calls cost more the longer the history before
// them (each renders all of it), so the bytes of a conversation count as
// done in proportion to its calls' history lengths run: one long
// conversation in one file moves the bar as its calls run, not at 100%
// from the moment it is read.
type progressBar struct {
	w     io.Writer
	total int64 // bytes of the files
	read  int64 // of them, read so far
	calls int
	drawn string // the last line drawn

	// The conversation or run being run: the bytes read before it
	// started, its calls' work (the messages or turns before each) in all
	// and done, and its calls in all and run.
	before                 int64
	work, workDone         int64
	convCalls, convCallsAt int
}

const progressWidth = 40

// start begins a conversation or run of calls whose histories hold
// lengths messages or turns in all.
func (p *progressBar) start(calls int, lengths int64) {
	if p == nil {
		return
	}
	p.work, p.workDone, p.convCalls, p.convCallsAt = lengths, 0, calls, 0
}

// step counts a call run on a history of length messages or turns.
func (p *progressBar) step(length int) {
	if p == nil || p.total == 0 {
		return
	}
	p.calls++
	p.convCallsAt++
	p.workDone += int64(length)
	p.draw(false)
}

// end closes the conversation or run: its bytes are done.
func (p *progressBar) end() {
	if p == nil {
		return
	}
	p.before = min(p.read, p.total)
	p.work, p.convCalls = 0, 0
}

func (p *progressBar) draw(final bool) {
	read := min(p.read, p.total)
	done := read
	if p.work > 0 && read > p.before {
		done = p.before + (read-p.before)*min(p.workDone, p.work)/p.work
	}
	if final {
		done = p.total
	}
	filled := int(done * progressWidth / p.total)
	line := fmt.Sprintf("\r[%s%s] %3d%% of the logs, %d calls", strings.Repeat("#", filled), strings.Repeat(" ", progressWidth-filled), done*100/p.total, p.calls)
	if !final && p.convCalls > 1 {
		// The calls of a long conversation, by hundredths, so that the
		// line moves while a slow one runs.
		line = fmt.Sprintf("%s (this conversation: %d%% of %d calls)", line, p.convCallsAt*100/p.convCalls, p.convCalls)
	}
	if line == p.drawn {
		return
	}
	p.drawn = line
	fmt.Fprint(p.w, line)
}

// finish draws the bar full, then clears its line.
func (p *progressBar) finish() {
	if p.total > 0 {
		p.draw(true)
	}
	p.done()
}

// done clears the bar's line.
func (p *progressBar) done() {
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", progressWidth+80))
}
