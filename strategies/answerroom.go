package strategies

import (
	"fmt"
	"strings"
)

// An answer is refused when it passes the caller's receive limit
// (Request.AnswerLimit, from options.max_response_bytes), and a writer
// that writes more bytes than it reads would otherwise build the whole
// answer first: a program of control characters sent as a tool call is six
// times longer in JSON, a trace of empty lines four times longer boxed.
// Such a writer counts what it adds to the answer in an answerRoom,
// computing a text's size before building it, and rendering stops with an
// *AnswerTooLargeError once the count passes the limit. What is counted
// is part of the answer's wire bytes, so the count never refuses an
// answer that fits.

// AnswerTooLargeError is an answer whose texts passed Limit bytes while it
// was rendered: rendering stopped there, before the rest was built.
type AnswerTooLargeError struct {
	Limit int
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("the answer passed the %d bytes the caller receives while it was rendered", e.Limit)
}

// AnswerRoom counts the bytes written into one answer against its
// limit. A nil *AnswerRoom counts nothing: the renders of a request that
// are measured rather than sent (the statistics' "before", the bill's
// earlier call) use nil.
//
// A shown room counts the messages of a view that shows them in boxes
// (RenderTrace's compressed view): a box may be shorter than its message,
// as it drops spaces, so a shown room counts of each text only the bytes
// its box shows at the least. A view that fits is then never refused, and
// the messages built for a view past the limit are the limit and the
// spaces of their texts.
type AnswerRoom struct {
	limit, used int
	shown       bool
}

// NewAnswerRoom returns the room of an answer of at most limit bytes; nil
// (no limit) when limit is 0 or less.
func NewAnswerRoom(limit int) *AnswerRoom {
	if limit <= 0 {
		return nil
	}
	return &AnswerRoom{limit: limit}
}

// newRequestRoom is the room of req's answer: shown when its messages are
// shown in boxes (Request.AnswerShown).
func newRequestRoom(req *Request) *AnswerRoom {
	r := NewAnswerRoom(req.AnswerLimit)
	if r != nil {
		r.shown = req.AnswerShown
	}
	return r
}

// TakeText counts the text s of a message: its bytes, or, in a shown
// room, the bytes a box shows at the least.
func (r *AnswerRoom) TakeText(s string) error {
	if r == nil {
		return nil
	}
	if r.shown {
		return r.Take(shownLen(s))
	}
	return r.Take(len(s))
}

// TakeArguments counts the tool-call arguments of program
// (ProgramArguments) before they are written. encoding/json writes a
// program's spaces as they are and no space of its own, so a box shows
// all of the arguments but the program's spaces.
func (r *AnswerRoom) TakeArguments(program string) error {
	if r == nil {
		return nil
	}
	n := programArgumentsLen(program)
	if r.shown {
		n -= strings.Count(program, " ")
	}
	return r.Take(n)
}

// shownLen is the fewest bytes a box (RenderTrace's view) shows of s: a
// box drops trailing spaces, the space a long line wraps at, tabs once
// expanded to spaces and a carriage return before a newline, and shows
// every other byte at least once (a control character as its escape,
// invalid UTF-8 as U+FFFD, a newline as a line of its own).
func shownLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ' ' || c == '\t' || c == '\r' {
			n--
		}
	}
	return n
}

// Take counts n more bytes of the answer; past the limit it returns the
// *AnswerTooLargeError to stop rendering with.
func (r *AnswerRoom) Take(n int) error {
	if r == nil {
		return nil
	}
	r.used += n
	if r.used > r.limit {
		return &AnswerTooLargeError{Limit: r.limit}
	}
	return nil
}
