package server

import (
	"encoding/json"
	"strings"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"
	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// programFromCall is the program a tool call of the program tool carries
// (EvalTurnRequest.program_call, program_form "tool_call"): the string
// "program" of its JSON arguments. field names the call in errors.
//
// A call of another tool is the caller's mistake: INVALID_ARGUMENT naming
// the field. Arguments the LLM wrote wrong (not a JSON object, no
// "program", not a string, empty) are the LLM's, as a reply without a
// fenced block is: the turn fails with a no_program error (second result)
// that names the field and says how to call the tool, and the LLM tries
// again. Other keys of the arguments are ignored, as a model may add one.
func programFromCall(call *ptcsidecarv1.ChatToolCall, field string) (string, *lisp.Error, error) {
	if name := call.GetName(); name != "" && name != strategies.ProgramToolName {
		return "", nil, invalidf(field+".name", "the call is of tool %q, not %q: only a call of the program tool carries a program; run other tools yourself", shortName(name), strategies.ProgramToolName)
	}
	bad := func(problem string) (string, *lisp.Error, error) {
		// Written for the LLM: the field is the request's, whichever RPC.
		e := lisp.Errorf(lisp.ErrorKind("no_program"), "the %s call's arguments (program_call.arguments): %s, so nothing was run", strategies.ProgramToolName, problem).
			WithHint(`call %s with arguments {"program": "(your program)"}: a JSON object whose "program" is the program as one string`, strategies.ProgramToolName)
		return "", e, nil
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal([]byte(call.GetArguments()), &args); err != nil {
		return bad("the arguments are not a JSON object (" + err.Error() + ")")
	}
	if args == nil {
		return bad("the arguments are null, not a JSON object")
	}
	raw, ok := args["program"]
	if !ok {
		return bad(`the arguments have no "program"`)
	}
	var program string
	if err := json.Unmarshal(raw, &program); err != nil {
		return bad(`"program" is not a string`)
	}
	if strings.TrimSpace(program) == "" {
		return bad(`"program" is empty`)
	}
	return program, nil, nil
}

// noCall reports whether call stands for a reply in tool-call form that
// made no call of the program tool: program_call set with neither id nor
// arguments (a model's call has an id, and arguments at least "{}"). The
// reply's text, raw_response, is then read for a fenced program as in
// fenced form, so that a model that wrote one is not failed for it; when it
// holds none, the turn's error is noCallError's.
func noCall(call *ptcsidecarv1.ChatToolCall) bool {
	name := call.GetName()
	return call != nil && call.GetId() == "" && call.GetArguments() == "" && (name == "" || name == strategies.ProgramToolName)
}

// noCallError is the no_program error of a reply in tool-call form that
// made no call: it tells the LLM to call the program tool, not to write
// the fenced block that fenced form asks for.
func noCallError() *lisp.Error {
	return lisp.Errorf(lisp.ErrorKind("no_program"), "the reply made no %s call (and holds no ```clojure block), so nothing was run", strategies.ProgramToolName).
		WithHint(`call %s with arguments {"program": "(your program)"}: a JSON object whose "program" is the program as one string`, strategies.ProgramToolName)
}

// shortName is a tool name cut for an error message: the name comes from
// the request and may be of any length.
func shortName(name string) string {
	const most = 64
	if len(name) <= most {
		return name
	}
	return strings.ToValidUTF8(name[:most], "") + "..."
}
