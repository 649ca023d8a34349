package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

func init() {
	registerCommand(command{
		name:    "prompt",
		summary: "print the built-in SYSTEM prompt (-variant lean, the default, or full)",
		run:     runPrompt,
	})
}

func runPrompt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	variant := fs.String("variant", strategies.PromptLean,
		"`name` of the variant: lean (rules, functions by name, prose only where they differ from Clojure) or full (every function with a line of prose); requests choose it with options.prompt")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stdout, "Usage: ptc-sidecar prompt [-variant lean|full]\n\nPrints the built-in SYSTEM prompt that turn strategies send when a request has no system_prompt.\n\nFlags:\n")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "ptc-sidecar prompt: %v\nRun 'ptc-sidecar prompt -h' for the flags.\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ptc-sidecar prompt: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	switch *variant {
	case strategies.PromptLean:
		io.WriteString(stdout, lisp.SystemPrompt())
	case strategies.PromptFull:
		io.WriteString(stdout, lisp.FullSystemPrompt())
	default:
		fmt.Fprintf(stderr, "ptc-sidecar prompt: -variant must be %q or %q, got %q\n", strategies.PromptLean, strategies.PromptFull, *variant)
		return 2
	}
	return 0
}
