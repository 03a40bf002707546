//go:build race

package memory

// raceEnabled: the race detector slows the pure-Go SQLite down some fifty
// times, so the longest tests check fewer cases under it.
const raceEnabled = true
