package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/trace"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

func init() {
	registerCommand(command{
		name:    "trace",
		summary: "render a logged run (a RenderTraceRequest as JSON, FILE or - for stdin) for a terminal",
		run:     runTrace,
	})
}

// traceEnv is what the trace command reads from its surroundings, so that
// tests can stand in for a terminal and the environment.
type traceEnv struct {
	stdin    io.Reader
	terminal bool // stdout is a terminal
	getenv   func(string) string
}

func runTrace(args []string, stdout, stderr io.Writer) int {
	return traceCommand(args, stdout, stderr, traceEnv{stdin: os.Stdin, terminal: isTerminal(os.Stdout), getenv: os.Getenv})
}

// isTerminal reports whether f is a character device (a terminal), not a
// pipe or a file.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// traceFlags are the flags of the trace command. view, raw and usage
// override the request's own fields only when given.
type traceFlags struct {
	view  string
	raw   bool
	usage bool
	color string
}

func newTraceFlagSet(f *traceFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.view, "view", "", "`view` to render: turns (default) or compressed (what ToMessages sends next)")
	fs.BoolVar(&f.raw, "raw", false, "also show each turn's raw LLM response")
	fs.BoolVar(&f.usage, "usage", false, "also show token figures and the compression summary")
	fs.StringVar(&f.color, "color", "auto", "colour `mode`: auto (only on a terminal, never with NO_COLOR set), always or never")
	return fs
}

func traceCommand(args []string, stdout, stderr io.Writer, env traceEnv) int {
	var f traceFlags
	fs := newTraceFlagSet(&f)
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		printTraceUsage(stdout, fs)
		return 0
	}
	if err == nil && len(files) != 1 {
		err = fmt.Errorf("want one FILE (or - for stdin), got %d arguments", len(files))
	}
	var colour bool
	if err == nil {
		colour, err = colourMode(f.color, env)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar trace: %v\nRun 'ptc-sidecar trace -h' for the flags.\n", err)
		return 2
	}
	req, err := readTraceRequest(files[0], env.stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar trace: %v\n", err)
		return 1
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "view":
			req.View = f.view
		case "raw":
			req.Raw = f.raw
		case "usage":
			req.Usage = f.usage
		}
	})
	text, err := server.New(server.Config{}).Trace(context.Background(), req, trace.Style{Color: colour})
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar trace: %s: %s\n", files[0], status.Convert(err).Message())
		return 1
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar trace: %v\n", err)
		return 1
	}
	return 0
}

// parseInterspersed parses flags before and after the positional
// arguments, so that `trace run.json --usage` works as well as
// `trace --usage run.json`.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// colourMode decides whether to colour: auto colours a terminal unless
// NO_COLOR is set to anything (https://no-color.org); always and never are
// the user's explicit choice and win over both.
func colourMode(mode string, env traceEnv) (bool, error) {
	switch mode {
	case "auto":
		return env.terminal && env.getenv("NO_COLOR") == "", nil
	case "always":
		return true, nil
	case "never":
		return false, nil
	}
	return false, fmt.Errorf("invalid value %q for flag -color: want auto, always or never", mode)
}

// readTraceRequest reads a RenderTraceRequest in its protojson form (field
// names in lowerCamelCase or as in the proto) from a file, or stdin for "-".
func readTraceRequest(path string, stdin io.Reader) (*ptcsidecarv1.RenderTraceRequest, error) {
	var (
		b   []byte
		err error
	)
	if path == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	req := &ptcsidecarv1.RenderTraceRequest{}
	if err := protojson.Unmarshal(b, req); err != nil {
		return nil, fmt.Errorf("%s: not a RenderTraceRequest: %v", path, err)
	}
	return req, nil
}

func printTraceUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: ptc-sidecar trace [flags] FILE\n\n"+
		"Renders a run for a terminal. FILE (- for stdin) holds a RenderTraceRequest as JSON:\n"+
		"the turns, memory and options an agent sends to ToMessages, plus view, raw and usage.\n"+
		"Flags override the request's view, raw and usage. Exits 2 on bad flags, 1 on a bad request.\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}
