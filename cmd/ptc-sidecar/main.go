// Command ptc-sidecar is the ptc-sidecar binary: a stateless gRPC service
// that compresses agent histories and evaluates PTC-Lisp programs.
//
// Usage:
//
//	ptc-sidecar [command] [flags]
//
// The command defaults to serve. Each command lives in its own file and adds
// itself to the command table from an init function, so a new command needs
// no change here.
package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// command is one subcommand of the binary.
type command struct {
	name    string
	summary string // one line for the usage text
	// run executes the command with the arguments after its name and
	// returns the process exit code: 0 success, 1 failure at run time,
	// 2 bad usage or configuration.
	run func(args []string, stdout, stderr io.Writer) int
}

// commands is the table of subcommands, filled by init functions.
var commands = map[string]command{}

// registerCommand adds c to the command table.
func registerCommand(c command) {
	if _, dup := commands[c.name]; dup {
		panic("ptc-sidecar: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// defaultCommand runs when the first argument is a flag or absent.
const defaultCommand = "serve"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches args to a subcommand and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	name := defaultCommand
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	} else if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		name = "help"
	}
	if name == "help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "ptc-sidecar: unknown command %q\n\n", name)
		usage(stderr)
		return 2
	}
	return c.run(args, stdout, stderr)
}

// usage writes the list of commands.
func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: ptc-sidecar [command] [flags]\n\nCommands:\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nWithout a command, ptc-sidecar runs %s.\nRun 'ptc-sidecar COMMAND -h' for a command's flags.\n", defaultCommand)
}
