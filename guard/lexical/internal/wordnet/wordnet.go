package wordnet

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

//go:embed wordnet.txt.gz
var compressed []byte

// record is one line of the table: the base shared by its forms, and its
// synonyms and antonyms as a span of table.words.
type record struct {
	base       string
	off        int32
	nSyn, nAnt uint8
}

// able marks a key that is a synthesised "-able" adjective of its record's
// verb: it shares the record's base and antonyms but has no synonyms.
const able = 1 << 31

type table struct {
	recs  []record
	words []string          // synonym and antonym lists, back to back
	keys  []string          // every key, in table order
	kref  []uint32          // record index of keys[i], with the able bit
	index map[string]uint32 // key → record index, with the able bit
}

var (
	loadOnce sync.Once
	tab      *table
)

func get() *table {
	loadOnce.Do(func() {
		t, err := parse(compressed)
		if err != nil {
			panic("wordnet: embedded table: " + err.Error())
		}
		tab = t
	})
	return tab
}

// parse reads the gzip-compressed table (format: see gen/main.go).
func parse(gz []byte) (*table, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	// The gzip trailer holds the text's size (mod 2³²): read it in one go.
	n := 0
	if len(gz) >= 4 {
		n = int(binary.LittleEndian.Uint32(gz[len(gz)-4:]))
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+bytes.MinRead))
	if _, err := buf.ReadFrom(zr); err != nil {
		return nil, err
	}
	if err := zr.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	if len(raw) == 0 {
		return parseText(""), nil
	}
	// raw is never written again: the table's strings point into it.
	return parseText(unsafe.String(&raw[0], len(raw))), nil
}

// parseText builds the table from its text form. Keys spelled in full and all
// bases and word lists are substrings of text; keys spelled relative to their
// lemma ("0s", "1ten") are built in arena chunks that are never written over.
func parseText(text string) *table {
	t := newTable(text)
	var ar arena
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if line == "" || line[0] == '#' {
			continue
		}
		t.addLine(line, &ar)
	}
	// The generator writes each key once; were one repeated, the first would
	// win (hence the reverse order).
	t.index = make(map[string]uint32, len(t.keys))
	for i := len(t.keys) - 1; i >= 0; i-- {
		t.index[t.keys[i]] = t.kref[i]
	}
	return t
}

// newTable returns an empty table with room for the table text. The
// generator's "#! keys=K words=W" line sizes the slices; without it, every
// key and listed word but the first of a line follows a space.
func newTable(text string) *table {
	nLines := strings.Count(text, "\n")
	nKeys, nWords := headerCounts(text)
	if nKeys <= 0 || nWords <= 0 {
		nKeys = nLines + strings.Count(text, " ")
		nWords = nKeys
	}
	return &table{
		recs:  make([]record, 0, nLines),
		words: make([]string, 0, nWords),
		keys:  make([]string, 0, nKeys),
		kref:  make([]uint32, 0, nKeys),
	}
}

// addLine adds the record of one line of the table: its keys (the lemma,
// then its forms, "+" marking an "-able" form), its base (the lemma when
// empty), its synonyms and its antonyms.
func (t *table) addLine(line string, ar *arena) {
	forms, rest := cut(line, '\t')
	base, rest := cut(rest, '\t')
	syns, ants := cut(rest, '\t')
	ri := uint32(len(t.recs))
	r := record{off: int32(len(t.words))}
	lemma, forms := cut(forms, ' ')
	if base == "" {
		base = lemma
	}
	r.base = base
	t.keys = append(t.keys, lemma)
	t.kref = append(t.kref, ri)
	for forms != "" {
		var f string
		f, forms = cut(forms, ' ')
		ref := ri
		if f != "" && f[0] == '+' {
			ref |= able
			f = f[1:]
		}
		if f != "" && '0' <= f[0] && f[0] <= '9' {
			f = ar.spell(lemma, f)
		}
		t.keys = append(t.keys, f)
		t.kref = append(t.kref, ref)
	}
	n := len(t.words)
	t.words = appendFields(t.words, syns)
	r.nSyn = uint8(len(t.words) - n)
	n = len(t.words)
	t.words = appendFields(t.words, ants)
	r.nAnt = uint8(len(t.words) - n)
	t.recs = append(t.recs, r)
}

// arena holds the keys spelled relative to their lemma, in chunks that
// never grow in place: bytes once written stay.
type arena struct{ buf []byte }

// spell returns the key f spells relative to lemma: a digit d, then the
// letters that replace the lemma's last d ("0s" after "cat" is "cats",
// "1ten" after "write" is "written").
func (ar *arena) spell(lemma, f string) string {
	keep := len(lemma) - int(f[0]-'0')
	if keep < 0 {
		keep = 0
	}
	n := keep + len(f) - 1
	if len(ar.buf)+n > cap(ar.buf) {
		ar.buf = make([]byte, 0, max(arenaChunk, n))
	}
	off := len(ar.buf)
	ar.buf = append(ar.buf, lemma[:keep]...)
	ar.buf = append(ar.buf, f[1:]...)
	if n == 0 {
		return ""
	}
	return unsafe.String(&ar.buf[off], n)
}

const arenaChunk = 64 << 10

// cut is strings.Cut for a one-byte separator.
func cut(s string, sep byte) (before, after string) {
	if i := strings.IndexByte(s, sep); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// headerCounts reads the "#! keys=K words=W" line at the top of the table.
func headerCounts(text string) (keys, words int) {
	for text != "" && text[0] == '#' {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if !strings.HasPrefix(line, "#!") {
			continue
		}
		for _, f := range strings.Fields(line[2:]) {
			k, v, _ := strings.Cut(f, "=")
			n, err := strconv.Atoi(v)
			if err != nil {
				continue
			}
			switch k {
			case "keys":
				keys = n
			case "words":
				words = n
			}
		}
	}
	return keys, words
}

func appendFields(dst []string, s string) []string {
	for s != "" {
		var w string
		w, s = cut(s, ' ')
		if w != "" {
			dst = append(dst, w)
		}
	}
	return dst
}

func (t *table) lookup(word string) (ref uint32, ok bool) {
	ref, ok = t.index[word]
	if !ok && hasUpper(word) {
		ref, ok = t.index[strings.ToLower(word)]
	}
	return ref, ok
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

func (t *table) syns(ref uint32) []string {
	if ref&able != 0 {
		return nil
	}
	r := &t.recs[ref]
	if r.nSyn == 0 {
		return nil
	}
	i, j := int(r.off), int(r.off)+int(r.nSyn)
	return t.words[i:j:j]
}

func (t *table) ants(ref uint32) []string {
	r := &t.recs[ref&^able]
	if r.nAnt == 0 {
		return nil
	}
	i := int(r.off) + int(r.nSyn)
	j := i + int(r.nAnt)
	return t.words[i:j:j]
}

// Base returns the canonical base form of a lower-case English word form
// (ASCII letters; a word with capitals is looked up lower-cased). The base
// undoes irregular inflections (wrote, written → write; won → win; children
// → child; mice → mouse), regular ones (refunds → refund), and one
// derivational step to a shorter WordNet derivationally related form or
// pertainym that shares its first four letters, or all of its own if it is
// shorter (government → govern, writer → write, payment → pay, refundable →
// refund). Bases are stable: Base(Base(w)) == Base(w) for every entry.
// Suppletive comparatives (better, worse, further) are not mapped.
// ok is false when the word has no entry; the caller then uses its own
// stemmer.
func Base(word string) (base string, ok bool) {
	t := get()
	ref, ok := t.lookup(word)
	if !ok {
		return "", false
	}
	return t.recs[ref&^able].base, true
}

// Synonyms returns single-word lemmas that share a synset with one of the
// word's one or two most frequent senses (by SemCor count, then WordNet's
// sense order; the second sense only when it is frequent too), words attested
// in SemCor first, at most 8, not including the word itself. An inflected form
// gets the synonyms of its lemma ("bought" those of "buy"). The result is
// shared: do not modify it. Nil when there are none or the word has no entry.
func Synonyms(word string) []string {
	t := get()
	ref, ok := t.lookup(word)
	if !ok {
		return nil
	}
	return t.syns(ref)
}

// Antonyms returns the direct (lexical) antonyms of the word's lemma over all
// its senses, most frequent sense first, followed by those of its Base, at
// most 8 single words. The result is shared: do not modify it. Nil when there
// are none or the word has no entry.
func Antonyms(word string) []string {
	t := get()
	ref, ok := t.lookup(word)
	if !ok {
		return nil
	}
	return t.ants(ref)
}

// Each calls fn for every entry, lemmas in alphabetical order each followed
// by its other forms, with the values Base, Synonyms and Antonyms return for
// it. The slices are shared and read-only: fn must not modify them.
func Each(fn func(word string, base string, synonyms, antonyms []string)) {
	t := get()
	for i, k := range t.keys {
		ref := t.kref[i]
		fn(k, t.recs[ref&^able].base, t.syns(ref), t.ants(ref))
	}
}

// Len returns the number of entries (distinct surface forms).
func Len() int { return len(get().index) }

// Scan is Each over a table parsed for this call alone and dropped when it
// returns: for a caller that builds tables of its own once and needs none of
// this package's lookups afterwards, it leaves nothing in memory (Each keeps
// the parsed table, about 10 MB, for Base, Synonyms and Antonyms).
func Scan(fn func(word string, base string, synonyms, antonyms []string)) {
	t, err := parse(compressed)
	if err != nil {
		panic("wordnet: embedded table: " + err.Error())
	}
	for i, k := range t.keys {
		ref := t.kref[i]
		fn(k, t.recs[ref&^able].base, t.syns(ref), t.ants(ref))
	}
}
