package guard_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// stubbornJudge ignores cancellation: every call blocks until release is
// closed, then answers healthy probabilities. It counts the calls that
// started and the ones that returned.
type stubbornJudge struct {
	release  chan struct{}
	started  chan struct{} // one send per call (buffered)
	calls    atomic.Int64
	returned atomic.Int64
}

func (j *stubbornJudge) Judge(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
	j.calls.Add(1)
	defer j.returned.Add(1)
	j.started <- struct{}{}
	<-j.release
	p := healthy()
	out := make([]guard.Estimate, 0, len(req.Decisions))
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for _, c := range req.Sample.Contexts {
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: p[d]})
			}
			continue
		}
		out = append(out, guard.Estimate{Decision: d, P: p[d]})
	}
	return out, nil
}

// evaluateCancelled evaluates s with a context that is cancelled as soon as
// the judge has started (or never, when the judge is not called, in which
// case Evaluate returns on its own). The error is Evaluate's when it gave no
// result, else the result's own (its failed judges).
func evaluateCancelled(g *guard.Guard, j *stubbornJudge, s guard.Sample) (guard.Result, error) {
	res, err := evaluateCancelledRaw(g, j, s)
	if err != nil {
		return res, err
	}
	return res, res.Err()
}

func evaluateCancelledRaw(g *guard.Guard, j *stubbornJudge, s guard.Sample) (guard.Result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-j.started:
			cancel()
		case <-done:
		}
	}()
	return g.Evaluate(ctx, s)
}

// TestAbandonedCallsBounded: a judge that ignores cancellation is abandoned
// at each cancelled evaluation, up to the guard's limit; past it the judge
// is not called and its decisions are uncertain with ErrAbandonLimit; every
// abandoned call is counted, and once the judges return the count goes back
// to zero and the judge is called again.
func TestAbandonedCallsBounded(t *testing.T) {
	const limit, evals = 3, 10
	j := &stubbornJudge{release: make(chan struct{}), started: make(chan struct{}, evals)}
	g := mustNew(t, guard.WithJudge(j), guard.WithPolicy(testPolicy), guard.WithAbandonLimit(limit))
	s := newSample(false, "c1")

	for i := range evals {
		res, err := evaluateCancelled(g, j, s)
		if err == nil {
			t.Fatalf("evaluation %d: no error from a judge that was abandoned or refused", i)
		}
		if res.Diagnosis != guard.JudgeUncertain || res.DecisionID == "" || len(res.Errors) != 1 {
			t.Fatalf("evaluation %d: diagnosis %s, %d judge errors; want a complete JUDGE_UNCERTAIN result naming the judge", i, res.Diagnosis, len(res.Errors))
		}
		refused := errors.Is(err, guard.ErrAbandonLimit)
		if want := i >= limit; refused != want {
			t.Errorf("evaluation %d: refused = %v (%v); want %v", i, refused, err, want)
		}
		if refused && len(res.Abstentions) == 0 {
			t.Errorf("evaluation %d: refused, but no decision abstained", i)
		}
	}
	a := g.Abandoned()
	t.Logf("after %d cancelled evaluations: %+v, judge calls %d", evals, a, j.calls.Load())
	if a.Outstanding != limit || a.Total != limit || a.Refused != evals-limit || a.Limit != limit {
		t.Errorf("Abandoned() = %+v; want %d outstanding, %d total, %d refused, limit %d", a, limit, limit, evals-limit, limit)
	}
	if n := j.calls.Load(); n != limit {
		t.Errorf("the judge was called %d times; want %d (no call past the limit)", n, limit)
	}

	// The judges return: their goroutines end and the count goes to zero.
	close(j.release)
	waitReturned(t, g, j)
	// The judge is called again, and answers.
	res, err := g.Evaluate(context.Background(), s)
	if err != nil || res.Diagnosis != guard.PassDiagnosis {
		t.Errorf("after the judges returned: %s, %v; want PASS", res.Diagnosis, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if res, err := g.Evaluate(ctx, s); err != nil || res.Diagnosis != guard.PassDiagnosis {
		t.Errorf("with a deadline, after the judges returned: %s, %v; want PASS", res.Diagnosis, err)
	}
	if a := g.Abandoned(); a.Total != limit || a.Refused != evals-limit {
		t.Errorf("Abandoned() = %+v at the end; want the same totals", a)
	}
}

// TestAbandonedCallsConcurrent: many evaluations at once against a judge
// that ignores cancellation: Outstanding never exceeds the limit plus the
// calls in flight, every call is either answered, abandoned or refused
// (counts add up), and everything returns once the judge does.
func TestAbandonedCallsConcurrent(t *testing.T) {
	const limit, workers, per = 4, 8, 25
	j := &stubbornJudge{release: make(chan struct{}), started: make(chan struct{}, workers*per)}
	g := mustNew(t, guard.WithJudge(j), guard.WithPolicy(testPolicy), guard.WithAbandonLimit(limit))
	s := newSample(false, "c1")
	var wg sync.WaitGroup
	var refused, abandoned atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
				res, err := g.Evaluate(ctx, s)
				cancel()
				if err == nil {
					err = res.Err() // a failed judge lives in the result
				}
				switch {
				case errors.Is(err, guard.ErrAbandonLimit):
					refused.Add(1)
				case errors.Is(err, context.DeadlineExceeded):
					abandoned.Add(1)
				default:
					t.Errorf("Evaluate = %v; want the judge abandoned or refused", err)
				}
				if n := g.Abandoned().Outstanding; n > limit+workers {
					t.Errorf("%d abandoned calls outstanding; bound %d + %d in flight", n, limit, workers)
				}
			}
		}()
	}
	wg.Wait()
	a := g.Abandoned()
	t.Logf("%+v; judge calls %d", a, j.calls.Load())
	// A call is abandoned only once the judge started (calls counts every
	// start, including ones cancelled before they began waiting).
	if a.Refused != uint64(refused.Load()) || a.Total+a.Refused > workers*per {
		t.Errorf("Abandoned() = %+v; callers saw %d refused, %d abandoned", a, refused.Load(), abandoned.Load())
	}
	if a.Outstanding > limit+workers || a.Outstanding != int64(a.Total) {
		t.Errorf("Abandoned() = %+v; want Outstanding = Total ≤ %d while the judge blocks", a, limit+workers)
	}
	if a.Refused == 0 {
		t.Errorf("Abandoned() = %+v; want refusals past the limit", a)
	}
	close(j.release)
	waitReturned(t, g, j)
}

// waitReturned waits (up to a minute: it does not measure time) until every
// call of the released judge has returned and the guard counts no
// outstanding abandoned call.
func waitReturned(t *testing.T, g *guard.Guard, j *stubbornJudge) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for g.Abandoned().Outstanding != 0 || j.returned.Load() != j.calls.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("Abandoned() = %+v, %d of %d judge calls returned, a minute after the judge was released; want all returned, 0 outstanding",
				g.Abandoned(), j.returned.Load(), j.calls.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWithAbandonLimitNegative(t *testing.T) {
	if _, err := guard.New(guard.WithAbandonLimit(-1)); err == nil {
		t.Error("guard.New accepted a negative abandon limit")
	}
	if g := mustNew(t); g.Abandoned().Limit != guard.DefaultAbandonLimit {
		t.Errorf("default limit = %d; want %d", g.Abandoned().Limit, guard.DefaultAbandonLimit)
	}
}
