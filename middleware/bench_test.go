package middleware

import (
	"context"
	"io"
	"strings"
	"testing"
	"unicode"

	"github.com/tmc/langchaingo/chains"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// The benchmarks use the hand-built test chain (retrieve one document,
// generate a canned answer) with the global, no-op OpenTelemetry providers,
// so that the difference between BenchmarkBareChain and the others is the
// middleware's own cost.

var benchIn = map[string]any{"q": qPass}

func BenchmarkBareChain(b *testing.B) {
	c := handBuilt{r: kbRetriever{}, llm: &scriptedLLM{}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchIn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrapOff: capture and tracing, no guard.
func BenchmarkWrapOff(b *testing.B) {
	c := Wrap(handBuilt{r: WrapRetriever(kbRetriever{}), llm: WrapLLM(&scriptedLLM{})})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchIn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGuardAlone is the test guard's own cost on the same sample (the
// scripted judge of testGuard, so that the Wrap benchmarks measure the
// middleware, not a judge).
func BenchmarkGuardAlone(b *testing.B) {
	g := testGuard(b)
	s := guard.Sample{Question: qPass, Answer: aPass, Contexts: contextsOf(nil, DefaultContextID)}
	d := testDocs["capital"]
	s.Contexts = []guard.Context{{ID: "geo/france", Text: d.PageContent}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrapInline: capture, guard inline, gate (the answer passes).
func BenchmarkWrapInline(b *testing.B) {
	c := Wrap(handBuilt{r: WrapRetriever(kbRetriever{}), llm: WrapLLM(&scriptedLLM{})}, WithGuard(testGuard(b), Gate{}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchIn); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWrapInlineSink: BenchmarkWrapInline with a record sink (JSON
// Lines to io.Discard). The caller builds the record and queues it; the
// chain's writer goroutine encodes and writes it.
func BenchmarkWrapInlineSink(b *testing.B) {
	c, err := New(handBuilt{r: WrapRetriever(kbRetriever{}), llm: WrapLLM(&scriptedLLM{})}, WithGuard(testGuard(b), Gate{}),
		WithSink(record.NewWriter(io.Discard)), WithSinkQueue(1<<16))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchIn); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := c.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	st := c.SinkStats()
	b.ReportMetric(float64(st.Dropped)/float64(max(st.Captured, 1)), "dropped/op")
}

// BenchmarkWrapInlineContent: BenchmarkWrapInlineSink with content
// capture and recording spans (an SDK tracer provider that samples every
// span and exports none). The redactor masks digits, so that each call
// costs what a real one would.
func BenchmarkWrapInlineContent(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	mask := func(_ Field, s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsDigit(r) {
				return '#'
			}
			return r
		}, s)
	}
	c, err := New(handBuilt{r: WrapRetriever(kbRetriever{}), llm: WrapLLM(&scriptedLLM{})}, WithGuard(testGuard(b), Gate{}),
		WithTracerProvider(tp), WithContent(mask), WithSink(record.NewWriter(io.Discard)), WithSinkQueue(1<<16))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchIn); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := c.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// nopEvaluator returns a fixed result at once, so that the shadow workers
// keep up and the benchmark measures the caller's side.
type nopEvaluator struct{ res guard.Result }

func (n nopEvaluator) Evaluate(context.Context, guard.Sample) (guard.Result, error) {
	return n.res, nil
}

// BenchmarkWrapShadow: capture and hand-off to the shadow queue.
func BenchmarkWrapShadow(b *testing.B) {
	sh, err := NewShadow(nopEvaluator{guard.Result{DecisionID: "x", Diagnosis: guard.PassDiagnosis, Route: guard.Auto, Action: guard.Allow}},
		ShadowConfig{QueueSize: 1 << 16})
	if err != nil {
		b.Fatal(err)
	}
	defer sh.Shutdown(context.Background())
	c := Wrap(handBuilt{r: WrapRetriever(kbRetriever{}), llm: WrapLLM(&scriptedLLM{})}, WithShadow(sh))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, benchIn); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st := sh.Stats()
	b.ReportMetric(float64(st.Dropped)/float64(max(st.Offered, 1)), "dropped/op")
}

var _ = chains.Call

// BenchmarkWrapInlineEvidence: the "90 days" answer, whose scripted
// evidence (a number mismatch) goes on recording spans, their events and
// the record, without content capture.
func BenchmarkWrapInlineEvidence(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()))
	c, err := New(handBuilt{r: WrapRetriever(kbRetriever{}), llm: WrapLLM(&scriptedLLM{})}, WithGuard(testGuard(b), Gate{Block: AnnotateOnly}),
		WithTracerProvider(tp), WithSink(record.NewWriter(io.Discard)), WithSinkQueue(1<<16))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	in := map[string]any{"q": qFail}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Call(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := c.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEvidenceKinds is what the evidence kinds add to an evaluation
// with evidence: gathering them (kindsOf) and writing the span's and one
// event's attributes. The result is the embedded-style "90 days" one:
// groundedness and contradiction number mismatches.
func BenchmarkEvidenceKinds(b *testing.B) {
	r := guard.Result{Evidence: []guard.Evidence{
		{Decision: guard.Groundedness, Kind: guard.EvidenceNumberMismatch},
		{Decision: guard.Contradiction, Kind: guard.EvidenceNumberMismatch},
	}}
	b.ReportAllocs()
	for b.Loop() {
		ek := kindsOf(&r)
		_ = attribute.StringSlice(otelkeys.EvidenceKinds, ek.pairs)
		_ = attribute.StringSlice(otelkeys.EventEvidenceKinds, ek.of(guard.Groundedness, ""))
	}
}
