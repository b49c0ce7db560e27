package ragtriage_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
)

var refundSample = guard.Sample{
	Question: "How long do I have to ask for a refund?",
	Contexts: []guard.Context{{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase."}},
	Answer:   "You can get a full refund within 90 days.",
}

// With no options: the embedded judges under the shipped profile, nothing
// to close.
func TestNewEmbeddedOnly(t *testing.T) {
	g, err := ragtriage.New()
	if err != nil {
		t.Fatal(err)
	}
	if g.Cascade() != nil {
		t.Error("a cascade without WithFallback")
	}
	if g.Policy() != lexical.DefaultProfile().Policy {
		t.Errorf("policy %+v; want the shipped profile's", g.Policy())
	}
	res, err := g.Evaluate(context.Background(), refundSample)
	if err != nil {
		t.Fatal(err)
	}
	if res.Diagnosis != guard.JudgeUncertain || res.Action != guard.Review || res.Fallback != nil {
		t.Errorf("embedded only: %s %s fallback %+v; want JUDGE_UNCERTAIN review, no fallback", res.Diagnosis, res.Action, res.Fallback)
	}
	if err := g.Close(context.Background()); err != nil {
		t.Error(err)
	}
}

// The README's old fallback snippet, error ignored: a nil *llmjudge.Judge
// is refused with an error, not a panic.
func TestNewRefusesTypedNilFallback(t *testing.T) {
	fb, keyErr := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{Model: "gpt-4o-mini", APIKey: ""})
	if !errors.Is(keyErr, llmjudge.ErrNoAPIKey) {
		t.Fatalf("NewOpenAI without a key: %v", keyErr)
	}
	g, err := ragtriage.New(ragtriage.WithFallback(fb, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
	if err == nil || g != nil || !strings.Contains(err.Error(), "nil *llmjudge.Judge") {
		t.Fatalf("New(WithFallback(nil *llmjudge.Judge)) = %v, %v; want an error naming it", g, err)
	}
	if _, err := ragtriage.New(ragtriage.WithFallback(nil, guard.UniformPolicy(0.3, 0.7), guard.FailClosed)); err == nil {
		t.Error("nil fallback accepted")
	}
}

// countingJudge is a simulated fallback that counts its calls and answers
// every decision healthy.
type countingJudge struct {
	calls atomic.Int64
	block chan struct{} // when set, each call waits for it (or ctx)
}

func (j *countingJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	j.calls.Add(1)
	if j.block != nil {
		select {
		case <-j.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return simulatedLLMJudge{}.Judge(ctx, req)
}

// A zero fallback policy is refused before any call, with an error that
// says what to pass.
func TestNewRefusesZeroFallbackPolicy(t *testing.T) {
	fb := &countingJudge{}
	_, err := ragtriage.New(ragtriage.WithFallback(fb, guard.Policy{}, guard.FailClosed))
	if err == nil || !strings.Contains(err.Error(), "guard.UniformPolicy") {
		t.Fatalf("zero fallback policy: %v; want a refusal naming guard.UniformPolicy", err)
	}
	if fb.calls.Load() != 0 {
		t.Errorf("fallback called %d times", fb.calls.Load())
	}
}

// A loaded profile brings its thresholds and pass rule; one fitted on other
// features is refused with how to refit it; a profile given twice is an
// error.
func TestNewProfile(t *testing.T) {
	p := lexical.DefaultProfile()
	p.Version = "test-calibrated"
	p.Policy = guard.UniformPolicy(0.2, 0.8)
	p.Policy.PassRule = guard.PassGrounded
	path := writeJSON(t, "profile.json", p)
	for name, opt := range map[string]ragtriage.Option{
		"WithProfile":     ragtriage.WithProfile(p),
		"WithProfileFile": ragtriage.WithProfileFile(path),
	} {
		g, err := ragtriage.New(opt)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if g.Policy() != p.Policy {
			t.Errorf("%s: policy %+v; want the profile's", name, g.Policy())
		}
	}
	old := *p
	old.FeaturesVersion = "lexical-features/1"
	_, err := ragtriage.New(ragtriage.WithProfileFile(writeJSON(t, "old.json", &old)))
	if err == nil || !strings.Contains(err.Error(), "ragtriage calibrate") {
		t.Errorf("profile of other features: %v; want a refusal that says how to refit", err)
	}
	if _, err := ragtriage.New(ragtriage.WithProfile(p), ragtriage.WithProfileFile(path)); err == nil {
		t.Error("two profiles accepted")
	}
	if _, err := ragtriage.New(ragtriage.WithProfileFile(filepath.Join(t.TempDir(), "missing.json"))); err == nil {
		t.Error("missing profile file accepted")
	}
}

// Close stops the cascade: escalations after it abstain (the degrade rule
// applies, never a pass), and it waits for a call under way until its ctx
// ends.
func TestClose(t *testing.T) {
	fb := &countingJudge{block: make(chan struct{})}
	g, err := ragtriage.New(ragtriage.WithFallback(fb, guard.UniformPolicy(0.3, 0.7), guard.FailClosed,
		cascade.WithLimits(cascade.Limits{CallTimeout: time.Minute})))
	if err != nil {
		t.Fatal(err)
	}
	// One evaluation under way, its fallback call blocked.
	done := make(chan guard.Result, 1)
	go func() {
		res, _ := g.Evaluate(context.Background(), refundSample)
		done <- res
	}()
	for fb.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	// Close waits for it: with a context that ends, it says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close with a call under way and a cancelled ctx = %v; want context.Canceled", err)
	}
	close(fb.block)
	<-done
	if err := g.Close(context.Background()); err != nil {
		t.Errorf("Close once the call ended: %v", err)
	}
	other := refundSample // not in the cascade's cache
	other.Answer = "You can get a full refund within 60 days."
	res, err := g.Evaluate(context.Background(), other)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback == nil || res.Fallback.Cause != guard.CauseClosed || res.Action != guard.Block {
		t.Errorf("after Close: fallback %+v action %s; want unsettled (%q) and blocked", res.Fallback, res.Action, guard.CauseClosed)
	}
	if n := fb.calls.Load(); n != 1 {
		t.Errorf("fallback called %d times; want 1 (none after Close)", n)
	}
}

// Guard options apply after the defaults: an explicit policy wins.
func TestNewGuardOptions(t *testing.T) {
	pol := guard.UniformPolicy(0.1, 0.9)
	g, err := ragtriage.New(ragtriage.WithGuardOptions(guard.WithPolicy(pol)))
	if err != nil {
		t.Fatal(err)
	}
	if g.Policy() != pol {
		t.Errorf("policy %+v; want the explicit one", g.Policy())
	}
	if _, err := ragtriage.New(ragtriage.WithGuardOptions(guard.WithClock(nil))); err == nil {
		t.Error("invalid guard option accepted")
	}
}

func writeJSON(t *testing.T, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
