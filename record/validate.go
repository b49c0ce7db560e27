package record

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ragtriage/ragtriage/guard"
)

// Check reports the first value of r that no evaluation can produce, as an
// error that names the field in JSON terms and says why. It refuses a
// probability or confidence that is not a number from 0 to 1, a latency
// that is negative or not finite, a negative token or call count, a
// verdict, diagnosis or cause that guard does not know, and a missing
// diagnosis. A cause may be empty: records written before causes have none.
// Readers call it so that nonsense never reaches a report.
func Check(r *Record) error {
	res := &r.Result
	steps := []func(*guard.Result) error{checkProbs, checkVerdicts, checkOutcome, checkCauses, checkClaims}
	for _, step := range steps {
		if err := step(res); err != nil {
			return err
		}
	}
	if err := checkCosts("result", res.LatencyMs, res.Usage); err != nil {
		return err
	}
	if fb := res.Fallback; fb != nil {
		if err := checkFallback(fb); err != nil {
			return err
		}
	}
	for i, l := range r.Legs {
		path := fmt.Sprintf("legs[%d]", i)
		if err := checkCosts(path, l.LatencyMs, l.Usage); err != nil {
			return err
		}
		if l.Retries < 0 {
			return fmt.Errorf("%s.retries: %d is negative", path, l.Retries)
		}
	}
	return nil
}

// decisionPath is the JSON path of a decision's score or verdict.
func decisionPath(part string, d guard.Decision) string {
	stage := "generation"
	if d.Retrieval() {
		stage = "retrieval"
	}
	return "result." + part + stage + "." + d.JSONKey()
}

// checkProb refuses a known probability outside [0, 1] or NaN.
func checkProb(path string, p guard.Prob) error {
	if !p.Known {
		return nil
	}
	if math.IsNaN(p.Value) || p.Value < 0 || p.Value > 1 {
		return fmt.Errorf("%s: %v is not a probability (want a number from 0 to 1)", path, p.Value)
	}
	return nil
}

func checkProbs(res *guard.Result) error {
	for _, e := range res.Retrieval.ChunkRelevance {
		if err := checkProb(fmt.Sprintf("%s[%q]", decisionPath("", guard.ChunkRelevance), e.Key), e.Value); err != nil {
			return err
		}
	}
	for _, d := range guard.Decisions[1:] {
		if err := checkProb(decisionPath("", d), res.Prob(d)); err != nil {
			return err
		}
	}
	return nil
}

// knownVerdict refuses a verdict other than uncertain, pass and fail.
func knownVerdict(path string, v guard.Verdict) error {
	if v > guard.Fail {
		return fmt.Errorf("%s: unknown verdict %d (want pass, fail or uncertain)", path, v)
	}
	return nil
}

func checkVerdicts(res *guard.Result) error {
	for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
		if err := knownVerdict(fmt.Sprintf("%s[%q]", decisionPath("verdicts.", guard.ChunkRelevance), e.Key), e.Value); err != nil {
			return err
		}
	}
	for _, d := range guard.Decisions[1:] {
		if v, ok := res.Verdict(d); ok {
			if err := knownVerdict(decisionPath("verdicts.", d), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOutcome refuses an unknown or missing diagnosis and a confidence
// that is not a probability.
func checkOutcome(res *guard.Result) error {
	switch {
	case res.Diagnosis == "":
		return fmt.Errorf("result.diagnosis: missing")
	case !slices.Contains(guard.Diagnoses, res.Diagnosis):
		return fmt.Errorf("result.diagnosis: unknown diagnosis %q", res.Diagnosis)
	}
	return checkProb("result.confidence", guard.KnownProb(res.Confidence))
}

// knownCause refuses a cause guard does not name; empty is no cause.
func knownCause(path string, c guard.Cause) error {
	if c != "" && !slices.Contains(guard.Causes, c) {
		return fmt.Errorf("%s: unknown cause %q", path, c)
	}
	return nil
}

func checkCauses(res *guard.Result) error {
	for i, a := range res.Abstentions {
		if err := knownCause(fmt.Sprintf("result.abstentions[%d].cause", i), a.Cause); err != nil {
			return err
		}
	}
	for i, je := range res.Errors {
		if err := knownCause(fmt.Sprintf("result.errors[%d].cause", i), je.Cause); err != nil {
			return err
		}
	}
	return nil
}

func checkClaims(res *guard.Result) error {
	for i := range res.Claims {
		c := &res.Claims[i]
		path := fmt.Sprintf("result.claims[%d]", i)
		if err := checkProb(path+".groundedness", c.Groundedness); err != nil {
			return err
		}
		if err := knownVerdict(path+".verdict", c.Verdict); err != nil {
			return err
		}
		if err := knownCause(path+".cause", c.Cause); err != nil {
			return err
		}
	}
	return nil
}

// checkFallback refuses an escalation with negative counts, unknown causes
// or impossible costs.
func checkFallback(fb *guard.FallbackInfo) error {
	if fb.Settled < 0 || fb.Unsettled < 0 {
		return fmt.Errorf("result.fallback: settled %d and unsettled %d: a count is negative", fb.Settled, fb.Unsettled)
	}
	if err := knownCause("result.fallback.cause", fb.Cause); err != nil {
		return err
	}
	for _, c := range slices.Sorted(maps.Keys(fb.Causes)) {
		n := fb.Causes[c]
		if err := knownCause("result.fallback.causes", c); err != nil {
			return err
		}
		if n < 0 {
			return fmt.Errorf("result.fallback.causes[%q]: %d is negative", c, n)
		}
	}
	return checkCosts("result.fallback", fb.LatencyMs, fb.Usage)
}

// checkCosts refuses a negative or non-finite latency and negative usage.
func checkCosts(path string, latencyMs float64, u guard.Usage) error {
	if math.IsNaN(latencyMs) || math.IsInf(latencyMs, 0) || latencyMs < 0 {
		return fmt.Errorf("%s.latencyMs: %v is not a latency (want a finite number ≥ 0)", path, latencyMs)
	}
	for _, f := range []struct {
		name string
		n    int
	}{{"inputTokens", u.InputTokens}, {"outputTokens", u.OutputTokens}, {"calls", u.Calls}, {"retries", u.Retries}} {
		if f.n < 0 {
			return fmt.Errorf("%s.usage.%s: %d is negative", path, f.name, f.n)
		}
	}
	return nil
}
