package lisp

import (
	"context"
	"fmt"
	"strings"
)

// programLanguages are the info strings of fenced blocks that hold a program;
// "" is an unlabelled fence.
var programLanguages = map[string]bool{"": true, "clojure": true, "clj": true, "lisp": true, "ptc-lisp": true, "edn": true}

// ExtractProgram returns the program in an LLM response: the contents of its
// fenced clojure, lisp or unlabelled code blocks, joined in order (a model
// sometimes splits one program across blocks). Blocks in other languages are
// skipped whole, so an example in Python never becomes part of the program;
// a response cut off before its closing fence still yields its last block.
// A response with no such block, or only empty ones, has no program (false):
// running its prose as code would only guess, and NoProgramError tells the
// LLM how to answer instead.
func ExtractProgram(response string) (string, bool) {
	program, found, _ := ExtractProgramWarnings(response)
	return program, found
}

// ExtractProgramWarnings is ExtractProgram that also says what it did
// beyond taking one block: a reply with several program blocks is run as
// one program (splitting a program across blocks is a real habit, and a
// block that only illustrates usually reads and runs harmlessly), and the
// turn carries a warning so that the LLM learns to send one block.
func ExtractProgramWarnings(response string) (string, bool, []Warning) {
	program, found, warnings, _ := ExtractProgramContext(context.Background(), response)
	return program, found, warnings
}

// ExtractProgramContext is ExtractProgramWarnings under ctx: a reply of
// millions of lines is the request's work like any other, and stops with
// ctx's error when ctx ends. It scans the reply once and copies only the
// program: a block is a slice of the reply unless its lines end in "\r".
func ExtractProgramContext(ctx context.Context, response string) (string, bool, []Warning, error) {
	var blocks []string
	inFence, keep := false, false
	start := 0 // of the open block's first line
	for off, lines := 0, 0; off <= len(response); lines++ {
		if lines%(1<<16) == 0 && ctx.Err() != nil {
			return "", false, nil, ctx.Err()
		}
		end := strings.IndexByte(response[off:], '\n')
		if end < 0 {
			end = len(response)
		} else {
			end += off
		}
		trimmed := strings.TrimSpace(response[off:end])
		switch {
		case !strings.HasPrefix(trimmed, "```"):
		case inFence:
			if keep {
				blocks = appendBlock(blocks, response[start:max(start, off-1)])
			}
			inFence = false
		default:
			inFence, start = true, min(end+1, len(response))
			keep = programLanguages[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")))]
		}
		off = end + 1
	}
	if inFence && keep {
		blocks = appendBlock(blocks, response[start:])
	}
	if len(blocks) == 0 {
		return "", false, nil, nil
	}
	var warnings []Warning
	if len(blocks) > 1 {
		warnings = append(warnings, Warning{Type: WarningJoinedBlocks, Message: fmt.Sprintf(
			"the reply held %d code blocks; they ran as one program, in order. Send the whole program in one block, and no examples in code blocks", len(blocks))})
	}
	return strings.Join(blocks, "\n"), true, warnings, nil
}

// appendBlock appends the text of a block's lines to blocks, with the
// "\r" that ends a line dropped and the block trimmed, unless it is empty.
func appendBlock(blocks []string, lines string) []string {
	if strings.IndexByte(lines, '\r') >= 0 {
		var b strings.Builder
		b.Grow(len(lines))
		for line := range strings.Lines(lines) {
			text, nl := strings.CutSuffix(line, "\n")
			b.WriteString(strings.TrimRight(text, "\r"))
			if nl {
				b.WriteByte('\n')
			}
		}
		lines = b.String()
	}
	if text := strings.TrimSpace(lines); text != "" {
		return append(blocks, text)
	}
	return blocks
}

// NoProgramError is the failure of a reply that holds no program.
func NoProgramError() *Error {
	return Errorf(noProgram, "the reply holds no program: there is no ```clojure code block in it, so nothing was run").
		WithHint("answer with one PTC-Lisp program in a fenced block: ```clojure on its own line, the program, then ``` on its own line")
}
