// Package replay implements EvalTurn's stateless tool protocol. The sidecar
// keeps nothing between calls, so a program that calls a tool is evaluated
// again from the start each time the caller brings another answer: the
// answered calls replay from the caller's list and evaluation stops at the
// first unanswered one, which the caller then runs.
//
// Replay is sound because evaluation is deterministic (step and allocation
// budgets, not time, decide where a program stops): the same program, prelude,
// data and answers reach the same calls in the same order.
package replay

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptc-sidecar/ptc-sidecar/lisp"
)

// Answer is the caller's result for one earlier tool call.
type Answer struct {
	Index  int
	Name   string
	Args   lisp.Value
	Result lisp.Value // used when Error is empty
	Error  string     // the tool failed; the program sees a tool_error
}

// Pending is the first tool call the caller has not answered yet.
type Pending struct {
	Index int
	Name  string
	Args  lisp.Value
}

// MismatchError means the program made a different call at Index than the
// one the caller answered: the program, prelude, data or answers changed
// between replays, so the answers no longer belong to this evaluation.
type MismatchError struct {
	Index  int
	Reason string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("tool_results[%d]: %s", e.Index, e.Reason)
}

// Host answers tool calls from the caller's answers, in order. It is a
// lisp.Host for one evaluation.
type Host struct {
	answers  []Answer
	next     int
	pending  *Pending
	mismatch *MismatchError
}

// NewHost returns a host that replays answers. The caller has checked that
// answers[i].Index == i.
func NewHost(answers []Answer) *Host { return &Host{answers: answers} }

// CallTool replays the next answer, or suspends the evaluation at the first
// call that has none.
func (h *Host) CallTool(_ context.Context, name string, args lisp.Value) (lisp.Value, error) {
	i := h.next
	h.next++
	if i >= len(h.answers) {
		h.pending = &Pending{Index: i, Name: name, Args: args}
		return nil, lisp.ErrSuspend
	}
	a := h.answers[i]
	if a.Name != name {
		h.mismatch = &MismatchError{Index: i, Reason: fmt.Sprintf("the program called tool %q here, but the answer is for %q", name, a.Name)}
		return nil, fmt.Errorf("%w: %v", lisp.ErrSuspend, h.mismatch)
	}
	if !sameArgs(a.Args, args) {
		h.mismatch = &MismatchError{Index: i, Reason: fmt.Sprintf("the program called %s with %s, but the answer is for %s", name, lisp.Repr(args), lisp.Repr(a.Args))}
		return nil, fmt.Errorf("%w: %v", lisp.ErrSuspend, h.mismatch)
	}
	if a.Error != "" {
		return nil, errors.New(a.Error)
	}
	return a.Result, nil
}

// sameArgs compares a call's arguments with those its answer echoes. Values
// that are equal match; so do values with the same wire text, which
// Equal does not see as equal (NaN, regexes and functions are equal only
// to themselves) but which the caller could only have sent back as they
// were emitted.
func sameArgs(answered, called lisp.Value) bool {
	return lisp.Equal(answered, called) || lisp.WireText(answered) == lisp.WireText(called)
}

// Pending is the call the evaluation stopped at, or nil.
func (h *Host) Pending() *Pending { return h.pending }

// Check reports a replay that went wrong: a call that differs from its
// answer, or answers left over after the program finished (it made fewer
// calls than the caller answered).
func (h *Host) Check() error {
	if h.mismatch != nil {
		return h.mismatch
	}
	if h.pending == nil && h.next < len(h.answers) {
		return &MismatchError{Index: h.next, Reason: fmt.Sprintf("the program made %d tool call(s), but %d were answered", h.next, len(h.answers))}
	}
	return nil
}
