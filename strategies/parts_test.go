package strategies

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// partsHistory is testdata/parts/history.json: an Anthropic computer-use
// session with screenshots, a PDF and thinking blocks, as the clients put
// it on the wire (testdata/parts/make.py says how it was built).
func partsHistory(t testing.TB) []ChatMessage {
	t.Helper()
	raw, err := os.ReadFile("testdata/parts/history.json")
	if err != nil {
		t.Fatal(err)
	}
	var h []ChatMessage
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// partsOptions are option sets that make each chat strategy keep all,
// some or little of the parts conversation.
func partsOptions() map[string]func(*Options) {
	return map[string]func(*Options){
		"defaults":      func(*Options) {},
		"window 2":      func(o *Options) { o.ScanWindow = 2 },
		"window 3 seed": func(o *Options) { o.ScanWindow, o.WindowOnly = 3, true },
		"budget large":  func(o *Options) { o.MaxTokens = 1_000_000 },
		"budget small":  func(o *Options) { o.MaxTokens, o.TrimTo = 4000, 2000 },
		"clear all":     func(o *Options) { o.Trigger, o.Keep = 0, 0 },
		"thinking 1":    func(o *Options) { o.KeepThinkingTurns = 1 },
		"thinking 0":    func(o *Options) { o.KeepThinkingTurns, o.Trigger = 0, 0 },
	}
}

// Every chat strategy carries a message's parts whole and in order: each
// message of the output is a message of the history as it was, or a
// message the strategy writes itself (a nudge or a ledger note, a cleared
// tool result), or a message whose reasoning keep_thinking_turns cleared,
// its other parts untouched and in order.
func TestPartsCarriedThroughEveryChatStrategy(t *testing.T) {
	h := partsHistory(t)
	for _, name := range chatStrategyNames {
		for label, set := range partsOptions() {
			opts := chatDefaults()
			opts.MaxTokens = 1_000_000
			set(&opts)
			resp, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
			if err != nil {
				t.Fatalf("%s, %s: %v", name, label, err)
			}
			if err := sendable(resp.Messages, false); err != nil {
				t.Errorf("%s, %s: %v", name, label, err)
			}
			cleared := 0
			for i, m := range resp.Messages {
				switch {
				case inHistory(h, &m):
				case m.Role == RoleUser && m.Source == SourceSystem && len(m.Parts) == 0:
				case m.Role == RoleTool && m.Content == opts.Placeholder && m.Parts == nil:
				case opts.KeepThinkingTurns >= 0 && clearedFrom(h, &m):
					cleared++
				default:
					t.Errorf("%s, %s: message %d is no message of the history: %+v", name, label, i, m)
				}
			}
			if cleared != resp.Stats.ThinkingCleared {
				t.Errorf("%s, %s: %d messages lost their reasoning, the stats say %d", name, label, cleared, resp.Stats.ThinkingCleared)
			}
		}
	}
}

func mustLookup(t *testing.T, name string) Strategy {
	t.Helper()
	s, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inHistory reports whether m is one of h's messages, exactly.
func inHistory(h []ChatMessage, m *ChatMessage) bool {
	for i := range h {
		if reflect.DeepEqual(h[i], *m) {
			return true
		}
	}
	return false
}

// With a budget and a trigger that keep everything, the output is the
// history itself: nothing of any part is lost.
func TestPartsNothingLostWhenAllKept(t *testing.T) {
	h := partsHistory(t)
	for _, name := range []string{"clear-tool-results", "token-budget"} {
		opts := chatDefaults()
		opts.MaxTokens = 1_000_000
		resp, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(resp.Messages, h) {
			t.Errorf("%s: the output differs from the history", name)
		}
		// The screenshots are 1280×800 (twice) and 1024×768, read from
		// their PNG data; the image behind a URL, the PDF and the redacted
		// thinking are estimates.
		if resp.Stats.PartsEstimated != 3 {
			t.Errorf("%s: %d parts estimated, want 3", name, resp.Stats.PartsEstimated)
		}
		want := 0
		for i := range h {
			for j := range h[i].Parts {
				n, _ := mediaTokens(ruleOpenAI, &h[i].Parts[j])
				want += n
			}
		}
		if resp.Stats.PartTokens != want || resp.Stats.TokensAfter <= want || resp.Stats.TokensBefore != resp.Stats.TokensAfter {
			t.Errorf("%s: part tokens %d (want %d), tokens after %d, before %d", name, resp.Stats.PartTokens, want, resp.Stats.TokensAfter, resp.Stats.TokensBefore)
		}
	}
}

// The providers' documented figures.
func TestImageTokenRules(t *testing.T) {
	for _, c := range []struct {
		rule       partRule
		w, h, want int
	}{
		// OpenAI's examples: 1024×1024 high is 765, 2048×4096 is 1105.
		{ruleOpenAI, 1024, 1024, 765},
		{ruleOpenAI, 2048, 4096, 1105},
		{ruleOpenAI, 500, 500, 255},
		// Anthropic: width × height / 750; a 1000×1000 image is about 1334.
		{ruleAnthropic, 1000, 1000, 1334},
		{ruleAnthropic, 200, 200, 54},
		{ruleAnthropic, 4000, 4000, 1600},
		// Gemini: 258 when both sides are at most 384, else 258 a 768 tile.
		{ruleGemini, 384, 384, 258},
		{ruleGemini, 600, 400, 258},
		{ruleGemini, 1280, 800, 4 * 258},
	} {
		if got := imageTokens(c.rule, c.w, c.h); got != c.want {
			t.Errorf("rule %d, %d×%d: %d tokens, want %d", c.rule, c.w, c.h, got, c.want)
		}
	}
	low := ContentPart{Type: PartImage, Extra: &PartExtra{URL: "https://example.com/a.png", Detail: "low"}}
	if n, est := mediaTokens(ruleOpenAI, &low); n != 85 || est {
		t.Errorf("low detail: %d (estimate %v), want 85 exact", n, est)
	}
	h := partsHistory(t)
	shot := h[3].Parts[0] // the first screenshot, 1280×800
	if w, ht, ok := imageSize(shot.Extra); !ok || w != 1280 || ht != 800 {
		t.Errorf("screenshot size read as %d×%d (%v)", w, ht, ok)
	}
	if n, est := mediaTokens(ruleOpenAI, &shot); n != 1105 || est {
		t.Errorf("screenshot: %d tokens (estimate %v), want 1105 exact", n, est)
	}
	pdf := h[1].Parts[1]
	if pages, ok := pageCount(pdf.Type, pdf.Extra); pages != 2 || !ok {
		t.Errorf("the invoice has %d pages (%v), want 2", pages, ok)
	}
	if n, est := mediaTokens(ruleGemini, &pdf); n != 2*258 || est {
		t.Errorf("Gemini PDF: %d tokens (estimate %v), want 516 exact", n, est)
	}
	if partRuleFor("o200k_base") != ruleOpenAI || partRuleFor("gemma3") != ruleGemini || partRuleFor("claude-estimate") != ruleAnthropic {
		t.Error("tokenizer names map to the wrong provider rules")
	}
}

func TestAudioLengthFromWAV(t *testing.T) {
	raw, err := os.ReadFile("testdata/parts/openai.json")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatal(err)
	}
	var parts []struct {
		InputAudio struct{ Data string } `json:"input_audio"`
	}
	if err := json.Unmarshal(msgs[1].Content, &parts); err != nil {
		t.Fatal(err)
	}
	clip := ContentPart{Type: PartAudio, Extra: &PartExtra{Data: parts[3].InputAudio.Data, MediaType: "audio/wav"}}
	if ms, ok := audioLength(clip.Extra); ms != 3000 || !ok {
		t.Errorf("the clip lasts %d ms (%v), want 3000", ms, ok)
	}
	if n, est := mediaTokens(ruleGemini, &clip); n != 96 || est {
		t.Errorf("Gemini audio: %d tokens (estimate %v), want 96 exact", n, est)
	}
}

// Malformed parts are refused naming the field.
func TestPartErrorsNameTheField(t *testing.T) {
	for _, c := range []struct {
		msg   ChatMessage
		field string
	}{
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{Type: PartText, Text: "a"}, {Type: "video"}}}, "parts[1].type"},
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{}}}, "parts[0].type"},
		{ChatMessage{Role: RoleUser, Content: "a", Parts: []ContentPart{{Type: PartText, Text: "b"}}}, "content"},
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{Type: PartText}}}, "parts[0].text"},
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{Type: PartImage}}}, "parts[0].data"},
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{Type: PartThinking, Text: "x"}}}, "parts[0].type"},
		{ChatMessage{Role: RoleAssistant, Parts: []ContentPart{{Type: PartRedactedThinking}}}, "parts[0].data"},
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{Type: PartImage, Extra: &PartExtra{URL: "u", Detail: "max"}}}}, "parts[0].detail"},
		{ChatMessage{Role: RoleUser, Parts: []ContentPart{{Type: PartImage, Extra: &PartExtra{URL: "u", Width: -1}}}}, "parts[0].width"},
	} {
		h := []ChatMessage{{Role: RoleUser, Content: "fine"}, c.msg}
		for _, name := range chatStrategyNames {
			opts := chatDefaults()
			opts.MaxTokens = 100
			_, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
			var he *HistoryError
			if !errors.As(err, &he) || he.Index != 1 || he.Field != c.field {
				t.Errorf("%s, %+v: got %v, want a HistoryError for history[1].%s", name, c.msg, err, c.field)
			}
		}
	}
}

// A user message of parts is a prompt, and one holding only an image says
// something: neither is dropped as empty.
func TestPartsOnlyMessagesArePrompts(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleSystem, Content: "s"},
		{Role: RoleUser, Parts: []ContentPart{{Type: PartImage, Extra: &PartExtra{URL: "https://example.com/x.png"}}}},
	}
	for _, name := range chatStrategyNames {
		opts := chatDefaults()
		opts.MaxTokens = 10_000
		resp, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(resp.Messages, h) || resp.Stats.SyntheticNudge {
			t.Errorf("%s: %s", name, fmt.Sprint(resp.Messages))
		}
	}
}

// clearedFrom reports whether m is a history message with reasoning, that
// reasoning cleared and nothing else changed.
func clearedFrom(h []ChatMessage, m *ChatMessage) bool {
	for i := range h {
		if h[i].hasReasoning() && reflect.DeepEqual(withoutReasoning(h[i]), *m) {
			return true
		}
	}
	return false
}

// keep_thinking_turns keeps the reasoning of the most recent assistant
// messages with any and clears the older ones', and the tokens that frees
// are what the output no longer holds.
func TestKeepThinkingTurns(t *testing.T) {
	h := partsHistory(t)
	render := func(keep int) *Response {
		opts := chatDefaults()
		opts.MaxTokens, opts.KeepThinkingTurns = 1_000_000, keep
		resp, err := mustLookup(t, "token-budget").Render(&Request{History: h, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	all := render(-1)
	for keep, want := range []int{4, 3, 2, 1, 0, 0} {
		resp := render(keep)
		if resp.Stats.ThinkingCleared != want {
			t.Errorf("keep %d: %d cleared, want %d", keep, resp.Stats.ThinkingCleared, want)
		}
		shrank := all.Stats.TokensAfter - resp.Stats.TokensAfter
		if shrank != resp.Stats.ThinkingTokensCleared || want > 0 && shrank <= 0 {
			t.Errorf("keep %d: %d tokens cleared, the output shrank by %d", keep, resp.Stats.ThinkingTokensCleared, shrank)
		}
		with := 0
		for i, m := range resp.Messages {
			if m.hasReasoning() {
				with++
				// The kept reasoning is the history's, signatures and all.
				if !reflect.DeepEqual(m, h[i]) {
					t.Errorf("keep %d: message %d kept its reasoning changed", keep, i)
				}
			}
		}
		if with != min(keep, 4) {
			t.Errorf("keep %d: %d messages keep reasoning, want %d", keep, with, min(keep, 4))
		}
	}
	// The bill counts the clearing: the call before kept the thinking this
	// call clears, so the cached prefix ends there and what follows is
	// billed fresh.
	if one := render(1); one.Stats.StablePrefixTokens >= all.Stats.StablePrefixTokens || one.Stats.BilledTokens <= all.Stats.BilledTokens {
		t.Errorf("keep 1: prefix %d, billed %.1f; keep all: prefix %d, billed %.1f", one.Stats.StablePrefixTokens, one.Stats.BilledTokens, all.Stats.StablePrefixTokens, all.Stats.BilledTokens)
	}
	// keep 1 keeps the latest thinking, with its signature.
	if last := render(1).Messages[8]; !last.hasPart(PartThinking) || last.Parts[0].Extras().Signature == "" {
		t.Errorf("keep 1 cleared the latest thinking: %+v", last.Parts)
	}
}

// Page objects are counted across the blocks a large PDF is decoded in,
// wherever a block boundary cuts a name.
func TestPageCountOfALargePDF(t *testing.T) {
	// Objects of 48 bytes, shifted by 0 to 50: a block boundary falls at
	// every place of a name once.
	for shift := range 51 {
		var b strings.Builder
		b.WriteString("%PDF-1.7\n<< /Type /Pages /Count 3000 >>\n" + strings.Repeat("%", shift) + "\n")
		for range 3000 {
			b.WriteString("9 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n\n")
		}
		p := ContentPart{Type: PartDocument, Extra: &PartExtra{MediaType: "application/pdf", Data: base64.StdEncoding.EncodeToString([]byte(b.String()))}}
		if n, ok := pageCount(p.Type, p.Extra); n != 3000 || !ok {
			t.Errorf("shift %d: %d pages (%v), want 3000", shift, n, ok)
		}
	}
	notPDF := ContentPart{Type: PartDocument, Extra: &PartExtra{MediaType: "application/pdf", Data: base64.StdEncoding.EncodeToString([]byte("hello"))}}
	if n, ok := pageCount(notPDF.Type, notPDF.Extra); n != unknownPages || ok {
		t.Errorf("not a PDF: %d pages (%v)", n, ok)
	}
}

// FuzzChatParts gives the messages of a fuzzed chat log parts (a byte a
// message picks none or one of each type, valid or not where it stands) and
// checks every chat strategy, with reasoning kept or cleared, either
// refuses the log naming a field or sends a request providers accept whose
// messages are the log's (whole, or with reasoning cleared, or a cleared
// tool result), notes and nudges aside, and a compaction right after the
// system prompt.
func FuzzChatParts(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 2, 3, 1, 3, 4, 1, 4, 4, 2, 5, 2, 0, 6}, []byte{0, 1, 0, 2, 0, 3}, uint8(3))
	f.Add([]byte{1, 0, 1, 10, 1, 2, 3, 1, 3, 2, 0, 4, 1, 0, 5}, []byte{0, 1, 3, 9, 0, 0}, uint8(1))
	f.Fuzz(func(t *testing.T, data, kinds []byte, keep uint8) {
		h := decodeChatLog(data)
		for i := range h {
			if i < len(kinds) && kinds[i] != 0 {
				h[i].Parts = fuzzParts(kinds[i], h[i].Content)
				h[i].Content = ""
			}
		}
		for _, name := range chatStrategyNames {
			opts := chatDefaults()
			opts.MaxTokens, opts.Trigger, opts.Keep = 100_000, int(keep)*10, int(keep%3)
			opts.KeepThinkingTurns = int(keep%4) - 1
			resp, err := mustLookup(t, name).Render(&Request{History: h, Options: opts})
			var he *HistoryError
			if errors.As(err, &he) {
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out := resp.Messages
			if err := sendable(out, false); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for i, m := range out {
				switch {
				case inHistory(h, &m), clearedFrom(h, &m):
				case m.Role == RoleUser && m.Source == SourceSystem && len(m.Parts) == 0:
				case m.Role == RoleTool && m.Content == opts.Placeholder && m.Parts == nil:
				case m.Role == RoleAssistant && len(m.ToolCalls) == 0 && callsDroppedFrom(h, &m):
					// Every call of a turn dropped (a repeated call's
					// earlier copy, say): its words are kept.
				case m.Role == RoleAssistant && (len(m.ToolCalls) > 0 || m.hasPart(PartCompaction)) || m.Role == RoleTool:
					// A tool-call id rewritten, a call dropped with its
					// result (turn-aware's snapshots), or a compaction's
					// unanswered calls left out: its parts are a history
					// message's.
					if len(m.Parts) > 0 && !slices.ContainsFunc(h, func(o ChatMessage) bool {
						return reflect.DeepEqual(o.Parts, m.Parts) || reflect.DeepEqual(withoutReasoning(o).Parts, m.Parts)
					}) {
						t.Fatalf("%s: message %d's parts are no message's: %+v", name, i, m.Parts)
					}
				default:
					t.Fatalf("%s: message %d is no message of the history: %+v", name, i, m)
				}
			}
			ch := newChatHistory(h)
			if len(ch.pinned) > 0 {
				at := 0
				if ch.system >= 0 {
					at = 1
				}
				if !out[at].hasPart(PartCompaction) {
					t.Fatalf("%s: the compaction is not sent first: %+v", name, out)
				}
			}
		}
	})
}

// callsDroppedFrom reports whether m is an assistant message of h with its
// tool calls left out, its reasoning cleared or not.
func callsDroppedFrom(h []ChatMessage, m *ChatMessage) bool {
	return slices.ContainsFunc(h, func(o ChatMessage) bool {
		if o.Role != RoleAssistant || len(o.ToolCalls) == 0 || o.Content != m.Content {
			return false
		}
		return reflect.DeepEqual(o.Parts, m.Parts) || reflect.DeepEqual(withoutReasoning(o).Parts, m.Parts)
	})
}

// fuzzParts makes parts from a byte: each of its low bits adds a part of
// one type, in order.
func fuzzParts(b byte, text string) []ContentPart {
	all := []ContentPart{
		{Type: PartText, Text: text},
		{Type: PartImage, Extra: &PartExtra{URL: "https://example.com/a.png", Detail: "low"}},
		{Type: PartThinking, Text: "think", Extra: &PartExtra{Signature: "c2ln"}},
		{Type: PartRedactedThinking, Extra: &PartExtra{Data: "ZGF0YQ=="}},
		{Type: PartCompaction, Text: "summary"},
		{Type: PartDocument, Text: "plain text document"},
		{Type: PartReasoning, Extra: &PartExtra{Data: "ZW5j"}},
		{Type: PartText},
	}
	var out []ContentPart
	for i, p := range all {
		if b&(1<<i) != 0 {
			out = append(out, p)
		}
	}
	return out
}

// BenchmarkMediaTokens counts the media of the parts conversation (three
// PNG screenshots read for their size, a PDF read for its pages, an image
// behind a URL, redacted thinking), as every count of a message does.
func BenchmarkMediaTokens(b *testing.B) {
	h := partsHistory(b)
	for b.Loop() {
		for i := range h {
			for j := range h[i].Parts {
				mediaTokens(ruleOpenAI, &h[i].Parts[j])
			}
		}
	}
}

// BenchmarkPageCount reads the pages of a 1 MiB PDF (3,000 page objects and
// padding).
func BenchmarkPageCount(b *testing.B) {
	var s strings.Builder
	s.WriteString("%PDF-1.7\n")
	for s.Len() < 1<<20 {
		s.WriteString("9 0 obj\n<< /Type /Page /Parent 2 0 R >>\nendobj\n" + strings.Repeat(" ", 300) + "\n")
	}
	p := ContentPart{Type: PartDocument, Extra: &PartExtra{MediaType: "application/pdf", Data: base64.StdEncoding.EncodeToString([]byte(s.String()))}}
	b.SetBytes(int64(len(p.Extra.Data)))
	for b.Loop() {
		pageCount(p.Type, p.Extra)
	}
}

// A part's media count is remembered: the second count reads nothing.
func TestMediaCountRemembered(t *testing.T) {
	m := memo.New(64 << 20)
	rem := NewRemembered(m)
	h := partsHistory(t)
	first, err := rem.messages(counterFor(DefaultTokenizer, ""), h)
	if err != nil {
		t.Fatal(err)
	}
	table := func() memo.Stats {
		for _, s := range m.Stats() {
			if s.Table == "part_counts" {
				return s
			}
		}
		return memo.Stats{}
	}
	// Inline data: three screenshots, the PDF, the redacted thinking.
	before := table()
	again, err := rem.messages(counterFor(DefaultTokenizer, ""), h)
	after := table()
	if err != nil || again != first || before.Misses != 5 || after.Misses != 5 || after.Hits-before.Hits != 5 {
		t.Errorf("counted again: %+v then %+v, table %+v then %+v", first, again, before, after)
	}
	if plain, _ := (*Remembered)(nil).messages(counterFor(DefaultTokenizer, ""), h); plain != first {
		t.Errorf("remembered %+v, counted %+v", first, plain)
	}
}

// A text part is its type and text: what other parts carry lives apart,
// so that a history of many short text parts costs a few words a part.
// Its JSON form is the same flat one as any part's.
func TestTextPartCarriesNoExtra(t *testing.T) {
	if size := reflect.TypeFor[ContentPart]().Size(); size > 40 {
		t.Errorf("a part is %d bytes, want at most 40", size)
	}
	text := NewPart(PartText, "hello", PartExtra{})
	if text.Extra != nil {
		t.Errorf("a text part has extra fields %+v", *text.Extra)
	}
	thinking := NewPart(PartThinking, "hm", PartExtra{Signature: "c2ln"})
	for _, p := range []ContentPart{text, thinking} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back ContentPart
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !back.Equal(&p) || (back.Extra == nil) != (p.Extra == nil) {
			t.Errorf("%s came back from %s as %+v", p.Type, b, back)
		}
	}
	if b, _ := json.Marshal(thinking); !strings.Contains(string(b), `"Signature":"c2ln"`) {
		t.Errorf("the signature is not beside the text in %s", b)
	}
	other := NewPart(PartThinking, "hm", PartExtra{Signature: "c2ln"})
	if !thinking.Equal(&other) || thinking.Equal(&text) {
		t.Error("parts compare by their fields, not their Extra pointers")
	}
}

// The provider option decides how media are counted, whatever the
// tokenizer: an image sent to Anthropic is counted by Anthropic's rule with
// the default tokenizer (OpenAI's) too, in every strategy's statistics, in
// a budget, and in CountMessageTokens.
func TestMediaCountedByProvider(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleUser, Parts: []ContentPart{NewPart(PartText, "What is on this page?", PartExtra{}),
			NewPart(PartImage, "", PartExtra{URL: "https://example.com/page.png", Width: 1000, Height: 1000})}},
		{Role: RoleAssistant, Content: "A form."},
	}
	text, err := CountMessageTokens(DefaultTokenizer, "", []ChatMessage{{Role: RoleUser, Content: "What is on this page?"}, h[1]})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		provider string
		image    int
	}{
		{"", 85 + 170*2*2}, // o200k_base is OpenAI's: 768×768, four tiles
		{ProviderOpenAI, 85 + 170*2*2},
		{ProviderAnthropic, (1000*1000 + 749) / 750},
		{ProviderGemini, 258 * 2 * 2},
	} {
		n, err := CountMessageTokens(DefaultTokenizer, c.provider, h)
		if err != nil || n != text+c.image {
			t.Errorf("provider %q: CountMessageTokens %d (%v), want %d", c.provider, n, err, text+c.image)
		}
		for _, name := range chatStrategyNames {
			raw := RawOptions{Strategy: name, Provider: c.provider}
			if name == "token-budget" {
				// Exactly what the history takes by the provider's rule.
				budget := text + c.image
				raw.MaxTokens = &budget
			}
			opts, err := Normalize(raw)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := Render(&Request{History: h, Options: opts, Remembered: NewRemembered(memo.New(1 << 20))})
			if err != nil {
				t.Fatalf("%s, provider %q: %v", name, c.provider, err)
			}
			if st := resp.Stats; st.PartTokens != c.image || st.TokensBefore != text+c.image {
				t.Errorf("%s, provider %q: part_tokens %d, tokens_before %d; want %d and %d", name, c.provider, st.PartTokens, st.TokensBefore, c.image, text+c.image)
			}
		}
	}
}
