package middleware

import (
	"context"
	"maps"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// The test knowledge base: one document per question, and the answers the
// scripted LLM gives.
var testDocs = map[string]schema.Document{
	"capital": {PageContent: "Paris is the capital and largest city of France.", Metadata: map[string]any{"id": "geo/france"}, Score: 0.9},
	"refund":  {PageContent: "Customers may request a full refund within 30 days of purchase.", Metadata: map[string]any{"id": "policy/refunds"}, Score: 0.8},
	"ship":    {PageContent: "Standard shipping takes 5 to 7 business days. Express shipping costs extra.", Metadata: map[string]any{"id": "policy/shipping"}, Score: 0.7},
}

const (
	qPass     = "What is the capital of France?"
	qFail     = "How long do I have to ask for a refund?"
	qEscalate = "How long does standard shipping take?"
	aPass     = "Paris is the capital of France."
	aFail     = "You can get a full refund within 90 days of purchase."
	aEscalate = "Shipping takes a few business days."
)

var answers = map[string]string{qPass: aPass, qFail: aFail, qEscalate: aEscalate}

// kbRetriever returns the document whose key appears in the query.
type kbRetriever struct{}

func (kbRetriever) GetRelevantDocuments(ctx context.Context, q string) ([]schema.Document, error) {
	lq := strings.ToLower(q)
	for _, k := range []string{"capital", "refund", "ship"} {
		if strings.Contains(lq, k) {
			return []schema.Document{testDocs[k]}, nil
		}
	}
	return nil, nil
}

// scriptedLLM answers a prompt containing a known question with its answer;
// a condense-question prompt (it holds "Follow Up Input") with the standalone
// question condensed; anything else with "I don't know." Goroutine-safe.
type scriptedLLM struct {
	mu        sync.Mutex
	prompts   []string
	condensed string
}

func (m *scriptedLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	var p strings.Builder
	for _, msg := range msgs {
		for _, part := range msg.Parts {
			if t, ok := part.(llms.TextContent); ok {
				p.WriteString(t.Text)
			}
		}
	}
	prompt := p.String()
	m.mu.Lock()
	m.prompts = append(m.prompts, prompt)
	condensed := m.condensed
	m.mu.Unlock()
	out := "I don't know."
	switch {
	case strings.Contains(prompt, "Follow Up Input") && condensed != "":
		out = condensed
	default:
		for q, a := range answers {
			if strings.Contains(prompt, q) {
				out = a
			}
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: out, StopReason: "stop",
		GenerationInfo: map[string]any{"PromptTokens": 42, "CompletionTokens": 7}}}}, nil
}

func (m *scriptedLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// testPolicy is a hand-set test policy (not calibrated): every decision is
// a confident negative at P ≤ 0.2 and a confident positive at P ≥ 0.8.
func testPolicy() guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	return p
}

// scriptedJudge is a deterministic judge for these tests: it answers from a
// fixed script keyed by the sample's answer, so that under testPolicy the
// three test answers pass (aPass), fail confidently (aFail:
// GENERATOR_UNGROUNDED, with evidence quoting the answer and the context
// like a real judge's) and stay uncertain (aEscalate: groundedness at 0.5),
// whatever the embedded judges' shipped profile decides. These tests
// exercise the middleware's handling of each outcome, not a judge; the
// examples (examples/internal/demo) run the embedded judges under their
// shipped policy with a fallback judge. Any other answer gets 0.5 for
// everything (all uncertain). It does no I/O and is safe for concurrent use.
type scriptedJudge struct{}

// healthy is every decision confidently healthy (for conflict and
// contradiction, true is the bad outcome).
var healthy = map[guard.Decision]float64{guard.ContextConflict: 0.05, guard.Contradiction: 0.05}

func withP(d guard.Decision, p float64) map[guard.Decision]float64 {
	m := maps.Clone(healthy)
	m[d] = p
	return m
}

var judgeScript = map[string]guardtest.Fixed{
	aPass:     {Default: 0.95, P: healthy},
	aFail:     {Default: 0.95, P: withP(guard.Groundedness, 0.05)},
	aEscalate: {Default: 0.95, P: withP(guard.Groundedness, 0.5)},
}

func (scriptedJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	f, ok := judgeScript[req.Sample.Answer]
	if !ok {
		f = guardtest.Fixed{Default: 0.5}
	}
	f.Name = "middleware-test/scripted"
	ests, err := f.Judge(ctx, req)
	if err != nil || !ok || len(req.Sample.Contexts) == 0 {
		return ests, err
	}
	// The citation and evidence a real judge gives: user text that must
	// stay off the spans unless WithContent says otherwise.
	a, c := req.Sample.Answer, req.Sample.Contexts[0]
	cite := guard.Citation{Sentence: guard.Quote{Source: guard.SourceAnswer, End: len(a), Text: a}, Support: 1, Supported: true,
		Context: guard.Quote{Source: guard.SourceContext, ContextID: c.ID, End: len(c.Text), Text: c.Text}}
	var ev []guard.Evidence
	if a == aFail {
		cite.Support, cite.Supported, cite.Context = 0.4, false, guard.Quote{}
		if i, k := strings.Index(a, "90 days"), strings.Index(c.Text, "30 days"); i >= 0 && k >= 0 {
			ev = []guard.Evidence{{Decision: guard.Groundedness, Kind: guard.EvidenceNumberMismatch,
				Detail:      "the answer says 90 days where the context says 30 days",
				Quote:       guard.Quote{Source: guard.SourceAnswer, Start: i, End: i + len("90 days"), Text: "90 days"},
				Counterpart: guard.Quote{Source: guard.SourceContext, ContextID: c.ID, Start: k, End: k + len("30 days"), Text: "30 days"}}}
		}
	}
	for i := range ests {
		if ests[i].Decision == guard.Groundedness {
			ests[i].Citations, ests[i].Evidence = []guard.Citation{cite}, ev
		}
	}
	return ests, nil
}

func (scriptedJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "middleware-test/scripted", Version: guardtest.FakeVersion}
}

func (scriptedJudge) Inline() bool { return true }

// testGuard is scriptedJudge under testPolicy.
func testGuard(t testing.TB) *guard.Guard {
	t.Helper()
	g, err := guard.New(guard.WithJudge(scriptedJudge{}), guard.WithPolicy(testPolicy()))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

type telemetryKit struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	mp     *sdkmetric.MeterProvider
}

func newTelemetry(t testing.TB) *telemetryKit {
	k := &telemetryKit{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	k.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(k.spans))
	k.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(k.reader))
	return k
}

func (k *telemetryKit) opts() []Option {
	return []Option{WithTracerProvider(k.tp), WithMeterProvider(k.mp)}
}

// sum returns the value of an Int64 counter summed over the data points whose
// attributes include want (key=value).
func (k *telemetryKit) sum(t testing.TB, name string, want map[string]string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := k.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			s, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s is %T, not an int64 sum", name, m.Data)
			}
		point:
			for _, dp := range s.DataPoints {
				for key, v := range want {
					got, ok := dp.Attributes.Value(attributeKey(key))
					if !ok || got.AsString() != v {
						continue point
					}
				}
				total += dp.Value
			}
		}
	}
	return total
}

// histCount returns the number of recordings of a float64 histogram.
func (k *telemetryKit) histCount(t testing.TB, name string) uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := k.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == name {
				for _, dp := range h.DataPoints {
					n += dp.Count
				}
			}
		}
	}
	return n
}

// shutdownChain shuts a wrapped chain's record queue down, so that its
// records are written, and fails the test if any was dropped or lost.
func shutdownChain(t testing.TB, c chains.Chain) {
	t.Helper()
	w, ok := c.(*Chain)
	if !ok {
		t.Fatalf("%T is not a *Chain", c)
	}
	if err := w.Shutdown(context.Background()); err != nil {
		t.Fatalf("Chain.Shutdown: %v", err)
	}
}
