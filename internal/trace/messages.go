package trace

import (
	"strconv"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// writeMessages writes one box per chat message, its content verbatim.
// With usage, each title carries the message's token count.
func writeMessages(p *page, msgs []strategies.ChatMessage, tokenizer string, usage bool) error {
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
			n, err := strategies.CountMessageTokens(tokenizer, []strategies.ChatMessage{*m})
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
	if part.MediaType != "" {
		head = append(head, part.MediaType)
	}
	if part.Width > 0 && part.Height > 0 {
		head = append(head, strconv.Itoa(part.Width)+"x"+strconv.Itoa(part.Height))
	}
	if part.Detail != "" {
		head = append(head, "detail "+part.Detail)
	}
	if part.Pages > 0 {
		head = append(head, plural(part.Pages, "page"))
	}
	if part.DurationMS > 0 {
		head = append(head, strconv.Itoa(part.DurationMS)+" ms")
	}
	if part.URL != "" && !strings.HasPrefix(part.URL, "data:") {
		head = append(head, part.URL)
	}
	if part.FileID != "" {
		head = append(head, "file "+part.FileID)
	}
	data := len(part.Data)
	if strings.HasPrefix(part.URL, "data:") {
		data += len(part.URL)
	}
	if data > 0 {
		head = append(head, plural(data, "character")+" of data")
	}
	if part.Signature != "" {
		head = append(head, "signed")
	}
	p.text(textIndent, strings.Join(head, ", "), sgrDim)
	if part.Text != "" {
		p.text(2*textIndent, part.Text, "")
	}
}
