package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmc/langchaingo/chains"
	"go.opentelemetry.io/otel/codes"
	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// These tests check that shadow and inline mode never stall the caller: a
// judge that ignores cancellation, an evaluator that never finishes, a sink
// that blocks. None measures time: a stall would hang the call, which
// within fails the test after a generous bound.

// within runs f and fails the test if it has not returned after a minute
// (a stall; on any machine the calls take milliseconds).
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not return: stalled", what)
	}
}

// eventually waits (up to a minute: it does not measure time) until cond
// holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after a minute: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// stuckJudge answers like scriptedJudge, but only once release is closed:
// until then every call blocks, ignoring cancellation. It is not Inline, so
// the guard calls it on a goroutine of its own.
type stuckJudge struct {
	release  chan struct{}
	calls    atomic.Int64
	returned atomic.Int64
}

func (j *stuckJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	j.calls.Add(1)
	defer j.returned.Add(1)
	<-j.release
	return scriptedJudge{}.Judge(context.Background(), req)
}

// errorLog collects what reaches the error handler.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) handle(err error) { l.mu.Lock(); l.errs = append(l.errs, err); l.mu.Unlock() }

func (l *errorLog) count(target error) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.errs {
		if errors.Is(e, target) {
			n++
		}
	}
	return n
}

// TestShadowTimeoutStuckJudge: in shadow mode, a judge that blocks forever
// and ignores cancellation does not delay the chain; each evaluation ends
// at the shadow timeout, is counted (stats, metric) and recorded as timed
// out (span, record); the guard abandons at most its limit of judge calls
// and refuses the rest; once the judge returns, nothing is left running.
func TestShadowTimeoutStuckJudge(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const calls, limit = 6, 2
	j := &stuckJudge{release: make(chan struct{})}
	g, err := guard.New(guard.WithJudge(j), guard.WithPolicy(testPolicy()), guard.WithAbandonLimit(limit))
	if err != nil {
		t.Fatal(err)
	}
	k := newTelemetry(t)
	log := &errorLog{}
	sh, err := NewShadow(g, ShadowConfig{Workers: 1, QueueSize: calls, Timeout: 100 * time.Millisecond},
		WithMeterProvider(k.mp), WithErrorHandler(log.handle))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		append(k.opts(), WithShadow(sh), WithSink(record.NewWriter(&buf)), WithErrorHandler(log.handle))...)

	within(t, "chain calls in shadow mode with a stuck judge", func() {
		for i := range calls {
			if ans, err := chains.Run(context.Background(), chain, qPass); err != nil || ans != aPass {
				t.Errorf("call %d = %q, %v; want the answer unchanged", i, ans, err)
			}
		}
	})
	within(t, "Shadow.Shutdown", func() {
		if err := sh.Shutdown(context.Background()); err != nil {
			t.Errorf("Shadow.Shutdown: %v; want every sample evaluated", err)
		}
	})
	shutdownChain(t, chain)

	st, ab := sh.Stats(), g.Abandoned()
	t.Logf("shadow %+v; guard abandoned %+v; judge calls %d", st, ab, j.calls.Load())
	// Every evaluation has a result (the guard's, with the judge's
	// decisions uncertain): either it timed out waiting for the judge, or
	// the guard refused to call it past its limit.
	if st.Queued != calls || st.Evaluated != calls || st.Failed != 0 || st.Lost != 0 {
		t.Errorf("stats = %+v; want %d queued and evaluated", st, calls)
	}
	if st.TimedOut == 0 || st.TimedOut+ab.Refused != calls {
		t.Errorf("timed out %d + refused by the guard %d != %d calls", st.TimedOut, ab.Refused, calls)
	}
	if ab.Total > limit || ab.Outstanding != int64(ab.Total) || ab.Refused == 0 {
		t.Errorf("guard abandoned %+v; want at most %d abandoned (all outstanding), the rest refused", ab, limit)
	}
	if n := k.sum(t, otelkeys.MetricShadowTimeouts, nil); n != int64(st.TimedOut) {
		t.Errorf("timeout metric = %d; want %d", n, st.TimedOut)
	}
	if n := log.count(ErrShadowTimeout); n != int(st.TimedOut) {
		t.Errorf("%d timeouts reached the error handler; want %d", n, st.TimedOut)
	}
	if n := log.count(guard.ErrAbandonLimit); n != int(ab.Refused) {
		t.Errorf("%d refusals reached the error handler; want %d", n, ab.Refused)
	}
	var spansTimedOut uint64
	for _, s := range spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation) {
		if v, ok := attrOf(s.Attributes(), otelkeys.ShadowTimedOut); ok && v.AsBool() {
			spansTimedOut++
			if s.Status().Code != codes.Error {
				t.Errorf("timed-out evaluation span status %v; want Error", s.Status().Code)
			}
		}
	}
	if spansTimedOut != st.TimedOut {
		t.Errorf("%d spans say timed out; want %d", spansTimedOut, st.TimedOut)
	}
	var recs, recsTimedOut uint64
	for line := range bytes.Lines(buf.Bytes()) {
		var rec record.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		recs++
		if rec.TimedOut {
			recsTimedOut++
			if len(rec.Result.Errors) == 0 {
				t.Errorf("timed-out record %s lists no judge error", rec.ID)
			}
		}
	}
	if recs != calls || recsTimedOut != st.TimedOut {
		t.Errorf("%d records, %d timed out; want %d, %d", recs, recsTimedOut, calls, st.TimedOut)
	}

	// The judge returns: every goroutine it held ends.
	close(j.release)
	eventually(t, "every abandoned judge call returned", func() bool {
		return g.Abandoned().Outstanding == 0 && j.returned.Load() == j.calls.Load()
	})
}

// TestShadowTimeoutNoResult: an evaluator that never finishes (but honours
// its context) ends at the timeout without a result: counted as failed and
// timed out, on the span and the error handler, never recorded as a result.
func TestShadowTimeoutNoResult(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	k := newTelemetry(t)
	log := &errorLog{}
	ev := newBlockingEvaluator(testGuard(t)) // never released
	sh, err := NewShadow(ev, ShadowConfig{Workers: 2, QueueSize: 8, Timeout: 10 * time.Millisecond},
		WithMeterProvider(k.mp), WithErrorHandler(log.handle))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		append(k.opts(), WithShadow(sh), WithSink(record.NewWriter(&buf)), WithErrorHandler(log.handle))...)
	for range 3 {
		if _, err := chains.Run(context.Background(), chain, qFail); err != nil {
			t.Fatal(err)
		}
	}
	if err := sh.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	shutdownChain(t, chain)
	st := sh.Stats()
	if st.Queued != 3 || st.Failed != 3 || st.TimedOut != 3 || st.Evaluated != 0 || st.Lost != 0 {
		t.Errorf("stats = %+v; want 3 failed, all timed out", st)
	}
	if n := k.sum(t, otelkeys.MetricShadowTimeouts, nil); n != 3 {
		t.Errorf("timeout metric = %d; want 3", n)
	}
	if n := log.count(ErrShadowTimeout); n != 3 || log.count(context.DeadlineExceeded) != 3 {
		t.Errorf("error handler: %d timeouts; want 3, each wrapping the evaluator's error", n)
	}
	if cs := chain.(*Chain).SinkStats(); cs != (SinkStats{}) || buf.Len() != 0 {
		t.Errorf("sink stats %+v, %d bytes; want no record of an evaluation without a result", cs, buf.Len())
	}
	for _, s := range spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation) {
		if v, _ := attrOf(s.Attributes(), otelkeys.ShadowTimedOut); !v.AsBool() || s.Status().Code != codes.Error {
			t.Errorf("evaluation span: timed_out %v, status %v; want true, Error", v.AsBool(), s.Status().Code)
		}
	}
}

// gateWriter is an io.Writer that blocks every Write until release is
// closed; entered is closed when the first Write begins.
type gateWriter struct {
	entered, release chan struct{}
	once             sync.Once
	mu               sync.Mutex
	n                int
}

func newGateWriter() *gateWriter {
	return &gateWriter{entered: make(chan struct{}), release: make(chan struct{})}
}

func (w *gateWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	w.mu.Lock()
	w.n++
	w.mu.Unlock()
	return len(p), nil
}

// addsUp checks Captured = Written + Failed + Dropped + Lost.
func addsUp(t *testing.T, st SinkStats) {
	t.Helper()
	if st.Written+st.Failed+st.Dropped+st.Lost != st.Captured {
		t.Errorf("sink stats do not add up: %+v", st)
	}
}

// TestSinkBlockedInline: a sink whose writer blocks does not delay inline
// calls; records that do not fit the queue are dropped and counted (stats,
// metric); Shutdown gives up at its context and reports the dropped and
// the lost, and the counts add up; the writer goroutine ends when the
// write returns.
func TestSinkBlockedInline(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const calls, size = 50, 4
	k := newTelemetry(t)
	w := newGateWriter()
	rw := record.NewWriter(w)
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		append(k.opts(), WithGuard(testGuard(t), Gate{}), WithSink(rw), WithSinkQueue(size))...)
	if err != nil {
		t.Fatal(err)
	}
	within(t, "inline calls with a blocked sink", func() {
		for i := range calls {
			if ans, err := chains.Run(context.Background(), c, qPass); err != nil || ans != aPass {
				t.Errorf("call %d = %q, %v", i, ans, err)
			}
			if i == 0 {
				<-w.entered // the writer holds the first record: the queue is empty
			}
		}
	})
	st := c.SinkStats()
	if want := (SinkStats{Captured: calls, Dropped: calls - 1 - size}); st != want {
		t.Errorf("SinkStats = %+v; want %+v (one being written, %d queued)", st, want, size)
	}
	if n := k.sum(t, otelkeys.MetricSinkDropped, map[string]string{otelkeys.DropReason: "queue_full"}); n != calls-1-size {
		t.Errorf("sink drop metric (queue_full) = %d; want %d", n, calls-1-size)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var serr error
	within(t, "Chain.Shutdown with a blocked sink", func() { serr = c.Shutdown(ctx) })
	var se *ShutdownError
	if !errors.As(serr, &se) || se.Sink == nil || !errors.Is(serr, context.Canceled) {
		t.Fatalf("Shutdown = %v; want a *ShutdownError with the sink's counts", serr)
	}
	t.Logf("Shutdown: %v", serr)
	if se.Lost != size+1 || se.Sink.Lost != size+1 || se.Sink.Dropped != calls-1-size || se.Sink.Captured != calls {
		t.Errorf("ShutdownError = %+v (%+v); want %d lost, %d dropped of %d", se, *se.Sink, size+1, calls-1-size, calls)
	}
	if !strings.Contains(serr.Error(), "dropped") {
		t.Errorf("Shutdown error %q does not say what was dropped", serr)
	}
	addsUp(t, *se.Sink)
	if n := k.sum(t, otelkeys.MetricSinkDropped, map[string]string{otelkeys.DropReason: "shutdown"}); n != size+1 {
		t.Errorf("sink drop metric (shutdown) = %d; want %d", n, size+1)
	}

	// After Shutdown: calls still work, their records are dropped.
	if ans, err := chains.Run(context.Background(), c, qPass); err != nil || ans != aPass {
		t.Errorf("call after Shutdown = %q, %v", ans, err)
	}
	st = c.SinkStats()
	if st.Captured != calls+1 || st.Dropped != calls-size {
		t.Errorf("after Shutdown SinkStats = %+v", st)
	}
	addsUp(t, st)
	if n := k.sum(t, otelkeys.MetricSinkDropped, map[string]string{otelkeys.DropReason: "closed"}); n != 1 {
		t.Errorf("sink drop metric (closed) = %d; want 1", n)
	}
	if again := c.Shutdown(context.Background()); again != serr {
		t.Errorf("second Shutdown = %v; want the first result", again)
	}

	// The write under way completes; the writer goroutine ends (goleak).
	close(w.release)
	eventually(t, "the blocked write returned", func() bool { n, _ := rw.Counts(); return n == 1 })
}

// TestSinkBlockedShadow: in shadow mode a blocked sink holds neither the
// caller nor the shadow workers: every sample is evaluated, the records
// that do not fit are dropped, and the counts add up.
func TestSinkBlockedShadow(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const calls, size = 20, 4
	w := newGateWriter()
	sh, err := NewShadow(testGuard(t), ShadowConfig{Workers: 1, QueueSize: calls})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		WithShadow(sh), WithSink(record.NewWriter(w)), WithSinkQueue(size), WithErrorHandler(func(error) {}))
	if err != nil {
		t.Fatal(err)
	}
	within(t, "shadow calls and Shadow.Shutdown with a blocked sink", func() {
		for range calls {
			if ans, err := chains.Run(context.Background(), c, qPass); err != nil || ans != aPass {
				t.Errorf("call = %q, %v", ans, err)
			}
		}
		if err := sh.Shutdown(context.Background()); err != nil {
			t.Errorf("Shadow.Shutdown: %v", err)
		}
	})
	if st := sh.Stats(); st.Evaluated != calls {
		t.Errorf("shadow stats %+v; want all %d evaluated", st, calls)
	}
	<-w.entered
	// The sink stays blocked: Shutdown gives up at its context's end.
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(context.DeadlineExceeded)
	err = c.Shutdown(ctx)
	var se *ShutdownError
	if !errors.As(err, &se) || se.Sink == nil {
		t.Fatalf("Chain.Shutdown = %v; want a *ShutdownError", err)
	}
	st := *se.Sink
	t.Logf("%v", err)
	if st.Captured != calls || st.Written != 0 || st.Lost == 0 || st.Lost > size+1 || st.Dropped < calls-size-1 {
		t.Errorf("sink stats %+v; want %d captured, none written, at most %d lost, the rest dropped", st, calls, size+1)
	}
	addsUp(t, st)
	close(w.release)
}

// TestSinkPanics: a sink that panics on the writer goroutine counts as a
// failed write; the process and the chain go on.
func TestSinkPanics(t *testing.T) {
	log := &errorLog{}
	c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), WithGuard(testGuard(t), Gate{}),
		WithSink(SinkFunc(func(context.Context, *record.Record) error { panic("sink bug") })), WithErrorHandler(log.handle))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if ans, err := chains.Run(context.Background(), c, qPass); err != nil || ans != aPass {
			t.Fatalf("Run = %q, %v", ans, err)
		}
	}
	if err := c.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := c.SinkStats(); st != (SinkStats{Captured: 2, Failed: 2}) {
		t.Errorf("SinkStats = %+v; want 2 failed", st)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.errs) != 2 || !strings.Contains(log.errs[0].Error(), "sink panicked: sink bug") {
		t.Errorf("handled %v; want two sink panics", log.errs)
	}
}

func TestStallOptionsValidated(t *testing.T) {
	if _, err := NewShadow(testGuard(t), ShadowConfig{Timeout: -time.Second}); err == nil {
		t.Error("NewShadow accepted a negative Timeout")
	}
	qa := chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{})
	if _, err := New(qa, WithSinkQueue(-1)); err == nil {
		t.Error("New accepted a negative sink queue")
	}
	c, err := New(qa)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(context.Background()); err != nil || c.SinkStats() != (SinkStats{}) {
		t.Errorf("Shutdown without a sink = %v, %+v", err, c.SinkStats())
	}
}
