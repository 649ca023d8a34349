// Package trace renders an agent's run as text for a person debugging it:
// what happened in each turn (the program, what it printed, the tool calls it
// made and what they returned, its result or error), or what the LLM is sent
// next, message by message, with token figures on request.
//
// Compression is for the LLM; the trace is for people, so the turns view
// shows everything the turns hold. Values are still rendered as samples are
// (the strategies' renderer with the options' sample limits): a trace of a
// run over large data stays readable, and names and map keys beginning with
// "_" stay hidden, as they are from the LLM.
//
// The text is laid out for an 80-column terminal (see Width): each turn or
// message is a box with a left border between fixed-width rules. A line too
// long for its box wraps at a space, or mid-word when there is none in the
// second half of the line; the continuation starts with "↪ ". Control
// characters are escaped so that a program's output cannot restyle the
// terminal. Colour (Style.Color) only decorates: the layout does not change.
//
// The package knows nothing of gRPC or of the command line; server/ and the
// trace command decode their input into a strategies.Request and call Render.
package trace

import (
	"fmt"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// View is what Render shows.
type View string

const (
	// ViewTurns shows each turn (or, for a chat log, each message) as it
	// happened.
	ViewTurns View = "turns"
	// ViewCompressed shows what the request's strategy sends the LLM next,
	// exactly as ToMessages returns it.
	ViewCompressed View = "compressed"
)

// ParseView reads a view name; "" is the default, ViewTurns.
func ParseView(s string) (View, error) {
	switch View(s) {
	case "", ViewTurns:
		return ViewTurns, nil
	case ViewCompressed:
		return ViewCompressed, nil
	}
	return "", &FieldError{Field: "view", Reason: fmt.Sprintf("unknown view %q (known: turns, compressed)", s)}
}

// FieldError is a request field Render cannot work with.
type FieldError struct {
	Field  string // the field's wire name
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

// Render renders req in the given view. raw adds each turn's raw LLM
// response; usage adds token figures (per turn, or per message in the
// compressed view) and the compression summary. The options of req must be
// normalized; the result depends only on the arguments. When
// req.AnswerLimit is above 0, a text that passes it is not built past it:
// Render answers *strategies.AnswerTooLargeError.
func Render(req *strategies.Request, view View, raw, usage bool, style Style) (string, error) {
	p := &page{style: style, room: strategies.NewAnswerRoom(req.AnswerLimit)}
	var err error
	switch view {
	case ViewTurns, "":
		err = renderTurns(p, req, raw, usage)
	case ViewCompressed:
		err = renderCompressed(p, req, usage)
	default:
		_, err = ParseView(string(view))
	}
	if err == nil {
		err = p.room.Take(p.b.Len()) // the last piece
	}
	if err == nil {
		err = p.full
	}
	if err != nil {
		return "", err
	}
	return p.String(), nil
}

// renderTurns writes a box per turn, then the memory after the last turn.
// A request without turns but with a chat log lists the log instead.
func renderTurns(p *page, req *strategies.Request, raw, usage bool) error {
	if len(req.Turns) == 0 && len(req.History) > 0 {
		return renderHistory(p, req, usage)
	}
	if len(req.Turns) == 0 {
		p.open(plain("No turns"))
		p.text(0, "The request holds no turns yet: the next call is the agent's first.", "")
		p.close()
	}
	for i := range req.Turns {
		var tokens *turnTokens
		if usage {
			t, err := countTurnTokens(req, i)
			if err != nil {
				return err
			}
			tokens = &t
		}
		writeTurn(p, &req.Turns[i], i+1, &req.Options, raw, tokens)
	}
	writeMemory(p, req.Memory, &req.Options)
	if usage {
		return writeCompression(p, req)
	}
	return nil
}

// renderCompressed writes the messages the strategy sends next, each in a
// box, exactly as ToMessages returns them.
func renderCompressed(p *page, req *strategies.Request, usage bool) error {
	// A box may be shorter than its message (it drops spaces): the
	// messages count only what their boxes show at the least, and the
	// page counts itself.
	shown := *req
	shown.AnswerShown = true
	resp, err := strategies.Render(&shown)
	if err != nil {
		return err
	}
	if err := writeMessages(p, resp.Messages, &req.Options, usage); err != nil {
		return err
	}
	if usage {
		writeStats(p, resp.Stats, inputOf(req.Options.Strategy))
	}
	return nil
}

// renderHistory lists a chat log message by message, as the turns view of
// an agent that keeps messages rather than turns.
func renderHistory(p *page, req *strategies.Request, usage bool) error {
	if err := writeMessages(p, req.History, &req.Options, usage); err != nil {
		return err
	}
	if usage {
		return writeCompression(p, req)
	}
	return nil
}

func inputOf(strategy string) strategies.Input {
	st, err := strategies.Lookup(strategy)
	if err != nil {
		return strategies.InputTurns
	}
	return st.Input()
}

// plural writes n and the noun, with an "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// joinNames lists names separated by commas.
func joinNames(names []string) string { return strings.Join(names, ", ") }
