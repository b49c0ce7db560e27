package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// richResult evaluates a sample that exercises every part of the JSON form:
// a reference, chunks in a non-sorted order with an abstention, a failed
// judge, evidence, citations and usage.
func richResult(t *testing.T) guard.Result {
	t.Helper()
	j := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		q := guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 4, Text: "Five"}
		cq := guard.Quote{Source: guard.SourceContext, ContextID: "zeta", Start: 0, End: 7, Text: "Refunds"}
		return []guard.Estimate{
			{Decision: guard.ChunkRelevance, ContextID: "zeta", P: 0.93},
			guard.Abstain(guard.ChunkRelevance, "alpha", "empty context"),
			{Decision: guard.ChunkRelevance, ContextID: "mu", P: 0.125},
			{Decision: guard.ContextSufficiency, P: 0.43},
			{Decision: guard.ContextConflict, P: 0.04},
			{Decision: guard.AnswerRelevance, P: 0.99},
			{Decision: guard.Groundedness, P: 0.96, Latency: 3 * time.Millisecond, Usage: guard.Usage{InputTokens: 12, Calls: 1},
				Evidence:  []guard.Evidence{{Decision: guard.Groundedness, Kind: guard.EvidenceSupport, Detail: "supported", Quote: q, Counterpart: cq}},
				Citations: []guard.Citation{{Sentence: q, Support: 0.8, Supported: true, Context: cq}}},
			{Decision: guard.Contradiction, P: 0.03},
		}, nil
	})
	clock := time.Unix(0, 0)
	g := mustNew(t,
		guard.WithJudge(j),
		guard.WithJudge(guardtest.Failing{Err: errBoom}, guard.Correctness),
		guard.WithPolicy(testPolicy),
		guard.WithClock(func() time.Time { clock = clock.Add(250 * time.Microsecond); return clock }),
	)
	s := newSample(true, "zeta", "alpha", "mu")
	r, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatalf("Evaluate error = %v; want nil", err)
	}
	if err := r.Err(); !errors.Is(err, errBoom) {
		t.Fatalf("Result.Err() = %v; want %v", err, errBoom)
	}
	return r
}

func TestResultJSONRoundTrip(t *testing.T) {
	r := richResult(t)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back guard.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("Unmarshal(%s): %v", b, err)
	}
	// What the JSON form does not carry.
	want := r
	want.Estimates = nil
	want.Errors = append([]guard.JudgeError(nil), r.Errors...)
	for i := range want.Errors {
		want.Errors[i].Err = nil
	}
	if !reflect.DeepEqual(back, want) {
		t.Errorf("Unmarshal(Marshal(r)) =\n%+v\nwant\n%+v", back, want)
	}
	b2, err := json.Marshal(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("Marshal is not stable across a round trip:\n%s\n%s", b, b2)
	}

	for _, part := range []string{
		`"chunkRelevance":{"zeta":0.93,"alpha":null,"mu":0.125}`,
		`"chunkRelevance":{"zeta":"pass","alpha":"uncertain","mu":"fail"}`,
		`"contextSufficiency":0.43`, `"contextSufficiency":"uncertain"`,
		`"contextConflict":0.04`, `"contextConflict":"pass"`,
		`"correctness":null`, `"correctness":"uncertain"`,
		`"diagnosis":"JUDGE_UNCERTAIN"`, `"route":"review"`, `; no fallback configured"`,
		`"decisionVariant":"with-reference"`,
		`"errors":[{"judge":"guardtest.Failing","decisions":["correctness"],"error":"boom","cause":"judge_failed"}]`,
		`{"decision":"correctness","reason":"judge guardtest.Failing failed","cause":"judge_failed"}`,
		`"decision":"groundedness","kind":"support"`,
		`"latencyMs":0.25`,
		`"usage":{"inputTokens":12,"calls":1}`,
	} {
		if !strings.Contains(string(b), part) {
			t.Errorf("JSON lacks %s:\n%s", part, b)
		}
	}
	if strings.Contains(string(b), `"estimates"`) {
		t.Errorf("JSON carries the raw estimates:\n%s", b)
	}
}

func TestProbJSON(t *testing.T) {
	tests := []struct {
		p    guard.Prob
		want string
	}{
		{guard.KnownProb(0.25), `0.25`},
		{guard.KnownProb(0), `0`},
		{guard.KnownProb(1), `1`},
		{guard.KnownProb(1e-7), `1e-07`},
		{guard.Prob{Asked: true}, `null`},
		{guard.Prob{Value: 0.7, Asked: true}, `null`}, // unknown: the value is meaningless
		{guard.KnownProb(math.NaN()), `null`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.p)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.p, b, err, tt.want)
		}
	}
	for in, want := range map[string]guard.Prob{
		`0.25`: guard.KnownProb(0.25),
		`null`: {Asked: true},
		`1`:    guard.KnownProb(1),
	} {
		var got guard.Prob
		if err := json.Unmarshal([]byte(in), &got); err != nil || got != want {
			t.Errorf("Unmarshal(%s) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	var p guard.Prob
	if err := json.Unmarshal([]byte(`"0.5"`), &p); err == nil {
		t.Errorf("Unmarshal(%q) = %+v, nil; want an error", `"0.5"`, p)
	}
	// Absent (not asked) is omitted where the field is omitzero.
	if !(guard.Prob{}).IsZero() || guard.KnownProb(0).IsZero() || (guard.Prob{Asked: true}).IsZero() {
		t.Errorf("Prob.IsZero: want true only when not asked")
	}
	if v, ok := guard.KnownProb(0.3).Get(); v != 0.3 || !ok {
		t.Errorf("KnownProb(0.3).Get() = %v, %v; want 0.3, true", v, ok)
	}
}

func TestKeyedJSON(t *testing.T) {
	k := guard.Keyed[guard.Verdict]{{Key: "z", Value: guard.Pass}, {Key: "a", Value: guard.Fail}, {Key: "q\"uote", Value: guard.Uncertain}}
	b, err := json.Marshal(k)
	if want := `{"z":"pass","a":"fail","q\"uote":"uncertain"}`; err != nil || string(b) != want {
		t.Errorf("Marshal(%v) = %s, %v; want %s", k, b, err, want)
	}
	var back guard.Keyed[guard.Verdict]
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, k) {
		t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, k)
	}
	if v, ok := back.Get("a"); !ok || v != guard.Fail {
		t.Errorf("Get(a) = %v, %v; want fail, true", v, ok)
	}
	if _, ok := back.Get("nope"); ok {
		t.Errorf("Get(nope) found a value")
	}
	for _, tt := range []struct {
		in      string
		want    guard.Keyed[guard.Verdict]
		wantErr bool
	}{
		{`{}`, guard.Keyed[guard.Verdict]{}, false},
		{`null`, nil, false},
		{`[]`, nil, true},
		{`{"a":"sure"}`, nil, true},
	} {
		var got guard.Keyed[guard.Verdict]
		err := json.Unmarshal([]byte(tt.in), &got)
		if (err != nil) != tt.wantErr || (!tt.wantErr && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("Unmarshal(%s) = %#v, %v; want %#v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if b, err := json.Marshal(guard.Keyed[guard.Prob](nil)); err != nil || string(b) != `{}` {
		t.Errorf("Marshal(nil Keyed) = %s, %v; want {}", b, err)
	}
}

func TestRouteJSON(t *testing.T) {
	for r, want := range map[guard.Route]string{guard.Auto: `"auto"`, guard.Fallback: `"fallback"`} {
		b, err := json.Marshal(r)
		if err != nil || string(b) != want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", r, b, err, want)
		}
		back := guard.Route(9)
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, r)
		}
	}
	var r guard.Route
	if err := json.Unmarshal([]byte(`"manual"`), &r); err == nil {
		t.Errorf("Unmarshal(\"manual\") = %v, nil; want an error", r)
	}
	if r != guard.Fallback {
		t.Errorf("zero Route = %v; want fallback", r)
	}
}

func TestResultAccessors(t *testing.T) {
	r := richResult(t)
	for _, tt := range []struct {
		d     guard.Decision
		p     guard.Prob
		v     guard.Verdict
		found bool
	}{
		{guard.ContextSufficiency, guard.KnownProb(0.43), guard.Uncertain, true},
		{guard.ContextConflict, guard.KnownProb(0.04), guard.Pass, true},
		{guard.AnswerRelevance, guard.KnownProb(0.99), guard.Pass, true},
		{guard.Groundedness, guard.KnownProb(0.96), guard.Pass, true},
		{guard.Contradiction, guard.KnownProb(0.03), guard.Pass, true},
		{guard.Correctness, guard.Prob{Asked: true}, guard.Uncertain, true},
		{guard.ChunkRelevance, guard.Prob{}, guard.Uncertain, false},
	} {
		if got := r.Prob(tt.d); got != tt.p {
			t.Errorf("Prob(%v) = %+v; want %+v", tt.d, got, tt.p)
		}
		if got, ok := r.Verdict(tt.d); got != tt.v || ok != tt.found {
			t.Errorf("Verdict(%v) = %v, %v; want %v, %v", tt.d, got, ok, tt.v, tt.found)
		}
	}
}

// The result's keys are the decision names in camelCase (Decision.JSONKey),
// and results written with the old keys (sufficiency, conflict, relevance)
// are refused.
func TestResultJSONKeysAreDecisionNames(t *testing.T) {
	ref := guard.Fail
	r := guard.Result{}
	r.Generation.Correctness = guard.KnownProb(0.5)
	r.Verdicts.Generation.Correctness = &ref
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range guard.Decisions {
		if n := strings.Count(string(b), `"`+d.JSONKey()+`":`); n != 2 {
			t.Errorf("key %q of %v appears %d times in %s; want 2 (score and verdict)", d.JSONKey(), d, n, b)
		}
		if strings.ReplaceAll(d.String(), "_", "") != strings.ToLower(d.JSONKey()) {
			t.Errorf("%v: JSON key %q is not its name in camelCase", d, d.JSONKey())
		}
	}
	// A result with an old key is refused, with an error naming the format.
	for _, tt := range []struct {
		in   string
		into any
		old  string
	}{
		{`{"chunkRelevance":{},"sufficiency":0.7}`, new(guard.RetrievalScores), "sufficiency"},
		{`{"conflict":null,"contextSufficiency":0.9}`, new(guard.RetrievalScores), "conflict"},
		{`{"groundedness":0.9,"relevance":0.8}`, new(guard.GenerationScores), "relevance"},
		{`{"sufficiency":"pass"}`, new(guard.RetrievalVerdicts), "sufficiency"},
		{`{"relevance":"fail"}`, new(guard.GenerationVerdicts), "relevance"},
		{`{"retrieval":{"chunkRelevance":{},"sufficiency":0.7,"conflict":null},"generation":{"groundedness":0.9}}`, new(guard.Result), "sufficiency"},
	} {
		err := json.Unmarshal([]byte(tt.in), tt.into)
		if err == nil || !strings.Contains(err.Error(), "old format") || !strings.Contains(err.Error(), `"`+tt.old+`"`) {
			t.Errorf("Unmarshal(%s) error %v; want the old format and key %q named", tt.in, err, tt.old)
		}
	}
	// The new keys read.
	var r2 guard.GenerationScores
	if err := json.Unmarshal([]byte(`{"answerRelevance":0.8}`), &r2); err != nil || r2.AnswerRelevance != guard.KnownProb(0.8) {
		t.Errorf("new keys: %+v, %v", r2, err)
	}
	_, err = guard.ParseDecision("sufficiency")
	if err == nil || !strings.Contains(err.Error(), "valid: chunk_relevance, context_sufficiency, context_conflict, answer_relevance, groundedness, contradiction, correctness") {
		t.Errorf("ParseDecision(sufficiency) error %v; want the valid names listed", err)
	}
}
