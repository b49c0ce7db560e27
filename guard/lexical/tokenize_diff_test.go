package lexical

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tokenizerModes are the ways the package runs the tokenizer: questions
// and answers with weights, contexts with flags only, the offline tools
// without a vocabulary, and Stems.
var tokenizerModes = []struct {
	name string
	tz   func() tokenizer
}{
	{"weights", func() tokenizer { return tokenizer{vocab: defaultVocab, weights: true} }},
	{"flags", func() tokenizer { return tokenizer{vocab: defaultVocab} }},
	{"novocab", func() tokenizer { return tokenizer{} }},
	{"keep", func() tokenizer { return tokenizer{keep: true} }},
}

// sameAsOld reports how tokenize and the frozen oldTokenize differ on
// text, in every mode: tokens bit for bit (weights included), sentences
// and stems. Both append to a slice that already holds a token: full, or
// with room filled with garbage, as the judges' reused buffers are.
func sameAsOld(text string) string { return sameAsOldIn(text, 3) }

// sameAsOldIn is sameAsOld with dst full (buffers&1), with room (&2), or
// both.
func sameAsOldIn(text string, buffers int) string {
	loadLexicon()
	loadLexiconMaps()
	garbage := token{start: -7, end: -9, hash: 0xdeadbeef, w: math.Pi, sent: 77, flags: 0xffff}
	for k := range 2 * len(tokenizerModes) {
		if buffers>>(k/len(tokenizerModes))&1 == 0 {
			continue
		}
		m := tokenizerModes[k%len(tokenizerModes)]
		tz, old := m.tz(), m.tz()
		dst := []token{garbage} // full: the tokenizer grows it
		if k >= len(tokenizerModes) {
			dst = make([]token, 1, 4+len(text))
			for i := range dst[:cap(dst)] {
				dst[:cap(dst)][i] = garbage
			}
		}
		sents := []span{{-1, -1}}
		got, gotSents := tz.tokenize(dst, text, sents)
		want, wantSents := old.oldTokenize([]token{garbage}, text, []span{{-1, -1}})
		if len(got) != len(want) {
			return fmt.Sprintf("%s: %d tokens; old %d", m.name, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.start != w.start || g.end != w.end || g.hash != w.hash || g.sent != w.sent || g.flags != w.flags ||
				math.Float64bits(g.w) != math.Float64bits(w.w) {
				return fmt.Sprintf("%s: token %d (%q) = %+v; old %+v", m.name, i, text[max(w.start, 0):max(w.end, 0)], g, w)
			}
		}
		if !slices.Equal(gotSents, wantSents) {
			return fmt.Sprintf("%s: sentences %v; old %v", m.name, gotSents, wantSents)
		}
		if !slices.Equal(tz.stems, old.stems) {
			return fmt.Sprintf("%s: stems %q; old %q", m.name, tz.stems, old.stems)
		}
	}
	return ""
}

// tokenizerEdges are texts at the edges of the word-at-a-time reading:
// words of every length around 8 and 16 bytes, at the start and the end of
// the text, suffixes the stemmer strips, and the marks that send a word to
// the general path.
func tokenizerEdges() []string {
	var out []string
	words := []string{"a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi",
		"abcdefghijklmno", "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz0123456789",
		"running", "runnings", "agreeings", "freeings", "cities", "ties", "passes", "gases", "buses", "crisis",
		"stopped", "hissed", "buzzing", "falling", "quickly", "fly", "base", "bases", "based", "basing",
		"RUNNING", "Running", "RuNnInG", "CITIES", "Cities", "ABC123", "abc123def", "1990s", "1990", "3.14",
		"1,234,567", "don't", "DON'T", "isn't", "O'Brien's", "o'clock", "dogs'", "café", "naïve", "Zürich",
		"x\u0301y", "ǅ", "٣٤", "1٣", "St.", "Dr", "U.S.", "e.g.", "etc."}
	seps := []string{" ", "  ", ", ", ". ", ".", "!", "? ", "\n", "-", "'", "’", "\u00a0", "\t", "(", ")", "\"", ".\"", ". A"}
	for _, w := range words {
		for _, s := range seps {
			out = append(out, w, w+s, s+w, w+s+w, strings.Repeat(w+s, 3), "The "+w+s+"And "+w,
				"x"+s+w+s+"y z", "12345678"+s+w)
		}
	}
	// Every short text over a small alphabet of letters the stemmer reads.
	const alpha = "aeisngdlyuzA .'1,"
	var rec func(string, int)
	rec = func(p string, n int) {
		out = append(out, p)
		if n == 0 {
			return
		}
		for i := 0; i < len(alpha); i++ {
			rec(p+alpha[i:i+1], n-1)
		}
	}
	rec("", 4)
	return out
}

func TestTokenizerMatchesOld(t *testing.T) {
	texts := append([]string(nil), tokenizerSeeds...)
	texts = append(texts, tokenizerEdges()...)
	for _, text := range texts {
		if d := sameAsOld(text); d != "" {
			t.Fatalf("tokenize(%.80q): %s", text, d)
		}
	}
}

// TestTokenizerMatchesOldDev compares the tokenizer with the frozen one on
// every text of every development file (data/dev/*.jsonl).
func TestTokenizerMatchesOldDev(t *testing.T) {
	files, _ := filepath.Glob("../../data/dev/*.jsonl")
	if len(files) == 0 {
		t.Skip("no development data")
	}
	if testing.Short() {
		files = files[:1]
	}
	n := 0
	for _, f := range files {
		for _, s := range DevRows(t, filepath.Base(f)) {
			texts := []string{s.Question, s.Answer}
			if s.Reference != nil {
				texts = append(texts, *s.Reference)
			}
			for _, c := range s.Contexts {
				texts = append(texts, c.Text)
			}
			for _, text := range texts {
				// Full and roomy buffers in turn.
				if d := sameAsOldIn(text, 1+n&1); d != "" {
					t.Fatalf("%s %s: tokenize(%.80q): %s", filepath.Base(f), s.ID, text, d)
				}
				n++
			}
		}
	}
	t.Logf("%d texts of %d files", n, len(files))
}

func FuzzTokenizerMatchesOld(f *testing.F) {
	for _, s := range tokenizerSeeds {
		f.Add(s)
	}
	f.Add("abcdefgh abcdefghijklmnop RUNNINGS cities 1,234 don't")
	f.Fuzz(func(t *testing.T, text string) {
		if d := sameAsOld(text); d != "" {
			t.Errorf("tokenize(%q): %s", text, d)
		}
	})
}
