package middleware

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
)

// A Teacher asks the teacher about a result its evaluator drew for it
// (guard.Result.Draw, see guard.WithDraws); *guard.Guard is one. An
// Evaluator that is also a Teacher has its drawn results taught off the
// request path: in shadow mode in the shadow worker, right after Evaluate;
// inline on a bounded background goroutine, after the chain call has
// returned its answer (see TeachConfig). The record of a drawn result is
// written once it was taught, so it carries the teacher's verdicts
// (Result.Teacher). Teach must not change the result's own verdicts, and
// must be safe for concurrent use.
type Teacher interface {
	Teach(ctx context.Context, s *guard.Sample, res *guard.Result) error
}

// TeachConfig bounds inline teaching (WithTeach). Every zero field means its
// default.
type TeachConfig struct {
	// MaxInFlight bounds the Teach calls one chain runs in the background
	// at once. A drawn answer beyond it is not taught: its result records
	// the refusal (Teacher.Cause "concurrency"), it is counted
	// (Chain.TeachStats, the ragtriage.teacher.draws metric), and it is
	// never retried. Zero: DefaultTeachInFlight.
	MaxInFlight int
	// Timeout bounds each background Teach call. Zero:
	// DefaultShadowTimeout.
	Timeout time.Duration
}

// DefaultTeachInFlight is TeachConfig.MaxInFlight's default.
const DefaultTeachInFlight = 4

// WithTeach sets the bounds of inline teaching (see Teacher). Without it
// the defaults apply. It does not apply to shadow mode, where the shadow
// worker teaches within the evaluation's ShadowConfig.Timeout.
func WithTeach(tc TeachConfig) Option {
	return func(c *config) error {
		if tc.MaxInFlight < 0 || tc.Timeout < 0 {
			return fmt.Errorf("middleware: WithTeach: negative MaxInFlight (%d) or Timeout (%v)", tc.MaxInFlight, tc.Timeout)
		}
		c.teachCfg = tc
		return nil
	}
}

// TeachStats counts the drawn answers of one chain (Chain.TeachStats).
// Drawn = Taught + NotTaught + those being taught (none once Shutdown has
// returned, but for Lost ones a teacher still holds); Taught = Answered +
// Refused + Errors.
type TeachStats struct {
	Drawn uint64 // evaluated results their evaluator drew for the teacher
	// Taught counts the drawn results Teach ran for.
	Taught uint64
	// Answered counts those whose teacher was neither refused nor failed.
	Answered uint64
	// Refused counts those whose teacher was refused or failed (the
	// result's Teacher.Cause says why: budget, breaker_open, …).
	Refused uint64
	// Errors counts the Teach calls that returned an error (the error
	// handler has each).
	Errors uint64
	// NotTaught counts the inline draws never handed to Teach: the chain's
	// MaxInFlight was reached, or Shutdown had begun. Each result records
	// it (Teacher.Cause "concurrency" or "closed").
	NotTaught uint64
	// Lost counts the background Teach calls still running when
	// Shutdown's context ended; their records may still be written.
	Lost uint64
}

// teaching is a chain's teaching state: its counts and, inline, the
// background Teach calls it owns. Chain.Shutdown ends them. Safe for
// concurrent use.
type teaching struct {
	cfg      *config
	limit    int
	timeout  time.Duration
	counter  metric.Int64Counter
	base     context.Context // detached; cancelled when Shutdown gives up
	abort    context.CancelCauseFunc
	mu       sync.Mutex
	inFlight int
	closed   bool
	idle     chan struct{} // closed when inFlight drops to 0; made by Shutdown

	drawn, taught, answered, refused, errs, notTaught, lost atomic.Uint64
}

// errTeachAborted is the cause of the background Teach calls' context when
// Shutdown gives up on them.
var errTeachAborted = errors.New("middleware: shutdown gave up on teaching")

func newTeaching(c *config, mp metric.MeterProvider) (*teaching, error) {
	counter, err := mp.Meter(otelkeys.ScopeName).Int64Counter(otelkeys.MetricTeacherDraws,
		metric.WithDescription("Answers drawn for the teacher, once taught, by outcome: answered, or the cause the teacher was refused or failed with."),
		metric.WithUnit("{draw}"))
	if err != nil {
		return nil, errorf("teacher draw counter: %w", err)
	}
	t := &teaching{cfg: c, limit: c.teachCfg.MaxInFlight, timeout: c.teachCfg.Timeout, counter: counter}
	if t.limit == 0 {
		t.limit = DefaultTeachInFlight
	}
	if t.timeout == 0 {
		t.timeout = DefaultShadowTimeout
	}
	t.base, t.abort = context.WithCancelCause(context.Background())
	return t, nil
}

// drawn reports whether v holds a result drawn for the teacher that its
// evaluator can teach, and returns the Teacher.
func drawn(ev *evaluation, v *verdict) (Teacher, bool) {
	if !v.ok || v.abandoned || v.res.Draw == nil || !v.res.Draw.Drawn || v.res.Teacher != nil {
		return nil, false
	}
	t, ok := ev.eval.(Teacher)
	return t, ok
}

// teach runs one Teach call on res and counts it.
func (t *teaching) teach(ctx context.Context, tc Teacher, ev *evaluation, res *guard.Result) {
	err := tc.Teach(ctx, &ev.sample, res)
	t.taught.Add(1)
	outcome := "answered"
	switch {
	case err != nil:
		t.errs.Add(1)
		outcome = "error"
		t.cfg.handle(errorf("teaching sample %s: %w", ev.id, err))
	case res.Teacher != nil && res.Teacher.Cause != "":
		t.refused.Add(1)
		outcome = string(res.Teacher.Cause)
	default:
		t.answered.Add(1)
	}
	t.counter.Add(context.WithoutCancel(ctx), 1, metric.WithAttributes(attribute.String(otelkeys.TeacherOutcome, outcome)))
}

// later teaches an inline result in the background, then queues its
// record (when the chain has a sink). It never blocks: past MaxInFlight,
// or once Shutdown has begun, the result records the refusal and its
// record is queued at once. res is the goroutine's own copy. The teaching
// call keeps reqCtx's values (an LLM client may read a tenant or
// credentials from them) but not its cancellation: the answer has been
// returned, and the request's end must not cut the teacher short. It is
// bounded by the teaching timeout and cancelled by Shutdown.
func (t *teaching) later(reqCtx context.Context, tc Teacher, ev *evaluation, v verdict, kinds []string, start time.Time, sc trace.SpanContext) {
	t.drawn.Add(1)
	t.mu.Lock()
	cause := guard.Cause("")
	switch {
	case t.closed:
		cause = guard.CauseClosed
	case t.inFlight >= t.limit:
		cause = guard.CauseConcurrency
	default:
		t.inFlight++
	}
	t.mu.Unlock()
	if cause != "" {
		t.notTaught.Add(1)
		v.res.Teacher = &guard.Teacher{Cause: cause, Reason: "middleware: inline teaching refused: " + string(cause)}
		t.counter.Add(context.Background(), 1, metric.WithAttributes(attribute.String(otelkeys.TeacherOutcome, string(cause))))
		t.cfg.inst.est.observe(reqCtx, &v.res)
		t.record(ev, &v, kinds, start, sc)
		return
	}
	if t.cfg.records != nil {
		ev.redacted() // on the caller's goroutine, before the hand-over
	}
	go func() {
		defer t.done()
		ctx, abort := context.WithCancelCause(trace.ContextWithSpanContext(context.WithoutCancel(reqCtx), sc))
		defer abort(nil)
		stop := context.AfterFunc(t.base, func() { abort(context.Cause(t.base)) })
		defer stop()
		ctx, cancel := context.WithTimeout(ctx, t.timeout)
		defer cancel()
		t.teach(ctx, tc, ev, &v.res)
		t.cfg.inst.est.observe(ctx, &v.res)
		t.record(ev, &v, kinds, start, sc)
	}()
}

// record queues the record of v, when the chain has a sink.
func (t *teaching) record(ev *evaluation, v *verdict, kinds []string, start time.Time, sc trace.SpanContext) {
	c := t.cfg
	if c.records == nil {
		return
	}
	x := c.exportResult(&v.res, ev.redacted())
	c.records.put(context.Background(), ev.record(v, &x, kinds, start, sc))
}

func (t *teaching) done() {
	t.mu.Lock()
	t.inFlight--
	if t.inFlight == 0 && t.idle != nil {
		close(t.idle)
		t.idle = nil
	}
	t.mu.Unlock()
}

// shutdown refuses later draws and waits for the background Teach calls
// (and so for their records to be queued) until ctx ends. Then it cancels
// them, counts them as lost and returns.
func (t *teaching) shutdown(ctx context.Context) {
	t.mu.Lock()
	t.closed = true
	var idle chan struct{}
	if t.inFlight > 0 {
		if t.idle == nil {
			t.idle = make(chan struct{})
		}
		idle = t.idle
	}
	t.mu.Unlock()
	if idle == nil {
		return
	}
	select {
	case <-idle:
	case <-ctx.Done():
		t.mu.Lock()
		t.lost.Add(uint64(t.inFlight))
		t.mu.Unlock()
		t.abort(errTeachAborted)
	}
}

func (t *teaching) snapshot() TeachStats {
	return TeachStats{Drawn: t.drawn.Load(), Taught: t.taught.Load(), Answered: t.answered.Load(),
		Refused: t.refused.Load(), Errors: t.errs.Load(), NotTaught: t.notTaught.Load(), Lost: t.lost.Load()}
}

// TeachStats returns the counts of the chain's drawn answers so far (see
// Teacher). In shadow mode they are taught by the Shadow's workers and
// counted here, on the chain that submitted them.
func (c *Chain) TeachStats() TeachStats { return c.cfg.teach.snapshot() }
