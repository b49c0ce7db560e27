package record

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// Check reports the first value of r that no evaluation can produce, as an
// error that names the field in JSON terms and says why. It refuses a
// probability or confidence that is not a number from 0 to 1, a latency
// that is negative or not finite, a negative token or call count, a
// verdict guard does not know, and a missing diagnosis. A diagnosis or
// cause must be a well-formed name (see [WellFormedName]). One guard does
// not name is accepted: a custom judge or Diagnoser writes its own, and a
// newer version adds some. [Unknown] lists them, for readers to warn about.
// A cause may be empty: records written before causes have none. The
// loop's fields (feature vectors, draw, teacher: issue 20) are optional; when
// present, feature vectors must be finite numbers under a named version, a
// draw's rate and inclusion probability in [0, 1] (a drawn row's inclusion
// above 0), and a teacher belongs to a drawn row, with probabilities in
// [0, 1], known verdicts, well-formed causes and possible costs. Readers
// call Check so that nonsense never reaches a report.
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
	if err := checkLoop(res); err != nil {
		return err
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
	case !WellFormedName(string(res.Diagnosis)):
		return fmt.Errorf("result.diagnosis: %q is not a diagnosis (want a name: letters, digits, '_', '-' or '.', at most %d bytes)", res.Diagnosis, maxNameBytes)
	}
	return checkProb("result.confidence", guard.KnownProb(res.Confidence))
}

// knownCause refuses a cause that is not a well-formed name; empty is no
// cause. A well-formed cause guard does not name is for [Unknown] to list.
func knownCause(path string, c guard.Cause) error {
	if c != "" && !WellFormedName(string(c)) {
		return fmt.Errorf("%s: %q is not a cause (want a name: letters, digits, '_', '-' or '.', at most %d bytes)", path, c, maxNameBytes)
	}
	return nil
}

// maxNameBytes is the longest diagnosis or cause name accepted.
const maxNameBytes = 64

// WellFormedName reports whether s can be the name of a diagnosis or a
// cause: 1 to 64 bytes of ASCII letters, digits, '_', '-' and '.', starting
// with a letter. "my_cause", "JUDGE_UNCERTAIN" and "input_too_large" are;
// "", "90 days" and a sentence are not.
func WellFormedName(s string) bool {
	if s == "" || len(s) > maxNameBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '_' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// Name is a diagnosis or cause of a record that guard does not name.
type Name struct {
	Path  string // where it is, in JSON terms: "result.abstentions[0].cause"
	Kind  string // "diagnosis" or "cause"
	Value string
}

// Unknown lists the diagnosis and causes of r that guard does not name, in
// field order. Check accepts them when they are well-formed; a reader warns
// about each distinct one.
func Unknown(r *Record) []Name {
	var out []Name
	res := &r.Result
	if d := res.Diagnosis; d != "" && !slices.Contains(guard.Diagnoses, d) {
		out = append(out, Name{"result.diagnosis", "diagnosis", string(d)})
	}
	cause := func(path string, c guard.Cause) {
		if c != "" && !slices.Contains(guard.Causes, c) {
			out = append(out, Name{path, "cause", string(c)})
		}
	}
	for i, a := range res.Abstentions {
		cause(fmt.Sprintf("result.abstentions[%d].cause", i), a.Cause)
	}
	for i, je := range res.Errors {
		cause(fmt.Sprintf("result.errors[%d].cause", i), je.Cause)
	}
	for i, w := range res.Withheld {
		cause(fmt.Sprintf("result.withheld[%d].cause", i), w.Cause)
	}
	for i := range res.Claims {
		cause(fmt.Sprintf("result.claims[%d].cause", i), res.Claims[i].Cause)
	}
	if t := res.Teacher; t != nil {
		cause("result.teacher.cause", t.Cause)
		for i := range t.Estimates {
			cause(fmt.Sprintf("result.teacher.estimates[%d].cause", i), t.Estimates[i].Cause)
		}
	}
	if fb := res.Fallback; fb != nil {
		cause("result.fallback.cause", fb.Cause)
		for _, c := range slices.Sorted(maps.Keys(fb.Causes)) {
			cause("result.fallback.causes", c)
		}
	}
	return out
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
	for i, w := range res.Withheld {
		path := fmt.Sprintf("result.withheld[%d]", i)
		switch {
		case !w.Decision.Valid():
			return fmt.Errorf("%s.decision: missing or not a decision", path)
		case w.Verdict != guard.Pass && w.Verdict != guard.Fail:
			return fmt.Errorf("%s.verdict: %q; a withheld verdict is pass or fail", path, w.Verdict)
		}
		if err := knownCause(path+".cause", w.Cause); err != nil {
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
	if !(fb.Inclusion >= 0 && fb.Inclusion <= 1) {
		return fmt.Errorf("result.fallback.inclusion: %v is not a probability (want a number from 0 to 1; absent when none was stated)", fb.Inclusion)
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

// checkLoop checks the feature vectors, the draw and the teacher.
func checkLoop(res *guard.Result) error {
	if f := res.Features; f != nil {
		if f.Version == "" {
			return fmt.Errorf("result.features.version: missing")
		}
		for i, v := range f.Vectors {
			if !v.Decision.Valid() {
				return fmt.Errorf("result.features.vectors[%d].decision: invalid", i)
			}
			for k, x := range v.X {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("result.features.vectors[%d].x[%d]: %v is not a finite number", i, k, x)
				}
			}
		}
	}
	d := res.Draw
	if d != nil {
		switch {
		case d.Kind != guard.DrawExplore && d.Kind != guard.DrawAudit:
			return fmt.Errorf("result.draw.kind: %q (want explore or audit)", d.Kind)
		case !(d.Rate >= 0 && d.Rate <= 1):
			return fmt.Errorf("result.draw.rate: %v is not a rate (want a number from 0 to 1)", d.Rate)
		case !(d.Inclusion >= 0 && d.Inclusion <= 1):
			return fmt.Errorf("result.draw.inclusion: %v is not a probability (want a number from 0 to 1)", d.Inclusion)
		case d.Drawn && d.Inclusion == 0:
			return fmt.Errorf("result.draw: drawn with inclusion probability 0 (want one in (0, 1])")
		}
	}
	t := res.Teacher
	if t == nil {
		return nil
	}
	if d == nil || !d.Drawn {
		return fmt.Errorf("result.teacher: present, but result.draw does not say the row was drawn")
	}
	if err := knownCause("result.teacher.cause", t.Cause); err != nil {
		return err
	}
	for i := range t.Estimates {
		e := &t.Estimates[i]
		path := fmt.Sprintf("result.teacher.estimates[%d]", i)
		if !e.Decision.Valid() {
			return fmt.Errorf("%s.decision: invalid", path)
		}
		if !e.Abstained && (math.IsNaN(e.P) || e.P < 0 || e.P > 1) {
			return fmt.Errorf("%s.p: %v is not a probability (want a number from 0 to 1)", path, e.P)
		}
		if err := knownCause(path+".cause", e.Cause); err != nil {
			return err
		}
		if e.Latency < 0 {
			return fmt.Errorf("%s.latency: %v is negative", path, e.Latency)
		}
		if err := checkCosts(path, 0, e.Usage); err != nil {
			return err
		}
	}
	v := &t.Verdicts
	for _, e := range v.Retrieval.ChunkRelevance {
		if err := knownVerdict(fmt.Sprintf("result.teacher.verdicts.retrieval.chunkRelevance[%q]", e.Key), e.Value); err != nil {
			return err
		}
	}
	tr := guard.Result{Verdicts: *v}
	for _, dd := range guard.Decisions[1:] {
		if x, ok := tr.Verdict(dd); ok {
			if err := knownVerdict("result.teacher."+strings.TrimPrefix(decisionPath("verdicts.", dd), "result."), x); err != nil {
				return err
			}
		}
	}
	return checkCosts("result.teacher", t.LatencyMs, t.Usage)
}
