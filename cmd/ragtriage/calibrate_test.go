package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard/lexical"
)

// A refitted decision that decides nothing makes calibrate exit 1 and say
// so (the profile is still written); -allow-undecided accepts it.
func TestCalibrateUndecidedExits1(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	args := []string{"-dataset", "../../testdata/eval/fixture.jsonl", "-out", out,
		"-decisions", "chunk_relevance,context_sufficiency,groundedness,correctness"}
	var stdout, stderr bytes.Buffer
	code := runCalibrate(args, nil, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "nothing on this data") || !strings.Contains(stderr.String(), "-allow-undecided") {
		t.Fatalf("exit %d; want 1 naming the idle decisions and -allow-undecided:\n%s", code, stderr.String())
	}
	if _, err := lexical.LoadProfile(out); err != nil {
		t.Fatalf("the profile was not written: %v", err)
	}
	if !strings.Contains(stdout.String(), "undecided") {
		t.Errorf("stdout does not name the undecided sides:\n%s", stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := runCalibrate(append(args, "-allow-undecided"), nil, &stdout, &stderr); code != 0 {
		t.Fatalf("-allow-undecided: exit %d; want 0:\n%s", code, stderr.String())
	}
}

// The default profile version changes with every setting that shapes the
// profile, not only with the data.
func TestCalibrateVersionHashesSettings(t *testing.T) {
	version := func(extra ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "p.json")
		args := append([]string{"-dataset", "../../testdata/eval/fixture.jsonl", "-out", out, "-allow-undecided",
			"-decisions", "groundedness,correctness"}, extra...)
		var stdout, stderr bytes.Buffer
		if code := runCalibrate(args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d:\n%s", extra, code, stderr.String())
		}
		p, err := lexical.LoadProfile(out)
		if err != nil {
			t.Fatal(err)
		}
		return p.Version
	}
	base := version()
	seen := map[string]string{base: "defaults"}
	for _, extra := range [][]string{{"-alpha", "0.1"}, {"-confidence", "0.9"}, {"-folds", "4"}, {"-decisions", "groundedness"}} {
		v := version(extra...)
		if prev, dup := seen[v]; dup {
			t.Errorf("%v gives version %s, the same as %s", extra, v, prev)
		}
		seen[v] = strings.Join(extra, " ")
	}
	if again := version(); again != base {
		t.Errorf("same settings, versions %s and %s", base, again)
	}
}

// An unknown decision name (here the old JSON key "sufficiency") is a usage
// error that lists the valid names.
func TestCalibrateUnknownDecisionListsNames(t *testing.T) {
	args := []string{"-dataset", "../../testdata/eval/fixture.jsonl", "-out", filepath.Join(t.TempDir(), "p.json"),
		"-decisions", "groundedness,sufficiency"}
	var stdout, stderr bytes.Buffer
	code := runCalibrate(args, nil, &stdout, &stderr)
	want := `-decisions: guard: unknown decision "sufficiency" (valid: chunk_relevance, context_sufficiency, context_conflict, answer_relevance, groundedness, contradiction, correctness)`
	if code != 2 || !strings.Contains(stderr.String(), want) {
		t.Fatalf("exit %d; want 2 and %q:\n%s", code, want, stderr.String())
	}
}

// Calibrate fits through package fit. The profile, report and summary it
// writes are those of the CLI before fitting moved there (testdata/calibrate
// was written by ragtriage calibrate at commit 8a70032, with the output
// folder replaced by OUT).
func TestCalibrateGolden(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	args := []string{"-dataset", "../../testdata/eval/fixture.jsonl,../../data/dev/hotpotqa.jsonl,../../data/dev/hotpotqa_ablated.jsonl",
		"-dataset", "../../data/dev/wice_groundedness.jsonl", "-dataset", "../../data/dev/truthfulqa.jsonl",
		"-out", dir + "/profile.json", "-report", dir + "/report.json", "-allow-undecided",
		"-decisions", "chunk_relevance,context_sufficiency,groundedness,correctness", "-dataset", "../../data/dev/squad_v2.jsonl"}
	var stdout, stderr bytes.Buffer
	if code := runCalibrate(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	got := map[string]string{"stdout.txt": stdout.String()}
	for _, name := range []string{"profile.json", "report.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got[name] = string(b)
	}
	for name, g := range got {
		want, err := os.ReadFile(filepath.Join("testdata", "calibrate", name))
		if err != nil {
			t.Fatal(err)
		}
		if g = strings.ReplaceAll(g, dir, "OUT"); g != string(want) {
			t.Errorf("%s differs from testdata/calibrate/%s:\n%s", name, name, firstLineDiff(g, string(want)))
		}
	}
}

// firstLineDiff shows the first line where got and want differ.
func firstLineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %s\n want %s", i+1, gl, wl)
		}
	}
	return "(same lines)"
}

// TestCalibrateIdleDecisionsWarn: when some refitted decisions decide
// something, those that decide nothing are a warning (exit 0) that names
// them and -strict; -strict makes them exit 1 (issue 19, item 3: the
// README's example exited 1).
func TestCalibrateIdleDecisionsWarn(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-dataset", "../../data/natural/natural.jsonl", "-dataset", "../../data/dev/halueval.jsonl", "-out", filepath.Join(dir, "p.json"),
		"-report", filepath.Join(dir, "r.json")}
	var stdout, stderr bytes.Buffer
	code := runCalibrate(args, nil, &stdout, &stderr)
	var rep calibrationReport
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatalf("exit %d, no report: %v\n%s", code, err, stderr.String())
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	idle, decided := 0, 0
	for _, d := range rep.Decisions {
		if d.Coverage == 0 {
			idle++
		} else {
			decided++
		}
	}
	if idle == 0 || decided == 0 {
		t.Skipf("%d idle and %d deciding decisions: the data no longer shows the case", idle, decided)
	}
	if code != 0 || !strings.Contains(stderr.String(), "ragtriage calibrate: warning: ") || !strings.Contains(stderr.String(), "-strict makes this a failure") {
		t.Errorf("exit %d; want 0 and a warning naming -strict:\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := runCalibrate(append(args, "-strict"), nil, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "nothing on this data") {
		t.Errorf("-strict: exit %d; want 1:\n%s", code, stderr.String())
	}
}
