package strategies

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// endingContext is a context whose Err reports it cancelled from its
// (after+1)th call on.
type endingContext struct {
	context.Context
	calls, after int
}

func (c *endingContext) Err() error {
	if c.calls++; c.calls > c.after {
		return context.Canceled
	}
	return nil
}

// TestCountStopsInsideALine: a request's context ending stops counting a
// single line of a megabyte (one chunk), for every tokenizer, where
// looking between lines would count it to its end.
func TestCountStopsInsideALine(t *testing.T) {
	line := strings.Repeat("aGVsbG8gd29ybGQ", 1<<16)
	for _, tok := range TokenizerNames() {
		ctx := &endingContext{Context: context.Background(), after: 1}
		_, err := (*Remembered)(nil).during(ctx, nil).text(tok, line)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: counting a %d-byte line under an ended context: %v, want it cancelled", tok, len(line), err)
		}
		if ctx.calls != 2 {
			t.Errorf("%s: the context was looked at %d times, want 2 (before the line, then inside it)", tok, ctx.calls)
		}
	}
}

// TestCountStopsAmongLongLines: lines each shorter than what package bpe
// counts between looks are looked at every stopCheckBytes counted.
func TestCountStopsAmongLongLines(t *testing.T) {
	text := strings.Repeat(strings.Repeat("aGVsbG8gd29ybGQ", 1<<9)+"\n", 64)
	for _, tok := range TokenizerNames() {
		ctx := &endingContext{Context: context.Background(), after: 1}
		_, err := (*Remembered)(nil).during(ctx, nil).text(tok, text)
		if !errors.Is(err, context.Canceled) || ctx.calls != 2 {
			t.Errorf("%s: counting %d lines of %d bytes under an ended context: %v after %d looks, want it cancelled after 2", tok, 64, len(text)/64, err, ctx.calls)
		}
	}
}
