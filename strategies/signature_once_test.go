package strategies

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// TestSignatureParsedOncePerRequest: a request's signatures are parsed
// once, by Normalize, and rendering uses what it parsed, however large
// they are and whatever the memo keeps: a signature past what the memo
// keeps was parsed again for the answer, at about 15 times its bytes. The
// parses are counted by their allocations: rendering a request that
// names a signature of 20,000 parameters, as a tool's and as the return
// signature, allocates at most what one parse of it does beyond a request
// of a small one.
func TestSignatureParsedOncePerRequest(t *testing.T) {
	var b strings.Builder
	b.WriteString("(")
	for i := range 20_000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("p" + strconv.Itoa(i) + " [{a :int, b :string?}]")
	}
	b.WriteString(") -> {id :int}")
	big := b.String()
	parse := testing.AllocsPerRun(3, func() { _, _ = ParseSignature(big) })
	request := func(sig string) float64 {
		return testing.AllocsPerRun(3, func() {
			rem := NewRemembered(memo.New(1 << 20)) // keeps no signature past 128 KiB
			o, err := rem.Normalize(RawOptions{Mission: "m", SystemPrompt: "s", Signature: sig,
				Tools: []ToolSpec{{Name: "t", Signature: sig}, {Name: "u", Signature: sig}}})
			if err != nil {
				t.Fatal(err)
			}
			req := &Request{Options: o, Remembered: rem, Context: context.Background(),
				Turns: []Turn{{Number: 1, Program: "(tool/t {})", Success: true}}}
			if _, err := Render(req); err != nil {
				t.Fatal(err)
			}
		})
	}
	extra := request(big) - request("(a :int) -> :int")
	t.Logf("one parse %.0f allocations, the request %.0f more (%.2f parses)", parse, extra, extra/parse)
	if extra > 1.25*parse {
		t.Errorf("a request naming one signature of %d bytes three times allocates %.0f more than one of a small one, %.2f times one parse (%.0f): it is parsed more than once",
			len(big), extra, extra/parse, parse)
	}
}
