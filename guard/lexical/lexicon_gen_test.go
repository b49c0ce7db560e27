package lexical

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard/lexical/internal/wordnet"
)

// This file derives lexicon.tsv from internal/wordnet and the word lists of
// lexicon.go, the way the judges read WordNet before the table was compiled,
// and checks that the committed table and the tables loaded from it are
// exactly what the derivation gives.

var updateLexicon = flag.Bool("update-lexicon", false, "rewrite lexicon.tsv from internal/wordnet and the word lists")

// derivedLexicon is the lexicon computed from WordNet and the word lists,
// with the stem behind every hash.
type derivedLexicon struct {
	flags     map[uint64]uint16
	canonOf   map[uint64]uint64
	canonStem map[uint64]string
	synonymOf map[uint64][]uint64
	antonymOf map[uint64][]uint64
	names     map[uint64]string
}

// wnEntry is one WordNet entry as the derivation reads it, with the stem
// hashes of its word and base.
type wnEntry struct {
	word, base string
	syns, ants []string
	wh, bh     uint64
}

// stemHasher is normHash for the WordNet table's words (lower-case ASCII
// letters), without allocating.
type stemHasher struct{ buf []byte }

func (s *stemHasher) hash(w string) uint64 {
	s.buf = append(s.buf[:0], w...)
	return hashStem(s.buf[:stem(s.buf)])
}

func (s *stemHasher) stem(w string) string {
	s.buf = append(s.buf[:0], w...)
	return string(s.buf[:stem(s.buf)])
}

// normStem is normHash's stem, as a string.
func normStem(word string) string {
	b := make([]byte, 0, len(word))
	for _, r := range word {
		b = append(b, string(foldRune(r))...)
	}
	return string(b[:stem(b)])
}

func deriveLexicon(t testing.TB) *derivedLexicon {
	d := &derivedLexicon{flags: baseWordFlags(), names: map[uint64]string{}}
	var sh stemHasher
	entries := make([]wnEntry, 0, 1<<17)
	wordnet.Scan(func(word, base string, syns, ants []string) {
		entries = append(entries, wnEntry{word: word, base: base, syns: syns, ants: ants, wh: sh.hash(word), bh: sh.hash(base)})
	})
	d.nameAll(t, entries, &sh)
	d.buildCanon(entries, &sh)
	d.buildRelations(entries, &sh)
	return d
}

// nameAll records the stem of every hash the tables may hold, and fails on
// two stems with one hash.
func (d *derivedLexicon) nameAll(t testing.TB, entries []wnEntry, sh *stemHasher) {
	name := func(h uint64, s string) {
		if old, ok := d.names[h]; ok && old != s {
			t.Fatalf("stems %q and %q share hash %#x", old, s, h)
		}
		d.names[h] = s
	}
	for i := range entries {
		e := &entries[i]
		name(e.wh, sh.stem(e.word))
		name(e.bh, sh.stem(e.base))
		for _, w := range append(slices.Clone(e.syns), e.ants...) {
			name(sh.hash(w), sh.stem(w))
		}
	}
	for _, list := range []string{stopList, negationList, negPolarityList, hedgeList} {
		for _, w := range strings.Fields(list) {
			name(normHash(w), normStem(w))
		}
	}
	for _, p := range antonymPairs {
		name(normHash(p[0]), normStem(p[0]))
		name(normHash(p[1]), normStem(p[1]))
	}
}

// buildCanon fills canonOf, the base of each inflected or derived form, and
// canonStem, the base's stem. A form that is a lemma of its own somewhere
// (it is some synset's member: "found" = establish, "saw" = proverb) keeps
// its identity rather than reading as another word's inflection ("find");
// so does a form whose stem is some lemma's stem ("leaves" and "leave").
func (d *derivedLexicon) buildCanon(entries []wnEntry, sh *stemHasher) {
	d.canonOf = map[uint64]uint64{}
	d.canonStem = map[uint64]string{}
	conflict := map[uint64]bool{}
	lemma := make(map[string]bool, len(entries))
	baseStem := make(map[uint64]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		if e.base == e.word {
			lemma[e.word] = true
		}
		for _, s := range e.syns {
			lemma[s] = true
		}
		baseStem[e.bh] = true
	}
	for i := range entries {
		e := &entries[i]
		wh, bh := e.wh, e.bh
		if (e.word != e.base && lemma[e.word]) || wh == bh || baseStem[wh] || conflict[wh] || d.flags[wh]&fStop != 0 || d.flags[bh]&fStop != 0 {
			continue
		}
		if old, ok := d.canonOf[wh]; ok && old != bh {
			// Two words with one stem and different bases ("leaves":
			// leaf, leave): leave the stem alone.
			delete(d.canonOf, wh)
			conflict[wh] = true
			continue
		}
		d.canonOf[wh] = bh
	}
	for i := range entries {
		e := &entries[i]
		if c, ok := d.canonOf[e.wh]; ok && c == e.bh {
			if _, done := d.canonStem[e.wh]; !done {
				d.canonStem[e.wh] = sh.stem(e.base)
			}
		}
	}
}

func (d *derivedLexicon) canon(h uint64) uint64 {
	if c, ok := d.canonOf[h]; ok {
		return c
	}
	return h
}

// addAntonym records b as an antonym of a.
func (d *derivedLexicon) addAntonym(a, b uint64) {
	if a == b || slices.Contains(d.antonymOf[a], b) {
		return
	}
	d.antonymOf[a] = append(d.antonymOf[a], b)
	d.flags[a] |= fAnt
}

// buildRelations fills synonymOf and antonymOf from the WordNet entries and
// antonymPairs, between bases, function words left out, and flags the
// words that have some (fSynSet, fAnt). Run it after buildCanon.
func (d *derivedLexicon) buildRelations(entries []wnEntry, sh *stemHasher) {
	d.synonymOf = map[uint64][]uint64{}
	d.antonymOf = map[uint64][]uint64{}
	for i := range entries {
		e := &entries[i]
		if d.flags[e.wh]&fStop != 0 {
			continue
		}
		h := d.canon(e.wh)
		for _, s := range e.syns {
			syn := d.canon(sh.hash(s))
			if syn != h && d.flags[syn]&fStop == 0 && !slices.Contains(d.synonymOf[h], syn) {
				d.synonymOf[h] = append(d.synonymOf[h], syn)
				d.flags[h] |= fSynSet
			}
		}
		for _, a := range e.ants {
			ah := d.canon(sh.hash(a))
			if d.flags[ah]&fStop == 0 {
				d.addAntonym(h, ah)
				d.addAntonym(ah, h)
			}
		}
	}
	for _, p := range antonymPairs {
		a, b := d.canon(normHash(p[0])), d.canon(normHash(p[1]))
		d.addAntonym(a, b)
		d.addAntonym(b, a)
	}
}

// text writes the derived lexicon in the format of lexiconText.
func (d *derivedLexicon) text(t testing.TB) []byte {
	keys := map[uint64]bool{}
	for h, f := range d.flags {
		if f != 0 {
			keys[h] = true
		}
	}
	for _, m := range []map[uint64][]uint64{d.synonymOf, d.antonymOf} {
		for h := range m {
			keys[h] = true
		}
	}
	for h := range d.canonOf {
		keys[h] = true
	}
	stems := make([]string, 0, len(keys))
	byStem := map[string]uint64{}
	for h := range keys {
		s := d.stemOf(t, h)
		stems = append(stems, s)
		byStem[s] = h
	}
	sort.Strings(stems)
	var body bytes.Buffer
	nFlags, nEdges := 0, 0
	for _, s := range stems {
		h := byStem[s]
		if d.flags[h] != 0 {
			nFlags++
		}
		base := ""
		if _, ok := d.canonOf[h]; ok {
			base = d.canonStem[h]
		}
		nEdges += len(d.synonymOf[h]) + len(d.antonymOf[h])
		fmt.Fprintf(&body, "%s\t%d\t%s\t%s\t%s\n", s, d.flags[h], base, d.stemList(t, d.synonymOf[h]), d.stemList(t, d.antonymOf[h]))
	}
	var out bytes.Buffer
	out.WriteString("# Compiled lexicon of package lexical: WordNet 3.0 bases, synonyms and antonyms (see internal/wordnet)\n")
	out.WriteString("# and the word lists of lexicon.go, as stems. WordNet 3.0 Copyright 2006 by Princeton University;\n")
	out.WriteString("# see internal/wordnet/LICENSE-WordNet. Regenerate: go test ./guard/lexical -run TestLexiconUpToDate -update-lexicon\n")
	out.WriteString("# stem<TAB>flags<TAB>base<TAB>synonyms<TAB>antonyms\n")
	fmt.Fprintf(&out, "#! flags=%d canon=%d syn=%d ant=%d edges=%d\n", nFlags, len(d.canonOf), len(d.synonymOf), len(d.antonymOf), nEdges)
	out.Write(body.Bytes())
	return out.Bytes()
}

// stemOf returns the stem of hash h, which must be a plain word of the
// table: not empty, no white space, not starting with "#".
func (d *derivedLexicon) stemOf(t testing.TB, h uint64) string {
	s, ok := d.names[h]
	if !ok {
		t.Fatalf("hash %#x has no stem", h)
	}
	if s == "" || s[0] == '#' || strings.ContainsAny(s, " \t\n\r") {
		t.Fatalf("stem %q cannot be written in lexicon.tsv", s)
	}
	return s
}

func (d *derivedLexicon) stemList(t testing.TB, hs []uint64) string {
	ss := make([]string, len(hs))
	for i, h := range hs {
		ss[i] = d.stemOf(t, h)
	}
	return strings.Join(ss, " ")
}

// TestLexiconUpToDate checks that lexicon.tsv is what the derivation from
// internal/wordnet and the word lists writes (rerun with -update-lexicon
// after changing either, or the stemmer).
func TestLexiconUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("derives the lexicon from WordNet")
	}
	want := deriveLexicon(t).text(t)
	if *updateLexicon {
		if err := os.WriteFile("lexicon.tsv", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal([]byte(lexiconText), want) {
		t.Fatalf("lexicon.tsv (%d bytes) differs from the derivation (%d bytes): rerun with -update-lexicon", len(lexiconText), len(want))
	}
}

// TestLexiconLoaded checks that the tables loaded from lexicon.tsv equal
// the derived ones, entry by entry and in order.
func TestLexiconLoaded(t *testing.T) {
	if testing.Short() || *updateLexicon {
		t.Skip("derives the lexicon from WordNet")
	}
	loadLexicon()
	loadLexiconMaps()
	d := deriveLexicon(t)
	for h, f := range d.flags {
		if f == 0 {
			delete(d.flags, h)
		}
	}
	if !maps.Equal(wordFlagMap, d.flags) {
		t.Errorf("wordFlagMap: %d entries loaded, %d derived, or values differ", len(wordFlagMap), len(d.flags))
	}
	if !maps.Equal(canonOf, d.canonOf) {
		t.Errorf("canonOf: %d entries loaded, %d derived, or values differ", len(canonOf), len(d.canonOf))
	}
	if !maps.Equal(canonStem, d.canonStem) {
		t.Errorf("canonStem: %d entries loaded, %d derived, or values differ", len(canonStem), len(d.canonStem))
	}
	eq := func(a, b []uint64) bool { return slices.Equal(a, b) }
	if !maps.EqualFunc(synonymOf.asMap(), d.synonymOf, eq) {
		t.Errorf("synonymOf: %d entries loaded, %d derived, or lists differ", synonymOf.n, len(d.synonymOf))
	}
	if !maps.EqualFunc(antonymOf.asMap(), d.antonymOf, eq) {
		t.Errorf("antonymOf: %d entries loaded, %d derived, or lists differ", antonymOf.n, len(d.antonymOf))
	}
}
