package cascade

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// outcome is what one fallback call produced for its group: the estimates,
// or the reason none could be had and its cause.
type outcome struct {
	ests   []guard.Estimate
	reason string
	cause  guard.Cause
	// ended says the caller's context ended first: the abstentions count
	// as cancelled whatever their cause (see counted).
	ended bool
	// fresh is false for callers that joined a call another caller
	// started: they did not spend its tokens.
	fresh bool
	// called says the fallback was called; tokens is what it reported.
	called bool
	tokens int
	// after, when set, runs on the call's goroutine once every caller has
	// the outcome (shared-store work that need not hold them up).
	after func()
}

// counted is the cause the abstentions are counted under in Stats: a call
// the caller's context ended counts as cancelled.
func (o *outcome) counted() guard.Cause {
	if o.ended {
		return guard.CauseCancelled
	}
	return o.cause
}

// flight is one fallback call under way, shared by every caller that asked
// the same thing meanwhile.
type flight struct {
	done    chan struct{}
	res     outcome
	waiters int
	ctx     *flightCtx
}

// flightCtx is the context a shared call runs under. Its deadline starts
// as the first caller's and moves later when a caller with a later deadline
// joins (never past the hard cap, CallTimeout after the start), so that a
// collapsed call is not cut at the deadline of the caller that happened to
// start it. Values come from the first caller's context; its cancellation
// does not.
type flightCtx struct {
	context.Context // values only (context.WithoutCancel)

	done chan struct{}
	hard time.Time
	now  func() time.Time // the cascade's clock

	mu       sync.Mutex
	deadline time.Time
	err      error
	timer    *time.Timer
}

func newFlightCtx(parent context.Context, deadline, hard time.Time, now func() time.Time) *flightCtx {
	c := &flightCtx{Context: context.WithoutCancel(parent), done: make(chan struct{}), hard: hard, now: now, deadline: deadline}
	c.mu.Lock()
	c.timer = time.AfterFunc(deadline.Sub(now()), c.expire)
	c.mu.Unlock()
	return c
}

func (c *flightCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline, true
}

func (c *flightCtx) Done() <-chan struct{} { return c.done }

func (c *flightCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// bound reports whether the deadline is a caller's rather than the hard cap.
func (c *flightCtx) bound() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline.Before(c.hard)
}

// extend moves the deadline to d when d is later (capped at the hard cap)
// and the context has not ended.
func (c *flightCtx) extend(d time.Time) {
	if d.After(c.hard) {
		d = c.hard
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || !d.After(c.deadline) {
		return
	}
	c.deadline = d
	c.timer.Reset(d.Sub(c.now()))
}

// expire ends the context at its deadline; a timer that fired just before an
// extension re-arms instead.
func (c *flightCtx) expire() {
	c.mu.Lock()
	if left := c.deadline.Sub(c.now()); left > 0 && c.err == nil {
		c.timer.Reset(left)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.end(context.DeadlineExceeded)
}

// end ends the context with err, once.
func (c *flightCtx) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.timer.Stop()
	close(c.done)
}

// flights collapses identical concurrent calls into one, like
// golang.org/x/sync/singleflight, and also cancels the call once every
// caller waiting for it has gone. Safe for concurrent use.
type flights struct {
	mu sync.Mutex
	m  map[[32]byte]*flight
	wg sync.WaitGroup // calls under way; Cascade.Close waits for them
	// closed, set under mu by close, stops new calls from starting (a
	// wg.Add racing with Close's Wait would be a misuse of the WaitGroup).
	closed bool
	// joined, when set, is called (under the lock) each time a caller
	// joins a call under way.
	joined func()
	// now is the clock the calls' deadlines are measured with.
	now func() time.Time
}

// close stops new calls from starting; calls under way go on.
func (g *flights) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// do runs fn once per key among concurrent callers. fn runs on its own
// goroutine with a context that is cancelled when every waiting caller has
// left, and whose deadline is the latest of the waiting callers' deadlines
// (each given as want), capped at hard. do returns fn's outcome, or ok=false
// when ctx ended first or the caller's clock reached giveUp: a call that
// ignores its context cannot hold its caller past giveUp. shared reports
// whether the call was joined rather than started.
func (g *flights) do(ctx context.Context, key [32]byte, want, hard, giveUp time.Time, fn func(*flightCtx) outcome) (res outcome, shared, ok bool) {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[[32]byte]*flight)
	}
	f, shared := g.m[key]
	if !shared && g.closed {
		g.mu.Unlock()
		return refuse(guard.CauseClosed, reasonClosed), false, true
	}
	if shared {
		f.waiters++
		f.ctx.extend(want)
		if g.joined != nil {
			g.joined()
		}
	} else {
		fctx := newFlightCtx(ctx, want, hard, g.now)
		f = &flight{done: make(chan struct{}), waiters: 1, ctx: fctx}
		g.m[key] = f
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			defer fctx.end(context.Canceled)
			r := fn(fctx)
			after := r.after
			r.after = nil
			g.mu.Lock()
			f.res = r
			if g.m[key] == f {
				delete(g.m, key)
			}
			g.mu.Unlock()
			close(f.done)
			if after != nil {
				after()
			}
		}()
	}
	g.mu.Unlock()

	stop := time.NewTimer(giveUp.Sub(g.now()))
	defer stop.Stop()
	select {
	case <-f.done:
		return f.res, shared, true
	case <-ctx.Done():
		g.leave(key, f, ctx.Err())
	case <-stop.C:
		g.leave(key, f, context.DeadlineExceeded)
	}
	return outcome{}, shared, false
}

// leave is called by a caller of f that stops waiting, because its context
// ended with err or it waited as long as it may.
func (g *flights) leave(key [32]byte, f *flight, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f.waiters--
	if f.waiters > 0 {
		return
	}
	// Nobody wants the answer any more: stop the call, and let a later
	// identical request start afresh. A last caller whose deadline ran out
	// ends it as its deadline (on a loaded machine its wait can end before
	// the call's own timer fires), so that the call's time still counts as
	// a lower bound of the fallback's latency.
	end := context.Canceled
	if errors.Is(err, context.DeadlineExceeded) {
		end = context.DeadlineExceeded
	}
	f.ctx.end(end)
	if g.m[key] == f {
		delete(g.m, key)
	}
}
