//go:build race

package lisp

// raceDetector reports whether the tests run under the race detector,
// which changes what Go allocates (sync.Pool drops what it holds at
// random): tests that measure allocation skip then.
const raceDetector = true
