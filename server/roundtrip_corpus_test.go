package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
	"github.com/ptc-sidecar/ptc-sidecar/lisp"

	ptcsidecarv1 "github.com/ptc-sidecar/ptc-sidecar/gen/ptcsidecar/v1"
)

// The round trip driven by programs: the values a turn emits are whatever
// programs make, so the programs of the interpreter's corpora (the idioms
// models write, the judged programs, the generated probes of every
// builtin, in lisp/testdata) make them. Each program runs three ways: as
// it is, its value defined and passed to a tool, and its value as a fail
// reason. Everything each turn emits (its result or fail reason, its
// memory, its tool calls' arguments and results) must come back: as the
// same text from previous_results and from a prelude, accepted by every
// field of every RPC, and the turn itself taken by ToMessages.

// corpusPrograms are the programs of lisp/testdata's corpora: every
// judged and idiom program, and every generated probe.
func corpusPrograms(t *testing.T) []string {
	t.Helper()
	var programs []string
	jsonl, err := filepath.Glob("../lisp/testdata/*/corpus.jsonl")
	if err != nil || len(jsonl) == 0 {
		t.Fatalf("no corpora in ../lisp/testdata: %v", err)
	}
	for _, path := range jsonl {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var entry struct{ Program string }
			if err := json.Unmarshal(sc.Bytes(), &entry); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if strings.TrimSpace(entry.Program) != "" {
				programs = append(programs, entry.Program)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	probes, err := os.ReadFile("../lisp/testdata/genprobe/probes.txt")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(probes)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, ";") {
			programs = append(programs, line)
		}
	}
	return programs
}

// toolCallName finds the tools a program calls (tool/name), which the
// replay then declares and answers with their arguments.
var toolCallName = regexp.MustCompile(`tool/([a-zA-Z_][a-zA-Z0-9_\-]*)`)

// corpusTools declares echo and every tool program calls.
func corpusTools(program string) []*ptcsidecarv1.ToolSpec {
	names := []string{"echo"}
	for _, m := range toolCallName.FindAllStringSubmatch(program, -1) {
		if !slices.Contains(names, m[1]) {
			names = append(names, m[1])
		}
	}
	tools := make([]*ptcsidecarv1.ToolSpec, len(names))
	for i, n := range names {
		tools[i] = &ptcsidecarv1.ToolSpec{Name: n}
	}
	return tools
}

// runReplayed evaluates program with tools, answering every tool call
// with its arguments (runEchoed for any tool).
func runReplayed(svc *Service, program string, tools []*ptcsidecarv1.ToolSpec) (*ptcsidecarv1.Turn, error) {
	req := &ptcsidecarv1.EvalTurnRequest{Program: program, Tools: tools, Limits: roundTripLimits()}
	for {
		resp, err := svc.EvalTurn(context.Background(), req)
		if err != nil {
			return nil, err
		}
		if turn := resp.GetTurn(); turn != nil {
			return turn, nil
		}
		for _, call := range resp.GetPending().GetCalls() {
			req.ToolResults = append(req.ToolResults, &ptcsidecarv1.ToolResult{
				Index: call.GetIndex(), Name: call.GetName(), Args: call.GetArgs(), Result: call.GetArgs()})
		}
	}
}

// roundTripFault is one way an emitted value did not come back.
type roundTripFault struct{ program, what string }

// corpusRoundTrip runs program and checks that everything its turn
// emits comes back; it returns what did not, and whether the turn
// emitted any value.
func corpusRoundTrip(svc *Service, program string, tools []*ptcsidecarv1.ToolSpec) (faults []string, emittedAny bool) {
	turn, err := runReplayed(svc, program, tools)
	if err != nil {
		return []string{"the emitted tool arguments, sent back, are refused: " + err.Error()}, false
	}
	fields, values := emitted(turn)
	memory := turn.GetMemory()
	for i, v := range values {
		emittedAny = true
		// Sent back as the next turn sends it: with the memory, whose
		// functions a value's functions may call.
		resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "*1", Prelude: memory, Tools: tools,
			PreviousResults: []*ptcsidecarv1.Value{v}})
		if err != nil {
			faults = append(faults, fmt.Sprintf("%s %.200s refused as previous_results: %v", fields[i], v.GetEdn(), err))
			continue
		}
		if fault := sameEmitted(svc, v, memory, resp.GetTurn()); fault != "" {
			faults = append(faults, fmt.Sprintf("%s emitted as %.200s comes back from previous_results %s", fields[i], v.GetEdn(), fault))
			continue
		}
		// Every field of every RPC, the value inside a map (data must be one).
		wrapped := &ptcsidecarv1.Value{Edn: "{:v " + v.GetEdn() + "}"}
		answers, _ := throughEveryField(svc, wrapped)
		for _, a := range answers {
			if a.answer != "" {
				faults = append(faults, fmt.Sprintf("%s %.200s refused in %s: %s", fields[i], v.GetEdn(), a.field, a.answer))
			}
		}
	}
	for _, b := range memory.GetBindings() {
		resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: b.GetName(), Prelude: memory, Tools: tools})
		if err != nil {
			faults = append(faults, fmt.Sprintf("memory refused as prelude: %v", err))
			continue
		}
		switch fault := sameEmitted(svc, b.GetValue(), memory, resp.GetTurn()); {
		case fault != "":
			faults = append(faults, fmt.Sprintf("binding %s emitted as %.200s reads from the prelude %s", b.GetName(), b.GetValue().GetEdn(), fault))
		case !proto.Equal(resp.GetTurn().GetMemory(), memory):
			faults = append(faults, fmt.Sprintf("memory changed by a turn that defines nothing: %.300v", resp.GetTurn().GetMemory()))
		}
	}
	for _, strategy := range []string{"", "full"} {
		if _, err := svc.ToMessages(context.Background(), &ptcsidecarv1.ToMessagesRequest{Turns: []*ptcsidecarv1.Turn{turn}, Memory: memory,
			Options: &ptcsidecarv1.Options{Strategy: strategy, Tools: tools}}); err != nil {
			faults = append(faults, fmt.Sprintf("ToMessages %q refuses the turn: %v", strategy, err))
		}
	}
	return faults, emittedAny
}

// sameEmitted is "" when turn, which returned a value v read back, with
// memory as its prelude, emitted it as v: the same text, or a text the
// interpreter finds equal (=) to v, as a lazy sequence sent as its source
// is once a result realizes it. A sequence that never ends is accepted
// but cannot be a result (an error saying so). Else it says how turn
// differs.
func sameEmitted(svc *Service, v *ptcsidecarv1.Value, memory *ptcsidecarv1.Memory, turn *ptcsidecarv1.Turn) string {
	got := turn.GetResult()
	if e := turn.GetError(); e != nil {
		if strings.Contains(e.GetMessage(), "it never ends") {
			return ""
		}
		return fmt.Sprintf("as an error: %s: %s", e.GetType(), e.GetMessage())
	}
	if got.GetEdn() == v.GetEdn() {
		return ""
	}
	resp, err := svc.EvalTurn(context.Background(), &ptcsidecarv1.EvalTurnRequest{Program: "(= *1 *2)", Prelude: memory,
		PreviousResults: []*ptcsidecarv1.Value{v, {Edn: got.GetEdn()}}})
	if err == nil && resp.GetTurn().GetResult().GetEdn() == "true" {
		return ""
	}
	return fmt.Sprintf("as %.200s, not equal to it (%v %v)", got.GetEdn(), err, resp.GetTurn().GetError())
}

// TestCorpusProgramsEmitWhatReadsBack runs every corpus program three
// ways and sends back everything each turn emits (see corpusRoundTrip).
func TestCorpusProgramsEmitWhatReadsBack(t *testing.T) {
	programs := corpusPrograms(t)
	svc := New(Config{Limits: lisp.DefaultLimits(), Memo: memo.New(32 << 20)})
	// Every fourth program: all of them take about 100 s (each emitted
	// value goes through a dozen RPCs); the race detector's slowdown and
	// -short take fewer.
	stride := 4
	if testing.Short() || raceEnabled {
		stride = 24
	}
	var faults []roundTripFault
	ran, emittedAny := 0, 0
	for i := 0; i < len(programs); i += stride {
		p := programs[i]
		tools := corpusTools(p)
		for _, program := range []string{
			p,
			"(def v (do\n" + p + "\n))\n(tool/echo {:v v})\nv",
			"(fail (do\n" + p + "\n))",
		} {
			ran++
			got, any := corpusRoundTrip(svc, program, tools)
			if any {
				emittedAny++
			}
			for _, f := range got {
				faults = append(faults, roundTripFault{program, f})
			}
		}
	}
	t.Logf("%d programs of %d run three ways: %d turns emitted values, %d faults", (len(programs)+stride-1)/stride, len(programs), emittedAny, len(faults))
	for i, f := range faults {
		if i == 400 {
			t.Errorf("... and %d more", len(faults)-400)
			break
		}
		t.Errorf("program %.300q:\n%s", f.program, f.what)
	}
	if emittedAny < ran/3 {
		t.Errorf("only %d of %d turns emitted a value: the corpora test little", emittedAny, ran)
	}
}
