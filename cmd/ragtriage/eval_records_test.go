package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/record"
)

func TestEvalRecords(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	// Record the first 30 fixture rows as the middleware would, half without
	// content, plus one bad line.
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	src := dataset.NewFileSource(fixtureFile)
	var buf bytes.Buffer
	for i := 0; i < 30; i++ {
		it, err := src.Next()
		if err != nil || it.Sample == nil {
			t.Fatal(err, it.Err)
		}
		res, _ := g.Evaluate(context.Background(), *it.Sample)
		rec := &record.Record{ID: it.ID, Time: time.Unix(0, 0).UTC(), Result: res,
			Legs: []record.Leg{{Name: "primary", Judge: lexical.Name, LatencyMs: 1.5}}}
		if i%2 == 0 {
			rec.Sample = record.NewSample(it.Sample)
		}
		b, err := record.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	src.Close()
	buf.WriteString(`{"recordVersion":"ragtriage.record/9","id":"future"}` + "\n")
	recs := filepath.Join(dir, "records.jsonl")
	os.WriteFile(recs, buf.Bytes(), 0o644)

	out := filepath.Join(dir, "recorded.json")
	st, _, e := runCmd(t, "eval", "-records", recs, "-dataset", fixtureFile, "-mode", "recorded", "-pricing", pricingFile, "-out", out)
	if st != 1 { // the bad record line
		t.Errorf("recorded: exit %d; want 1: %s", st, e)
	}
	r := readReportFile(t, out)
	if r.Input.RowsEvaluated != 30 || r.Input.RowsFailed != 1 || r.Input.LabelsUnused != 144-30 || r.Input.RecordsUnlabeled != 0 {
		t.Errorf("recorded: evaluated %d failed %d unused labels %d unlabeled %d", r.Input.RowsEvaluated, r.Input.RowsFailed, r.Input.LabelsUnused, r.Input.RecordsUnlabeled)
	}
	if r.Latency.Primary.N != 30 || r.Latency.Primary.P50 != 1.5 {
		t.Errorf("recorded legs: %+v", r.Latency.Primary)
	}
	if !strings.Contains(e, "records.jsonl:31: bad_line: recordVersion") {
		t.Errorf("stderr lacks the bad record:\n%s", e)
	}
	// Judging records again needs their content.
	out2 := filepath.Join(dir, "rejudged.json")
	runCmd(t, "eval", "-records", recs, "-dataset", fixtureFile, "-mode", "primary", "-pricing", pricingFile, "-out", out2)
	r2 := readReportFile(t, out2)
	if r2.Input.RowsEvaluated != 15 || r2.Input.FailuresByKind[report.FailNoSample] != 15 {
		t.Errorf("rejudged: evaluated %d, no-sample failures %d; want 15, 15", r2.Input.RowsEvaluated, r2.Input.FailuresByKind[report.FailNoSample])
	}
	// The recorded results are the guard's: same diagnosis accuracy on the
	// re-judged half as a primary replay of those rows would give.
	if r2.Diagnosis.Attempted == 0 {
		t.Error("rejudged records were not joined with their labels")
	}
}

func TestEvalTraces(t *testing.T) {
	fixedClock(t)
	good, err := os.ReadFile("../../evalkit/otlp/testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces.jsonl")
	os.WriteFile(traces, append(good, "{truncated\n"...), 0o644)
	out := filepath.Join(dir, "traces.json")
	st, _, e := runCmd(t, "eval", "-traces", traces, "-mode", "recorded", "-pricing", pricingFile, "-out", out)
	if st != 1 { // the truncated line
		t.Errorf("exit %d; want 1: %s", st, e)
	}
	r := readReportFile(t, out)
	if r.Input.RowsEvaluated == 0 || r.Input.RowsFailed != 1 || r.Input.RowsRead != r.Input.RowsEvaluated+r.Input.RowsFailed+r.Input.RowsNotEvaluated {
		t.Errorf("read %d evaluated %d failed %d not evaluated %d", r.Input.RowsRead, r.Input.RowsEvaluated, r.Input.RowsFailed, r.Input.RowsNotEvaluated)
	}
	if !strings.Contains(e, "traces.jsonl:2: bad_line") {
		t.Errorf("stderr lacks the bad line:\n%s", e)
	}
	if st, _, e := runCmd(t, "eval", "-traces", traces, "-records", traces, "-out", out); st != 2 || !strings.Contains(e, "cannot be combined") {
		t.Errorf("-traces with -records: exit %d: %s", st, e)
	}
}
