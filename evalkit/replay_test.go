package evalkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodRow = `{"id":"r%d","question":"How long do refunds take?","contexts":[{"id":"c1","text":"Refunds take 5 days."}],"answer":"5 days.","expected":{"diagnosis":"PASS","generation":{"groundedness":true}}}`

func TestDatasetSource(t *testing.T) {
	long := `{"id":"long","question":"` + strings.Repeat("x", dataset.MaxLineBytes) + `","contexts":[],"answer":"a"}`
	data := "\xef\xbb\xbf" + fmt.Sprintf(goodRow, 1) + "\n\n  \t\r\n{oops\n" + long + "\n" + fmt.Sprintf(goodRow, 2)
	path := writeFile(t, "d.jsonl", data)
	src := dataset.NewFileSource(path)
	defer src.Close()
	var got []string
	for {
		it, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case it.Err != nil:
			got = append(got, fmt.Sprintf("%s bad", it.Pos))
		default:
			got = append(got, fmt.Sprintf("%s %s", it.Pos, it.ID))
		}
	}
	want := []string{"d.jsonl:1 r1", "d.jsonl:4 bad", "d.jsonl:5 bad", "d.jsonl:6 r2"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("items %v; want %v", got, want)
	}
	in := src.Inputs()
	sum := sha256.Sum256([]byte(data))
	if len(in) != 1 || in[0].SHA256 != hex.EncodeToString(sum[:]) || in[0].Lines != 4 || in[0].Bad != 2 || in[0].Bytes != int64(len(data)) {
		t.Errorf("inputs %+v", in)
	}
	if _, err := dataset.NewFileSource(filepath.Join(t.TempDir(), "missing")).Next(); err == nil {
		t.Error("missing file: no error")
	}
}

func TestParseRecord(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"recordVersion":"ragtriage.record/2","id":"a","result":{"diagnosis":"PASS"}}`, ""},
		{`{"id":"a","result":{}}`, "recordVersion: missing"},
		{`{"recordVersion":"ragtriage.record/3","id":"a"}`, `recordVersion: "ragtriage.record/3"`},
		{`{"recordVersion":"ragtriage.record/1","id":"a","result":{}}`, `"ragtriage.record/1": this version reads "ragtriage.record/2" only`},
		{`{"recordVersion":"ragtriage.record/1","id":"a","result":{"route":"sideways"}}`, `"ragtriage.record/1": this version reads`},
		{`{"recordVersion":"ragtriage.record/2","result":{}}`, "id: missing"},
		{`{"recordVersion":"ragtriage.record/2","id":"a","sample":{"question":"q","answer":"a","contexts":[{"id":"c","text":"x"},{"id":"c","text":"y"}]}}`, "duplicate"},
		{`{"recordVersion":"ragtriage.record/2","id":"a","result":{"route":"sideways"}}`, "malformed record"},
		{"\xff", "invalid UTF-8"},
	} {
		_, err := parseRecord([]byte(tc.line))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ParseRecord(%s) = %v; want no error", tc.line, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, errBadRecord)):
			t.Errorf("ParseRecord(%s) = %v; want an ErrBadRecord containing %q", tc.line, err, tc.want)
		}
	}
	// A record written by MarshalRecord reads back.
	res := guard.Result{Diagnosis: guard.PassDiagnosis, Route: guard.Auto, Generation: guard.GenerationScores{Groundedness: guard.KnownProb(0.9)}}
	b, err := record.Marshal(&record.Record{ID: "x", Result: res, Sample: &record.Sample{Question: "q", Answer: "a", Contexts: []record.Context{{ID: "c", Text: "t"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRecord(b[:len(b)-1])
	if err != nil || r.Result.Diagnosis != guard.PassDiagnosis || r.Result.Generation.Groundedness.Value != 0.9 || r.Sample.Contexts[0].ID != "c" {
		t.Errorf("round trip: %+v, %v", r, err)
	}
}

// A version 1 record in a record file is a bad line that says where it is
// and names the format; the records around it read.
func TestRecordSourceRefusesVersion1(t *testing.T) {
	path := writeFile(t, "records.jsonl", `{"recordVersion":"ragtriage.record/2","id":"a","result":{"diagnosis":"PASS"}}`+"\n"+
		`{"recordVersion":"ragtriage.record/1","id":"b","result":{}}`+"\n"+
		`{"recordVersion":"ragtriage.record/2","id":"c","result":{"diagnosis":"PASS"}}`+"\n")
	src := NewRecordSource(nil, path)
	defer src.Close()
	var got []string
	for {
		it, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		msg := "ok"
		if it.Err != nil {
			msg = it.Err.Error()
		}
		got = append(got, fmt.Sprintf("%s:%d %s %s", filepath.Base(it.Pos.File), it.Pos.Line, it.ID, msg))
	}
	want := []string{"records.jsonl:1 a ok",
		`records.jsonl:2 b recordVersion: "ragtriage.record/1": this version reads "ragtriage.record/2" only (version 1 verdicts on context_conflict and contradiction mean the opposite)`,
		"records.jsonl:3 c ok"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSimulatedJudge(t *testing.T) {
	if _, err := NewSimulatedJudge(SimulatedConfig{ErrorRate: 1.5}); err == nil {
		t.Error("error rate 1.5 accepted")
	}
	j, err := NewSimulatedJudge(SimulatedConfig{ErrorRate: 0.1, Latency: 100 * time.Millisecond, InputTokens: 7, OutputTokens: 2, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	if info := j.Describe(); !strings.Contains(info.Name, "simulated") {
		t.Errorf("name %q does not say simulated", info.Name)
	}
	yes, no := true, false
	exp := &dataset.Expected{Generation: &dataset.GenerationLabels{Groundedness: &yes, Contradiction: &no},
		Retrieval: &dataset.RetrievalLabels{ChunkRelevance: map[string]bool{"c1": true}}}
	wrong, n := 0, 4000
	for i := range n {
		s := guard.Sample{ID: fmt.Sprint("s", i), Question: "q", Answer: "a", Contexts: []guard.Context{{ID: "c1", Text: "x"}, {ID: "c2", Text: "y"}}}
		req := guard.Request{Sample: &s, Decisions: []guard.Decision{guard.ChunkRelevance, guard.Groundedness, guard.Contradiction, guard.AnswerRelevance}}
		ctx := ContextWithLabels(context.Background(), exp)
		out, err := j.Judge(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := j.Judge(ctx, req)
		if fmt.Sprint(out) != fmt.Sprint(again) {
			t.Fatal("not deterministic")
		}
		if len(out) != 5 {
			t.Fatalf("%d estimates; want 5 (c1, c2 abstained, groundedness, contradiction, answer_relevance abstained)", len(out))
		}
		for _, e := range out {
			switch {
			case e.Decision == guard.AnswerRelevance || e.ContextID == "c2":
				if !e.Abstained {
					t.Fatalf("unlabeled %v %s not abstained", e.Decision, e.ContextID)
				}
			case e.Decision == guard.Groundedness:
				if e.P < 0.5 {
					wrong++
				}
				if e.Usage.InputTokens != 7 || e.Usage.OutputTokens != 2 || e.Usage.Calls != 1 || e.Latency < 80*time.Millisecond || e.Latency > 120*time.Millisecond {
					t.Fatalf("usage %+v latency %v", e.Usage, e.Latency)
				}
			case e.Decision == guard.Contradiction:
				if (e.P >= 0.5) != (e.P >= 0.8) || e.P > 0.99 || e.P < 0.01 {
					t.Fatalf("P %v outside the simulated bands", e.P)
				}
			}
		}
	}
	// 4000 draws at 0.1: the share of wrong estimates is 0.1 ± 0.015 (3 sd ≈ 0.014).
	if rate := float64(wrong) / float64(n); math.Abs(rate-0.1) > 0.015 {
		t.Errorf("wrong rate %.3f; want about 0.1", rate)
	}
	// Without labels in the context everything abstains.
	s := guard.Sample{ID: "x", Contexts: []guard.Context{{ID: "c1"}}}
	out, _ := j.Judge(context.Background(), guard.Request{Sample: &s, Decisions: []guard.Decision{guard.Groundedness}})
	if len(out) != 1 || !out[0].Abstained {
		t.Errorf("unlabeled: %+v", out)
	}
}

func TestJudgeEscalatorFilters(t *testing.T) {
	j := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, c := range req.Sample.Contexts {
			out = append(out, guard.Estimate{Decision: guard.ChunkRelevance, ContextID: c.ID, P: 0.9})
		}
		return append(out, guard.Estimate{Decision: guard.Groundedness, P: 0.8}, guard.Estimate{Decision: guard.Correctness, P: 0.1}), nil
	})
	s := guard.Sample{Contexts: []guard.Context{{ID: "a"}, {ID: "b"}, {ID: "c"}}}
	out, err := newJudgeEscalator(j).Escalate(context.Background(), guard.Escalation{
		Request:    guard.Request{Sample: &s, Decisions: []guard.Decision{guard.ChunkRelevance, guard.Groundedness}},
		ContextIDs: []string{"b"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range out {
		got = append(got, e.Decision.String()+e.ContextID)
	}
	if strings.Join(got, ",") != "chunk_relevanceb,groundedness" {
		t.Errorf("escalated estimates %v; want chunk b and groundedness only", got)
	}
}

// orderGuard diagnoses each row after yielding a random number of times (so
// that rows finish out of order, without a clock) and escalates the rows
// whose ID ends in an even digit.
type orderGuard struct{ calls atomic.Int64 }

func (g *orderGuard) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	g.calls.Add(1)
	for range rand.IntN(300) {
		runtime.Gosched()
	}
	r := guard.Result{Diagnosis: guard.PassDiagnosis, Route: guard.Auto, Confidence: 0.9, DecisionID: "set", DecisionVariant: guard.WithoutReference}
	if strings.ContainsAny(s.ID[len(s.ID)-1:], "02468") {
		r.Fallback = &guard.FallbackInfo{Judge: "fb"}
		r.Route = guard.Fallback
	}
	return r, ctx.Err()
}

func TestRunOrderAndSelectionHash(t *testing.T) {
	var b strings.Builder
	h := sha256.New()
	for i := range 300 {
		fmt.Fprintf(&b, goodRow+"\n", i)
		if i%2 == 0 {
			fmt.Fprintf(h, "r%d\n", i)
		}
	}
	path := writeFile(t, "d.jsonl", b.String())
	src := dataset.NewFileSource(path)
	rep, err := Run(context.Background(), src, Config{Mode: report.ModeCascade, Guard: &orderGuard{}, Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rep.Reproduce.SelectionHash, hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("selection hash %s; want %s (rows collected out of order?)", got, want)
	}
	if rep.Cascade.Escalated != 150 || rep.Input.RowsEvaluated != 300 || rep.Diagnosis.Correct != 300 {
		t.Errorf("escalated %d, evaluated %d, correct %d", rep.Cascade.Escalated, rep.Input.RowsEvaluated, rep.Diagnosis.Correct)
	}
}

// cancelGuard cancels the run when it sees row "r40".
type cancelGuard struct {
	cancel context.CancelFunc
	orderGuard
}

func (g *cancelGuard) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	if s.ID == "r40" {
		g.cancel()
	}
	return g.orderGuard.Evaluate(ctx, s)
}

func TestRunCancelled(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, goodRow+"\n", i)
	}
	path := writeFile(t, "d.jsonl", b.String())
	ctx, cancel := context.WithCancel(context.Background())
	g := &cancelGuard{cancel: cancel}
	rep, err := Run(ctx, dataset.NewFileSource(path), Config{Mode: report.ModePrimary, Guard: g, Workers: 4})
	if !errors.Is(err, context.Canceled) || rep == nil || !rep.Partial {
		t.Fatalf("err %v, report %v; want a partial report and context.Canceled", err, rep != nil)
	}
	in := rep.Input
	if in.RowsEvaluated > 40 || in.RowsRead != in.RowsEvaluated+in.RowsFailed+in.RowsNotEvaluated || in.RowsRead >= 2000 {
		t.Errorf("rows read %d = evaluated %d + failed %d + not evaluated %d?", in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated)
	}
	if g.calls.Load() > 100 {
		t.Errorf("%d rows judged after cancelling at row 40: reading did not stop", g.calls.Load())
	}
}

func TestPercentiles(t *testing.T) {
	// Hand computation: sorted 1..5, p50 at rank 2 → 3; p95 at rank 3.8 → 4.8.
	p := percentiles([]float64{5, 1, 4, 2, 3})
	if p.P50 != 3 || math.Abs(p.P95-4.8) > 1e-12 || p.Mean != 3 || p.Max != 5 || p.N != 5 {
		t.Errorf("percentiles = %+v", p)
	}
	if (percentiles(nil) != report.Percentiles{}) {
		t.Error("empty percentiles not zero")
	}
}

func TestCostNeverMadeUp(t *testing.T) {
	pr := &report.Pricing{Version: "v", Currency: "USD", Models: map[string]report.Price{"m": {Input: 1, Output: 2}}}
	u := report.Usage{Primary: report.LegUsage{Rows: 3, Model: "local"}, Fallback: report.LegUsage{Rows: 2, Model: "m", InputTokens: 1e6, OutputTokens: 5e5}}
	c := report.PriceUsage(pr, &u, 5)
	if c.Primary.Amount != nil || c.Primary.Status != "unavailable" || !strings.Contains(c.Primary.Reason, `"local"`) {
		t.Errorf("unpriced leg: %+v", c.Primary)
	}
	if c.Fallback.Amount == nil || *c.Fallback.Amount != 2 {
		t.Errorf("fallback cost %+v; want 2 (1M×1 + 0.5M×2 per 1M)", c.Fallback)
	}
	if c.Total.Amount != nil || c.Total.Status != "unavailable" || c.PerThousandRows != nil {
		t.Errorf("total %+v; want unavailable", c.Total)
	}
	if c := report.PriceUsage(nil, &u, 5); c.Fallback.Amount != nil {
		t.Error("cost without a snapshot")
	}
	if _, err := report.LoadPricing(writeFile(t, "p.json", `{"version":"v","currency":"USD","unit":"per 1K tokens","models":{}}`)); err == nil {
		t.Error("wrong unit accepted")
	}
}

func TestCompare(t *testing.T) {
	auc := 0.9
	base := &report.Report{Mode: report.ModePrimary, Input: report.Input{RowsEvaluated: 10, RowsLabeled: 10},
		Diagnosis: report.Diagnosis{Attempted: 10, Accuracy: rate(0.8)},
		Decisions: report.Decisions{Generation: []report.Decision{{Decision: "groundedness", N: 5, Accuracy: rate(0.9), AUROC: &auc, ECE: rate(0.05)}}}}
	cur := *base
	cur.Diagnosis.Accuracy = rate(0.79)
	cur.Decisions = report.Decisions{Generation: []report.Decision{{Decision: "groundedness", N: 5, Accuracy: rate(0.9), AUROC: &auc, ECE: rate(0.1)}}}
	g := report.Compare(base, &cur, report.GateOptions{MaxDrop: 0.02, MaxRowChange: 0.1})
	if len(g.Regressions) != 1 || g.Regressions[0].Metric != "decisions.groundedness.ece" || g.Regressions[0].HigherIsBetter || len(g.Problems) != 0 || !g.Failed() {
		t.Errorf("gate %+v; want only the ECE rise", g)
	}
	cur.Mode = report.ModeCascade
	if g := report.Compare(base, &cur, report.GateOptions{MaxDrop: 0.02}); len(g.Notes) == 0 || !strings.Contains(g.Notes[0], "modes differ") {
		t.Errorf("notes %v", g.Notes)
	}
}

// TestCompareFailsClosed: nothing to compare is a failure, not a pass.
func TestCompareFailsClosed(t *testing.T) {
	auc := 0.9
	base := &report.Report{Mode: report.ModePrimary, Input: report.Input{RowsEvaluated: 100, RowsLabeled: 100},
		Diagnosis: report.Diagnosis{Attempted: 100, Accuracy: rate(0.8)},
		Decisions: report.Decisions{Generation: []report.Decision{{Decision: "groundedness", N: 50, Accuracy: rate(0.9), AUROC: &auc}}}}
	opts := report.GateOptions{MaxDrop: 0.02, MaxRowChange: 0.1}
	if g := report.Compare(base, base, opts); g.Failed() || len(g.Problems) != 0 {
		t.Errorf("a report against itself: %+v", g)
	}
	has := func(g report.GateResult, want string) bool {
		return strings.Contains(strings.Join(g.Problems, "\n"), want)
	}
	// No labelled rows now: every metric is missing.
	none := &report.Report{Mode: report.ModePrimary, Input: report.Input{RowsEvaluated: 100}}
	g := report.Compare(base, none, opts)
	for _, want := range []string{"the current run has no labelled rows", "diagnosis.accuracy: in the baseline, missing now",
		"decisions.groundedness.auroc: in the baseline, missing now", "labelled rows: 0, baseline 100"} {
		if !g.Failed() || !has(g, want) {
			t.Errorf("no labels: problems %q lack %q", g.Problems, want)
		}
	}
	// One metric missing (AUROC undefined now).
	cur := *base
	cur.Decisions = report.Decisions{Generation: []report.Decision{{Decision: "groundedness", N: 50, Accuracy: rate(0.9)}}}
	if g := report.Compare(base, &cur, opts); !g.Failed() || len(g.Problems) != 1 || !has(g, "decisions.groundedness.auroc: in the baseline, missing now") {
		t.Errorf("missing AUROC: %+v", g)
	}
	// Row counts: 89 of 100 fails 10%, 91 passes; the tolerance is relative.
	for _, tc := range []struct {
		rows int
		fail bool
	}{{89, true}, {91, false}, {111, true}, {110, false}} {
		cur := *base
		cur.Input.RowsEvaluated, cur.Input.RowsLabeled = tc.rows, tc.rows
		g := report.Compare(base, &cur, opts)
		if g.Failed() != tc.fail || (tc.fail && !has(g, fmt.Sprintf("rows evaluated: %d, baseline 100", tc.rows))) {
			t.Errorf("%d rows against 100: %+v; want failed %v", tc.rows, g, tc.fail)
		}
	}
	// A baseline with nothing labelled cannot gate anything either.
	if g := report.Compare(none, base, opts); !g.Failed() || !has(g, "the baseline has no labelled rows") {
		t.Errorf("unlabelled baseline: %+v", g)
	}
}

func rate(v float64) *float64 { return &v }
