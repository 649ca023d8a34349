//go:build race

package server

// raceEnabled reports whether the tests run under the race detector,
// whose slowdown the longest property tests answer with fewer cases.
const raceEnabled = true
