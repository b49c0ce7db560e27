package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
)

// writeFile writes content to name in a temporary directory and returns its
// path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMisspelledFlag: a flag that is not defined prints one line, naming
// the flag likely meant and the help command, and exits 2 (not the whole
// help text).
func TestMisspelledFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"eval", "-datset", fixtureFile, "-out", "r.json"}, []string{"ragtriage eval: unknown flag -datset (did you mean -dataset?)", "run 'ragtriage help eval'"}},
		{[]string{"calibrate", "-otu", "p.json"}, []string{"unknown flag -otu (did you mean -out?)", "run 'ragtriage help calibrate'"}},
		{[]string{"judge", "-worker", "2", sampleFile}, []string{"unknown flag -worker (did you mean -workers?)", "run 'ragtriage help judge'"}},
		{[]string{"judge", sampleFile, "-profil", "p.json"}, []string{"did you mean -profile?"}},
		{[]string{"selftest", "-verbose"}, []string{"ragtriage selftest: unknown flag -verbose", "run 'ragtriage help selftest'"}},
		{[]string{"eval", "-dataset", fixtureFile, "-out", "r.json", "-baselin", "b.json"}, []string{"did you mean -baseline?"}},
		{[]string{"export", "-record", "r.jsonl"}, []string{"did you mean -records?", "run 'ragtriage help export'"}},
		{[]string{"eval", "-workers", "many"}, []string{`ragtriage eval: invalid value "many" for flag -workers`, "run 'ragtriage help eval'"}},
		{[]string{"version", "-zzz"}, []string{"ragtriage version: unknown flag -zzz; run 'ragtriage help version'"}},
	} {
		st, out, e := runCmd(t, tc.args...)
		if st != 2 {
			t.Errorf("%q: exit %d; want 2", tc.args, st)
		}
		if n := strings.Count(e, "\n"); n != 1 || out != "" {
			t.Errorf("%q: %d lines on stderr and %q on stdout; want one line:\n%s", tc.args, n, out, e)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%q: stderr lacks %q:\n%s", tc.args, w, e)
			}
		}
	}
	// -h still prints the whole help, and exits 0.
	if st, _, e := runCmd(t, "eval", "-h"); st != 0 || !strings.Contains(e, "Usage: ragtriage eval") {
		t.Errorf("eval -h: exit %d:\n%s", st, e)
	}
}

func TestSuggestFlag(t *testing.T) {
	fs := newFlagSet("t")
	for _, n := range []string{"dataset", "out", "workers", "v", "max-drop"} {
		fs.Bool(n, false, "")
	}
	for _, tc := range []struct{ in, want string }{
		{"datset", "dataset"}, {"datsaet", "dataset"}, {"Dataset", "dataset"}, {"data", "dataset"},
		{"otu", "out"}, {"ou", "out"}, {"worker", "workers"}, {"max_drop", "max-drop"},
		{"vv", "v"}, {"zzz", ""}, {"records", ""},
	} {
		if got := suggestFlag(fs, tc.in); got != tc.want {
			t.Errorf("suggestFlag(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestFriendlyInputErrors: a missing input file or profile is named with
// its flag, without Go's "open" prefix, and a report given as a profile
// says what it is.
func TestFriendlyInputErrors(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "report.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", rep); st != 0 {
		t.Fatal(e)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-dataset", "missing.jsonl", "-out", rep}, "ragtriage eval: -dataset missing.jsonl: no such file"},
		{[]string{"calibrate", "-dataset", "missing.jsonl", "-out", filepath.Join(dir, "p.json")}, "ragtriage calibrate: -dataset missing.jsonl: no such file"},
		{[]string{"judge", "missing.jsonl"}, "ragtriage judge: missing.jsonl: no such file"},
		{[]string{"eval", "-dataset", fixtureFile, "-profile", "missing.json", "-out", filepath.Join(dir, "r2.json")}, "ragtriage eval: -profile missing.json: no such file"},
		{[]string{"calibrate", "-dataset", fixtureFile, "-base", "missing.json", "-out", filepath.Join(dir, "p.json")}, "ragtriage calibrate: -base missing.json: no such file"},
		{[]string{"eval", "-dataset", fixtureFile, "-profile", rep, "-out", filepath.Join(dir, "r2.json")}, "this file is an eval report, not a profile"},
		{[]string{"judge", "-profile", rep, sampleFile}, "this file is an eval report, not a profile"},
		{[]string{"selftest", "-profile", rep}, "this file is an eval report, not a profile"},
		{[]string{"judge", "-profile", fixtureFile, sampleFile}, "this file holds dataset rows, not a profile"},
	} {
		st, _, e := runCmd(t, tc.args...)
		if st != 1 || !strings.Contains(e, tc.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant 1 and %q", tc.args, st, e, tc.want)
		}
		if strings.Contains(e, "open ") || strings.Contains(e, "cannot unmarshal") {
			t.Errorf("%q: a raw Go error reaches the user:\n%s", tc.args, e)
		}
	}
}

// TestCSVInputHint: a CSV file gets one file-level hint, as a JSON array
// does, in judge, eval and calibrate.
func TestCSVInputHint(t *testing.T) {
	csv := writeFile(t, "rows.csv", "id,question,answer\n1,How long?,30 days\n")
	out := filepath.Join(t.TempDir(), "out.json")
	for _, args := range [][]string{
		{"judge", csv},
		{"eval", "-dataset", csv, "-out", out},
		{"calibrate", "-dataset", csv, "-out", out},
	} {
		st, _, e := runCmd(t, args...)
		if st != 1 {
			t.Errorf("%q: exit %d; want 1", args, st)
		}
		if n := strings.Count(e, "this file looks like CSV (line 1"); n != 1 {
			t.Errorf("%q: the CSV hint is printed %d times; want once:\n%s", args, n, e)
		}
	}
	// A JSON Lines file gets no such hint.
	if _, _, e := runCmd(t, "judge", sampleFile); strings.Contains(e, "CSV") {
		t.Errorf("judge on JSON Lines mentions CSV:\n%s", e)
	}
}

// TestBOMInputNoCSVHint: a JSON Lines file that starts with a UTF-8
// byte-order mark is read like the same file without it, and gets no CSV
// hint: the readers skip the mark, and so does the hint.
func TestBOMInputNoCSVHint(t *testing.T) {
	data, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.SplitAfterN(string(data), "\n", 4)[:3]
	plain := writeFile(t, "plain.jsonl", strings.Join(rows, ""))
	marked := writeFile(t, "bom.jsonl", "\xef\xbb\xbf"+strings.Join(rows, ""))
	out := filepath.Join(t.TempDir(), "out.json")
	for _, args := range [][]string{
		{"eval", "-dataset", "%s", "-out", out},
		{"calibrate", "-dataset", "%s", "-out", out},
		{"judge", "%s"},
	} {
		with := func(p string) []string {
			a := append([]string(nil), args...)
			for i := range a {
				if a[i] == "%s" {
					a[i] = p
				}
			}
			return a
		}
		st0, _, _ := runCmd(t, with(plain)...)
		st, _, e := runCmd(t, with(marked)...)
		if st != st0 || strings.Contains(e, "CSV") || strings.Contains(e, "bad") {
			t.Errorf("%q: exit %d (%d without the mark), stderr:\n%s\nwant the same exit and no CSV hint", with(marked), st, st0, e)
		}
	}
}

// TestCSVHintOnlyWithBadLines: a file whose lines were all read gets no
// file-level CSV hint, whatever its first line looks like.
func TestCSVHintOnlyWithBadLines(t *testing.T) {
	csv := writeFile(t, "rows.csv", "id,question,answer\n")
	for _, tc := range []struct {
		bad  int
		hint bool
	}{{0, false}, {1, true}} {
		var e strings.Builder
		printCSVHints(&e, "eval", []dataset.InputFile{{Name: "rows.csv", Lines: 1, Bad: tc.bad}}, []string{csv})
		if got := strings.Contains(e.String(), "looks like CSV"); got != tc.hint {
			t.Errorf("%d bad lines: hint printed %v, want %v:\n%s", tc.bad, got, tc.hint, e.String())
		}
	}
}

// TestEmptyInput: an empty dataset makes eval and calibrate exit 1 with "no
// rows" (eval writes no report); judge warns and exits 0.
func TestEmptyInput(t *testing.T) {
	empty := writeFile(t, "empty.jsonl", "\n\n")
	out := filepath.Join(t.TempDir(), "out.json")
	for _, tc := range []struct {
		args   []string
		status int
		want   string
	}{
		{[]string{"eval", "-dataset", empty, "-out", out}, 1, "ragtriage eval: no rows: " + empty + " holds no JSON Lines row"},
		{[]string{"calibrate", "-dataset", empty, "-out", out}, 1, "ragtriage calibrate: no rows: " + empty + " holds no JSON Lines row"},
		{[]string{"judge", empty}, 0, "ragtriage judge: warning: no rows: " + empty + " holds no JSON Lines row"},
	} {
		st, _, e := runCmd(t, tc.args...)
		if st != tc.status || !strings.Contains(e, tc.want) {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant %d and %q", tc.args, st, e, tc.status, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a report or profile was written for an empty input")
	}
	var o, e strings.Builder
	if st := run([]string{"judge"}, strings.NewReader(""), &o, &e); st != 0 || !strings.Contains(e.String(), "no rows: standard input holds no JSON Lines row") {
		t.Errorf("judge on empty stdin: exit %d:\n%s", st, e.String())
	}
}

// TestCalibrateNoLabelsHint: "nothing to calibrate" says why and where the
// label format is, and names labels put at the top of "expected".
func TestCalibrateNoLabelsHint(t *testing.T) {
	row := `{"id":"r%d","question":"How long is the refund window?","contexts":[{"id":"c1","text":"Refunds within 30 days."}],"answer":"30 days."%s}` + "\n"
	build := func(extra string) string {
		var b strings.Builder
		for i := range 3 {
			b.WriteString(strings.Replace(strings.Replace(row, "%d", string(rune('0'+i)), 1), "%s", extra, 1))
		}
		return b.String()
	}
	out := filepath.Join(t.TempDir(), "p.json")
	for _, tc := range []struct {
		name, rows string
		want       []string
	}{
		{"flat labels", build(`,"expected":{"groundedness":true,"answerRelevance":true}`),
			[]string{"no labels in the datasets: nothing to calibrate", "3 of the 3 rows with an \"expected\" object hold no decision label", "misplaced", `"expected.generation"`, "docs/labels.md"}},
		{"diagnosis only", build(`,"expected":{"diagnosis":"PASS"}`),
			[]string{"3 of the 3 rows", "3 of them only a diagnosis", "docs/labels.md"}},
		{"no expected", build(""),
			[]string{"none of the 3 rows has an \"expected\" object", "docs/labels.md", "ragtriage export"}},
	} {
		st, _, e := runCmd(t, "calibrate", "-dataset", writeFile(t, "rows.jsonl", tc.rows), "-out", out)
		if st != 1 {
			t.Errorf("%s: exit %d; want 1", tc.name, st)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, e)
			}
		}
	}
}
