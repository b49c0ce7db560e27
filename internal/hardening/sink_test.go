package hardening

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tmc/langchaingo/chains"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// fullDisk is a writer that accepts the first `room` bytes and then fails
// like a full disk: a short write, then ENOSPC on every write.
type fullDisk struct {
	mu   sync.Mutex
	room int
	n    int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	left := d.room - d.n
	if left >= len(p) {
		d.n += len(p)
		return len(p), nil
	}
	if left > 0 {
		d.n += left
		return left, fmt.Errorf("write records.jsonl: %w", syscall.ENOSPC)
	}
	return 0, fmt.Errorf("write records.jsonl: %w", syscall.ENOSPC)
}

// sumCounter returns the sum of an int64 counter's data points.
func sumCounter(t testing.TB, r *sdkmetric.ManualReader, name string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if s, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range s.DataPoints {
					n += dp.Value
				}
			}
		}
	}
	return n
}

// TestSinkDiskFull runs the same calls through a chain whose record sink
// writes to a disk that fills up and through one without a sink: the
// answers and errors are identical, and every record the sink could not
// write is counted (writer counts, sink-error metric, error handler).
func TestSinkDiskFull(t *testing.T) {
	skipIfShort(t, "fault")
	const workers, perWorker = 8, 250
	disk := &fullDisk{room: 64 << 10}
	w := record.NewWriter(disk)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	var handled atomic.Int64
	var enospc atomic.Int64
	onErr := func(err error) {
		handled.Add(1)
		if errors.Is(err, syscall.ENOSPC) {
			enospc.Add(1)
		}
	}
	gate := middleware.Gate{Block: middleware.ReturnError, Review: middleware.ReturnError}
	g := kbGuard(t)
	// A queue that holds every record: this test is about a failing disk,
	// not a slow one (TestSinkBlocked is), so none may be dropped.
	withSink := kbChain(t, middleware.WithGuard(g, gate), middleware.WithSink(w), middleware.WithSinkQueue(workers*perWorker),
		middleware.WithMeterProvider(mp), middleware.WithErrorHandler(onErr))
	noSink := kbChain(t, middleware.WithGuard(g, gate), middleware.WithErrorHandler(func(error) {}))

	var mismatches atomic.Int64
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				c := kbCases[(k+i)%len(kbCases)]
				id := fmt.Sprintf("w%d-%d", k, i)
				run := func(ch chains.Chain) (map[string]any, string) {
					ctx := middleware.WithCallInfo(context.Background(), middleware.CallInfo{ID: id})
					out, err := chains.Call(ctx, ch, map[string]any{"query": c.question})
					if err != nil {
						return out, err.Error()
					}
					return out, ""
				}
				o1, e1 := run(withSink)
				o2, e2 := run(noSink)
				if !reflect.DeepEqual(o1, o2) || e1 != e2 {
					mismatches.Add(1)
					t.Errorf("%s: with a failing sink %v / %q; without a sink %v / %q", id, o1, e1, o2, e2)
				}
			}
		}()
	}
	wg.Wait()
	if err := withSink.(*middleware.Chain).Shutdown(context.Background()); err != nil {
		t.Errorf("chain Shutdown: %v", err)
	}
	written, failed := w.Counts()
	metricFailed := sumCounter(t, reader, otelkeys.MetricSinkErrors)
	evaluated := sumCounter(t, reader, otelkeys.MetricEvaluations)
	t.Logf("calls=%d evaluated=%d records written=%d failed=%d (sink-error metric %d, error handler %d, ENOSPC %d), answer mismatches=%d",
		workers*perWorker, evaluated, written, failed, metricFailed, handled.Load(), enospc.Load(), mismatches.Load())
	if evaluated != workers*perWorker {
		t.Errorf("evaluations metric %d; want %d", evaluated, workers*perWorker)
	}
	if written+failed != uint64(evaluated) {
		t.Errorf("records written %d + failed %d != evaluations %d: a record went missing", written, failed, evaluated)
	}
	if failed == 0 || written == 0 {
		t.Errorf("written %d, failed %d: the disk should fill up part way", written, failed)
	}
	if uint64(metricFailed) != failed || uint64(enospc.Load()) != failed {
		t.Errorf("failed records %d, sink-error metric %d, ENOSPC errors handled %d; want all equal", failed, metricFailed, enospc.Load())
	}
}

// slowEvaluator evaluates with the guard after a pause that honours ctx.
type slowEvaluator struct {
	g     *guard.Guard
	pause time.Duration
}

func (e slowEvaluator) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	t := time.NewTimer(e.pause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return guard.Result{}, ctx.Err()
	}
	return e.g.Evaluate(ctx, s)
}

// countingSink counts the records it receives.
type countingSink struct{ n atomic.Int64 }

func (c *countingSink) WriteRecord(context.Context, *record.Record) error {
	c.n.Add(1)
	return nil
}

// TestShadowShutdownUnderLoad keeps traffic flowing into a shadow evaluator
// and shuts it down: with a generous deadline it drains the queue (nothing
// lost); with a short one it returns within the deadline and counts what it
// abandoned. Either way the counts add up and the chain's answers are never
// delayed or changed.
func TestShadowShutdownUnderLoad(t *testing.T) {
	skipIfShort(t, "load")
	for _, tc := range []struct {
		name     string
		pause    time.Duration
		deadline time.Duration
		wantLost bool
	}{
		{"drains within a generous deadline", time.Millisecond, 5 * time.Second, false},
		{"short deadline abandons and counts", 20 * time.Millisecond, 50 * time.Millisecond, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := &countingSink{}
			sh, err := middleware.NewShadow(slowEvaluator{g: kbGuard(t), pause: tc.pause},
				middleware.ShadowConfig{Workers: 4, QueueSize: 256}, middleware.WithErrorHandler(func(error) {}))
			if err != nil {
				t.Fatal(err)
			}
			ch := kbChain(t, middleware.WithShadow(sh), middleware.WithSink(sink), middleware.WithErrorHandler(func(error) {}))
			stop := make(chan struct{})
			var calls, wrong atomic.Int64
			var wg sync.WaitGroup
			for k := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						c := kbCases[(k+i)%len(kbCases)]
						ans, err := chains.Run(context.Background(), ch, c.question)
						calls.Add(1)
						if err != nil || ans != c.answer {
							wrong.Add(1)
						}
						time.Sleep(100 * time.Microsecond)
					}
				}()
			}
			// Traffic builds a queue: Shutdown starts once the queue is
			// full (a sample was dropped), not after a sleep.
			waitFor(func() bool { return sh.Stats().Dropped > 0 })
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			t0 := time.Now()
			serr := sh.Shutdown(ctx)
			took := time.Since(t0)
			cancel()
			// Traffic goes on after Shutdown: 100 more chain calls.
			after := calls.Load() + 100
			waitFor(func() bool { return calls.Load() >= after })
			close(stop)
			wg.Wait()
			// Then the chain's record queue: every record of an evaluation
			// is written (or counted as dropped).
			if err := ch.(*middleware.Chain).Shutdown(context.Background()); err != nil {
				t.Errorf("chain Shutdown: %v", err)
			}
			st, rs := sh.Stats(), ch.(*middleware.Chain).SinkStats()
			t.Logf("calls=%d shutdown took %v (deadline %v) err=%v stats=%+v records=%d (%+v)", calls.Load(), took.Round(time.Microsecond), tc.deadline, serr, st, sink.n.Load(), rs)
			if took > tc.deadline+250*time.Millisecond {
				t.Errorf("Shutdown took %v; deadline %v", took, tc.deadline)
			}
			if wrong.Load() != 0 {
				t.Errorf("%d chain calls returned a wrong answer or an error in shadow mode", wrong.Load())
			}
			if st.Offered != uint64(calls.Load()) {
				t.Errorf("offered %d != calls %d", st.Offered, calls.Load())
			}
			if st.Offered != st.SampledOut+st.Filtered+st.Queued+st.Dropped {
				t.Errorf("offered %d != sampled out + filtered + queued + dropped (%+v)", st.Offered, st)
			}
			if st.Queued != st.Evaluated+st.Failed+st.Lost {
				t.Errorf("queued %d != evaluated + failed + lost (%+v): a sample vanished", st.Queued, st)
			}
			if rs.Captured != st.Evaluated || rs.Written != uint64(sink.n.Load()) || rs.Written+rs.Failed+rs.Dropped+rs.Lost != rs.Captured {
				t.Errorf("records %d, sink stats %+v, evaluated %d: a record went missing", sink.n.Load(), rs, st.Evaluated)
			}
			var se *middleware.ShutdownError
			if tc.wantLost {
				if !errors.As(serr, &se) || se.Lost != st.Lost || st.Lost == 0 {
					t.Errorf("Shutdown = %v, lost %d; want a ShutdownError counting the lost samples", serr, st.Lost)
				}
			} else if serr != nil || st.Lost != 0 {
				t.Errorf("Shutdown = %v, lost %d; want a full drain", serr, st.Lost)
			}
		})
	}
}
