package middleware

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/tmc/langchaingo/schema"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
)

// An Evaluator judges one sample. *guard.Guard is one; a cascade or another
// wrapper around a guard can be one too. Evaluate keeps guard.Evaluate's
// contract. It returns an error only when it gives no result: an invalid
// sample (guard.ErrInvalidSample) or a wrapper's own failure. The Result is
// then ignored. A failed judge is part of a complete Result (Result.Errors),
// and its decisions are uncertain. The middleware gates on Result.Action as
// the evaluator set it. The zero Action is Review: a result that never set
// it is gated as Gate.Review says, whatever its diagnosis. A wrapper that
// builds its own Result must set Action.
type Evaluator interface {
	Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error)
}

// Field names a piece of user text handed to a Redactor.
type Field uint8

// The user texts the middleware may put on spans and records.
const (
	FieldQuestion         Field = iota + 1 // the question the answer was generated for
	FieldOriginalQuestion                  // the user's question before a chain condensed it
	FieldContext                           // a retrieved document's text
	FieldAnswer                            // the chain's answer
	FieldReference                         // the reference answer given with WithReference
	FieldPrompt                            // a message sent to the LLM
	FieldCompletion                        // a message the LLM returned
	FieldQuery                             // the text a retriever was asked
)

var fieldNames = [...]string{"", "question", "original_question", "context", "answer", "reference", "prompt", "completion", "query"}

func (f Field) String() string {
	if int(f) < len(fieldNames) && f > 0 {
		return fieldNames[f]
	}
	return "Field(" + strconv.Itoa(int(f)) + ")"
}

// A Redactor rewrites a user text before it leaves the process in
// telemetry or a record. It may mask e-mail addresses, drop the text
// (return ""), or keep it. The middleware calls it once per text and field
// of a call and reuses the result. It is called from the goroutine that
// records, possibly concurrently, and must be safe for concurrent use.
type Redactor func(f Field, text string) string

// NoRedaction keeps every text as it is. Pass it to WithContent to export
// raw user text on purpose.
func NoRedaction(_ Field, text string) string { return text }

// Option configures Wrap, WrapRetriever, WrapLLM and NewShadow. An option
// that does not apply to what it is given is ignored (WithGuard given to
// WrapRetriever, for instance).
type Option func(*config) error

type config struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	tracer  trace.Tracer
	onError func(error)
	logger  *slog.Logger // nil: slog.Default()
	redact  Redactor     // nil: no user text in telemetry or records
	now     func() time.Time

	inline    Evaluator
	gate      Gate
	shadow    *Shadow
	sink      Sink
	sinkQueue int          // 0: DefaultSinkQueue
	records   *recordQueue // the chain's queue to sink (New makes it)
	teachCfg  TeachConfig
	teach     *teaching // the chain's teaching (New makes it)

	name                              string
	source                            string
	provider, model                   string
	answerKey, questionKey, resultKey string
	contextID                         func(i int, d schema.Document) string

	inst *instruments
}

func newConfig(opts []Option) (*config, error) {
	c := &config{onError: otel.Handle, now: time.Now, contextID: DefaultContextID}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(c); err != nil {
			return nil, err
		}
	}
	if c.inline != nil && c.shadow != nil {
		return nil, errors.New("middleware: WithGuard and WithShadow are exclusive: evaluate inline or in shadow mode, not both")
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	c.tracer = c.tp.Tracer(otelkeys.ScopeName)
	return c, nil
}

// WithTracerProvider records spans with tp instead of the global provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) error {
		if tp == nil {
			return errors.New("middleware: WithTracerProvider: nil provider")
		}
		c.tp = tp
		return nil
	}
}

// WithMeterProvider records metrics with mp instead of the global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) error {
		if mp == nil {
			return errors.New("middleware: WithMeterProvider: nil provider")
		}
		c.mp = mp
		return nil
	}
}

// WithErrorHandler sends the middleware's own failures (a sink that could
// not write, an evaluation that failed, a judge error) to h instead of
// otel.Handle. They never change what the chain returns. h may be called
// from several goroutines at once.
func WithErrorHandler(h func(error)) Option {
	return func(c *config) error {
		if h == nil {
			return errors.New("middleware: WithErrorHandler: nil handler")
		}
		c.onError = h
		return nil
	}
}

// WithLogger sends the middleware's warnings to l instead of
// slog.Default(). There is one: New warns when an inline gate will withhold
// every answer (see WithGuard).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("middleware: WithLogger: nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithContent opts in to user text on spans and in records: the question,
// contexts, answer, reference, prompts and completions. Each text passes
// through r first, once per call and field. Without WithContent no user
// text leaves the process. Spans carry IDs, counts, scores and verdicts
// only. Records carry no Sample and no evidence texts. Quoted excerpts in
// reasons and error messages are withheld (see privacy.go). Pass
// NoRedaction to export the texts unchanged.
func WithContent(r Redactor) Option {
	return func(c *config) error {
		if r == nil {
			return errors.New("middleware: WithContent: nil redactor (pass NoRedaction to keep texts as they are)")
		}
		c.redact = r
		return nil
	}
}

// WithGuard evaluates every answer inline, after the chain has produced it,
// and applies gate to the outcome. Exclusive with WithShadow.
//
// A guard with no fallback (guard.WithEscalator, ragtriage.WithFallback)
// whose policy decides nothing on its own (guard.Policy.Decides; the
// profile shipped with guard/lexical is one) gives every answer that has
// contexts the action review: the gate withholds every answer but retrieval
// misses. New then logs a warning (WithLogger) that says so and how to
// choose otherwise, unless gate.Review is AnnotateOnly. The evaluator is
// checked when it is a *guard.Guard or has an Unwrap() *guard.Guard method
// (*ragtriage.Guard).
func WithGuard(e Evaluator, gate Gate) Option {
	return func(c *config) error {
		if err := checkEvaluator("WithGuard", e); err != nil {
			return err
		}
		if err := gate.validate(); err != nil {
			return err
		}
		c.inline, c.gate = e, gate
		return nil
	}
}

// WithShadow hands every answer to s, which evaluates it in the background
// without changing or delaying the chain's output. Exclusive with WithGuard.
func WithShadow(s *Shadow) Option {
	return func(c *config) error {
		if s == nil {
			return errors.New("middleware: WithShadow: nil shadow evaluator")
		}
		c.shadow = s
		return nil
	}
}

// WithSink writes a record of every evaluated answer to s. Without it,
// nothing is written. Records are not written on the caller's goroutine.
// Each is put on the chain's record queue (WithSinkQueue records) without
// waiting. One writer goroutine writes them: the chain starts it when there
// is something to write, and it exits when the queue is empty. A record
// that does not fit is dropped and counted (Chain.SinkStats, the
// ragtriage.sink.dropped metric). Chain.Shutdown writes what is queued, so
// call it before closing what s writes to.
func WithSink(s Sink) Option {
	return func(c *config) error {
		if s == nil {
			return errors.New("middleware: WithSink: nil sink")
		}
		c.sink = s
		return nil
	}
}

// WithSinkQueue bounds the chain's record queue (see WithSink) to n records
// waiting for the sink; zero means DefaultSinkQueue (1024).
func WithSinkQueue(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("middleware: WithSinkQueue: negative size %d", n)
		}
		c.sinkQueue = n
		return nil
	}
}

// WithName names the chain on its span (default: the wrapped chain's Go
// type).
func WithName(name string) Option {
	return func(c *config) error { c.name = name; return nil }
}

// WithDataSource names the retriever's data source on retrieval spans
// ("retrieval kb"). Used by WrapRetriever and by the retrievers Wrap
// instruments.
func WithDataSource(id string) Option {
	return func(c *config) error { c.source = id; return nil }
}

// WithModel names the LLM's provider ("openai") and model ("gpt-4o-mini") on
// generation spans. Used by WrapLLM and by the models Wrap instruments.
func WithModel(provider, model string) Option {
	return func(c *config) error { c.provider, c.model = provider, model; return nil }
}

// WithAnswerKey reads the answer from this output key. By default it is the
// chain's first output key holding a string, and failing that the last text
// a wrapped LLM generated during the call.
func WithAnswerKey(key string) Option {
	return func(c *config) error { c.answerKey = key; return nil }
}

// WithQuestionKey reads the user's question from this input key. By default
// it is the chain's first input key holding a string.
func WithQuestionKey(key string) Option {
	return func(c *config) error { c.questionKey = key; return nil }
}

// WithResultKey adds the call's *Outcome to the chain's outputs under key,
// when the guard ran inline. It is off by default, because an extra output
// key breaks memories that expect a single output (a ConversationBuffer
// without an OutputKey). WithOutcome reaches the same value through the
// context.
func WithResultKey(key string) Option {
	return func(c *config) error { c.resultKey = key; return nil }
}

// WithContextIDs names each retrieved document in the sample (i counts the
// documents of the call from 0). The default is DefaultContextID. Repeated
// IDs get a "#2", "#3", ... suffix.
func WithContextIDs(f func(i int, d schema.Document) string) Option {
	return func(c *config) error {
		if f == nil {
			return errors.New("middleware: WithContextIDs: nil function")
		}
		c.contextID = f
		return nil
	}
}

// WithClock sets the clock used for record times and guard latency
// (time.Now by default).
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("middleware: WithClock: nil clock")
		}
		c.now = now
		return nil
	}
}

// DefaultContextID names a document by its metadata "id" or "source" (a
// non-empty string), or else "doc-N" with N counted from 1.
func DefaultContextID(i int, d schema.Document) string {
	if s, ok := d.Metadata["id"].(string); ok && s != "" {
		return s
	}
	if s, ok := d.Metadata["source"].(string); ok && s != "" {
		return s
	}
	return "doc-" + strconv.Itoa(i+1)
}

func (c *config) handle(err error) {
	if err != nil {
		c.onError(&scrubbedError{err})
	}
}

func (c *config) text(f Field, s string) string { return c.redact(f, s) }

func errorf(format string, args ...any) error { return fmt.Errorf("middleware: "+format, args...) }

// Span kinds, built once: building them per call allocates.
var (
	kindClient   = trace.WithSpanKind(trace.SpanKindClient)
	kindInternal = trace.WithSpanKind(trace.SpanKindInternal)
)
