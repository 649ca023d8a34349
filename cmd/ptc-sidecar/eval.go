package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/server"
)

func init() {
	registerCommand(command{
		name:    "eval",
		summary: "evaluate a PTC-Lisp program (stdin or -e) in the sandbox and print its result as EDN",
		run:     runEval,
	})
}

// evalConfig is what the eval flags set.
type evalConfig struct {
	expr        string
	dataFile    string
	preludeFile string
	toolsFile   string
	turn        int
	json        bool
	// limits are the sandbox budgets (server.LimitSettings, shared with serve).
	limits lisp.Limits
}

func evalFlags(cfg *evalConfig) *flag.FlagSet {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.expr, "e", "", "the `program` to evaluate; without -e it is read from stdin")
	fs.StringVar(&cfg.dataFile, "data", "", "`file` with the data/ map, as EDN or JSON")
	fs.StringVar(&cfg.preludeFile, "prelude", "", "`file` with the prelude: a PTC-Lisp program of definitions, or memory bindings as JSON (.json)")
	fs.StringVar(&cfg.toolsFile, "tools", "", "`file` mapping tool names to canned answers, as EDN or JSON: {\"search\": [...]}")
	fs.IntVar(&cfg.turn, "turn", 1, "turn `number` recorded on the definitions")
	fs.BoolVar(&cfg.json, "json", false, "print the result as JSON instead of EDN, in the mapping of docs/VALUES.md (keywords become strings; a result with no JSON form is an error)")
	defineFlags(fs, server.LimitSettings(&cfg.limits))
	return fs
}

// parseEvalConfig reads the eval flags from args, and the sandbox limits
// also from the environment (through getenv), as serve does.
func parseEvalConfig(args []string, getenv func(string) string) (evalConfig, *flag.FlagSet, error) {
	cfg := evalConfig{limits: lisp.DefaultLimits()}
	fs := evalFlags(&cfg)
	if err := setFromEnv(fs, server.LimitSettings(&cfg.limits), getenv); err != nil {
		return cfg, fs, err
	}
	err := fs.Parse(args)
	return cfg, fs, err
}

func runEval(args []string, stdout, stderr io.Writer) int {
	cfg, fs, err := parseEvalConfig(args, os.Getenv)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printEvalUsage(stdout, fs)
			return 0
		}
		fmt.Fprintf(stderr, "ptc-sidecar eval: %v\nRun 'ptc-sidecar eval -h' for the flags.\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ptc-sidecar eval: unexpected argument %q (pass the program with -e or on stdin)\n", fs.Arg(0))
		return 2
	}
	program := cfg.expr
	if program == "" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintf(stderr, "ptc-sidecar eval: reading stdin: %v\n", err)
			return 2
		}
		program = string(b)
	}
	env, err := cfg.environment(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar eval: %v\n", err)
		return 2
	}
	res, err := lisp.Eval(context.Background(), program, env)
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar eval: %v\n", err)
		return 1
	}
	for _, p := range res.Prints {
		fmt.Fprintln(stderr, p)
	}
	if res.Err != nil {
		fmt.Fprintf(stderr, "error: %v\n", res.Err)
		return 1
	}
	if !cfg.json {
		fmt.Fprintln(stdout, lisp.Repr(res.Value))
		return 0
	}
	text, err := lisp.EncodeJSON(res.Value)
	if err != nil {
		fmt.Fprintf(stderr, "ptc-sidecar eval: the result has no JSON form: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, text)
	return 0
}

func printEvalUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: ptc-sidecar eval [flags] < program.clj\n\n"+
		"Evaluates a PTC-Lisp program in the sandbox. The result is printed as EDN on stdout,\n"+
		"println output on stderr; a failed program prints its error on stderr and exits 1.\n\nFlags:\n")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// environment loads the data, tools and prelude files.
func (c evalConfig) environment(stderr io.Writer) (lisp.Env, error) {
	env := lisp.Env{Limits: c.limits, TurnNumber: c.turn}
	if c.dataFile != "" {
		v, err := readValueFile(c.dataFile)
		if err != nil {
			return env, err
		}
		m, ok := v.(*lisp.Map)
		if !ok {
			return env, fmt.Errorf("-data %s: want a map, got %s", c.dataFile, v.TypeName())
		}
		env.Data = m
	}
	if c.toolsFile != "" {
		v, err := readValueFile(c.toolsFile)
		if err != nil {
			return env, err
		}
		m, ok := v.(*lisp.Map)
		if !ok {
			return env, fmt.Errorf("-tools %s: want a map from tool name to answer, got %s", c.toolsFile, v.TypeName())
		}
		host := cannedHost{}
		for _, e := range m.Entries() {
			name := strings.TrimPrefix(lisp.Str(e.Key), ":")
			host[name] = e.Val
			env.Tools = append(env.Tools, name)
		}
		slices.Sort(env.Tools)
		env.Host = host
	}
	if c.preludeFile != "" {
		mem, err := c.loadPrelude(env, stderr)
		if err != nil {
			return env, err
		}
		env.Prelude = mem
	}
	return env, nil
}

// loadPrelude reads memory bindings from JSON, or evaluates a program of
// definitions and keeps the memory it leaves.
func (c evalConfig) loadPrelude(env lisp.Env, stderr io.Writer) (*lisp.Memory, error) {
	text, err := os.ReadFile(c.preludeFile)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(c.preludeFile), ".json") {
		wire, err := parseWireBindings(text)
		if err != nil {
			return nil, fmt.Errorf("-prelude %s: %v", c.preludeFile, err)
		}
		mem, err := lisp.DecodeMemory(context.Background(), wire)
		if err != nil {
			return nil, fmt.Errorf("-prelude %s: %v", c.preludeFile, err)
		}
		return mem, nil
	}
	env.TurnNumber = 0
	res, err := lisp.Eval(context.Background(), string(text), env)
	if err != nil {
		return nil, fmt.Errorf("-prelude %s: %v", c.preludeFile, err)
	}
	for _, p := range res.Prints {
		fmt.Fprintln(stderr, p)
	}
	if res.Err != nil {
		return nil, fmt.Errorf("-prelude %s: %v", c.preludeFile, res.Err)
	}
	return res.Memory, nil
}

// parseWireBindings accepts {"bindings": [...]} or a bare array, with the
// proto field names in snake_case or lowerCamelCase.
func parseWireBindings(text []byte) ([]lisp.WireBinding, error) {
	type binding struct {
		Name        string   `json:"name"`
		Value       any      `json:"value"`
		IsFn        bool     `json:"is_fn"`
		IsFnCamel   bool     `json:"isFn"`
		Params      []string `json:"params"`
		Docstring   string   `json:"docstring"`
		ReturnType  string   `json:"return_type"`
		ReturnCamel string   `json:"returnType"`
		Turn        int      `json:"turn"`
	}
	var list []binding
	if err := json.Unmarshal(text, &list); err != nil {
		var wrapped struct {
			Bindings []binding `json:"bindings"`
		}
		if err2 := json.Unmarshal(text, &wrapped); err2 != nil {
			return nil, fmt.Errorf("want a JSON array of bindings or {\"bindings\": [...]}: %v", err)
		}
		list = wrapped.Bindings
	}
	out := make([]lisp.WireBinding, len(list))
	for i, b := range list {
		var value string
		switch v := b.Value.(type) {
		case string:
			value = v
		case map[string]any: // the Value message: {"edn": "..."}
			s, _ := v["edn"].(string)
			value = s
		}
		ret := b.ReturnType
		if ret == "" {
			ret = b.ReturnCamel
		}
		out[i] = lisp.WireBinding{Name: b.Name, Value: value, IsFn: b.IsFn || b.IsFnCamel, Params: b.Params,
			Docstring: b.Docstring, ReturnType: ret, Turn: b.Turn}
	}
	return out, nil
}

// readValueFile reads a value as JSON (.json files, or text that is not
// EDN) or EDN.
func readValueFile(path string) (lisp.Value, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(path), ".json") {
		v, err := lisp.DecodeJSON(string(text), 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return v, nil
	}
	v, ednErr := lisp.ParseEDN(string(text), 0)
	if ednErr == nil {
		return v, nil
	}
	if v, err := lisp.DecodeJSON(string(text), 0); err == nil {
		return v, nil
	}
	return nil, fmt.Errorf("%s: not EDN (%v) nor JSON", path, ednErr)
}

// cannedHost answers each tool with a fixed value, for trying programs by hand.
type cannedHost map[string]lisp.Value

func (h cannedHost) CallTool(_ context.Context, name string, _ lisp.Value) (lisp.Value, error) {
	v, ok := h[name]
	if !ok {
		return nil, fmt.Errorf("no canned answer for tool %s", name)
	}
	return v, nil
}
