package wordnet

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestBase(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{"wrote", "write"},
		{"written", "write"},
		{"writes", "write"},
		{"writing", "write"},
		{"write", "write"},
		{"writer", "write"},
		{"won", "win"},
		{"winning", "win"},
		{"children", "child"},
		{"child", "child"},
		{"mice", "mouse"},
		{"refundable", "refund"},
		{"refunded", "refund"},
		{"refund", "refund"},
		{"bought", "buy"},
		{"sold", "sell"},
		{"ran", "run"},
		{"running", "run"},
		{"government", "govern"},
		{"governments", "govern"},
		{"payment", "pay"},
		{"paid", "pay"},
		{"went", "go"},
		{"found", "find"},
		{"thought", "think"},
		{"data", "data"}, // the plural of datum, but a lemma of its own and far more frequent
		{"larger", "large"},
		{"bigger", "big"},
		{"Children", "child"},     // looked up lower-cased
		{"increased", "increase"}, // participial adjective
		{"limited", "limit"},
		{"quickly", "quick"},   // adverb derived from an adjective
		{"amazingly", "amaze"}, // through the participle amazing
		{"laid", "lay"},
		{"lay", "lay"}, // a verb of its own, not folded into lie
		{"lying", "lie"},
		{"ground", "ground"}, // the earth, not a form of grind
		{"left", "leave"},
	} {
		got, ok := Base(tc.word)
		if !ok || got != tc.want {
			t.Errorf("Base(%q) = %q, %v; want %q, true", tc.word, got, ok, tc.want)
		}
	}
}

func TestBaseSkipsSuppletive(t *testing.T) {
	for _, tc := range []struct{ word, not string }{
		{"better", "good"}, {"best", "good"}, {"worse", "bad"}, {"further", "far"},
	} {
		if got, _ := Base(tc.word); got == tc.not {
			t.Errorf("Base(%q) = %q: suppletive comparatives must not be mapped", tc.word, got)
		}
	}
}

func TestNoEntry(t *testing.T) {
	for _, w := range []string{"", "xyzzyq", "qwertyuiop", "ragtriage", "a", "refund able", "write_off", "x-ray", "42"} {
		if b, ok := Base(w); ok {
			t.Errorf("Base(%q) = %q, true; want no entry", w, b)
		}
		if s := Synonyms(w); s != nil {
			t.Errorf("Synonyms(%q) = %q; want nil", w, s)
		}
		if a := Antonyms(w); a != nil {
			t.Errorf("Antonyms(%q) = %q; want nil", w, a)
		}
	}
}

func TestAntonyms(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{"increase", "decrease"},
		{"increased", "decrease"},
		{"decrease", "increase"},
		{"allow", "disallow"},
		{"allowed", "disallow"},
		{"early", "late"},
		{"late", "early"},
		{"north", "south"},
		{"win", "lose"},
		{"won", "lose"},
		{"lose", "win"},
		{"buy", "sell"},
		{"bought", "sell"},
		{"big", "small"},
		{"large", "small"},
		{"child", "parent"},
		{"true", "false"},
		{"legal", "illegal"},
		{"payment", "nonpayment"},
	} {
		if got := Antonyms(tc.word); !slices.Contains(got, tc.want) {
			t.Errorf("Antonyms(%q) = %q; want it to contain %q", tc.word, got, tc.want)
		}
	}
	// refundable has no antonym in WordNet (nor has refund); whatever it gets
	// must not be a word of the same class.
	for _, a := range Antonyms("refundable") {
		if b, _ := Base(a); b == "refund" {
			t.Errorf("Antonyms(refundable) contains %q, whose base is refund", a)
		}
	}
}

func TestSynonyms(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{"purchase", "buy"},
		{"buy", "purchase"},
		{"big", "large"},
		{"large", "big"},
		{"automobile", "car"},
		{"physician", "doctor"},
	} {
		if got := Synonyms(tc.word); !slices.Contains(got, tc.want) {
			t.Errorf("Synonyms(%q) = %q; want it to contain %q", tc.word, got, tc.want)
		}
	}
	if s := Synonyms("refundable"); s != nil {
		t.Errorf("Synonyms(refundable) = %q; a synthesised -able form has none", s)
	}
}

func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// TestEachInvariants checks every entry: single lower-case words only, Each
// agrees with the lookups, Len counts what Each visits, lists are short and
// never contain the word itself, and bases are stable (no chains: the base of
// a base is itself).
func TestEachInvariants(t *testing.T) {
	n := 0
	seen := map[string]bool{}
	Each(func(word, base string, syns, ants []string) {
		n++
		if seen[word] {
			t.Errorf("Each visits %q twice", word)
		}
		seen[word] = true
		if !isWord(word) || !isWord(base) {
			t.Errorf("entry %q → %q: not a lower-case single word", word, base)
		}
		if b, ok := Base(word); !ok || b != base {
			t.Errorf("Base(%q) = %q, %v; Each says %q", word, b, ok, base)
		}
		if bb, ok := Base(base); !ok || bb != base {
			t.Errorf("Base(%q) = %q, but Base(Base(%q)) = %q, %v", word, base, word, bb, ok)
		}
		if !slices.Equal(Synonyms(word), syns) || !slices.Equal(Antonyms(word), ants) {
			t.Errorf("Each(%q) lists differ from Synonyms/Antonyms", word)
		}
		if len(syns) > 8 || len(ants) > 8 {
			t.Errorf("%q: %d synonyms, %d antonyms; want at most 8 each", word, len(syns), len(ants))
		}
		for _, l := range [][]string{syns, ants} {
			for _, w := range l {
				if w == word || !isWord(w) {
					t.Errorf("%q lists %q", word, w)
				}
			}
		}
	})
	if n != Len() {
		t.Errorf("Each visited %d entries, Len() = %d", n, Len())
	}
	if n < 50000 {
		t.Errorf("only %d entries", n)
	}
}

func TestSharedSlicesAreCapped(t *testing.T) {
	s := Synonyms("big")
	if len(s) == 0 {
		t.Fatal("no synonyms for big")
	}
	if cap(s) != len(s) {
		t.Errorf("Synonyms returns a slice with spare capacity: an append would overwrite the next list")
	}
}

const dictDir = "/usr/share/wordnet"

// TestGeneratedUpToDate regenerates the table from the WordNet database, when
// it is installed (apt-get install wordnet-base), and compares it with the
// embedded one. The comparison is of the text, not the gzip bytes, which
// depend on the Go version's compressor.
func TestGeneratedUpToDate(t *testing.T) {
	if _, err := os.Stat(filepath.Join(dictDir, "data.noun")); err != nil {
		t.Skip("WordNet database not installed at " + dictDir)
	}
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found")
	}
	out := filepath.Join(t.TempDir(), "wordnet.txt")
	cmd := exec.Command(goTool, "run", "./gen", "-dict", dictDir, "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(compressed))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("wordnet.txt.gz is stale (%d bytes of text, generator writes %d): regenerate it with\n"+
			"  go run ./guard/lexical/internal/wordnet/gen -dict %s -out guard/lexical/internal/wordnet/wordnet.txt.gz",
			len(got), len(want), dictDir)
	}
}

func TestParseMalformed(t *testing.T) {
	// parseText must not panic on odd lines.
	tb := parseText("# c\n\nalone\nx 9abc 0s +0y\t\t\t\nfoo\tbar\n")
	if r, ok := tb.index["abc"]; !ok || tb.recs[r].base != "x" {
		t.Errorf("relative form with an over-long drop: %v %v", r, ok)
	}
	if _, ok := tb.index["xs"]; !ok {
		t.Error("xs missing")
	}
	if r, ok := tb.index["xy"]; !ok || r&able == 0 {
		t.Error("+xy missing or not marked")
	}
	if r, ok := tb.index["foo"]; !ok || tb.recs[r].base != "bar" {
		t.Error("foo missing")
	}
}

func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(compressed)))
	for b.Loop() {
		if _, err := parse(compressed); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBase(b *testing.B) {
	words := []string{"written", "government", "refundable", "the", "xyzzy", "children", "Children", "purchases"}
	get()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		Base(words[i%len(words)])
	}
}
