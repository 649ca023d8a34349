package strategies

// budgetBill prices, during token-budget's replay of a history (budgetCut),
// each call's output against the raw history's under the request's
// pricing, as bill.go prices them: what the previous call sent is read
// from the cache where the output begins with it, the rest is written.
// It keeps what the strategy has saved so far (ahead), so that a cut can
// be made no dearer than what it has saved pays for.
type budgetBill struct {
	read, write float64
	fixed       int // tokens every output begins with (the system prompt)

	ahead            float64 // the raw history's bill less the strategy's, so far
	prevOut, prevRaw int     // the previous call's output and raw history; prevOut -1 before the first
	moved            bool    // the cut moved since the previous call
	cuts             int     // cuts made so far
}

func newBudgetBill(rate Pricing, fixed int) *budgetBill {
	return &budgetBill{read: rate.ReadRate, write: rate.WriteRate, fixed: fixed, prevOut: -1}
}

// caches reports whether a rewrite costs more than a read: without
// caching every cut is free.
func (b *budgetBill) caches() bool { return b.write > b.read }

// rawCost is the raw history's bill for a call that sends raw tokens.
func (b *budgetBill) rawCost(raw int) float64 {
	if b.prevOut < 0 {
		return b.write * float64(raw)
	}
	return b.read*float64(b.prevRaw) + b.write*float64(raw-b.prevRaw)
}

// cost is the strategy's bill for a call that sends out tokens, the cut
// having moved since the previous call or not.
func (b *budgetBill) cost(out int, moved bool) float64 {
	switch {
	case b.prevOut < 0:
		return b.write * float64(out)
	case moved:
		return b.read*float64(b.fixed) + b.write*float64(out-b.fixed)
	}
	return b.read*float64(b.prevOut) + b.write*float64(out-b.prevOut)
}

// pays reports whether a cut that leaves out tokens on a call whose raw
// history is raw tokens keeps the strategy's bill so far within the raw
// history's. The first cut of a conversation is not held to it: until it
// the strategy sent what the raw history sends and saved nothing, and a
// hard budget must cut; the calls after it repay it.
func (b *budgetBill) pays(out, raw int) bool {
	if !b.caches() || b.cuts == 0 || b.prevOut < 0 {
		return true
	}
	return b.ahead+b.rawCost(raw)-b.cost(out, true) >= 0
}

// cut records that the cut moved.
func (b *budgetBill) cut() { b.moved, b.cuts = true, b.cuts+1 }

// call prices a call that sends out tokens where the raw history sends raw.
func (b *budgetBill) call(out, raw int) {
	b.ahead += b.rawCost(raw) - b.cost(out, b.moved)
	b.prevOut, b.prevRaw, b.moved = out, raw, false
}
