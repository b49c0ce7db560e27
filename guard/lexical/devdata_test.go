package lexical

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// DevRows reads the rows of a development data file (data/dev/name) as
// samples; the test skips when the data is not there. It is exported for
// the benchmarks of package lexical_test.
func DevRows(tb testing.TB, name string) []guard.Sample {
	tb.Helper()
	f, err := os.Open("../../data/dev/" + name)
	if err != nil {
		tb.Skip("no development data:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	var rows []guard.Sample
	for sc.Scan() {
		s, err := ParseSampleLine(sc.Bytes())
		if err != nil {
			tb.Fatal(err)
		}
		rows = append(rows, s)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(rows) == 0 {
		tb.Fatal("empty " + name)
	}
	return rows
}

// ParseSampleLine reads one dataset row (id, question, contexts, answer,
// referenceAnswer; other keys are ignored) as a sample. It is exported for
// the tests of package lexical_test.
func ParseSampleLine(line []byte) (guard.Sample, error) {
	var row struct {
		ID       string `json:"id"`
		Question string `json:"question"`
		Contexts []struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		} `json:"contexts"`
		Answer    string  `json:"answer"`
		Reference *string `json:"referenceAnswer"`
	}
	if err := json.Unmarshal(line, &row); err != nil {
		return guard.Sample{}, err
	}
	s := guard.Sample{ID: row.ID, Question: row.Question, Answer: row.Answer, Reference: row.Reference}
	for _, c := range row.Contexts {
		s.Contexts = append(s.Contexts, guard.Context{ID: c.ID, Text: c.Text})
	}
	return s, nil
}

// devSamples reads the development rows of the judge's speed check as
// samples (HaluEval, SQuAD 2.0, HotpotQA): SQuAD's 706 questions share 83
// paragraphs, HaluEval's pairs share theirs.
func devSamples(tb testing.TB) []guard.Sample {
	var rows []guard.Sample
	for _, name := range []string{"halueval", "squad_v2", "hotpotqa"} {
		rows = append(rows, DevRows(tb, name+".jsonl")...)
	}
	return rows
}

// devTexts returns the questions and answers, and the contexts, of
// devSamples.
func devTexts(tb testing.TB) (short, contexts []string) {
	for _, s := range devSamples(tb) {
		short = append(short, s.Question, s.Answer)
		for _, c := range s.Contexts {
			contexts = append(contexts, c.Text)
		}
	}
	return short, contexts
}
