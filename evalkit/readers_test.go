package evalkit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

// recLine is a record line whose result holds the JSON members res (after
// a PASS diagnosis, unless res names one) and whose top level holds extra.
func recLine(id, res, extra string) string {
	if !strings.Contains(res, `"diagnosis"`) {
		res = `"diagnosis":"PASS","route":"auto","action":"allow"` + res
	}
	return fmt.Sprintf(`{"recordVersion":"ragtriage.record/2","id":%q,"result":{%s}%s}`, id, res, extra)
}

// Records whose result no evaluation can produce are bad lines that say
// which field is wrong and why (issue 18, item 3).
func TestParseRecordRefusesNonsense(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"p above 1", recLine("a", `,"generation":{"groundedness":1.5}`, ""), "result.generation.groundedness: 1.5 is not a probability"},
		{"p below 0", recLine("a", `,"retrieval":{"contextSufficiency":-0.1}`, ""), "result.retrieval.contextSufficiency: -0.1 is not a probability"},
		{"chunk p", recLine("a", `,"retrieval":{"chunkRelevance":{"c1":0.5,"c2":7}}`, ""), `result.retrieval.chunkRelevance["c2"]: 7 is not a probability`},
		{"confidence", recLine("a", `,"confidence":1.01`, ""), "result.confidence: 1.01 is not a probability"},
		{"claim p", recLine("a", `,"claims":[{"text":"x","groundedness":2,"verdict":"pass"}]`, ""), "result.claims[0].groundedness: 2 is not a probability"},
		{"negative latency", recLine("a", `,"latencyMs":-4`, ""), "result.latencyMs: -4 is not a latency"},
		{"negative tokens", recLine("a", `,"usage":{"inputTokens":-5}`, ""), "result.usage.inputTokens: -5 is negative"},
		{"negative calls", recLine("a", `,"usage":{"calls":-1}`, ""), "result.usage.calls: -1 is negative"},
		{"leg latency", recLine("a", "", `,"legs":[{"name":"primary","latencyMs":-1}]`), "legs[0].latencyMs: -1 is not a latency"},
		{"leg tokens", recLine("a", "", `,"legs":[{"name":"primary","latencyMs":1,"usage":{"outputTokens":-2}}]`), "legs[0].usage.outputTokens: -2 is negative"},
		{"malformed diagnosis", recLine("a", `"diagnosis":"PASSED?!","route":"auto","action":"allow"`, ""), `result.diagnosis: "PASSED?!" is not a diagnosis`},
		{"no diagnosis", `{"recordVersion":"ragtriage.record/2","id":"a","result":{"route":"auto"}}`, "result.diagnosis: missing"},
		{"unknown abstention cause", recLine("a", `,"abstentions":[{"decision":"groundedness","reason":"r","cause":"tired out"}]`, ""), `result.abstentions[0].cause: "tired out" is not a cause`},
		{"unknown error cause", recLine("a", `,"errors":[{"judge":"j","decisions":[],"error":"e","cause":"9gremlins"}]`, ""), `result.errors[0].cause: "9gremlins" is not a cause`},
		{"unknown fallback cause", recLine("a", `,"fallback":{"judge":"f","decisions":[],"settled":0,"unsettled":1,"cause":"moon/2","rule":"fail_closed","latencyMs":1}`, ""), `result.fallback.cause: "moon/2" is not a cause`},
		{"unknown fallback causes key", recLine("a", `,"fallback":{"judge":"f","decisions":[],"settled":0,"unsettled":1,"causes":{"moon!":1},"rule":"fail_closed","latencyMs":1}`, ""), `result.fallback.causes: "moon!" is not a cause`},
		{"negative settled", recLine("a", `,"fallback":{"judge":"f","decisions":[],"settled":-1,"unsettled":0,"rule":"fail_closed","latencyMs":1}`, ""), "settled -1 and unsettled 0: a count is negative"},
		{"fallback latency", recLine("a", `,"fallback":{"judge":"f","decisions":[],"settled":1,"unsettled":0,"rule":"fail_closed","latencyMs":-3}`, ""), "result.fallback.latencyMs: -3 is not a latency"},
		{"unknown verdict", recLine("a", `,"verdicts":{"generation":{"groundedness":"maybe"}}`, ""), `unknown verdict "maybe"`},
	} {
		_, err := parseRecord([]byte(tc.line))
		if err == nil || !errors.Is(err, errBadRecord) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: parseRecord(%s) = %v; want an errBadRecord containing %q", tc.name, tc.line, err, tc.want)
		}
	}
	for _, line := range []string{
		recLine("ok", `,"generation":{"groundedness":0},"retrieval":{"contextSufficiency":1,"contextConflict":null},"confidence":1,"latencyMs":0`, ""),
		recLine("old", `,"abstentions":[{"decision":"groundedness","reason":"r"}]`, ""), // no cause: an old record
	} {
		if _, err := parseRecord([]byte(line)); err != nil {
			t.Errorf("parseRecord(%s) = %v; want no error", line, err)
		}
	}
}

// A replay of records counts every line: read = evaluated + failed, each
// bad line listed with its line number and reason, and nothing of a bad
// line reaches the report's figures.
func TestRecordReplayCountsNonsense(t *testing.T) {
	lines := []string{
		recLine("good1", `,"generation":{"groundedness":0.9},"latencyMs":2`, ""),
		recLine("p", `,"generation":{"groundedness":1.5},"latencyMs":2`, ""),
		recLine("lat", `,"latencyMs":-1`, ""),
		recLine("diag", `"diagnosis":"PASSED because","route":"auto","action":"allow"`, ""),
		recLine("good2", `,"generation":{"groundedness":0.8},"latencyMs":4`, ""),
	}
	path := writeFile(t, "records.jsonl", strings.Join(lines, "\n")+"\n")
	rep, err := Run(context.Background(), NewRecordSource(nil, path), Config{Mode: report.ModeRecorded, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := rep.Input
	if in.RowsRead != 5 || in.RowsEvaluated != 2 || in.RowsFailed != 3 || in.RowsRead != in.RowsEvaluated+in.RowsFailed+in.RowsNotEvaluated {
		t.Errorf("read %d, evaluated %d, failed %d, not evaluated %d; want 5 = 2 + 3 + 0", in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated)
	}
	want := map[int]string{2: "is not a probability", 3: "is not a latency", 4: "is not a diagnosis"}
	for _, f := range in.Failures {
		if w, ok := want[f.Pos.Line]; !ok || !strings.Contains(f.Reason, w) || f.Kind != report.FailBadLine {
			t.Errorf("failure %s %s %q; want line %d's reason to contain %q", f.Pos, f.Kind, f.Reason, f.Pos.Line, w)
		}
		delete(want, f.Pos.Line)
	}
	if len(want) > 0 {
		t.Errorf("lines not reported: %v", want)
	}
	if n := rep.Diagnosis.Predicted["PASSED because"]; n != 0 || rep.Latency.Primary.N != 2 || rep.Latency.Primary.Max != 4 {
		t.Errorf("predicted PASSED %d, latency %+v; want 0 and the two good rows only", n, rep.Latency.Primary)
	}
}

// Huge latencies and token counts saturate, and the report is written
// (JSON has no +Inf): on 3401e57 the latency sum overflowed and WriteJSON
// failed.
func TestHugeLatenciesWriteReport(t *testing.T) {
	huge := fmt.Sprintf(`,"latencyMs":%g,"usage":{"inputTokens":%d,"calls":1}`, math.MaxFloat64, math.MaxInt)
	var lines []string
	for i := range 3 {
		lines = append(lines, recLine(fmt.Sprint("r", i), huge, ""))
	}
	lines = append(lines, recLine("esc", `,"latencyMs":1e308,"fallback":{"judge":"f","decisions":["groundedness"],"settled":1,"unsettled":0,"rule":"fail_closed","latencyMs":1e308}`, ""))
	path := writeFile(t, "records.jsonl", strings.Join(lines, "\n")+"\n")
	rep, err := Run(context.Background(), NewRecordSource(nil, path), Config{Mode: report.ModeRecorded, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	if err := rep.WriteJSON(out); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	back, err := report.ReadReport(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.NonFinite) != 0 {
		t.Errorf("non-finite figures %v; want none (the sums saturate)", back.NonFinite)
	}
	for name, p := range map[string]report.Percentiles{"primary": back.Latency.Primary, "combined": back.Latency.Combined} {
		if p.N != 4 || p.Mean <= 0 || p.Mean > math.MaxFloat64 || p.Max != math.MaxFloat64 {
			t.Errorf("%s latency %+v; want 4 finite figures, the max saturated", name, p)
		}
	}
	if u := back.Usage.Primary; u.InputTokens != math.MaxInt || u.Calls != 3 {
		t.Errorf("primary usage %+v; want input tokens saturated at MaxInt, 3 calls", u)
	}
}

func TestSaturatingSums(t *testing.T) {
	for _, tc := range []struct{ a, b, want int }{
		{1, 2, 3}, {math.MaxInt, 1, math.MaxInt}, {math.MaxInt - 1, 1, math.MaxInt}, {math.MinInt, -1, math.MinInt}, {-3, 1, -2},
	} {
		if got := addCount(tc.a, tc.b); got != tc.want {
			t.Errorf("addCount(%d, %d) = %d; want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := addMs(math.MaxFloat64, math.MaxFloat64); got != math.MaxFloat64 {
		t.Errorf("addMs(max, max) = %v; want max", got)
	}
	xs := []float64{math.MaxFloat64, math.MaxFloat64}
	if got := meanMs(xs, math.MaxFloat64); got != math.MaxFloat64 {
		t.Errorf("meanMs(saturated) = %v; want max", got)
	}
	if got := meanMs([]float64{1, 2, 6}, 9); got != 3 {
		t.Errorf("meanMs = %v; want 3", got)
	}
}

// The label files joined to records warn like datasets do: misplaced
// label keys and unknown diagnoses, with file:line.
func TestRecordSourceLabelWarnings(t *testing.T) {
	labels := writeFile(t, "labels.jsonl", `{"id":"good1","question":"q","contexts":[],"answer":"a","expected":{"groundedness":true,"diagnosis":"PASSED"}}`+"\n")
	l, err := ReadLabels(labels)
	if err != nil {
		t.Fatal(err)
	}
	src := NewRecordSource(l, writeFile(t, "records.jsonl", recLine("good1", "", "")+"\n"))
	defer src.Close()
	var got []string
	for _, w := range src.Warnings() {
		got = append(got, w.String())
	}
	want := []string{
		`labels.jsonl:1: expected.groundedness: not a label key, ignored; did you mean "expected.generation.groundedness"?`,
		`labels.jsonl:1: expected.diagnosis: unknown diagnosis "PASSED": the label is not used; did you mean "PASS"?`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
