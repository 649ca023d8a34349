//go:build !race

package bpe

// raceDetector: see race_on_test.go.
const raceDetector = false
