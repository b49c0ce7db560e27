package middleware

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// blockingEvaluator waits for release (or ctx) before evaluating with g.
// first is closed when the first evaluation begins. Make one with
// newBlockingEvaluator.
type blockingEvaluator struct {
	g       *guard.Guard
	release chan struct{}
	first   chan struct{}
	once    sync.Once
}

func newBlockingEvaluator(g *guard.Guard) *blockingEvaluator {
	return &blockingEvaluator{g: g, release: make(chan struct{}), first: make(chan struct{})}
}

func (b *blockingEvaluator) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	b.once.Do(func() { close(b.first) })
	select {
	case <-b.release:
	case <-ctx.Done():
		return guard.Result{}, ctx.Err()
	}
	return b.g.Evaluate(ctx, s)
}

// TestShadowOverload fills the queue: calls never block, drops are counted
// in the stats and the OTel counter, answers are unchanged, and Shutdown
// drains what was queued.
func TestShadowOverload(t *testing.T) {
	k := newTelemetry(t)
	ev := newBlockingEvaluator(testGuard(t))
	sh, err := NewShadow(ev, ShadowConfig{Workers: 1, QueueSize: 2}, WithMeterProvider(k.mp))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	sink := record.NewWriter(&buf)
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(), WithShadow(sh), WithSink(sink))...)

	const calls = 50
	within(t, "shadow calls with a full queue", func() {
		for i := range calls {
			ans, err := chains.Run(context.Background(), chain, qFail)
			if err != nil || ans != aFail {
				t.Errorf("call %d = %q, %v; want the answer unchanged", i, ans, err)
			}
			if i == 0 {
				// Let the worker take the first sample, so the queue holds
				// exactly QueueSize more.
				<-ev.first
			}
		}
	})
	st := sh.Stats()
	if st.Offered != calls || st.Queued != 3 || st.Dropped != calls-3 {
		t.Errorf("stats = %+v; want offered %d, queued 3, dropped %d", st, calls, calls-3)
	}
	if n := k.sum(t, otelkeys.MetricShadowDropped, map[string]string{otelkeys.DropReason: "queue_full"}); n != calls-3 {
		t.Errorf("drop counter = %d; want %d", n, calls-3)
	}
	close(ev.release)
	if err := sh.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	shutdownChain(t, chain)
	st = sh.Stats()
	if st.Evaluated != 3 || st.Lost != 0 {
		t.Errorf("after Shutdown stats = %+v; want 3 evaluated, none lost", st)
	}
	if w, _ := sink.Counts(); w != 3 {
		t.Errorf("%d records; want 3", w)
	}
	if n := len(spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)); n != 3 {
		t.Errorf("%d evaluation spans; want 3", n)
	}
	// After Shutdown, calls still work and their samples are dropped.
	if ans, err := chains.Run(context.Background(), chain, qPass); err != nil || ans != aPass {
		t.Errorf("call after Shutdown = %q, %v", ans, err)
	}
	if st := sh.Stats(); st.Dropped != calls-3+1 {
		t.Errorf("dropped after Shutdown = %d; want %d", st.Dropped, calls-3+1)
	}
	if n := k.sum(t, otelkeys.MetricShadowDropped, map[string]string{otelkeys.DropReason: "closed"}); n != 1 {
		t.Errorf("closed drop counter = %d; want 1", n)
	}
}

// TestShadowShutdownDeadline checks that Shutdown gives up at its deadline
// and says how many samples were lost.
func TestShadowShutdownDeadline(t *testing.T) {
	k := newTelemetry(t)
	ev := newBlockingEvaluator(testGuard(t)) // never released
	sh, err := NewShadow(ev, ShadowConfig{Workers: 1, QueueSize: 4}, WithMeterProvider(k.mp), WithErrorHandler(func(error) {}))
	if err != nil {
		t.Fatal(err)
	}
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(), WithShadow(sh), WithErrorHandler(func(error) {}))...)
	for i := range 5 {
		if _, err := chains.Run(context.Background(), chain, qPass); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			<-ev.first // the worker holds the first sample; the queue the rest
		}
	}
	// A context whose deadline has passed: Shutdown gives up at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(context.DeadlineExceeded)
	err = sh.Shutdown(ctx)
	var se *ShutdownError
	if !errors.As(err, &se) || se.Lost != 5 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v; want a *ShutdownError with 5 lost", err)
	}
	st := sh.Stats()
	if st.Queued != 5 || st.Lost != 5 || st.Evaluated != 0 {
		t.Errorf("stats = %+v", st)
	}
	if n := k.sum(t, otelkeys.MetricShadowDropped, map[string]string{otelkeys.DropReason: "shutdown"}); n != 5 {
		t.Errorf("shutdown drop counter = %d; want 5", n)
	}
	if err2 := sh.Shutdown(context.Background()); err2 != err {
		t.Errorf("second Shutdown = %v; want the first result", err2)
	}
}

// TestShadowSamplingAndFilter checks SampleRate and Filter accounting.
func TestShadowSamplingAndFilter(t *testing.T) {
	g := testGuard(t)
	sh, err := NewShadow(g, ShadowConfig{QueueSize: 100, SampleRate: 0.5,
		Filter: func(s *guard.Sample) bool { return s.Question != qFail }})
	if err != nil {
		t.Fatal(err)
	}
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), WithShadow(sh))
	for i := range 40 {
		q := qPass
		if i%2 == 1 {
			q = qFail
		}
		if _, err := chains.Run(context.Background(), chain, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := sh.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := sh.Stats()
	if st.Offered != 40 || st.SampledOut+st.Filtered+st.Queued+st.Dropped != st.Offered || st.Queued != st.Evaluated+st.Failed+st.Lost {
		t.Errorf("stats do not add up: %+v", st)
	}
	if st.SampledOut == 0 || st.SampledOut == 40 || st.Filtered == 0 {
		t.Errorf("stats = %+v; want some sampled out and some filtered", st)
	}
	if _, err := NewShadow(g, ShadowConfig{SampleRate: 1.5}); err == nil {
		t.Error("NewShadow accepted SampleRate 1.5")
	}
}
