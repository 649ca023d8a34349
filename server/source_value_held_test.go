package server

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// TestSourceValuesHeldWithinBound sends values of source of every shape
// the reader builds forms for (quoted symbols that collide as keys and
// elements, reader macros, nested literals and anonymous functions in a
// function's body, regexes), 2 MiB each, as a turn's result and as a
// previous result, and checks the decoding bound: refused or loaded, the
// heap held within 16 times the request and 32 MiB (and the allocation
// budget for an evaluation), least of three. Before each form read and
// compiled was charged, {'a 1 'a 1 ...} held 105 MiB of an 80 MiB bound.
func TestSourceValuesHeldWithinBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the heap is measured without the race detector")
	}
	const size = 2 << 20
	repeat := func(open, part, close string) string {
		return open + strings.Repeat(part, (size-len(open)-len(close))/len(part)) + close
	}
	shapes := map[string]string{
		"a map of one quoted key":         repeat("{", "'a 1 ", "}"),
		"a set of one quoted symbol":      repeat("#{", "'a ", "}"),
		"a vector of quoted lists":        repeat("[", "'(1 2 3) ", "]"),
		"a vector of derefs":              repeat("[", "@(delay 1) ", "]"),
		"a function over nested data":     repeat("(fn [x] (get [", "[[[]]] ", "] x))"),
		"a function over a quoted map":    repeat("(fn [x] (get {", "'a 1 ", "} x))"),
		"a vector of functions":           repeat("[", "#(+ % 1) ", "]"),
		"a vector of regexes":             repeat("[", `#"a" `, "]"),
		"a quoted vector of symbols":      repeat("'[", "a ", "]"),
		"a quoted vector of long symbols": repeat("'[", "abcdefghijk ", "]"),
		"a vector of quoted long symbols": repeat("[", "'abcdefghijk ", "]"),
		"a syntax-quoted vector":          repeat("`[", "~1 ", "]"),
		"a set of keywords and symbols":   repeat("#{'a ", ":a ", "}"),
	}
	svc := generatedRequestService()
	for name, text := range shapes {
		t.Run(name, func(t *testing.T) {
			value := &ptcsidecarv1.Value{Edn: text}
			for _, req := range []proto.Message{
				&ptcsidecarv1.ToMessagesRequest{Options: &ptcsidecarv1.Options{Strategy: "full"},
					Turns: []*ptcsidecarv1.Turn{{Number: 1, Program: "1", Result: value, Success: true}}},
				&ptcsidecarv1.EvalTurnRequest{Program: "1", PreviousResults: []*ptcsidecarv1.Value{value}},
			} {
				if problem := checkGenerated(svc, req, true); problem != "" {
					t.Errorf("%T: %s", req, problem)
				}
			}
		})
	}
}
