package lexical

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// knownStems returns every stem the tables are built from: the
// vocabulary's, the compiled lexicon's (its stems, bases, synonyms and
// antonyms) and those of the word lists, each once, in the order first met.
func knownStems(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var stems []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			stems = append(stems, s)
		}
	}
	for _, line := range strings.Split(vocabText, "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			add(f[0])
		}
	}
	err := scanLexicon(lexiconText, func(stem string, _ uint16, base, syns, ants string) {
		add(stem)
		add(base)
		for _, s := range strings.Fields(syns + " " + ants) {
			add(s)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range []string{stopList, negationList, negPolarityList, hedgeList} {
		for _, w := range strings.Fields(list) {
			add(normStem(w))
		}
	}
	for _, p := range antonymPairs {
		add(normStem(p[0]))
		add(normStem(p[1]))
	}
	if len(stems) < 50000 {
		t.Fatalf("only %d stems in the vocabulary, the lexicon and the lists", len(stems))
	}
	return stems
}

// TestStemHashesDistinct holds that no two stems the tables know share a
// hash, and that none hashes to 0, the tables' empty mark.
func TestStemHashesDistinct(t *testing.T) {
	stems := knownStems(t)
	of := make(map[uint64]string, len(stems))
	for _, s := range stems {
		h := hashStem(s)
		if h == 0 {
			t.Fatalf("stem %q hashes to 0", s)
		}
		if old, ok := of[h]; ok {
			t.Fatalf("stems %q and %q share hash %#x", old, s, h)
		}
		of[h] = s
	}
	t.Logf("%d stems, %d hashes", len(stems), len(of))
}

// TestHashStemMatchesReference holds hashStem, on strings and on byte
// slices, to refHashStem: on every length up to 40 (bytes outside ASCII
// too) and on every known stem.
func TestHashStemMatchesReference(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		want := refHashStem(b)
		if got := hashStem(b); got != want {
			t.Fatalf("hashStem([]byte %q) = %#x; want %#x", b, got, want)
		}
		if got := hashStem(string(b)); got != want {
			t.Fatalf("hashStem(%q) = %#x; want %#x", b, got, want)
		}
	}
	for n := 0; n <= 40; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i%26)
		}
		check(b)
		for i := range b {
			b[i] = byte(0x80 + 37*i)
		}
		check(b)
	}
	for _, s := range knownStems(t) {
		check([]byte(s))
	}
}

// TestHashStemLengthAndBlocks checks the cases the blocks could confuse:
// a stem against itself with a zero byte appended (stems hold none, but
// the length tells them apart even so), and stems that differ in one
// byte of one block only.
func TestHashStemLengthAndBlocks(t *testing.T) {
	for n := 1; n <= 24; n++ {
		s := strings.Repeat("x", n)
		if hashStem(s) == hashStem(s+"\x00") {
			t.Errorf("%q and %q share a hash", s, s+"\x00")
		}
		seen := map[uint64]int{}
		for i := range n {
			for _, c := range []byte("aqz09") {
				b := []byte(s)
				b[i] = c
				h := hashStem(b)
				if j, ok := seen[h]; ok && j != i*256+int(c) {
					t.Fatalf("%q shares its hash with a variant of byte %d", b, j/256)
				}
				seen[h] = i*256 + int(c)
			}
		}
	}
}

// The tables read a hash's top bits (the lexicon's bloom filter reads h>>52
// and h>>46, sentence signatures h>>62 and h>>56, a slot is the top bits of
// h times the golden ratio) and its low bits (analysis' word index takes h
// & mask). spreadFields are those fields, as shift and width.
var spreadFields = []struct {
	name         string
	shift, width uint
}{
	{"h>>56", 56, 8},
	{"h>>52", 52, 12},
	{"h>>46&63", 46, 6},
	{"h&1023", 0, 10},
	{"h>>20&4095", 20, 12},
}

// chiSquareZ returns the chi-square statistic of counts against a uniform
// spread, as the z-score of its Wilson–Hilferty normal approximation (the
// cube root of a chi-square over its degrees of freedom is nearly normal).
func chiSquareZ(counts []int, total int) float64 {
	e := float64(total) / float64(len(counts))
	x := 0.0
	for _, c := range counts {
		d := float64(c) - e
		x += d * d / e
	}
	k := float64(len(counts) - 1)
	return (math.Cbrt(x/k) - (1 - 2/(9*k))) / math.Sqrt(2/(9*k))
}

// spreadZ returns, for each of spreadFields, chiSquareZ of the field's
// values over the hashes of stems.
func spreadZ(stems []string, hash func(string) uint64) []float64 {
	z := make([]float64, len(spreadFields))
	for i, f := range spreadFields {
		counts := make([]int, 1<<f.width)
		for _, s := range stems {
			counts[hash(s)>>f.shift&(1<<f.width-1)]++
		}
		z[i] = chiSquareZ(counts, len(stems))
	}
	return z
}

// TestStemHashSpread checks that the fields of the hash the tables read are
// spread evenly over the known stems: a chi-square test per field against
// the uniform spread, failed at z > 4.5 (one-sided p ≈ 3.4e-6). The same
// test must reject a hash that is the stem's first block as it stands
// (short stems leave its top bytes 0), so that it is seen to fail.
func TestStemHashSpread(t *testing.T) {
	const zMax = 4.5
	stems := knownStems(t)
	for i, z := range spreadZ(stems, hashStem[string]) {
		t.Logf("%-10s z = %+.2f", spreadFields[i].name, z)
		if z > zMax {
			t.Errorf("hashStem: field %s is spread unevenly over %d stems: chi-square z = %.2f > %v", spreadFields[i].name, len(stems), z, zMax)
		}
	}
	raw := func(s string) uint64 {
		var b [8]byte
		copy(b[:], s)
		return binary.LittleEndian.Uint64(b[:])
	}
	if z := spreadZ(stems, raw); z[0] <= zMax || z[1] <= zMax {
		t.Errorf("the spread test passes the raw first block: z = %.2f, %.2f", z[0], z[1])
	}
}

// FuzzHashStem holds hashStem to refHashStem on any bytes.
func FuzzHashStem(f *testing.F) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "naïve", "abcdefghijklmnopq"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := refHashStem(b)
		if got := hashStem(b); got != want {
			t.Fatalf("hashStem([]byte %q) = %#x; want %#x", b, got, want)
		}
		if got := hashStem(string(b)); got != want {
			t.Fatalf("hashStem(%q) = %#x; want %#x", b, got, want)
		}
	})
}
