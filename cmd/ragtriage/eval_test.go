package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
	"github.com/ragtriage/ragtriage/record"
)

var update = flag.Bool("update", false, "rewrite testdata/expected-report.json")

const (
	fixtureFile = "../../testdata/eval/fixture.jsonl"
	goldenFile  = "../../testdata/expected-report.json"
	pricingFile = "../../testdata/pricing/2025-06-01.json"
)

// fixedClock pins the report's timestamp.
func fixedClock(t *testing.T) {
	t.Helper()
	old := evalNow
	evalNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	t.Cleanup(func() { evalNow = old })
}

func runCmd(t *testing.T, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	status = run(args, strings.NewReader(""), &o, &e)
	return status, o.String(), e.String()
}

func readReportFile(t *testing.T, path string) *report.Report {
	t.Helper()
	r, err := report.ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// machineFields are the report fields that depend on the machine or the
// invocation, not on the data: they are left out of the golden comparison.
var machineFields = [][]string{
	{"reproducibility", "timestamp"},
	{"reproducibility", "command"},
	{"reproducibility", "goVersion"},
	{"reproducibility", "modules"},
	{"reproducibility", "elapsedSeconds"},
	{"reproducibility", "metricsSeconds"},
	{"reproducibility", "workers"},
	{"latency", "primary"},
	{"latency", "combined"},
	// The cascade's p95 is of the fallback calls' wall time, measured here
	// even for the simulation.
	{"cascade", "runtime", "fallbackP95Ms"},
}

func normalizeReport(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, path := range machineFields {
		obj := m
		for _, k := range path[:len(path)-1] {
			obj, _ = obj[k].(map[string]any)
		}
		if obj != nil {
			delete(obj, path[len(path)-1])
		}
	}
	return m
}

// firstDiff returns the path of the first difference between two decoded
// JSON values.
func firstDiff(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return path
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if d := firstDiff(path+"."+k, av[k], bv[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s (length %d vs %v)", path, len(av), len(bv))
		}
		for i := range av {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v vs %v", path, a, b)
	}
	return ""
}

// TestGoldenReport replays the fixture in cascade mode with the simulated
// fallback and compares the report with testdata/expected-report.json,
// ignoring the machine-dependent fields. Run with -update to rewrite it.
//
// It runs with -workers 1. The cascade's cache and call collapsing key on a
// row's content, not its id: when two rows repeat a sample, whether the
// second finds the first's estimates in the cache, shares its call, or (with
// a label-reading simulation) gets estimates drawn for the other id depends
// on which reaches the cascade first. One worker fixes that order, so every
// figure, the runtime counts included, is deterministic. (The fixture repeats
// no sample today, so more workers would give the same report; the golden
// must not start to flake if one is added.)
func TestGoldenReport(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	status, _, stderr := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-pricing", pricingFile, "-workers", "1",
		"-out", out, "-md", filepath.Join(dir, "report.md"), "-html", filepath.Join(dir, "report.html"))
	if status != 0 {
		t.Fatalf("eval exited %d: %s", status, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", goldenFile)
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/ragtriage -run TestGoldenReport -update)", err)
	}
	g, w := normalizeReport(t, got), normalizeReport(t, want)
	if d := firstDiff("report", g, w); d != "" {
		t.Errorf("report differs from %s at %s\n(rerun with -update after a deliberate change)", goldenFile, d)
	}
	// The golden report exercises every section.
	rep := readReportFile(t, out)
	switch {
	case rep.Cascade == nil || rep.Cascade.Escalated == 0:
		t.Error("golden report escalates nothing")
	case rep.Simulation == nil:
		t.Error("golden report does not say the fallback is simulated")
	case rep.Cost.Total.Amount == nil:
		t.Errorf("golden report has no cost: %+v", rep.Cost.Total)
	case rep.Usage.Fallback.InputTokens == 0:
		t.Error("golden report has no fallback tokens")
	case rep.Cascade.Runtime == nil || rep.Cascade.Runtime.FallbackCalls == 0 || rep.Cascade.Settings == nil:
		t.Errorf("golden report lacks the cascade runtime: %+v", rep.Cascade)
	}
}

func TestEvalModes(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	reports := map[string]*report.Report{}
	for _, mode := range []string{"primary", "fallback", "cascade"} {
		out := filepath.Join(dir, mode+".json")
		status, _, stderr := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-pricing", pricingFile, "-out", out, "-workers", "3")
		if status != 0 {
			t.Fatalf("%s: exit %d: %s", mode, status, stderr)
		}
		reports[mode] = readReportFile(t, out)
	}
	p, f, c := reports["primary"], reports["fallback"], reports["cascade"]
	for mode, r := range reports {
		in := r.Input
		if in.RowsRead != 144 || in.RowsEvaluated != 144 || in.RowsFailed != 0 {
			t.Errorf("%s: rows read/evaluated/failed = %d/%d/%d; want 144/144/0", mode, in.RowsRead, in.RowsEvaluated, in.RowsFailed)
		}
		if r.Reproduce.Datasets[0].SHA256 != p.Reproduce.Datasets[0].SHA256 {
			t.Errorf("%s: dataset hash differs between modes", mode)
		}
	}
	if p.Usage.Fallback.Rows != 0 || p.Simulation != nil || p.Cascade != nil {
		t.Errorf("primary mode used the fallback: %+v", p.Usage.Fallback)
	}
	if f.Usage.Primary.Rows != 0 || f.Usage.Fallback.Rows != 144 {
		t.Errorf("fallback mode: primary rows %d, fallback rows %d; want 0, 144", f.Usage.Primary.Rows, f.Usage.Fallback.Rows)
	}
	if c.Cascade.Escalated+c.Cascade.ResolvedByPrimary != 144 || c.Usage.Fallback.Rows != c.Cascade.Escalated {
		t.Errorf("cascade: escalated %d + resolved %d, fallback rows %d", c.Cascade.Escalated, c.Cascade.ResolvedByPrimary, c.Usage.Fallback.Rows)
	}
	// The cascade's own counts agree with the report (the fixture repeats
	// no sample, but rows that share a question and contexts share the
	// estimates that do not look at the answer: those come from the cache,
	// every other escalated estimate is settled by the fallback).
	if rt := c.Cascade.Runtime; rt == nil {
		t.Error("cascade: no runtime block")
	} else if rt.Escalations != c.Cascade.Escalated || rt.Requested != c.Cascade.SettledDecisions+c.Cascade.UnsettledDecisions ||
		rt.Requested != rt.CacheHits+rt.CacheMisses || rt.Settled != rt.CacheMisses || rt.BreakerTrips != 0 || rt.BreakerState != "closed" ||
		rt.InputTokens != c.Usage.Fallback.InputTokens || rt.OutputTokens != c.Usage.Fallback.OutputTokens {
		t.Errorf("cascade runtime %+v disagrees with the report (escalated %d, settled+unsettled %d, fallback tokens %d+%d)", *rt,
			c.Cascade.Escalated, c.Cascade.SettledDecisions+c.Cascade.UnsettledDecisions, c.Usage.Fallback.InputTokens, c.Usage.Fallback.OutputTokens)
	}
	if f.Cascade != nil || p.Cascade != nil {
		t.Error("a cascade block outside cascade mode")
	}
	// The rows the primary resolves alone are the same in primary and
	// cascade mode.
	if got, want := c.Cascade.ResolvedByPrimary, p.Diagnosis.Routes["auto"]; got != want {
		t.Errorf("cascade resolved %d rows by primary; primary mode routed %d auto", got, want)
	}
	// A simulated fallback that reads the labels lifts the diagnosis.
	if !(*c.Diagnosis.Accuracy > *p.Diagnosis.Accuracy) {
		t.Errorf("cascade accuracy %.3f not above primary %.3f", *c.Diagnosis.Accuracy, *p.Diagnosis.Accuracy)
	}
}

func TestEvalOutputs(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	md, htmlPath := filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html")
	status, _, stderr := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-pricing", pricingFile,
		"-out", filepath.Join(dir, "r.json"), "-md", md, "-html", htmlPath)
	if status != 0 {
		t.Fatalf("exit %d: %s", status, stderr)
	}
	mdb, _ := os.ReadFile(md)
	for _, want := range []string{"| threshold | coverage | accepted errors | error rate |", "Simulated fallback", "## Cascade", "Cascade runtime (`cascade(simulated-fallback)`", "Cascade settings:", "## Reproducibility", "groundedness"} {
		if !bytes.Contains(mdb, []byte(want)) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	hb, _ := os.ReadFile(htmlPath)
	h := string(hb)
	for _, want := range []string{"<svg", "Reliability diagrams", "Risk–coverage", "Two-sided threshold sweep", "simulation", "<h2>Cascade</h2>", "breaker trips"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", " src=", " href=", "@import", "url("} {
		if strings.Contains(h, bad) {
			t.Errorf("HTML is not self-contained: it has %q", bad)
		}
	}
}

func TestEvalBadLines(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	lines, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.SplitN(lines, []byte("\n"), 3)
	data := string(first[0]) + "\n{not json\n\n" + `{"id":"nul","question":"q\u0000","contexts":[],"answer":"a"}` + "\n" + string(first[1]) + "\n" + `{"id":"x","question":"q"}`
	in := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(in, []byte(data), 0o644)
	out := filepath.Join(dir, "r.json")
	status, _, stderr := runCmd(t, "eval", "-dataset", in, "-pricing", pricingFile, "-out", out)
	if status != 1 {
		t.Errorf("exit %d; want 1 (rows failed)", status)
	}
	r := readReportFile(t, out)
	in2 := r.Input
	if in2.RowsRead != 5 || in2.RowsEvaluated != 2 || in2.RowsFailed != 3 || in2.RowsRead != in2.RowsEvaluated+in2.RowsFailed+in2.RowsNotEvaluated {
		t.Errorf("rows read %d, evaluated %d, failed %d; want 5, 2, 3", in2.RowsRead, in2.RowsEvaluated, in2.RowsFailed)
	}
	if in2.FailuresByKind[report.FailBadLine] != 2 || in2.FailuresByKind[report.FailSample] != 1 {
		t.Errorf("failures by kind %v; want 2 bad lines, 1 invalid sample", in2.FailuresByKind)
	}
	wantPos := []string{"bad.jsonl:2", "bad.jsonl:4", "bad.jsonl:6"}
	for i, f := range in2.Failures {
		if i < len(wantPos) && f.Pos.String() != wantPos[i] {
			t.Errorf("failure %d at %s; want %s", i, f.Pos, wantPos[i])
		}
	}
	if !strings.Contains(stderr, "bad.jsonl:6: bad_line: answer: missing") {
		t.Errorf("stderr does not name the bad line:\n%s", stderr)
	}
}

func TestEvalBaselineGate(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", base); st != 0 {
		t.Fatal(e)
	}
	// Unchanged: passes.
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", filepath.Join(dir, "same.json"), "-baseline", base); st != 0 {
		t.Errorf("same data against itself: exit %d: %s", st, e)
	}
	// A baseline that was better: fails, naming the metric.
	r := readReportFile(t, base)
	*r.Diagnosis.Accuracy += 0.05
	for i := range r.Decisions.Generation {
		if r.Decisions.Generation[i].Decision == "groundedness" {
			*r.Decisions.Generation[i].Brier -= 0.03
		}
	}
	better := filepath.Join(dir, "better.json")
	if err := r.WriteJSON(better); err != nil {
		t.Fatal(err)
	}
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", filepath.Join(dir, "cur.json"), "-baseline", better, "-max-drop", "0.02")
	if st != 1 {
		t.Errorf("regression: exit %d; want 1", st)
	}
	for _, want := range []string{"regression: diagnosis.accuracy dropped", "regression: decisions.groundedness.brier rose"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
}

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

func TestEvalInterrupted(t *testing.T) {
	fixedClock(t)
	old := evalSignal
	evalSignal = func(ctx context.Context) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return ctx, cancel
	}
	t.Cleanup(func() { evalSignal = old })
	out := filepath.Join(t.TempDir(), "r.json")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", out)
	if st != 1 {
		t.Errorf("exit %d; want 1", st)
	}
	r := readReportFile(t, out)
	if !r.Partial || !strings.Contains(r.PartialReason, "interrupted") {
		t.Errorf("report not marked partial: %v %q", r.Partial, r.PartialReason)
	}
	if r.Input.RowsRead != r.Input.RowsEvaluated+r.Input.RowsFailed+r.Input.RowsNotEvaluated {
		t.Errorf("rows do not add up: %+v", r.Input)
	}
	if !strings.Contains(e, "partial report") {
		t.Errorf("stderr lacks the partial notice: %s", e)
	}
}

func TestEvalUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-out", "x.json"}, "-dataset, -records or -traces is required"},
		{[]string{"eval", "-dataset", fixtureFile}, "-out is required"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "both"}, "-mode \"both\""},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "recorded"}, "-mode recorded needs -records"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-fallback", "oracle"}, "unknown (available: openai, simulated)"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-fallback-concurrency", "0"}, "-fallback-concurrency 0"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-fallback-cache", "-3"}, "-fallback-cache -3"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-fallback-waiting", "-2"}, "-fallback-waiting -2"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-fallback-timeout", "0s"}, "-fallback-timeout 0s"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-fallback-budget-window", "0s", "-fallback-budget-calls", "5"}, "-fallback-budget-window 0s"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "fallback", "-fallback", "openai"}, "needs -fallback-model"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-fallback-policy", "0.8,0.2"}, "-fallback-policy"},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "x", "-mode", "cascade", "-sim-error-rate", "2"}, "error rate 2 not in [0, 1]"},
	} {
		st, _, e := runCmd(t, tc.args...)
		if st != 2 || !strings.Contains(e, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, st, e, tc.want)
		}
	}
}

func TestCalibrateCommand(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "profile.json")
	// Every labeled decision: some have too few labels.
	st, _, e := runCmd(t, "calibrate", "-dataset", fixtureFile, "-out", prof)
	if st != 1 || !strings.Contains(e, "refusing: context_conflict: 6 labels, fewer than -min-labels 30") {
		t.Errorf("exit %d; want 1 with a refusal naming context_conflict:\n%s", st, e)
	}
	if _, err := os.Stat(prof); err == nil {
		t.Error("a profile was written despite the refusal")
	}
	// A single class.
	one := filepath.Join(dir, "one.jsonl")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"id":"r%d","question":"q%d?","contexts":[{"id":"c1","text":"text %d"}],"answer":"a%d","expected":{"generation":{"groundedness":true}}}`+"\n", i, i, i, i)
	}
	os.WriteFile(one, []byte(b.String()), 0o644)
	st, _, e = runCmd(t, "calibrate", "-dataset", one, "-out", prof)
	if st != 1 || !strings.Contains(e, "groundedness: all 40 labels are true: a calibrator cannot be fitted on a single class") {
		t.Errorf("one class: exit %d:\n%s", st, e)
	}
	// The decisions with enough labels.
	rep := filepath.Join(dir, "cal.json")
	st, out, e := runCmd(t, "calibrate", "-dataset", fixtureFile, "-decisions", "groundedness,correctness,chunk_relevance", "-out", prof, "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	if !strings.Contains(out, "groundedness") || !strings.Contains(out, "kept from the base profile") {
		t.Errorf("summary:\n%s", out)
	}
	p, err := lexical.LoadProfile(prof)
	if err != nil {
		t.Fatalf("written profile does not load: %v", err)
	}
	if !strings.HasPrefix(p.Version, "calibrated-20260102-") || len(p.Data) != 1 || p.Data[0].Path != "fixture.jsonl" {
		t.Errorf("profile version %q, data %+v", p.Version, p.Data)
	}
	if !strings.HasPrefix(p.Decisions["context_conflict"].Sources[0], "not refitted") {
		t.Errorf("kept decision not marked: %v", p.Decisions["context_conflict"].Sources)
	}
	// The thresholds keep their promise on the out-of-fold predictions.
	var cr calibrationReport
	cb, _ := os.ReadFile(rep)
	if err := json.Unmarshal(cb, &cr); err != nil {
		t.Fatal(err)
	}
	for _, d := range cr.Decisions {
		for _, reg := range []struct {
			name string
			r    float64
			n    int
		}{{"auto-pass", d.AutoPass.UpperBound, d.AutoPass.Count}, {"auto-fail", d.AutoFail.UpperBound, d.AutoFail.Count}} {
			if reg.n > 0 && reg.r > 0.05 {
				t.Errorf("%s %s: upper bound %.3f > alpha", d.Decision, reg.name, reg.r)
			}
		}
		th := p.Policy.For(mustDecision(t, d.Decision))
		if th != d.Policy {
			t.Errorf("%s: profile policy %+v, report %+v", d.Decision, th, d.Policy)
		}
	}
	// It loads with judge -profile and eval -profile.
	var o, e2 bytes.Buffer
	if st := run([]string{"judge", "-profile", prof, sampleFile}, strings.NewReader(""), &o, &e2); st != 0 {
		t.Errorf("judge -profile: exit %d: %s", st, e2.String())
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-profile", prof, "-pricing", pricingFile, "-out", filepath.Join(dir, "r.json")); st != 0 {
		t.Errorf("eval -profile: exit %d: %s", st, e)
	}
	if g, err := lexical.New(p); err != nil {
		t.Error(err)
	} else if _, err := guard.New(guard.WithJudge(g), guard.WithPolicy(g.Policy())); err != nil {
		t.Error(err)
	}
}

func mustDecision(t *testing.T, name string) guard.Decision {
	t.Helper()
	d, err := guard.ParseDecision(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
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

// judgeModel answers the LLM judge's prompts like a plain model: no for
// groundedness (so no quote is needed), conflict and contradiction, yes for
// the rest, with log-probabilities and the token counts stated.
func judgeModel(r fakeopenai.Request) fakeopenai.Reply {
	sys := r.Role("system")
	rep := fakeopenai.YesNo(0.93, "Yes")
	switch {
	case strings.Contains(sys, "QUOTE [context id]"), strings.Contains(sys, "contradict"), strings.Contains(sys, "materially disagree"):
		rep = fakeopenai.YesNo(0.06, "No")
	}
	rep.PromptTokens, rep.CompletionTokens = 250, 1
	return rep
}

// fixtureHead writes the first n rows of the fixture to a file.
func fixtureHead(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitN(b, []byte("\n"), n+1)
	path := filepath.Join(t.TempDir(), "head.jsonl")
	if err := os.WriteFile(path, bytes.Join(lines[:n], []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalOpenAIFallback runs eval end to end with the openai fallback
// against an in-process OpenAI-compatible server (internal/fakeopenai, a
// simulation of a model server) through langchaingo's real client: in
// cascade mode behind the cascade, and alone in fallback mode.
func TestEvalOpenAIFallback(t *testing.T) {
	fixedClock(t)
	srv := fakeopenai.New(judgeModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "dummy-key")
	data := fixtureHead(t, 24)
	dir := t.TempDir()

	out := filepath.Join(dir, "cascade.json")
	md := filepath.Join(dir, "cascade.md")
	st, _, e := runCmd(t, "eval", "-dataset", data, "-mode", "cascade", "-fallback", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out, "-md", md, "-workers", "2")
	if st != 0 {
		t.Fatalf("cascade: exit %d: %s", st, e)
	}
	r := readReportFile(t, out)
	in := r.Input
	if in.RowsRead != 24 || in.RowsEvaluated != 24 || in.RowsFailed != 0 || in.RowsWithJudgeErrors != 0 {
		t.Errorf("rows read %d, evaluated %d, failed %d, with judge errors %d; want 24, 24, 0, 0", in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsWithJudgeErrors)
	}
	c := r.Cascade
	if c == nil || c.Escalated == 0 || c.Runtime == nil {
		t.Fatalf("nothing escalated: %+v", c)
	}
	rt := c.Runtime
	u := r.Usage.Fallback
	switch {
	case r.Simulation != nil:
		t.Error("an LLM fallback reported as a simulation")
	case u.Judge != "llmjudge/gpt-4o-mini" || u.Model != "gpt-4o-mini" || r.Reproduce.FallbackModel != "gpt-4o-mini":
		t.Errorf("fallback leg judge %q, model %q", u.Judge, u.Model)
	case rt.Escalator != "cascade(llmjudge/gpt-4o-mini)":
		t.Errorf("escalator %q", rt.Escalator)
	case u.Rows != c.Escalated || u.Calls != srv.Count() || u.InputTokens != 250*srv.Count() || u.OutputTokens != srv.Count():
		t.Errorf("fallback leg: rows %d of %d escalated, %d calls, %d+%d tokens; the server answered %d requests of 250+1 tokens",
			u.Rows, c.Escalated, u.Calls, u.InputTokens, u.OutputTokens, srv.Count())
	case rt.InputTokens != u.InputTokens || rt.Settled == 0 || rt.Failed != 0 || rt.BreakerTrips != 0:
		t.Errorf("runtime %+v; fallback leg tokens %d", *rt, u.InputTokens)
	case r.Latency.Fallback.N != c.Escalated || r.Latency.Combined.N != 24:
		t.Errorf("latency n: fallback %d, combined %d", r.Latency.Fallback.N, r.Latency.Combined.N)
	}
	want := (float64(u.InputTokens)*0.15 + float64(u.OutputTokens)*0.60) / 1e6
	if a := r.Cost.Fallback.Amount; a == nil || math.Abs(*a-want) > 1e-12 || r.Cost.Total.Amount == nil {
		t.Errorf("fallback cost %+v; want %v priced as gpt-4o-mini", r.Cost.Fallback, want)
	}
	for _, req := range srv.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer dummy-key" || req.Model != "gpt-4o-mini" {
			t.Fatalf("request with Authorization %q, model %q", got, req.Model)
		}
	}
	if mdb, _ := os.ReadFile(md); !bytes.Contains(mdb, []byte("Cascade runtime (`cascade(llmjudge/gpt-4o-mini)`")) || bytes.Contains(mdb, []byte("Simulated fallback")) {
		t.Error("Markdown: no runtime block, or a simulation note")
	}

	// Fallback mode: the LLM judge alone, on every row; a model missing
	// from the pricing snapshot makes the cost unavailable, never 0.
	before := srv.Count()
	out = filepath.Join(dir, "fallback.json")
	st, _, e = runCmd(t, "eval", "-dataset", data, "-mode", "fallback", "-fallback", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "local-model", "-pricing", pricingFile, "-out", out)
	if st != 0 {
		t.Fatalf("fallback: exit %d: %s", st, e)
	}
	r = readReportFile(t, out)
	u = r.Usage.Fallback
	if r.Input.RowsEvaluated != 24 || u.Rows != 24 || r.Usage.Primary.Rows != 0 || u.Calls != srv.Count()-before || u.InputTokens != 250*u.Calls {
		t.Errorf("fallback mode: %d evaluated, fallback rows %d, primary rows %d, calls %d (server %d), input tokens %d",
			r.Input.RowsEvaluated, u.Rows, r.Usage.Primary.Rows, u.Calls, srv.Count()-before, u.InputTokens)
	}
	if r.Cost.Fallback.Status != "unavailable" || r.Cost.Fallback.Amount != nil || !strings.Contains(r.Cost.Fallback.Reason, `"local-model"`) || r.Cost.Total.Amount != nil {
		t.Errorf("cost of an unpriced model: %+v, total %+v", r.Cost.Fallback, r.Cost.Total)
	}
	if r.Cascade != nil {
		t.Error("fallback mode has a cascade block")
	}
}

// TestEvalOpenAIFallbackDown: a fallback server that fails opens the
// breaker; every row still gets its result (JUDGE_UNCERTAIN where the
// fallback was needed) and the report counts the trip and the refusals.
// Every call failed, so eval exits 1 quoting the error, unless
// -allow-fallback-errors.
func TestEvalOpenAIFallbackDown(t *testing.T) {
	fixedClock(t)
	srv := fakeopenai.New(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Status: 500, Message: "down"} })
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "dummy-key")
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"eval", "-dataset", fixtureHead(t, 24), "-mode", "cascade", "-fallback", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "gpt-4o-mini", "-fallback-breaker-failures", "2", "-fallback-breaker-cooldown", "1h", "-workers", "1",
		"-pricing", pricingFile, "-out", out}
	st, _, e := runCmd(t, args...)
	if st != 1 || !strings.Contains(e, "2 of 2 fallback calls failed") || !strings.Contains(e, "500: down") {
		t.Errorf("exit %d; want 1 quoting the failed calls: %s", st, e)
	}
	if st, _, e := runCmd(t, append(args, "-allow-fallback-errors")...); st != 0 {
		t.Fatalf("-allow-fallback-errors: exit %d: %s", st, e)
	}
	r := readReportFile(t, out)
	if fe := r.FallbackErrors; fe == nil || fe.Calls != 2 || fe.Failed != 2 || fe.Transport != 0 {
		t.Errorf("fallbackErrors %+v; want 2 of 2 calls failed, none at the transport level", fe)
	}
	c := r.Cascade
	rt := c.Runtime
	switch {
	case r.Input.RowsEvaluated != 24 || r.Input.RowsFailed != 0:
		t.Errorf("rows evaluated %d, failed %d; want 24, 0", r.Input.RowsEvaluated, r.Input.RowsFailed)
	case rt.BreakerTrips != 1 || rt.BreakerState != "open" || rt.FallbackCalls != 2 || rt.FallbackCallErrors != 2:
		t.Errorf("breaker trips %d, state %s, calls %d, call errors %d; want 1, open, 2, 2", rt.BreakerTrips, rt.BreakerState, rt.FallbackCalls, rt.FallbackCallErrors)
	case rt.RefusedBreaker == 0 || rt.Settled != 0 || c.StillUncertain != c.Escalated:
		t.Errorf("refused by breaker %d, settled %d, still uncertain %d of %d escalated", rt.RefusedBreaker, rt.Settled, c.StillUncertain, c.Escalated)
	case c.FallbackFailures != r.Usage.Fallback.Rows || r.Usage.Fallback.Rows < 1 || r.Usage.Fallback.Rows > 2 || r.Usage.Fallback.InputTokens != 0:
		// The two failed calls came from one or two rows (an escalation
		// may ask about chunks in a call of their own).
		t.Errorf("fallback failures %d, fallback leg rows %d, tokens %d; want the 1 or 2 rows that called, and no tokens", c.FallbackFailures, r.Usage.Fallback.Rows, r.Usage.Fallback.InputTokens)
	case r.Diagnosis.Actions["block"] < c.StillUncertain:
		t.Errorf("actions %v: the fail-closed rule did not block the %d unsettled rows", r.Diagnosis.Actions, c.StillUncertain)
	}
}

// TestEvalOpenAIFallbackNoKey: without OPENAI_API_KEY the run stops with a
// usage error before any request.
func TestEvalOpenAIFallbackNoKey(t *testing.T) {
	srv := fakeopenai.New(judgeModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "")
	out := filepath.Join(t.TempDir(), "r.json")
	for _, mode := range []string{"cascade", "fallback"} {
		st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-fallback", "openai", "-fallback-base-url", srv.URL,
			"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out)
		if st != 2 || !strings.Contains(e, "-fallback openai: llmjudge: no API key (set OPENAI_API_KEY") {
			t.Errorf("%s without a key: exit %d, stderr %q; want 2 naming OPENAI_API_KEY", mode, st, e)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d requests were made without a key", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written")
	}
	t.Setenv(llmjudge.APIKeyEnv, "k")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-fallback", "openai", "-fallback-base-url", "ftp://x", "-fallback-model", "m", "-out", out)
	if st != 2 || !strings.Contains(e, `base URL "ftp://x"`) || srv.Count() != 0 {
		t.Errorf("bad base URL: exit %d, stderr %q", st, e)
	}
}

// TestEvalClaimsSentences runs eval end to end with -claims sentences on the
// fixture: the claims section counts every sentence of every answer, its
// counts add up, and the Markdown and HTML show it; in cascade mode the
// uncertain claims go to the fallback one by one.
func TestEvalClaimsSentences(t *testing.T) {
	fixedClock(t)
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	wantClaims, wantRows := 0, 0
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var row struct{ Answer string }
		if err := json.Unmarshal(l, &row); err != nil {
			t.Fatal(err)
		}
		if n := len(lexical.Sentences(row.Answer)); n > 0 {
			wantClaims += n
			wantRows++
		}
	}
	dir := t.TempDir()
	var primaryUncertain int
	for _, mode := range []string{"primary", "cascade"} {
		out, md, html := filepath.Join(dir, mode+".json"), filepath.Join(dir, mode+".md"), filepath.Join(dir, mode+".html")
		st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-claims", "sentences", "-pricing", pricingFile, "-workers", "2",
			"-out", out, "-md", md, "-html", html)
		if st != 0 {
			t.Fatalf("%s: exit %d: %s", mode, st, e)
		}
		r := readReportFile(t, out)
		c := r.Claims
		if c == nil {
			t.Fatalf("%s: no claims section", mode)
		}
		sum := c.ByVerdict["pass"] + c.ByVerdict["fail"] + c.ByVerdict["uncertain"]
		switch {
		case r.Reproduce.ClaimExtractor == nil || r.Reproduce.ClaimExtractor.Name != lexical.SentenceClaimsName:
			t.Errorf("%s: extractor %+v", mode, r.Reproduce.ClaimExtractor)
		case c.RowsWithClaims != wantRows || c.RowsWithClaims+c.RowsWithoutClaims != r.Input.RowsEvaluated:
			t.Errorf("%s: rows with claims %d, without %d, evaluated %d; want %d with claims", mode, c.RowsWithClaims, c.RowsWithoutClaims, r.Input.RowsEvaluated, wantRows)
		case c.Claims != wantClaims || sum != c.Claims:
			t.Errorf("%s: claims %d, by verdict %v; want %d", mode, c.Claims, c.ByVerdict, wantClaims)
		case c.RowsListed != min(report.MaxListedClaimRows, c.RowsWithFailedClaim+c.RowsWithUncertainClaim) || c.RowsListed == 0:
			t.Errorf("%s: %d rows listed of %d + %d", mode, c.RowsListed, c.RowsWithFailedClaim, c.RowsWithUncertainClaim)
		case c.Escalated != c.EscalatedSettled+c.EscalatedUnsettled:
			t.Errorf("%s: escalated %d ≠ %d + %d", mode, c.Escalated, c.EscalatedSettled, c.EscalatedUnsettled)
		}
		if mode == "primary" {
			primaryUncertain = c.ByVerdict["uncertain"]
			if c.Escalated != 0 {
				t.Errorf("primary mode escalated %d claims", c.Escalated)
			}
		} else if c.Escalated == 0 || c.Escalated != primaryUncertain || r.Cascade == nil || r.Cascade.Escalated == 0 {
			t.Errorf("cascade: %d claims escalated; the primary left %d uncertain", c.Escalated, primaryUncertain)
		}
		first := c.Rows[0].Claims[0].Text
		mdb, _ := os.ReadFile(md)
		htb, _ := os.ReadFile(html)
		if !bytes.Contains(mdb, []byte("## Claims (advanced groundedness)")) || !bytes.Contains(mdb, []byte("claim extractor: `ragtriage/lexical-sentences` 1.0.0")) || !bytes.Contains(mdb, []byte(strings.ReplaceAll(first, "|", `\|`))) {
			t.Errorf("%s: Markdown lacks the claims section, the extractor or the first listed claim %q", mode, first)
		}
		if !bytes.Contains(htb, []byte("<h2>Claims (advanced groundedness)</h2>")) {
			t.Errorf("%s: HTML lacks the claims section", mode)
		}
	}
	out := filepath.Join(dir, "x.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-claims", "atoms", "-out", out); st != 2 || !strings.Contains(e, `-claims "atoms": want off, sentences or openai`) {
		t.Errorf("-claims atoms: exit %d, stderr %q", st, e)
	}
	recs := filepath.Join(dir, "none.jsonl")
	os.WriteFile(recs, nil, 0o644)
	if st, _, e := runCmd(t, "eval", "-records", recs, "-mode", "recorded", "-claims", "sentences", "-out", out); st != 2 || !strings.Contains(e, "recorded mode judges nothing") {
		t.Errorf("-claims with recorded mode: exit %d, stderr %q", st, e)
	}
}

// claimsModel answers the claim-extraction prompt with the answer as its
// first claim and a planted claim no context supports as its second, and
// the judge prompts like judgeModel.
func claimsModel(r fakeopenai.Request) fakeopenai.Reply {
	if !strings.Contains(r.Role("system"), "atomic claims") {
		return judgeModel(r)
	}
	user := r.Role("human")
	if user == "" {
		user = r.Role("user")
	}
	_, rest, _ := strings.Cut(user, "<<<BEGIN ANSWER ")
	_, rest, _ = strings.Cut(rest, ">>>\n")
	answer, _, _ := strings.Cut(rest, "\n<<<END ANSWER")
	return fakeopenai.Reply{Choices: []string{"- " + strings.Join(strings.Fields(answer), " ") + "\n- " + plantedClaim}, PromptTokens: 120, CompletionTokens: 20}
}

const plantedClaim = "Zorblatt Quixotic Vantablack owns seventeen purple giraffes."

// TestEvalClaimsOpenAI runs -claims openai against an in-process
// OpenAI-compatible server (internal/fakeopenai, a simulation of a model
// server) through langchaingo's real client: every row's claims come from
// it, and the planted unsupported claim is flagged in every row — never
// passed: the embedded judges fail it or, under the shipped policy (which
// never confidently fails groundedness), leave it uncertain — so every row
// has a flagged claim and is a candidate for the listing.
func TestEvalClaimsOpenAI(t *testing.T) {
	fixedClock(t)
	srv := fakeopenai.New(claimsModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "dummy-key")
	out := filepath.Join(t.TempDir(), "r.json")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureHead(t, 24), "-mode", "primary", "-claims", "openai", "-fallback-base-url", srv.URL,
		"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out, "-workers", "2")
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	r := readReportFile(t, out)
	c := r.Claims
	switch {
	case c == nil:
		t.Fatal("no claims section")
	case srv.Count() != 24:
		t.Errorf("%d requests; want one claim extraction per row (24)", srv.Count())
	case r.Reproduce.ClaimExtractor == nil || *r.Reproduce.ClaimExtractor != (guard.JudgeInfo{Name: "llmjudge/claims/gpt-4o-mini", Version: llmjudge.PromptVersion}):
		t.Errorf("extractor %+v", r.Reproduce.ClaimExtractor)
	case c.RowsWithClaims != 24 || c.RowsWithoutClaims != 0 || c.Claims != 48 || c.PerRowMax != 2:
		t.Errorf("rows with claims %d, without %d, claims %d, max %d; want 24, 0, 48, 2", c.RowsWithClaims, c.RowsWithoutClaims, c.Claims, c.PerRowMax)
	case c.RowsWithFailedClaim+c.RowsWithUncertainClaim != 24 || c.RowsListed != report.MaxListedClaimRows:
		t.Errorf("rows with a failed claim %d, with an uncertain one %d, listed %d; want 24 flagged (the planted claim), %d listed",
			c.RowsWithFailedClaim, c.RowsWithUncertainClaim, c.RowsListed, report.MaxListedClaimRows)
	}
	flagged := func(v string) bool { return v == "fail" || v == "uncertain" }
	for _, row := range c.Rows {
		if n := len(row.Claims); n != 2 || row.Claims[1].Text != plantedClaim || !flagged(row.Claims[1].Verdict) || !flagged(row.Verdict) {
			t.Errorf("row %s: claims %+v, groundedness %s; want the planted claim and the row failed or uncertain", row.ID, row.Claims, row.Verdict)
			continue
		}
		// The row's groundedness is its weakest claim's.
		weakest := row.Claims[0]
		if p := row.Claims[1].P; p != nil && weakest.P != nil && *p < *weakest.P {
			weakest = row.Claims[1]
		}
		if row.Groundedness == nil || weakest.P == nil || *row.Groundedness != *weakest.P || row.Verdict != weakest.Verdict {
			t.Errorf("row %s: groundedness %v %s; want the weakest claim's (%q)", row.ID, row.Groundedness, row.Verdict, weakest.Text)
		}
	}
	for _, req := range srv.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer dummy-key" || req.Model != "gpt-4o-mini" {
			t.Fatalf("request with Authorization %q, model %q", got, req.Model)
		}
	}
}

// TestEvalClaimsOpenAINoKey: without OPENAI_API_KEY (or a model) -claims
// openai stops with a usage error before any request.
func TestEvalClaimsOpenAINoKey(t *testing.T) {
	srv := fakeopenai.New(claimsModel)
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "")
	out := filepath.Join(t.TempDir(), "r.json")
	for _, mode := range []string{"primary", "cascade"} {
		st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", mode, "-claims", "openai", "-fallback-base-url", srv.URL,
			"-fallback-model", "gpt-4o-mini", "-pricing", pricingFile, "-out", out)
		if st != 2 || !strings.Contains(e, "-claims openai: llmjudge: no API key (set OPENAI_API_KEY") {
			t.Errorf("%s without a key: exit %d, stderr %q; want 2 naming OPENAI_API_KEY", mode, st, e)
		}
	}
	t.Setenv(llmjudge.APIKeyEnv, "k")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-claims", "openai", "-fallback-base-url", srv.URL, "-out", out); st != 2 || !strings.Contains(e, "-claims openai needs -fallback-model") {
		t.Errorf("without a model: exit %d, stderr %q", st, e)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d requests were made", n)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written")
	}
}

// stripLabels writes the fixture's rows without their "expected" labels.
func stripLabels(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var row map[string]any
		if err := json.Unmarshal(l, &row); err != nil {
			t.Fatal(err)
		}
		delete(row, "expected")
		nb, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(nb, '\n'))
	}
	path := filepath.Join(t.TempDir(), "unlabeled.jsonl")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalBaselineFailsClosed: the baseline gate fails — exit 1, naming the
// problem — when the current run has no labelled rows, when a metric of the
// baseline is missing now, and when the rows compared differ from the
// baseline's by more than -max-row-change; it never prints that no metric
// dropped when it compared nothing.
func TestEvalBaselineFailsClosed(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", base); st != 0 {
		t.Fatal(e)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	unlabeled := stripLabels(t)
	for _, tc := range []struct {
		name, dataset string
		want          []string
	}{
		{"empty dataset", empty, []string{"gate: the current run has no labelled rows", "gate: diagnosis.accuracy: in the baseline, missing now", "gate: rows evaluated: 0, baseline 144"}},
		{"labels stripped", unlabeled, []string{"gate: the current run has no labelled rows", "gate: diagnosis.accuracy: in the baseline, missing now", "gate: decisions.groundedness.auroc: in the baseline, missing now", "gate: labelled rows: 0, baseline 144"}},
	} {
		st, out, e := runCmd(t, "eval", "-dataset", tc.dataset, "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "0.02")
		if st != 1 {
			t.Errorf("%s: exit %d; want 1:\n%s", tc.name, st, e)
		}
		if strings.Contains(out, "no metric dropped") {
			t.Errorf("%s: stdout says the gate passed: %q", tc.name, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, e)
			}
		}
	}

	// A metric of the baseline that the current report lacks.
	r := readReportFile(t, base)
	extra := r.Decisions.Generation[0]
	extra.Decision = "made_up_decision"
	r.Decisions.Generation = append(r.Decisions.Generation, extra)
	withExtra := filepath.Join(dir, "extra.json")
	if err := r.WriteJSON(withExtra); err != nil {
		t.Fatal(err)
	}
	st, out, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", filepath.Join(dir, "cur.json"), "-baseline", withExtra)
	if st != 1 || !strings.Contains(e, "gate: decisions.made_up_decision.accuracy: in the baseline, missing now") || strings.Contains(out, "no metric dropped") {
		t.Errorf("missing metric: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}

	// Fewer rows: 100 of the 144 fail the default tolerance (10%), also for
	// the metrics the rows left out no longer have.
	st, out, e = runCmd(t, "eval", "-dataset", fixtureHead(t, 100), "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1")
	if st != 1 || !strings.Contains(e, "gate: rows evaluated: 100, baseline 144 (-30.6%; -max-row-change allows 10.0%)") || strings.Contains(out, "no metric dropped") {
		t.Errorf("100 of 144 rows: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}
	// More rows (the fixture and 30 of its rows again under new ids: every
	// metric still there): +20.8% fails the default tolerance and passes a
	// looser one; 10 more (+6.9%) pass the default.
	more30 := fixturePlus(t, 30)
	st, out, e = runCmd(t, "eval", "-dataset", more30, "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1")
	if st != 1 || !strings.Contains(e, "gate: rows evaluated: 174, baseline 144 (+20.8%; -max-row-change allows 10.0%)") || strings.Contains(out, "no metric dropped") {
		t.Errorf("174 rows against 144: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}
	if st, out, e := runCmd(t, "eval", "-dataset", more30, "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1", "-max-row-change", "0.25"); st != 0 || !strings.Contains(out, "no metric dropped") {
		t.Errorf("174 rows against 144, -max-row-change 0.25: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixturePlus(t, 10), "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1"); st != 0 {
		t.Errorf("154 rows against 144: exit %d:\n%s", st, e)
	}
	for _, bad := range []string{"-1", "NaN"} {
		if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", filepath.Join(dir, "cur.json"), "-max-row-change", bad); st != 2 || !strings.Contains(e, "-max-row-change") {
			t.Errorf("-max-row-change %s: exit %d, stderr %q; want a usage error", bad, st, e)
		}
	}
}

// fixturePlus writes the fixture followed by its first n rows again, under
// new ids.
func fixturePlus(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	out := append(bytes.TrimSpace(b), '\n')
	for _, l := range lines[:n] {
		out = append(out, bytes.Replace(l, []byte(`"id": "`), []byte(`"id": "again-`), 1)...)
		out = append(out, '\n')
	}
	path := filepath.Join(t.TempDir(), "plus.jsonl")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestEvalFallbackUnreachable: a fallback server nobody listens on (a
// closed loopback port) fails every call at the transport level. eval
// exits 1 quoting the transport error, counts the failures in the report
// (JSON and Markdown); -allow-fallback-errors relaxes the exit status only.
func TestEvalFallbackUnreachable(t *testing.T) {
	fixedClock(t)
	t.Setenv(llmjudge.APIKeyEnv, "x")
	base := "http://" + closedPort(t) + "/v1"
	dir := t.TempDir()
	for _, mode := range []string{"cascade", "fallback"} {
		out, md := filepath.Join(dir, mode+".json"), filepath.Join(dir, mode+".md")
		args := []string{"eval", "-dataset", fixtureHead(t, 24), "-mode", mode, "-fallback", "openai", "-fallback-model", "m",
			"-fallback-base-url", base, "-out", out, "-md", md}
		st, _, e := runCmd(t, args...)
		if st != 1 || !strings.Contains(e, "connection refused") || !strings.Contains(e, "fallback: ") {
			t.Errorf("%s: exit %d; want 1 quoting the transport error:\n%s", mode, st, e)
		}
		r := readReportFile(t, out)
		fe := r.FallbackErrors
		switch {
		case fe == nil:
			t.Fatalf("%s: no fallbackErrors block", mode)
		case fe.Calls == 0 || fe.Failed != fe.Calls || fe.Transport != fe.Failed || fe.Estimates != 0:
			t.Errorf("%s: fallbackErrors %+v; want every call failed at the transport level, no estimate", mode, *fe)
		case fe.FailedRate == nil || *fe.FailedRate != 1:
			t.Errorf("%s: failed rate %v; want 1", mode, fe.FailedRate)
		case len(fe.Errors) == 0 || !strings.Contains(fe.Errors[0], "connection refused"):
			t.Errorf("%s: errors %q; want the transport error quoted", mode, fe.Errors)
		}
		mdb, _ := os.ReadFile(md)
		if !bytes.Contains(mdb, []byte("Fallback calls: ")) || !bytes.Contains(mdb, []byte("connection refused")) {
			t.Errorf("%s: Markdown lacks the fallback errors line", mode)
		}
		st, _, e = runCmd(t, append(args, "-allow-fallback-errors")...)
		if st != 0 || !strings.Contains(e, "connection refused") {
			t.Errorf("%s -allow-fallback-errors: exit %d; want 0, still quoting the error:\n%s", mode, st, e)
		}
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", filepath.Join(dir, "x.json"), "-max-fallback-errors", "1.5"); st != 2 || !strings.Contains(e, "-max-fallback-errors") {
		t.Errorf("-max-fallback-errors 1.5: exit %d, stderr %q; want a usage error", st, e)
	}
}

// TestEvalFallbackErrorShare: a server that fails the calls about one row
// only. The run fails when the share of failed calls exceeds
// -max-fallback-errors, and passes under it.
func TestEvalFallbackErrorShare(t *testing.T) {
	fixedClock(t)
	data := fixtureHead(t, 24)
	b, _ := os.ReadFile(data)
	// The answer of one row only, in no other row (questions repeat in the
	// fixture: each is asked with a right and a hallucinated answer).
	unique := ""
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var row struct{ Answer string }
		json.Unmarshal(l, &row)
		if strings.Count(string(b), row.Answer) == 1 && len(row.Answer) > 20 {
			unique = row.Answer
			break
		}
	}
	if unique == "" {
		t.Fatal("no answer occurs once in the first 24 rows")
	}
	srv := fakeopenai.New(func(r fakeopenai.Request) fakeopenai.Reply {
		if strings.Contains(r.Text(), unique) {
			return fakeopenai.Reply{Status: 500, Message: "no answer for this row"}
		}
		return judgeModel(r)
	})
	defer srv.Close()
	t.Setenv(llmjudge.APIKeyEnv, "x")
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"eval", "-dataset", data, "-mode", "fallback", "-fallback", "openai", "-fallback-model", "gpt-4o-mini",
		"-fallback-base-url", srv.URL, "-out", out}
	st, _, e := runCmd(t, append(args, "-max-fallback-errors", "0.5")...)
	if st != 0 {
		t.Errorf("-max-fallback-errors 0.5: exit %d; want 0:\n%s", st, e)
	}
	fe := readReportFile(t, out).FallbackErrors
	if fe == nil || fe.Calls != 24 || fe.Failed != 1 || fe.Transport != 0 || fe.Estimates == 0 || !strings.Contains(strings.Join(fe.Errors, "|"), "500: no answer for this row") {
		t.Fatalf("fallbackErrors %+v; want 1 of 24 calls failed (HTTP 500, not transport)", fe)
	}
	if !strings.Contains(e, "1 of 24 fallback calls failed") {
		t.Errorf("stderr does not count the failed call:\n%s", e)
	}
	// 1/24 = 4.2%: under the default 5%, over 1%.
	if st, _, e := runCmd(t, args...); st != 0 {
		t.Errorf("default -max-fallback-errors: exit %d; want 0:\n%s", st, e)
	}
	st, _, e = runCmd(t, append(args, "-max-fallback-errors", "0.01")...)
	if st != 1 || !strings.Contains(e, "fallback: 1 of 24 fallback calls failed (4.2%), more than the 1.0% allowed") {
		t.Errorf("-max-fallback-errors 0.01: exit %d; want 1 naming the share:\n%s", st, e)
	}
}

// TestEvalPricingEmbedded: the pricing snapshot is in the binary, so a run
// from any working directory prices its usage; -pricing FILE overrides it.
func TestEvalPricingEmbedded(t *testing.T) {
	fixedClock(t)
	fixture, err := filepath.Abs(fixtureFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	st, _, e := runCmd(t, "eval", "-dataset", fixture, "-mode", "cascade", "-out", "r.json")
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	r := readReportFile(t, "r.json")
	if r.Cost.Total.Amount == nil || r.Cost.Fallback.Amount == nil || r.Cost.PricingVersion != "2025-06-01" || r.Reproduce.PricingVersion != "2025-06-01" {
		t.Errorf("costs from another directory: %+v (pricing %q)", r.Cost, r.Cost.PricingVersion)
	}
	if strings.Contains(e, "no pricing snapshot") {
		t.Errorf("stderr: %s", e)
	}
	custom := filepath.Join(dir, "p.json")
	os.WriteFile(custom, []byte(`{"version":"custom-1","currency":"EUR","unit":"per 1M tokens","source":"test","models":{"ragtriage/lexical":{"input":0,"output":0},"gpt-4o-mini":{"input":1,"output":1}}}`), 0o644)
	if st, _, e := runCmd(t, "eval", "-dataset", fixture, "-mode", "cascade", "-pricing", custom, "-out", "c.json"); st != 0 {
		t.Fatalf("-pricing: exit %d: %s", st, e)
	}
	c := readReportFile(t, "c.json")
	if c.Cost.PricingVersion != "custom-1" || c.Cost.Currency != "EUR" || c.Cost.Total.Amount == nil {
		t.Errorf("-pricing override: %+v", c.Cost)
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixture, "-pricing", "nope.json", "-out", "n.json"); st != 1 || !strings.Contains(e, "nope.json") {
		t.Errorf("-pricing nope.json: exit %d, stderr %q; want 1", st, e)
	}
}

// TestEvalNoLabelsNA: over zero labelled rows an accuracy is n/a — null in
// the JSON, "n/a" in Markdown, HTML and on stderr — never 0.000.
func TestEvalNoLabelsNA(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	out, md, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md"), filepath.Join(dir, "r.html")
	st, _, e := runCmd(t, "eval", "-dataset", stripLabels(t), "-mode", "cascade", "-out", out, "-md", md, "-html", html)
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	if !strings.Contains(e, "diagnosis accuracy n/a on 0 labeled rows") {
		t.Errorf("stderr: %s", e)
	}
	b, _ := os.ReadFile(out)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	diag := m["diagnosis"].(map[string]any)
	for _, k := range []string{"accuracy", "successfulAccuracy", "overallAccuracy", "successRate"} {
		if v, ok := diag[k]; !ok || v != nil {
			t.Errorf("diagnosis.%s = %v (present %v); want null", k, v, ok)
		}
	}
	if v := m["cascade"].(map[string]any)["endToEndAccuracy"]; v != nil {
		t.Errorf("cascade.endToEndAccuracy = %v; want null", v)
	}
	if v := m["input"].(map[string]any)["perFile"].([]any)[0].(map[string]any)["accuracy"]; v != nil {
		t.Errorf("input.perFile[0].accuracy = %v; want null", v)
	}
	for _, d := range m["decisions"].(map[string]any)["generation"].([]any) {
		if v := d.(map[string]any)["accuracy"]; v != nil {
			t.Errorf("decision accuracy %v; want null", v)
		}
	}
	mdb, _ := os.ReadFile(md)
	if !bytes.Contains(mdb, []byte("| 0 | 0 | 0 | n/a | n/a | n/a | n/a | n/a |")) || bytes.Contains(mdb, []byte("| 0.000 |")) {
		t.Errorf("Markdown diagnosis row is not n/a:\n%s", mdb)
	}
	hb, _ := os.ReadFile(html)
	if !bytes.Contains(hb, []byte("diagnosis accuracy<b>n/a</b>")) || !bytes.Contains(hb, []byte("end-to-end accuracy<b>n/a</b>")) {
		t.Error("HTML shows a number for an accuracy over no labelled rows")
	}
}

// TestEvalMissingInput: an input file that does not exist is an error
// before anything runs: exit 1, a message naming it, no report.
func TestEvalMissingInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	missing := filepath.Join(dir, "nope.jsonl")
	for _, args := range [][]string{
		{"-dataset", missing},
		{"-dataset", fixtureFile + "," + missing},
		{"-dataset", dir},
		{"-records", missing, "-mode", "recorded"},
		{"-traces", missing, "-mode", "recorded"},
	} {
		st, _, e := runCmd(t, append([]string{"eval", "-out", out, "-md", out + ".md"}, args...)...)
		if st != 1 || !strings.Contains(e, "ragtriage eval: -") || !(strings.Contains(e, "no such file") || strings.Contains(e, "is a directory")) {
			t.Errorf("%v: exit %d, stderr %q; want 1 naming the missing file", args, st, e)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: a report was written", args)
			os.Remove(out)
		}
	}
}

// repeatedRows writes rows that repeat a few samples under new ids with
// labels that disagree, so that which row's labels a shared (cached or
// collapsed) estimate of the simulated fallback was drawn for shows in the
// report.
func repeatedRows(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := range 240 {
		k := i % 6
		ok := i%4 < 2
		diag := "PASS"
		if !ok {
			diag = "GENERATOR_UNGROUNDED"
		}
		fmt.Fprintf(&b, `{"id":"r%d","question":"How many days does a refund take in case %d?","contexts":[{"id":"c1","text":"Refunds for case %d are processed in %d business days."},{"id":"c2","text":"Shipping is free over 50 dollars."}],"answer":"It takes %d days.","expected":{"diagnosis":%q,"generation":{"groundedness":%v},"retrieval":{"chunkRelevance":{"c1":true,"c2":false}}}}`+"\n",
			i, k, k, k+3, k+4, diag, ok)
	}
	path := filepath.Join(t.TempDir(), "repeated.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalCascadeDeterministicByDefault: with the simulated fallback and
// no -workers, cascade replays are deterministic (one worker): two runs on
// rows that repeat samples give the same report but for the timing fields,
// even with many CPUs. With more workers the report says why it may not be.
func TestEvalCascadeDeterministicByDefault(t *testing.T) {
	fixedClock(t)
	old := runtime.GOMAXPROCS(8)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	data := repeatedRows(t)
	dir := t.TempDir()
	var reports [2][]byte
	for i := range reports {
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if st, _, e := runCmd(t, "eval", "-dataset", data, "-mode", "cascade", "-out", out); st != 0 {
			t.Fatalf("exit %d: %s", st, e)
		}
		r := readReportFile(t, out)
		if r.Reproduce.Workers != 1 || r.Reproduce.Nondeterminism != "" {
			t.Errorf("run %d: workers %d, nondeterminism %q; want 1 worker by default with the simulated fallback", i, r.Reproduce.Workers, r.Reproduce.Nondeterminism)
		}
		reports[i], _ = os.ReadFile(out)
	}
	if d := firstDiff("report", normalizeReport(t, reports[0]), normalizeReport(t, reports[1])); d != "" {
		t.Errorf("two default cascade runs differ at %s", d)
	}
	for _, tc := range []struct{ flag, want int }{{4, 4}, {0, 8}} {
		out := filepath.Join(dir, "w.json")
		if st, _, e := runCmd(t, "eval", "-dataset", data, "-mode", "cascade", "-workers", fmt.Sprint(tc.flag), "-out", out); st != 0 {
			t.Fatalf("-workers %d: exit %d: %s", tc.flag, st, e)
		}
		if r := readReportFile(t, out); r.Reproduce.Workers != tc.want || !strings.Contains(r.Reproduce.Nondeterminism, "-workers 1") {
			t.Errorf("-workers %d: workers %d, nondeterminism %q; want %d and a note naming -workers 1", tc.flag, r.Reproduce.Workers, r.Reproduce.Nondeterminism, tc.want)
		}
	}
	// Other modes and fallbacks keep one worker per CPU.
	out := filepath.Join(dir, "p.json")
	if st, _, e := runCmd(t, "eval", "-dataset", data, "-mode", "fallback", "-out", out); st != 0 {
		t.Fatalf("fallback mode: exit %d: %s", st, e)
	} else if r := readReportFile(t, out); r.Reproduce.Workers != 8 || r.Reproduce.Nondeterminism != "" {
		t.Errorf("fallback mode: workers %d, nondeterminism %q; want 8 and no note", r.Reproduce.Workers, r.Reproduce.Nondeterminism)
	}
}
