package strategies

import (
	"math"
	"reflect"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// bookingHistory is a customer-service exchange: the agent reads a user's
// reservation, then (next) changes it with values read from the result.
func bookingHistory() ([]ChatMessage, ChatMessage) {
	h := []ChatMessage{
		{Role: RoleSystem, Content: "You are an airline agent. Policy version 2024-07."},
		{Role: RoleUser, Content: "Hi, I am mia_li_3668 and I want to change my flight."},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "c1", Name: "get_user", Arguments: `{"user_id": "mia_li_3668"}`}}},
		{Role: RoleTool, ToolCallID: "c1", Content: `{"reservations": ["NO6JO3"], "payment": "credit_card_4421", "miles": 12}`},
		{Role: RoleUser, Content: "Yes, please proceed."},
	}
	next := ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{
		{ID: "c2", Name: "update_reservation", Arguments: `{"reservation_id": "NO6JO3", "payment_id": "credit_card_4421", "user_id": "mia_li_3668", "cabin": "economy", "policy": "2024-07", "miles": 12, "amount": 4421}`},
	}}
	return h, next
}

func values(ev []Evidence) []string {
	out := make([]string, len(ev))
	for i, e := range ev {
		out[i] = e.Value
	}
	return out
}

func TestChatEvidence(t *testing.T) {
	h, next := bookingHistory()
	ev := ChatEvidence(h, &next)
	// "economy" is nowhere in the history (the model chose it); "2024-07" is
	// in the system prompt; 12 has two digits; 4421 occurs inside
	// credit_card_4421, verbatim. Keys are visited in sorted order.
	want := []string{"4421", "credit_card_4421", "NO6JO3", "mia_li_3668"}
	if got := values(ev); !reflect.DeepEqual(got, want) {
		t.Fatalf("evidence %q, want %q", got, want)
	}
}

func TestMeasureRecallKeptAndDropped(t *testing.T) {
	h, next := bookingHistory()
	ev := ChatEvidence(h, &next)

	kept := MeasureRecall(ev, h)
	if kept.Evidence != 4 || kept.Kept != 4 || len(kept.Lost) != 0 || kept.Share() != 1 {
		t.Fatalf("the whole history kept %+v, want 4 of 4", kept)
	}

	// A turn-aware cut: the system prompt and the latest prompt only.
	cut := []ChatMessage{h[0], h[4]}
	lost := MeasureRecall(ev, cut)
	if lost.Kept != 0 || len(lost.Lost) != 4 || lost.Share() != 0 {
		t.Fatalf("a cut history kept %+v, want 0 of 4", lost)
	}

	// The user's first message kept, the tool result dropped: only the user
	// id survives.
	part := MeasureRecall(ev, []ChatMessage{h[0], h[1], h[4]})
	if part.Kept != 1 || math.Abs(part.Share()-0.25) > 1e-9 {
		t.Fatalf("kept %+v, want 1 of 4", part)
	}
	if got := values(part.Lost); !reflect.DeepEqual(got, []string{"4421", "credit_card_4421", "NO6JO3"}) {
		t.Fatalf("lost %q", got)
	}
}

func TestChatEvidenceOnlyInSystemPrompt(t *testing.T) {
	h := []ChatMessage{
		{Role: RoleSystem, Content: "Always search the index docs-main."},
		{Role: RoleUser, Content: "Search docs-main for the error."},
	}
	next := ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "search", Arguments: `{"index": "docs-main"}`}}}
	if ev := ChatEvidence(h, &next); len(ev) != 0 {
		t.Fatalf("a value the system prompt holds is evidence: %q", values(ev))
	}
	if r := MeasureRecall(nil, []ChatMessage{h[0]}); r.Share() != 1 || r.Evidence != 0 {
		t.Fatalf("a call without evidence: %+v, want share 1", r)
	}
}

func TestChatEvidenceJSONEscaped(t *testing.T) {
	// An edit copies a line with quotes and a tab from a file it read; the
	// file came back in a tool result as plain text, and the model's
	// earlier call carried the line as a JSON string.
	line := "\tfmt.Println(\"hello\")"
	h := []ChatMessage{
		{Role: RoleUser, Content: "Fix main.go"},
		{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "grep", Arguments: `{"pattern": "\tfmt.Println(\"hello\")"}`}}},
		{Role: RoleTool, ToolCallID: "a", Content: "main.go:3: found"},
	}
	next := ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "b", Name: "edit", Arguments: `{"old": "\tfmt.Println(\"hello\")", "new": "\tfmt.Println(\"bye\")"}`}}}
	ev := ChatEvidence(h, &next)
	if got := values(ev); !reflect.DeepEqual(got, []string{line}) {
		t.Fatalf("evidence %q, want the escaped line only", got)
	}
	if r := MeasureRecall(ev, h[1:2]); r.Kept != 1 {
		t.Fatalf("the line, present JSON-escaped, not found: %+v", r)
	}
	if r := MeasureRecall(ev, h[:1]); r.Kept != 0 {
		t.Fatalf("found the line where it is not: %+v", r)
	}
	// A file's text as a tool returned it: present as it is.
	plain := []ChatMessage{{Role: RoleTool, ToolCallID: "a", Content: "package main\n" + line + "\n"}}
	if r := MeasureRecall(ev, plain); r.Kept != 1 {
		t.Fatalf("the line, present verbatim, not found: %+v", r)
	}
}

func TestChatEvidenceUnparsedArguments(t *testing.T) {
	h := []ChatMessage{{Role: RoleUser, Content: "open report-2025.txt"}}
	next := ChatMessage{Role: RoleAssistant, ToolCalls: []ChatToolCall{{ID: "a", Name: "open", Arguments: `report-2025.txt`}}}
	if got := values(ChatEvidence(h, &next)); !reflect.DeepEqual(got, []string{"report-2025.txt"}) {
		t.Fatalf("arguments that are not JSON: evidence %q", got)
	}
}

func TestTurnEvidence(t *testing.T) {
	earlier := []ChatMessage{
		{Role: RoleSystem, Content: "PTC-Lisp reference"},
		{Role: RoleUser, Content: "Mission: report incident INC-7731."},
		{Role: RoleAssistant, Content: "```clojure\n(def hits (tool/search {:q \"timeout\"}))\n```"},
		{Role: RoleUser, Content: ";; Output:\ndigest 9f2c81aa, 1234 records, source \"payments-api\"\n;; Result: 3"},
	}
	memory := []Binding{
		{Name: "hits", Value: lisp.NewVector([]lisp.Value{lisp.String("rec-00417")})},
		{Name: "all-ids", Value: lisp.NewVector(nil)},
	}
	program := `;; copy "ignored-in-comment"
(def picked (filter #(= (:digest %) "9f2c81aa") hits)) ; comment 5555
(tool/get {:id "rec-00417" :incident "INC-7731" :n 1234 :small 12 :q "timeout" :fresh "never-seen"})
(user/all-ids)`
	ev := TurnEvidence(program, earlier, memory)
	want := []Evidence{
		{Value: "9f2c81aa"}, {Value: "rec-00417"}, {Value: "1234"},
		{Value: "hits", Name: true}, {Value: "all-ids", Name: true},
	}
	if !reflect.DeepEqual(ev, want) {
		t.Fatalf("evidence %+v\nwant     %+v", ev, want)
	}

	// A prompt that shows the output and the names but samples the memory
	// away: the record id is lost.
	sent := []ChatMessage{earlier[0], earlier[1], {Role: RoleUser, Content: "hits ; = list[1]\nall-ids ; = list[0]\n;; Output:\ndigest 9f2c81aa, 1234 records"}}
	r := MeasureRecall(ev, sent)
	if r.Kept != 4 || len(r.Lost) != 1 || r.Lost[0].Value != "rec-00417" {
		t.Fatalf("recall %+v, want rec-00417 lost only", r)
	}
	// A memory name is found as a whole symbol only.
	r = MeasureRecall([]Evidence{{Value: "ids", Name: true}}, []ChatMessage{{Role: RoleUser, Content: "all-ids ; = list[0]\nids-2"}})
	if r.Kept != 0 {
		t.Fatalf("the name ids was found inside all-ids or ids-2: %+v", r)
	}
	r = MeasureRecall([]Evidence{{Value: "ids", Name: true}}, []ChatMessage{{Role: RoleUser, Content: "(count ids)"}})
	if r.Kept != 1 {
		t.Fatalf("the name ids not found in (count ids): %+v", r)
	}
}

func TestRawHistoryBill(t *testing.T) {
	h, next := bookingHistory()
	h = append(h, next, ChatMessage{Role: RoleTool, ToolCallID: "c2", Content: "done"})
	opts := chatDefaults()
	opts.Pricing, _ = resolvePricing("anthropic", nil, nil)
	resp, err := RawHistory(&Request{History: h, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	all, _ := CountMessageTokens(DefaultTokenizer, "", h)
	before, _ := CountMessageTokens(DefaultTokenizer, "", h[:5]) // cut before the last assistant message
	st := resp.Stats
	if st.TokensAfter != all || st.StablePrefixTokens != before || !st.StablePrefixKnown {
		t.Fatalf("stats %+v: want %d tokens, %d of them the stable prefix", st, all, before)
	}
	if want := float64(before)*0.1 + float64(all-before)*1.25; math.Abs(st.BilledTokens-want) > 1e-9 {
		t.Fatalf("billed %v, want %v", st.BilledTokens, want)
	}
}
