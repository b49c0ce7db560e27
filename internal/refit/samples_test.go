package main

import (
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// Chunk relevance's sample-level checks come from the rows whose answer is
// good and grounded, in any source and without chunk labels, one per row,
// with every chunk's features; rows the judge would not estimate chunks
// for (no content word in the question) are left out.
func TestGoodSamplesAreSelectOnlyChecks(t *testing.T) {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		t.Fatal(err)
	}
	lines := []struct {
		json string
		want bool
	}{
		{`{"id":"good","question":"Tell me about jazz.","contexts":[{"id":"a","text":"Miles Davis played the trumpet."},{"id":"b","text":"Rain fell."}],"answer":"He played trumpet.","expected":{"generation":{"groundedness":true}}}`, true},
		{`{"id":"ungrounded","question":"Tell me about jazz.","contexts":[{"id":"a","text":"Miles Davis played the trumpet."}],"answer":"He sang.","expected":{"generation":{"groundedness":false}}}`, false},
		{`{"id":"irrelevant","question":"Tell me about jazz.","contexts":[{"id":"a","text":"Miles Davis played the trumpet."}],"answer":"He played trumpet.","expected":{"generation":{"groundedness":true,"answerRelevance":false}}}`, false},
		{`{"id":"no-question","question":"","contexts":[{"id":"a","text":"Miles Davis played the trumpet."}],"answer":"He played trumpet.","expected":{"generation":{"groundedness":true}}}`, false},
		{`{"id":"unlabelled","question":"Tell me about jazz.","contexts":[{"id":"a","text":"Miles Davis played the trumpet."}],"answer":"He played trumpet."}`, false},
	}
	var rows []dataset.Row
	for _, l := range lines {
		r, err := dataset.ParseRow([]byte(l.json))
		if err != nil {
			t.Fatalf("%s: %v", l.json, err)
		}
		rows = append(rows, r)
	}
	c := &corpus{ex: map[guard.Decision][]example{}}
	c.addRows(j, labelled{name: "begin", rows: rows})
	c.addGoodSamples(j)
	if len(c.ex[guard.ChunkRelevance]) != 0 {
		t.Fatalf("%d chunk examples from rows without chunk labels; want 0 (the checks are not examples)", len(c.ex[guard.ChunkRelevance]))
	}
	got := map[string]bool{}
	for _, e := range c.samples {
		got[c.rows[e.row].sample.ID] = true
		if !e.y || e.src != c.rows[e.row].src || e.group != c.rows[e.row].group || len(e.chunks) != len(c.rows[e.row].sample.Contexts) {
			t.Errorf("%s: check %+v; want label true, the row's source and group, one vector per chunk", c.rows[e.row].sample.ID, e)
		}
	}
	for i, l := range lines {
		if id := rows[i].Sample.ID; got[id] != l.want {
			t.Errorf("%s: a sample check %v; want %v", id, got[id], l.want)
		}
	}
	if len(c.samples) != 1 {
		t.Errorf("%d sample checks; want 1", len(c.samples))
	}
}
