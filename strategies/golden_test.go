package strategies

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/*.txtar")

// A golden case is a txtar archive: its comment says which rule it shows,
// and its files are "request.json", the request (values as EDN text), and
// the expected output: "user" (the USER message of
// single-user-coalesced), "messages" (every message, for full), "stats",
// "bill" (the cost statistics) and "error" (the error of an invalid
// request). Run with -update to rewrite the expected files after a
// deliberate change, then review the diff.

// archiveFile is the named file of a, without its final newline.
func archiveFile(a *txtar.Archive, name string) (string, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return strings.TrimSuffix(string(f.Data), "\n"), true
		}
	}
	return "", false
}

// setArchiveFile replaces the named file of a with body.
func setArchiveFile(a *txtar.Archive, name, body string) {
	for i := range a.Files {
		if a.Files[i].Name == name {
			a.Files[i].Data = []byte(body + "\n")
		}
	}
}

// goldenRequest is the request of a golden file, shaped like the wire
// request with values written as EDN text.
type goldenRequest struct {
	Options struct {
		Strategy             string     `json:"strategy"`
		Mission              string     `json:"mission"`
		SystemPrompt         *string    `json:"systemPrompt"`
		Tools                []ToolSpec `json:"tools"`
		Data                 string     `json:"data"`
		Signature            string     `json:"signature"`
		MaxTurns             *int       `json:"maxTurns"`
		TurnsLeft            *int       `json:"turnsLeft"`
		PrintlnLimit         *int       `json:"printlnLimit"`
		ToolCallLimit        *int       `json:"toolCallLimit"`
		SampleLimit          *int       `json:"sampleLimit"`
		SamplePrintableLimit *int       `json:"samplePrintableLimit"`
		Tokenizer            string     `json:"tokenizer"`
		Pricing              string     `json:"pricing"`
	} `json:"options"`
	Memory []goldenBinding `json:"memory"`
	Turns  []struct {
		Number      int      `json:"number"`
		RawResponse string   `json:"rawResponse"`
		Program     string   `json:"program"`
		Result      string   `json:"result"`
		Prints      []string `json:"prints"`
		ToolCalls   []struct {
			Name string `json:"name"`
			Args string `json:"args"`
		} `json:"toolCalls"`
		Defined []string        `json:"defined"`
		Memory  []goldenBinding `json:"memory"` // a snapshot sent: null when not
		Success bool            `json:"success"`
		Error   *TurnError      `json:"error"`
	} `json:"turns"`
}

type goldenBinding struct {
	Name       string   `json:"name"`
	Value      string   `json:"value"`
	IsFn       bool     `json:"isFn"`
	Params     []string `json:"params"`
	Docstring  string   `json:"docstring"`
	ReturnType string   `json:"returnType"`
	Turn       int      `json:"turn"`
}

func (gb goldenBinding) build() (Binding, error) {
	b := Binding{Name: gb.Name, Turn: gb.Turn}
	if gb.IsFn {
		b.Fn = &Function{Params: gb.Params, Docstring: gb.Docstring, ReturnType: gb.ReturnType}
	} else {
		v, err := parseValue(gb.Value)
		if err != nil {
			return b, err
		}
		b.Value = v
	}
	return b, nil
}

// parseValue reads a value of a golden file with the wire's EDN reader.
func parseValue(text string) (lisp.Value, error) { return lisp.ParseEDN(text, 0) }

// goldenSystemPrompt stands in for the system prompt in golden files, whose
// subject is the USER message.
const goldenSystemPrompt = "You write PTC-Lisp programs."

func (gr *goldenRequest) build() (*Request, error) {
	o := gr.Options
	raw := RawOptions{
		Strategy: o.Strategy, Mission: o.Mission, Tools: o.Tools, Signature: o.Signature,
		MaxTurns: o.MaxTurns, TurnsLeft: o.TurnsLeft, PrintlnLimit: o.PrintlnLimit,
		ToolCallLimit: o.ToolCallLimit, SampleLimit: o.SampleLimit,
		SamplePrintableLimit: o.SamplePrintableLimit, Tokenizer: o.Tokenizer,
		SystemPrompt: goldenSystemPrompt, Pricing: o.Pricing,
	}
	if o.SystemPrompt != nil {
		raw.SystemPrompt = *o.SystemPrompt
	}
	if o.Data != "" {
		v, err := parseValue(o.Data)
		if err != nil {
			return nil, fmt.Errorf("options.data: %w", err)
		}
		raw.Data = v
	}
	opts, err := Normalize(raw)
	if err != nil {
		return nil, err
	}
	req := &Request{Options: opts}
	for i, m := range gr.Memory {
		b, err := m.build()
		if err != nil {
			return nil, fmt.Errorf("memory[%d].value: %w", i, err)
		}
		req.Memory = append(req.Memory, b)
	}
	for i, t := range gr.Turns {
		turn := Turn{Number: t.Number, RawResponse: t.RawResponse, Program: t.Program, Prints: t.Prints, Defined: t.Defined, Success: t.Success, Error: t.Error}
		turn.HasMemory = t.Memory != nil
		for j, m := range t.Memory {
			b, err := m.build()
			if err != nil {
				return nil, fmt.Errorf("turns[%d].memory[%d].value: %w", i, j, err)
			}
			turn.Memory = append(turn.Memory, b)
		}
		if t.Result != "" {
			v, err := parseValue(t.Result)
			if err != nil {
				return nil, fmt.Errorf("turns[%d].result: %w", i, err)
			}
			turn.Result = v
		}
		for j, c := range t.ToolCalls {
			tc := ToolCall{Index: j, Name: c.Name}
			if c.Args != "" {
				v, err := parseValue(c.Args)
				if err != nil {
					return nil, fmt.Errorf("turns[%d].toolCalls[%d].args: %w", i, j, err)
				}
				tc.Args = v
			}
			turn.ToolCalls = append(turn.ToolCalls, tc)
		}
		req.Turns = append(req.Turns, turn)
	}
	return req, nil
}

func renderMessages(msgs []ChatMessage) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "=== %s ===\n%s\n", m.Role, m.Content)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func renderStats(s Stats) string {
	return fmt.Sprintf(`strategy: %s
turns_compressed: %d
tool_calls: %d total, %d shown, %d dropped
printlns: %d total, %d shown, %d dropped
error_turns_collapsed: %d
messages: %d before, %d after
chars: %d before, %d after
tokens: %d before, %d after (%s)`,
		s.Strategy, s.TurnsCompressed,
		s.ToolCallsTotal, s.ToolCallsShown, s.ToolCallsDropped,
		s.PrintlnsTotal, s.PrintlnsShown, s.PrintlnsDropped,
		s.ErrorTurnsCollapsed, s.MessagesBefore, s.MessagesAfter,
		s.CharsBefore, s.CharsAfter, s.TokensBefore, s.TokensAfter, s.Tokenizer)
}

// renderBill shows the cost statistics: the stable prefix against the
// earlier call rebuilt from the request, the bill and the breakpoints.
func renderBill(s Stats) string {
	bp := func(b *Breakpoint) string {
		if b == nil {
			return "none"
		}
		return fmt.Sprintf("message %d offset %d", b.Message, b.Offset)
	}
	known := "known"
	if !s.StablePrefixKnown {
		known = "unknown: " + s.StablePrefixNote
	}
	return fmt.Sprintf(`stable_prefix: %d tokens (%s)
cache_write: %d tokens
billed: %.2f (%s)
cache_breakpoint: %s
next_cache_breakpoint: %s`,
		s.StablePrefixTokens, known, s.CacheWriteTokens, s.BilledTokens, s.Pricing,
		bp(s.CacheBreakpoint), bp(s.NextCacheBreakpoint))
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			g := txtar.Parse(text)
			reqJSON, ok := archiveFile(g, "request.json")
			if !ok {
				t.Fatal("missing request.json section")
			}
			var gr goldenRequest
			dec := json.NewDecoder(strings.NewReader(reqJSON))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&gr); err != nil {
				t.Fatalf("request.json: %v", err)
			}
			got := map[string]string{}
			req, err := gr.build()
			var resp *Response
			if err == nil {
				var s Strategy
				if s, err = Lookup(req.Options.Strategy); err == nil {
					resp, err = s.Render(req)
				}
			}
			if _, wantErr := archiveFile(g, "error"); err != nil && !wantErr {
				t.Fatalf("unexpected error: %v", err)
			}
			if err != nil {
				got["error"] = err.Error()
			} else {
				got["user"] = resp.Messages[len(resp.Messages)-1].Content
				if len(resp.Messages) == 2 && resp.Messages[1].Role == RoleUser {
					got["user"] = resp.Messages[1].Content
				}
				got["messages"] = renderMessages(resp.Messages)
				got["stats"] = renderStats(resp.Stats)
				got["bill"] = renderBill(resp.Stats)
			}
			checked := 0
			for _, name := range []string{"user", "messages", "stats", "bill", "error"} {
				want, ok := archiveFile(g, name)
				if !ok {
					continue
				}
				checked++
				if *update {
					setArchiveFile(g, name, got[name])
					continue
				}
				if got[name] != want {
					t.Errorf("%s differs\n--- got ---\n%s\n--- want ---\n%s", name, got[name], want)
				}
			}
			if checked == 0 {
				t.Fatal("no expected section (user, messages, stats or error)")
			}
			if *update {
				if err := os.WriteFile(file, txtar.Format(g), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
