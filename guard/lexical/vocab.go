package lexical

import (
	"bufio"
	_ "embed"
	"fmt"
	"math"
	"strconv"
	"strings"
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
// the lexicon tables the tokenizer reads each word's flags and weight from:
// tab has every word with flags or an IDF; flags, much smaller, only the
// words with flags, for texts whose weights are rarely needed (contexts).
type vocabulary struct {
	unknown float64 // IDF of a stem never seen
	docs    int
	tab     lexTable
	flags   lexTable
}

func parseVocab(text string) (*vocabulary, error) {
	v := &vocabulary{}
	idfs := map[uint64]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if f[0] == "#docs" {
			if len(f) != 2 {
				return nil, fmt.Errorf("lexical: vocabulary line %d: want \"#docs N\"", line)
			}
			n, err := strconv.Atoi(f[1])
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("lexical: vocabulary line %d: bad document count %q", line, f[1])
			}
			v.docs = n
			continue
		}
		if v.docs == 0 {
			return nil, fmt.Errorf("lexical: vocabulary line %d: \"#docs N\" must come first", line)
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("lexical: vocabulary line %d: want \"stem df\"", line)
		}
		df, err := strconv.Atoi(f[1])
		if err != nil || df < 0 || df > v.docs {
			return nil, fmt.Errorf("lexical: vocabulary line %d: bad document frequency %q", line, f[1])
		}
		idfs[hashString(f[0])] = idf(df, v.docs)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if v.docs == 0 {
		return nil, fmt.Errorf("lexical: empty vocabulary")
	}
	v.unknown = idf(0, v.docs)
	v.tab = newLexTable(wordFlagMap, idfs, canonOf)
	// Context tokens need no synonym flag (synonyms are looked up for the
	// question's and the answer's words only): the table they read is kept
	// small.
	ctxFlags := make(map[uint64]uint16, len(wordFlagMap))
	for h, f := range wordFlagMap {
		if f &^= fSynSet; f != 0 {
			ctxFlags[h] = f
		}
	}
	v.flags = newLexTable(ctxFlags, nil, canonOf)
	return v, nil
}

// idf is the smoothed inverse document frequency log((N+1)/(df+1)), scaled
// to [0, 1] by the IDF of an unseen word.
func idf(df, n int) float64 {
	return math.Log(float64(n+1)/float64(df+1)) / math.Log(float64(n+1))
}

// lookup returns the flags of the word with stem hash h and its weight: 0
// for a function word, else its IDF (the IDF of an unseen word when the
// vocabulary does not have it).
func (v *vocabulary) lookup(h uint64) (flags uint16, weight float64, canon uint64) {
	flags, w, known, canon := v.tab.get(h)
	switch {
	case flags&fStop != 0:
		return flags, 0, canon
	case known:
		return flags, w, canon
	}
	return flags, v.unknown, canon
}

// weight is the IDF weight of a token, 0 for a function word. Tokens of
// the question, answer and reference carry it from the tokenizer; context
// tokens get it here, on first use, and keep it.
func (v *vocabulary) weight(t *token) float64 {
	if t.flags&fWeighed != 0 {
		return t.w
	}
	return v.weigh(t)
}

// weigh looks a token's weight up and records it.
func (v *vocabulary) weigh(t *token) float64 {
	_, t.w, _ = v.lookup(t.hash)
	t.flags |= fWeighed
	return t.w
}

// lexTable is an open-addressing hash table from a stem hash to the word's
// flags and IDF. It replaces two Go map lookups per token in the tokenizer's
// inner loop. Distinct IDF values (one per document frequency) are stored
// once and referred to by index.
type lexTable struct {
	slots []lexSlot
	idfs  []float64
	shift uint
	// bloom has bit h>>46 set for every key h: a clear bit proves a word
	// absent without touching the slots (most context words are absent
	// from the flags-only table).
	bloom [1 << 18 / 64]uint64
}

type lexSlot struct {
	key   uint64
	canon uint64 // the base's hash for an inflected or derived form (see canonOf), else 0
	val   uint32 // 0: empty; else lexUsed | flags, lexKnown and the IDF index above bit 17
}

const (
	lexUsed  = 1 << 16
	lexKnown = 1 << 17
)

func newLexTable(flags map[uint64]uint16, idfs map[uint64]float64, canon map[uint64]uint64) lexTable {
	n := len(flags) + len(idfs) + len(canon)
	bits := uint(6)
	for 1<<bits < 2*n {
		bits++
	}
	t := lexTable{slots: make([]lexSlot, 1<<bits), shift: 64 - bits}
	mask := len(t.slots) - 1
	index := map[float64]uint32{}
	set := func(h uint64, val uint32) {
		j := t.slot(h)
		for t.slots[j].val != 0 && t.slots[j].key != h {
			j = (j + 1) & mask
		}
		t.slots[j].key = h
		t.slots[j].val |= val | lexUsed
		t.bloom[h>>52] |= 1 << (h >> 46 & 63)
	}
	for h, f := range flags {
		set(h, uint32(f))
	}
	idfIndex := func(w float64) uint32 {
		k, ok := index[w]
		if !ok {
			k = uint32(len(t.idfs))
			index[w] = k
			t.idfs = append(t.idfs, w)
		}
		return k
	}
	for h, w := range idfs {
		set(h, lexKnown|idfIndex(w)<<18)
	}
	// An inflected or derived form reads as its base: the base's hash,
	// flags and IDF.
	for h, c := range canon {
		val := uint32(flags[c])
		if idfs != nil {
			if w, ok := idfs[c]; ok {
				val |= lexKnown | idfIndex(w)<<18
			}
		}
		set(h, 0)
		sl := &t.slots[t.find(h)]
		sl.val, sl.canon = val|lexUsed, c
	}
	if len(t.idfs) >= 1<<14 {
		panic("lexical: too many distinct IDF values")
	}
	return t
}

func (t *lexTable) slot(h uint64) int { return int((h * 0x9e3779b97f4a7c15) >> t.shift) }

// find returns the index of h's slot, which must exist.
func (t *lexTable) find(h uint64) int {
	mask := len(t.slots) - 1
	j := t.slot(h)
	for t.slots[j].key != h {
		j = (j + 1) & mask
	}
	return j
}

func (t *lexTable) get(h uint64) (flags uint16, idf float64, known bool, canon uint64) {
	if len(t.slots) == 0 {
		return wordFlagMap[h], 0, false, canonOf[h]
	}
	if t.bloom[h>>52]&(1<<(h>>46&63)) == 0 {
		return 0, 0, false, 0
	}
	mask := len(t.slots) - 1
	for j := t.slot(h); ; j = (j + 1) & mask {
		s := &t.slots[j]
		if s.val == 0 {
			return 0, 0, false, 0
		}
		if s.key == h {
			if s.val&lexKnown != 0 {
				return uint16(s.val), t.idfs[s.val>>18], true, s.canon
			}
			return uint16(s.val), 0, false, s.canon
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
	tz := tokenizer{keep: true}
	tz.tokenize(nil, text, nil)
	return tz.stems
}
