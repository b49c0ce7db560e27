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
