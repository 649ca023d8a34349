//go:build !race

package main_test

// buildFlags are extra go build flags for the binary under test.
var buildFlags = []string{"-tags", "grpcnotrace"} // as make build: the binary that ships

// raceSlowdown scales time and memory bounds (see race_test.go).
const raceSlowdown = 1
