package guard

import (
	"fmt"
	"sync"
)

// DefaultConcurrency is how many slow judge calls one Evaluate runs at a
// time unless WithConcurrency says otherwise.
const DefaultConcurrency = 4

// WithConcurrency bounds how many judge calls one Evaluate runs at the same
// time (DefaultConcurrency when not given; 1 runs them one after another).
// It applies to calls that are independent of each other and wait on
// something slow: the judges that are not Inline (an LLM judge), the claims
// of an answer in claims mode (WithClaims) when the groundedness judge is
// not Inline, and the escalations of uncertain claims. Inline judges always
// run on the caller's goroutine, one after another. Answers are read in the
// order the judges were given (and the claims in answer order), whatever
// order they arrive in, so with judges that answer each call on its own the
// result does not depend on the bound.
func WithConcurrency(n int) Option {
	return func(g *Guard) error {
		if n < 1 {
			return fmt.Errorf("guard: WithConcurrency: %d is not a positive bound", n)
		}
		g.parallel = n
		return nil
	}
}

// each runs f(0), …, f(n-1) and returns when all have returned: on the
// caller's goroutine when async is false or the bound is 1, otherwise on
// their own goroutines, at most g.parallel at a time. f must not touch what
// another f(i) touches.
func (g *Guard) each(n int, async bool, f func(i int)) {
	if !async || g.parallel <= 1 || n <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	wait := g.fanOut(n, f)
	wait()
}

// fanOut starts f(0), …, f(n-1) on their own goroutines, at most g.parallel
// at a time, and returns a function that waits for all of them.
func (g *Guard) fanOut(n int, f func(i int)) (wait func()) {
	var wg sync.WaitGroup
	wg.Add(n)
	run := func(i int, sem chan struct{}) {
		defer wg.Done()
		if sem != nil {
			defer func() { <-sem }()
		}
		f(i)
	}
	if n <= g.parallel {
		for i := range n {
			go run(i, nil)
		}
		return wg.Wait
	}
	sem := make(chan struct{}, g.parallel)
	go func() {
		for i := range n {
			sem <- struct{}{}
			go run(i, sem)
		}
	}()
	return wg.Wait
}
