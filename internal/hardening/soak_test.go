package hardening

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"github.com/tmc/langchaingo/chains"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/record"
)

// The soak: many evaluations through a wrapped chain in shadow mode, with
// the embedded judges, a cascade (bounded cache, breaker) around the LLM
// judge on the fake server (a simulation that fails one request in three),
// a record sink and real OpenTelemetry SDK providers. The heap in use after
// a collection must stay flat between the end of the warm-up and the end of
// the run, and no goroutine may be left behind.

// soakEvaluations is 20,000 by default (CI); HARDENING_SOAK=1 runs 100,000,
// and HARDENING_SOAK=N runs N.
func soakEvaluations(t testing.TB) int {
	switch v := os.Getenv("HARDENING_SOAK"); v {
	case "":
		return 20000
	case "1":
		return 100000
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1000 {
			t.Fatalf("HARDENING_SOAK=%q: want 1 or a count of at least 1000", v)
		}
		return n
	}
}

// discardExporter drops the spans the batch processor hands it.
type discardExporter struct{ n atomic.Int64 }

func (e *discardExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.n.Add(int64(len(spans)))
	return nil
}

func (e *discardExporter) Shutdown(context.Context) error { return nil }

type memPoint struct {
	done      uint64
	heapInuse uint64
	objects   uint64
	routines  int
}

func measure(done uint64) memPoint {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memPoint{done: done, heapInuse: ms.HeapInuse, objects: ms.HeapObjects, routines: runtime.NumGoroutine()}
}

func TestSoakShadowCascade(t *testing.T) {
	skipIfShort(t, "soak")
	n := soakEvaluations(t)
	const cacheSize, variants = 256, 1000

	var reqs atomic.Int64
	model := func(r fakeopenai.Request) fakeopenai.Reply {
		if reqs.Add(1)%3 == 0 {
			return fakeopenai.Reply{Status: 500, Message: "simulated failure"}
		}
		return flakyFree(r)
	}
	br := gobreaker.Settings{MaxRequests: 1, Timeout: 50 * time.Millisecond,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 }}
	exp := &discardExporter{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	st := newStack(t, model, stackConfig{rule: guard.FailClosed, breaker: &br, cacheSize: cacheSize, mp: mp,
		limits: cascade.Limits{MaxConcurrent: 8}})
	g := kbGuard(t, guard.WithEscalator(st.c, fallbackPolicy(), guard.FailClosed))
	sink := record.NewWriter(io.Discard)
	var handled atomic.Int64
	onErr := middleware.WithErrorHandler(func(error) { handled.Add(1) })
	sh, err := middleware.NewShadow(g, middleware.ShadowConfig{Workers: 4, QueueSize: 512}, middleware.WithMeterProvider(mp), onErr)
	if err != nil {
		t.Fatal(err)
	}
	chain := kbChain(t, middleware.WithShadow(sh), middleware.WithSink(sink), middleware.WithTracerProvider(tp),
		middleware.WithMeterProvider(mp), onErr)

	// Ten rounds of n/10 calls from 4 producers, which back off while the
	// shadow queue or the record queue is more than half full (the soak
	// measures evaluations, not drops: a loaded machine can leave the record
	// writer behind). After each round, with no call in flight, the queue drained
	// and the spans flushed, the heap is measured; the first round is the
	// warm-up.
	var next atomic.Int64
	var points []memPoint
	start := time.Now()
	for round := 1; round <= 10; round++ {
		end := int64(n * round / 10)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1)
					if i > end {
						next.Add(-1)
						return
					}
					for {
						s, r := sh.Stats(), chain.(*middleware.Chain).SinkStats()
						if s.Queued-s.Evaluated-s.Failed-s.Lost < 256 && r.Captured-r.Written-r.Failed-r.Dropped-r.Lost < 512 {
							break
						}
						time.Sleep(100 * time.Microsecond)
					}
					c := kbCases[i%int64(len(kbCases))]
					q := c.question
					if c.name == "escalate" {
						q = fmt.Sprintf("%s Ticket %d.", q, i%variants)
					}
					if _, err := chains.Run(context.Background(), chain, q); err != nil {
						t.Errorf("chain call %d: %v", i, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		for s := sh.Stats(); s.Queued != s.Evaluated+s.Failed+s.Lost; s = sh.Stats() {
			time.Sleep(time.Millisecond)
		}
		if err := tp.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
		st.srv.ForgetRequests() // the fake server's own log is not the library's memory
		points = append(points, measure(uint64(end)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sh.Shutdown(ctx); err != nil {
		t.Errorf("shadow Shutdown: %v", err)
	}
	if err := chain.(*middleware.Chain).Shutdown(ctx); err != nil {
		t.Errorf("chain Shutdown (records): %v", err)
	}
	elapsed := time.Since(start)
	stats := sh.Stats()
	written, failed := sink.Counts()
	cs := st.c.Stats()
	final := measure(stats.Evaluated)
	st.close()
	if err := tp.Shutdown(ctx); err != nil {
		t.Error(err)
	}
	if err := mp.Shutdown(ctx); err != nil {
		t.Error(err)
	}

	t.Logf("%d evaluations in %v (%.0f/s); shadow %+v; records written %d, failed %d; spans exported %d; errors handled %d",
		stats.Evaluated, elapsed.Round(time.Millisecond), float64(stats.Evaluated)/elapsed.Seconds(), stats, written, failed, exp.n.Load(), handled.Load())
	t.Logf("cascade: escalations %d, cache hits %d, misses %d, settled %d, abstained %d (breaker %d), calls %d, call errors %d, trips %d, breaker %s; fake server requests %d",
		cs.Escalations, cs.CacheHits, cs.CacheMisses, cs.Settled, cs.Abstained, cs.RefusedBreaker, cs.Calls, cs.CallErrors, cs.BreakerTrips, cs.BreakerState, reqs.Load())
	for _, p := range points {
		t.Logf("after %6d: heap in use %6.2f MiB, %7d objects, %3d goroutines", p.done, float64(p.heapInuse)/(1<<20), p.objects, p.routines)
	}
	if stats.Evaluated < uint64(n) || stats.Dropped != 0 || stats.Lost != 0 || stats.Failed != 0 {
		t.Errorf("shadow stats %+v; want %d evaluated, nothing dropped, failed or lost", stats, n)
	}
	if written != stats.Evaluated || failed != 0 {
		t.Errorf("records written %d, failed %d; want %d written", written, failed, stats.Evaluated)
	}
	if r := chain.(*middleware.Chain).SinkStats(); r.Captured != r.Written+r.Failed+r.Dropped+r.Lost || r.Dropped != 0 || r.Lost != 0 {
		t.Errorf("record queue %+v; want Captured = Written + Failed + Dropped + Lost, nothing dropped or lost", r)
	}
	if len(points) < 2 {
		t.Fatalf("%d memory points", len(points))
	}
	warm, last := points[0], points[len(points)-1]
	// Flat: at most twice the warm-up heap plus 4 MiB of slack for the
	// runtime's and the SDK's own buffers.
	if last.heapInuse > 2*warm.heapInuse+4<<20 {
		t.Errorf("heap in use grew from %d to %d bytes between %d and %d evaluations", warm.heapInuse, last.heapInuse, warm.done, last.done)
	}
	// Goroutines come and go with HTTP connections and calls in flight when a
	// point is taken (±10 seen); a leak per evaluation would add thousands.
	// goleak below checks that none is left once everything is shut down.
	if last.routines > warm.routines+32 {
		t.Errorf("goroutines grew from %d to %d", warm.routines, last.routines)
	}
	t.Logf("heap in use after warm-up %.2f MiB, at the end %.2f MiB, after shutdown %.2f MiB",
		float64(warm.heapInuse)/(1<<20), float64(last.heapInuse)/(1<<20), float64(final.heapInuse)/(1<<20))
	goleak.VerifyNone(t)
}

// flakyFree answers like a competent judge on the knowledge base's
// escalated question (a simulation).
func flakyFree(r fakeopenai.Request) fakeopenai.Reply {
	sys := r.Role("system")
	switch {
	case strings.Contains(sys, "QUOTE [context id]"):
		return fakeopenai.YesNo(0.9, "Yes\nQUOTE [policy/shipping]: Standard shipping takes 5 to 7 business days")
	case strings.Contains(sys, "contradict"), strings.Contains(sys, "materially disagree"):
		return fakeopenai.YesNo(0.05, "No")
	}
	return fakeopenai.YesNo(0.9, "Yes")
}
