package strategies

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// billParts is cache-stable's bill on calls of a run, split by where in the
// prompt each token is: the task (SYSTEM, mission, tools, data, expected
// return, the host's prelude), the record (up to next_cache_breakpoint)
// and the part after it; each read from the cache or written to it. A
// re-base is the record written on a call whose summary differs from the
// previous call's.
type billParts struct {
	taskWrite, taskRead, recordRead, recordWrite, rebaseWrite, after float64
	full                                                             float64 // full's bill on the same calls
}

func (a *billParts) add(b billParts) {
	a.taskWrite += b.taskWrite
	a.taskRead += b.taskRead
	a.recordRead += b.recordRead
	a.recordWrite += b.recordWrite
	a.rebaseWrite += b.rebaseWrite
	a.after += b.after
	a.full += b.full
}

func (a *billParts) total() float64 {
	return a.taskWrite + a.taskRead + a.recordRead + a.recordWrite + a.rebaseWrite + a.after
}

// row is the parts as shares of full's bill, as docs/STRATEGIES.md shows
// them.
func (a *billParts) row(label string) string {
	f := a.full
	return fmt.Sprintf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |", label, a.total()/f, a.taskWrite/f, a.taskRead/f, a.recordRead/f, a.recordWrite/f, a.rebaseWrite/f, a.after/f)
}

// callParts splits the bill of one cache-stable call (req rendered as
// resp) by billParts; rebased says whether its summary is new.
func callParts(t *testing.T, req *Request, resp *Response, rebased bool) billParts {
	t.Helper()
	_, head, err := newCacheStableRecord(req)
	if err != nil {
		t.Fatal(err)
	}
	o, st := &req.Options, &resp.Stats
	system, user := resp.Messages[0].Content, resp.Messages[1].Content
	if !strings.HasPrefix(user, head) {
		t.Fatalf("the prompt does not begin with the task")
	}
	end := len(user)
	if bp := st.NextCacheBreakpoint; bp != nil && bp.Message == 1 {
		end = runeOffset(user, bp.Offset)
	}
	tokens := func(texts ...string) float64 {
		n := 0
		for _, s := range texts {
			c, err := req.Remembered.text(o.Tokenizer, s)
			if err != nil {
				t.Fatal(err)
			}
			n += c.tokens
		}
		return float64(n)
	}
	task, withRecord := tokens(system, head), tokens(system, user[:end])
	sent, stable := float64(st.TokensAfter), float64(st.StablePrefixTokens)
	read, write := o.Pricing.ReadRate, o.Pricing.WriteRate
	p := billParts{
		taskRead:  min(stable, task) * read,
		taskWrite: (task - min(stable, task)) * write,
		// Each part tokenized alone: a token across a boundary counts on
		// both sides, a few tokens a call.
		recordRead: max(0, min(stable, withRecord)-task) * read,
		after:      max(0, sent-max(stable, withRecord)) * write,
	}
	if write > 1 {
		// The call writes up to its next cache breakpoint, after the
		// record: what follows is fresh input (price).
		p.after = max(0, sent-max(stable, withRecord))
	}
	written := max(0, withRecord-max(stable, task)) * write
	if rebased {
		p.rebaseWrite = written
	} else {
		p.recordWrite = written
	}
	return p
}

// runCallParts is cache-stable's bill on each call of tr under p, split by
// billParts (full's bill left at 0).
func runCallParts(t *testing.T, tr trace, p Pricing, rem *Remembered) []billParts {
	t.Helper()
	calls := make([]billParts, len(tr.turns))
	base := 0
	for i := range tr.turns {
		req := tr.request(i)
		req.Remembered = rem
		req.Options.Strategy, req.Options.Pricing = "cache-stable", p
		resp, err := Render(req)
		if err != nil {
			t.Fatal(err)
		}
		rec, _, err := newCacheStableRecord(req)
		if err != nil {
			t.Fatal(err)
		}
		calls[i] = callParts(t, req, resp, rec.base != base)
		base = rec.base
	}
	return calls
}

// TestCacheStableBillBreakdown splits cache-stable's bill on the recorded
// runs of a real model, cut after 5, 10 and 15 turns and whole, and on the
// same runs made 20 turns long by repeating their turns (from the second
// on, or their last three: TestCacheStableRunsOf20Turns), under anthropic,
// openai and none, and checks that the parts add up to the bill the
// statistics give. Run with -v for the tables of docs/STRATEGIES.md
// ("Where the bill goes, per run and per cut").
func TestCacheStableBillBreakdown(t *testing.T) {
	files := realRunSample(t)
	rem := NewRemembered(memo.New(64 << 20))
	cuts := []int{5, 10, 15, 0}
	for _, name := range []string{"anthropic", "openai", "none"} {
		p, err := resolvePricing(name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		sums := map[int]*billParts{}
		for _, k := range cuts {
			sums[k] = &billParts{}
		}
		// long[i] sums the runs of 20 turns repeating from the second turn
		// (0) or the last three (1).
		var long [2]billParts
		var runs []string
		for _, f := range files {
			tr := loadTrace(t, f)
			full, _ := billRun(t, tr, "full", p, rem)
			stable, _ := billRun(t, tr, "cache-stable", p, rem)
			calls := runCallParts(t, tr, p, rem)
			for _, k := range cuts {
				n := k
				if k == 0 {
					n = len(tr.turns)
				} else if len(tr.turns) < k {
					continue
				}
				run := billParts{full: full[n-1].billed}
				for _, c := range calls[:n] {
					run.add(c)
				}
				// The parts are tokenized alone; the bill tokenizes each
				// message whole.
				if got, want := run.total(), stable[n-1].billed; got < 0.97*want || got > 1.03*want {
					t.Errorf("%s, %s, %d calls: the parts add up to %.0f, the bill is %.0f", tr.name, name, n, got, want)
				}
				sums[k].add(run)
				if k == 0 {
					runs = append(runs, run.row(fmt.Sprintf("%s (%d)", strings.TrimPrefix(tr.name, "real-"), n)))
				}
			}
			for i, from := range []int{1, len(tr.turns) - 3} {
				tr20 := repeatTurns(tr, from, 20)
				full20, _ := billRun(t, tr20, "full", p, rem)
				run := billParts{full: full20[19].billed}
				for _, c := range runCallParts(t, tr20, p, rem) {
					run.add(c)
				}
				long[i].add(run)
			}
		}
		const heading = "| calls | cache-stable | task written | task read | record read | record written | re-bases written | after the record |\n|---|---|---|---|---|---|---|---|"
		var b strings.Builder
		fmt.Fprintf(&b, "%s, as shares of full's bill\n\n%s\n", name, heading)
		for _, k := range cuts {
			label := fmt.Sprintf("cut after %d turns", k)
			if k == 0 {
				label = "whole runs"
			}
			if sums[k].full > 0 {
				b.WriteString(sums[k].row(label) + "\n")
			}
		}
		b.WriteString(long[0].row("20 turns, repeating turns 2 on") + "\n")
		b.WriteString(long[1].row("20 turns, repeating the last three") + "\n")
		b.WriteString("\n" + heading + "\n" + strings.Join(runs, "\n"))
		t.Logf("\n%s", b.String())
	}
}
