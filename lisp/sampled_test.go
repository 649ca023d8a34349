package lisp

import "testing"

// sampled is how many cases a test of generated programs or values runs:
// full in make test, sample under -short (the inner loop) and under the
// race detector. These tests check one evaluation at a time, or the same
// one from several goroutines (TestGeneratedAttacks' concurrent callers,
// on every seed the sample runs): instrumented they take several times
// longer, and make test runs their full count.
func sampled(full, sample int) int {
	if testing.Short() || raceDetector {
		return sample
	}
	return full
}
