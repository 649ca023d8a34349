package strategies

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCacheStableAppendOnly replays every run of the corpus under each
// pricing and checks what makes the strategy cache-stable: consecutive
// calls agree on where the record was re-based (the same, or at the turn
// just added), and unless the call re-bases or a turn redefines a name for
// the first time, the USER message begins with all of the earlier call's
// that its next_cache_breakpoint promised.
func TestCacheStableAppendOnly(t *testing.T) {
	files, err := filepath.Glob("testdata/traces/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatal("no traces", err)
	}
	appended, rebased := 0, 0
	for _, file := range files {
		tr := loadTrace(t, file)
		for _, pricing := range PricingNames() {
			p, _ := resolvePricing(pricing, nil, nil)
			var prev *Response
			prevBase := 0
			defined := map[string]bool{}
			for i := range len(tr.turns) + 1 {
				req := &Request{Options: tr.opts, Turns: tr.turns[:i]}
				req.Options.Pricing = p
				if i > 0 {
					req.Memory = tr.memory[i-1]
				}
				what := fmt.Sprintf("%s, %s, call %d", tr.name, pricing, i+1)
				base, err := rebasePoint(req, newRecord(req).entries)
				if err != nil {
					t.Fatal(err)
				}
				if base != prevBase && base != i {
					t.Fatalf("%s: re-based at turn %d, the earlier call at %d", what, base, prevBase)
				}
				resp, err := cacheStable{}.Render(req)
				if err != nil {
					t.Fatal(err)
				}
				redefined := false
				if i > 0 && tr.turns[i-1].Success {
					for _, name := range tr.turns[i-1].Defined {
						redefined = redefined || defined[name]
					}
					for _, name := range tr.turns[i-1].Defined {
						defined[name] = true
					}
				}
				if prev != nil && base == prevBase && !redefined {
					kept := prev.Stats.NextCacheBreakpoint
					before := prev.Messages[kept.Message].Content
					before = before[:runeOffset(before, kept.Offset)]
					if !strings.HasPrefix(resp.Messages[kept.Message].Content, before) {
						t.Fatalf("%s: the USER message does not begin with the earlier call's first %d characters\n--- earlier ---\n%s\n--- now ---\n%s", what, kept.Offset, before, resp.Messages[kept.Message].Content)
					}
					appended++
				} else if prev != nil {
					rebased++
				}
				prev, prevBase = resp, base
			}
		}
	}
	if appended == 0 || rebased == 0 {
		t.Errorf("%d calls appended, %d re-based or redefined: want both", appended, rebased)
	}
}

// runeOffset is the byte offset of the n-th character of s.
func runeOffset(s string, n int) int {
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
