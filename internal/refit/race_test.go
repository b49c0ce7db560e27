//go:build race

package main

// raceEnabled: the race detector slows the full refit about tenfold.
const raceEnabled = true
