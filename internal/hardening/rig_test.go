package hardening

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
	"github.com/ragtriage/ragtriage/middleware"
)

// Every test of the package must leave no goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// waitFor returns once cond holds, checking every millisecond. It has no
// time limit of its own: go test's -timeout ends a test that waits forever.
func waitFor(cond func() bool) {
	for !cond() {
		time.Sleep(time.Millisecond)
	}
}

// skipIfShort skips a load, soak, fault or stall test under -short. These
// tests take seconds each. CI runs them once, with -v so that their figures
// are in its log (.ci/steps/40-hardening.sh).
func skipIfShort(t *testing.T, kind string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s test: skipped under -short (CI runs it in .ci/steps/40-hardening.sh)", kind)
	}
}

// refundSample is a row the embedded judges (default profile) leave
// JUDGE_UNCERTAIN and escalate: sufficiency, conflict, relevance,
// groundedness and contradiction go to the fallback. i makes the texts
// unique, so that the cascade's cache does not answer for the fallback.
func refundSample(i int) guard.Sample {
	return guard.Sample{
		ID:       fmt.Sprint("row-", i),
		Question: fmt.Sprintf("What is the refund window for order %d?", i),
		Contexts: []guard.Context{
			{ID: "c1", Text: fmt.Sprintf("Refunds are accepted within 30 days of delivery. Order %d shipped on time.", i)},
			{ID: "c2", Text: "Shipping takes three to five business days."},
		},
		Answer: "You can get a refund within 30 days of delivery.",
	}
}

// goodModel answers like a competent judge on refundSample rows (a
// simulation): a quoted yes for groundedness, no for conflict and
// contradiction, yes otherwise.
func goodModel(r fakeopenai.Request) fakeopenai.Reply {
	sys := r.Role("system")
	switch {
	case strings.Contains(sys, "QUOTE [context id]"):
		return fakeopenai.YesNo(0.95, "Yes\nQUOTE [c1]: Refunds are accepted within 30 days of delivery")
	case strings.Contains(sys, "contradict"), strings.Contains(sys, "materially disagree"):
		return fakeopenai.YesNo(0.04, "No")
	}
	return fakeopenai.YesNo(0.96, "Yes")
}

// fallbackPolicy reads the fallback's probabilities.
func fallbackPolicy() guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	return p
}

// stack is the full evaluation path: the embedded judges inline, and a
// cascade around an LLM judge that speaks real HTTP, through langchaingo's
// OpenAI client, to a fake OpenAI-compatible server (a simulation).
type stack struct {
	srv  *fakeopenai.Server
	c    *cascade.Cascade
	g    *guard.Guard
	base *http.Transport
}

type stackConfig struct {
	rule      guard.Degrade
	limits    cascade.Limits
	breaker   *gobreaker.Settings
	cacheSize int
	parallel  int
	mp        metric.MeterProvider // nil: the global one
}

func newStack(t testing.TB, model fakeopenai.Model, cfg stackConfig) *stack {
	t.Helper()
	srv := fakeopenai.New(model)
	base := &http.Transport{MaxIdleConnsPerHost: 64}
	if cfg.parallel == 0 {
		cfg.parallel = 5
	}
	j, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{
		BaseURL: srv.URL, Model: "judge-model", APIKey: "test-key",
		MaxRetries: 1, MaxRetryWait: 20 * time.Millisecond, Base: base,
		Judge: llmjudge.Config{Mode: llmjudge.LogprobsOnly, Parallel: cfg.parallel},
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := []cascade.Option{cascade.WithLimits(cfg.limits), cascade.WithCacheSize(cfg.cacheSize)}
	if cfg.breaker != nil {
		opts = append(opts, cascade.WithBreakerSettings(*cfg.breaker))
	}
	if cfg.mp != nil {
		opts = append(opts, cascade.WithMeterProvider(cfg.mp))
	}
	c, err := cascade.New(j, opts...)
	if err != nil {
		t.Fatal(err)
	}
	prim, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.WithJudge(prim), guard.WithPolicy(prim.Policy()),
		guard.WithEscalator(c, fallbackPolicy(), cfg.rule))
	if err != nil {
		t.Fatal(err)
	}
	st := &stack{srv: srv, c: c, g: g, base: base}
	t.Cleanup(st.close)
	return st
}

func (s *stack) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.c.Close(ctx)
	s.srv.Close()
	s.base.CloseIdleConnections()
}

// The knowledge base of the chain tests: three questions whose scripted
// answers kbGuard passes, fails and escalates (the first three cases of
// examples/internal/demo, which this package cannot import; there the
// shipped policy escalates all three, here kbJudge's script decides).
var kbCases = []struct{ name, question, answer, doc, docID string }{
	{"pass", "What is the capital of France?", "Paris is the capital of France.",
		"Paris is the capital and largest city of France.", "geo/france"},
	{"fail", "How long do I have to ask for a refund?", "You can get a full refund within 90 days of purchase.",
		"Customers may request a full refund within 30 days of purchase.", "policy/refunds"},
	{"escalate", "How long does standard shipping take?", "Shipping takes a few business days.",
		"Standard shipping takes 5 to 7 business days. Express shipping costs extra.", "policy/shipping"},
}

// kbRetriever returns the document of the case whose question is asked.
// Safe for concurrent use.
type kbRetriever struct{}

func (kbRetriever) GetRelevantDocuments(ctx context.Context, q string) ([]schema.Document, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, c := range kbCases {
		if strings.Contains(q, c.question) {
			return []schema.Document{{PageContent: c.doc, Metadata: map[string]any{"id": c.docID}, Score: 0.8}}, nil
		}
	}
	return []schema.Document{}, nil
}

// kbLLM is a scripted model (a simulation): it answers a prompt holding one
// of the cases' questions with that case's answer. Safe for concurrent use.
type kbLLM struct{}

func (kbLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var p strings.Builder
	for _, m := range msgs {
		for _, part := range m.Parts {
			if t, ok := part.(llms.TextContent); ok {
				p.WriteString(t.Text)
			}
		}
	}
	answer := "I don't know."
	for _, c := range kbCases {
		if strings.Contains(p.String(), c.question) {
			answer = c.answer
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer, StopReason: "stop"}}}, nil
}

func (m kbLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// kbPolicy is a hand-set test policy (not a calibrated one, and not the
// shipped profile's): every decision is a confident negative at P ≤ 0.2 and
// a confident positive at P ≥ 0.8. It does not change when the profile is
// refitted.
func kbPolicy(t testing.TB) guard.Policy {
	t.Helper()
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// kbScript holds, per knowledge-base answer, the probabilities kbJudge
// reports: under kbPolicy the right answer passes, the wrong number of days
// is GENERATOR_UNGROUNDED and the vague answer's groundedness is uncertain
// (escalated). Decisions not listed are confidently healthy.
var kbScript = map[string]map[guard.Decision]float64{
	kbCases[0].answer: {},
	kbCases[1].answer: {guard.Groundedness: 0.05, guard.Contradiction: 0.95},
	kbCases[2].answer: {guard.Groundedness: 0.5},
}

// kbJudge is the embedded judges with their probabilities for the
// knowledge base's three answers replaced by kbScript's: the embedded judges
// still run on every sample (their cost, evidence and citations are real,
// and any other text is judged by them unchanged), but what the chain tests
// see for the three answers does not depend on the shipped profile, which
// escalates all three. Safe for concurrent use.
type kbJudge struct{ lex *lexical.Judge }

func (j kbJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	ests, err := j.lex.Judge(ctx, req)
	script, ok := kbScript[req.Sample.Answer]
	if err != nil || !ok {
		return ests, err
	}
	for i := range ests {
		e := &ests[i]
		p, listed := script[e.Decision]
		if !listed {
			p = 0.95
			if e.Decision == guard.ContextConflict || e.Decision == guard.Contradiction {
				p = 0.05 // true is the bad outcome
			}
		}
		e.P, e.Abstained, e.Reason = p, false, ""
	}
	return ests, nil
}

func (j kbJudge) Describe() guard.JudgeInfo {
	info := j.lex.Describe()
	info.Name += "+hardening-script"
	return info
}

func (kbJudge) Inline() bool { return true }

// kbGuard is kbJudge under kbPolicy.
func kbGuard(t testing.TB, opts ...guard.Option) *guard.Guard {
	t.Helper()
	lex, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(append([]guard.Option{guard.WithJudge(kbJudge{lex}), guard.WithPolicy(kbPolicy(t))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestKBGuard checks kbGuard's premise: without a fallback, the three
// knowledge-base answers pass, fail and stay uncertain, and any other text
// is judged by the embedded judges unchanged.
func TestKBGuard(t *testing.T) {
	g := kbGuard(t)
	want := map[string]guard.Diagnosis{"pass": guard.PassDiagnosis, "fail": guard.GeneratorUngrounded, "escalate": guard.JudgeUncertain}
	for _, c := range kbCases {
		res, err := g.Evaluate(context.Background(), guard.Sample{Question: c.question, Answer: c.answer,
			Contexts: []guard.Context{{ID: c.docID, Text: c.doc}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Diagnosis != want[c.name] || (c.name == "escalate") != (res.Route == guard.RouteReview) {
			t.Errorf("%s: %s route %s (%s); want %s", c.name, res.Diagnosis, res.Route, res.Reason, want[c.name])
		}
		if len(res.Citations) == 0 {
			t.Errorf("%s: no citations: the embedded judges did not run", c.name)
		}
	}
	lex, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := refundSample(7)
	req := guard.Request{Sample: &s, Decisions: []guard.Decision{guard.Groundedness, guard.AnswerRelevance}}
	a, errA := kbJudge{lex}.Judge(context.Background(), req)
	b, errB := lex.Judge(context.Background(), req)
	if errA != nil || errB != nil || len(a) != len(b) || a[0].P != b[0].P || a[1].P != b[1].P {
		t.Errorf("another text: kbJudge %+v, %v; the embedded judges %+v, %v", a, errA, b, errB)
	}
}

// kbChain is a RetrievalQA over the knowledge base, wrapped with opts.
func kbChain(t testing.TB, opts ...middleware.Option) chains.Chain {
	t.Helper()
	qa := chains.NewRetrievalQAFromLLM(kbLLM{}, kbRetriever{})
	c, err := middleware.New(qa, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
