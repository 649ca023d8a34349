//go:build race

package strategies

// raceEnabled: the tests run under the race detector, whose instrumented
// code runs several times slower.
const raceEnabled = true
