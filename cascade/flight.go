package cascade

import (
	"context"
	"sync"

	"github.com/ragtriage/ragtriage/guard"
)

// outcome is what one fallback call produced for its group: the estimates,
// or the reason none could be had (then refusal names the counter).
type outcome struct {
	ests    []guard.Estimate
	reason  string
	refusal refusal
	// fresh is false for callers that joined a call another caller
	// started: they did not spend its tokens.
	fresh bool
}

// flight is one fallback call under way, shared by every caller that asked
// the same thing meanwhile.
type flight struct {
	done    chan struct{}
	res     outcome
	waiters int
	cancel  context.CancelFunc
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
}

// close stops new calls from starting; calls under way go on.
func (g *flights) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// do runs fn once per key among concurrent callers. fn runs on its own
// goroutine with a context that is cancelled when every waiting caller has
// left (its deadline is set by start). do returns fn's outcome, or ok=false
// when ctx ended first. shared reports whether the call was joined rather
// than started.
func (g *flights) do(ctx context.Context, key [32]byte, start func() (context.Context, context.CancelFunc), fn func(context.Context) outcome) (res outcome, shared, ok bool) {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[[32]byte]*flight)
	}
	f, shared := g.m[key]
	if !shared && g.closed {
		g.mu.Unlock()
		return refuse(refClosed, ReasonClosed), false, true
	}
	if shared {
		f.waiters++
		if g.joined != nil {
			g.joined()
		}
	} else {
		fctx, cancel := start()
		f = &flight{done: make(chan struct{}), waiters: 1, cancel: cancel}
		g.m[key] = f
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			defer cancel()
			r := fn(fctx)
			g.mu.Lock()
			f.res = r
			if g.m[key] == f {
				delete(g.m, key)
			}
			g.mu.Unlock()
			close(f.done)
		}()
	}
	g.mu.Unlock()

	select {
	case <-f.done:
		return f.res, shared, true
	case <-ctx.Done():
		g.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			// Nobody wants the answer any more: stop the call, and let a
			// later identical request start afresh.
			f.cancel()
			if g.m[key] == f {
				delete(g.m, key)
			}
		}
		g.mu.Unlock()
		return outcome{}, shared, false
	}
}
