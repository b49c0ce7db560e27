package lexical

import (
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// TestRelevantByScanMatchesTokens holds markRelevantByScan, which reads the
// term index first, to its definition: a context sentence is relevant when
// one of its tokens has the hash of a content word of the question or the
// answer. Every golden sample with several contexts is checked.
func TestRelevantByScanMatchesTokens(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	sents := 0
	for _, s := range readGoldenSamplesInternal(t) {
		if len(s.Contexts) < 2 {
			continue
		}
		a := new(analysis)
		loadSample(a, &s, j.vocab)
		a.buildSentSets()
		a.markRelevantByScan()
		words := map[uint64]bool{}
		for _, d := range [2]*doc{&a.q, &a.a} {
			for i := range d.toks {
				if tk := &d.toks[i]; tk.content() {
					words[tk.hash] = true
				}
			}
		}
		for ci := range a.ctxs {
			for k := range a.ctxs[ci].sents {
				want := false
				for _, tk := range a.ctxs[ci].sentToks(k) {
					want = want || words[tk.hash]
				}
				if g := a.global(ci, k); a.sentRel[g] != want {
					t.Fatalf("%s: sentRel[%d] = %v; its tokens say %v", s.ID, g, a.sentRel[g], want)
				}
				sents++
			}
		}
	}
	if sents < 1000 {
		t.Fatalf("only %d sentences checked", sents)
	}
}

// TestRelevantByFunctionWord: a content word of the question that a
// context sentence holds only as a function word, so that the term index
// does not list it there, still makes the sentence relevant.
func TestRelevantByFunctionWord(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := guard.Sample{
		Question: "When did the ferry leave?",
		Contexts: []guard.Context{
			{ID: "c1", Text: "Boats sail daily. The ferry left at noon."},
			{ID: "c2", Text: "Buses run hourly. A train left at dawn."},
		},
		Answer: "At noon.",
	}
	a := new(analysis)
	loadSample(a, &s, j.vocab)
	// Give the question's "ferry" the hash of the function word "at",
	// which every second sentence holds and the term index does not list.
	var at uint64
	for _, tk := range a.ctxs[1].toks {
		if a.ctxs[1].s[tk.start:tk.end] == "at" {
			at = tk.hash
		}
	}
	changed := false
	for i := range a.q.toks {
		if tk := &a.q.toks[i]; a.q.s[tk.start:tk.end] == "ferry" && tk.content() {
			tk.hash, changed = at, true
		}
	}
	if at == 0 || !changed || a.head(at) != 0 {
		t.Fatal("test sentences lack the words it needs")
	}
	a.markRelevantByScan()
	want := []bool{false, true, false, true}
	for g, rel := range a.sentRel {
		if rel != want[g] {
			t.Fatalf("sentRel = %v; want %v", a.sentRel, want)
		}
	}
}
