package cascade

import (
	"crypto/sha256"
	"strings"
	"testing"
	"unicode"
)

// naiveNormalize is the reference for hasher.text: trim, and turn each run
// of white space (and NUL) into one space.
func naiveNormalize(s string) string {
	f := strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == 0 })
	return strings.Join(f, " ")
}

func textDigest(s string) [32]byte {
	h := &hasher{h: sha256.New()}
	h.text('t', s)
	return h.sum()
}

func wantDigest(s string) [32]byte {
	return sha256.Sum256([]byte("t" + naiveNormalize(s) + "\x00"))
}

func TestTextNormalization(t *testing.T) {
	cases := []string{"", " ", "a", " a ", "a  b", "a\tb\n\nc", "x\u00a0y", "é  ü", "a\x00b", "a \u2003 b ", strings.Repeat("word ", 3000) + " end", "\xff \xfe"}
	for _, c := range cases {
		if textDigest(c) != wantDigest(c) {
			t.Errorf("text(%q) differs from the reference normalization %q", c, naiveNormalize(c))
		}
	}
}

func FuzzTextNormalization(f *testing.F) {
	f.Add("a  b\n c")
	f.Add("\u00a0x\u2003")
	f.Fuzz(func(t *testing.T, s string) {
		if textDigest(s) != wantDigest(s) {
			t.Fatalf("text(%q) differs from the reference normalization %q", s, naiveNormalize(s))
		}
	})
}
