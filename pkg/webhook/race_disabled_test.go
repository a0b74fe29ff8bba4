//go:build !race

package webhook

// raceEnabled is whether the test binary runs with -race.
const raceEnabled = false
