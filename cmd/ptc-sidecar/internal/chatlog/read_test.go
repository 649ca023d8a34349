package chatlog

import (
	"bytes"
	"os"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/strategies"
)

// FuzzReadLogs: no input makes reading a log, or finding its calls'
// evidence, panic. (The strategies have fuzz targets of their own.)
func FuzzReadLogs(f *testing.F) {
	for _, file := range []string{"testdata/openai_requests.jsonl", "testdata/anthropic_request.json", "testdata/trace_run.json"} {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`[{"role":"user","content":[{"type":"tool_result","content":[{"type":"image"}]}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var logs Logs
		if logs.Read("fuzz", bytes.NewReader(data)) != nil {
			return
		}
		for _, c := range logs.Chats {
			for n := range c.Messages {
				strategies.ChatEvidence(c.Messages[:n], &c.Messages[n])
			}
		}
		for _, r := range logs.Runs {
			turns := WithMemorySnapshots(r.Req)
			for k := range turns {
				_, _ = BindingsOf(MemoryBefore(r.Req, turns, k))
			}
		}
	})
}
