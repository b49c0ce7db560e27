package lexical

import "testing"

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
