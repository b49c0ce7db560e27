package quant

import (
	"math/bits"
	"strings"
	"testing"
)

// TestLetterEnd holds the eight-bytes-at-a-time letterEnd to a byte loop,
// for every byte value at every offset of a run of letters.
func TestLetterEnd(t *testing.T) {
	ref := func(s string, i int) int {
		for i < len(s) && isLetter(s[i]) {
			i++
		}
		return i
	}
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for n := 0; n <= 20; n++ {
		for b := 0; b < 256; b++ {
			s := []byte(strings.Repeat(letters, 1)[:n] + string(rune(0)) + "xyzXYZabcdefgh")
			s[n] = byte(b)
			for i := 0; i <= n; i++ {
				if got, want := letterEnd(string(s), i), ref(string(s), i); got != want {
					t.Fatalf("letterEnd(%q, %d) = %d; want %d", s, i, got, want)
				}
				if got, want := letterEnd(string(s[:n+1]), i), ref(string(s[:n+1]), i); got != want {
					t.Fatalf("letterEnd(%q, %d) = %d; want %d", s[:n+1], i, got, want)
				}
			}
		}
	}
}

// TestPrefilters checks that the cheap tests letters makes before it
// settles a word itself let through every word that word acts on: the
// keys of generalWords in any case, and the currency codes; and that
// maybeTable, which letters uses, lets through whatever maybeGeneral or
// maybeCode does.
func TestPrefilters(t *testing.T) {
	for w := range generalWords {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			if !maybeGeneral(v) {
				t.Errorf("maybeGeneral(%q) = false", v)
			}
			if !maybeTable(v[0], v[len(v)-1], len(v)) {
				t.Errorf("maybeTable(%q) = false", v)
			}
		}
	}
	const az = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for _, a := range az {
		for _, b := range az {
			for _, c := range " " + az {
				w := strings.TrimSpace(string(a) + string(b) + string(c))
				if codePrefix(w) != "" && !maybeCode(w) {
					t.Errorf("maybeCode(%q) = false; codePrefix reads it", w)
				}
				if (maybeGeneral(w) || maybeCode(w)) && !maybeTable(w[0], w[len(w)-1], len(w)) {
					t.Errorf("maybeTable(%q) = false; maybeGeneral or maybeCode lets it through", w)
				}
			}
		}
	}
}

// TestNonLetters holds nonLetters to a byte loop on its one promise: the
// lowest set bit is the high bit of the first byte that is no ASCII
// letter, and there is none iff all eight bytes are letters. The words
// mix letters with every byte value, the ones from 0xE1 up (whose sums
// carry into the next byte) in particular.
func TestNonLetters(t *testing.T) {
	rnd := uint64(0x9E3779B97F4A7C15)
	next := func() uint64 {
		rnd ^= rnd << 13
		rnd ^= rnd >> 7
		rnd ^= rnd << 17
		return rnd
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for n := 0; n < 2_000_000; n++ {
		var b [8]byte
		r := next()
		for k := range b {
			// Mostly letters, so that the first non-letter falls anywhere.
			if r>>(8*k)&3 != 0 {
				b[k] = letters[int(r>>(8*k+2)&63)%len(letters)]
			} else {
				b[k] = byte(next())
			}
		}
		x := load64(string(b[:]), 0)
		want := 8
		for k, c := range b {
			if !isLetter(c) {
				want = k
				break
			}
		}
		m := nonLetters(x)
		got := 8
		if m != 0 {
			got = bits.TrailingZeros64(m) >> 3
			if m&(m&-m) != 0x80<<(8*got) {
				t.Fatalf("nonLetters(%#x) = %#x: lowest bit is not a high bit", x, m)
			}
		}
		if got != want {
			t.Fatalf("nonLetters(%q) = %#x: first non-letter at %d, want %d", b[:], m, got, want)
		}
	}
}

// devWords returns every distinct run of ASCII letters in the development
// texts, as written.
func devWords(tb testing.TB) []string {
	seen := map[string]bool{}
	var words []string
	for _, s := range devTexts(tb) {
		for i := 0; i < len(s); {
			if !isLetter(s[i]) {
				i++
				continue
			}
			e := letterEnd(s, i)
			if w := s[i:e]; !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
			i = e
		}
	}
	return words
}

// shortCandidates returns words to hold shortTable to the map with: every
// key of generalWords and suffixWords, every article tail, each in several
// casings and with a letter added, dropped or changed, and the words of
// the development texts.
func shortCandidates(tb testing.TB) []string {
	var base []string
	for w := range generalWords {
		base = append(base, w)
	}
	for w := range suffixWords {
		base = append(base, w)
	}
	base = append(base, articleTails...)
	var words []string
	for _, w := range base {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:], w + "s", "x" + w, w[:len(w)-1], w[1:], w[:len(w)-1] + "q"} {
			if v != "" {
				words = append(words, v)
			}
		}
	}
	return append(words, devWords(tb)...)
}

// TestShortTable holds shortTable, which tableWord reads for words of up
// to eight letters, to the generalWords map behind probeGeneral: the same
// class and value for every candidate word, read through loadedKey from
// the text as letters reads it and through shortKey; and a tail mark on
// exactly the words after which numberWord may read "a"/"an" as more than
// a plain word.
func TestShortTable(t *testing.T) {
	if !separates(shortWords(), shortMul) {
		t.Fatal("shortMul does not separate the keys of shortTable")
	}
	for _, w := range shortCandidates(t) {
		if len(w) > 8 {
			continue
		}
		k := shortKey(w)
		// letters loads the word with the bytes after it.
		for _, after := range []string{" the end", ".", "7abcdefgh", "\x00\x00\x00\x00\x00\x00\x00\x00", "\xe2\x80\x94"} {
			s := w + after
			if len(s) < 8 {
				continue
			}
			if got := loadedKey(load64(s, 0), len(w)); got != k {
				t.Fatalf("loadedKey(%q, %d) = %#x; shortKey says %#x", s, len(w), got, k)
			}
		}
		e := probeShort(k)
		if got, want := (wordInfo{e.cls, e.val}), probeGeneral(w); got != want {
			t.Errorf("probeShort(%q) = %+v; probeGeneral says %+v", w, got, want)
		}
		lw := strings.ToLower(w)
		cls := generalWords[lw].cls
		tail := cls == wHundred || cls == wScale || cls == wDozen || fractionDenom(w) > 0 || periodUnit(w) != ""
		if e.tail != tail {
			t.Errorf("probeShort(%q).tail = %v; want %v", w, e.tail, tail)
		}
	}
	for _, w := range articleTails {
		if fractionDenom(w) == 0 && periodUnit(w) == "" {
			t.Errorf("article tail %q is read by neither fractionDenom nor periodUnit", w)
		}
	}
}

// TestShortWordsSameExtract holds tableWord's fast ways (shortTable and
// plainArticle) to the way it took before them (probeGeneral and
// numberWord for every "a"/"an"), on every development text and on texts
// built to reach their edges: "a"/"an" before each candidate word, in
// several casings, spacings and punctuations, and near the end of a text.
func TestShortWordsSameExtract(t *testing.T) {
	defer func() { slowWords = false }()
	same := func(text string) {
		t.Helper()
		slowWords = false
		fast := Extract(nil, text)
		slowWords = true
		slow := Extract(nil, text)
		slowWords = false
		if len(fast) != len(slow) {
			t.Fatalf("Extract(%q): %d quantities; %d the slow way\n%+v\n%+v", text, len(fast), len(slow), fast, slow)
		}
		for i := range fast {
			if !identical(fast[i], slow[i]) {
				t.Fatalf("Extract(%q): quantity %d is %+v; %+v the slow way", text, i, fast[i], slow[i])
			}
		}
	}
	for _, s := range devTexts(t) {
		same(s)
	}
	for _, tc := range extractCases {
		same(tc.text)
	}
	same(benchText)
	words := shortCandidates(t)
	if testing.Short() {
		words = words[:2000]
	}
	for _, w := range words {
		for _, a := range []string{"a", "an", "A", "AN"} {
			for _, gap := range []string{" ", "  ", "\t", "\u00a0"} {
				phrase := a + gap + w
				same(phrase)
				same("for " + phrase + ".")
				same("It took " + phrase + " and a half to 3 km, then " + phrase + "-long wait of " + phrase + "'s work")
				same("X " + phrase + " of the 20 votes")
			}
		}
		same("a " + w + "7 and a " + w + "é or a " + w + "$5")
	}
	// Every prefix of texts whose words of one to ten letters end at
	// every distance from the end of the text: letters reads eight bytes
	// at a time when it can, and bytes one by one near the end.
	for _, text := range []string{
		"a thousand in 1990 and an hour by a dozen a halves, USD 5 A b cd efg hijk lmnop qrstuv wxyzabc defghijk lmnopqrst uvwxyzabcd",
		"In May a third of the 20 km fell by a fifth.  An hour\tand a half; at least 5 US$ 3 Rs. 40 a 1990s a\u00a0day",
		"first one two second Sept. 3 a week-long a year's a c. 5 ca. 1900 approx. 7 more than 8 up to 9 of THE USA",
		"It fell. 5 km) (and: about, 6 miles; over. 7 ft\" a. 8 x.. y), an. hour, a, hundred) in. 1990 (by 2000",
		"It's 3.5 word.5 x.y. 7 a.m. U.S. (a) [an hour] {in 1990} \"a\" 'an' a's a.5 in.1990 c.5 at.least 9 half.a day",
	} {
		for k := 0; k <= len(text); k++ {
			same(text[:k])
			same(text[k:])
		}
	}
}

// identical reports whether a and b are the same quantity, a NaN value
// (from digits beyond float64) the same as another.
func identical(a, b Quantity) bool {
	if a.Value != a.Value && b.Value != b.Value {
		a.Value, b.Value = 0, 0
	}
	return a == b
}
