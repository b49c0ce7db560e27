package guard_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// diagIn describes the estimates behind a diagnosis: healthy probabilities
// (see healthy) with overrides, under testPolicy (fail 0.2, pass 0.8).
type diagIn struct {
	ref        bool
	chunks     []float64 // chunk relevance of contexts c1, c2, ...; nil means {0.9}
	noContexts bool
	p          map[guard.Decision]float64 // overrides
	abstain    []guard.Decision           // decisions answered by an abstaining judge
}

func (in diagIn) String() string {
	var b strings.Builder
	if in.noContexts {
		b.WriteString("no contexts")
	} else {
		fmt.Fprintf(&b, "chunks=%v", in.chunksOrDefault())
	}
	if len(in.p) > 0 {
		b.WriteString(" " + fmtProbs(in.p))
	}
	if len(in.abstain) > 0 {
		b.WriteString(" abstain=" + decisionSet(in.abstain))
	}
	if in.ref {
		b.WriteString(" +reference")
	}
	return b.String()
}

func (in diagIn) chunksOrDefault() []float64 {
	if in.chunks == nil {
		return []float64{0.9}
	}
	return in.chunks
}

// eval evaluates the sample described by in with a Fixed judge.
func (in diagIn) eval(t *testing.T) guard.Result {
	t.Helper()
	p := healthy()
	for d, v := range in.p {
		p[d] = v
	}
	j := guardtest.Fixed{P: p, Chunks: map[string]float64{}}
	var ids []string
	if !in.noContexts {
		for i, c := range in.chunksOrDefault() {
			id := fmt.Sprintf("c%d", i+1)
			ids = append(ids, id)
			j.Chunks[id] = c
		}
	}
	opts := []guard.Option{guard.WithJudge(j), guard.WithPolicy(testPolicy)}
	if len(in.abstain) > 0 {
		opts = append(opts, guard.WithJudge(guardtest.Abstaining{Reason: "test"}, in.abstain...))
	}
	r, err := mustNew(t, opts...).Evaluate(context.Background(), newSample(in.ref, ids...))
	if err != nil {
		t.Fatalf("Evaluate(%v): %v", in, err)
	}
	return r
}

type p = map[guard.Decision]float64

var diagnoseTests = []struct {
	name  string
	in    diagIn
	want  guard.Diagnosis
	conf  float64
	route guard.Route
}{
	// PASS: confidence of the least certain decision (best passing chunk).
	{"healthy", diagIn{}, guard.PassDiagnosis, 0.9, guard.Auto},
	{"healthy, least certain groundedness", diagIn{p: p{guard.Groundedness: 0.85}}, guard.PassDiagnosis, 0.85, guard.Auto},
	{"healthy, least certain conflict", diagIn{p: p{guard.ContextConflict: 0.15}}, guard.PassDiagnosis, 0.85, guard.Auto},
	{"healthy with reference", diagIn{ref: true, p: p{guard.Correctness: 0.82}}, guard.PassDiagnosis, 0.82, guard.Auto},
	{"one passing chunk is enough", diagIn{chunks: []float64{0.95, 0.5, 0.1}}, guard.PassDiagnosis, 0.9, guard.Auto},
	{"best passing chunk counts", diagIn{chunks: []float64{0.81, 0.83}}, guard.PassDiagnosis, 0.83, guard.Auto},
	{"correctness ignored without reference", diagIn{p: p{guard.Correctness: 0.1}}, guard.PassDiagnosis, 0.9, guard.Auto},

	// CONFLICTING_EVIDENCE: confidence P(conflict).
	{"conflict", diagIn{p: p{guard.ContextConflict: 0.95}}, guard.ConflictingEvidence, 0.95, guard.Auto},
	{"conflict at the pass threshold", diagIn{p: p{guard.ContextConflict: 0.8}}, guard.ConflictingEvidence, 0.8, guard.Auto},
	{"conflict beats miss", diagIn{chunks: []float64{0.1}, p: p{guard.ContextConflict: 0.9}}, guard.ConflictingEvidence, 0.9, guard.Auto},

	// RETRIEVAL_MISS: confidence min(1-P) over chunks; 1 with no contexts.
	{"every chunk irrelevant", diagIn{chunks: []float64{0.1, 0.05}}, guard.RetrievalMiss, 0.9, guard.Auto},
	{"chunk at the fail threshold", diagIn{chunks: []float64{0.2}}, guard.RetrievalMiss, 0.8, guard.Auto},
	{"no contexts", diagIn{noContexts: true}, guard.RetrievalMiss, 1, guard.Auto},
	{"no contexts with reference", diagIn{noContexts: true, ref: true}, guard.RetrievalMiss, 1, guard.Auto},
	{"no contexts, all else uncertain", diagIn{noContexts: true, p: p{guard.ContextConflict: 0.5, guard.Groundedness: 0.5}}, guard.RetrievalMiss, 1, guard.Auto},
	{"miss beats insufficient", diagIn{chunks: []float64{0.1}, p: p{guard.ContextSufficiency: 0.1}}, guard.RetrievalMiss, 0.9, guard.Auto},
	{"some chunks uncertain is no miss", diagIn{chunks: []float64{0.1, 0.5}}, guard.JudgeUncertain, 0.5, guard.Fallback},
	{"all chunks uncertain", diagIn{chunks: []float64{0.6, 0.7}}, guard.JudgeUncertain, 0.6, guard.Fallback},

	// RETRIEVAL_INSUFFICIENT: confidence 1-P.
	{"insufficient", diagIn{p: p{guard.ContextSufficiency: 0.1}}, guard.RetrievalInsufficient, 0.9, guard.Auto},
	{"insufficient beats the rest", diagIn{ref: true, p: p{guard.ContextSufficiency: 0.15, guard.AnswerRelevance: 0.1, guard.Groundedness: 0.1, guard.Correctness: 0}}, guard.RetrievalInsufficient, 0.85, guard.Auto},

	// ANSWER_IRRELEVANT: confidence 1-P.
	{"irrelevant", diagIn{p: p{guard.AnswerRelevance: 0.15}}, guard.AnswerIrrelevant, 0.85, guard.Auto},
	{"irrelevant beats ungrounded", diagIn{p: p{guard.AnswerRelevance: 0, guard.Groundedness: 0, guard.Contradiction: 1}}, guard.AnswerIrrelevant, 1, guard.Auto},

	// GENERATOR_UNGROUNDED: 1-P(groundedness), or P(contradiction).
	{"ungrounded", diagIn{p: p{guard.Groundedness: 0.1}}, guard.GeneratorUngrounded, 0.9, guard.Auto},
	{"contradiction passes", diagIn{p: p{guard.Contradiction: 0.95}}, guard.GeneratorUngrounded, 0.95, guard.Auto},
	{"contradiction with groundedness passing", diagIn{p: p{guard.Contradiction: 0.85, guard.Groundedness: 1}}, guard.GeneratorUngrounded, 0.85, guard.Auto},
	{"groundedness is read before contradiction", diagIn{p: p{guard.Groundedness: 0.05, guard.Contradiction: 0.9}}, guard.GeneratorUngrounded, 0.95, guard.Auto},
	{"ungrounded beats incorrect", diagIn{ref: true, p: p{guard.Groundedness: 0.1, guard.Correctness: 0}}, guard.GeneratorUngrounded, 0.9, guard.Auto},
	{"contradiction beats incorrect", diagIn{ref: true, p: p{guard.Contradiction: 0.9, guard.Correctness: 0}}, guard.GeneratorUngrounded, 0.9, guard.Auto},

	// ANSWER_INCORRECT: 1-P, only with a reference.
	{"incorrect", diagIn{ref: true, p: p{guard.Correctness: 0.1}}, guard.AnswerIncorrect, 0.9, guard.Auto},

	// A confident failure needs no escalation, even with other decisions
	// uncertain.
	{"ungrounded with sufficiency uncertain", diagIn{p: p{guard.ContextSufficiency: 0.5, guard.Groundedness: 0.1}}, guard.GeneratorUngrounded, 0.9, guard.Auto},
	{"irrelevant with conflict uncertain", diagIn{p: p{guard.ContextConflict: 0.5, guard.AnswerRelevance: 0.1}}, guard.AnswerIrrelevant, 0.9, guard.Auto},
	{"incorrect with chunks uncertain", diagIn{ref: true, chunks: []float64{0.5}, p: p{guard.Correctness: 0.1}}, guard.AnswerIncorrect, 0.9, guard.Auto},

	// JUDGE_UNCERTAIN: confidence max(P, 1-P) of the least certain
	// uncertain decision, 0 for an abstention.
	{"groundedness uncertain", diagIn{p: p{guard.Groundedness: 0.5}}, guard.JudgeUncertain, 0.5, guard.Fallback},
	{"least certain of two", diagIn{p: p{guard.Groundedness: 0.6, guard.AnswerRelevance: 0.45}}, guard.JudgeUncertain, 0.55, guard.Fallback},
	{"conflict uncertain", diagIn{p: p{guard.ContextConflict: 0.3}}, guard.JudgeUncertain, 0.7, guard.Fallback},
	{"contradiction uncertain", diagIn{p: p{guard.Contradiction: 0.75}}, guard.JudgeUncertain, 0.75, guard.Fallback},
	{"correctness uncertain", diagIn{ref: true, p: p{guard.Correctness: 0.5}}, guard.JudgeUncertain, 0.5, guard.Fallback},
	{"abstention", diagIn{abstain: []guard.Decision{guard.Groundedness}}, guard.JudgeUncertain, 0, guard.Fallback},
	{"correctness abstention", diagIn{ref: true, abstain: []guard.Decision{guard.Correctness}}, guard.JudgeUncertain, 0, guard.Fallback},
	{"chunk abstention", diagIn{chunks: []float64{0.9}, abstain: []guard.Decision{guard.ChunkRelevance}}, guard.JudgeUncertain, 0, guard.Fallback},
	{"abstentions do not hide a failure", diagIn{p: p{guard.Groundedness: 0.1}, abstain: []guard.Decision{guard.ContextSufficiency}}, guard.GeneratorUngrounded, 0.9, guard.Auto},
}

func TestDiagnose(t *testing.T) {
	for _, tt := range diagnoseTests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.in.eval(t)
			if r.Diagnosis != tt.want {
				t.Errorf("Diagnose(%v) = %v (%s); want %v", tt.in, r.Diagnosis, r.Reason, tt.want)
			}
			if math.Abs(r.Confidence-tt.conf) > tol {
				t.Errorf("Diagnose(%v) confidence = %v; want %v", tt.in, r.Confidence, tt.conf)
			}
			// A guard without a fallback routes to review what the
			// diagnosis routes to the fallback.
			if want := noFallback(tt.route); r.Route != want {
				t.Errorf("Diagnose(%v) route = %v; want %v", tt.in, r.Route, want)
			}
			if r.Reason == "" {
				t.Errorf("Diagnose(%v) reason is empty", tt.in)
			}
			if r.DiagnosisVersion != guard.DiagnoseVersion {
				t.Errorf("Diagnose(%v) version = %q; want %q", tt.in, r.DiagnosisVersion, guard.DiagnoseVersion)
			}
			// The function agrees with what Evaluate recorded, and leaves the
			// result alone.
			before := r
			o := guard.Diagnose(&r)
			if o.Diagnosis != r.Diagnosis || o.Confidence != r.Confidence || noFallback(o.Route) != r.Route || !strings.HasPrefix(r.Reason, o.Reason) {
				t.Errorf("Diagnose(&result of %v) = %+v; Evaluate recorded %v/%v/%v/%q", tt.in, o, r.Diagnosis, r.Confidence, r.Route, r.Reason)
			}
			if !reflect.DeepEqual(before, r) {
				t.Errorf("Diagnose(%v) modified the result", tt.in)
			}
		})
	}
}

func TestDiagnosesReachable(t *testing.T) {
	reached := map[guard.Diagnosis]bool{}
	for _, tt := range diagnoseTests {
		reached[tt.want] = true
	}
	for _, d := range guard.Diagnoses {
		if !reached[d] {
			t.Errorf("no test reaches %v", d)
		}
	}
}

// TestDiagnosePrecedence triggers every combination of findings and checks
// that the highest in precedence wins.
func TestDiagnosePrecedence(t *testing.T) {
	triggers := []struct {
		d   guard.Diagnosis
		set func(*diagIn)
	}{
		{guard.ConflictingEvidence, func(in *diagIn) { in.p[guard.ContextConflict] = 0.95 }},
		{guard.RetrievalMiss, func(in *diagIn) { in.chunks = []float64{0.1, 0.05} }},
		{guard.RetrievalInsufficient, func(in *diagIn) { in.p[guard.ContextSufficiency] = 0.1 }},
		{guard.AnswerIrrelevant, func(in *diagIn) { in.p[guard.AnswerRelevance] = 0.1 }},
		{guard.GeneratorUngrounded, func(in *diagIn) { in.p[guard.Groundedness] = 0.1 }},
		{guard.AnswerIncorrect, func(in *diagIn) { in.p[guard.Correctness] = 0.1 }},
		{guard.JudgeUncertain, func(in *diagIn) { in.p[guard.Contradiction] = 0.5 }},
	}
	// The triggers are listed in precedence order, the order of Diagnoses.
	for i, tr := range triggers {
		if guard.Diagnoses[i] != tr.d {
			t.Fatalf("Diagnoses[%d] = %v; want %v", i, guard.Diagnoses[i], tr.d)
		}
	}
	if last := guard.Diagnoses[len(guard.Diagnoses)-1]; last != guard.PassDiagnosis || len(guard.Diagnoses) != len(triggers)+1 {
		t.Fatalf("Diagnoses = %v; want the triggers then PASS", guard.Diagnoses)
	}
	for mask := 0; mask < 1<<len(triggers); mask++ {
		in := diagIn{ref: true, p: p{}}
		want := guard.PassDiagnosis
		for i := len(triggers) - 1; i >= 0; i-- {
			if mask&(1<<i) != 0 {
				triggers[i].set(&in)
				want = triggers[i].d
			}
		}
		r := in.eval(t)
		if r.Diagnosis != want {
			t.Errorf("Diagnose(%v) = %v; want %v", in, r.Diagnosis, want)
		}
		if wantRoute := map[bool]guard.Route{true: guard.RouteReview, false: guard.Auto}[want == guard.JudgeUncertain]; r.Route != wantRoute {
			t.Errorf("Diagnose(%v) route = %v; want %v", in, r.Route, wantRoute)
		}
	}
}

// The reason of a confident finding names the decisions that were
// uncertain.
func TestDiagnoseReasonNamesUncertain(t *testing.T) {
	in := diagIn{p: p{guard.ContextSufficiency: 0.5, guard.Contradiction: 0.5, guard.AnswerRelevance: 0.1}}
	r := in.eval(t)
	if r.Diagnosis != guard.AnswerIrrelevant {
		t.Fatalf("Diagnose(%v) = %v; want %v", in, r.Diagnosis, guard.AnswerIrrelevant)
	}
	// Only the decisions read before the finding are known to be uncertain.
	if !strings.Contains(r.Reason, "context_sufficiency") {
		t.Errorf("Diagnose(%v) reason = %q; want it to name context_sufficiency", in, r.Reason)
	}
	in = diagIn{p: p{guard.Groundedness: 0.5, guard.Contradiction: 0.6}}
	r = in.eval(t)
	for _, name := range []string{"groundedness", "contradiction"} {
		if !strings.Contains(r.Reason, name) {
			t.Errorf("Diagnose(%v) reason = %q; want it to name %s", in, r.Reason, name)
		}
	}
}

func TestDefaultDiagnoser(t *testing.T) {
	if got := guard.DefaultDiagnoser.Version(); got != guard.DiagnoseVersion {
		t.Errorf("DefaultDiagnoser.Version() = %q; want %q", got, guard.DiagnoseVersion)
	}
	for _, tt := range diagnoseTests[:5] {
		r := tt.in.eval(t)
		if got, want := guard.DefaultDiagnoser.Diagnose(&r), guard.Diagnose(&r); got != want {
			t.Errorf("DefaultDiagnoser.Diagnose(%v) = %+v; Diagnose = %+v", tt.in, got, want)
		}
	}
}

type constDiagnoser struct{ o guard.Outcome }

func (d constDiagnoser) Diagnose(*guard.Result) guard.Outcome { return d.o }
func (constDiagnoser) Version() string                        { return "const/1" }

func TestWithDiagnoser(t *testing.T) {
	o := guard.Outcome{Diagnosis: guard.AnswerIncorrect, Confidence: 0.42, Route: guard.Auto, Reason: "because"}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithDiagnoser(constDiagnoser{o}))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := (guard.Outcome{Diagnosis: r.Diagnosis, Confidence: r.Confidence, Route: r.Route, Reason: r.Reason}); got != o {
		t.Errorf("Evaluate with a custom diagnoser: outcome %+v; want %+v", got, o)
	}
	if r.DiagnosisVersion != "const/1" {
		t.Errorf("DiagnosisVersion = %q; want %q", r.DiagnosisVersion, "const/1")
	}
	if _, err := guard.New(guard.WithDiagnoser(nil)); err == nil {
		t.Errorf("New(WithDiagnoser(nil)) succeeded; want an error")
	}
}

// noFallback is the route a guard without a fallback reports for the
// diagnosis's route r.
func noFallback(r guard.Route) guard.Route {
	if r == guard.Fallback {
		return guard.RouteReview
	}
	return r
}
