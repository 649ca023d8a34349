// Package bench holds the performance measurements that span packages: the
// in-process cost of the server's RPCs on the load harness's fixtures
// (server_bench_test.go), the interpreter against starlark-go
// (starlark_test.go), and, in cmd/loadbench, the load harness itself, which
// drives the real ptc-sidecar against cmd/echoserver, the transport's
// baseline.
package bench
