//go:build !race

package app_test

// raceEnabled: the tests are built with the race detector, which changes what allocates.
const raceEnabled = false
