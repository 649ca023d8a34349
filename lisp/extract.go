package lisp

import (
	"context"
	"fmt"
	"strings"
	"unicode"
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
// Only the lines that hold a fence are looked at one by one: the scan
// jumps from one "```" to the next, so a reply of millions of lines and
// few fences costs what searching its bytes does, and one of many fences
// what ExtractWork counts.
func ExtractProgramContext(ctx context.Context, response string) (string, bool, []Warning, error) {
	var blocks []string
	inFence, keep := false, false
	start := 0 // of the open block's first line
	for from, fences := 0, 0; ; fences++ {
		if fences%(1<<12) == 0 && ctx.Err() != nil {
			return "", false, nil, ctx.Err()
		}
		at := strings.Index(response[from:], "```")
		if at < 0 {
			break
		}
		at += from
		lineStart := strings.LastIndexByte(response[:at], '\n') + 1
		end := strings.IndexByte(response[at:], '\n')
		if end < 0 {
			end = len(response)
		} else {
			end += at
		}
		from = end
		if strings.TrimLeftFunc(response[lineStart:at], unicode.IsSpace) != "" {
			continue // the line holds text before its first fence: no fence line
		}
		switch {
		case inFence:
			if keep {
				blocks = appendBlock(blocks, response[start:max(start, lineStart-1)])
			}
			inFence = false
		default:
			inFence, start = true, min(end+1, len(response))
			keep = programLanguages[strings.ToLower(strings.TrimSpace(response[at+3:end]))]
		}
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

// ExtractWork is what extracting the program of response costs, in the
// units of ReadCost, counted before it is extracted: a byte for each
// eight of its bytes (searched for fences at memory speed, and at most
// copied once into the program) and ExtractFenceWork for each fence, a
// line looked at and a block kept. A server bounds it as it bounds what values take to
// read, so that a reply is refused by what it costs, the same alone and
// under load, rather than by the clock.
func ExtractWork(response string) int64 {
	return int64(len(response))/8 + ExtractFenceWork*int64(strings.Count(response, "```"))
}

// ExtractFenceWork is the cost of one fence: looking at its line and
// keeping a block, about 100 ns, charged as what reads in two to three
// times that in a value, so that a reply under a request's bound extracts
// in a small part of its timeout even on a loaded machine.
const ExtractFenceWork = 32

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
