package cascade

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// latencyWindow keeps the last n fallback latencies and their 95th
// percentile. Observe takes a lock; P95 is a lock-free read of the value
// computed at the last observation. Safe for concurrent use.
type latencyWindow struct {
	mu     sync.Mutex
	ring   []time.Duration // in arrival order, len ≤ cap
	next   int             // ring index of the oldest value once full
	sorted []time.Duration // the same values, ascending
	min    int             // observations needed before P95 reports
	p95    atomic.Int64    // nanoseconds; 0 until min observations
	last   atomic.Int64    // clock time (Unix ns) of the last observation
	maxAge time.Duration
	now    func() time.Time
}

func newLatencyWindow(size, minSamples int, maxAge time.Duration, now func() time.Time) *latencyWindow {
	return &latencyWindow{ring: make([]time.Duration, 0, size), sorted: make([]time.Duration, 0, size), min: minSamples, maxAge: maxAge, now: now}
}

// Observe records one latency.
//
// The first observation after the window went stale (see P95) starts a new
// window: the old latencies are what made callers skip the fallback, and
// keeping them would skip it again after one call, so a fallback that has
// recovered would get one call per maxAge.
func (w *latencyWindow) Observe(d time.Duration) {
	now := w.now().UnixNano()
	if d < 0 {
		d = 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if prev := w.last.Load(); prev != 0 && now-prev > int64(w.maxAge) {
		w.ring, w.sorted, w.next = w.ring[:0], w.sorted[:0], 0
		w.p95.Store(0)
	}
	w.last.Store(now)
	if len(w.ring) < cap(w.ring) {
		w.ring = append(w.ring, d)
	} else {
		old := w.ring[w.next]
		w.ring[w.next] = d
		w.next = (w.next + 1) % len(w.ring)
		i, _ := slices.BinarySearch(w.sorted, old)
		w.sorted = slices.Delete(w.sorted, i, i+1)
	}
	i, _ := slices.BinarySearch(w.sorted, d)
	w.sorted = slices.Insert(w.sorted, i, d)
	if len(w.sorted) >= w.min {
		w.p95.Store(int64(percentile(w.sorted, 0.95)))
	}
}

// Reset forgets every latency observed.
func (w *latencyWindow) Reset() {
	w.mu.Lock()
	w.ring, w.sorted, w.next = w.ring[:0], w.sorted[:0], 0
	w.p95.Store(0)
	w.mu.Unlock()
}

// P95 returns the 95th percentile of the window (nearest rank), or 0 while
// fewer than the minimum number of observations were made, or when the
// newest is older than maxAge: a window nobody refreshed (because its p95
// made every caller skip the fallback) must not lock the fallback out for
// good, so after maxAge one round of calls goes through and measures again.
func (w *latencyWindow) P95() time.Duration {
	p := w.p95.Load()
	if p == 0 || w.now().UnixNano()-w.last.Load() > int64(w.maxAge) {
		return 0
	}
	return time.Duration(p)
}

// Known returns the p95 over the window even when it is stale (for Stats).
func (w *latencyWindow) Known() time.Duration { return time.Duration(w.p95.Load()) }

// percentile returns the nearest-rank q-quantile of ascending xs: the
// smallest value with at least q·n values at or below it.
func percentile(xs []time.Duration, q float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	rank := int(q*float64(len(xs)) + 0.999999999)
	if rank < 1 {
		rank = 1
	}
	if rank > len(xs) {
		rank = len(xs)
	}
	return xs[rank-1]
}
