//go:build race

package main

// raceDetector reports whether the tests run under the race detector
// (race_test.go has the end-to-end tests' counterpart).
const raceDetector = true
