package lexical

import (
	"strings"
	"testing"
)

// BenchmarkTokenizeDev tokenizes every text of the development rows of
// the judge's speed check once per op: questions and answers with their
// weights, contexts with flags only, as the judge reads them.
func BenchmarkTokenizeDev(b *testing.B) {
	short, contexts := devTexts(b)
	n := 0
	for _, s := range short {
		n += len(s)
	}
	for _, s := range contexts {
		n += len(s)
	}
	loadLexicon()
	tz := tokenizer{vocab: defaultVocab}
	var toks []token
	var sents []span
	b.SetBytes(int64(n))
	for b.Loop() {
		tz.weights = true
		for _, s := range short {
			toks, sents = tz.tokenize(toks[:0], s, sents[:0])
		}
		tz.weights = false
		for _, s := range contexts {
			toks, sents = tz.tokenize(toks[:0], s, sents[:0])
		}
	}
}

// TestStemStringMatchesStemLetters checks the in-place stemmer of the
// tokenizer's fast path against stemLetters on every lower-case word of the
// development texts and on the suffix patterns stemLetters knows.
func TestStemStringMatchesStemLetters(t *testing.T) {
	words := []string{"a", "is", "gas", "bass", "pass", "passes", "ies", "dies", "allies", "assemblies",
		"running", "stopped", "falling", "hissed", "buzzing", "agreed", "freed", "quickly", "early",
		"based", "bases", "basing", "base", "focus", "crisis", "ring", "sing", "bring", "bed", "need", "ly", "fly"}
	short, contexts := devTexts(t)
	for _, s := range append(short, contexts...) {
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' }) {
			words = append(words, w)
		}
	}
	for _, w := range words {
		b := []byte(w)
		want := string(b[:stemLetters(b)])
		n, ok := stemString(w)
		if !ok {
			if !(len(w) > 4 && strings.HasSuffix(w, "ies")) {
				t.Fatalf("stemString(%q) refused a word that is no plural in -ies", w)
			}
			continue
		}
		if got := w[:n]; got != want {
			t.Fatalf("stemString(%q) = %q, stemLetters gives %q", w, got, want)
		}
	}
}
