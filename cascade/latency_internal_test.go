package cascade

import (
	"testing"
	"time"
)

// A window that went stale restarts on the next observation, so a fallback
// that was slow and has recovered is measured afresh instead of being
// skipped again after a single call.
func TestLatencyWindowRestartsWhenStale(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	w := newLatencyWindow(100, 5, time.Second, func() time.Time { return clock })
	for range 100 {
		w.Observe(2 * time.Second)
	}
	if p := w.P95(); p != 2*time.Second {
		t.Fatalf("p95 = %v, want 2s", p)
	}
	clock = clock.Add(2 * time.Second) // stale: nobody called the fallback
	if p := w.P95(); p != 0 {
		t.Fatalf("stale p95 = %v, want 0", p)
	}
	w.Observe(10 * time.Millisecond) // the recovered fallback answers fast
	if p := w.P95(); p != 0 {
		t.Fatalf("p95 after one fresh observation = %v, want 0 until 5 are known", p)
	}
	for range 4 {
		w.Observe(10 * time.Millisecond)
	}
	if p := w.P95(); p != 10*time.Millisecond {
		t.Fatalf("p95 = %v, want the fresh 10ms", p)
	}
	if p := w.Known(); p != 10*time.Millisecond {
		t.Fatalf("known p95 = %v", p)
	}
}
