// Package hardening holds the reliability tests of ragtriage: faults of the
// fallback judge while traffic flows, a failing record sink, shadow shutdown
// under load, stalls (a judge that never returns, a sink that blocks), a load test of examples/httpserver, a memory soak, privacy of
// every telemetry channel and prompt-injection cases. The tests live in the
// _test.go files; this file has the few helpers they share. The figures the
// tests report, and the commands that reproduce them, are in
// docs/reliability.md.
//
// The fallback model in these tests is internal/fakeopenai, a simulation of
// an OpenAI-compatible server (not a model), spoken to over real HTTP on
// 127.0.0.1.
package hardening

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// Latencies collects durations from several goroutines. The zero value is
// ready to use; it is safe for concurrent use.
type Latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

// Add records one duration.
func (l *Latencies) Add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// Len returns how many durations were recorded.
func (l *Latencies) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.d)
}

// Summary returns the count, p50, p99 and maximum of what was recorded.
func (l *Latencies) Summary() Summary {
	l.mu.Lock()
	d := slices.Clone(l.d)
	l.mu.Unlock()
	slices.Sort(d)
	s := Summary{N: len(d)}
	if len(d) == 0 {
		return s
	}
	s.P50, s.P99, s.Max = Quantile(d, 0.50), Quantile(d, 0.99), d[len(d)-1]
	return s
}

// Summary describes a set of durations.
type Summary struct {
	N             int
	P50, P99, Max time.Duration
}

func (s Summary) String() string {
	return fmt.Sprintf("n=%d p50=%v p99=%v max=%v", s.N, s.P50.Round(time.Microsecond), s.P99.Round(time.Microsecond), s.Max.Round(time.Microsecond))
}

// Quantile returns the q-quantile of sorted durations by the nearest-rank
// method (the smallest value with at least q of the values at or below it).
// It returns 0 for no values.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}
