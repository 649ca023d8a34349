// Package strategies turns an agent's history into the message array to send
// to its LLM next. Each strategy is a pure function of its Request: the same
// request gives the byte-identical response, which is what lets providers
// cache the prompt prefix.
//
// The package knows nothing of gRPC; server/ translates between the wire and
// these types.
package strategies

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Input says which part of a Request a strategy reads.
type Input string

const (
	// InputTurns strategies read PTC-Lisp turns and memory.
	InputTurns Input = "turns"
	// InputHistory strategies read a chat message log.
	InputHistory Input = "history"
)

// Turn is one LLM cycle of a code-acting agent, as EvalTurn produced it.
type Turn struct {
	Number      int
	RawResponse string
	Program     string
	Result      lisp.Value // nil when the turn failed
	Prints      []string   // one entry per println call
	ToolCalls   []ToolCall
	// Memory is the snapshot after the turn. Only the stable prefix reads
	// it, on the second-to-last turn (earlierTurnRequest); HasMemory says
	// whether it was sent, since an empty memory is a memory too.
	Memory    []Binding
	HasMemory bool
	Defined   []string
	Success   bool
	Error     *TurnError
	Warnings  []TurnWarning // what the sidecar forgave in a turn that ran anyway
	Returned  bool
	Failed    bool
	Duration  time.Duration
	// ProgramCallID is the id of the LLM's tool call that carried the
	// program ("" when it came from a fenced block or a bare program);
	// RawResponse then holds the reply's text beside the call.
	ProgramCallID string
}

// TurnError is why a turn failed, written for the LLM.
type TurnError struct {
	Type, Message, Hint string
}

// TurnWarning is one thing the sidecar forgave in a turn that ran anyway,
// such as a stray closing bracket after the program's last form.
type TurnWarning struct {
	Type, Message string
}

// ToolCall is one tool call made during a turn.
type ToolCall struct {
	Index    int
	Name     string
	Args     lisp.Value
	Result   lisp.Value // nil when the call failed
	Error    string
	Duration time.Duration
}

// Binding is one entry of the user's prelude (memory): a value, or a
// function (Fn set).
type Binding struct {
	Name  string
	Value lisp.Value // the value; nil for functions
	Fn    *Function  // nil for a value
	Turn  int        // the turn that last defined it; 0 when unknown
}

// Function is what a function binding holds besides its name, apart from
// Binding so that a memory of many small values does not carry it (72
// bytes a binding, 60% of one).
type Function struct {
	Source     string   // its PTC-Lisp source
	Params     []string // parameter names, "&" before a rest parameter
	Docstring  string
	ReturnType string // type label of the function's last return, "" when never called
}

// ChatMessage is one message of a chat log, in the shape OpenAI- and
// Anthropic-style clients use.
type ChatMessage struct {
	Role       string // system, user, assistant, tool
	Content    string
	Source     string // direct, broadcast, system or ""
	SenderID   string
	ToolCalls  []ChatToolCall
	ToolCallID string
	Reasoning  string
	Name       string // the participant's name (OpenAI's name), carried as it is
	// Parts are the message's content blocks in order (parts.go); a
	// message with parts has an empty Content.
	Parts []ContentPart
}

// Chat roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ChatToolCall is a tool call requested by an assistant message.
type ChatToolCall struct {
	ID, Name, Arguments string // Arguments is JSON text
}

// ToolSpec describes a tool the agent may call.
type ToolSpec struct {
	Name, Signature, Description string
}

// Request is everything a strategy may read. Options have been normalized
// (defaults applied, ranges checked) before a strategy sees them.
type Request struct {
	Turns   []Turn
	Memory  []Binding
	History []ChatMessage
	Options Options
	// Summary is the caller's model's summary of the history's beginning,
	// sent back to the summarize strategy; nil when there is none.
	Summary *Summary
	// Remembered is what the strategies remember between requests; nil
	// remembers nothing. Either way the answer is the same.
	Remembered *Remembered
	// Context, when not nil, is the request's: once it ends, rendering
	// stops with its error (tokenizing a large history is most of the
	// work, and no one would read the answer).
	Context context.Context
	// AnswerLimit, when above 0, is the most bytes the answer may take on
	// the wire: rendering stops with an *AnswerTooLargeError once what it
	// has written of the answer passes it (answerroom.go), rather than
	// building an answer the caller will not receive. 0 renders whole.
	AnswerLimit int
	// AnswerShown says that the answer is shown in boxes (RenderTrace's
	// compressed view), which may drop spaces: AnswerLimit then counts
	// only the bytes a box shows of each text at the least, so that a
	// view within the limit is never refused (answerroom.go).
	AnswerShown bool
	// earlier marks the rebuilt request of the call before, rendered for
	// its messages only: its own bill is not computed (priceChat).
	earlier bool
}

// Response is a strategy's output.
type Response struct {
	Messages []ChatMessage
	Stats    Stats
	// SummaryRequest, from the summarize strategy, is the request the
	// caller's model should answer with a summary; nil when none is due.
	SummaryRequest *SummaryRequest
}

// Stats describe what a compression did. "Before" figures are what the
// uncompressed history (the full strategy, or the input log for chat
// strategies) would have sent.
type Stats struct {
	Strategy            string
	TurnsCompressed     int
	ToolCallsTotal      int
	ToolCallsShown      int
	ToolCallsDropped    int
	PrintlnsTotal       int
	PrintlnsShown       int
	PrintlnsDropped     int
	ErrorTurnsCollapsed int
	MessagesBefore      int
	MessagesAfter       int
	CharsBefore         int
	CharsAfter          int
	TokensBefore        int
	TokensAfter         int
	Tokenizer           string
	SyntheticNudge      bool
	NudgesExhausted     bool
	ToolUsesCleared     int
	TokensCleared       int

	// What the call is billed with prompt caching (bill.go, prefix.go).
	StablePrefixTokens int
	StablePrefixKnown  bool
	StablePrefixNote   string
	CacheWriteTokens   int
	BilledTokens       float64
	Pricing            string
	// The provider's minimum cacheable prefix the bill applied (0: none);
	// whether the stable prefix was shorter, so no cache hit; and the
	// tokens billed as fresh input because the prompt was shorter.
	MinCacheableTokens   int
	StablePrefixUncached bool
	UncachedTokens       int
	// The model named by the model option, and its context window (0 when
	// no model was named).
	Model               string
	ContextWindow       int
	CacheBreakpoint     *Breakpoint // nil when the stable prefix reaches no content
	NextCacheBreakpoint *Breakpoint // nil when the strategy promises nothing
	// writeEnd is the tokens before NextCacheBreakpoint, where the call's
	// cache write ends, when writeEndKnown (else it writes to the end).
	writeEnd      int
	writeEndKnown bool

	// Chat strategies: where the prompt came from, and what the output
	// leaves out of the history.
	PromptSource         string
	MessagesDropped      int
	TokensDropped        int
	ToolLoopsDropped     int
	MessagesRepaired     int
	ToolCallIDsRewritten int
	TaskPinned           bool
	// Chat strategies: the provider whose rules the output keeps, and what
	// those rules moved or changed (chatoutput.go).
	Provider         string
	PromptsLed       int
	UnitsNoted       int
	GreetingsDropped int

	// Chat strategies: content parts (parts.go), reasoning cleared by
	// keep_thinking_turns, and a provider's compaction.
	PartTokens            int
	PartsEstimated        int
	ThinkingCleared       int
	ThinkingTokensCleared int
	CompactionReplaced    int

	// ProgramTool is the tool to declare to the LLM in tool-call form
	// (program_form "tool_call"); nil otherwise.
	ProgramTool *ProgramTool

	// summarize: the summary the output holds, and the one it asks for.
	MessagesSummarized         int
	SummaryTokens              int
	SummaryRequested           bool
	SummaryRequestTokens       int
	SummaryRequestPrefixTokens int
}

// OptionDoc documents one option a strategy honours, for ListStrategies.
type OptionDoc struct {
	Name, Default, Description string
}

// Strategy is one way of building the next message array.
type Strategy interface {
	Name() string
	Description() string
	Input() Input
	Options() []OptionDoc
	Render(req *Request) (*Response, error)
}

// DefaultStrategy is used when a request names none.
const DefaultStrategy = "single-user-coalesced"

var registry = map[string]Strategy{}

// register adds s to the registry; strategies call it from init.
func register(s Strategy) {
	if _, dup := registry[s.Name()]; dup {
		panic("strategies: duplicate strategy " + s.Name())
	}
	registry[s.Name()] = s
}

// Lookup returns the strategy with the given name ("" means the default).
func Lookup(name string) (Strategy, error) {
	if name == "" {
		name = DefaultStrategy
	}
	s, ok := registry[name]
	if !ok {
		return nil, &OptionError{Option: "strategy", Reason: fmt.Sprintf("unknown strategy %q (known: %v)", name, Names())}
	}
	return s, nil
}

// All returns every registered strategy, sorted by name.
func All() []Strategy {
	out := make([]Strategy, 0, len(registry))
	for _, name := range Names() {
		out = append(out, registry[name])
	}
	return out
}

// Names returns the registered strategy names, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Render renders req with the strategy its options name, once it has
// checked that the request carries the input that strategy reads: turns
// sent to a strategy that reads history, or history sent to one that reads
// turns, would be ignored, and the answer would look as if nothing had been
// sent. Every caller (ToMessages, RenderTrace, the trace command) renders
// through it.
func Render(req *Request) (*Response, error) {
	st, err := Lookup(req.Options.Strategy)
	if err != nil {
		return nil, err
	}
	switch {
	case st.Input() == InputHistory && len(req.Turns) > 0:
		return nil, &InputError{Field: "turns", Reason: fmt.Sprintf("strategy %q reads history, not turns: send the conversation as history, or choose a strategy that reads turns (ListStrategies says which input each reads)", st.Name())}
	case st.Input() == InputTurns && len(req.History) > 0:
		return nil, &InputError{Field: "history", Reason: fmt.Sprintf("strategy %q reads turns, not history: send the run as turns, or choose a strategy that reads history (ListStrategies says which input each reads)", st.Name())}
	}
	if req.Summary != nil && st.Name() != summarizeName && st.Name() != summarizeTurnsName {
		return nil, &InputError{Field: "summary", Reason: fmt.Sprintf("strategy %q reads no summary: only %q and %q place one", st.Name(), summarizeName, summarizeTurnsName)}
	}
	during := *req
	during.Remembered = req.Remembered.during(req.Context, req.Options.signatures)
	return st.Render(&during)
}

// InputError is a request whose turns or history the chosen strategy does
// not read. server/ maps it to INVALID_ARGUMENT naming the field.
type InputError struct {
	Field  string // "turns" or "history": what the request should not hold
	Reason string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Reason }

// OptionError is a request option that is missing, malformed or out of range.
// server/ maps it to INVALID_ARGUMENT naming the option.
type OptionError struct {
	Option string // the option's wire name, e.g. "println_limit" or "tools[2].signature"
	Reason string
}

func (e *OptionError) Error() string { return "options." + e.Option + ": " + e.Reason }
