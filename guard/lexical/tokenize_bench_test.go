package lexical

import (
	"strings"
	"testing"
)

// BenchmarkTokenizeDev tokenizes every text of the development rows of
// the judge's speed check once per op, as the judge reads them.
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
		for _, s := range short {
			toks, sents = tz.tokenize(toks[:0], s, sents[:0])
		}
		for _, s := range contexts {
			toks, sents = tz.tokenize(toks[:0], s, sents[:0])
		}
	}
}

// BenchmarkTokenizeLookupDev gives the tokens of every text of the
// development rows of the judge's speed check their flags, canonical hashes
// and weights once per op (tokenizer.lookup), each text's tokens copied in
// as reading left them. ns/token is the time of a token, the copy's
// included.
func BenchmarkTokenizeLookupDev(b *testing.B) {
	loadLexicon()
	tz := tokenizer{vocab: defaultVocab}
	read, n, work := readDevTokens(b, &tz)
	for b.Loop() {
		for _, toks := range read {
			tz.lookup(work[:copy(work, toks)])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/token")
}

// TestASCIIWordsMatchesStemLetters checks the stem and hash asciiWords
// gives a word, read from its last eight bytes in a register, against the
// hash of stemLetters' stem, on every lower-case word of the development
// texts, on the suffix patterns stemLetters knows, and on every word of up
// to six letters over an alphabet of the letters its suffixes are made
// of: each word lower-case and upper-case, at the start of a text and at
// its end (where the last eight bytes are read from before the word).
func TestASCIIWordsMatchesStemLetters(t *testing.T) {
	words := []string{"a", "is", "gas", "bass", "pass", "passes", "ies", "dies", "allies", "assemblies",
		"running", "stopped", "falling", "hissed", "buzzing", "agreed", "freed", "quickly", "early",
		"based", "bases", "basing", "base", "focus", "crisis", "ring", "sing", "bring", "bed", "need", "ly", "fly",
		"agreeings", "freeings", "runnings", "possesses", "stressed", "dressing", "supplies", "seeing", "belies",
		"abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyzing", "abcdefghijklmnoped", "abcdefghijklmnopies"}
	if !testing.Short() {
		seen := map[string]bool{}
		short, contexts := devTexts(t)
		for _, s := range append(short, contexts...) {
			for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r < 'a' || r > 'z' }) {
				if !seen[w] {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
	}
	dst := make([]token, 0, 2)
	check := func(w string) {
		if w == "" {
			return
		}
		b := []byte(w)
		want := hashStem(b[:stemLetters(b)])
		for _, s := range []string{"........ " + w + " .......", "........ " + strings.ToUpper(w) + " ......."} {
			// The word at the start of a text and at its end.
			for _, text := range []string{s[9:], s[:9+len(w)]} {
				start := 0
				if text[0] == '.' {
					start = 9
				}
				got, _ := asciiWords(dst[:0], text, start, 0)
				if len(got) == 0 {
					if !(len(w) >= 8 && strings.HasSuffix(w, "ies")) {
						t.Fatalf("asciiWords(%q) refused a word that is no plural in -ies of eight letters or more", text)
					}
					continue
				}
				if len(got) != 1 || got[0].hash != want || int(got[0].end-got[0].start) != len(w) {
					t.Fatalf("asciiWords(%q) = %+v; want one token with the hash %#x of stemLetters' stem %q",
						text, got, want, b[:stemLetters(b)])
				}
			}
		}
	}
	for _, w := range words {
		check(w)
	}
	const alpha = "adegilnsuyz"
	var rec func(w []byte)
	rec = func(w []byte) {
		check(string(w))
		if len(w) == 6 || testing.Short() && len(w) == 4 {
			return
		}
		for i := range len(alpha) {
			rec(append(w, alpha[i]))
		}
	}
	rec(nil)
}

// readDevTokens reads every text of the development rows of the judge's
// speed check with tz, as lookup finds them: it returns each text's
// tokens, their number in all, and room for the longest text's.
func readDevTokens(tb testing.TB, tz *tokenizer) (read [][]token, n int, work []token) {
	short, contexts := devTexts(tb)
	most := 0
	for _, s := range append(short, contexts...) {
		toks, _ := tz.read(nil, s, nil)
		read = append(read, toks)
		n, most = n+len(toks), max(most, len(toks))
	}
	return read, n, make([]token, most)
}
