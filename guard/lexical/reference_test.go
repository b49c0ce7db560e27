package lexical

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// This file keeps the straightforward versions of code that was made faster
// (the tokenizer, stemming, refusal search, similarity, index lookups) and
// holds the fast versions to them: same output, bit for bit.

// refHashStem is hashStem as its comment states it: the stem copied into
// zero-padded blocks of eight bytes (one for an empty stem), read as
// little-endian words and folded into hashSeed with the stem's length, a
// block at a time, each by the high and low halves of its 128-bit product
// with hashMul.
func refHashStem(stem []byte) uint64 {
	blocks := max(1, (len(stem)+7)/8)
	padded := make([]byte, 8*blocks)
	copy(padded, stem)
	h := uint64(hashSeed) ^ uint64(len(stem))
	for b := range blocks {
		hi, lo := bits.Mul64(h^binary.LittleEndian.Uint64(padded[8*b:]), hashMul)
		h = hi ^ lo
	}
	return h
}

// refTokenizer is the tokenizer as it was before its fast paths (ASCII
// without rune decoding, one table lookup for flags and weight). The
// equivalence tests hold the current tokenizer to it, token for token.
type refTokenizer struct {
	buf   []byte
	keep  bool
	stems []string
}

// refIDF is the embedded vocabulary as a map, the way the judges looked
// weights up before tokens carried them.
var refIDF = func() map[uint64]float64 {
	m := map[uint64]float64{}
	docs := 0
	for _, line := range strings.Split(vocabText, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			panic(err)
		}
		if f[0] == "#docs" {
			docs = n
			continue
		}
		m[refHashStem([]byte(f[0]))] = idf(n, docs)
	}
	return m
}()

// refWeight is the weight of a token as computed before tokens carried it.
func refWeight(t *token) float64 {
	if t.flags&fStop != 0 {
		return 0
	}
	if w, ok := refIDF[t.hash]; ok {
		return w
	}
	return idf(0, defaultVocab.docs)
}

// tokenize appends the tokens of text to dst. Possessive 's is dropped;
// "n't" becomes a separate negation token "not"; hyphens and other
// punctuation split words. Sentence indices come from sentence boundaries
// found in the same pass (see sentenceEnd).
func (tz *refTokenizer) tokenize(dst []token, text string, sents []span) ([]token, []span) {
	loadLexiconMaps()
	sent := int32(0)
	sentStart := 0
	inSent := 0
	atSentStart := true
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWordRuneUnicode(r) {
			if end, ok := sentenceEnd(text, i, r, size, dst); ok {
				if inSent > 0 {
					sents = append(sents, span{sentStart, end})
					sent++
					inSent = 0
				}
				sentStart = end
				atSentStart = true
			}
			i += size
			continue
		}
		// A word.
		start := i
		tz.buf = tz.buf[:0]
		upper := unicode.IsUpper(r)
		allDigit := true
		for i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			if isWordRuneUnicode(r) {
				if r < '0' || r > '9' {
					allDigit = false
				}
				tz.buf = utf8.AppendRune(tz.buf, foldRuneUnicode(r))
				i += size
				continue
			}
			// Digits joined by , or . stay one number: 1,234.5
			if allDigit && (r == ',' || r == '.') && i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
				if r == '.' {
					tz.buf = append(tz.buf, '.')
				}
				i += size
				continue
			}
			break
		}
		end := i
		neg := false
		// Apostrophes: possessive 's, and n't.
		if i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			if isApostrophe(r) {
				rest := text[i+size:]
				switch {
				case len(rest) >= 1 && (rest[0] == 's' || rest[0] == 'S') && (len(rest) == 1 || !isWordByte(rest[1])):
					i += size + 1
				case len(rest) >= 1 && (rest[0] == 't' || rest[0] == 'T') && (len(rest) == 1 || !isWordByte(rest[1])) &&
					len(tz.buf) > 1 && tz.buf[len(tz.buf)-1] == 'n':
					tz.buf = tz.buf[:len(tz.buf)-1]
					end--
					neg = true
					i += size + 1
				case len(rest) >= 1 && isWordByte(rest[0]):
					// o'clock, O'Brien: keep going as one word by skipping the mark.
				}
			}
		}
		n := refStem(tz.buf)
		w := tz.buf[:n]
		h := refHashStem(w)
		if tz.keep {
			if b, ok := canonStem[h]; ok {
				tz.stems = append(tz.stems, b)
			} else {
				tz.stems = append(tz.stems, string(w))
			}
		}
		// An inflected or derived form reads as its WordNet base.
		if c, ok := canonOf[h]; ok {
			h = c
		}
		t := token{start: int32(start), end: int32(end), hash: h, sent: sent}
		if allDigit {
			t.flags |= fNum
		}
		if upper {
			t.flags |= fCapAny
			if !atSentStart {
				t.flags |= fCap
			}
		}
		if atSentStart {
			t.flags |= fInitial
		}
		t.flags |= wordFlagMap[t.hash]
		dst = append(dst, t)
		inSent++
		atSentStart = false
		if neg {
			if tz.keep {
				tz.stems = append(tz.stems, "not")
			}
			dst = append(dst, token{start: int32(end), end: int32(i), hash: hNot, sent: sent, flags: fStop | fNeg})
		}
	}
	if inSent > 0 {
		sents = append(sents, span{sentStart, len(text)})
	}
	return dst, sents
}

// sameTokens reports how the tokenizer, with the judges' vocabulary, and
// the reference differ on text.
func sameTokens(text string) string {
	loadLexiconMaps()
	tz := tokenizer{vocab: defaultVocab, keep: true}
	ref := refTokenizer{keep: true}
	got, gotSents := tz.tokenize(nil, text, nil)
	want, wantSents := ref.tokenize(nil, text, nil)
	if len(got) != len(want) {
		return fmt.Sprintf("%d tokens; reference %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.start != w.start || g.end != w.end || g.hash != w.hash || g.sent != w.sent || g.flags&^fWeighed != w.flags {
			return fmt.Sprintf("token %d = %+v; reference %+v", i, g, w)
		}
		if g.flags&fWeighed == 0 {
			return fmt.Sprintf("token %d: not weighed", i)
		}
		if gw := defaultVocab.weight(&g); gw != refWeight(&w) {
			return fmt.Sprintf("token %d weight %v; reference %v", i, gw, refWeight(&w))
		}
	}
	if !slices.Equal(gotSents, wantSents) {
		return fmt.Sprintf("sentences %v; reference %v", gotSents, wantSents)
	}
	if !slices.Equal(tz.stems, ref.stems) {
		return fmt.Sprintf("stems %q; reference %q", tz.stems, ref.stems)
	}
	return ""
}

var tokenizerSeeds = []string{"Hello, world. It's 3.5 km!", "don't\nstop", "\xff\xfe", "a.B", "1,2,3", "’s n’t", "",
	"Café Zürich ÀÉÎÕÜ ǅ Ⅻ ٣٤ 1٣ x\u0301y", "O'Brien's o'clock isn’t DON'T can't", "J. K. Rowling met Dr. Smith in the U.S. in 1990. Then he left!",
	"The 19th century.First for Women", "1,234,567.89 and 3.14.15 and .5 and 5.", "Title\nBody text here.", "x\u00a0y. Z", "Ünïcödé. Über alles",
	"’s", "n't", "aren’t", "\u02bcs", "1990s' records", "e.g. this. i.e. that."}

func TestTokenizerMatchesReference(t *testing.T) {
	texts := append([]string(nil), tokenizerSeeds...)
	for _, s := range readGoldenTexts(t) {
		texts = append(texts, s)
	}
	for _, text := range texts {
		if d := sameTokens(text); d != "" {
			t.Errorf("tokenize(%.80q): %s", text, d)
		}
	}
}

func FuzzTokenizerMatchesReference(f *testing.F) {
	for _, s := range tokenizerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if d := sameTokens(text); d != "" {
			t.Errorf("tokenize(%q): %s", text, d)
		}
	})
}

// readGoldenTexts returns every text of the golden rows.
func readGoldenTexts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"testdata/golden-rows.jsonl", "testdata/golden-planted.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var r struct {
				Question, Answer string
				Reference        *string `json:"referenceAnswer"`
				Contexts         []struct{ Text string }
			}
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Question, r.Answer)
			if r.Reference != nil {
				out = append(out, *r.Reference)
			}
			for _, c := range r.Contexts {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// refStem is stem as it was: it applies light suffix stripping to an ASCII lower-case word in place
// and returns the stem's length: plural -s/-es/-ies, -ing, -ed, -ly, and a
// final -e, so that "based", "basing", "base" and "bases" share a stem.
func refStem(b []byte) int {
	n := len(b)
	for i := 0; i < n; i++ {
		if b[i] >= utf8.RuneSelf || ('0' <= b[i] && b[i] <= '9') {
			return n
		}
	}
	if n <= 3 {
		return n
	}
	has := func(suf string) bool {
		if n < len(suf) {
			return false
		}
		return string(b[n-len(suf):n]) == suf
	}
	switch {
	case has("ies") && n > 4:
		b[n-3] = 'y'
		n -= 2
	case has("sses"):
		n -= 2
	case has("ss") || has("us") || has("is"):
	case has("s") && n > 3:
		n--
	}
	switch {
	case has("ing") && n-3 >= 4:
		n -= 3
		if n >= 2 && b[n-1] == b[n-2] && b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z' {
			n-- // running → run
		}
	case has("ed") && n-2 >= 3 && b[n-3] != 'e':
		n -= 2
		if n >= 2 && b[n-1] == b[n-2] && b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z' {
			n--
		}
	case has("ly") && n-2 >= 4:
		n -= 2
	}
	if n > 3 && b[n-1] == 'e' {
		n--
	}
	return n
}

func FuzzStemMatchesReference(f *testing.F) {
	for _, w := range []string{"cities", "ties", "sses", "classes", "bus", "running", "based", "bases", "basing", "quickly", "fly", "need", "feed", "ies", "aies", "dressing", "1990s", "café"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		a, b := []byte(w), []byte(w)
		n, m := stem(a), refStem(b)
		if n != m || string(a[:n]) != string(b[:m]) {
			t.Errorf("stem(%q) = %q; reference %q", w, a[:n], b[:m])
		}
	})
}

// refNearPair is nearPair as it was: a scan of the window's (or every
// context's) tokens.
func refNearPair(a *analysis, win window, h1, h2 uint64) bool {
	check := func(toks []token) bool {
		last := -100
		n := 0
		for i := range toks {
			if !toks[i].content() {
				continue
			}
			if toks[i].hash == h1 {
				last = n
			} else if toks[i].hash == h2 && n-last <= 3 {
				return true
			}
			n++
		}
		return false
	}
	if win.ctx >= 0 {
		d := &a.ctxs[win.ctx]
		lo, hi := d.sentAt[win.sent], d.sentAt[win.sent+win.nsent]
		return check(d.toks[lo:hi])
	}
	for ci := range a.ctxs {
		if check(a.ctxs[ci].toks) {
			return true
		}
	}
	return false
}

// TestIndexLookupsMatchScans holds the term-index lookups (nearPair,
// windowHasContent) to the token scans they replace, on every window of
// the golden samples.
func TestIndexLookupsMatchScans(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range readGoldenSamplesInternal(t) {
		a := new(analysis)
		loadSample(a, &s, j.vocab)
		var hashes []uint64
		for _, d := range append([]doc{a.q, a.a}, a.ctxs...) {
			for k, tk := range d.toks {
				if tk.content() && (d.ctx < 0 || k%7 == 0) {
					hashes = append(hashes, tk.hash)
				}
			}
		}
		if len(hashes) > 40 {
			hashes = hashes[:40]
		}
		wins := []window{{ctx: -2}}
		for g := 0; g < a.nsent; g++ {
			wins = append(wins, a.windowAt(g, 0))
		}
		for _, win := range wins {
			for _, h1 := range hashes {
				if win.ctx >= 0 && a.windowHasContent(win, h1) != a.windowHas(win, h1) {
					t.Fatalf("%s: windowHasContent(%+v, %x) = %v; scan says %v", s.ID, win, h1, !a.windowHas(win, h1), a.windowHas(win, h1))
				}
				for _, h2 := range hashes {
					if got, want := a.nearPair(win, h1, h2), refNearPair(a, win, h1, h2); got != want {
						t.Fatalf("%s: nearPair(%+v, %x, %x) = %v; scan says %v", s.ID, win, h1, h2, got, want)
					}
					checked++
				}
			}
		}
	}
	if checked < 10000 {
		t.Fatalf("only %d pairs checked", checked)
	}
}

func readGoldenSamplesInternal(t *testing.T) []guard.Sample {
	t.Helper()
	var out []guard.Sample
	for _, name := range []string{"testdata/golden-rows.jsonl", "testdata/golden-planted.jsonl"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var s guard.Sample
			if err := json.Unmarshal(line, &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	return out
}

func TestAppendPctMatchesFmt(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 0.4, 0.5, 1.5, 2.5, 49.5, 50.5, 99.4999, 99.5, 100, 33.333333, -0.4, -3.5, 1e21, math.SmallestNonzeroFloat64}
	for i := range 1000 {
		vals = append(vals, float64(i)/10, 100*float64(i)/999)
	}
	for _, v := range vals {
		if got, want := string(appendPct(nil, v)), fmt.Sprintf("%.0f", v); got != want {
			t.Errorf("appendPct(%v) = %q; fmt %%.0f gives %q", v, got, want)
		}
	}
}

// refSimilarity is similarity as it was: token scans.
func refSimilarity(s1, s2 []token) float64 {
	inter, union := 0.0, 0.0
	for i := range s1 {
		t := &s1[i]
		if !t.content() || t.flags&fNum != 0 {
			continue
		}
		union += refWeight(t)
		if tokIn(s2, t.hash) {
			inter += refWeight(t)
		}
	}
	for i := range s2 {
		t := &s2[i]
		if !t.content() || t.flags&fNum != 0 {
			continue
		}
		if !tokIn(s1, t.hash) {
			union += refWeight(t)
		}
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

// TestSentenceSetsMatchScans holds similarity, antonymSwap and sentHas to
// the token scans they replace, bit for bit, on every pair of sentences of
// the golden samples with several contexts.
func TestSentenceSetsMatchScans(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, s := range readGoldenSamplesInternal(t) {
		if len(s.Contexts) < 2 {
			continue
		}
		a := new(analysis)
		loadSample(a, &s, j.vocab)
		a.buildSentSets()
		for c1 := range a.ctxs {
			for k1 := range a.ctxs[c1].sents {
				s1 := a.ctxs[c1].sentToks(k1)
				g1 := a.global(c1, k1)
				if a.sentNeg[g1] != hasNeg(s1) {
					t.Fatalf("%s: sentNeg[%d] wrong", s.ID, g1)
				}
				for _, tk := range s1 {
					if !a.sentHas(g1, tk.hash) {
						t.Fatalf("%s: sentHas(%d) misses a token of the sentence", s.ID, g1)
					}
				}
				for c2 := range a.ctxs {
					for k2 := range a.ctxs[c2].sents {
						s2 := a.ctxs[c2].sentToks(k2)
						g2 := a.global(c2, k2)
						want := refSimilarity(s1, s2)
						if got := a.similarity(c1, k1, c2, k2, j.vocab); got != want {
							t.Fatalf("%s: similarity(%d, %d) = %v; scan gives %v", s.ID, g1, g2, got, want)
						}
						for _, thr := range [...]float64{0.3, 0.5, 0.6, want} {
							got := a.similarityAbove(c1, k1, c2, k2, j.vocab, thr)
							if want >= thr && got != want || want < thr && got >= thr {
								t.Fatalf("%s: similarityAbove(%d, %d, %v) = %v; similarity %v", s.ID, g1, g2, thr, got, want)
							}
						}
						pairs++
					}
				}
			}
		}
	}
	if pairs < 10000 {
		t.Fatalf("only %d sentence pairs checked", pairs)
	}
}

// tokIn is the linear membership scan the sentence sets replace.
func tokIn(run []token, h uint64) bool {
	for i := range run {
		if run[i].hash == h {
			return true
		}
	}
	return false
}

// TestAnswerPairsMatchContextTable checks that the answer-side pair set
// (buildAnswerPairs) gives bigramSupport and tokenSupport the same values as
// the contexts' pair table (buildPairs), on every golden sample.
func TestAnswerPairsMatchContextTable(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range readGoldenSamplesInternal(t) {
		a := new(analysis)
		loadSample(a, &s, j.vocab)
		if len(a.ctxs) == 0 {
			continue
		}
		bigAns, tokAns := a.bigramSupport(&a.a), a.tokenSupport(&a.a)
		if !a.ansBuilt {
			t.Fatalf("%s: a single answer did not use the answer-side set", s.ID)
		}
		a.ansBuilt, a.manyAns = false, true
		bigCtx, tokCtx := a.bigramSupport(&a.a), a.tokenSupport(&a.a)
		if bigAns != bigCtx || tokAns != tokCtx {
			t.Fatalf("%s: answer-side set gives bigram %v token %v; context table %v %v", s.ID, bigAns, tokAns, bigCtx, tokCtx)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no golden sample with contexts")
	}
}

// setSimilarity is similarity as it was before the sentence runs: each word
// of one sentence looked up in the other's set with sentHas.
func setSimilarity(a *analysis, c1, k1, c2, k2 int, v *vocabulary) float64 {
	s1, s2 := a.ctxs[c1].sentToks(k1), a.ctxs[c2].sentToks(k2)
	g1, g2 := a.global(c1, k1), a.global(c2, k2)
	inter, union := 0.0, 0.0
	for i := range s1 {
		if t := &s1[i]; t.content() && t.flags&fNum == 0 {
			union += v.weight(t)
			if a.sentHas(g2, t.hash) {
				inter += v.weight(t)
			}
		}
	}
	for i := range s2 {
		if t := &s2[i]; t.content() && t.flags&fNum == 0 && !a.sentHas(g1, t.hash) {
			union += v.weight(t)
		}
	}
	if union == 0 {
		return 0
	}
	return inter / union
}

// TestSimilarityWordOutsideSet: a context word whose hash is not in its
// sentence's set (changed after buildSentSets) is looked up in the other
// sentence's set, as sentHas would, not read from the merge.
func TestSimilarityWordOutsideSet(t *testing.T) {
	j, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := guard.Sample{
		Question: "When did the ferry leave?",
		Contexts: []guard.Context{
			{ID: "c1", Text: "The ferry left the harbour at noon on Monday."},
			{ID: "c2", Text: "The ferry left the old harbour at dawn on Monday."},
		},
		Answer: "At noon.",
	}
	a := new(analysis)
	loadSample(a, &s, j.vocab)
	a.buildSentSets()
	// Give "noon" of c1 the hash of "dawn", which only c2's set holds.
	var dawn uint64
	for _, tk := range a.ctxs[1].toks {
		if a.ctxs[1].s[tk.start:tk.end] == "dawn" {
			dawn = tk.hash
		}
	}
	changed := false
	for i := range a.ctxs[0].toks {
		if tk := &a.ctxs[0].toks[i]; a.ctxs[0].s[tk.start:tk.end] == "noon" {
			tk.hash, changed = dawn, true
		}
	}
	if dawn == 0 || !changed {
		t.Fatal("test sentences lack the words it swaps")
	}
	got, want := a.similarity(0, 0, 1, 0, j.vocab), setSimilarity(a, 0, 0, 1, 0, j.vocab)
	if got != want {
		t.Fatalf("similarity = %v; sentHas gives %v", got, want)
	}
	if back := a.similarity(1, 0, 0, 0, j.vocab); back != setSimilarity(a, 1, 0, 0, 0, j.vocab) {
		t.Fatalf("similarity the other way = %v; sentHas gives %v", back, setSimilarity(a, 1, 0, 0, 0, j.vocab))
	}
}

// buildSentSets builds the sets of every context sentence (see buildSets),
// for the tests that read them all.
func (a *analysis) buildSentSets() { a.buildSets(nil) }

// refSentStarts is how analyze found each sentence's first token before
// the tokenizer recorded the starts (tokenizer.starts): a look at every token.
func refSentStarts(toks []token, nsent int) []int32 {
	var at []int32
	k := int32(-1)
	for i := range toks {
		for toks[i].sent > k {
			at = append(at, int32(i))
			k++
		}
	}
	for int(k)+1 < nsent {
		at = append(at, int32(len(toks)))
		k++
	}
	at = append(at, int32(len(toks)))
	if nsent == 0 {
		at = at[:1]
		at[0] = int32(len(toks))
	}
	return at
}

// TestSentStartsMatchesScan holds the sentence starts analyze takes from
// the tokenizer (tokenizer.starts) to the token scan that found them
// before, on every development text and on odd short ones (FuzzTokenize
// checks them on any text).
func TestSentStartsMatchesScan(t *testing.T) {
	short, contexts := devTexts(t)
	var a analysis
	a.tz.vocab = loadedVocab()
	texts := append(append([]string{"", ".", "\n\n", "a. b", "A. B. C", "Mr. Smith. He came.\nYes", "é. É. 3.5. x"}, short...), contexts...)
	for i, s := range texts {
		var d doc
		a.analyze(&d, s, -1)
		if want := refSentStarts(d.toks, len(d.sents)); !slices.Equal(d.sentAt, want) {
			t.Fatalf("text %d (%.40q): analyze's sentAt = %v; want %v", i, s, d.sentAt, want)
		}
	}
}
