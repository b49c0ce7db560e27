package otlp

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// testdata/otlp-roundtrip.jsonl was written by the OpenTelemetry Collector's
// file exporter in examples/collector's round-trip test (regenerate it with
// RAGTRIAGE_OTLP_FIXTURE=$PWD/evalkit/otlp/testdata/otlp-roundtrip.jsonl there):
// six evaluated calls (pass, fail, escalate; each with and without content
// capture), four spans each.
func TestReadOTLPFixture(t *testing.T) {
	f, err := os.Open("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := map[string]record.Record{}
	lines := map[string]int{}
	st, err := Read(f, func(line int, r record.Record) error {
		recs[r.ID], lines[r.ID] = r, line
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 6 || st.WithSample != 3 || st.Spans != 24 || st.EvaluationSpans != 6 || st.BadLines != 0 || st.BadSpans != 0 || len(st.Problems) != 0 {
		t.Fatalf("stats = %+v", st)
	}
	for id, want := range map[string]guard.Diagnosis{
		"pass-content": guard.PassDiagnosis, "pass-bare": guard.PassDiagnosis,
		"fail-content": guard.GeneratorUngrounded, "fail-bare": guard.GeneratorUngrounded,
		"escalate-content": guard.JudgeUncertain, "escalate-bare": guard.JudgeUncertain,
	} {
		r, ok := recs[id]
		if !ok {
			t.Errorf("no record %s", id)
			continue
		}
		if r.Result.Diagnosis != want || lines[id] < 1 {
			t.Errorf("%s: diagnosis %s at line %d; want %s", id, r.Result.Diagnosis, lines[id], want)
		}
		if (r.Sample != nil) != strings.HasSuffix(id, "-content") {
			t.Errorf("%s: sample %+v", id, r.Sample)
		}
		if len(r.Result.Retrieval.ChunkRelevance) != len(r.Result.Verdicts.Retrieval.ChunkRelevance) || r.Result.DecisionID == "" {
			t.Errorf("%s: incomplete result %+v", id, r.Result)
		}
		hasRef := strings.HasPrefix(id, "fail-")
		if r.Result.Generation.Correctness.Asked != hasRef || (r.Result.Verdicts.Generation.Correctness != nil) != hasRef {
			t.Errorf("%s: correctness asked=%v; want %v", id, r.Result.Generation.Correctness.Asked, hasRef)
		}
		if r.Sample != nil && hasRef && (r.Sample.Reference == nil || *r.Sample.Reference == "") {
			t.Errorf("%s: reference missing from the sample", id)
		}
	}
	if r := recs["pass-content"]; r.Sample.Question != "What is the capital of France?" || len(r.Sample.Contexts) != 1 || r.Sample.Contexts[0].ID != "geo/france" {
		t.Errorf("pass-content sample = %+v", r.Sample)
	}
}

func TestReadOTLPBadLines(t *testing.T) {
	fixture, err := os.ReadFile("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(fixture, []byte("\n"))
	// Other trace IDs: the same IDs would make them repeats of line 1.
	noID := retrace(strings.Replace(string(first), `"ragtriage.sample.id"`, `"ragtriage.sample.idx"`, 1), 7)
	badLabel := retrace(strings.Replace(string(first), `{"stringValue":"pass"}`, `{"stringValue":"maybe"}`, 1), 8)
	in := strings.Join([]string{
		string(first),
		"{not json",
		"\xff\xfe",
		`{"resourceMetrics":[]}`,
		`{"something":"else"}`,
		"",
		noID,
		badLabel,
	}, "\n")
	var n int
	st, err := Read(strings.NewReader(in), func(int, record.Record) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 7 || st.BadLines != 3 {
		t.Errorf("lines %d, bad %d; want 7, 3 (stats %+v)", st.Lines, st.BadLines, st)
	}
	if st.EvaluationSpans != st.Records+st.NoResult+st.BadSpans+st.Repeated || st.Records != n {
		t.Errorf("counts do not add up: %+v (fn called %d times)", st, n)
	}
	wantLines := map[int]bool{2: false, 3: false, 5: false}
	for _, p := range st.Problems {
		if _, ok := wantLines[p.Line]; ok {
			wantLines[p.Line] = true
		}
	}
	for line, seen := range wantLines {
		if !seen {
			t.Errorf("no problem reported for line %d: %v", line, st.Problems)
		}
	}
	var spanProblems int
	for _, p := range st.Problems {
		if p.Line == 7 || p.Line == 8 {
			spanProblems++
			if p.SpanID == "" {
				t.Errorf("span problem without a span ID: %v", p)
			}
		}
	}
	if spanProblems < 2 || st.BadSpans < 2 {
		t.Errorf("span problems %d, bad spans %d; want at least 2 (%v)", spanProblems, st.BadSpans, st.Problems)
	}

	stop := errors.New("stop")
	if _, err := Read(bytes.NewReader(fixture), func(int, record.Record) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("fn error = %v; want it returned", err)
	}
}

// retrace gives every span of an OTLP line the trace ID n.
func retrace(line string, n int) string {
	return traceIDs.ReplaceAllString(line, fmt.Sprintf(`"traceId":"%032x"`, n))
}

var traceIDs = regexp.MustCompile(`"traceId":"[0-9a-fA-F]{32}"`)

func FuzzReadOTLP(f *testing.F) {
	fixture, err := os.ReadFile("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	first, _, _ := bytes.Cut(fixture, []byte("\n"))
	f.Add(first)
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"ragtriage.evaluate","traceId":"00","attributes":[{"key":"ragtriage.sample.id","value":{"intValue":"x"}}]}]}]}]}`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := Read(bytes.NewReader(b), func(int, record.Record) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if st.EvaluationSpans != st.Records+st.NoResult+st.BadSpans+st.Repeated || st.BadLines > st.Lines {
			t.Fatalf("counts do not add up: %+v", st)
		}
	})
}

// The fixture's spans carry ragtriage.verdicts=answer: conflict P=0 and
// contradiction P≈0.2 read as pass. A span in the old format (no such
// attribute, testdata/otlp-old-verdicts.jsonl: the pass-content span as an
// older middleware wrote it, labels on the proposition) is refused by name
// and counted, never converted; an unknown value is refused too.
func TestReadOTLPVerdictSemantics(t *testing.T) {
	fixture, err := os.ReadFile("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]record.Record{}
	if _, err := Read(bytes.NewReader(fixture), func(_ int, r record.Record) error { recs[r.ID] = r; return nil }); err != nil {
		t.Fatal(err)
	}
	cur := recs["pass-content"].Result
	if cur.Retrieval.ContextConflict.Value != 0 || cur.Verdicts.Retrieval.ContextConflict != guard.Pass || cur.Verdicts.Generation.Contradiction != guard.Pass {
		t.Errorf("conflict %v (%v), contradiction %v (%v); want both pass", cur.Retrieval.ContextConflict, cur.Verdicts.Retrieval.ContextConflict,
			cur.Generation.Contradiction, cur.Verdicts.Generation.Contradiction)
	}

	old, err := os.ReadFile("testdata/otlp-old-verdicts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const tag = `{"key":"ragtriage.verdicts","value":{"stringValue":"answer"}},`
	bad := strings.ReplaceAll(string(fixture), tag, `{"key":"ragtriage.verdicts","value":{"stringValue":"proposition"}},`)
	for _, tc := range []struct {
		name, in       string
		bad, oldFormat int
		reason         string
	}{
		{"old format", string(old), 1, 1, "no ragtriage.verdicts attribute: the span is in the old format"},
		{"unknown value", bad, 6, 0, `ragtriage.verdicts "proposition": want "answer"`},
	} {
		var n int
		st, err := Read(strings.NewReader(tc.in), func(int, record.Record) error { n++; return nil })
		if err != nil || n != 0 || st.Records != 0 || st.BadSpans != tc.bad || st.OldFormat != tc.oldFormat || len(st.Problems) != tc.bad {
			t.Errorf("%s: %v, %d records, stats %+v; want %d bad spans, %d in the old format", tc.name, err, n, st, tc.bad, tc.oldFormat)
			continue
		}
		if p := st.Problems[0]; p.Line != 1 || p.SpanID == "" || !strings.Contains(p.Reason, tc.reason) {
			t.Errorf("%s: problem %v; want line 1, the span ID and %q", tc.name, p, tc.reason)
		}
	}
}

// A span of a guard without a fallback says route "review" (issue 19 item
// 5): it reads back as guard.RouteReview, not as a bad span.
func TestReadOTLPRouteReview(t *testing.T) {
	fixture, err := os.ReadFile("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(fixture, []byte("\n"))
	for _, route := range []string{"auto", "fallback"} {
		first = bytes.ReplaceAll(first, []byte(`"ragtriage.route","value":{"stringValue":"`+route+`"}`), []byte(`"ragtriage.route","value":{"stringValue":"review"}`))
	}
	var routes []guard.Route
	st, err := Read(bytes.NewReader(first), func(_ int, r record.Record) error { routes = append(routes, r.Result.Route); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.BadSpans != 0 || len(routes) == 0 {
		t.Fatalf("stats %+v, %d records; want every span read", st, len(routes))
	}
	for _, r := range routes {
		if r != guard.RouteReview {
			t.Errorf("route %v; want review", r)
		}
	}
}

// TestReadOTLPEvidenceKinds: the ragtriage.evidence.kinds attribute reaches
// Record.EvidenceKinds, sorted and unique; an entry outside the guard's
// decisions and kinds (or "other") makes the span bad.
func TestReadOTLPEvidenceKinds(t *testing.T) {
	fixture, err := os.ReadFile("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(fixture, []byte("\n"))
	for _, tc := range []struct {
		kinds []string
		want  []string // nil: every span is bad
	}{
		{[]string{"groundedness:number_mismatch", "answer_relevance:refusal", "groundedness:number_mismatch"},
			[]string{"answer_relevance:refusal", "groundedness:number_mismatch"}},
		{[]string{"other:other", "correctness:other"}, []string{"correctness:other", "other:other"}},
		{[]string{"groundedness:90 days"}, nil},
		{[]string{"made_up:number_mismatch"}, nil},
		{[]string{"groundedness"}, nil},
	} {
		var vals []string
		for _, k := range tc.kinds {
			vals = append(vals, `{"stringValue":"`+k+`"}`)
		}
		attr := `{"key":"ragtriage.evidence.kinds","value":{"arrayValue":{"values":[` + strings.Join(vals, ",") + `]}}},{"key":"ragtriage.route"`
		line := bytes.ReplaceAll(first, []byte(`{"key":"ragtriage.route"`), []byte(attr))
		var got [][]string
		st, err := Read(bytes.NewReader(line), func(_ int, r record.Record) error { got = append(got, r.EvidenceKinds); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == nil {
			if st.BadSpans == 0 || len(got) != 0 || !strings.Contains(fmt.Sprint(st.Problems), "ragtriage.evidence.kinds entry") {
				t.Errorf("%q: stats %+v, %d records; want every span bad, naming the entry", tc.kinds, st, len(got))
			}
			continue
		}
		if st.BadSpans != 0 || len(got) == 0 {
			t.Fatalf("%q: stats %+v, %d records; want every span read", tc.kinds, st, len(got))
		}
		for _, g := range got {
			if !slices.Equal(g, tc.want) {
				t.Errorf("%q: EvidenceKinds %q; want %q", tc.kinds, g, tc.want)
			}
		}
	}
}
