package quant

import (
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
// keys of generalWords in any case, and the currency codes.
func TestPrefilters(t *testing.T) {
	for w := range generalWords {
		for _, v := range []string{w, strings.ToUpper(w), strings.ToUpper(w[:1]) + w[1:]} {
			if !maybeGeneral(v) {
				t.Errorf("maybeGeneral(%q) = false", v)
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
			}
		}
	}
}
