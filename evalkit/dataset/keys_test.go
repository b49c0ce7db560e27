package dataset

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// Keys match exactly, at the top and in nested objects: a case variant of a
// known key is an unknown key, never read over the real one. On 3401e57
// "Question" overrode "question" (issue 18, item 3).
func TestParseRowKeysMatchExactly(t *testing.T) {
	line := `{"id":"a","question":"q","Question":"Q","contexts":[{"id":"c","text":"t","Text":"T"}],"answer":"x","ANSWER":"y",` +
		`"expected":{"generation":{"groundedness":true,"Groundedness":false},"Retrieval":{"contextSufficiency":false}}}`
	for _, l := range []string{line, strings.Replace(line, `"id":"a"`, `"\u0069d":"a"`, 1)} { // the second takes encoding/json's path
		row, err := ParseRow([]byte(l))
		if err != nil {
			t.Fatalf("ParseRow(%s): %v", l, err)
		}
		s := row.Sample
		if s.Question != "q" || s.Answer != "x" || s.Contexts[0].Text != "t" {
			t.Errorf("question %q, answer %q, text %q; want q, x, t (the exact keys)", s.Question, s.Answer, s.Contexts[0].Text)
		}
		if g, ok := row.Expected.Label(guard.Groundedness); !ok || !g {
			t.Errorf("groundedness label %v, %v; want true (the exact key)", g, ok)
		}
		if row.Expected.Retrieval != nil {
			t.Errorf("retrieval labels %+v; want none (\"Retrieval\" is unknown)", row.Expected.Retrieval)
		}
		if want := []string{"Question", "ANSWER"}; !reflect.DeepEqual(row.UnknownKeys, want) {
			t.Errorf("UnknownKeys %q; want %q", row.UnknownKeys, want)
		}
		if want := []string{"contexts[].Text", "expected.generation.Groundedness", "expected.Retrieval"}; !reflect.DeepEqual(row.UnknownPaths, want) {
			t.Errorf("UnknownPaths %q; want %q", row.UnknownPaths, want)
		}
		if d := sameParse([]byte(l)); d != "" {
			t.Errorf("%s", d)
		}
	}
}

// labelWarnings runs lines (one file, numbered from 1) through a Checker and
// returns its warnings as "file:line: message".
func labelWarnings(t *testing.T, lines ...string) []string {
	t.Helper()
	var c Checker
	for i, l := range lines {
		if _, err := c.Parse(Position{File: "labels.jsonl", Line: i + 1}, []byte(l)); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	var out []string
	for _, w := range c.Warnings() {
		out = append(out, w.String())
	}
	return out
}

// Misplaced and unknown label keys, and unknown diagnoses, warn with the
// file and line and name the one likely meant (issue 19, item 2). On
// 3401e57 none of these warned: flat labels read as no labels at all.
func TestCheckerLabelWarnings(t *testing.T) {
	row := func(expected string) string {
		return `{"id":"a","question":"q","contexts":[{"id":"c","text":"t"}],"answer":"x","expected":` + expected + `}`
	}
	for _, tc := range []struct{ line, want string }{
		{row(`{"groundedness":true}`), `labels.jsonl:1: expected.groundedness: not a label key, ignored; did you mean "expected.generation.groundedness"?`},
		{row(`{"contextSufficiency":true}`), `labels.jsonl:1: expected.contextSufficiency: not a label key, ignored; did you mean "expected.retrieval.contextSufficiency"?`},
		{row(`{"chunk_relevance":{"c":true}}`), `did you mean "expected.retrieval.chunkRelevance"?`},
		{row(`{"retrieval":{"groundedness":true}}`), `expected.retrieval.groundedness: not a label key, ignored; did you mean "expected.generation.groundedness"?`},
		{row(`{"generation":{"contextConflict":true}}`), `did you mean "expected.retrieval.contextConflict"?`},
		{row(`{"generation":{"Groundedness":true}}`), `expected.generation.Groundedness: not a label key, ignored; did you mean "expected.generation.groundedness"?`},
		{row(`{"generation":{"groundednes":true}}`), `did you mean "expected.generation.groundedness"?`},
		{row(`{"generation":{"faithfulness":true}}`), `did you mean "expected.generation.groundedness"?`},
		{row(`{"retrieval":{"sufficiency":true}}`), `did you mean "expected.retrieval.contextSufficiency"?`},
		{row(`{"Generation":{"groundedness":true}}`), `expected.Generation: not a label key, ignored; did you mean "expected.generation"?`},
		{row(`{"diagnosis":"PASSED"}`), `labels.jsonl:1: expected.diagnosis: unknown diagnosis "PASSED": the label is not used; did you mean "PASS"?`},
		{row(`{"diagnosis":"generator-ungrounded"}`), `did you mean "GENERATOR_UNGROUNDED"?`},
		{row(`{"diagnosis":"ungrounded"}`), `did you mean "GENERATOR_UNGROUNDED"?`},
		{row(`{"diagnosis":"FAIL"}`), `unknown diagnosis "FAIL": the label is not used; a diagnosis is one of CONFLICTING_EVIDENCE, `},
		{row(`{"whatever":1}`), `labels.jsonl:1: expected.whatever: not a label key, ignored`},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","groundedness":true}`, `unknown key "groundedness" is ignored; did you mean "expected.generation.groundedness"?`},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","diagnosis":"PASS"}`, `did you mean "expected.diagnosis"?`},
		{`{"id":"a","question":"q","Question":"Q","contexts":[],"answer":"x"}`, `labels.jsonl:1: unknown key "Question" is ignored; did you mean "question"?`},
		{`{"id":"a","question":"q","contexts":[{"id":"c","text":"t","Text":"T"}],"answer":"x"}`, `labels.jsonl:1: contexts[].Text: not a context key, ignored; did you mean "contexts[].text"?`},
	} {
		ws := labelWarnings(t, tc.line)
		if len(ws) != 1 || !strings.Contains(ws[0], tc.want) {
			t.Errorf("%s: warnings %q; want one containing %q", tc.line, ws, tc.want)
		}
	}
	// Keys contexts carry of their own, and known diagnoses, say nothing.
	for _, tc := range []struct{ line, want string }{
		{`{"id":"a","question":"What is the refund window?","question":"x","contexts":[],"answer":"x"}`, `labels.jsonl:1: key repeated: "question" is given more than once; the last value is used`},
		{`{"id":"a","question":"q","contexts":[{"id":"c","text":"t","text":"u"}],"answer":"x"}`, `labels.jsonl:1: key repeated: "contexts[].text"`},
		{row(`{"generation":{"groundedness":true,"groundedness":false}}`), `labels.jsonl:1: key repeated: "expected.generation.groundedness"`},
		{row(`{"retrieval":{"chunkRelevance":{"c":true,"c":false}}}`), `labels.jsonl:1: key repeated: "expected.retrieval.chunkRelevance.c"`},
		{row(`{"retrieval":{"contextSufficiency":true},"retrieval":{"contextConflict":true}}`), `labels.jsonl:1: key repeated: "expected.retrieval"`},
	} {
		ws := labelWarnings(t, tc.line)
		if len(ws) != 1 || !strings.Contains(ws[0], tc.want) {
			t.Errorf("%s: warnings %q; want one containing %q", tc.line, ws, tc.want)
		}
	}
	// Keys contexts carry of their own, and known diagnoses, say nothing.
	if ws := labelWarnings(t, `{"id":"a","question":"q","contexts":[{"id":"c","text":"t","title":"T","url":"u"}],"answer":"x","expected":{"diagnosis":"PASS"}}`); len(ws) != 0 {
		t.Errorf("warnings %q; want none", ws)
	}
	// One warning per file and key or value, at its first line, with the count.
	ws := labelWarnings(t, row(`{"groundedness":true}`), row(`{"diagnosis":"PASSED"}`), row(`{"groundedness":false}`), row(`{"diagnosis":"PASSED"}`))
	want := []string{
		`labels.jsonl:1: expected.groundedness: not a label key, ignored (first seen here, on 2 lines in all); did you mean "expected.generation.groundedness"?`,
		`labels.jsonl:2: expected.diagnosis: unknown diagnosis "PASSED": the label is not used (first seen here, on 2 lines in all); did you mean "PASS"?`,
	}
	if !reflect.DeepEqual(ws, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(ws, "\n"), strings.Join(want, "\n"))
	}
}

// The row parser is linear in contexts: the duplicate-id check compares a
// bounded number of keys per context (on 3401e57 it scanned every earlier
// context: n²/2 comparisons, 22.8 s for a 2 MB line of 100k contexts).
func TestParseRowLinearInContexts(t *testing.T) {
	for _, n := range []int{1000, 10000, 100000} {
		line := contextsLine(n)
		p := fastParser{b: line, s: string(line)}
		row, ok := p.row()
		if !ok || len(row.Sample.Contexts) != n {
			t.Fatalf("n=%d: single-pass parse ok=%v, %d contexts", n, ok, len(row.Sample.Contexts))
		}
		if perContext := float64(p.idWork) / float64(n); perContext > 2 {
			t.Errorf("n=%d: %d id comparisons, %.1f per context; want at most 2", n, p.idWork, perContext)
		}
	}
	// Many distinct unknown keys are linear too.
	var b strings.Builder
	b.WriteString(`{"question":"q","answer":"a","contexts":[]`)
	for i := range 10000 {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	b.WriteString("}")
	p := fastParser{b: []byte(b.String()), s: b.String()}
	if row, ok := p.row(); !ok || len(row.UnknownKeys) != 10000 || p.top.work > 20000 {
		t.Errorf("10000 unknown keys: ok=%v, %d listed, %d comparisons; want all, at most 20000", ok, len(row.UnknownKeys), p.top.work)
	}
}
