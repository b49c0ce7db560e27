package guard_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// gate holds the calls that enter it until it is opened, and counts how
// many are inside at once. reached is closed when want calls are inside
// together.
type gate struct {
	mu      sync.Mutex
	in, max int
	want    int
	hit     bool
	reached chan struct{}
	open    chan struct{}
}

func newGate(want int) *gate {
	return &gate{want: want, reached: make(chan struct{}), open: make(chan struct{})}
}

// opened returns a gate that holds nothing (for the reference run).
func opened() *gate {
	g := newGate(1 << 30)
	close(g.open)
	return g
}

func (g *gate) enter() {
	g.mu.Lock()
	g.in++
	g.max = max(g.max, g.in)
	if g.in == g.want && !g.hit {
		g.hit = true
		close(g.reached)
	}
	g.mu.Unlock()
	<-g.open
	g.mu.Lock()
	g.in--
	g.mu.Unlock()
}

// await fails the test unless the gate's want calls are inside together
// within a generous failsafe (the calls are only ever that many at once if
// they run concurrently), then opens it.
func (g *gate) await(t *testing.T, what string) {
	t.Helper()
	select {
	case <-g.reached:
	case <-time.After(time.Minute):
		t.Errorf("%s: never %d calls at once (max %d): not run concurrently", what, g.want, g.max)
	}
	close(g.open)
}

func (g *gate) maxIn() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

// slowJudge answers healthy probabilities for its decisions after passing
// through gate; it is not Inline, like an LLM judge.
func slowJudge(name string, gt *gate) guard.Judge {
	fixed := healthyJudge()
	fixed.Name = name
	return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		gt.enter()
		return fixed.Judge(ctx, req)
	})
}

var fixedClock = guard.WithClock(func() time.Time { return time.Unix(0, 0) })

func resultJSON(t *testing.T, r guard.Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSlowJudgesRunConcurrentlyWithABound(t *testing.T) {
	s := newSample(true, "c1", "c2")
	build := func(gt *gate, n int) *guard.Guard {
		return mustNew(t, guard.WithPolicy(testPolicy), fixedClock, guard.WithConcurrency(n),
			guard.WithJudge(slowJudge("retrieval", gt), guard.ChunkRelevance, guard.ContextSufficiency, guard.ContextConflict),
			guard.WithJudge(slowJudge("relevance", gt), guard.AnswerRelevance),
			guard.WithJudge(healthyJudge(), guard.Groundedness), // inline: runs on the caller's goroutine
			guard.WithJudge(slowJudge("contradiction", gt), guard.Contradiction, guard.Correctness))
	}
	want, err := build(opened(), 1).Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if want.Diagnosis != guard.PassDiagnosis || len(want.Errors) > 0 {
		t.Fatalf("reference run: %v %v", want.Diagnosis, want.Errors)
	}

	gt := newGate(2)
	g := build(gt, 2)
	done := make(chan guard.Result, 1)
	go func() {
		r, err := g.Evaluate(context.Background(), s)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	gt.await(t, "slow judges")
	got := <-done
	if m := gt.maxIn(); m > 2 {
		t.Errorf("%d slow judge calls at once; the bound is 2", m)
	}
	if a, b := resultJSON(t, got), resultJSON(t, want); a != b {
		t.Errorf("concurrent result differs from the sequential one:\n%s\n%s", a, b)
	}
}

func TestClaimsAreJudgedAndEscalatedInBoundedBatches(t *testing.T) {
	claims := []string{"Refunds take five days", "They are free", "They need a receipt", "Stores accept them", "Online orders too", "Gift cards are excluded"}
	s := newSample(false, "c1")
	s.Answer = strings.Join(claims, ". ")
	split := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return strings.Split(s.Answer, ". "), nil
	})
	// Four claims are uncertain and escalated; the fallback settles three
	// and fails one.
	probs := map[string]float64{claims[0]: 0.95, claims[1]: 0.5, claims[2]: 0.5, claims[3]: 0.5, claims[4]: 0.5, claims[5]: 0.9}
	fbProbs := map[string]float64{claims[1]: 0.95, claims[2]: 0.9, claims[3]: 0.05, claims[4]: 0.99}
	build := func(judgeGate, escGate *gate, n int) *guard.Guard {
		inner := claimJudge(probs)
		j := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
			if !strings.Contains(req.Sample.Answer, ". ") { // a claim, not the whole answer
				judgeGate.enter()
			}
			return inner.Judge(ctx, req)
		})
		fbInner := claimJudge(fbProbs)
		fb := guard.EscalatorFunc(func(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
			escGate.enter()
			return fbInner.Judge(ctx, esc.Request)
		})
		return mustNew(t, guard.WithJudge(j), guard.WithPolicy(testPolicy), guard.WithClaims(split), fixedClock,
			guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithConcurrency(n))
	}
	want, err := build(opened(), opened(), 1).Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Claims) != len(claims) || want.Fallback == nil || want.Fallback.Settled != 4 ||
		want.Verdicts.Generation.Groundedness != guard.Fail || want.Claims[3].Verdict != guard.Fail {
		t.Fatalf("reference run: claims %+v fallback %+v", want.Claims, want.Fallback)
	}

	jg, eg := newGate(3), newGate(3)
	g := build(jg, eg, 3)
	done := make(chan guard.Result, 1)
	go func() {
		r, err := g.Evaluate(context.Background(), s)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	jg.await(t, "claim judging")
	eg.await(t, "claim escalation")
	got := <-done
	if m := jg.maxIn(); m > 3 {
		t.Errorf("%d claim judge calls at once; the bound is 3", m)
	}
	if m := eg.maxIn(); m > 3 {
		t.Errorf("%d claim escalations at once; the bound is 3", m)
	}
	if a, b := resultJSON(t, got), resultJSON(t, want); a != b {
		t.Errorf("concurrent result differs from the sequential one:\n%s\n%s", a, b)
	}
}

func TestInlineClaimJudgeRunsOnTheCaller(t *testing.T) {
	// An inline judge (guardtest.Fixed) is never called concurrently: the
	// claims are judged one after another whatever the bound.
	var mu sync.Mutex
	in, most := 0, 0
	inner := guardtest.Fixed{Name: "inline", P: healthy()}
	j := inlineJudge{guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		mu.Lock()
		in++
		most = max(most, in)
		mu.Unlock()
		defer func() { mu.Lock(); in--; mu.Unlock() }()
		return inner.Judge(ctx, req)
	})}
	split := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return []string{"a", "b", "c", "d"}, nil
	})
	g := mustNew(t, guard.WithJudge(j), guard.WithPolicy(testPolicy), guard.WithClaims(split), guard.WithConcurrency(4))
	if _, err := g.Evaluate(context.Background(), newSample(false, "c1")); err != nil {
		t.Fatal(err)
	}
	if most != 1 {
		t.Errorf("%d inline judge calls at once; want 1", most)
	}
}

type inlineJudge struct{ j guard.Judge }

func (i inlineJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	return i.j.Judge(ctx, req)
}

func (inlineJudge) Inline() bool { return true }

func TestWithConcurrencyRefusesNonPositive(t *testing.T) {
	for _, n := range []int{0, -1} {
		if _, err := guard.New(guard.WithConcurrency(n)); err == nil {
			t.Errorf("WithConcurrency(%d) accepted", n)
		}
	}
}

func TestResultFieldsByDecision(t *testing.T) {
	var r guard.Result
	for i, d := range guard.Decisions[1:] {
		if _, ok := r.Verdict(d); ok != (d != guard.Correctness) {
			t.Errorf("%v: verdict present %v in the zero result", d, ok)
		}
		p := guard.KnownProb(float64(i+1) / 10)
		r.Set(d, p, guard.Fail)
		if got := r.Prob(d); got != p {
			t.Errorf("%v: Prob = %+v; want %+v", d, got, p)
		}
		if v, ok := r.Verdict(d); !ok || v != guard.Fail {
			t.Errorf("%v: Verdict = %v, %v; want fail", d, v, ok)
		}
	}
	if r.Retrieval.ContextSufficiency.Value != 0.1 || r.Generation.Correctness.Value != 0.6 || *r.Verdicts.Generation.Correctness != guard.Fail {
		t.Errorf("fields: %+v", r)
	}
	if p := r.Prob(guard.ChunkRelevance); p.Asked {
		t.Errorf("Prob(ChunkRelevance) = %+v; want absent", p)
	}
	defer func() {
		if recover() == nil {
			t.Error("Set(ChunkRelevance) did not panic")
		}
	}()
	r.Set(guard.ChunkRelevance, guard.KnownProb(1), guard.Pass)
}
