package lexical

import (
	"testing"
	"unicode"
)

// TestRuneTabMatchesUnicode holds the table paths of isWordRune,
// isUpperRune and foldRune (see runeTab) to the unicode package (and
// latinFold) on every rune, those runeTab lacks included, and a few that
// are no runes.
func TestRuneTabMatchesUnicode(t *testing.T) {
	check := func(r rune) {
		t.Helper()
		wantWord := r < 0x80 && ('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') ||
			r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
		if got := isWordRune(r); got != wantWord {
			t.Fatalf("isWordRune(%U) = %v; want %v", r, got, wantWord)
		}
		if got, want := isUpperRune(r), unicode.IsUpper(r); got != want {
			t.Fatalf("isUpperRune(%U) = %v; want %v", r, got, want)
		}
		want := r
		if 'A' <= r && r <= 'Z' {
			want = r + 'a' - 'A'
		} else if r >= 0x80 {
			want = unicode.ToLower(r)
			if f, ok := latinFold[want]; ok && want >= 0xe0 && want <= 0x17f {
				want = f // latinFold's ß (U+00DF) is never used
			}
		}
		if got := foldRune(r); got != want {
			t.Fatalf("foldRune(%U) = %U; want %U", r, got, want)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		check(r)
	}
	for _, r := range []rune{-1, unicode.MaxRune + 1, 1 << 30} {
		check(r)
	}
}

func asciiLower(w string) string {
	b := []byte(w)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// TestIsAbbrevMatchesMap holds isAbbrev to a plain lookup in abbrevs and
// its rules (case ignored, at most five bytes): on every
// token of the development texts, on every abbreviation in every mix of
// cases, with a letter cut off or added, on words with bytes outside
// ASCII and NUL bytes, and on every word of one or two bytes.
func TestIsAbbrevMatchesMap(t *testing.T) {
	check := func(w string) {
		t.Helper()
		want := len(w) <= 5 && abbrevs[asciiLower(w)]
		if got := isAbbrev(w); got != want {
			t.Fatalf("isAbbrev(%q) = %v; want %v", w, got, want)
		}
	}
	for w := range abbrevs {
		for mask := range 1 << len(w) {
			b := []byte(w)
			for i := range b {
				if mask>>i&1 != 0 {
					b[i] -= 'a' - 'A'
				}
			}
			check(string(b))
			check(string(b[:len(b)-1]))
			check(string(b) + "s")
			check(string(b) + "\x00")
			check("\x00" + string(b))
			check(string(b) + "é")
		}
	}
	for _, w := range []string{"", "é", "\xff", "ÉTC", "etc\x00\x00", "abcdefgh"} {
		check(w)
	}
	for b0 := range 256 { // every word of one or two bytes, and a few of three
		check(string([]byte{byte(b0)}))
		for b1 := range 256 {
			check(string([]byte{byte(b0), byte(b1)}))
			check(string([]byte{'e', byte(b0), byte(b1)}))
		}
	}
	short, contexts := devTexts(t)
	var tz tokenizer
	for _, s := range append(short, contexts...) {
		toks, _ := tz.read(nil, s, nil)
		for _, tk := range toks {
			check(s[tk.start:tk.end])
		}
	}
}
