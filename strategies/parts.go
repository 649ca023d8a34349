package strategies

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads the sizes of inline GIF images
	_ "image/jpeg"
	_ "image/png"
	"io"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// Content parts: the ordered content blocks of a message (text, images,
// audio, files, documents, the model's thinking, a provider's compaction),
// carried whole and in order by every strategy. The sidecar reads their
// texts (to find prompts and count tokens) and their sizes (to count the
// tokens a provider bills for them); everything else (inline data,
// signatures, the provider's own JSON) it sends back byte for byte.

// ContentPart is one content block of a message. A text part is its type
// and its text; what other parts carry besides (media, a signature, the
// provider's JSON) is in Extra, nil when there is none, so that a history
// of many short text parts costs 40 bytes a part rather than the 184 of
// every field in each (docs/RELIABILITY.md). NewPart builds one.
type ContentPart struct {
	Type  string
	Text  string
	Extra *PartExtra
}

// PartExtra is what a content part carries besides its type and text.
type PartExtra struct {
	Signature    string
	Data         string // inline content as the provider sends it (base64, encrypted)
	MediaType    string
	URL          string
	FileID       string
	Width        int
	Height       int
	Detail       string // OpenAI's image detail: low, high, auto or ""
	Pages        int
	DurationMS   int
	ProviderJSON string
}

// NewPart is the part of type typ with text and extra, whose Extra is nil
// when extra is empty.
func NewPart(typ, text string, extra PartExtra) ContentPart {
	p := ContentPart{Type: typ, Text: text}
	if extra != (PartExtra{}) {
		x := extra // only a part with extra fields allocates them
		p.Extra = &x
	}
	return p
}

// Extras is what p carries besides its type and text, empty when nothing.
func (p *ContentPart) Extras() PartExtra {
	if p.Extra == nil {
		return PartExtra{}
	}
	return *p.Extra
}

// partJSON is a part's JSON form, every field at one level as the
// fields of one struct would be.
type partJSON struct {
	Type string
	Text string
	PartExtra
}

// MarshalJSON writes p with its extra fields beside its type and text.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	return json.Marshal(partJSON{p.Type, p.Text, p.Extras()})
}

// UnmarshalJSON reads a part written by MarshalJSON.
func (p *ContentPart) UnmarshalJSON(b []byte) error {
	var j partJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*p = NewPart(j.Type, j.Text, j.PartExtra)
	return nil
}

// Equal reports whether p and q are the same block: the same type, text
// and extra fields (not the same Extra pointer).
func (p *ContentPart) Equal(q *ContentPart) bool {
	return p.Type == q.Type && p.Text == q.Text && p.Extras() == q.Extras()
}

// Content part types.
const (
	PartText             = "text"
	PartImage            = "image"
	PartAudio            = "audio"
	PartFile             = "file"
	PartDocument         = "document"
	PartThinking         = "thinking"
	PartRedactedThinking = "redacted_thinking"
	PartReasoning        = "reasoning"
	PartCompaction       = "compaction"
)

// partTypes lists the part types in the order docs and errors name them.
var partTypes = []string{PartText, PartImage, PartAudio, PartFile, PartDocument,
	PartThinking, PartRedactedThinking, PartReasoning, PartCompaction}

// maxPartSide bounds a part's width and height, far above any image a
// provider takes, so that sizes multiply without overflow.
const maxPartSide = 1 << 16

// isReasoningPart reports whether a part holds the model's reasoning, which
// keep_thinking_turns clears.
func isReasoningPart(t string) bool {
	return t == PartThinking || t == PartRedactedThinking || t == PartReasoning
}

// validateParts rejects the parts of message i that are malformed on their
// own, naming the field.
func validateParts(i int, m *ChatMessage) error {
	if len(m.Parts) == 0 {
		return nil
	}
	if m.Content != "" {
		return &HistoryError{i, "content", "a message with parts carries its text in text parts; content must be empty"}
	}
	for j, p := range m.Parts {
		x := p.Extras()
		field := func(name string) string { return fmt.Sprintf("parts[%d].%s", j, name) }
		switch p.Type {
		case PartText:
			if p.Text == "" {
				return &HistoryError{i, field("text"), "a text part needs its text"}
			}
		case PartImage, PartAudio, PartFile, PartDocument:
			if x.Data == "" && x.URL == "" && x.FileID == "" && p.Text == "" {
				return &HistoryError{i, field("data"), fmt.Sprintf("a %s part needs its data, url, file_id or (for a plain-text document) text", p.Type)}
			}
		case PartThinking, PartReasoning:
			if p.Text == "" && x.Data == "" && x.Signature == "" {
				return &HistoryError{i, field("text"), fmt.Sprintf("a %s part needs its text, data or signature", p.Type)}
			}
		case PartRedactedThinking:
			if x.Data == "" {
				return &HistoryError{i, field("data"), "a redacted_thinking part needs its data"}
			}
		case PartCompaction:
		case "":
			return &HistoryError{i, field("type"), "missing (want " + strings.Join(partTypes, ", ") + ")"}
		default:
			return &HistoryError{i, field("type"), fmt.Sprintf("unknown part type %q (want %s)", p.Type, strings.Join(partTypes, ", "))}
		}
		if (isReasoningPart(p.Type) || p.Type == PartCompaction) && m.Role != RoleAssistant {
			return &HistoryError{i, field("type"), fmt.Sprintf("a %s part belongs to an assistant message, this is a %s message", p.Type, m.Role)}
		}
		switch x.Detail {
		case "", "low", "high", "auto":
		default:
			return &HistoryError{i, field("detail"), fmt.Sprintf("unknown detail %q (want low, high, auto or empty)", x.Detail)}
		}
		for _, f := range []struct {
			name string
			v    int
		}{{"width", x.Width}, {"height", x.Height}, {"pages", x.Pages}, {"duration_ms", x.DurationMS}} {
			if f.v < 0 || f.v > maxPartSide && f.name != "duration_ms" {
				return &HistoryError{i, field(f.name), fmt.Sprintf("must be between 0 and %d, got %d", maxPartSide, f.v)}
			}
		}
	}
	return nil
}

// text returns what m says in words: its content, or the texts of its text
// parts one per line. Strategies read it to find prompts and write notes.
func (m *ChatMessage) text() string {
	if len(m.Parts) == 0 {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type != PartText {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// says reports whether m's content says anything: text that is not only
// white space, or a part that is not text (an image, a thinking block).
func (m *ChatMessage) says() bool {
	if !blank(m.Content) {
		return true
	}
	for _, p := range m.Parts {
		if p.Type != PartText || !blank(p.Text) {
			return true
		}
	}
	return false
}

// hasPart reports whether m holds a part of type t.
func (m *ChatMessage) hasPart(t string) bool {
	for _, p := range m.Parts {
		if p.Type == t {
			return true
		}
	}
	return false
}

// Counting parts. A part's text (of a text, thinking, reasoning or
// compaction part, or a plain-text document) is counted by the tokenizer
// like any text. Media and opaque data are counted by the documented rule
// of the provider the request goes to (the provider option), or with none
// of the provider the tokenizer belongs to (partRule): o200k_base and
// cl100k_base are OpenAI's, a tokenizer named for Gemini or Gemma is
// Google's, one named for Claude or Anthropic is Anthropic's. Where the
// rule needs what the sidecar cannot see (the size of an image behind a URL,
// the pages of an uploaded file, what an encrypted block decrypts to), the
// count is an estimate and the statistics say how many parts were
// estimated (parts_estimated).

// partRule is the provider whose counting rule applies to media.
type partRule int

const (
	ruleOpenAI partRule = iota
	ruleAnthropic
	ruleGemini
)

// counter is how a request counts tokens: its tokenizer for texts, and the
// rule of the provider it is sent to for media (mediaTokens).
type counter struct {
	tokenizer string
	media     partRule
}

// counter is the request's: its provider's media rule, or, with no
// provider, the rule of the provider the tokenizer belongs to.
func (o *Options) counter() counter { return counterFor(o.Tokenizer, o.Provider) }

func counterFor(tokenizer, provider string) counter {
	if tokenizer == "" {
		tokenizer = DefaultTokenizer
	}
	switch provider {
	case ProviderOpenAI:
		return counter{tokenizer, ruleOpenAI}
	case ProviderAnthropic:
		return counter{tokenizer, ruleAnthropic}
	case ProviderGemini:
		return counter{tokenizer, ruleGemini}
	}
	return counter{tokenizer, partRuleFor(tokenizer)}
}

func partRuleFor(tokenizer string) partRule {
	t := strings.ToLower(tokenizer)
	switch {
	case strings.Contains(t, "gemini"), strings.Contains(t, "gemma"):
		return ruleGemini
	case strings.Contains(t, "claude"), strings.Contains(t, "anthropic"):
		return ruleAnthropic
	}
	return ruleOpenAI
}

// Estimates used where the size is unknown, each the rule applied to a
// typical input: a 1024×1024 screenshot, a ten-second clip, a one-page PDF.
const (
	unknownImageSide  = 1024
	unknownAudioMS    = 10_000
	unknownPages      = 1
	audioBytesPerSec  = 16_000 // a compressed clip's rate (128 kbit/s) when only its size is known
	opaqueCharsPerTok = 4      // encrypted reasoning: a token per four characters of its data
	// Anthropic: a PDF page is billed as its text and its image; the text
	// of a typical page is 1,500 to 3,000 tokens.
	anthropicPageTextTokens = 2250
	// OpenAI: a PDF is given to the model as each page's text and image;
	// the image of a letter page at high detail is 765 tokens.
	openaiPageTextTokens = 500
)

// mediaTokens returns the tokens a non-text part is billed for under rule
// r, and whether the figure is an estimate. Parts without media (text,
// thinking, compaction summaries) count 0 here: their text is counted by
// the tokenizer.
func mediaTokens(r partRule, p *ContentPart) (int, bool) {
	if p.Type == PartText {
		return 0, false
	}
	extra := p.Extras()
	x := &extra
	switch p.Type {
	case PartImage:
		w, h, known := imageSize(x)
		if !known {
			w, h = unknownImageSide, unknownImageSide
		}
		if r == ruleOpenAI && x.Detail == "low" {
			return 85, false
		}
		return imageTokens(r, w, h), !known
	case PartAudio:
		ms, known := audioLength(x)
		// Gemini: 32 tokens a second. OpenAI and Anthropic document no
		// rule for audio input; Gemini's is used, as an estimate.
		return (ms*32 + 999) / 1000, !known || r != ruleGemini
	case PartFile, PartDocument:
		if x.Data == "" && x.URL == "" && x.FileID == "" {
			return 0, false // a plain-text document: its text is counted
		}
		if strings.HasPrefix(x.MediaType, "text/") && x.Data != "" {
			return (len(x.Data) + opaqueCharsPerTok - 1) / opaqueCharsPerTok, true
		}
		pages, known := pageCount(p.Type, x)
		switch r {
		case ruleGemini:
			return 258 * pages, !known // 258 tokens a page
		case ruleAnthropic:
			return pages * (anthropicPageTextTokens + imageTokens(r, 816, 1056)), true
		}
		return pages * (openaiPageTextTokens + imageTokens(r, 816, 1056)), true
	case PartRedactedThinking, PartReasoning, PartCompaction, PartThinking:
		// Opaque data (redacted thinking, encrypted reasoning or
		// compaction) is billed as what it decrypts to, which only the
		// provider knows.
		if x.Data == "" {
			return 0, false
		}
		return (len(x.Data) + opaqueCharsPerTok - 1) / opaqueCharsPerTok, true
	}
	return 0, false
}

// imageTokens applies rule r to an image of w×h pixels (both above 0).
func imageTokens(r partRule, w, h int) int {
	switch r {
	case ruleAnthropic:
		// Images whose long edge exceeds 1568 pixels are scaled down to it;
		// then width × height / 750, up to the largest image the API keeps.
		if long := max(w, h); long > 1568 {
			w, h = max(w*1568/long, 1), max(h*1568/long, 1)
		}
		// About 1,600 tokens at most (1.15 megapixels).
		return min((w*h+749)/750, 1600)
	case ruleGemini:
		// Both sides at most 384: 258 tokens; else 258 per 768×768 tile.
		if w <= 384 && h <= 384 {
			return 258
		}
		return 258 * ((w + 767) / 768) * ((h + 767) / 768)
	}
	// OpenAI, high detail (and auto, which is high for these sizes): fit
	// in 2048×2048, scale the shortest side down to 768, then 170 per
	// 512-pixel tile and 85 more.
	if long := max(w, h); long > 2048 {
		w, h = max(w*2048/long, 1), max(h*2048/long, 1)
	}
	if short := min(w, h); short > 768 {
		w, h = max(w*768/short, 1), max(h*768/short, 1)
	}
	return 85 + 170*((w+511)/512)*((h+511)/512)
}

// inlineHead decodes the first bytes of a part's base64 data (a data: URL's
// payload included), enough for a header. ok is false when there is none.
func inlineHead(x *PartExtra, n int) ([]byte, bool) {
	data := x.Data
	if data == "" && strings.HasPrefix(x.URL, "data:") {
		if k := strings.Index(x.URL, ","); k >= 0 && strings.Contains(x.URL[:k], ";base64") {
			data = x.URL[k+1:]
		}
	}
	if data == "" {
		return nil, false
	}
	enc := min(len(data), (n+2)/3*4)
	enc -= enc % 4
	head, err := base64.StdEncoding.DecodeString(data[:enc])
	if err != nil {
		// Unpadded or URL-safe base64.
		if head, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(data[:enc], "=")); err != nil {
			if head, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(data[:enc], "=")); err != nil {
				return nil, false
			}
		}
	}
	return head, true
}

// imageSize returns the image's size: the caller's, else read from inline
// PNG, JPEG or GIF data.
func imageSize(x *PartExtra) (int, int, bool) {
	if x.Width > 0 && x.Height > 0 {
		return x.Width, x.Height, true
	}
	// A JPEG's size may follow its metadata; 256 KiB holds it in practice.
	head, ok := inlineHead(x, 256<<10)
	if !ok {
		return 0, 0, false
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(head))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > maxPartSide || cfg.Height > maxPartSide {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// audioLength returns a clip's length in milliseconds: the caller's, else
// read from inline WAV data's header, else estimated from the data's size
// (or a typical clip when there is no data).
func audioLength(x *PartExtra) (int, bool) {
	if x.DurationMS > 0 {
		return x.DurationMS, true
	}
	head, ok := inlineHead(x, 64)
	if !ok {
		return unknownAudioMS, false
	}
	if len(head) >= 44 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WAVE" && string(head[12:16]) == "fmt " {
		rate := int(binary.LittleEndian.Uint32(head[28:32])) // bytes a second
		if size := len(x.Data)/4*3 - 44; rate > 0 && size > 0 {
			return int(int64(size) * 1000 / int64(rate)), true
		}
	}
	return max(len(x.Data)/4*3*1000/audioBytesPerSec, 1), false
}

// pageCount returns a document's pages: the caller's, else the page
// objects of inline PDF data, else one page.
func pageCount(typ string, x *PartExtra) (int, bool) {
	if x.Pages > 0 {
		return x.Pages, true
	}
	data := x.Data
	if data == "" || x.MediaType != "application/pdf" && typ != PartDocument {
		return unknownPages, false
	}
	// Each page is an object of /Type /Page (the page tree's nodes are
	// /Type /Pages; compressed object streams hide them: then unknown).
	// The data is decoded a block at a time, so a large PDF costs no
	// copy; a block keeps the end of the one before, where a name may
	// have been cut.
	const keep = 32
	dec := base64.NewDecoder(base64.StdEncoding, strings.NewReader(data))
	buf := make([]byte, keep+64<<10)
	n, have, first := 0, 0, true
	for {
		k, err := io.ReadFull(dec, buf[have:])
		chunk := buf[:have+k]
		if first {
			if !bytes.HasPrefix(chunk, []byte("%PDF")) {
				return unknownPages, false
			}
			first = false
		}
		last := err != nil
		// Names ending past safe are looked at with the next block.
		safe := len(chunk)
		if !last {
			safe -= keep
		}
		n += pageObjects(chunk, safe)
		if last {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				return unknownPages, false // not base64
			}
			break
		}
		have = copy(buf, chunk[safe:])
	}
	if n == 0 {
		return unknownPages, false
	}
	return n, true
}

// pageObjects counts the "/Type /Page" names (not /Pages) that start before
// end in b.
func pageObjects(b []byte, end int) int {
	n := 0
	for at := 0; ; {
		k := bytes.Index(b[at:], []byte("/Type"))
		if k < 0 || at+k >= end {
			return n
		}
		rest := bytes.TrimLeft(b[at+k+5:], " \r\n\t")
		if bytes.HasPrefix(rest, []byte("/Page")) && !bytes.HasPrefix(rest, []byte("/Pages")) {
			n++
		}
		at += k + 5
	}
}

// writePartKinds writes, for a ledger note, the kinds of the parts of m
// that the note cannot show: " (with 2 image, 1 document)".
func writePartKinds(b *strings.Builder, m *ChatMessage) {
	n := 0
	for _, t := range partTypes {
		if t == PartText || isReasoningPart(t) {
			continue
		}
		k := 0
		for _, p := range m.Parts {
			if p.Type == t {
				k++
			}
		}
		if k == 0 {
			continue
		}
		if n == 0 {
			b.WriteString(" (with ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%d %s", k, t)
		n++
	}
	if n > 0 {
		b.WriteByte(')')
	}
}

// Reasoning kept and cleared. keep_thinking_turns keeps the reasoning
// (thinking, redacted thinking and reasoning parts, and the reasoning text)
// of the most recent assistant messages that carry any, and clears it from
// older ones, as Anthropic's clear_thinking context edit keeps the thinking
// of the last N assistant turns. Each new assistant message with reasoning
// moves the boundary, so the prompt changes from the newly cleared message
// on: keeping all (the default) is what a prompt cache wants.

// hasReasoning reports whether m carries reasoning.
func (m *ChatMessage) hasReasoning() bool {
	if m.Reasoning != "" {
		return true
	}
	for _, p := range m.Parts {
		if isReasoningPart(p.Type) {
			return true
		}
	}
	return false
}

// withoutReasoning returns m with its reasoning cleared; its other parts
// stay, in order.
func withoutReasoning(m ChatMessage) ChatMessage {
	m.Reasoning = ""
	if len(m.Parts) > 0 {
		parts := make([]ContentPart, 0, len(m.Parts))
		for _, p := range m.Parts {
			if !isReasoningPart(p.Type) {
				parts = append(parts, p)
			}
		}
		if len(parts) == 0 {
			parts = nil
		}
		m.Parts = parts
	}
	return m
}

// clearThinking clears, in out, the reasoning of the assistant messages
// older than the keep most recent ones that carry any (keep < 0: none is
// cleared). A message left with nothing to say and no tool calls is
// dropped: Anthropic's API refuses an empty message. It returns the
// messages cleared and the tokens that freed.
func (o *chatOutput) clearThinking(rem *Remembered, tokenizer counter, keep int) (int, int, error) {
	if keep < 0 {
		return 0, 0, nil
	}
	cleared, freed, seen := 0, 0, 0
	drop := make([]bool, len(o.msgs))
	for i := len(o.msgs) - 1; i >= 0; i-- {
		m := &o.msgs[i]
		if m.Role != RoleAssistant || !m.hasReasoning() {
			continue
		}
		if seen++; seen <= keep {
			continue
		}
		c := withoutReasoning(*m)
		before, err := rem.messages(tokenizer, o.msgs[i:i+1])
		if err != nil {
			return 0, 0, err
		}
		after, err := rem.messages(tokenizer, []ChatMessage{c})
		if err != nil {
			return 0, 0, err
		}
		cleared++
		freed += before.tokens - after.tokens
		o.msgs[i], o.edited[i] = c, true
		drop[i] = !c.says() && len(c.ToolCalls) == 0
	}
	if cleared > 0 {
		k := 0
		for i := range o.msgs {
			if !drop[i] {
				o.msgs[k], o.from[k], o.edited[k] = o.msgs[i], o.from[i], o.edited[i]
				k++
			}
		}
		o.msgs, o.from, o.edited = o.msgs[:k], o.from[:k], o.edited[:k]
	}
	return cleared, freed, nil
}

// docKeepThinking documents keep_thinking_turns for every chat strategy.
var docKeepThinking = withDefault(intOptionDoc("keep_thinking_turns",
	"Keep the reasoning (thinking, redacted_thinking and reasoning parts, and reasoning text) of only this many of the most recent assistant messages that carry any, clearing it from older ones as Anthropic's clear_thinking does; each new one moves the boundary, so the prompt cache is read only up to the newly cleared message."),
	"all")

// partKey is a part under a counting rule, the key of its remembered media
// count: its fields by value, not its Extra pointer.
type partKey struct {
	rule  partRule
	typ   string
	text  string
	extra PartExtra
}

// mediaCount is a part's media tokens and whether they are an estimate.
type mediaCount struct {
	tokens    int
	estimated bool
}

// media is mediaTokens, remembered for parts with inline data: an agent
// sends the same screenshots and PDFs on every call, and reading a 1 MiB
// PDF's pages takes milliseconds.
func (c *Remembered) media(r partRule, p *ContentPart) (int, bool) {
	if c == nil || c.partCounts == nil || p.Extra == nil || p.Extra.Data == "" && !strings.HasPrefix(p.Extra.URL, "data:") {
		return mediaTokens(r, p)
	}
	x := *p.Extra
	k := partKey{r, p.Type, p.Text, x}
	if n, ok := c.partCounts.Get(k); ok {
		return n.tokens, n.estimated
	}
	tokens, estimated := mediaTokens(r, p)
	size := len(p.Text) + len(x.Signature) + len(x.Data) + len(x.MediaType) + len(x.URL) + len(x.FileID) + len(x.Detail) + len(x.ProviderJSON)
	c.partCounts.Put(k, mediaCount{tokens, estimated}, int64(memo.EntryOverhead+size))
	return tokens, estimated
}
