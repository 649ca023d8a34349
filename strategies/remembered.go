package strategies

import (
	"context"
	"maps"

	"github.com/ptc-sidecar/ptc-sidecar/internal/memo"
)

// Remembered is what the strategies remember between requests, in tables
// of a memo (internal/memo): the token and character counts of texts
// (stats.go) and parsed signatures. It comes with each Request; the
// strategies hold no state of their own. A nil *Remembered remembers
// nothing.
type Remembered struct {
	tokenCounts *memo.Table[tokenKey, textCounts]
	signatures  *memo.Table[string, signatureText]
	// partCounts are the media counts of parts with inline data, whose
	// sizes are read from the data (a PDF's pages from all of it).
	partCounts *memo.Table[partKey, mediaCount]
	// ctx is the request's, in the copy one request renders with
	// (during): counting tokens stops once it ends.
	ctx context.Context
	// rendered are the signatures parsed while one request renders (the
	// copy of during): the answer, the statistics' "before" and the bill's
	// earlier call write the same signatures, and one the memo does not
	// keep (a signature of megabytes) would be parsed again for each, at
	// 15 times its size.
	rendered map[string]signatureText
}

// during is r for one request's rendering, which stops once ctx ends; r
// may be nil (nothing remembered). parsed are the signatures the
// request's options were checked with (Options.signatures): rendering
// uses them rather than parsing them again.
func (r *Remembered) during(ctx context.Context, parsed map[string]signatureText) *Remembered {
	c := Remembered{}
	if r != nil {
		c = *r
	}
	c.ctx, c.rendered = ctx, make(map[string]signatureText, len(parsed))
	maps.Copy(c.rendered, parsed)
	return &c
}

// stopped is the error of the request's context once it has ended.
func (r *Remembered) stopped() error {
	if r == nil || r.ctx == nil {
		return nil
	}
	return r.ctx.Err()
}

// NewRemembered returns the strategies' tables in m.
func NewRemembered(m *memo.Memo) *Remembered {
	return &Remembered{
		tokenCounts: memo.NewTable[tokenKey, textCounts](m, "token_counts"),
		signatures:  memo.NewTable[string, signatureText](m, "signatures"),
		partCounts:  memo.NewTable[partKey, mediaCount](m, "part_counts"),
	}
}

// signature is parseSignatureText(src), remembered: a running agent sends
// the same tool signatures on every call, and each is parsed three times
// per call (checked, then written by both renders), a tenth of a warm
// ToMessages call when parsed every time.
func (r *Remembered) signature(src string) signatureText {
	if r == nil {
		return parseSignatureText(src)
	}
	if t, ok := r.rendered[src]; ok {
		return t
	}
	if r.signatures != nil {
		if t, ok := r.signatures.Get(src); ok {
			return t
		}
	}
	t := parseSignatureText(src)
	if r.signatures != nil {
		r.signatures.Put(src, t, int64(memo.EntryOverhead+2*len(src)))
	}
	if r.rendered != nil {
		r.rendered[src] = t
	}
	return t
}

// Normalize is Normalize with signatures remembered in r.
func (r *Remembered) Normalize(raw RawOptions) (Options, error) {
	return normalize(raw, r)
}
