//go:build !race

package main

// raceDetector: see race_internal_test.go.
const raceDetector = false
