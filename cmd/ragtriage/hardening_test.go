package main

// Bad input given to the CLI — truncated last lines, duplicated IDs,
// NaN/Inf and other broken numbers in profiles and pricing snapshots, bad
// lines mixed with good ones — must give an error that names the file, the
// line or the field, a non-zero exit status, and counts that add up: never a
// panic, a hang or a silent drop.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/record"
)

const hardFixture = "../../testdata/eval/fixture.jsonl"

// hardRun runs the CLI with stdin and returns its status and outputs.
func hardRun(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var o, e bytes.Buffer
	code := run(args, strings.NewReader(stdin), &o, &e)
	return code, o.String(), e.String()
}

func hardWrite(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureLines returns the first n lines of the evaluation fixture.
func fixtureLines(t *testing.T, n int) [][]byte {
	t.Helper()
	b, err := os.ReadFile(hardFixture)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return lines[:n]
}

// profileJSON returns the embedded profile as a generic JSON value.
func profileJSON(t *testing.T) map[string]any {
	t.Helper()
	b, err := json.Marshal(lexical.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// badProfiles are broken calibration profiles and a word the error must
// carry (besides the file name).
func badProfiles(t *testing.T) []struct {
	name, field string
	data        []byte
} {
	good := mustJSON(t, profileJSON(t))
	weightsOf := func(m map[string]any) []any {
		return m["decisions"].(map[string]any)["groundedness"].(map[string]any)["model"].(map[string]any)["weights"].([]any)
	}
	_ = weightsOf(profileJSON(t))
	withWeight := func(lit string) []byte {
		// JSON cannot carry NaN or Inf: write the literal by hand.
		m := profileJSON(t)
		weightsOf(m)[1] = 12345.678
		return bytes.Replace(mustJSON(t, m), []byte("12345.678"), []byte(lit), 1)
	}
	threshold := func(fail, pass any) []byte {
		m := profileJSON(t)
		m["policy"].(map[string]any)["groundedness"] = map[string]any{"fail": fail, "pass": pass}
		return mustJSON(t, m)
	}
	return []struct {
		name, field string
		data        []byte
	}{
		{"truncated", "unexpected end of JSON input", good[:len(good)/2]},
		{"Inf weight", "weights", withWeight("1e999")},
		{"NaN literal weight", "invalid character 'N'", withWeight("NaN")},
		{"weight as a string", "weights", withWeight(`"NaN"`)},
		{"thresholds out of order", "groundedness", threshold(0.9, 0.1)},
		{"threshold above 1", "groundedness", threshold(0.1, 1.5)},
		{"threshold as Infinity", "invalid character 'I'", bytes.Replace(threshold(0.1, 0.77777), []byte("0.77777"), []byte("Infinity"), 1)},
		{"empty file", "unexpected end of JSON input", nil},
		{"NUL bytes", "invalid character", []byte("\x00\x00\x00")},
	}
}

func TestHardeningBadProfiles(t *testing.T) {
	sample := string(bytes.Join(fixtureLines(t, 2), []byte("\n"))) + "\n"
	for _, bp := range badProfiles(t) {
		t.Run(bp.name, func(t *testing.T) {
			path := hardWrite(t, "profile.json", bp.data)
			for _, args := range [][]string{
				{"judge", "-profile", path},
				{"eval", "-dataset", hardFixture, "-profile", path, "-out", filepath.Join(t.TempDir(), "r.json"), "-progress", "never"},
				{"calibrate", "-dataset", hardFixture, "-base", path, "-out", filepath.Join(t.TempDir(), "p.json")},
			} {
				code, stdout, stderr := hardRun(t, sample, args...)
				if code != 1 || !strings.Contains(stderr, path) || !strings.Contains(stderr, bp.field) {
					t.Errorf("%s: exit %d, stderr %q; want exit 1 naming %s and %q", args[0], code, stderr, path, bp.field)
				}
				if args[0] == "judge" && stdout != "" {
					t.Errorf("judge wrote output with a bad profile: %q", stdout)
				}
			}
		})
	}
}

func TestHardeningBadPricing(t *testing.T) {
	pr := func(models string) []byte {
		return []byte(`{"version":"v1","currency":"USD","unit":"per 1M tokens","models":{` + models + `}}`)
	}
	for _, tc := range []struct {
		name, field string
		data        []byte
	}{
		{"negative price", `"gpt-4o-mini"`, pr(`"gpt-4o-mini":{"input":-0.15,"output":0.6}`)},
		{"Inf price", "1e999", pr(`"gpt-4o-mini":{"input":1e999,"output":0.6}`)},
		{"NaN literal", "invalid character 'N'", pr(`"gpt-4o-mini":{"input":NaN,"output":0.6}`)},
		{"absurd price", `"gpt-4o-mini"`, pr(`"gpt-4o-mini":{"input":1e308,"output":1e308}`)},
		{"price as a string", "input", pr(`"gpt-4o-mini":{"input":"0.15","output":0.6}`)},
		{"wrong unit", "unit", []byte(`{"version":"v1","currency":"USD","unit":"per token","models":{}}`)},
		{"truncated", "unexpected end of JSON input", pr(`"gpt-4o-mini":{"input":0.15,"output":0.6}`)[:40]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := hardWrite(t, "pricing.json", tc.data)
			out := filepath.Join(t.TempDir(), "r.json")
			code, _, stderr := hardRun(t, "", "eval", "-dataset", hardFixture, "-mode", "cascade", "-pricing", path, "-out", out, "-progress", "never")
			if code != 1 || !strings.Contains(stderr, path) || !strings.Contains(stderr, tc.field) {
				t.Errorf("exit %d, stderr %q; want exit 1 naming %s and %q", code, stderr, path, tc.field)
			}
		})
	}
}

var judgeSummary = regexp.MustCompile(`ragtriage judge: (\d+) lines, (\d+) judged, (\d+) failed`)

// TestHardeningJudgeTruncatedAndDuplicated: a stream whose last line was cut
// short, with a duplicated ID and bad lines in between.
func TestHardeningJudgeTruncatedAndDuplicated(t *testing.T) {
	ls := fixtureLines(t, 5)
	var in bytes.Buffer
	in.Write(ls[0])
	in.WriteString("\n")
	in.Write(ls[0]) // the same row again: same id
	in.WriteString("\n")
	in.WriteString("{\"id\":\"nul\",\"question\":\"q\\u0000\",\"contexts\":[],\"answer\":\"a\"}\n")
	in.WriteString("{\"id\":\"utf8\",\"question\":\"q\xff\",\"contexts\":[],\"answer\":\"a\"}\n")
	in.Write(ls[1])
	in.WriteString("\n")
	in.Write(ls[2][:len(ls[2])/2]) // truncated, no line feed
	code, stdout, stderr := hardRun(t, in.String(), "judge")
	outs := strings.Split(strings.TrimSpace(stdout), "\n")
	m := judgeSummary.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary in %q", stderr)
	}
	n, judged, failed := atoi(m[1]), atoi(m[2]), atoi(m[3])
	t.Logf("exit %d, %d output lines, summary %q", code, len(outs), m[0])
	if code != 1 || n != 6 || judged != 3 || failed != 3 || n != judged+failed || len(outs) != n {
		t.Errorf("exit %d, %d lines = %d judged + %d failed, %d output lines; want exit 1, 6 = 3 + 3, 6 output lines", code, n, judged, failed, len(outs))
	}
	want := []struct {
		line int
		err  string
	}{{1, ""}, {2, ""}, {3, "question"}, {4, "UTF-8"}, {5, ""}, {6, "line 6"}}
	for i, w := range want {
		if i >= len(outs) {
			break
		}
		var o struct {
			Line   int             `json:"line"`
			ID     string          `json:"id"`
			Error  string          `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal([]byte(outs[i]), &o); err != nil {
			t.Fatalf("output line %d: %v", i+1, err)
		}
		if o.Line != w.line || (w.err == "") != (o.Error == "") || (o.Error == "") != (o.Result != nil) {
			t.Errorf("output %d = %s; want line %d, error containing %q", i+1, outs[i], w.line, w.err)
		}
		if w.err != "" && w.line != 6 && !strings.Contains(o.Error, w.err) {
			t.Errorf("line %d error %q; want it to name %q", w.line, o.Error, w.err)
		}
	}
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// TestHardeningEvalCountsAddUp: eval over a dataset with a duplicated row,
// bad lines and a truncated last line, and over records with duplicated IDs
// joined to labels with a duplicated ID.
func TestHardeningEvalCountsAddUp(t *testing.T) {
	ls := fixtureLines(t, 6)
	var ds bytes.Buffer
	for _, l := range ls[:4] {
		ds.Write(l)
		ds.WriteString("\n")
	}
	ds.Write(ls[0]) // duplicated row: same id, evaluated again
	ds.WriteString("\n\n   \n")
	ds.WriteString("{\"id\":\"nul\",\"question\":\"q\\u0000\",\"contexts\":[],\"answer\":\"a\"}\n")
	ds.WriteString("{\"id\":\"utf8\",\"question\":\"q\xff\",\"contexts\":[],\"answer\":\"a\"}\n")
	ds.Write(ls[4][:len(ls[4])/3]) // truncated last line
	dsPath := hardWrite(t, "data.jsonl", ds.Bytes())

	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := hardRun(t, "", "eval", "-dataset", dsPath, "-out", out, "-progress", "never")
	rep, err := report.ReadReport(out)
	if err != nil {
		t.Fatalf("exit %d: no report: %v\n%s", code, err, stderr)
	}
	in := rep.Input
	t.Logf("dataset: exit %d; rows read %d = evaluated %d + failed %d + not evaluated %d; failures %d", code, in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated, in.FailuresTotal)
	if code != 1 || in.RowsRead != 8 || in.RowsEvaluated != 5 || in.RowsFailed != 3 || in.RowsRead != in.RowsEvaluated+in.RowsFailed+in.RowsNotEvaluated {
		t.Errorf("exit %d, read %d, evaluated %d, failed %d, not evaluated %d; want exit 1, 8 = 5 + 3 + 0", code, in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated)
	}
	for _, want := range []string{"data.jsonl:8:", "data.jsonl:9:", "data.jsonl:10:"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %s:\n%s", want, stderr)
		}
	}

	// Records: two with the same id, and a truncated last record; labels
	// with a repeated id.
	var recs bytes.Buffer
	for i, id := range []string{"r1", "r1", "r2"} {
		rec := record.Record{ID: id}
		rec.Result.DecisionID = "d"
		b, err := record.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			b = b[:len(b)/2]
		}
		recs.Write(b)
	}
	recPath := hardWrite(t, "records.jsonl", recs.Bytes())
	label := func(id string) string {
		return fmt.Sprintf(`{"id":%q,"question":"q","contexts":[],"answer":"a","expected":{"diagnosis":"PASS"}}`, id)
	}
	labPath := hardWrite(t, "labels.jsonl", []byte(label("r1")+"\n"+label("r1")+"\n"))
	code, _, stderr = hardRun(t, "", "eval", "-mode", "recorded", "-records", recPath, "-dataset", labPath, "-out", out, "-progress", "never")
	rep, err = report.ReadReport(out)
	if err != nil {
		t.Fatalf("exit %d: no report: %v\n%s", code, err, stderr)
	}
	in = rep.Input
	t.Logf("records: exit %d; rows read %d = evaluated %d + failed %d + not evaluated %d", code, in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated)
	if code != 1 || in.RowsRead != 3 || in.RowsRead != in.RowsEvaluated+in.RowsFailed+in.RowsNotEvaluated || in.RowsFailed < 1 {
		t.Errorf("exit %d, read %d, evaluated %d, failed %d, not evaluated %d; want exit 1, 3 rows adding up, the truncated one failed", code, in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated)
	}
	if !strings.Contains(stderr, "records.jsonl:3:") || !strings.Contains(stderr, "labels.jsonl:2:") {
		t.Errorf("stderr does not name the truncated record (records.jsonl:3) and the repeated label (labels.jsonl:2):\n%s", stderr)
	}
}

// TestHardeningCalibrateBadLines: calibrate over a dataset with a duplicated
// row and a truncated last line. As documented, a bad line is named on
// standard error and skipped; the summary counts it and the profile records
// the rows it was fitted on (lines - bad).
func TestHardeningCalibrateBadLines(t *testing.T) {
	b, err := os.ReadFile(hardFixture)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.TrimSpace(b)
	first, _, _ := bytes.Cut(b, []byte("\n"))
	data := append(append(append([]byte(nil), b...), '\n'), first...)
	data = append(data, '\n')
	data = append(data, first[:len(first)/2]...)
	path := hardWrite(t, "cal.jsonl", data)
	lines := bytes.Count(data, []byte("\n")) + 1
	out := filepath.Join(t.TempDir(), "p.json")
	code, stdout, stderr := hardRun(t, "", "calibrate", "-dataset", path, "-out", out, "-decisions", "groundedness", "-min-labels", "5", "-min-class", "1", "-allow-undecided")
	t.Logf("calibrate: exit %d\n%s\n%s", code, firstLines(stderr, 2), firstLines(stdout, 1))
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("cal.jsonl:%d: skipped: malformed JSON", lines)) || !strings.Contains(stdout+stderr, "1 bad lines skipped") {
		t.Errorf("exit %d; want 0 with the truncated line cal.jsonl:%d named and counted:\n%s", code, lines, stderr)
	}
	p, err := lexical.LoadProfile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Data) != 1 || p.Data[0].Rows != lines-1 {
		t.Errorf("profile data %+v; want %d rows (%d lines, 1 bad)", p.Data, lines-1, lines)
	}
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}
