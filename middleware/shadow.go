package middleware

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
)

// ShadowConfig sizes a Shadow evaluator. Every zero field means its default.
type ShadowConfig struct {
	// Workers is the number of goroutines evaluating samples. Zero: 1.
	Workers int
	// QueueSize bounds the samples waiting for a worker; when the queue is
	// full a new sample is dropped (and counted), never waited for. Zero:
	// 256.
	QueueSize int
	// SampleRate is the fraction of calls evaluated, in (0, 1]. Zero: 1
	// (every call).
	SampleRate float64
	// Filter, when set, is asked about every sampled call; a sample it
	// rejects is not evaluated. It runs on the caller's goroutine, so keep it
	// cheap, and must be safe for concurrent use. It must not keep or modify
	// the sample.
	Filter func(s *guard.Sample) bool
	// Timeout bounds each evaluation: the evaluator's context ends Timeout
	// after a worker starts it (cause ErrShadowTimeout). A *guard.Guard
	// returns then with the decisions its judges had not finished
	// uncertain; the evaluation is counted in TimedOut and the
	// ragtriage.shadow.timeouts metric, its span says so
	// (ragtriage.shadow.timed_out, Error status) and so does its record
	// (TimedOut). An evaluator that ignores its context holds its worker
	// until it returns. Zero: DefaultShadowTimeout (10 s).
	Timeout time.Duration
}

// DefaultShadowTimeout bounds a shadow evaluation unless
// ShadowConfig.Timeout says otherwise. It is long enough for a fallback
// call to an LLM, and short enough that one stuck judge does not hold a
// worker for long.
const DefaultShadowTimeout = 10 * time.Second

// ErrShadowTimeout is the cause of a shadow evaluation's context when its
// deadline (ShadowConfig.Timeout) passes; the error handler's report of
// such an evaluation wraps it.
var ErrShadowTimeout = errors.New("shadow evaluation timed out")

// errShadowAborted is the cause of a worker's context when Shutdown gives
// up.
var errShadowAborted = errors.New("middleware: shadow shutdown gave up")

// ShadowStats counts what became of the samples offered to a Shadow. Offered
// = SampledOut + Filtered + Queued + Dropped; Queued = Evaluated + Failed +
// Lost + those still pending (none once Shutdown has returned). TimedOut
// counts the evaluations, among Evaluated and Failed, whose deadline
// (ShadowConfig.Timeout) passed.
type ShadowStats struct {
	Offered    uint64 // calls handed to the shadow evaluator
	SampledOut uint64 // skipped by SampleRate
	Filtered   uint64 // rejected by Filter
	Queued     uint64 // put on the queue
	Dropped    uint64 // not queued: the queue was full, or Shutdown had begun
	Evaluated  uint64 // evaluated, with a result
	Failed     uint64 // evaluated, without a result (invalid sample, evaluator error)
	Lost       uint64 // queued but abandoned when Shutdown's context ended
	TimedOut   uint64 // evaluated or failed after the evaluation's deadline passed
}

// Shadow evaluates answers in the background, for chains wrapped with
// WithShadow: it never changes a chain's output and never blocks the
// caller. It owns its worker goroutines; Shutdown ends them. Safe for
// concurrent use; one Shadow may serve many wrapped chains.
type Shadow struct {
	eval     Evaluator
	cfg      ShadowConfig
	dropped  metric.Int64Counter
	timeouts metric.Int64Counter

	queue    chan *evaluation
	mu       sync.RWMutex // guards closed against concurrent submits
	closed   bool
	draining chan struct{} // closed by Shutdown: finish the queue, then exit
	abort    chan struct{} // closed when Shutdown gives up: stop now
	live     atomic.Int32  // workers still running
	exited   chan struct{} // closed by the last worker to exit

	// settleMu orders each evaluation's outcome (settle) against Shutdown
	// giving up: an evaluation settled before is counted as it ended, one
	// after is not counted again (Shutdown counted it as lost).
	settleMu sync.Mutex
	gaveUp   bool

	shutdownOnce sync.Once
	shutdownErr  error

	offered, sampledOut, filtered, queued, droppedN, evaluated, failed, lost, timedOut atomic.Uint64

	dropFull, dropClosed, dropShutdown metric.MeasurementOption
}

// What Chain.Call reports on its span about a shadow submission.
const (
	shadowQueued     = "queued"
	shadowSampledOut = "sampled_out"
	shadowFiltered   = "filtered"
	shadowDropped    = "dropped"
	shadowClosed     = "closed"
)

// NewShadow starts a shadow evaluator around e. The option that applies is
// WithMeterProvider (for the drop and timeout counters). Spans, metrics,
// records and errors of each evaluation follow the options of the chain
// that submitted it (errors go to that chain's WithErrorHandler).
func NewShadow(e Evaluator, cfg ShadowConfig, opts ...Option) (*Shadow, error) {
	if err := checkEvaluator("NewShadow", e); err != nil {
		return nil, err
	}
	if cfg.Workers < 0 || cfg.QueueSize < 0 {
		return nil, fmt.Errorf("middleware: NewShadow: negative Workers (%d) or QueueSize (%d)", cfg.Workers, cfg.QueueSize)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("middleware: NewShadow: negative Timeout %v", cfg.Timeout)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultShadowTimeout
	}
	if cfg.SampleRate < 0 || cfg.SampleRate > 1 || cfg.SampleRate != cfg.SampleRate {
		return nil, fmt.Errorf("middleware: NewShadow: SampleRate %v outside [0, 1]", cfg.SampleRate)
	}
	if cfg.Workers == 0 {
		cfg.Workers = 1
	}
	if cfg.QueueSize == 0 {
		cfg.QueueSize = 256
	}
	if cfg.SampleRate == 0 {
		cfg.SampleRate = 1
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	dropped, err := c.mp.Meter(otelkeys.ScopeName).Int64Counter(otelkeys.MetricShadowDropped,
		metric.WithDescription("Shadow samples not evaluated because the queue was full or the evaluator was shut down."),
		metric.WithUnit("{sample}"))
	if err != nil {
		return nil, fmt.Errorf("middleware: NewShadow: drop counter: %w", err)
	}
	timeouts, err := c.mp.Meter(otelkeys.ScopeName).Int64Counter(otelkeys.MetricShadowTimeouts,
		metric.WithDescription("Shadow evaluations whose deadline passed before the evaluator returned."),
		metric.WithUnit("{evaluation}"))
	if err != nil {
		return nil, fmt.Errorf("middleware: NewShadow: timeout counter: %w", err)
	}
	s := &Shadow{
		eval: e, cfg: cfg, dropped: dropped, timeouts: timeouts,
		queue:        make(chan *evaluation, cfg.QueueSize),
		draining:     make(chan struct{}),
		abort:        make(chan struct{}),
		exited:       make(chan struct{}),
		dropFull:     metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "queue_full"))),
		dropClosed:   metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "closed"))),
		dropShutdown: metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "shutdown"))),
	}
	s.live.Store(int32(cfg.Workers))
	for range cfg.Workers {
		go s.worker()
	}
	return s, nil
}

// submit offers one sample; it never blocks. It returns what became of it.
func (s *Shadow) submit(ev *evaluation) string {
	s.offered.Add(1)
	if s.cfg.SampleRate < 1 && rand.Float64() >= s.cfg.SampleRate {
		s.sampledOut.Add(1)
		return shadowSampledOut
	}
	if s.cfg.Filter != nil && !s.cfg.Filter(&ev.sample) {
		s.filtered.Add(1)
		return shadowFiltered
	}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		s.droppedN.Add(1)
		s.dropped.Add(context.Background(), 1, s.dropClosed)
		return shadowClosed
	}
	select {
	case s.queue <- ev:
		s.queued.Add(1)
		s.mu.RUnlock()
		return shadowQueued
	default:
		s.mu.RUnlock()
		s.droppedN.Add(1)
		s.dropped.Add(context.Background(), 1, s.dropFull)
		return shadowDropped
	}
}

func (s *Shadow) worker() {
	defer func() {
		if s.live.Add(-1) == 0 {
			close(s.exited)
		}
	}()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-s.abort:
			cancel(errShadowAborted)
		case <-stop:
		}
	}()
	for {
		select {
		case <-s.abort:
			return
		case ev := <-s.queue:
			s.process(ctx, ev)
		case <-s.draining:
			for {
				select {
				case <-s.abort:
					return
				case ev := <-s.queue:
					s.process(ctx, ev)
				default:
					return
				}
			}
		}
	}
}

func (s *Shadow) process(ctx context.Context, ev *evaluation) {
	if ctx.Err() != nil {
		s.settleLost()
		return
	}
	ctx, cancel := context.WithTimeoutCause(ctx, s.cfg.Timeout, ErrShadowTimeout)
	defer cancel()
	ev.run(ctx) // counts it through settle
}

// settle counts how one evaluation ended, once its evaluator has returned.
// It reports whether the evaluation counts at all. It does not when
// Shutdown gave up on it: then it was, or is now, counted as lost, and it is
// neither recorded nor added to the evaluation metrics.
func (s *Shadow) settle(ctx context.Context, v *verdict) bool {
	s.settleMu.Lock()
	if s.gaveUp {
		s.settleMu.Unlock()
		return false
	}
	if errors.Is(context.Cause(ctx), errShadowAborted) {
		// Shutdown cancelled it while it ran: its result is degraded by
		// the cancellation, not by the sample.
		s.lost.Add(1)
		s.settleMu.Unlock()
		s.dropped.Add(context.Background(), 1, s.dropShutdown)
		return false
	}
	if v.ok {
		s.evaluated.Add(1)
	} else {
		s.failed.Add(1)
	}
	if v.timedOut {
		s.timedOut.Add(1)
	}
	s.settleMu.Unlock()
	if v.timedOut {
		s.timeouts.Add(context.Background(), 1)
	}
	return true
}

// settleLost counts a sample a worker took from the queue after Shutdown
// gave up.
func (s *Shadow) settleLost() {
	s.settleMu.Lock()
	counted := !s.gaveUp
	if counted {
		s.lost.Add(1)
	}
	s.settleMu.Unlock()
	if counted {
		s.dropped.Add(context.Background(), 1, s.dropShutdown)
	}
}

// Stats returns the counts so far.
func (s *Shadow) Stats() ShadowStats {
	return ShadowStats{
		Offered: s.offered.Load(), SampledOut: s.sampledOut.Load(), Filtered: s.filtered.Load(),
		Queued: s.queued.Load(), Dropped: s.droppedN.Load(), Evaluated: s.evaluated.Load(),
		Failed: s.failed.Load(), Lost: s.lost.Load(), TimedOut: s.timedOut.Load(),
	}
}

// ShutdownError reports what a Shutdown could not carry through.
// Shadow.Shutdown returns one when queued samples were lost; Chain.Shutdown
// when records were dropped or lost. Either way the counts it holds add up
// (see ShadowStats and SinkStats).
type ShutdownError struct {
	// Lost counts what was queued but abandoned when ctx ended: shadow
	// samples (Shadow.Shutdown) or records (Chain.Shutdown).
	Lost uint64
	// Shadow holds the shadow evaluator's counts as Shadow.Shutdown
	// returned (nil from Chain.Shutdown).
	Shadow *ShadowStats
	// Sink holds the chain's record counts as Chain.Shutdown returned (nil
	// from Shadow.Shutdown).
	Sink *SinkStats
	// Err is ctx's cause when ctx ended before Shutdown was done; nil when
	// Shutdown finished and reports records dropped earlier.
	Err error
}

func (e *ShutdownError) Error() string {
	var msg string
	if s := e.Sink; s != nil {
		msg = fmt.Sprintf("middleware: record sink shutdown: %d of %d records not handed to the sink: %d dropped (queue full or shut down), %d lost",
			s.Dropped+s.Lost, s.Captured, s.Dropped, s.Lost)
	} else {
		msg = fmt.Sprintf("middleware: shadow shutdown: %d queued samples lost", e.Lost)
		if s := e.Shadow; s != nil {
			msg += fmt.Sprintf(" (%d queued: %d evaluated, %d failed, %d timed out among them)", s.Queued, s.Evaluated, s.Failed, s.TimedOut)
		}
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the context's error.
func (e *ShutdownError) Unwrap() error { return e.Err }

// Shutdown stops accepting samples; later ones are dropped and counted. It
// evaluates what is queued, and returns when the queue is empty and the
// workers have exited. If ctx ends first, Shutdown cancels the evaluations
// in flight. It counts them and the rest of the queue as lost, and returns
// at once with a *ShutdownError saying how many. A worker whose evaluator
// ignores cancellation exits when the evaluator returns, and what it
// returns is not counted again. Later calls return the first call's
// result. The evaluations' records go to each chain's record queue, so shut
// the chains down after the Shadow (Chain.Shutdown) to write them.
func (s *Shadow) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.draining)
		var cause error
		select {
		case <-s.exited:
		case <-ctx.Done():
			close(s.abort)
			cause = context.Cause(ctx)
		}
		// No sample is queued any more (submit checks closed under mu), so
		// Queued is final; whatever is not settled now is lost.
		s.settleMu.Lock()
		s.gaveUp = true
		for {
			select {
			case <-s.queue:
				continue
			default:
			}
			break
		}
		rest := s.queued.Load() - s.evaluated.Load() - s.failed.Load() - s.lost.Load()
		s.lost.Add(rest)
		s.settleMu.Unlock()
		if rest > 0 {
			s.dropped.Add(context.Background(), int64(rest), s.dropShutdown)
		}
		if st := s.Stats(); st.Lost > 0 {
			s.shutdownErr = &ShutdownError{Lost: st.Lost, Shadow: &st, Err: cause}
		}
	})
	return s.shutdownErr
}
