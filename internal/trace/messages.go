package trace

import (
	"strconv"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// writeMessages writes one box per chat message, its content verbatim.
// With usage, each title carries the message's token count, its media by
// the rule of the options' provider.
func writeMessages(p *page, msgs []strategies.ChatMessage, o *strategies.Options, usage bool) error {
	if len(msgs) == 0 {
		p.open(plain("No messages"))
		p.close()
	}
	for i := range msgs {
		m := &msgs[i]
		title := []titlePart{
			{"Message " + strconv.Itoa(i+1) + "/" + strconv.Itoa(len(msgs)), sgrBold},
			{strings.ToUpper(m.Role), roleColour(m.Role)},
		}
		if src := messageSource(m); src != "" {
			title = append(title, plain(src))
		}
		if usage {
			n, err := strategies.CountMessageTokens(o.Tokenizer, o.Provider, []strategies.ChatMessage{*m})
			if err != nil {
				return err
			}
			title = append(title, plain(plural(n, "token")))
		}
		p.open(title...)
		writeMessageBody(p, m)
		p.close()
	}
	return nil
}

func roleColour(role string) string {
	if role == strategies.RoleAssistant {
		return sgrGreen
	}
	return sgrCyan
}

// messageSource says where a message came from, when the caller said so.
func messageSource(m *strategies.ChatMessage) string {
	switch {
	case m.Source != "" && m.SenderID != "":
		return m.Source + " from " + m.SenderID
	case m.SenderID != "":
		return "from " + m.SenderID
	}
	return m.Source
}

// writeMessageBody writes which call a tool message answers, the content,
// its parts, the reasoning and the tool calls an assistant message requests.
func writeMessageBody(p *page, m *strategies.ChatMessage) {
	if m.ToolCallID != "" {
		p.field("Answers", m.ToolCallID, "")
	}
	if m.Content != "" {
		p.text(0, m.Content, "")
	}
	if len(m.Parts) > 0 {
		p.label("Parts (" + strconv.Itoa(len(m.Parts)) + "):")
		for i := range m.Parts {
			writePart(p, &m.Parts[i])
		}
	}
	if m.Reasoning != "" {
		p.label("Reasoning:")
		p.text(textIndent, m.Reasoning, sgrDim)
	}
	if len(m.ToolCalls) > 0 {
		p.label("Tool calls (" + strconv.Itoa(len(m.ToolCalls)) + "):")
		for _, tc := range m.ToolCalls {
			p.text(textIndent, tc.ID+" "+tc.Name+"("+tc.Arguments+")", "")
		}
	}
}

// writePart writes a content part: its type and what says which content it
// is (media type, size, URL or file id, how much inline data), then its
// text. Inline data and signatures are not shown: they are opaque or long.
func writePart(p *page, part *strategies.ContentPart) {
	head := []string{part.Type}
	x := part.Extras()
	if x.MediaType != "" {
		head = append(head, x.MediaType)
	}
	if x.Width > 0 && x.Height > 0 {
		head = append(head, strconv.Itoa(x.Width)+"x"+strconv.Itoa(x.Height))
	}
	if x.Detail != "" {
		head = append(head, "detail "+x.Detail)
	}
	if x.Pages > 0 {
		head = append(head, plural(x.Pages, "page"))
	}
	if x.DurationMS > 0 {
		head = append(head, strconv.Itoa(x.DurationMS)+" ms")
	}
	if x.URL != "" && !strings.HasPrefix(x.URL, "data:") {
		head = append(head, x.URL)
	}
	if x.FileID != "" {
		head = append(head, "file "+x.FileID)
	}
	data := len(x.Data)
	if strings.HasPrefix(x.URL, "data:") {
		data += len(x.URL)
	}
	if data > 0 {
		head = append(head, plural(data, "character")+" of data")
	}
	if x.Signature != "" {
		head = append(head, "signed")
	}
	p.text(textIndent, strings.Join(head, ", "), sgrDim)
	if part.Text != "" {
		p.text(2*textIndent, part.Text, "")
	}
}
