package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/record"
)

// writeRecords records the first n fixture rows as the middleware would,
// with content when withContent(i) says so, and returns the file and the
// records.
func writeRecords(t *testing.T, n int, withContent func(i int) bool, extra string, edit ...func(i int, r *record.Record)) (string, []record.Record) {
	t.Helper()
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	src := dataset.NewFileSource(fixtureFile)
	defer src.Close()
	var buf bytes.Buffer
	var recs []record.Record
	for i := range n {
		it, err := src.Next()
		if err != nil || it.Sample == nil {
			t.Fatal(err, it.Err)
		}
		res, _ := g.Evaluate(context.Background(), *it.Sample)
		rec := record.Record{ID: it.ID, Time: time.Unix(0, 0).UTC(), Result: res}
		if withContent(i) {
			rec.Sample = record.NewSample(it.Sample)
		}
		for _, f := range edit {
			f(i, &rec)
		}
		b, err := record.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
		recs = append(recs, rec)
	}
	buf.WriteString(extra)
	return writeFile(t, "records.jsonl", buf.String()), recs
}

// TestExport: export writes each record with content as a dataset row with
// an empty "expected", which the row parser reads back as the recorded
// sample; records without content are counted and named, and the counts add
// up. Labels filled into the rows join the records in eval.
func TestExport(t *testing.T) {
	fixedClock(t)
	recs, recorded := writeRecords(t, 30, func(i int) bool { return i%3 != 0 }, "")
	out := filepath.Join(t.TempDir(), "rows.jsonl")
	st, stdout, e := runCmd(t, "export", "-records", recs, "-out", out)
	if st != 0 || stdout != "" {
		t.Fatalf("export: exit %d, stdout %q:\n%s", st, stdout, e)
	}
	for _, want := range []string{"30 records read: 20 written to " + out + ", 10 without content, 0 bad lines",
		"warning: 10 records carry no content (the first at records.jsonl:1)", "middleware.WithContent"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 20 {
		t.Fatalf("%d rows written; want 20", len(lines))
	}
	var filled strings.Builder
	j := 0
	for i, rec := range recorded {
		if rec.Sample == nil {
			continue
		}
		row, err := dataset.ParseRow([]byte(lines[j]))
		if err != nil {
			t.Fatalf("row %d does not parse: %v\n%s", j+1, err, lines[j])
		}
		want := rec.Sample.GuardSample(rec.ID)
		if got := row.Sample; got.ID != want.ID || got.Question != want.Question || got.Answer != want.Answer ||
			fmt.Sprint(got.Contexts) != fmt.Sprint(want.Contexts) || (got.Reference == nil) != (want.Reference == nil) {
			t.Errorf("row %d (record %d) is not the recorded sample:\n got %+v\nwant %+v", j+1, i+1, got, want)
		}
		if row.Expected == nil || row.Expected.HasDecisionLabel() || row.Expected.Diagnosis != nil {
			t.Errorf("row %d: expected %+v; want an empty object", j+1, row.Expected)
		}
		if len(row.UnknownKeys) > 0 || !strings.Contains(lines[j], `"expected":{}`) {
			t.Errorf("row %d: unknown keys %q or no empty expected:\n%s", j+1, row.UnknownKeys, lines[j])
		}
		if !strings.Contains(lines[j], `"diagnosis":"`+string(rec.Result.Diagnosis)+`"`) {
			t.Errorf("row %d: meta does not say the recorded diagnosis:\n%s", j+1, lines[j])
		}
		filled.WriteString(strings.Replace(lines[j], `"expected":{}`, `"expected":{"generation":{"groundedness":true}}`, 1) + "\n")
		j++
	}
	// The round trip: the labelled rows join the records by id.
	labelled := writeFile(t, "labelled.jsonl", filled.String())
	rep := filepath.Join(t.TempDir(), "r.json")
	if st, _, e := runCmd(t, "eval", "-records", recs, "-dataset", labelled, "-mode", "recorded", "-pricing", pricingFile, "-out", rep); st != 0 {
		t.Fatalf("eval on the labelled export: exit %d:\n%s", st, e)
	}
	r := readReportFile(t, rep)
	if r.Input.RowsLabeled != 20 || r.Input.RecordsUnlabeled != 10 || r.Input.LabelsUnused != 0 {
		t.Errorf("eval: %d labelled, %d records unlabelled, %d labels unused; want 20, 10, 0", r.Input.RowsLabeled, r.Input.RecordsUnlabeled, r.Input.LabelsUnused)
	}
}

// TestExportUncertain: -uncertain writes only the JUDGE_UNCERTAIN records
// with content, and the counts add up.
func TestExportUncertain(t *testing.T) {
	// Every fixture row is JUDGE_UNCERTAIN under the shipped profile: a
	// few are made what a fallback would have settled.
	recs, recorded := writeRecords(t, 40, func(i int) bool { return i%4 != 0 }, "", func(i int, r *record.Record) {
		if i%3 == 0 {
			r.Result.Diagnosis, r.Result.Action = guard.PassDiagnosis, guard.Allow
		}
	})
	var uncertain, other, noContent int
	for _, r := range recorded {
		switch {
		case r.Result.Diagnosis != guard.JudgeUncertain:
			other++
		case r.Sample == nil:
			noContent++
		default:
			uncertain++
		}
	}
	if uncertain == 0 || other == 0 {
		t.Fatalf("fixture: %d uncertain with content, %d other; want both", uncertain, other)
	}
	st, stdout, e := runCmd(t, "export", "-records", recs, "-uncertain")
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	want := fmt.Sprintf("40 records read: %d written to standard output, %d not uncertain (diagnosis other than JUDGE_UNCERTAIN), %d without content, 0 bad lines", uncertain, other, noContent)
	if !strings.Contains(e, want) {
		t.Errorf("stderr lacks %q:\n%s", want, e)
	}
	if n := strings.Count(stdout, "\n"); n != uncertain || strings.Count(stdout, `"diagnosis":"JUDGE_UNCERTAIN"`) != uncertain {
		t.Errorf("%d rows on stdout; want %d, all JUDGE_UNCERTAIN", n, uncertain)
	}
}

// TestExportFailures: a bad line, records without any content and an
// empty input each exit 1, saying why.
func TestExportFailures(t *testing.T) {
	bad, _ := writeRecords(t, 3, func(int) bool { return true }, `{"recordVersion":"ragtriage.record/2","id":`+"\n")
	none, _ := writeRecords(t, 3, func(int) bool { return false }, "")
	empty := writeFile(t, "empty.jsonl", "")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"export", "-records", bad}, []string{"records.jsonl:4: skipped:", "4 records read: 3 written to standard output, 0 without content, 1 bad lines"}},
		{[]string{"export", "-records", none}, []string{"3 records read: 0 written", "3 without content", "no record carried content: nothing to label"}},
		{[]string{"export", "-records", empty}, []string{"no rows: " + empty + " holds no JSON Lines row"}},
		{[]string{"export", "-records", "missing.jsonl"}, []string{"ragtriage export: -records missing.jsonl: no such file"}},
		{[]string{"export", "-records", fixtureFile}, []string{"144 bad lines", fixtureFile + " holds dataset rows, not records"}},
	} {
		st, _, e := runCmd(t, tc.args...)
		if st != 1 {
			t.Errorf("%q: exit %d; want 1", tc.args, st)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", tc.args, w, e)
			}
		}
	}
	if st, _, e := runCmd(t, "export"); st != 2 || !strings.Contains(e, "-records or -traces is required") {
		t.Errorf("export without input: exit %d:\n%s", st, e)
	}
}

// TestExportTraces: spans exported by the Collector give rows too, from the
// evaluations that carried content; the others are counted.
func TestExportTraces(t *testing.T) {
	st, stdout, e := runCmd(t, "export", "-traces", "../../evalkit/otlp/testdata/otlp-roundtrip.jsonl")
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	var read, written, noContent, bad int
	if _, err := fmt.Sscanf(e[strings.Index(e, "ragtriage export: ")+len("ragtriage export: "):], "%d records read: %d written to standard output, %d without content, %d bad lines",
		&read, &written, &noContent, &bad); err != nil {
		t.Fatalf("summary: %v:\n%s", err, e)
	}
	if read != written+noContent+bad || written == 0 {
		t.Errorf("counts do not add up, or nothing written: %d read, %d written, %d without content, %d bad", read, written, noContent, bad)
	}
	for i, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if _, err := dataset.ParseRow([]byte(l)); err != nil {
			t.Errorf("row %d: %v", i+1, err)
		}
	}
	if n := strings.Count(stdout, "\n"); n != written {
		t.Errorf("%d rows; the summary says %d", n, written)
	}
}

// TestExportRepeatedIDs: two record files with the same ids give each id
// once; the repeats are counted and the first named, and the counts add up.
func TestExportRepeatedIDs(t *testing.T) {
	a, _ := writeRecords(t, 4, func(int) bool { return true }, "")
	b, _ := writeRecords(t, 4, func(int) bool { return true }, "")
	st, stdout, e := runCmd(t, "export", "-records", a+","+b)
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	if n := strings.Count(stdout, "\n"); n != 4 {
		t.Errorf("%d rows written; want 4, one per id", n)
	}
	for _, want := range []string{"8 records read: 4 written to standard output, 4 repeated ids, 0 without content, 0 bad lines",
		"warning: 4 records repeat an id already written (the first at records.jsonl:1, id "} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
}
