package dataset

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// rowFiles are real dataset lines kept in the repository.
var rowFiles = []string{"../../testdata/cli/halueval-sample.jsonl", "../../guard/lexical/testdata/golden-rows.jsonl"}

func readRowFiles(tb testing.TB) [][]byte {
	tb.Helper()
	var lines [][]byte
	for _, name := range rowFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, bytes.Split(bytes.TrimSpace(data), []byte("\n"))...)
	}
	return lines
}

// parseRowReference is ParseRow as it was before the single-pass decoder:
// the size and UTF-8 checks, then encoding/json.
func parseRowReference(line []byte) (Row, error) {
	if len(line) > MaxLineBytes || !bytesValid(line) {
		return ParseRow(line) // these checks come before any decoding
	}
	return parseRowJSON(line)
}

func bytesValid(b []byte) bool { return FirstInvalid(b) == len(b) }

// sameParse reports how ParseRow and the encoding/json reference differ on
// line, or "".
func sameParse(line []byte) string {
	got, gerr := ParseRow(line)
	want, werr := parseRowReference(line)
	switch {
	case (gerr == nil) != (werr == nil):
		return "ParseRow error " + errString(gerr) + "; reference error " + errString(werr)
	case gerr != nil:
		var g, w *RowError
		if !errors.As(gerr, &g) || !errors.As(werr, &w) || *g != *w {
			return "ParseRow error " + errString(gerr) + "; reference error " + errString(werr)
		}
	case !reflect.DeepEqual(got, want):
		return "rows differ"
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

func TestParseRowMatchesEncodingJSON(t *testing.T) {
	lines := readRowFiles(t)
	fast := 0
	for i, line := range lines {
		if d := sameParse(line); d != "" {
			t.Errorf("line %d: %s", i+1, d)
		}
		if _, ok := parseRowFast(line); ok {
			fast++
		}
	}
	// Every real line takes the single-pass path; otherwise the speed-up
	// is lost without any test noticing.
	if fast != len(lines) {
		t.Errorf("%d of %d real lines took the single-pass path; want all", fast, len(lines))
	}
}

// oddRows are valid or nearly valid lines that exercise what the
// single-pass decoder must hand to encoding/json or get exactly right.
var oddRows = []string{
	`{"id":"a","question":"q","contexts":[],"answer":"x"}`,
	` {"id" : "a" , "question" : "q" , "contexts" : [ ] , "answer" : "x" } `,
	"\t{\"question\":\"q\",\r\n\"contexts\":[{\"id\":\"c1\",\"text\":\"t\"}],\"answer\":\"x\"}\n",
	`{"id":7,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":-7.5e+3,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":null,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":true,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":"a","question":"q \"quoted\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud83d x \udc00 \u12","contexts":[],"answer":"x"}`,
	`{"id":"a","question":"\ud83d\u0041","contexts":[],"answer":"\uDBFF\uDFFF"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","referenceAnswer":null}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","referenceAnswer":""}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","referenceAnswer":3}`,
	`{"id":"a","Question":"q","contexts":[],"answer":"x"}`,
	`{"id":"a","QUESTION":"q","question":"r","contexts":[],"answer":"x"}`,
	`{"id":"a","question":"q","question":"r","contexts":[],"answer":"x"}`,
	"{\"id\":\"a\",\"question\":\"q\",\"contexts\":[],\"answer\":\"x\",\"\u212aey\":1}",
	`{"id":"a","question":"q","contexts":[],"answer":"x","extra":{"deep":[1,2,{"x":null}],"t":true,"f":false}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","extra":[1,2,}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x",}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x"} x`,
	`{"id":"a","question":"q","contexts":[],"answer":"x"}{}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","score":0.75,"metadata":{"k":[1,"v"]}}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","score":null,"metadata":null}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","score":1e999}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","score":"0.5"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","ID":"c2"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t","other":{"x":1}}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t"},{"id":"c1","text":"u"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"","text":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"text":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c1","text":5}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[null],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":["c1"],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":{"id":"c1","text":"t"},"answer":"x"}`,
	`{"id":"a","question":"q","contexts":null,"answer":"x"}`,
	`{"id":"a","question":"q","answer":"x"}`,
	`{"id":"a","contexts":[],"answer":"x"}`,
	`{"id":"a","question":null,"contexts":[],"answer":"x"}`,
	`{"id":"a","question":1,"contexts":[],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[]}`,
	`{"id":"a","question":"q","contexts":[],"answer":["x"]}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","source":"s","metadata":{"m":1.5}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","source":null,"metadata":null}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","source":1}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","metadata":[1]}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"diagnosis":"PASS","retrieval":{"chunkRelevance":{"c1":true,"c\u0032":false},"contextSufficiency":true,"contextConflict":null},"generation":{"answerRelevance":true,"groundedness":false,"contradiction":null,"correctness":true}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":null}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"diagnosis":null,"retrieval":null,"generation":null,"other":[1]}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":{"chunkRelevance":{}}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":{"chunkRelevance":{"c1":null}}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"generation":{"groundedness":"yes"}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"Generation":{"groundedness":true}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"generation":{"groundedness":true,"groundedness":false}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":[]}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"diagnosis":5}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x"`,
	`{"id":"a","question":"q","contexts":[],"answer":"x` + "\x01" + `"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x\q"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x\'"}`,
	`{"id":01,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":1.,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":-,"question":"q","contexts":[],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","t":tru}`,
	`null`,
	`[]`,
	`[`,
	`{`,
	`  "id": "a",`,
	`},`,
	`12`,
	`true`,
	`{"id":"a","question":"q","contexts":[],"answer":"x"},`,
	`[{"id":"a","question":"q","contexts":[],"answer":"x"}]`,
	`{"id":"a","question":"q","contexts":[{"id":1,"text":"t"},{"id":-0.5e-3,"text":"u"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":1,"text":"t"},{"id":"1","text":"u"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":01,"text":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":1.,"text":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":true,"text":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c","content":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[{"doc_id":"c","text":"t"}],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","reference_answer":"r","meta":{"m":1},"label":true,"reference_answer":"s"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","Meta":1,"META":2,"meta":3}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","reference_answer":"r","Question":"q2"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","\u0072ef":"r"}`,
	`{"id":"a","query":"q","context":[],"response":"x"}`,
	`{"id":"a","question":"q","contexts":[{"id":"c","text":"t","Text":"T","title":"x"}],"answer":"x","expected":{"groundedness":true,"Generation":{"x":1},"generation":{"Groundedness":false,"groundedness":true},"retrieval":{"contextSufficiency":true,"groundedness":true}}}`,
	`{"id":"a","question":"q","contexts":[{"id":"c","text":"t","\u0054ext":"T"}],"answer":"x","expected":{"\u0067eneration":{"x":1}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"retrieval":{"x":1,"x":2},"retrieval":{"y":3}}}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"diagnosis":"PASSED"}}`,
	`"row"`,
	``,
	`   `,
	"\xef\xbb\xbf{\"question\":\"q\",\"contexts\":[],\"answer\":\"x\"}",
	`{"question":"caf` + "\xe9" + `","contexts":[],"answer":"x"}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","deep":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}`,
	`{"id":"a","question":"q","contexts":[],"answer":"x","deep":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
}

func TestParseRowOddLines(t *testing.T) {
	for _, line := range oddRows {
		if d := sameParse([]byte(line)); d != "" {
			t.Errorf("%.120q: %s", line, d)
		}
	}
}

// TestParseRowErrors pins the error of every kind of bad line: it names the
// field and says what is wrong.
func TestParseRowErrors(t *testing.T) {
	tests := []struct {
		line, id, err string
	}{
		{`{"id":"a","question":"q","contexts":[],"answer":`, "", "malformed JSON: unexpected end of JSON input"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x"} x`, "", "malformed JSON: invalid character 'x' after top-level value"},
		{`{"id":"a","contexts":[],"answer":"x"}`, "a", "question: missing"},
		{`{"id":"a","question":null,"contexts":[],"answer":"x"}`, "a", "question: missing"},
		{`{"id":"a","question":1,"contexts":[],"answer":"x"}`, "a", "question: want a string"},
		{`{"id":"a","question":"q","contexts":[]}`, "a", "answer: missing"},
		{`{"id":"a","question":"q","contexts":[],"answer":42}`, "a", "answer: want a string"},
		{`{"id":"a","question":"q","answer":"x"}`, "a", "contexts: missing (use [] for none)"},
		{`{"id":"a","question":"q","contexts":{"id":"c1","text":"t"},"answer":"x"}`, "a", "contexts: want a list, got an object"},
		{`{"id":"a","question":"q","contexts":["c1"],"answer":"x"}`, "a", `contexts[0]: want an object {"id":…,"text":…}, got a string`},
		{`{"id":"a","question":"q","contexts":[{"text":"t"}],"answer":"x"}`, "a", "contexts[0].id: want a non-empty string or a number"},
		{`{"id":"a","question":"q","contexts":[{"id":"c1","text":"t"},{"id":"c1","text":"u"}],"answer":"x"}`, "a", `contexts[1].id: duplicate of contexts[0].id "c1"`},
		{`{"id":"a","question":"q","contexts":[{"id":"c1"}],"answer":"x"}`, "a", "contexts[0].text: missing"},
		{`{"id":"a","question":"q","contexts":[{"id":"c1","text":5}],"answer":"x"}`, "a", "contexts[0].text: want a string"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","referenceAnswer":3}`, "a", "referenceAnswer: want a string"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","source":1}`, "a", "source: want a string"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","metadata":[1]}`, "a", "metadata: want an object"},
		{`{"id":true,"question":"q","contexts":[],"answer":"x"}`, "", "id: want a string or a number"},
		{"{\"id\":\"a\",\"question\":\"caf\xe9\",\"contexts\":[],\"answer\":\"x\"}", "", "invalid UTF-8 at byte 25"},
		{`{"id":"a","question":"q","contexts":[],"answer":"x","expected":{"generation":{"groundedness":"yes"}}}`, "a", "expected.generation.groundedness: want true, false or null, got a string"},
		{`[{"id":"a","question":"q","contexts":[],"answer":"x"}]`, "", "expected JSON Lines: one JSON object per line; this line holds a JSON array"},
	}
	for _, tt := range tests {
		_, err := ParseRow([]byte(tt.line))
		var re *RowError
		if !errors.As(err, &re) {
			t.Errorf("ParseRow(%q) error = %v; want a *RowError %q", tt.line, err, tt.err)
			continue
		}
		if re.Reason != tt.err || re.ID != tt.id {
			t.Errorf("ParseRow(%q) = RowError{ID: %q, Reason: %q}; want {%q, %q}", tt.line, re.ID, re.Reason, tt.id, tt.err)
		}
		if !errors.Is(err, ErrBadRow) {
			t.Errorf("ParseRow(%q): error does not wrap ErrBadRow", tt.line)
		}
	}
	long := make([]byte, MaxLineBytes+1)
	if _, err := ParseRow(long); err == nil || err.Error() != "line is 16777217 bytes, over the limit of 16777216" {
		t.Errorf("ParseRow(16 MiB + 1) error = %v", err)
	}
}

func TestParseRowValues(t *testing.T) {
	line := `{"id":7,"question":"Caf\u00e9 \"q\"?","contexts":[{"id":"c1","text":"t1","score":0.5},{"id":"c2","text":"t2"}],` +
		`"answer":"x","referenceAnswer":"r","source":"src","expected":{"diagnosis":"PASS","generation":{"groundedness":true}}}`
	row, err := ParseRow([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	s := row.Sample
	if s.ID != "7" || s.Question != `Café "q"?` || s.Answer != "x" || s.Reference == nil || *s.Reference != "r" || row.Source != "src" {
		t.Errorf("ParseRow = %+v", row)
	}
	if len(s.Contexts) != 2 || s.Contexts[0].ID != "c1" || s.Contexts[1].Text != "t2" || s.Contexts[0].Score == nil || *s.Contexts[0].Score != 0.5 || s.Contexts[1].Score != nil {
		t.Errorf("contexts = %+v", s.Contexts)
	}
	if v, ok := row.Expected.Label(5); !ok || !v { // guard.Groundedness
		t.Errorf("groundedness label = %v, %v; want true, true", v, ok)
	}
	if row.Expected.Diagnosis == nil || *row.Expected.Diagnosis != "PASS" {
		t.Errorf("diagnosis = %v", row.Expected.Diagnosis)
	}
}

// FuzzParseRow checks that the single-pass decoder and encoding/json agree
// on every input: the same row, or the same error.
func FuzzParseRow(f *testing.F) {
	for _, l := range oddRows {
		if len(l) < 4096 {
			f.Add([]byte(l))
		}
	}
	for _, l := range readRowFiles(f)[:20] {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if d := sameParse(line); d != "" {
			t.Errorf("%q: %s", line, d)
		}
	})
}

func BenchmarkParseRow(b *testing.B) {
	lines := readRowFiles(b)[:20] // HaluEval rows
	b.Run("single-pass", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := ParseRow(lines[i%len(lines)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := parseRowJSON(lines[i%len(lines)]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestChunkLabelNull: a null chunk label leaves its context unlabelled, as
// null does for every other label; it is never read as false.
func TestChunkLabelNull(t *testing.T) {
	tests := []struct {
		expected string
		want     map[string]bool
	}{
		{`{"retrieval":{"chunkRelevance":{"a":null}}}`, map[string]bool{}},
		{`{"retrieval":{"chunkRelevance":{"a":null,"b":true}}}`, map[string]bool{"b": true}},
		{`{"retrieval":{"chunkRelevance":{"a":false,"b":null}}}`, map[string]bool{"a": false}},
	}
	for _, tt := range tests {
		line := `{"id":"r","question":"q","contexts":[{"id":"a","text":"t"},{"id":"b","text":"u"}],"answer":"x","expected":` + tt.expected + `}`
		row, err := ParseRow([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", tt.expected, err)
		}
		got := row.Expected.Retrieval.ChunkRelevance
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: chunk labels %v, want %v", tt.expected, got, tt.want)
		}
	}
}
