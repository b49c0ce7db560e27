package evalkit

import (
	"context"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

// Records of mixed versions and shapes are read or refused line by line,
// with line numbers: a version 2 record with the loop's fields (features,
// draw, teacher) and one without them both read; a version 1 record, a
// future version and a record whose loop fields are nonsense are refused.
func TestMixedRecordVersionsLineByLine(t *testing.T) {
	loop := `,"features":{"version":"lexical-features/3","vectors":[{"decision":"groundedness","x":[1,0.5]}]},` +
		`"draw":{"kind":"audit","rate":0.2,"seed":1,"drawn":true,"inclusion":0.2},` +
		`"teacher":{"judge":"llm","estimates":[{"decision":"groundedness","p":0.9}],"verdicts":{"retrieval":{"chunkRelevance":{},"contextSufficiency":"uncertain","contextConflict":"uncertain"},"generation":{"groundedness":"pass","answerRelevance":"uncertain","contradiction":"uncertain"}},"latencyMs":3,"fromPrimary":false}`
	lines := []string{
		recLine("with-loop", `,"latencyMs":1`+loop, ""),
		recLine("plain", `,"latencyMs":1`, ""),
		`{"recordVersion":"ragtriage.record/1","id":"old","result":{"diagnosis":"PASS"}}`,
		`{"recordVersion":"ragtriage.record/3","id":"future","result":{"diagnosis":"PASS"}}`,
		recLine("bad-draw", `,"latencyMs":1,"draw":{"kind":"audit","rate":2,"seed":1,"drawn":false,"inclusion":0}`, ""),
		recLine("orphan-teacher", `,"latencyMs":1,"teacher":{"judge":"llm","estimates":[],"verdicts":{"retrieval":{"chunkRelevance":{},"contextSufficiency":"uncertain","contextConflict":"uncertain"},"generation":{"groundedness":"uncertain","answerRelevance":"uncertain","contradiction":"uncertain"}},"latencyMs":0,"fromPrimary":false}`, ""),
	}
	path := writeFile(t, "records.jsonl", strings.Join(lines, "\n")+"\n")
	rep, err := Run(context.Background(), NewRecordSource(nil, path), Config{Mode: report.ModeRecorded, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if in := rep.Input; in.RowsRead != 6 || in.RowsEvaluated != 2 || in.RowsFailed != 4 {
		t.Errorf("read %d, evaluated %d, failed %d; want 6 = 2 + 4", in.RowsRead, in.RowsEvaluated, in.RowsFailed)
	}
	want := map[int]string{3: `"ragtriage.record/1"`, 4: `"ragtriage.record/3", this reader knows`, 5: "result.draw.rate: 2 is not a rate", 6: "result.teacher: present, but result.draw"}
	for _, f := range rep.Input.Failures {
		if w, ok := want[f.Pos.Line]; !ok || !strings.Contains(f.Reason, w) {
			t.Errorf("line %d: %q; want it to contain %q", f.Pos.Line, f.Reason, w)
		}
		delete(want, f.Pos.Line)
	}
	if len(want) > 0 {
		t.Errorf("lines not reported: %v", want)
	}
	if d := rep.Draws; d == nil || d.Rows != 1 || d.Drawn != 1 || d.Taught != 1 || d.AuditSides != 0 {
		t.Errorf("draws %+v; want the one drawn, taught record", d)
	}
}
