//go:build race

package bpe

// raceDetector reports whether the tests run under the race detector,
// which changes what Go allocates (sync.Pool drops what it holds at
// random), so allocation counts are compared, not bounded.
const raceDetector = true
