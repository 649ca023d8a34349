//go:build race

package main_test

// Under the race detector the binary the end-to-end tests start is built
// with it too, so the load and shutdown tests check the server's own
// concurrency. Instrumented code runs several times slower and uses several
// times the memory, so time and memory bounds scale by raceSlowdown.
var buildFlags = []string{"-race", "-tags", "grpcnotrace"}

const raceSlowdown = 8
