package strategies

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Evidence recall: what a compression takes away from the model. A model's
// next tool call copies values from its context (a user id read two turns
// earlier, a line of a file it read, a digest a tool printed); a strategy
// that dropped the message holding such a value has taken away what the
// model needed. Evidence recall is the share of those values still present,
// verbatim, in the compressed prompt. docs/STRATEGIES.md, "Evidence
// recall", gives the definition and the figures.

// Evidence is one value a model's next call took from its context.
type Evidence struct {
	Value string
	// Name marks the name of a memory binding a program reads (PTC-Lisp):
	// it is present where it stands as a whole symbol, not inside a longer
	// one.
	Name bool
}

// Recall is what a compressed prompt kept of a call's evidence.
type Recall struct {
	Evidence int        // values the call took from its context
	Kept     int        // of them, still present in the prompt
	Lost     []Evidence // the rest, in the order the call used them
}

// Share is Kept / Evidence: 1 when the call took nothing from its context.
func (r Recall) Share() float64 {
	if r.Evidence == 0 {
		return 1
	}
	return float64(r.Kept) / float64(r.Evidence)
}

// Minimum sizes of a value that counts as evidence: shorter strings and
// numbers ("ok", 12) occur everywhere by chance and say nothing of where the
// model read them.
const (
	evidenceMinChars  = 3
	evidenceMinDigits = 3
)

// ChatEvidence returns the evidence of next, an assistant message whose
// tool calls the model wrote after reading history: the values in the
// calls' arguments (strings of 3 or more characters, numbers of 3 or more
// digits) that occur verbatim in history and not in its system messages.
// A value in a system message is not evidence: every strategy sends the
// system prompt. Each value counts once per call.
func ChatEvidence(history []ChatMessage, next *ChatMessage) []Evidence {
	var values []string
	for _, tc := range next.ToolCalls {
		values = argumentValues(values, tc.Arguments)
	}
	if len(values) == 0 {
		return nil
	}
	var context, system strings.Builder
	for i := range history {
		if history[i].Role == RoleSystem {
			appendHaystack(&system, &history[i])
		} else {
			appendHaystack(&context, &history[i])
		}
	}
	return evidenceIn(values, context.String(), system.String())
}

// evidenceIn keeps the values that occur in context and not in excluded,
// each once, as Evidence.
func evidenceIn(values []string, context, excluded string) []Evidence {
	var out []Evidence
	seen := make(map[string]bool, len(values))
	for _, v := range values {
		if seen[v] {
			continue
		}
		seen[v] = true
		if containsValue(context, v) && !containsValue(excluded, v) {
			out = append(out, Evidence{Value: v})
		}
	}
	return out
}

// MeasureRecall counts the evidence still present in sent, the messages a
// strategy returned: a value verbatim anywhere in their texts (as it is or
// as a JSON string escapes it), a memory name as a whole symbol.
func MeasureRecall(evidence []Evidence, sent []ChatMessage) Recall {
	var b strings.Builder
	for i := range sent {
		appendHaystack(&b, &sent[i])
	}
	hay := b.String()
	r := Recall{Evidence: len(evidence)}
	for _, e := range evidence {
		var present bool
		if e.Name {
			present = containsSymbol(hay, e.Value)
		} else {
			present = containsValue(hay, e.Value)
		}
		if present {
			r.Kept++
		} else {
			r.Lost = append(r.Lost, e)
		}
	}
	return r
}

// appendHaystack writes every text of m a model reads, each after a NUL so
// that no value is found across two texts.
func appendHaystack(b *strings.Builder, m *ChatMessage) {
	for _, s := range []string{m.Content, m.Reasoning} {
		b.WriteByte(0)
		b.WriteString(s)
	}
	for _, p := range m.Parts {
		b.WriteByte(0)
		b.WriteString(p.Text)
	}
	for _, tc := range m.ToolCalls {
		b.WriteByte(0)
		b.WriteString(tc.Name)
		b.WriteByte(0)
		b.WriteString(tc.Arguments)
	}
}

// containsValue reports whether v occurs in hay as it is, or as it reads
// inside a JSON string (a value a tool call's arguments carried, quotes and
// line breaks escaped).
func containsValue(hay, v string) bool {
	if strings.Contains(hay, v) {
		return true
	}
	esc := jsonEscaped(v)
	return esc != v && strings.Contains(hay, esc)
}

// jsonEscaped is v as it reads between the quotes of a JSON string.
func jsonEscaped(v string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return v
	}
	s := strings.TrimSuffix(b.String(), "\n")
	return s[1 : len(s)-1]
}

// containsSymbol reports whether name occurs in hay as a whole PTC-Lisp
// symbol: not preceded or followed by a character a symbol may hold.
func containsSymbol(hay, name string) bool {
	for from := 0; ; {
		i := strings.Index(hay[from:], name)
		if i < 0 {
			return false
		}
		start, end := from+i, from+i+len(name)
		before, _ := utf8.DecodeLastRuneInString(hay[:start])
		after, _ := utf8.DecodeRuneInString(hay[end:])
		if (start == 0 || !symbolRune(before)) && (end == len(hay) || !symbolRune(after)) {
			return true
		}
		from = start + 1
	}
}

// symbolRune reports whether r may be part of a PTC-Lisp symbol.
func symbolRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r > utf8.RuneSelf:
		return true
	}
	return strings.ContainsRune("*+!-_'?<>=/.&%$", r)
}

// argumentValues appends the values of a tool call's JSON arguments that
// are large enough to be evidence: strings of evidenceMinChars characters
// or more, numbers of evidenceMinDigits digits or more, at any depth;
// object keys are the tool's parameter names, not values. Arguments that
// are not JSON are one string. Arguments past ledgerJSONBytes are read a
// token at a time (streamArgumentValues): decoded whole, 4 MiB of small
// objects held 185 MiB and took two seconds.
func argumentValues(out []string, args string) []string {
	if len(args) > ledgerJSONBytes {
		return streamArgumentValues(out, args, appendAll)
	}
	return decodedArgumentValues(out, args)
}

// decodedArgumentValues is argumentValues decoding the arguments whole,
// which is quicker for short ones.
func decodedArgumentValues(out []string, args string) []string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if utf8.RuneCountInString(strings.TrimSpace(args)) >= evidenceMinChars {
			out = append(out, strings.TrimSpace(args))
		}
		return out
	}
	return jsonValues(out, v)
}

func jsonValues(out []string, v any) []string {
	switch v := v.(type) {
	case string:
		if utf8.RuneCountInString(v) >= evidenceMinChars && strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	case json.Number:
		if bigNumber(string(v)) {
			out = append(out, string(v))
		}
	case []any:
		for _, e := range v {
			out = jsonValues(out, e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = jsonValues(out, v[k])
		}
	}
	return out
}

// bigNumber reports whether the number written s has evidenceMinDigits
// digits or more.
func bigNumber(s string) bool {
	digits := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits >= evidenceMinDigits
}

// TurnEvidence returns the evidence of program, the program a model wrote
// after reading the prompt of a run's earlier turns. earlier is what the
// full strategy sends for those turns, memory the bindings the program
// could read. Two kinds of evidence:
//
//   - the literals of the program (strings of 3 or more characters, numbers
//     of 3 or more digits) that occur verbatim in the output of the earlier
//     turns (full's feedback messages: prints, results, errors) or in a
//     value of the memory, and not in the system prompt or the task (the
//     first user message: mission, tools, data), which every strategy
//     sends;
//   - the names of the memory bindings the program reads.
//
// Literals of the model's own earlier programs are not counted: the model
// needs what its code returned, not its code.
func TurnEvidence(program string, earlier []ChatMessage, memory []Binding) []Evidence {
	literals, symbols := programTokens(program)
	var out []Evidence
	if len(literals) > 0 {
		var context, excluded strings.Builder
		task := true
		for i := range earlier {
			m := &earlier[i]
			switch {
			case m.Role == RoleSystem:
				appendHaystack(&excluded, m)
			case m.Role == RoleUser && task:
				appendHaystack(&excluded, m)
				task = false
			case m.Role != RoleAssistant:
				appendHaystack(&context, m)
			}
		}
		for _, bd := range memory {
			if bd.Value != nil {
				context.WriteByte(0)
				context.WriteString(lisp.Repr(bd.Value))
			}
		}
		out = evidenceIn(literals, context.String(), excluded.String())
	}
	seen := make(map[string]bool)
	for _, sym := range symbols {
		if seen[sym] {
			continue
		}
		seen[sym] = true
		for _, bd := range memory {
			if bd.Name == sym {
				out = append(out, Evidence{Value: sym, Name: true})
				break
			}
		}
	}
	return out
}

// programTokens returns the literals of a PTC-Lisp program large enough to
// be evidence, and its symbols (user/ names without the namespace). It
// reads tokens only, so a program that does not parse still has them.
func programTokens(src string) (literals, symbols []string) {
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '#' && i+1 < len(src) && src[i+1] == '"':
			if c == '#' {
				i++
			}
			s, next := readString(src, i)
			if utf8.RuneCountInString(s) >= evidenceMinChars && strings.TrimSpace(s) != "" {
				literals = append(literals, s)
			}
			i = next
		case c == '\\': // a character literal: \a, \newline
			i += 2
			for i < len(src) && !delimiter(src[i]) {
				i++
			}
		case delimiter(c):
			i++
		default:
			start := i
			for i < len(src) && !delimiter(src[i]) && src[i] != '"' && src[i] != ';' {
				i++
			}
			tok := strings.TrimLeft(src[start:i], "'@#`~^")
			switch {
			case tok == "" || tok[0] == ':':
			case isNumber(tok):
				if bigNumber(tok) {
					literals = append(literals, tok)
				}
			default:
				symbols = append(symbols, strings.TrimPrefix(tok, "user/"))
			}
		}
	}
	return literals, symbols
}

// readString reads the string literal whose opening quote is at src[i] and
// returns its text, escapes resolved, and the index after its closing
// quote (len(src) when it is never closed).
func readString(src string, i int) (string, int) {
	var b strings.Builder
	for i++; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			return b.String(), i + 1
		case '\\':
			if i+1 < len(src) {
				i++
				switch src[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(src[i])
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(src)
}

func delimiter(c byte) bool {
	return strings.IndexByte(" \t\n\r,()[]{}", c) >= 0
}

// isNumber reports whether tok is a number literal: digits, with an
// optional sign, point, exponent or ratio.
func isNumber(tok string) bool {
	t := strings.TrimLeft(tok, "+-")
	return t != "" && t[0] >= '0' && t[0] <= '9' && strings.Trim(t, "0123456789.eEN/M+-") == ""
}

// RawHistory returns req's history as it is, the baseline a chat
// strategy's bill is compared with, with the statistics a strategy reports:
// its tokens, and its bill under req's pricing with the stable prefix
// taken against the history cut before its last assistant message (the
// earlier call, as the chat strategies rebuild it).
func RawHistory(req *Request) (*Response, error) {
	tok := req.Options.counter()
	tokens, err := req.Remembered.tokens(tok, req.History)
	if err != nil {
		return nil, err
	}
	resp := &Response{Messages: req.History, Stats: Stats{
		Strategy:       "raw history",
		MessagesBefore: len(req.History), MessagesAfter: len(req.History),
		TokensBefore: tokens, TokensAfter: tokens, Tokenizer: tok.tokenizer,
	}}
	var prev []ChatMessage
	if earlier := earlierHistoryRequest(req); earlier != nil {
		prev = earlier.History
	}
	if err := price(req, resp, prev, nil, nil); err != nil {
		return nil, err
	}
	return resp, nil
}
