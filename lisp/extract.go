package lisp

import (
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
	var blocks, block []string
	inFence, keep := false, false
	flush := func() {
		if b := strings.TrimSpace(strings.Join(block, "\n")); keep && b != "" {
			blocks = append(blocks, b)
		}
		inFence, block = false, nil
	}
	for _, line := range strings.Split(response, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case !strings.HasPrefix(trimmed, "```"):
			if inFence {
				block = append(block, strings.TrimRight(line, "\r"))
			}
		case inFence:
			flush()
		default:
			inFence = true
			keep = programLanguages[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")))]
		}
	}
	if inFence {
		flush()
	}
	if len(blocks) == 0 {
		return "", false, nil
	}
	var warnings []Warning
	if len(blocks) > 1 {
		warnings = append(warnings, Warning{Type: WarningJoinedBlocks, Message: fmt.Sprintf(
			"the reply held %d code blocks; they ran as one program, in order. Send the whole program in one block, and no examples in code blocks", len(blocks))})
	}
	return strings.Join(blocks, "\n"), true, warnings
}

// NoProgramError is the failure of a reply that holds no program.
func NoProgramError() *Error {
	return Errorf(noProgram, "the reply holds no program: there is no ```clojure code block in it, so nothing was run").
		WithHint("answer with one PTC-Lisp program in a fenced block: ```clojure on its own line, the program, then ``` on its own line")
}
