package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// internalNames are words that betray Go types in an error message: a user
// of the dataset format never sees a Go type.
var internalNames = []string{"Go ", "evalkit.", "guard.", "rawRow", "rawContext", "struct", "json: ", "map[", "float64", "]string", "]any", "interface"}

func checkNoInternalNames(t *testing.T, line, msg string) {
	t.Helper()
	for _, w := range internalNames {
		if strings.Contains(msg, w) {
			t.Errorf("ParseRow(%.80q) error %q names %q, an internal type", line, msg, w)
		}
	}
}

// TestParseRowErrorsPlainWords pins the errors of lines that are not rows at
// all, or whose labels or contexts are mistyped: they name the JSON field and
// say what it should be, in JSON terms, never a Go type.
func TestParseRowErrorsPlainWords(t *testing.T) {
	tests := []struct{ line, err string }{
		{`[{"id":"a","question":"q","contexts":[],"answer":"x"}]`, "expected JSON Lines: one JSON object per line; this line holds a JSON array"},
		{`[`, "expected JSON Lines: one JSON object per line; this line starts a JSON array"},
		{`  [ {"id": "a",`, "expected JSON Lines: one JSON object per line; this line starts a JSON array"},
		{`{`, "expected JSON Lines: one JSON object per line; this line looks like part of a JSON value spread over several lines"},
		{`    "id": "a",`, "expected JSON Lines: one JSON object per line; this line looks like part of a JSON value spread over several lines"},
		{`  "question": "q"`, "expected JSON Lines: one JSON object per line; this line looks like part of a JSON value spread over several lines"},
		{`  },`, "expected JSON Lines: one JSON object per line; this line looks like part of a JSON value spread over several lines"},
		{`]`, "expected JSON Lines: one JSON object per line; this line looks like part of a JSON value spread over several lines"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x"},`, "expected JSON Lines: one JSON object per line, with no comma after it"},
		{`"row"`, "want a JSON object, got a string"},
		{`12`, "want a JSON object, got a number"},
		{`true`, "want a JSON object, got true"},
		{`null`, "want a JSON object, got null"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":[]}`, "expected: want an object, got an array"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"diagnosis":5}}`, "expected.diagnosis: want a string, got a number"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":5}}`, "expected.retrieval: want an object, got a number"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"generation":{"groundedness":"yes"}}}`, "expected.generation.groundedness: want true, false or null, got a string"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"generation":{"correctness":1}}}`, "expected.generation.correctness: want true, false or null, got a number"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"generation":true}}`, "expected.generation: want an object, got true or false"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":{"chunkRelevance":[1]}}}`, "expected.retrieval.chunkRelevance: want an object, got an array"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":{"chunkRelevance":{"c1":"yes"}}}}`, "expected.retrieval.chunkRelevance: want true, false or null for each context id, got a string"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":{"contextSufficiency":{}}}}`, "expected.retrieval.contextSufficiency: want true, false or null, got an object"},
		{`{"id":"a","question":"q","contexts":["c1"],"answer":"x"}`, `contexts[0]: want an object {"id":…,"text":…}, got a string`},
		{`{"id":"a","question":"q","contexts":[null],"answer":"x"}`, `contexts[0]: want an object {"id":…,"text":…}, got null`},
		{`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","score":"0.5"}],"answer":"x"}`, "contexts[0].score: want a number or null"},
		{`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","score":1e999}],"answer":"x"}`, "contexts[0].score: 1e999 is out of range"},
		{`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","metadata":[1]}],"answer":"x"}`, "contexts[0].metadata: want an object"},
		{`{"id":"a","question":"q","contexts":[{"id":"c1"}],"answer":"x"}`, "contexts[0].text: missing"},
		{`{"id":"a","question":"q","contexts":[{"id":"c1","content":"t"}],"answer":"x"}`, `contexts[0].text: missing (the context has "content"; the key must be "text")`},
		{`{"id":"a","question":"q","contexts":[{"doc_id":"c1","text":"t"}],"answer":"x"}`, `contexts[0].id: want a non-empty string or a number (the context has "doc_id"; the key must be "id")`},
		{`{"id":"a","query":"q","contexts":[],"answer":"x"}`, `question: missing (the row has "query"; the key must be "question")`},
		{`{"id":"a","question":"q","context":[],"answer":"x"}`, `contexts: missing (the row has "context"; the key must be "contexts")`},
		{`{"id":"a","question":"q","contexts":[],"response":"x"}`, `answer: missing (the row has "response"; the key must be "answer")`},
	}
	for _, tt := range tests {
		_, err := ParseRow([]byte(tt.line))
		var re *RowError
		if !errors.As(err, &re) {
			t.Errorf("ParseRow(%q) error = %v; want a *RowError %q", tt.line, err, tt.err)
			continue
		}
		if re.Reason != tt.err {
			t.Errorf("ParseRow(%q) error = %q; want %q", tt.line, re.Reason, tt.err)
		}
		checkNoInternalNames(t, tt.line, re.Reason)
	}
}

// TestParseRowNoInternalNames runs every bad line the tests know through
// ParseRow: no error names a Go type.
func TestParseRowNoInternalNames(t *testing.T) {
	for _, line := range oddRows {
		if _, err := ParseRow([]byte(line)); err != nil {
			checkNoInternalNames(t, line, err.Error())
		}
	}
}

// TestParseRowNumericContextIDs: a numeric context id is accepted as its
// decimal text, as a numeric row id is, on both decoding paths.
func TestParseRowNumericContextIDs(t *testing.T) {
	line := `{"id":7,"question":"q","contexts":[{"id":1,"text":"a"},{"id":-2.5e3,"text":"b"},{"id":"c","text":"c"}],"answer":"x",` +
		`"expected":{"retrieval":{"chunkRelevance":{"1":true,"-2.5e3":false}}}}`
	for _, l := range []string{line, strings.Replace(line, `"question"`, `"\u0071uestion"`, 1)} { // the second takes encoding/json's path
		row, err := ParseRow([]byte(l))
		if err != nil {
			t.Fatalf("ParseRow(%q): %v", l, err)
		}
		var ids []string
		for _, c := range row.Sample.Contexts {
			ids = append(ids, c.ID)
		}
		if want := []string{"1", "-2.5e3", "c"}; !reflect.DeepEqual(ids, want) {
			t.Errorf("context ids %q; want %q", ids, want)
		}
		if v, ok := row.Expected.ChunkLabel("1"); !ok || !v {
			t.Errorf("chunk label of context 1 = %v, %v; want true, true", v, ok)
		}
		if d := sameParse([]byte(l)); d != "" {
			t.Errorf("%s", d)
		}
	}
	_, err := ParseRow([]byte(`{"question":"q","contexts":[{"id":1,"text":"a"},{"id":"1","text":"b"}],"answer":"x"}`))
	if err == nil || err.Error() != `contexts[1].id: duplicate of contexts[0].id "1"` {
		t.Errorf("numeric id 1 and string id \"1\": error %v; want a duplicate", err)
	}
	for _, l := range []string{
		`{"question":"q","contexts":[{"id":true,"text":"a"}],"answer":"x"}`,
		`{"question":"q","contexts":[{"id":"","text":"a"}],"answer":"x"}`,
		`{"question":"q","contexts":[{"id":[1],"text":"a"}],"answer":"x"}`,
	} {
		if _, err := ParseRow([]byte(l)); err == nil || err.Error() != "contexts[0].id: want a non-empty string or a number" {
			t.Errorf("ParseRow(%q) error %v; want contexts[0].id: want a non-empty string or a number", l, err)
		}
	}
}

// TestParseRowUnknownKeys: the top-level keys ParseRow does not know are
// listed in line order, each once, on both decoding paths; known keys and
// "meta" (provenance, read by no one) are not; keys match exactly, so a
// case variant of a known key is unknown.
func TestParseRowUnknownKeys(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`{"id":"a","question":"q","contexts":[],"answer":"x","referenceAnswer":"r","expected":{},"source":"s","metadata":{},"meta":{"k":1}}`, nil},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","reference_answer":"r"}`, []string{"reference_answer"}},
		{`{"id":"a","reference":"r","question":"q","contexts":[],"answer":"x","label":1,"reference":"s"}`, []string{"reference", "label"}},
		{`{"id":"a","question":"q","Question":"Q","contexts":[],"answer":"x","Meta":1,"passages":[]}`, []string{"Question", "Meta", "passages"}},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","r\u00e9f":1}`, []string{"réf"}},
	}
	for _, tt := range tests {
		row, err := ParseRow([]byte(tt.line))
		if err != nil {
			t.Errorf("ParseRow(%q): %v", tt.line, err)
			continue
		}
		if !reflect.DeepEqual(row.UnknownKeys, tt.want) {
			t.Errorf("ParseRow(%q).UnknownKeys = %q; want %q", tt.line, row.UnknownKeys, tt.want)
		}
		if d := sameParse([]byte(tt.line)); d != "" {
			t.Errorf("%q: %s", tt.line, d)
		}
	}
}

func TestSuggestKey(t *testing.T) {
	for key, want := range map[string]string{
		"reference_answer": "referenceAnswer", "reference": "referenceAnswer", "ReferenceAnswers": "referenceAnswer",
		"ground_truth": "referenceAnswer", "gold_answer": "referenceAnswer", "expected_answer": "referenceAnswer",
		"context": "contexts", "passages": "contexts", "retrieved_contexts": "contexts", "documents": "contexts",
		"label": "expected", "labels": "expected",
		"query": "question", "user_input": "question", "questions": "question",
		"response": "answer", "answers": "answer", "generated_answer": "answer",
		"sample_id": "id", "_id": "id",
		"meta_data": "metadata",
		"sources":   "source",
		"knowledge": "contexts",
		"whatever":  "", "split": "", "_meta": "",
	} {
		if got := suggestKey(rowSuggestions, key); got != want {
			t.Errorf("suggestKey(%q) = %q; want %q", key, got, want)
		}
	}
	for key, want := range map[string]string{"content": "text", "page_content": "text", "doc_id": "id", "Text": "text", "title": ""} {
		if got := suggestKey(contextSuggestions, key); got != want {
			t.Errorf("suggestKey(context, %q) = %q; want %q", key, got, want)
		}
	}
}

// jsonArrayFile is a dataset written as a pretty-printed JSON array, the way
// json.dumps(rows, indent=2) or JSON.stringify(rows, null, 2) write it.
func jsonArrayFile(t *testing.T, rows int) []string {
	t.Helper()
	var v []map[string]any
	for i := range rows {
		v = append(v, map[string]any{"id": fmt.Sprint("r", i), "question": "q?", "answer": "a",
			"contexts": []map[string]any{{"id": "c1", "text": "t"}}, "referenceAnswer": "a"})
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// checkLines feeds lines to a checker as a source does (blank lines
// skipped) and returns each line's error, "" for a row.
func checkLines(c *Checker, file string, lines []string) []string {
	var errs []string
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		_, err := c.Parse(Position{File: file, Line: i + 1}, []byte(l))
		if err != nil {
			errs = append(errs, err.Error())
		} else {
			errs = append(errs, "")
		}
	}
	return errs
}

// TestDatasetCheckerJSONArray: every line of a JSON array, pretty-printed
// or on one line, is reported with one clear reason naming where the array
// starts, and the file gets one warning that counts them.
func TestDatasetCheckerJSONArray(t *testing.T) {
	lines := jsonArrayFile(t, 3)
	var c Checker
	errs := checkLines(&c, "rows.json", lines)
	if len(errs) != len(lines) {
		t.Fatalf("%d results for %d lines", len(errs), len(lines))
	}
	const want = "expected JSON Lines: one JSON object per line; this file looks like a JSON array (line 1)"
	for i, e := range errs {
		if e != want {
			t.Errorf("line %d (%q): error %q; want %q", i+1, lines[i], e, want)
		}
	}
	ws := c.Warnings()
	wantW := []Warning{{Pos: Position{File: "rows.json", Line: 1},
		Message: fmt.Sprintf("expected JSON Lines: one JSON object per line; this file looks like a JSON array (line 1): %d lines reported as bad; convert it with jq -c '.[]'", len(lines))}}
	if !reflect.DeepEqual(ws, wantW) {
		t.Errorf("warnings %q;\nwant %q", ws, wantW)
	}

	// The same rows on one line, after a good row: the good row is read.
	var one []string
	for _, l := range lines {
		one = append(one, strings.TrimSpace(l))
	}
	good := `{"id":"g","question":"q","contexts":[],"answer":"x"}`
	c = Checker{}
	errs = checkLines(&c, "rows.json", []string{good, strings.Join(one, ""), good})
	if want := []string{"", "expected JSON Lines: one JSON object per line; this file looks like a JSON array (line 2)", ""}; !reflect.DeepEqual(errs, want) {
		t.Errorf("one-line array: errors %q; want %q", errs, want)
	}
	if ws := c.Warnings(); len(ws) != 1 || ws[0].Pos.Line != 2 || !strings.Contains(ws[0].Message, ": 1 line reported as bad") {
		t.Errorf("one-line array: warnings %q", ws)
	}
}

// TestDatasetCheckerPrettyObject: an object spread over lines in the middle
// of JSON Lines is reported line by line and the rows after it are read; a
// lone "{" that opens nothing does not swallow the rows after it.
func TestDatasetCheckerPrettyObject(t *testing.T) {
	good := `{"id":"g","question":"q","contexts":[],"answer":"x"}`
	pretty, _ := json.MarshalIndent(map[string]any{"id": "p", "question": "q", "contexts": []any{map[string]any{"id": "c", "text": "t"}}, "answer": "x"}, "", "  ")
	lines := []string{good}
	lines = append(lines, strings.Split(string(pretty), "\n")...)
	lines = append(lines, good, "", "{", good, good)
	var c Checker
	errs := checkLines(&c, "d.jsonl", lines)
	const obj = "expected JSON Lines: one JSON object per line; this looks like a JSON object spread over several lines (line %d)"
	n := strings.Count(string(pretty), "\n") + 1
	want := []string{""}
	for range n {
		want = append(want, fmt.Sprintf(obj, 2))
	}
	want = append(want, "", fmt.Sprintf(obj, n+4), "", "")
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("errors\n%q\nwant\n%q", errs, want)
	}
	ws := c.Warnings()
	if len(ws) != 1 || ws[0].Pos != (Position{File: "d.jsonl", Line: 2}) ||
		ws[0].Message != fmt.Sprintf("expected JSON Lines: one JSON object per line; this file has JSON objects spread over several lines (line 2): %d lines reported as bad; convert them with jq -c .", n+1) {
		t.Errorf("warnings %q", ws)
	}
}

// TestDatasetCheckerUnknownKeys: one warning per file and unknown key, at
// the first line that has it, naming the key meant when there is a likely
// one; known keys never warn.
func TestDatasetCheckerUnknownKeys(t *testing.T) {
	row := func(extra string) string {
		return `{"id":"a","question":"q","contexts":[{"id":"c","text":"t"}],"answer":"x"` + extra + `}`
	}
	var c Checker
	checkLines(&c, "a.jsonl", []string{
		row(`,"meta":{"k":1},"source":"s","metadata":{},"expected":{}`),
		row(`,"reference_answer":"r"`),
		row(`,"reference_answer":"r","label":{}`),
		row(`,"context":[]`),
		`{"id":"a","question":"q","contexts":[],"reference_answer":"r"}`, // a bad line: not counted
		row(`,"reference_answer":"r","split":"dev"`),
	})
	checkLines(&c, "b.jsonl", []string{row(`,"passages":[]`), row(`,"reference_answer":"r"`)})
	got := c.Warnings()
	want := []Warning{
		{Position{"a.jsonl", 2}, `unknown key "reference_answer" is ignored (first seen here, on 3 lines in all); did you mean "referenceAnswer"?`},
		{Position{"a.jsonl", 3}, `unknown key "label" is ignored; did you mean "expected"?`},
		{Position{"a.jsonl", 4}, `unknown key "context" is ignored; did you mean "contexts"?`},
		{Position{"a.jsonl", 6}, `unknown key "split" is ignored`},
		{Position{"b.jsonl", 1}, `unknown key "passages" is ignored; did you mean "contexts"?`},
		{Position{"b.jsonl", 2}, `unknown key "reference_answer" is ignored; did you mean "referenceAnswer"?`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings\n%q\nwant\n%q", got, want)
	}
	if len(got) > 0 {
		if s := got[0].String(); s != `a.jsonl:2: unknown key "reference_answer" is ignored (first seen here, on 3 lines in all); did you mean "referenceAnswer"?` {
			t.Errorf("Warning.String() = %q", s)
		}
	}
}
