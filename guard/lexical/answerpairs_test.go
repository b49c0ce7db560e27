package lexical

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// answerPairMarks returns which of the answer's words and pairs
// buildAnswerPairs marks as held by a context, and which reading every
// context (scanAnswerPairs alone) marks: the two must agree.
func answerPairMarks(a *analysis) (built, scanned []bool) {
	a.buildAnswerPairs(&a.a)
	built = slices.Clone(a.ansFound)
	clear(a.ansFound)
	a.scanAnswerPairs()
	return built, slices.Clone(a.ansFound)
}

// TestAnswerPairsIndexMatchesScan checks that the answer pairs the term
// index shows (proveAnswerPairs) are those reading the contexts finds, on
// every development row and on answers made to test the search's edges.
func TestAnswerPairsIndexMatchesScan(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "data", "dev", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Skip("no development data")
	}
	var rows []guard.Sample
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			rows = append(rows, DevRows(t, filepath.Base(f))...)
		}
	}
	ctx := []guard.Context{
		{ID: "c1", Text: "The Beatles were an English rock band. They formed in Liverpool in 1960."},
		{ID: "c2", Text: "Chief of Protocol of the United States is a title. Of the band, John was the leader."},
	}
	for _, ans := range []string{
		"The Beatles", "the Beatles formed in Liverpool", "Chief of Protocol", "of the", "Of the band.",
		"Liverpool. The band", "in 1960", "in 1961", "rock rock band band", "The", "English", "Beatles English",
		"They formed. In Liverpool.", "an English rock band formed in Liverpool", "",
	} {
		rows = append(rows, guard.Sample{Question: "Who formed in Liverpool?", Answer: ans, Contexts: ctx})
	}
	v := defaultVocab
	proved := 0
	for i := range rows {
		a := new(analysis)
		a.m.unlimited()
		loadSample(a, &rows[i], v)
		var f featureSet
		prepare(a, &f)
		if len(a.ctxs) == 0 {
			continue
		}
		built, scanned := answerPairMarks(a)
		if !slices.Equal(built, scanned) {
			t.Fatalf("row %d (answer %q): index marks %v, reading marks %v", i, strings.TrimSpace(rows[i].Answer), built, scanned)
		}
		if a.proveAnswerPairs(&a.a) {
			proved++
		}
	}
	t.Logf("%d rows, %d shown whole by the index", len(rows), proved)
}
