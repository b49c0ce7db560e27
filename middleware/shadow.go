package middleware

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

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
}

// ShadowStats counts what became of the samples offered to a Shadow. Offered
// = SampledOut + Filtered + Queued + Dropped; Queued = Evaluated + Failed +
// Lost + those still pending.
type ShadowStats struct {
	Offered    uint64 // calls handed to the shadow evaluator
	SampledOut uint64 // skipped by SampleRate
	Filtered   uint64 // rejected by Filter
	Queued     uint64 // put on the queue
	Dropped    uint64 // not queued: the queue was full, or Shutdown had begun
	Evaluated  uint64 // evaluated, with a result
	Failed     uint64 // evaluated, without a result (invalid sample, evaluator error)
	Lost       uint64 // queued but abandoned when Shutdown's context ended
}

// Shadow evaluates answers in the background, for chains wrapped with
// WithShadow: it never changes a chain's output and never blocks the
// caller. It owns its worker goroutines; Shutdown ends them. Safe for
// concurrent use; one Shadow may serve many wrapped chains.
type Shadow struct {
	eval    Evaluator
	cfg     ShadowConfig
	onError func(error)
	dropped metric.Int64Counter

	queue    chan *evaluation
	mu       sync.RWMutex // guards closed against concurrent submits
	closed   bool
	draining chan struct{} // closed by Shutdown: finish the queue, then exit
	abort    chan struct{} // closed when Shutdown gives up: stop now
	wg       sync.WaitGroup

	shutdownOnce sync.Once
	shutdownErr  error

	offered, sampledOut, filtered, queued, droppedN, evaluated, failed, lost atomic.Uint64

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

// NewShadow starts a shadow evaluator around e. Options that apply:
// WithMeterProvider (for the drop counter) and WithErrorHandler. Spans,
// metrics and records of each evaluation follow the options of the chain
// that submitted it.
func NewShadow(e Evaluator, cfg ShadowConfig, opts ...Option) (*Shadow, error) {
	if err := checkEvaluator("NewShadow", e); err != nil {
		return nil, err
	}
	if cfg.Workers < 0 || cfg.QueueSize < 0 {
		return nil, fmt.Errorf("middleware: NewShadow: negative Workers (%d) or QueueSize (%d)", cfg.Workers, cfg.QueueSize)
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
	s := &Shadow{
		eval: e, cfg: cfg, onError: c.onError, dropped: dropped,
		queue:        make(chan *evaluation, cfg.QueueSize),
		draining:     make(chan struct{}),
		abort:        make(chan struct{}),
		dropFull:     metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "queue_full"))),
		dropClosed:   metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "closed"))),
		dropShutdown: metric.WithAttributeSet(attribute.NewSet(attribute.String(otelkeys.DropReason, "shutdown"))),
	}
	s.wg.Add(cfg.Workers)
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
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-s.abort:
			cancel()
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
		s.loseOne()
		return
	}
	v := ev.run(ctx)
	switch {
	case v.abandoned:
		// Shutdown gave up while this one ran: its result is not trusted
		// (and was not recorded).
		s.loseOne()
	case v.ok:
		s.evaluated.Add(1)
	default:
		s.failed.Add(1)
	}
}

func (s *Shadow) loseOne() {
	s.lost.Add(1)
	s.dropped.Add(context.Background(), 1, s.dropShutdown)
}

// Stats returns the counts so far.
func (s *Shadow) Stats() ShadowStats {
	return ShadowStats{
		Offered: s.offered.Load(), SampledOut: s.sampledOut.Load(), Filtered: s.filtered.Load(),
		Queued: s.queued.Load(), Dropped: s.droppedN.Load(), Evaluated: s.evaluated.Load(),
		Failed: s.failed.Load(), Lost: s.lost.Load(),
	}
}

// ShutdownError says how many queued samples Shutdown abandoned.
type ShutdownError struct {
	Lost uint64
	Err  error // the context's error
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("middleware: shadow shutdown: %d queued samples lost: %v", e.Lost, e.Err)
}

// Unwrap returns the context's error.
func (e *ShutdownError) Unwrap() error { return e.Err }

// Shutdown stops accepting samples (later ones are dropped and counted),
// evaluates what is queued, and returns when the queue is empty and the
// workers have exited. If ctx ends first it cancels the evaluations in
// flight, abandons the rest and returns a *ShutdownError saying how many
// were lost. Later calls return the first call's result.
func (s *Shadow) Shutdown(ctx context.Context) error {
	s.shutdownOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.draining)
		done := make(chan struct{})
		go func() { s.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			close(s.abort)
			<-done
		}
		for {
			select {
			case <-s.queue:
				s.loseOne()
				continue
			default:
			}
			break
		}
		if n := s.lost.Load(); n > 0 {
			s.shutdownErr = &ShutdownError{Lost: n, Err: context.Cause(ctx)}
		}
	})
	return s.shutdownErr
}
