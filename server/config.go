package server

import (
	"flag"
	"fmt"
	"math"
	"runtime"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/internal/setting"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Config is the server-level configuration the RPCs read. Its defaults are
// DefaultConfig's, and its settings (Settings) say, each in one place, what
// a field means, what it accepts and what 0 and none mean there; the binary
// makes them its flags.
//
// A zero field means its default; a negative one means none (no limit)
// where the setting allows it, and the default elsewhere.
type Config struct {
	// Limits are the sandbox budgets of EvalTurn: the most a request may
	// ask for. A request may lower them, never raise them. Zero fields are
	// lisp.DefaultLimits'; lisp.Unlimited lifts a limit where its setting
	// allows none (sandboxLimits).
	Limits lisp.Limits
	// MaxValueDepth bounds the nesting of EDN and JSON values in requests.
	MaxValueDepth int
	// MaxTurns bounds the turns of a ToMessages request.
	MaxTurns int
	// MaxHistory bounds the chat messages of a ToMessages request.
	MaxHistory int
	// Memo is where decoded values and read programs are remembered
	// between requests; nil remembers nothing.
	Memo *memo.Memo
	// MaxConcurrentEvals bounds the evaluations of EvalTurn and
	// EvalTurnStream running at once (a stream waiting for a tool's answer
	// holds none).
	MaxConcurrentEvals int
	// EvalQueueWait is how long an evaluation waits for one of those
	// before RESOURCE_EXHAUSTED.
	EvalQueueWait time.Duration
	// LargeRequestBytes is the size past which a request of any method
	// takes one of those slots before it is decoded (see admission);
	// negative: none does.
	LargeRequestBytes int
	// ToolTimeout bounds EvalTurnStream's wait for the answer to each tool
	// call, the most a request's limits.tool_timeout_ms may ask for.
	ToolTimeout time.Duration
	// StreamStartTimeout bounds EvalTurnStream's wait for its first
	// message.
	StreamStartTimeout time.Duration
}

// DefaultConfig is the configuration with every setting at its default.
// A tool calls real services, so its answer may take long; the start
// message is sent with the stream by every client, so its wait is short.
func DefaultConfig() Config {
	return Config{
		Limits:             lisp.DefaultLimits(),
		MaxValueDepth:      lisp.DefaultMaxNesting,
		MaxTurns:           1000,
		MaxHistory:         10_000,
		MaxConcurrentEvals: runtime.GOMAXPROCS(0),
		EvalQueueWait:      time.Second,
		LargeRequestBytes:  256 << 10,
		ToolTimeout:        time.Minute,
		StreamStartTimeout: 10 * time.Second,
	}
}

// Settings are c's settings, bound to its fields, with DefaultConfig's
// defaults: the sandbox limits (LimitSettings) first.
func (c *Config) Settings() []setting.Setting {
	d := DefaultConfig()
	return append(LimitSettings(&c.Limits),
		setting.Setting{Name: "max-value-depth", Usage: "deepest nesting of EDN or JSON `values` accepted in a request, and of what a program returns, defines or passes to a tool",
			Value: setting.NewCount(&c.MaxValueDepth, d.MaxValueDepth, 1, lisp.MaxValueNesting)},
		setting.Setting{Name: "max-turns", Usage: "ToMessages: most `turns` in a request; more get INVALID_ARGUMENT",
			Value: setting.NewCount(&c.MaxTurns, d.MaxTurns, 1, math.MaxInt32)},
		setting.Setting{Name: "max-history", Usage: "ToMessages: most chat `messages` in a request's history; more get INVALID_ARGUMENT",
			Value: setting.NewCount(&c.MaxHistory, d.MaxHistory, 1, math.MaxInt32)},
		setting.Setting{Name: "max-concurrent-evals", Usage: "EvalTurn, EvalTurnStream: most `evaluations` running at once, server-wide (a stream waiting for a tool answer holds none); default: GOMAXPROCS, the processors the runtime uses",
			Value: setting.NewCount(&c.MaxConcurrentEvals, d.MaxConcurrentEvals, 1, math.MaxInt32)},
		setting.Setting{Name: "eval-queue-wait", Usage: "EvalTurn, EvalTurnStream: how long an evaluation waits, a `duration`, for one of the --max-concurrent-evals to finish before it is refused with RESOURCE_EXHAUSTED; its timeout starts once it runs",
			Value: setting.NewDuration(&c.EvalQueueWait, d.EvalQueueWait)},
		setting.Setting{Name: "large-request-bytes", Usage: "requests larger than this, in `bytes`, of any method, take one of the --max-concurrent-evals slots before they are decoded, and hold it while they are rendered or evaluated",
			Value: setting.NewBytes(&c.LargeRequestBytes, d.LargeRequestBytes, 1, math.MaxInt32).OrNone("no request waits for its size")},
		setting.Setting{Name: "tool-timeout", Usage: "EvalTurnStream: most time, a `duration`, waited for the answer to each tool call before the turn ends with a tool_timeout error; not counted in --eval-timeout; requests may lower it (limits.tool_timeout_ms)",
			Value: setting.NewDuration(&c.ToolTimeout, d.ToolTimeout)},
		setting.Setting{Name: "stream-start-timeout", Usage: "EvalTurnStream: most time, a `duration`, a stream may stay open without its start message before it ends with DEADLINE_EXCEEDED",
			Value: setting.NewDuration(&c.StreamStartTimeout, d.StreamStartTimeout)},
	)
}

// withDefaults is c with every zero setting at its default.
func (c Config) withDefaults() Config {
	setting.FillDefaults(c.Settings())
	return c
}

// flagOf is the setting of c that sets the field at ptr, as a flag, for
// messages that tell an operator what to raise.
func (c *Config) flagOf(ptr any) string { return setting.Find(c.Settings(), ptr).Flag() }

// sandboxLimit is one field of lisp.Limits: as a setting (a flag of serve
// and eval) and as the field of the wire Limits that lowers it for one
// request.
type sandboxLimit struct {
	name  string            // the setting's name
	wire  protoreflect.Name // the field of ptcsidecarv1.Limits
	usage string
	// millis: the wire field counts milliseconds of a duration.
	millis bool
	// bind is the setting of the field in l, with the default in d.
	bind func(l *lisp.Limits, d lisp.Limits) limitValue
	fd   protoreflect.FieldDescriptor // of wire, set by init
}

// limitValue is a sandbox limit's setting.Number, whatever the type of its
// field.
type limitValue interface {
	flag.Value
	Get() int64
	Put(int64)
}

// sandboxLimits are the seven limits of an evaluation, listed once: a new
// field of lisp.Limits is a new row here (a test holds them to the
// struct). The call depth and the allocation budget cannot be none:
// without them a program overflows the Go stack or exhausts the process's
// memory, for every caller at once; nor can the emit budget, which keeps a
// turn small enough to be sent back.
var sandboxLimits = []sandboxLimit{
	{name: "max-steps", wire: "max_steps",
		usage: "most evaluation `steps` (calls, loop iterations, elements visited) a program may take",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewCount(&l.MaxSteps, d.MaxSteps, 1, math.MaxInt32).OrNone("no limit")
		}},
	{name: "max-alloc-bytes", wire: "max_alloc_bytes",
		usage: "most `bytes` of strings and collections a program may build",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewBytes(&l.MaxAllocBytes, d.MaxAllocBytes, 1, math.MaxInt32)
		}},
	{name: "max-depth", wire: "max_depth",
		usage: "deepest nesting of function `calls`",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewCount(&l.MaxDepth, d.MaxDepth, 1, lisp.MaxCallDepth)
		}},
	{name: "max-output-bytes", wire: "max_output_bytes",
		usage: "most println output in `bytes`",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewBytes(&l.MaxOutputBytes, d.MaxOutputBytes, 1, math.MaxInt32).OrNone("no limit")
		}},
	{name: "max-tool-calls", wire: "max_tool_calls",
		usage: "most tool `calls` per program",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewCount(&l.MaxToolCalls, d.MaxToolCalls, 1, math.MaxInt32).OrNone("no limit")
		}},
	{name: "max-emit-bytes", wire: "max_emit_bytes",
		usage: "most `bytes` a turn sends back, printed: its prints, warnings, tool-call arguments, result and memory (EDN and JSON) and error together; under serve at most half of --max-recv-bytes, so that it can be sent back",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewBytes(&l.MaxEmitBytes, d.MaxEmitBytes, 1, math.MaxInt32)
		}},
	{name: "eval-timeout", wire: "timeout_ms", millis: true,
		usage: "wall-clock backstop per evaluation, a `duration`; steps and bytes are the deterministic limits",
		bind: func(l *lisp.Limits, d lisp.Limits) limitValue {
			return setting.NewDuration(&l.Timeout, d.Timeout).OrNone("no limit")
		}},
}

func init() {
	fields := (&ptcsidecarv1.Limits{}).ProtoReflect().Descriptor().Fields()
	for i := range sandboxLimits {
		row := &sandboxLimits[i]
		if row.fd = fields.ByName(row.wire); row.fd == nil {
			panic(fmt.Sprintf("server: the sandbox limit %s names %s, which ptcsidecarv1.Limits does not have", row.name, row.wire))
		}
	}
}

// LimitSettings are the sandbox limits as settings over l, with
// lisp.DefaultLimits' defaults: the flags serve and eval share.
func LimitSettings(l *lisp.Limits) []setting.Setting {
	d := lisp.DefaultLimits()
	out := make([]setting.Setting, len(sandboxLimits))
	for i, row := range sandboxLimits {
		out[i] = setting.Setting{Name: row.name, Usage: row.usage, Value: row.bind(l, d)}
	}
	return out
}
