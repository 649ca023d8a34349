package strategies

import (
	"fmt"
	"unicode/utf8"
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
type AnswerRoom struct {
	limit, used int
}

// NewAnswerRoom returns the room of an answer of at most limit bytes; nil
// (no limit) when limit is 0 or less.
func NewAnswerRoom(limit int) *AnswerRoom {
	if limit <= 0 {
		return nil
	}
	return &AnswerRoom{limit: limit}
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

// jsonStringLen is the length of s written as a JSON string by
// encoding/json (quotes included): \" \\ \n \r \t in two bytes, other
// control characters, <, > and & (HTML-safe escaping), U+2028 and U+2029
// and each byte of invalid UTF-8 (as \ufffd) in six.
func jsonStringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
