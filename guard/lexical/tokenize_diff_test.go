package lexical

import (
	"fmt"
	"math"
	"math/bits"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tokenizerModes are the ways the package runs the tokenizer: the judges
// with their vocabulary, the offline tools without one, and Stems. sameTokens (reference_test.go) reads
// the stems only, on the general path; these read every word as the
// judges do.
var tokenizerModes = []struct {
	name string
	tz   func() tokenizer
}{
	{"weights", func() tokenizer { return tokenizer{vocab: defaultVocab} }},
	{"novocab", func() tokenizer { return tokenizer{} }},
	{"keep", func() tokenizer { return tokenizer{keep: true} }},
}

// sameAsReference reports how tokenize differs from refTokenizer on text,
// in every mode: spans, hashes, sentences and stems; flags as the mode
// reads them (fWeighed with weights); the weight, bit for bit (0 without
// weights). tokenize appends to a slice
// that already holds a token: full (buffers&1), so that it grows it, or
// with room filled with garbage (buffers&2), as the judges' reused
// buffers are.
func sameAsReference(text string, buffers int) string {
	loadLexicon()
	loadLexiconMaps()
	ref := refTokenizer{keep: true}
	want, wantSents := ref.tokenize(nil, text, nil)
	garbage := token{start: -7, end: -9, hash: 0xdeadbeef, w: math.Pi, sent: 77, flags: 0xffff}
	for k := range 2 * len(tokenizerModes) {
		if buffers>>(k/len(tokenizerModes))&1 == 0 {
			continue
		}
		m := tokenizerModes[k%len(tokenizerModes)]
		tz := m.tz()
		dst := []token{garbage}
		if k >= len(tokenizerModes) {
			dst = make([]token, 1, 4+len(text))
			for i := range dst[:cap(dst)] {
				dst[:cap(dst)][i] = garbage
			}
		}
		got, gotSents := tz.tokenize(dst, text, []span{{-1, -1}})
		if len(got) != 1+len(want) || got[0] != garbage {
			return fmt.Sprintf("%s: %d tokens; reference %d", m.name, len(got)-1, len(want))
		}
		for i, w := range want {
			g := got[1+i]
			wantFlags, wantW := w.flags, 0.0
			switch m.name {
			case "weights":
				wantFlags, wantW = w.flags|fWeighed, refWeight(&w)
			}
			if g.start != w.start || g.end != w.end || g.hash != w.hash || g.sent != w.sent || g.flags != wantFlags ||
				math.Float64bits(g.w) != math.Float64bits(wantW) {
				return fmt.Sprintf("%s: token %d (%q) = %+v; reference %+v, weight %v", m.name, i,
					text[max(w.start, 0):max(w.end, 0)], g, w, wantW)
			}
		}
		if !slices.Equal(gotSents[1:], wantSents) {
			return fmt.Sprintf("%s: sentences %v; reference %v", m.name, gotSents[1:], wantSents)
		}
		if m.name == "keep" && !slices.Equal(tz.stems, ref.stems) {
			return fmt.Sprintf("%s: stems %q; reference %q", m.name, tz.stems, ref.stems)
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
		"x\u0301y", "ǅ", "٣٤", "1٣", "St.", "Dr", "U.S.", "e.g.", "etc.", "activities", "Communities",
		"abcdefg1", "Abcdef9", "a1", "zZ", "abcdefgé",
		// Eight to fifteen letters, which asciiWords reads in two blocks,
		// and the bytes after them that send a word to the general path.
		"abcdefghij", "abcdefghijkl", "abcdefghijklmn", "Internationally", "abcdefghijklmnoing",
		"abcdefghijklmno1", "abcdefghij1", "abcdefgh2", "abcdefghijklé", "abcdefghijklmnoé", "abcdefghijk'"}
	// The marks include bytes that folding to lower case (OR 0x20) would
	// make a digit (0x10-0x19), a letter's neighbours ('@', '[', '`', '{')
	// and the ends of ASCII (0x01, 0x7f).
	seps := []string{" ", "  ", ", ", ". ", ".", "!", "? ", "\n", "-", "'", "’", "\u00a0", "\t", "(", ")", "\"", ".\"", ". A",
		"\x10", "\x19", "\x01", "\x7f", "@", "[", "`", "{", "_"}
	for _, w := range words {
		for _, s := range seps {
			out = append(out, w, w+s, s+w, w+s+w, strings.Repeat(w+s, 3), "The "+w+s+"And "+w,
				"x"+s+w+s+"y z", "12345678"+s+w)
		}
	}
	// Every short text over a small alphabet of letters the stemmer reads
	// and marks the tokenizer tells apart.
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

// TestLetterEnd holds letterEnd, which asciiWords' common case reads, to
// a byte-by-byte test: for a run of p letters (p = 0 to 7) followed by
// every byte value and then by every byte value again (sums that carry
// out of a byte change the next), its lowest set bit is the high bit of
// byte p; for eight letters, it is 0.
func TestLetterEnd(t *testing.T) {
	isLetter := func(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
	const letters = "aZmzAqYb"
	for p := 0; p <= 7; p++ {
		for b := range 256 {
			if isLetter(byte(b)) {
				continue
			}
			for c := range 256 {
				var w [8]byte
				copy(w[:], letters[:p])
				w[p] = byte(b)
				for q := p + 1; q < 8; q++ {
					w[q] = byte(c + 37*q)
				}
				if p < 7 {
					w[p+1] = byte(c)
				}
				x := load64(string(w[:]), 0)
				if got := bits.TrailingZeros64(letterEnd(x|fold64)) >> 3; got != p {
					t.Fatalf("letterEnd(%q): first byte that is no letter %d; want %d", w[:], got, p)
				}
			}
		}
	}
	for _, w := range []string{"abcdefgh", "ABCDEFGH", "zazazaza", "AzAzAzAz"} {
		if e := letterEnd(load64(w, 0) | fold64); e != 0 {
			t.Errorf("letterEnd(%q) = %#x; want 0", w, e)
		}
	}
}

func TestTokenizerMatchesReferenceEdges(t *testing.T) {
	texts := append([]string(nil), tokenizerSeeds...)
	texts = append(texts, tokenizerEdges()...)
	for _, text := range texts {
		if d := sameAsReference(text, 3); d != "" {
			t.Fatalf("tokenize(%.80q): %s", text, d)
		}
	}
}

// TestTokenizerMatchesReferenceDev compares the tokenizer with the
// reference on every text of every development file (data/dev/*.jsonl),
// the judges' buffers full and roomy in turn.
func TestTokenizerMatchesReferenceDev(t *testing.T) {
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
				if d := sameAsReference(text, 1+n&1); d != "" {
					t.Fatalf("%s %s: tokenize(%.80q): %s", filepath.Base(f), s.ID, text, d)
				}
				n++
			}
		}
	}
	t.Logf("%d texts of %d files", n, len(files))
}

func FuzzTokenizerMatchesReferenceModes(f *testing.F) {
	for _, s := range tokenizerSeeds {
		f.Add(s)
	}
	f.Add("abcdefgh abcdefghijklmnop RUNNINGS cities activities 1,234 don't")
	f.Add("Internationally, abcdefghijklmno1 abcdefghijk' abcdefghijé (abcdefghijkl)")
	f.Fuzz(func(t *testing.T, text string) {
		if d := sameAsReference(text, 3); d != "" {
			t.Errorf("tokenize(%q): %s", text, d)
		}
	})
}
