package otlp

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/record"
)

// firstLine returns the fixture's first line: six evaluation spans.
func firstLine(t *testing.T) string {
	t.Helper()
	fixture, err := os.ReadFile("testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(fixture, []byte("\n"))
	return string(first)
}

// A span whose values no evaluation can produce is a bad span, reported
// with its line, its span ID and the reason (issue 18, item 3).
func TestReadOTLPRefusesNonsense(t *testing.T) {
	first := firstLine(t)
	const score = `"gen_ai.evaluation.score.value","value":{"doubleValue":`
	for _, tc := range []struct{ name, old, new, want string }{
		{"p above 1", score, score + `1.5,"x":`, "is not a probability"},
		{"p NaN", score, score + `"NaN","x":`, "NaN is not a probability"},
		{"p below 0", score, score + `-0.25,"x":`, "-0.25 is not a probability"},
		{"negative latency", `"ragtriage.latency_ms","value":{"doubleValue":`, `"ragtriage.latency_ms","value":{"doubleValue":-1,"x":`, "result.latencyMs: -1 is not a latency"},
		{"infinite latency", `"ragtriage.latency_ms","value":{"doubleValue":`, `"ragtriage.latency_ms","value":{"doubleValue":"Infinity","x":`, "+Inf is not a latency"},
		{"malformed diagnosis", `"ragtriage.diagnosis","value":{"stringValue":"PASS"}`, `"ragtriage.diagnosis","value":{"stringValue":"PASSED?"}`, `"PASSED?" is not a diagnosis`},
		{"confidence", `"ragtriage.confidence","value":{"doubleValue":`, `"ragtriage.confidence","value":{"doubleValue":3,"x":`, "result.confidence: 3 is not a probability"},
	} {
		line := strings.Replace(first, tc.old, tc.new, 1)
		if line == first {
			t.Fatalf("%s: %s not in the fixture", tc.name, tc.old)
		}
		var n int
		st, err := Read(strings.NewReader(line), func(int, record.Record) error { n++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if st.BadSpans != 1 || n != 5 || st.EvaluationSpans != st.Records+st.NoResult+st.BadSpans+st.Repeated || len(st.Problems) != 1 {
			t.Errorf("%s: %d records, stats %+v; want 5 records and 1 bad span", tc.name, n, st)
			continue
		}
		if p := st.Problems[0]; p.Line != 1 || p.SpanID == "" || p.Repeat || !strings.Contains(p.Reason, tc.want) {
			t.Errorf("%s: problem %+v; want line 1, the span ID and %q", tc.name, p, tc.want)
		}
	}
	// A negative token count.
	line := strings.Replace(first, `"ragtriage.sample.id"`, `"ragtriage.usage.input_tokens","value":{"intValue":"-7"}},{"key":"ragtriage.sample.id"`, 1)
	st, _ := Read(strings.NewReader(line), func(int, record.Record) error { return nil })
	if st.BadSpans != 1 || len(st.Problems) != 1 || !strings.Contains(st.Problems[0].Reason, "inputTokens: -7 is negative") {
		t.Errorf("negative tokens: stats %+v; want a bad span saying so", st)
	}
}

// The same batch exported twice counts once; each repeat is listed (as a
// repeat, not a bad span), in one file or across the files of a Reader.
func TestReadOTLPRepeatedBatch(t *testing.T) {
	first := firstLine(t)
	twice := first + "\n" + first + "\n"
	var n int
	st, err := Read(strings.NewReader(twice), func(int, record.Record) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 || st.Records != 6 || st.Repeated != 6 || st.BadSpans != 0 || st.EvaluationSpans != 12 {
		t.Errorf("%d records, stats %+v; want 6 records and 6 repeats of 12 evaluation spans", n, st)
	}
	for _, p := range st.Problems {
		if !p.Repeat || p.Line != 2 || !strings.Contains(p.Reason, "was read at line 1; counted once") {
			t.Errorf("problem %+v; want a repeat on line 2 naming line 1", p)
		}
	}
	rd := NewReader()
	st1, _ := rd.Read(strings.NewReader(first), func(int, record.Record) error { return nil })
	st2, _ := rd.Read(strings.NewReader(first), func(int, record.Record) error { return nil })
	if st1.Records != 6 || st2.Records != 0 || st2.Repeated != 6 || !strings.Contains(st2.Problems[0].Reason, "line 1 of an earlier file") {
		t.Errorf("across files: %+v then %+v; want 6 records, then 6 repeats", st1, st2)
	}
}
