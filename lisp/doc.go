// Package lisp implements PTC-Lisp, the small Clojure dialect that code-acting
// agents write: a reader (also used for EDN values on the wire), an analysis
// pass that resolves every name and compiles the forms once per program into
// a tree of nodes (eval.go), and an evaluator that walks that tree, whose
// Thread carries the deterministic step and allocation budgets.
//
// The package is pure: it performs no I/O. Tool calls go through the Host
// interface, and everything an evaluation produces (result, prints, tool calls,
// new memory) is returned to the caller.
package lisp
