package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/report"
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
