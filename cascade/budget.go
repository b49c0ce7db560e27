package cascade

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultBudgetBuckets is the number of slices a budget window is kept in
// when Budget.Buckets is zero (in process and in a shared store alike).
const DefaultBudgetBuckets = 10

// Budget caps what the fallback may spend over a sliding window. A zero
// field is no cap; the zero Budget is unlimited.
type Budget struct {
	// Window is the length of the sliding window. Required when MaxCalls or
	// MaxTokens is set.
	Window time.Duration
	// MaxCalls is the largest number of fallback calls started within any
	// window: a maximum fallback rate of MaxCalls/Window.
	MaxCalls int
	// MaxTokens is the largest number of tokens (input plus output, as the
	// fallback reports them in Estimate.Usage) spent within a window. A call
	// is refused once the window's spend has reached it; a call under way
	// may overshoot it by what that call spends. Sums saturate instead of
	// wrapping. A negative count makes the fallback's answer invalid (the
	// call failed), and its other counts are still charged, so no answer
	// buys budget back.
	MaxTokens int
	// Buckets is how many slices the window is kept in (the resolution of
	// the sliding window). Zero means DefaultBudgetBuckets.
	Buckets int
}

func (b Budget) limited() bool { return b.MaxCalls > 0 || b.MaxTokens > 0 }

func (b Budget) validate() error {
	switch {
	case b.MaxCalls < 0 || b.MaxTokens < 0 || b.Buckets < 0 || b.Window < 0:
		return fmt.Errorf("cascade: budget %+v: negative field", b)
	case b.limited() && b.Window <= 0:
		return errors.New("cascade: budget: MaxCalls or MaxTokens needs a positive Window")
	}
	return nil
}

// budget is a sliding-window account of calls and tokens, split in buckets.
// Safe for concurrent use.
type budget struct {
	cfg    Budget
	now    func() time.Time
	width  time.Duration
	mu     sync.Mutex
	calls  []int
	tokens []int
	stamp  []int64 // bucket number each slot holds
}

func newBudget(cfg Budget, now func() time.Time) *budget {
	if !cfg.limited() {
		return nil
	}
	if cfg.Buckets == 0 {
		cfg.Buckets = DefaultBudgetBuckets
	}
	w := cfg.Window / time.Duration(cfg.Buckets)
	if w <= 0 {
		w = 1
	}
	return &budget{cfg: cfg, now: now, width: w, calls: make([]int, cfg.Buckets), tokens: make([]int, cfg.Buckets), stamp: make([]int64, cfg.Buckets)}
}

// slot returns the index of the bucket for time t, clearing it when it held
// an older bucket.
func (b *budget) slot(t time.Time) int {
	n := t.UnixNano() / int64(b.width)
	i := int(n % int64(len(b.calls)))
	if i < 0 {
		i += len(b.calls)
	}
	if b.stamp[i] != n {
		b.stamp[i], b.calls[i], b.tokens[i] = n, 0, 0
	}
	return i
}

// sums returns the calls and tokens of the window ending at bucket n.
func (b *budget) sums(n int64) (calls, tokens int) {
	for i := range b.calls {
		if b.stamp[i] > n-int64(len(b.calls)) && b.stamp[i] <= n {
			calls = satAdd(calls, b.calls[i])
			tokens = satAdd(tokens, b.tokens[i])
		}
	}
	return calls, tokens
}

// charge names the bucket a reserved call was counted in, so that a refund
// goes back to that bucket and not to whichever is current when it comes.
type charge struct {
	bucket int64
	ok     bool
}

// Reserve counts one call if the budget allows it and returns where it was
// counted, or returns why not.
func (b *budget) Reserve() (charge, string) {
	if b == nil {
		return charge{}, ""
	}
	return b.reserve(b.cfg.MaxCalls, b.cfg.MaxCalls)
}

// reserve is Reserve with the call cap maxCalls in place of MaxCalls (when
// MaxCalls is set), out of a full cap of full: a lower cap keeps the rest of
// the window's calls for others. A cap of 0 then refuses every call.
func (b *budget) reserve(maxCalls, full int) (charge, string) {
	t := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.slot(t)
	calls, tokens := b.sums(b.stamp[i])
	if b.cfg.MaxCalls > 0 && calls >= maxCalls {
		if maxCalls < full {
			return charge{}, fmt.Sprintf("%d fallback calls in the last %v (limit %d, of which the last %d are kept for the riskiest escalations)", calls, b.cfg.Window, full, full-maxCalls)
		}
		return charge{}, fmt.Sprintf("%d fallback calls in the last %v (limit %d)", calls, b.cfg.Window, maxCalls)
	}
	if b.cfg.MaxTokens > 0 && tokens >= b.cfg.MaxTokens {
		return charge{}, fmt.Sprintf("%d tokens in the last %v (limit %d)", tokens, b.cfg.Window, b.cfg.MaxTokens)
	}
	b.calls[i]++
	return charge{bucket: b.stamp[i], ok: true}, ""
}

// Spend adds tokens to the current bucket, saturating at math.MaxInt.
func (b *budget) Spend(tokens int) {
	if b == nil || tokens <= 0 {
		return
	}
	t := b.now()
	b.mu.Lock()
	i := b.slot(t)
	b.tokens[i] = satAdd(b.tokens[i], tokens)
	b.mu.Unlock()
}

// Refund takes back a call Reserve counted but that was never made (the
// breaker refused it), from the bucket it was counted in. A bucket that has
// since left the window no longer counts, so there is nothing to take back.
func (b *budget) Refund(c charge) {
	if b == nil || !c.ok {
		return
	}
	b.mu.Lock()
	i := int(c.bucket % int64(len(b.calls)))
	if i < 0 {
		i += len(b.calls)
	}
	if b.stamp[i] == c.bucket && b.calls[i] > 0 {
		b.calls[i]--
	}
	b.mu.Unlock()
}
