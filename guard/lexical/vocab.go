package lexical

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// vocab.txt holds document frequencies of normalized word stems, counted over
// the unlabeled texts (questions, answers, contexts) of the development data
// (HaluEval, SQuAD 2.0, HotpotQA, TruthfulQA; see testdata/README.md). No
// labels are used. The first line is "#docs N". Refit with
// `go run ./internal/refit`.
//
//go:embed vocab.txt
var vocabText string

// vocabulary maps a stem hash to its inverse document frequency, and holds
// the lexicon table the tokenizer reads each word's flags and weight from:
// every word with flags or an IDF.
type vocabulary struct {
	unknown float64 // IDF of a stem never seen
	docs    int
	tab     lexTable
}

// vocabWord is one line of the vocabulary: a stem's hash and document
// frequency.
type vocabWord struct {
	h  uint64
	df int
}

// build fills the vocabulary's table.
func (v *vocabulary) build(words []vocabWord, lex []lexEntry) {
	v.unknown = idf(0, v.docs)
	v.tab = newLexTable(lex, words, v.docs)
}

// readWords reads the "#docs N" line into v.docs and returns the "stem df"
// lines that follow.
func (v *vocabulary) readWords(text string) ([]vocabWord, error) {
	words := make([]vocabWord, 0, strings.Count(text, "\n"))
	for line := 1; text != ""; line++ {
		var l string
		l, text = cut(text, '\n')
		f0, f1, n := twoFields(strings.TrimSuffix(l, "\r"))
		if n == 0 {
			continue
		}
		if f0 == "#docs" {
			if n != 2 {
				return nil, fmt.Errorf("lexical: vocabulary line %d: want \"#docs N\"", line)
			}
			d, err := strconv.Atoi(f1)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("lexical: vocabulary line %d: bad document count %q", line, f1)
			}
			v.docs = d
			continue
		}
		if v.docs == 0 {
			return nil, fmt.Errorf("lexical: vocabulary line %d: \"#docs N\" must come first", line)
		}
		if n != 2 {
			return nil, fmt.Errorf("lexical: vocabulary line %d: want \"stem df\"", line)
		}
		df, err := strconv.Atoi(f1)
		if err != nil || df < 0 || df > v.docs {
			return nil, fmt.Errorf("lexical: vocabulary line %d: bad document frequency %q", line, f1)
		}
		words = append(words, vocabWord{hashStem(f0), df})
	}
	if v.docs == 0 {
		return nil, fmt.Errorf("lexical: empty vocabulary")
	}
	return words, nil
}

// twoFields returns the first two fields of line as strings.Fields splits
// it, and how many fields it has (3 meaning 3 or more).
func twoFields(line string) (f0, f1 string, n int) {
	for i := 0; i < len(line); i++ {
		if line[i] >= utf8.RuneSelf {
			f := strings.Fields(line)
			f = append(f, "", "")
			return f[0], f[1], min(len(f)-2, 3)
		}
	}
	var fs [2]string
	for line != "" {
		line = strings.TrimLeft(line, asciiSpace)
		if line == "" {
			break
		}
		end := strings.IndexAny(line, asciiSpace)
		if end < 0 {
			end = len(line)
		}
		if n == 2 {
			return fs[0], fs[1], 3
		}
		fs[n] = line[:end]
		n++
		line = line[end:]
	}
	return fs[0], fs[1], n
}

// asciiSpace is the ASCII white space strings.Fields splits on.
const asciiSpace = " \t\n\v\f\r"

// idf is the smoothed inverse document frequency log((N+1)/(df+1)), scaled
// to [0, 1] by the IDF of an unseen word.
func idf(df, n int) float64 {
	return math.Log(float64(n+1)/float64(df+1)) / math.Log(float64(n+1))
}

// lookup returns the flags of the word with stem hash h and its weight: 0
// for a function word, else its IDF (the IDF of an unseen word when the
// vocabulary does not have it).
func (v *vocabulary) lookup(h uint64) (flags uint16, weight float64, canon uint64) {
	if len(v.tab.slots) == 0 {
		// A table without slots reads the lexicon's maps, which have no
		// IDFs.
		loadLexiconMaps()
		flags, canon = wordFlagMap[h], canonOf[h]
		if flags&fStop != 0 {
			return flags, 0, canon
		}
		return flags, v.unknown, canon
	}
	return v.tab.get(h)
}

// weight is the IDF weight of a token, 0 for a function word. Tokens read
// with a vocabulary carry it from the tokenizer; others get it here, on
// first use, and keep it.
func (v *vocabulary) weight(t *token) float64 {
	if t.flags&fWeighed != 0 {
		return t.w
	}
	return v.weigh(t)
}

// weigh looks a token's weight up and records it. It is kept out of line
// so that weight, read in the features' innermost loops, inlines.
//
//go:noinline
func (v *vocabulary) weigh(t *token) float64 {
	_, t.w, _ = v.lookup(t.hash)
	t.flags |= fWeighed
	return t.w
}

// lexTable is an open-addressing hash table from a stem hash to the word's
// flags and weight. It replaces two Go map lookups per token in the
// tokenizer's inner loop. Distinct weights (one per document frequency) are
// stored once and referred to by index.
type lexTable struct {
	slots []lexSlot
	// weights holds the distinct weights: an unseen word's IDF (wUnseen),
	// a function word's 0 (wStop), then the IDFs of document frequencies.
	// A slot's value indexes it, so that a word's weight is one load
	// whatever the word: choosing between the three kinds took branches
	// that function and content words, coming in no pattern, mispredicted
	// for many tokens (tokenizer.lookup took twice the time).
	weights []float64
	// canons holds the distinct bases' hashes a slot's canon indexes
	// (canons[0] is 0: no base), so that a slot takes 16 bytes, four to a
	// cache line: the table is read once per token, mostly from outside the
	// processor's caches.
	canons []uint64
	shift  uint
}

type lexSlot struct {
	key   uint64
	val   uint32 // 0: empty; else lexUsed | flags | the index of the word's weight in weights << lexWeight
	canon uint32 // index in canons of the base's hash for an inflected or derived form (see canonOf), else 0
}

const (
	lexUsed   = 1 << 16
	lexWeight = 17 // val>>lexWeight indexes weights

	// The indexes in weights of the weight of a word without a document
	// frequency and of a function word.
	wUnseen = 0
	wStop   = 1
)

// newLexTable builds the table of the lexicon entries' flags and the IDFs
// of words, computed with docs documents. A form with a base reads as its
// base: the base's hash, flags and IDF.
func newLexTable(lex []lexEntry, words []vocabWord, docs int) lexTable {
	nFlags, nCanon := 0, 0
	for _, e := range lex {
		if e.flags != 0 {
			nFlags++
		}
		if e.canon != 0 {
			nCanon++
		}
	}
	bits := uint(6)
	for 1<<bits < 2*(nFlags+len(words)+nCanon) {
		bits++
	}
	t := lexTable{slots: make([]lexSlot, 1<<bits), shift: 64 - bits}
	t.weights = []float64{wUnseen: idf(0, docs), wStop: 0}
	t.claimHomes(words, docs)
	for _, e := range lex {
		if e.flags != 0 {
			val := uint32(e.flags)
			if e.flags&fStop != 0 {
				val |= wStop << lexWeight
			}
			t.set(e.h, val)
		}
	}
	t.addIDFs(words, docs)
	// The bases' values, read before any form is written over (a base is
	// never a form of another, but the table does not rely on it).
	vals := make([]uint32, 0, nCanon)
	for _, e := range lex {
		if e.canon != 0 {
			vals = append(vals, t.value(e.canon))
		}
	}
	t.canons = []uint64{0}
	index := make(map[uint64]uint32, nCanon/2)
	for _, e := range lex {
		if e.canon != 0 {
			k, ok := index[e.canon]
			if !ok {
				k = uint32(len(t.canons))
				t.canons = append(t.canons, e.canon)
				index[e.canon] = k
			}
			sl := &t.slots[t.set(e.h, 0)]
			sl.val, sl.canon = vals[0]|lexUsed, k
			vals = vals[1:]
		}
	}
	return t
}

// claimHomes adds the homeWords words of highest document frequency to the
// table, without values, most frequent first (ties in the order of the
// lines). With linear probing a key takes the first free slot from its
// home, so the keys added first are the ones found at their home slot, in
// one read: the words running text is mostly made of. The table reads the
// same whatever the order; only where the keys sit changes.
func (t *lexTable) claimHomes(words []vocabWord, docs int) {
	// A counting sort on the document frequency: at[docs-df] is, after
	// the sums, the place in order of the first word of frequency df.
	at := make([]int32, docs+2)
	for _, w := range words {
		at[docs-w.df+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	order := make([]int32, len(words))
	for i, w := range words {
		k := &at[docs-w.df]
		order[*k] = int32(i)
		*k++
	}
	for _, i := range order[:min(homeWords, len(order))] {
		t.set(words[i].h, 0)
	}
}

// homeWords is the number of words claimHomes places: the 2,048 most
// frequent words are most of a text's tokens, and each one more placed is
// a read from a table of megabytes while the guard is built (on the
// development HotpotQA rows, probes a row: 1,327 with none placed, 1,192
// with 2,048, 1,149 with all 13,100).
const homeWords = 2048

// addIDFs makes the IDF of each word its weight, but a function word's (0),
// the last line winning for a word listed twice. Distinct IDF values (one
// per document frequency) are stored once, in order of first use.
func (t *lexTable) addIDFs(words []vocabWord, docs int) {
	if len(words) == 0 {
		return
	}
	index := make([]int32, docs+1) // document frequency → index in weights, 0 for none yet
	for _, w := range words {
		k := index[w.df]
		if k == 0 {
			k = int32(len(t.weights))
			t.weights = append(t.weights, idf(w.df, docs))
			index[w.df] = k
		}
		sl := &t.slots[t.set(w.h, 0)]
		if sl.val&uint32(fStop) == 0 {
			sl.val = sl.val&(1<<lexWeight-1) | uint32(k)<<lexWeight
		}
	}
	if len(t.weights) > 1<<(32-lexWeight) {
		panic("lexical: too many distinct IDF values")
	}
}

// set adds h's slot if it has none, ORs val into its value, and returns
// the slot's index.
func (t *lexTable) set(h uint64, val uint32) int {
	mask := len(t.slots) - 1
	j := t.slot(h)
	for t.slots[j].val != 0 && t.slots[j].key != h {
		j = (j + 1) & mask
	}
	t.slots[j].key = h
	t.slots[j].val |= val | lexUsed
	return j
}

// value returns the value of h's slot without the lexUsed bit, 0 when h
// has none.
func (t *lexTable) value(h uint64) uint32 {
	mask := len(t.slots) - 1
	for j := t.slot(h); t.slots[j].val != 0; j = (j + 1) & mask {
		if t.slots[j].key == h {
			return t.slots[j].val &^ lexUsed
		}
	}
	return 0
}

func (t *lexTable) slot(h uint64) int { return int((h * 0x9e3779b97f4a7c15) >> t.shift) }

// get returns the flags, the weight and the canonical hash (0 for none)
// of h. The table has slots.
func (t *lexTable) get(h uint64) (flags uint16, weight float64, canon uint64) {
	val, c := t.find(h)
	return uint16(val), t.weights[val>>lexWeight], t.canons[c]
}

// find returns the value and the canon index of h's slot, both 0 when h
// has none. The table has slots.
func (t *lexTable) find(h uint64) (val, canon uint32) { return findSlot(t.slots, t.shift, h) }

// findSlot is find on a table's slots and shift, for loops that keep them
// in registers. An empty slot's key is 0, so a key of 0 finds an empty
// slot, and the same zeros.
func findSlot(slots []lexSlot, shift uint, h uint64) (val, canon uint32) {
	mask := len(slots) - 1
	for j := int(h*0x9e3779b97f4a7c15>>(shift&63)) & mask; ; j = (j + 1) & mask {
		s := &slots[j]
		if s.key == h || s.val == 0 {
			return s.val, s.canon
		}
	}
}

// defaultVocab is the embedded vocabulary; loadLexicon sets it.
var defaultVocab *vocabulary

// Stems returns the normalized stems of the words of text, in order, as the
// judges see them (lower-cased, accents folded, light suffix stripping).
// Function words are included. It is meant for offline tools, such as the one
// that counts the vocabulary; judges never call it.
func Stems(text string) []string {
	loadLexicon()
	loadLexiconMaps()
	tz := tokenizer{keep: true}
	tz.tokenize(nil, text, nil)
	return tz.stems
}
