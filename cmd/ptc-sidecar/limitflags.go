package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// sandboxLimitFlags are the sandbox limits of an evaluation as flags, one
// row per field of lisp.Limits: serve and eval both register exactly these
// (registerLimitFlags), so a limit has one name, one default (the field's
// in lisp.DefaultLimits), one description and one environment variable
// (envName of the flag). A new field of lisp.Limits is a new row here.
//
// Every row follows the rule of all the flags: 0 means the default, and
// where a limit may be lifted, the word none lifts it (lisp.Unlimited).
var sandboxLimitFlags = []limitFlag{
	{name: "max-steps", request: "max_steps", kind: countLimit, liftable: true,
		field: fieldOf(func(l *lisp.Limits) *int64 { return &l.MaxSteps }),
		usage: "most evaluation `steps` (calls, loop iterations, elements visited) a program may take"},
	{name: "max-alloc-bytes", request: "max_alloc_bytes", kind: byteLimit,
		field: fieldOf(func(l *lisp.Limits) *int64 { return &l.MaxAllocBytes }),
		usage: "most `bytes` of strings and collections a program may build (suffixes KiB, MiB, GiB allowed)"},
	{name: "max-depth", request: "max_depth", kind: countLimit, max: lisp.MaxCallDepth,
		field: fieldOf(func(l *lisp.Limits) *int { return &l.MaxDepth }),
		usage: "deepest nesting of function `calls`"},
	{name: "max-output-bytes", request: "max_output_bytes", kind: byteLimit, liftable: true,
		field: fieldOf(func(l *lisp.Limits) *int { return &l.MaxOutputBytes }),
		usage: "most println output in `bytes` (suffixes KiB, MiB allowed)"},
	{name: "max-tool-calls", request: "max_tool_calls", kind: countLimit, liftable: true,
		field: fieldOf(func(l *lisp.Limits) *int { return &l.MaxToolCalls }),
		usage: "most tool `calls` per program"},
	{name: "max-emit-bytes", request: "max_emit_bytes", kind: byteLimit,
		field: fieldOf(func(l *lisp.Limits) *int64 { return &l.MaxEmitBytes }),
		usage: "most `bytes` a turn sends back, printed: its result, memory, tool-call arguments and prints together (suffixes KiB, MiB allowed); under serve at most half of --max-recv-bytes, so that it can be sent back"},
	{name: "eval-timeout", request: "timeout_ms", kind: durationLimit, liftable: true,
		field: fieldOf(func(l *lisp.Limits) *time.Duration { return &l.Timeout }),
		usage: "wall-clock backstop per evaluation, a `duration`; steps and bytes are the deterministic limits"},
}

// limitKind is how a limit's value is written.
type limitKind int

const (
	countLimit    limitKind = iota // a whole number
	byteLimit                      // bytes, with an optional KiB, MiB, GiB or TiB suffix
	durationLimit                  // a Go duration such as 500ms
)

// limitFlag is one sandbox limit as a flag.
type limitFlag struct {
	name    string // the flag; its environment variable is envName(name)
	request string // the field of the wire Limits that lowers it per request
	usage   string
	kind    limitKind
	// max is the largest value accepted; 0: math.MaxInt32 (the wire's
	// int32 fields, and more than any budget needs).
	max int64
	// liftable limits accept none (lisp.Unlimited). The call depth and the
	// allocation budget are not: without them a program overflows the Go
	// stack or exhausts the process's memory, for every caller at once.
	liftable bool
	field    limitField
}

// limitField reads and writes one field of lisp.Limits as an int64.
type limitField struct {
	get func(*lisp.Limits) int64
	set func(*lisp.Limits, int64)
}

func fieldOf[T ~int | ~int64](ptr func(*lisp.Limits) *T) limitField {
	return limitField{
		get: func(l *lisp.Limits) int64 { return int64(*ptr(l)) },
		set: func(l *lisp.Limits, v int64) { *ptr(l) = T(v) },
	}
}

// registerLimitFlags defines the sandbox limit flags on fs over limits,
// which should hold the defaults.
func registerLimitFlags(fs *flag.FlagSet, limits *lisp.Limits) {
	for i := range sandboxLimitFlags {
		row := &sandboxLimitFlags[i]
		usage := row.usage + "; 0: the default"
		if row.liftable {
			usage += "; none: no limit"
		}
		fs.Var(&limitValue{row: row, limits: limits}, row.name, usage)
	}
}

// isLimitFlag reports whether name is one of sandboxLimitFlags.
func isLimitFlag(name string) bool {
	for _, row := range sandboxLimitFlags {
		if row.name == name {
			return true
		}
	}
	return false
}

// limitValue is the flag.Value of one limit: its field of limits.
type limitValue struct {
	row    *limitFlag
	limits *lisp.Limits
}

func (v *limitValue) String() string {
	if v == nil || v.row == nil { // flag.PrintDefaults probes a zero value
		return ""
	}
	n := v.row.field.get(v.limits)
	switch {
	case n < 0:
		return "none"
	case v.row.kind == durationLimit:
		return time.Duration(n).String()
	case v.row.kind == byteLimit:
		return formatBytes(n)
	}
	return strconv.FormatInt(n, 10)
}

func (v *limitValue) Set(s string) error {
	if s == "none" {
		if !v.row.liftable {
			return fmt.Errorf("cannot be lifted: want %s, or 0 for the default", v.row.want())
		}
		v.row.field.set(v.limits, lisp.Unlimited)
		return nil
	}
	n, ok := v.row.parse(s)
	if !ok || n < 0 || n > v.row.maxValue() {
		if v.row.liftable {
			return fmt.Errorf("want %s, 0 for the default, or none for no limit", v.row.want())
		}
		return fmt.Errorf("want %s, or 0 for the default", v.row.want())
	}
	if n == 0 {
		d := lisp.DefaultLimits()
		n = v.row.field.get(&d)
	}
	v.row.field.set(v.limits, n)
	return nil
}

func (r *limitFlag) maxValue() int64 {
	if r.max > 0 {
		return r.max
	}
	if r.kind == durationLimit {
		return math.MaxInt64
	}
	return math.MaxInt32
}

// parse reads s as the row's kind of value.
func (r *limitFlag) parse(s string) (int64, bool) {
	switch r.kind {
	case byteLimit:
		return parseBytes(s)
	case durationLimit:
		d, err := time.ParseDuration(s)
		return int64(d), err == nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// want describes the values the row accepts besides 0 and none.
func (r *limitFlag) want() string {
	switch r.kind {
	case byteLimit:
		return "a number of bytes up to " + formatBytes(r.maxValue()) + ", optionally with a KiB, MiB or GiB suffix"
	case durationLimit:
		return "a duration such as 10s or 500ms"
	}
	return fmt.Sprintf("a whole number from 1 to %d", r.maxValue())
}

// formatBytes writes n with the largest binary suffix that divides it.
func formatBytes(n int64) string {
	for _, u := range byteUnits {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
