// Package starlarkbench measures the PTC-Lisp interpreter against starlark-go
// on the same programs over the same data (starlark_test.go).
//
// It is a module of its own so that the product's module graph does not
// carry starlark-go, which publishes no tagged releases: run it with
// `cd bench/starlark && go test -run '^$' -bench .`. Its go.mod replaces
// the product's module with the working tree.
package starlarkbench
