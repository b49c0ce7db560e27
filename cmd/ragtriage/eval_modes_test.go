package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

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
