package server

import (
	"bytes"
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
//
// charge counts the decoding's work before it is done (callWorkPerByte,
// programWorkPerByte): the request is refused with its error.
func programFromCall(call *ptcsidecarv1.ChatToolCall, field string, charge func(work int64) error) (string, *lisp.Error, error) {
	if name := call.GetName(); name != "" && name != strategies.ProgramToolName {
		return "", nil, invalidf(field+".name", "the call is of tool %q, not %q: only a call of the program tool carries a program; run other tools yourself", shortName(name), strategies.ProgramToolName)
	}
	bad := func(problem string) (string, *lisp.Error, error) {
		// Written for the LLM: the field is the request's, whichever RPC.
		e := lisp.Errorf(lisp.ErrorKind("no_program"), "the %s call's arguments (program_call.arguments): %s, so nothing was run", strategies.ProgramToolName, problem).
			WithHint(`call %s with arguments {"program": "(your program)"}: a JSON object whose "program" is the program as one string`, strategies.ProgramToolName)
		return "", e, nil
	}
	// The turn echoes the id as program_call_id: a provider's ids are
	// tens of bytes, and one of megabytes would make a turn no client
	// receives.
	if id := call.GetId(); len(id) > maxProgramCallID {
		return "", nil, invalidf(field+".id", "%d bytes, more than the %d a tool call's id may have: send the id the provider gave the call", len(id), maxProgramCallID)
	}
	// Only "program" is read: the other keys are skipped where they
	// stand. Decoded into a map, a million of them cost ten times the
	// arguments and two seconds before the evaluation's clock started.
	text := []byte(call.GetArguments())
	if err := charge(callWorkPerByte * int64(len(text))); err != nil {
		return "", nil, err
	}
	if !json.Valid(text) {
		var v any
		err := json.Unmarshal(text, &v) // says where it is not JSON
		return bad("the arguments are not a JSON object (" + err.Error() + ")")
	}
	raw, object, found := topLevelValue(text, "program")
	switch {
	case !object && string(bytes.TrimSpace(text)) == "null":
		return bad("the arguments are null, not a JSON object")
	case !object:
		return bad("the arguments are not a JSON object")
	case !found:
		return bad(`the arguments have no "program"`)
	}
	if err := charge(programWorkPerByte * int64(len(raw))); err != nil {
		return "", nil, err
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

// The read work of decoding a program call's arguments, in units of the
// values' read work (4 ns a unit or less): the arguments are checked as
// JSON and scanned for "program", 2-3 ns a byte (callWorkPerByte), and
// the program's string is checked again and unescaped, 10-16 ns a byte
// more for one of escapes (programWorkPerByte).
const (
	callWorkPerByte    = 1
	programWorkPerByte = 4
)

// maxProgramCallID is the longest program_call.id accepted.
const maxProgramCallID = 1024

// topLevelValue returns the text of the value of key in text, valid JSON,
// when it is an object (object) holding that key (found; the last one when
// it repeats). It reads the text once and builds nothing but escaped keys.
func topLevelValue(text []byte, key string) (raw []byte, object, found bool) {
	ws := func(i int) int {
		for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
			i++
		}
		return i
	}
	str := func(i int) int { // past the string that opens at i
		for i++; text[i] != '"'; i++ {
			if text[i] == '\\' {
				i++
			}
		}
		return i + 1
	}
	i := ws(0)
	if text[i] != '{' {
		return nil, false, false
	}
	for i = ws(i + 1); text[i] == '"'; i = ws(i + 1) { // at a key; the text is valid
		end := str(i)
		k := text[i+1 : end-1]
		same := string(k) == key
		if bytes.IndexByte(k, '\\') >= 0 {
			var unescaped string
			json.Unmarshal(text[i:end], &unescaped)
			same = unescaped == key
		}
		start := ws(ws(end) + 1) // past the colon
		depth := 0
		for i = start; depth > 0 || text[i] != ',' && text[i] != '}'; {
			switch text[i] {
			case '"':
				i = str(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			i++
		}
		if same {
			raw, found = bytes.TrimRight(text[start:i], " \t\n\r"), true
		}
		if text[i] == '}' {
			break
		}
	}
	return raw, true, found
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
