// Package bench holds the performance measurements that span packages: the
// in-process cost of the server's RPCs on the load harness's fixtures
// (server_bench_test.go) and, in cmd/loadbench, the load harness itself, which
// drives the real ptc-sidecar against cmd/echoserver, the transport's
// baseline. The interpreter against starlark-go is the module in
// starlark/, kept out of the product's module graph.
package bench
