package strategies

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The rules OpenAI's Chat Completions API and Anthropic's Messages API
// enforce on a request's messages, as a test helper: every chat strategy's
// output must pass both (providerRules). They are written from the
// providers' documented rules and their error messages, not from the
// strategies' code; testdata/provider_rules.py checks the same outputs a
// second, independent way.

// anthropicToolID is the pattern Anthropic's API holds tool_use ids to.
var anthropicToolID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// providerRules returns every rule of either provider that msgs break.
func providerRules(msgs []ChatMessage) []error {
	return append(openAIRules(msgs), anthropicRules(msgs)...)
}

// openAIRules are the Chat Completions API's rules for messages.
func openAIRules(msgs []ChatMessage) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("openai: "+format, args...)) }
	if len(msgs) == 0 {
		bad("messages must not be empty")
	}
	// open holds the calls of the last assistant message with tool calls
	// that tool messages may still answer; nil once another message comes.
	var open map[string]bool
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			open = nil
		case RoleUser:
			open = nil
		case RoleAssistant:
			open = nil
			if m.Content == "" && len(m.ToolCalls) == 0 {
				bad("messages[%d]: an assistant message needs content or tool_calls", i)
			}
			if len(m.ToolCalls) > 0 {
				open = map[string]bool{}
				for _, tc := range m.ToolCalls {
					if tc.ID == "" || tc.Name == "" {
						bad("messages[%d]: a tool call needs an id and a function name", i)
					}
					if open[tc.ID] {
						bad("messages[%d]: duplicate tool_call id %q", i, tc.ID)
					}
					open[tc.ID] = true
				}
				// Every call must be answered by the tool messages that follow.
				answered := map[string]bool{}
				for j := i + 1; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
					answered[msgs[j].ToolCallID] = true
				}
				var missing []string
				for _, tc := range m.ToolCalls {
					if !answered[tc.ID] {
						missing = append(missing, tc.ID)
					}
				}
				if len(missing) > 0 {
					bad("messages[%d]: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'; missing %v", i, missing)
				}
			}
		case RoleTool:
			if open == nil || !open[m.ToolCallID] {
				bad("messages[%d]: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (%q)", i, m.ToolCallID)
			} else {
				delete(open, m.ToolCallID) // a second answer is not a response to an open call
			}
		default:
			bad("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	return errs
}

// anthropicRules are the Messages API's rules, applied to the request a
// client maps msgs to: system messages become the system parameter, each
// tool message a tool_result block of a user turn, and consecutive turns of
// one role are combined into one, as the API does.
func anthropicRules(msgs []ChatMessage) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("anthropic: "+format, args...)) }
	type block struct {
		kind string // text, tool_use, tool_result
		text string
		id   string
	}
	type turn struct {
		role   string
		blocks []block
	}
	var turns []turn
	seenNonSystem := false
	ids := map[string]bool{}
	for i, m := range msgs {
		var role string
		var blocks []block
		switch m.Role {
		case RoleSystem:
			if seenNonSystem {
				bad("messages[%d]: a system message after the conversation started has no place (system is a top-level parameter)", i)
			}
			continue
		case RoleUser:
			role, blocks = "user", []block{{kind: "text", text: m.Content}}
		case RoleTool:
			role, blocks = "user", []block{{kind: "tool_result", id: m.ToolCallID}}
		case RoleAssistant:
			role = "assistant"
			if m.Content != "" || len(m.ToolCalls) == 0 {
				blocks = append(blocks, block{kind: "text", text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, block{kind: "tool_use", id: tc.ID})
				if !anthropicToolID.MatchString(tc.ID) {
					bad("messages[%d]: tool_use.id %q does not match %s", i, tc.ID, anthropicToolID)
				}
				if ids[tc.ID] {
					bad("messages[%d]: tool_use ids must be unique (%q)", i, tc.ID)
				}
				ids[tc.ID] = true
				var input any
				if tc.Arguments != "" {
					if err := json.Unmarshal([]byte(tc.Arguments), &input); err != nil {
						bad("messages[%d]: tool_use.input of %q is not JSON", i, tc.ID)
					} else if _, ok := input.(map[string]any); !ok {
						bad("messages[%d]: tool_use.input of %q is not an object", i, tc.ID)
					}
				}
			}
		default:
			bad("messages[%d]: unknown role %q", i, m.Role)
			continue
		}
		seenNonSystem = true
		if n := len(turns); n > 0 && turns[n-1].role == role {
			turns[n-1].blocks = append(turns[n-1].blocks, blocks...)
		} else {
			turns = append(turns, turn{role: role, blocks: blocks})
		}
	}
	if len(turns) == 0 {
		bad("messages: at least one message is required")
		return errs
	}
	if turns[0].role != "user" {
		bad("messages: the first message must use the user role")
	}
	for t, tr := range turns {
		final := t == len(turns)-1
		for _, b := range tr.blocks {
			if b.kind != "text" {
				continue
			}
			switch {
			case final && tr.role == "assistant" && b.text != strings.TrimRightFunc(b.text, unicode.IsSpace):
				bad("messages[%d]: final assistant content cannot end with trailing whitespace", t)
			case !(final && tr.role == "assistant") && strings.TrimSpace(b.text) == "":
				bad("messages[%d]: text content blocks must contain non-whitespace text", t)
			}
		}
		// Tool results answer the tool uses of the assistant turn right
		// before, each exactly once, and come before any text of their turn.
		var uses map[string]bool
		if t > 0 && turns[t-1].role == "assistant" {
			uses = map[string]bool{}
			for _, b := range turns[t-1].blocks {
				if b.kind == "tool_use" {
					uses[b.id] = true
				}
			}
		}
		text := false
		for _, b := range tr.blocks {
			switch b.kind {
			case "text":
				text = true
			case "tool_result":
				if tr.role != "user" {
					continue
				}
				if text {
					bad("messages[%d]: tool_result blocks must come before any text in the user message", t)
				}
				if !uses[b.id] {
					bad("messages[%d]: unexpected tool_use_id %q in tool_result blocks: each tool_result must answer a tool_use of the previous message", t, b.id)
				}
				delete(uses, b.id)
			}
		}
		if tr.role == "assistant" {
			var pending []string
			for _, b := range tr.blocks {
				if b.kind == "tool_use" {
					pending = append(pending, b.id)
				}
			}
			if len(pending) == 0 {
				continue
			}
			answered := map[string]bool{}
			if t+1 < len(turns) {
				for _, b := range turns[t+1].blocks {
					if b.kind == "tool_result" {
						answered[b.id] = true
					}
				}
			}
			for _, id := range pending {
				if !answered[id] {
					bad("messages[%d]: tool_use ids were found without tool_result blocks immediately after: %s", t, id)
				}
			}
		}
	}
	return errs
}

// checkProviderRules fails the test with every rule msgs break.
func checkProviderRules(msgs []ChatMessage) error {
	return errors.Join(providerRules(msgs)...)
}

// refusedRequest is a request a provider refuses, and which.
type refusedRequest struct {
	msgs     []ChatMessage
	provider string
}

// refusedRequests are requests each broken in one way a provider refuses,
// by name; acceptedRequest is one both take.
func refusedRequests() (map[string]refusedRequest, []ChatMessage) {
	sys := ChatMessage{Role: RoleSystem, Content: "s"}
	user := ChatMessage{Role: RoleUser, Content: "q"}
	call := func(ids ...string) ChatMessage {
		m := ChatMessage{Role: RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, ChatToolCall{ID: id, Name: "t", Arguments: "{}"})
		}
		return m
	}
	res := func(id string) ChatMessage { return ChatMessage{Role: RoleTool, ToolCallID: id, Content: "r"} }
	say := func(s string) ChatMessage { return ChatMessage{Role: RoleAssistant, Content: s} }
	refused := map[string]refusedRequest{
		"empty":                        {nil, "openai"},
		"system only":                  {[]ChatMessage{sys}, "anthropic"},
		"assistant first":              {[]ChatMessage{sys, say("hi"), user}, "anthropic"},
		"orphan result":                {[]ChatMessage{user, res("a")}, "openai"},
		"unanswered call":              {[]ChatMessage{user, call("a", "b"), res("a")}, "openai"},
		"unanswered call, anthropic":   {[]ChatMessage{user, call("a", "b"), res("a"), user}, "anthropic"},
		"user between call and result": {[]ChatMessage{user, call("a"), user, res("a")}, "openai"},
		"result answered twice":        {[]ChatMessage{user, call("a"), res("a"), res("a")}, "openai"},
		"id reused across loops":       {[]ChatMessage{user, call("a"), res("a"), call("a"), res("a")}, "anthropic"},
		"id with a dot":                {[]ChatMessage{user, call("a.1"), res("a.1")}, "anthropic"},
		"empty user message":           {[]ChatMessage{user, say("x"), {Role: RoleUser, Content: " \n"}}, "anthropic"},
		"empty assistant message":      {[]ChatMessage{user, say("")}, "openai"},
		"system in the middle":         {[]ChatMessage{user, sys}, "anthropic"},
		"arguments not an object":      {[]ChatMessage{user, {Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "t", Arguments: "[1]"}}}, res("a")}, "anthropic"},
		"final assistant whitespace":   {[]ChatMessage{user, say("ok ")}, "anthropic"},
		"unknown role":                 {[]ChatMessage{user, {Role: "bot", Content: "x"}}, "openai"},
	}
	// Parallel calls answered in another order, text after tool results,
	// consecutive user and assistant messages: both accept these.
	accepted := []ChatMessage{sys, user, user, call("a", "b"), res("b"), res("a"), user, say("done"), say("really"), user}
	return refused, accepted
}

// TestProviderRulesCatch makes sure the checker can fail: each refused
// request breaks a rule of the provider that refuses it, and the accepted
// one breaks none.
func TestProviderRulesCatch(t *testing.T) {
	refused, accepted := refusedRequests()
	for name, c := range refused {
		found := false
		for _, err := range providerRules(c.msgs) {
			if strings.HasPrefix(err.Error(), c.provider+":") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s rule broken (%v)", name, c.provider, providerRules(c.msgs))
		}
	}
	if errs := providerRules(accepted); len(errs) > 0 {
		t.Errorf("valid request refused: %v", errs)
	}
}

// TestProviderRulesScriptCatch makes sure the independent checker can fail
// too: it refuses each refused request for the right provider, and accepts
// the accepted one.
func TestProviderRulesScriptCatch(t *testing.T) {
	refused, accepted := refusedRequests()
	var log outputLog
	for name, c := range refused {
		log.add(name, c.msgs)
	}
	out, err := log.runScript(t)
	if err == nil {
		t.Fatalf("provider_rules.py accepted every refused request:\n%s", out)
	}
	reported := map[string]string{} // label -> its problems
	label := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "    ") {
			reported[label] += line + "\n"
		} else {
			label = line
		}
	}
	for name, c := range refused {
		if !strings.Contains(reported[name], c.provider+":") {
			t.Errorf("%s: provider_rules.py reports no %s problem:\n%s", name, c.provider, reported[name])
		}
	}
	var ok outputLog
	ok.add("accepted", accepted)
	if out, err := ok.runScript(t); err != nil {
		t.Errorf("provider_rules.py refused a valid request: %v\n%s", err, out)
	}
}
