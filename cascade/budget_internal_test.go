package cascade

import (
	"testing"
	"time"
)

// A refund goes back to the bucket the call was charged to: a refund that
// arrives after the clock moved to the next bucket must neither leave the
// charge in the window nor take a call away from the new bucket.
func TestBudgetRefundReturnsToChargedBucket(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	b := newBudget(Budget{Window: 10 * time.Second, Buckets: 10, MaxCalls: 2}, func() time.Time { return clock })
	c1, why := b.Reserve() // bucket k
	if why != "" {
		t.Fatal(why)
	}
	clock = clock.Add(time.Second) // bucket k+1, nothing charged to it yet
	// The call never ran (say the breaker refused it) and is refunded as
	// the clock has moved on: the charge must leave the window.
	b.Refund(c1)
	if calls, _ := b.sums(b.stamp[b.slot(clock)]); calls != 0 {
		t.Fatalf("%d calls in the window after the refund; want 0", calls)
	}
	// Charged to k+1 and refunded at k+2: the refund must not take a call
	// from k+2.
	c2, _ := b.Reserve()
	clock = clock.Add(time.Second)
	if _, why := b.Reserve(); why != "" {
		t.Fatal(why)
	}
	b.Refund(c2)
	if calls, _ := b.sums(b.stamp[b.slot(clock)]); calls != 1 {
		t.Fatalf("%d calls in the window; want 1", calls)
	}
	// Ten seconds on, k+2 leaves the window, and with it the call made there.
	clock = clock.Add(10 * time.Second)
	if calls, _ := b.sums(b.stamp[b.slot(clock)]); calls != 0 {
		t.Fatalf("%d calls after the window passed; want 0", calls)
	}
	if _, why := b.Reserve(); why != "" {
		t.Fatal(why)
	}
	if _, why := b.Reserve(); why != "" {
		t.Fatal(why)
	}
	if _, why := b.Reserve(); why == "" {
		t.Fatal("a third call within the window was allowed; the limit is 2")
	}
	// A refund for a bucket that has left the window changes nothing.
	old := charge{bucket: c1.bucket - 100, ok: true}
	b.Refund(old)
	if calls, _ := b.sums(b.stamp[b.slot(clock)]); calls != 2 {
		t.Fatalf("%d calls after a stale refund; want 2", calls)
	}
}
