package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// escalator answers escalations with a judge and records what it was asked.
type escalator struct {
	judge guard.Judge
	mu    sync.Mutex
	asked []guard.Escalation
}

func (e *escalator) Escalate(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	e.mu.Lock()
	e.asked = append(e.asked, esc)
	e.mu.Unlock()
	return e.judge.Judge(ctx, esc.Request)
}

func (e *escalator) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "fallback", Version: "f1"}
}

// uncertainGroundedness is healthy except for an uncertain groundedness.
func uncertainGroundedness() guardtest.Fixed {
	p := healthy()
	p[guard.Groundedness] = 0.5
	return guardtest.Fixed{Name: "primary", P: p}
}

func TestEscalateSettlesUncertainDecision(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fallbackP float64
		diagnosis guard.Diagnosis
		action    guard.Action
	}{
		{"fallback passes", 0.95, guard.PassDiagnosis, guard.Allow},
		{"fallback fails", 0.05, guard.GeneratorUngrounded, guard.Block},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fb := &escalator{judge: guardtest.Fixed{Name: "llm", Default: tc.fallbackP}}
			g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
				guard.WithEscalator(fb, testPolicy, guard.FailClosed))
			res, err := g.Evaluate(context.Background(), newSample(false, "c1"))
			if err != nil {
				t.Fatal(err)
			}
			if len(fb.asked) != 1 || !slices.Equal(fb.asked[0].Decisions, []guard.Decision{guard.Groundedness}) {
				t.Fatalf("escalated %v, want only groundedness", fb.asked)
			}
			if res.Diagnosis != tc.diagnosis || res.Action != tc.action || res.Route != guard.Fallback {
				t.Errorf("diagnosis %v action %v route %v, want %v %v fallback", res.Diagnosis, res.Action, res.Route, tc.diagnosis, tc.action)
			}
			if got := res.Generation.Groundedness; !got.Known || got.Value != tc.fallbackP {
				t.Errorf("groundedness = %+v, want the fallback's %v", got, tc.fallbackP)
			}
			f := res.Fallback
			if f == nil || f.Settled != 1 || f.Unsettled != 0 || f.Judge != "fallback" {
				t.Fatalf("fallback info = %+v", f)
			}
			if res.Judges["fallback"] != "f1" {
				t.Errorf("judges = %v", res.Judges)
			}
		})
	}
}

func TestEscalateNotCalledWhenPrimaryDecides(t *testing.T) {
	for _, p := range []float64{0.9, 0.05} {
		probs := healthy()
		probs[guard.Groundedness] = p
		fb := &escalator{judge: guardtest.Fixed{Default: 0.5}}
		g := mustNew(t, guard.WithJudge(guardtest.Fixed{P: probs}), guard.WithPolicy(testPolicy),
			guard.WithEscalator(fb, testPolicy, guard.FailOpen))
		res, err := g.Evaluate(context.Background(), newSample(false, "c1"))
		if err != nil {
			t.Fatal(err)
		}
		if len(fb.asked) != 0 || res.Fallback != nil || res.Route != guard.Auto {
			t.Errorf("P=%v: escalated %d times, fallback %+v, route %v", p, len(fb.asked), res.Fallback, res.Route)
		}
	}
}

func TestEscalateUnsettledAppliesDegradeRule(t *testing.T) {
	abstain := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			out = append(out, guard.Abstain(d, "", "circuit breaker open"))
		}
		return out, nil
	})
	failing := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
		return nil, errors.New("503 from fallback")
	})
	for _, tc := range []struct {
		name   string
		judge  guard.Judge
		rule   guard.Degrade
		action guard.Action
		reason string
		err    bool
		cause  guard.Cause
	}{
		{"abstains, fail closed", abstain, guard.FailClosed, guard.Block, "circuit breaker open", false, guard.CauseFallbackAbstained},
		{"abstains, fail open", abstain, guard.FailOpen, guard.Allow, "circuit breaker open", false, guard.CauseFallbackAbstained},
		{"errors, fail closed", failing, guard.FailClosed, guard.Block, "503 from fallback", true, guard.CauseFallbackFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
				guard.WithEscalator(&escalator{judge: tc.judge}, testPolicy, tc.rule))
			res, everr := g.Evaluate(context.Background(), newSample(false, "c1"))
			if everr != nil {
				t.Fatalf("Evaluate error = %v; want nil (the result says what failed)", everr)
			}
			err := res.Err()
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if tc.err && !errors.Is(err, guard.ErrJudge) {
				t.Errorf("error %v does not wrap ErrJudge", err)
			}
			if res.Diagnosis != guard.JudgeUncertain || res.Action != tc.action {
				t.Errorf("diagnosis %v action %v, want JUDGE_UNCERTAIN %v", res.Diagnosis, res.Action, tc.action)
			}
			if res.Verdicts.Generation.Groundedness != guard.Uncertain {
				t.Errorf("groundedness verdict %v, want uncertain", res.Verdicts.Generation.Groundedness)
			}
			// The primary's probability stays visible.
			if g := res.Generation.Groundedness; !g.Known || g.Value != 0.5 {
				t.Errorf("groundedness = %+v, want the primary's 0.5", g)
			}
			f := res.Fallback
			if f == nil || f.Unsettled != 1 || f.Settled != 0 || !strings.Contains(f.Reason, tc.reason) || f.Rule != tc.rule {
				t.Fatalf("fallback info = %+v", f)
			}
			if f.Cause != tc.cause || !maps.Equal(f.Causes, map[guard.Cause]int{tc.cause: 1}) || !errors.Is(f.Err(), tc.cause.Err()) {
				t.Errorf("fallback cause %q, causes %v, Err() %v; want %q once", f.Cause, f.Causes, f.Err(), tc.cause)
			}
			if tc.err && !errors.Is(err, tc.cause.Err()) {
				t.Errorf("Result.Err() = %v; want it to wrap %v", err, tc.cause.Err())
			}
		})
	}
}

func TestEscalateChunksOnlyWhenNoneRelevant(t *testing.T) {
	p := healthy()
	delete(p, guard.ChunkRelevance)
	primary := guardtest.Fixed{P: p, Chunks: map[string]float64{"c1": 0.5, "c2": 0.1, "c3": 0.6}}
	fb := &escalator{judge: guardtest.Fixed{Chunks: map[string]float64{"c1": 0.9, "c3": 0.1}}}
	g := mustNew(t, guard.WithJudge(primary), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed))
	res, err := g.Evaluate(context.Background(), newSample(false, "c1", "c2", "c3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.asked) != 1 || !slices.Equal(fb.asked[0].ContextIDs, []string{"c1", "c3"}) {
		t.Fatalf("escalations = %+v, want chunks c1 and c3", fb.asked)
	}
	if res.Diagnosis != guard.PassDiagnosis || res.Fallback.Settled != 2 {
		t.Errorf("diagnosis %v, fallback %+v", res.Diagnosis, res.Fallback)
	}
	want := []guard.Verdict{guard.Pass, guard.Fail, guard.Fail}
	for i, e := range res.Verdicts.Retrieval.ChunkRelevance {
		if e.Value != want[i] {
			t.Errorf("chunk %s verdict %v, want %v", e.Key, e.Value, want[i])
		}
	}

	// With one chunk already relevant, uncertain chunks are not escalated.
	primary.Chunks["c2"] = 0.95
	fb.asked = nil
	g = mustNew(t, guard.WithJudge(primary), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed))
	res, _ = g.Evaluate(context.Background(), newSample(false, "c1", "c2", "c3"))
	if len(fb.asked) != 0 || res.Diagnosis != guard.PassDiagnosis {
		t.Errorf("escalated %+v, diagnosis %v", fb.asked, res.Diagnosis)
	}
}

func TestEscalateRejectsUnaskedEstimates(t *testing.T) {
	rogue := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.AnswerRelevance, P: 1}}, nil
	})
	g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(&escalator{judge: rogue}, testPolicy, guard.FailClosed))
	res, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); !errors.Is(err, guard.ErrJudge) || !errors.Is(err, guard.ErrFallbackFailed) || res.Action != guard.Block || res.Fallback.Unsettled != 1 {
		t.Errorf("err %v action %v fallback %+v", err, res.Action, res.Fallback)
	}
}

func TestEscalateHonoursDeadline(t *testing.T) {
	hang := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
		select {} // ignores cancellation entirely
	})
	g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(&escalator{judge: hang}, testPolicy, guard.FailOpen))
	ctx, cancel := context.WithTimeout(context.Background(), 20_000_000) // 20ms
	defer cancel()
	res, err := g.Evaluate(ctx, newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, guard.ErrFallbackDeadline) {
		t.Fatalf("Result.Err() = %v, want a deadline error", err)
	}
	if f := res.Fallback; f == nil || f.Cause != guard.CauseDeadline || !errors.Is(f.Err(), guard.ErrFallbackDeadline) {
		t.Errorf("fallback info = %+v; want cause deadline", f)
	}
	if res.Diagnosis != guard.JudgeUncertain || res.Action != guard.Allow {
		t.Errorf("diagnosis %v action %v", res.Diagnosis, res.Action)
	}
}

func TestActionWithoutEscalator(t *testing.T) {
	g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy))
	res, _ := g.Evaluate(context.Background(), newSample(false, "c1"))
	if res.Action != guard.Review {
		t.Errorf("action %v, want review", res.Action)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"action":"review"`) || strings.Contains(string(b), `"fallback":{`) {
		t.Errorf("JSON = %s", b)
	}
}

func TestWithEscalatorValidates(t *testing.T) {
	if _, err := guard.New(guard.WithEscalator(nil, testPolicy, guard.FailClosed)); err == nil {
		t.Error("nil escalator accepted")
	}
	bad := testPolicy
	bad.Set(guard.Groundedness, guard.Thresholds{Fail: 0.9, Pass: 0.1})
	if _, err := guard.New(guard.WithEscalator(&escalator{}, bad, guard.FailClosed)); err == nil {
		t.Error("invalid fallback policy accepted")
	}
	if _, err := guard.New(guard.WithEscalator(&escalator{}, testPolicy, guard.Degrade(7))); err == nil {
		t.Error("invalid degrade rule accepted")
	}
}

// claimJudge gives each claim the probability its text maps to.
func claimJudge(byText map[string]float64) guard.Judge {
	return guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			switch d {
			case guard.ChunkRelevance:
				for _, c := range req.Sample.Contexts {
					out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: 0.9})
				}
			case guard.Groundedness:
				p, ok := byText[req.Sample.Answer]
				if !ok {
					p = 0.9 // the whole answer looks fine on average
				}
				out = append(out, guard.Estimate{Decision: d, P: p, Evidence: []guard.Evidence{{Decision: d, Kind: guard.EvidenceUnsupported, Detail: req.Sample.Answer}}})
			default:
				out = append(out, guard.Estimate{Decision: d, P: healthy()[d]})
			}
		}
		return out, nil
	})
}

func TestClaimsModeWeakestClaimWins(t *testing.T) {
	split := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return strings.Split(s.Answer, ". "), nil
	})
	s := newSample(false, "c1")
	s.Answer = "Refunds take five days. They are free. They need a receipt"
	probs := map[string]float64{"Refunds take five days": 0.95, "They are free": 0.9, "They need a receipt": 0.05}

	g := mustNew(t, guard.WithJudge(claimJudge(probs)), guard.WithPolicy(testPolicy), guard.WithClaims(split))
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Claims) != 3 || res.Claims[2].Verdict != guard.Fail || res.Claims[0].Verdict != guard.Pass {
		t.Fatalf("claims = %+v", res.Claims)
	}
	if g := res.Generation.Groundedness; g.Value != 0.05 || res.Verdicts.Generation.Groundedness != guard.Fail {
		t.Errorf("groundedness %+v verdict %v, want the weakest claim's 0.05/fail", g, res.Verdicts.Generation.Groundedness)
	}
	if res.Diagnosis != guard.GeneratorUngrounded {
		t.Errorf("diagnosis %v", res.Diagnosis)
	}

	// An uncertain claim is escalated on its own; the fallback settles it.
	probs["They need a receipt"] = 0.5
	fb := &escalator{judge: guardtest.Fixed{Default: 0.97}}
	g = mustNew(t, guard.WithJudge(claimJudge(probs)), guard.WithPolicy(testPolicy), guard.WithClaims(split),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed))
	res, err = g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.asked) != 1 || fb.asked[0].Sample.Answer != "They need a receipt" {
		t.Fatalf("escalations = %+v", fb.asked)
	}
	if !res.Claims[2].Escalated || res.Claims[2].Verdict != guard.Pass || res.Diagnosis != guard.PassDiagnosis {
		t.Errorf("claim %+v, diagnosis %v", res.Claims[2], res.Diagnosis)
	}
}

func TestClaimsModeFallsBackToWholeAnswer(t *testing.T) {
	for _, x := range []guard.ClaimExtractor{
		guard.ClaimExtractorFunc(func(context.Context, *guard.Sample) ([]string, error) { return nil, errors.New("extractor down") }),
		guard.ClaimExtractorFunc(func(context.Context, *guard.Sample) ([]string, error) { return nil, nil }),
		guard.ClaimExtractorFunc(func(context.Context, *guard.Sample) ([]string, error) {
			panic("boom")
		}),
	} {
		g := mustNew(t, guard.WithJudge(claimJudge(nil)), guard.WithPolicy(testPolicy), guard.WithClaims(x))
		res, err := g.Evaluate(context.Background(), newSample(false, "c1"))
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Err(); !errors.Is(err, guard.ErrJudge) {
			t.Errorf("Result.Err() = %v, want a judge error", err)
		}
		if res.Claims != nil || res.Generation.Groundedness.Value != 0.9 || res.Diagnosis != guard.PassDiagnosis {
			t.Errorf("claims %+v groundedness %+v diagnosis %v", res.Claims, res.Generation.Groundedness, res.Diagnosis)
		}
	}
}

func TestClaimsModeUnsettledClaimFollowsDegradeRule(t *testing.T) {
	split := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return strings.Split(s.Answer, ". "), nil
	})
	abstain := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		out := []guard.Estimate{guard.Abstain(guard.Groundedness, "", "circuit breaker open")}
		out[0].Usage = guard.Usage{Calls: 1, InputTokens: 10}
		return out, nil
	})
	s := newSample(false, "c1")
	s.Answer = "Refunds take five days. They need a receipt"
	probs := map[string]float64{"Refunds take five days": 0.95, "They need a receipt": 0.5}
	for _, tc := range []struct {
		rule   guard.Degrade
		action guard.Action
	}{{guard.FailClosed, guard.Block}, {guard.FailOpen, guard.Allow}} {
		g := mustNew(t, guard.WithJudge(claimJudge(probs)), guard.WithPolicy(testPolicy), guard.WithClaims(split),
			guard.WithEscalator(&escalator{judge: abstain}, testPolicy, tc.rule))
		res, err := g.Evaluate(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		f := res.Fallback
		if res.Diagnosis != guard.JudgeUncertain || res.Action != tc.action || f == nil {
			t.Fatalf("%v: diagnosis %v action %v fallback %+v", tc.rule, res.Diagnosis, res.Action, f)
		}
		if f.Unsettled != 1 || f.Reason != "circuit breaker open" || f.Usage.Calls != 1 || !slices.Contains(f.Decisions, guard.Groundedness) {
			t.Errorf("%v: fallback info %+v", tc.rule, f)
		}
		if c := res.Claims[1]; !c.Escalated || c.Reason != "circuit breaker open" || c.Verdict != guard.Uncertain {
			t.Errorf("%v: claim %+v", tc.rule, c)
		}
		if _, ok := res.Judges["fallback"]; !ok {
			t.Errorf("judges %v lack the escalator", res.Judges)
		}
	}
}

func TestFallbackUsageRecorded(t *testing.T) {
	priced := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.95, Judge: "llm-x", Usage: guard.Usage{Calls: 1, InputTokens: 300, OutputTokens: 2}}}, nil
	})
	g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(&escalator{judge: priced}, testPolicy, guard.FailClosed))
	res, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	want := guard.Usage{Calls: 1, InputTokens: 300, OutputTokens: 2}
	if res.Fallback.Usage != want || res.Usage != want {
		t.Errorf("fallback usage %+v, result usage %+v, want %+v", res.Fallback.Usage, res.Usage, want)
	}
}

// The degrade rule covers an unavailable fallback only: a primary judge that
// failed, or a request cancelled before the escalation, never yields Allow,
// even under FailOpen with the fallback unavailable.
func TestFailOpenNeverAllowsBrokenPrimary(t *testing.T) {
	unavailable := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			out = append(out, guard.Abstain(d, "", "circuit breaker open"))
		}
		return out, nil
	})
	deadPrimary := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
		return nil, errors.New("primary model not loaded")
	})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		primary guard.Judge
		ctx     context.Context
		want    guard.Action
	}{
		{"healthy primary, fallback unavailable", uncertainGroundedness(), context.Background(), guard.Allow},
		{"primary fails", deadPrimary, context.Background(), guard.Review},
		{"request cancelled", uncertainGroundedness(), cancelled, guard.Review},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustNew(t, guard.WithJudge(tc.primary), guard.WithPolicy(testPolicy),
				guard.WithEscalator(&escalator{judge: unavailable}, testPolicy, guard.FailOpen))
			res, _ := g.Evaluate(tc.ctx, newSample(false, "c1"))
			if res.Diagnosis != guard.JudgeUncertain || res.Action != tc.want {
				t.Errorf("diagnosis %v action %v, want JUDGE_UNCERTAIN %v", res.Diagnosis, res.Action, tc.want)
			}
		})
	}
}

// TestClaimsModeAbstentionTakesTheClaimsCause: when no claim's support could
// be estimated because the judge failed on every claim, the groundedness
// abstention says so (judge_failed), not a plain abstention; mixed causes
// leave it "abstained".
func TestClaimsModeAbstentionTakesTheClaimsCause(t *testing.T) {
	split := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return strings.Split(s.Answer, ". "), nil
	})
	failing := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		if req.Wants(guard.Groundedness) && len(req.Decisions) == 1 {
			return nil, errors.New("HTTP 503")
		}
		return claimJudge(nil).Judge(context.Background(), req)
	})
	s := newSample(false, "c1")
	s.Answer = "Refunds take five days. They need a receipt"
	g := mustNew(t, guard.WithJudge(failing), guard.WithPolicy(testPolicy), guard.WithClaims(split))
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var got *guard.Abstention
	for i := range res.Abstentions {
		if res.Abstentions[i].Decision == guard.Groundedness {
			got = &res.Abstentions[i]
		}
	}
	if got == nil || got.Cause != guard.CauseJudgeFailed || !errors.Is(got.Err(), guard.ErrJudge) {
		t.Fatalf("groundedness abstention = %+v (claims %+v); want cause judge_failed", got, res.Claims)
	}
	if res.Action == guard.Allow {
		t.Errorf("action allow with every claim's judge failed")
	}
}
