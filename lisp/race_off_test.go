//go:build !race

package lisp

// raceDetector: see race_on_test.go.
const raceDetector = false
