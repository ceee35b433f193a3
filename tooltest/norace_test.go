//go:build !race

package tooltest_test

const raceEnabled = false
