// Command gen derives the embedded lexical table of package wordnet from the
// WordNet 3.0 database files (index.*, data.*, *.exc, cntlist.rev), as
// installed by Debian's wordnet-base package under /usr/share/wordnet. From
// the module root:
//
//	go run ./guard/lexical/internal/wordnet/gen -dict /usr/share/wordnet -out guard/lexical/internal/wordnet/wordnet.txt.gz
//
// -out with a name not ending in .gz writes the plain text (for reading and
// diffing); without -out the plain text goes to standard output. Statistics
// go to standard error; -explain also lists the lemmas folded into another.
// The output is a function of the input files only (maps are never iterated
// unsorted), so two runs write the same bytes.
//
// # What the table holds
//
// Only single words of lower-case ASCII letters, the only tokens the lexical
// tokenizer can look up; multi-word, hyphenated and one-letter lemmas are
// left out. For each lemma kept:
//
//   - Its surface forms: irregular forms from the .exc files (adjective and
//     adverb ones only when built on the lemma: bigger, not better/good),
//     regular inflections made by inverting WordNet's morphy rules (nouns
//     -s/-es/-ies/-men; verbs -s/-es/-ies, -ed/-d/-ied, -ing; comparatives of
//     short attested adjectives), each slot the exception list fills
//     skipped; lemmas that are mostly an inflection of another lemma (see
//     dominance); and "-able" adjectives synthesised for attested verbs not
//     in WordNet (refundable).
//   - Its base: one step to a shorter lemma that is a derivationally related
//     form ("+") or pertainym/derived-from ("\") of one of its senses and
//     shares its first four letters, or all of its own if it has at least
//     three (government → govern, writer → write, quickly → quick); for a
//     participial adjective (increased, limited), its verb. The target must
//     be its own base, so there are no chains; the base of a regular
//     participle carries over to words derived from it (amazingly → amaze)
//     as the inflectional step does (written → write). See mainSenses for
//     the senses that may not give a base.
//   - Synonyms: the single-word lemmas of its one or two most frequent senses
//     (SemCor counts, then WordNet's sense order), SemCor-attested words
//     first, without vague words, at most maxSyn.
//   - Antonyms: the direct ("!") antonyms of all its senses, most frequent
//     first, then those of its base, at most maxAnt.
//
// Records that would tell a caller nothing its own light stemmer does not (a
// lemma that is its own base, with regular inflections only, no synonym and
// no antonym, and no other word's base) are left out.
//
// # Output format
//
// Comment lines start with "#"; the line "#! keys=K words=W" gives the
// number of keys and of listed synonyms and antonyms, so that a reader can
// size its tables. Then one line per record, sorted by lemma, four
// tab-separated fields:
//
//	forms <TAB> base <TAB> synonyms <TAB> antonyms
//
// forms is a space-separated list of surface forms, the record's lemma first.
// A form "<n><suffix>" (a digit, then letters) is the lemma less its last n
// letters plus suffix: on the line of "write", "0s" is writes, "1ten"
// written, "3ote" wrote. A form prefixed with "+" is a synthesised "-able"
// adjective ("+0able" on the line of "refund" is refundable): it shares the
// record's base and antonyms but has no synonyms. base is the base of every
// form on the line, empty when it is the lemma itself. synonyms and antonyms
// are space-separated words, either possibly empty. Every key appears once.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Tuning knobs. Changing one changes the output; regenerate and commit both.
const (
	// dominance: a lemma that is also an irregular inflection of another
	// lemma (the noun "won", the verb "found", the adjective "left") is
	// folded into that lemma when the other lemma's SemCor count (in the
	// inflection's part of speech) exceeds dominance times the form's own
	// count over all parts of speech, and is at least minDominant. A lemma
	// that is a regular inflection in its own part of speech (the adjective
	// "larger", the noun "goods") is folded when the other lemma's count
	// exceeds the form's count in that part of speech.
	dominance   = 5
	minDominant = 3
	// maxSyn and maxAnt cap the synonym and antonym lists.
	maxSyn = 8
	maxAnt = 8
	// synSenses is how many senses (most frequent first) give synonyms; the
	// second one counts only when its SemCor count is at least 1/secondRatio
	// of the first's.
	synSenses   = 2
	secondRatio = 4
	// maxSynSenses: a word with more senses than this is no one's synonym.
	maxSynSenses = 20
	// maxAdjInflect: regular comparatives (-er, -est) are generated only for
	// adjectives this short; longer ones take more/most.
	maxAdjInflect = 6
	// vetoCount: see mainSenses.
	vetoCount = 5
)

var explain bool

var posOrder = []byte{'n', 'v', 'a', 'r'}

var posFile = map[byte]string{'n': "noun", 'v': "verb", 'a': "adj", 'r': "adv"}

// ssDigit is the synset type digit of a sense key.
var ssDigit = map[byte]byte{'n': '1', 'v': '2', 'a': '3', 'r': '4', 's': '5'}

type pointer struct {
	sym      string
	pos      byte // n v a r (satellites folded into a)
	off      int
	src, dst int // 1-based word numbers, 0 for a semantic pointer
}

type synset struct {
	pos     byte // n v a r
	ssType  byte // n v a s r
	lexFile int
	words   []string // lower-case, adjective markers stripped
	capital []bool   // the word is spelled with a capital in this synset
	lexIDs  []int
	ptrs    []pointer
}

type sense struct {
	pos   byte
	rank  int // 0-based position in the index file (frequency order)
	ss    *synset
	count int // SemCor tag count
}

type cand struct {
	lemma string
	pos   byte
	exc   bool // from an exception list (else a regular inflection)
}

type db struct {
	synsets map[byte]map[int]*synset
	// index: lemma → pos → synset offsets in sense order (single-word
	// lower-case ASCII lemmas only).
	index map[string]map[byte][]int
	// senseCount: "lemma%ss:lexfile:lexid" → SemCor count.
	senseCount map[string]int
	posCount   map[string]map[byte]int
	// exc: pos → form → lemmas.
	exc map[byte]map[string][]string
	// common: the word is spelled in lower case in some synset (else it is
	// a proper name: Paris, Nederland).
	common map[string]bool
}

func main() {
	dict := flag.String("dict", "/usr/share/wordnet", "WordNet 3.0 dict directory")
	out := flag.String("out", "", "output file, gzip-compressed when the name ends in .gz (default: plain text to stdout)")
	flag.BoolVar(&explain, "explain", false, "print the lemmas folded into another lemma to stderr")
	flag.Parse()
	var buf bytes.Buffer
	stats, err := generate(*dict, &buf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	data := buf.Bytes()
	if strings.HasSuffix(*out, ".gz") {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression) // the header has no name and no time
		zw.Write(data)
		if err := zw.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		data = z.Bytes()
	}
	if *out == "" {
		os.Stdout.Write(data)
	} else if err := os.WriteFile(*out, data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, stats)
}

// isWord reports whether s is a single lower-case ASCII word: the only kind
// of token the lexical tokenizer can produce and look up.
func isWord(s string) bool {
	if len(s) < 2 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func readLines(path string, fn func(line string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' { // license header lines start with spaces
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return sc.Err()
}

// load reads the WordNet database files of dir: for each part of speech
// its synsets (data.*), its index (index.*) and its exception list (*.exc),
// then the SemCor counts (cntlist.rev).
func load(dir string) (*db, error) {
	d := &db{
		synsets:    map[byte]map[int]*synset{},
		index:      map[string]map[byte][]int{},
		senseCount: map[string]int{},
		posCount:   map[string]map[byte]int{},
		exc:        map[byte]map[string][]string{},
		common:     map[string]bool{},
	}
	for _, p := range posOrder {
		name := posFile[p]
		d.synsets[p] = map[int]*synset{}
		if err := readLines(filepath.Join(dir, "data."+name), func(line string) error { return d.addSynset(p, line) }); err != nil {
			return nil, err
		}
		if err := readLines(filepath.Join(dir, "index."+name), func(line string) error { return d.addIndex(p, line) }); err != nil {
			return nil, err
		}
		d.exc[p] = map[string][]string{}
		err := readLines(filepath.Join(dir, name+".exc"), func(line string) error {
			f := strings.Fields(line)
			if len(f) >= 2 {
				d.exc[p][f[0]] = append(d.exc[p][f[0]], f[1:]...)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if err := readLines(filepath.Join(dir, "cntlist.rev"), d.addCount); err != nil {
		return nil, err
	}
	return d, nil
}

// addSynset records the synset of one line of the data file of part of
// speech p, and which of its words are spelled in lower case.
func (d *db) addSynset(p byte, line string) error {
	ss, off, err := parseData(line)
	if err != nil {
		return err
	}
	ss.pos = p
	d.synsets[p][off] = ss
	for i, w := range ss.words {
		if !ss.capital[i] {
			d.common[w] = true
		}
	}
	return nil
}

// addIndex records the synset offsets, in sense order, of the lemma of one
// line of the index file of part of speech p (single words only).
func (d *db) addIndex(p byte, line string) error {
	f := strings.Fields(line)
	if len(f) < 4 || !isWord(f[0]) {
		return nil
	}
	nsyn, err := strconv.Atoi(f[2])
	if err != nil {
		return err
	}
	if len(f) < nsyn {
		return errors.New("short index line")
	}
	offs := make([]int, 0, nsyn)
	for _, s := range f[len(f)-nsyn:] {
		o, err := strconv.Atoi(s)
		if err != nil {
			return err
		}
		offs = append(offs, o)
	}
	if d.index[f[0]] == nil {
		d.index[f[0]] = map[byte][]int{}
	}
	d.index[f[0]][p] = offs
	return nil
}

// addCount adds the SemCor count of one line of cntlist.rev to its sense
// and to its lemma's part of speech.
func (d *db) addCount(line string) error {
	f := strings.Fields(line)
	if len(f) != 3 {
		return nil
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return err
	}
	key := f[0]
	lemma, rest, ok := strings.Cut(key, "%")
	if !ok || len(rest) < 1 {
		return nil
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 3 {
		return nil
	}
	lemma = strings.ToLower(lemma)
	short := lemma + "%" + parts[0] + ":" + parts[1] + ":" + parts[2]
	d.senseCount[short] += n
	var p byte
	switch parts[0] {
	case "1":
		p = 'n'
	case "2":
		p = 'v'
	case "3", "5":
		p = 'a'
	case "4":
		p = 'r'
	default:
		return nil
	}
	if d.posCount[lemma] == nil {
		d.posCount[lemma] = map[byte]int{}
	}
	d.posCount[lemma][p] += n
	return nil
}

func parseData(line string) (*synset, int, error) {
	if i := strings.Index(line, " | "); i >= 0 {
		line = line[:i]
	}
	f := strings.Fields(line)
	if len(f) < 6 {
		return nil, 0, errors.New("short data line")
	}
	off, err := strconv.Atoi(f[0])
	if err != nil {
		return nil, 0, err
	}
	lexFile, err := strconv.Atoi(f[1])
	if err != nil {
		return nil, 0, err
	}
	ss := &synset{ssType: f[2][0], lexFile: lexFile}
	nw, err := strconv.ParseInt(f[3], 16, 32)
	if err != nil {
		return nil, 0, err
	}
	i := 4
	for range nw {
		w := strings.ToLower(f[i])
		if j := strings.IndexByte(w, '('); j > 0 { // adjective marker: (a) (p) (ip)
			w = w[:j]
		}
		id, err := strconv.ParseInt(f[i+1], 16, 32)
		if err != nil {
			return nil, 0, err
		}
		ss.words = append(ss.words, w)
		ss.capital = append(ss.capital, f[i][0] < 'a' || f[i][0] > 'z')
		ss.lexIDs = append(ss.lexIDs, int(id))
		i += 2
	}
	np, err := strconv.Atoi(f[i])
	if err != nil {
		return nil, 0, err
	}
	i++
	for range np {
		o, err := strconv.Atoi(f[i+1])
		if err != nil {
			return nil, 0, err
		}
		pos := f[i+2][0]
		if pos == 's' {
			pos = 'a'
		}
		st, err := strconv.ParseUint(f[i+3], 16, 16)
		if err != nil {
			return nil, 0, err
		}
		ss.ptrs = append(ss.ptrs, pointer{sym: f[i], pos: pos, off: o, src: int(st >> 8), dst: int(st & 0xff)})
		i += 4
	}
	return ss, off, nil
}

// senses returns the senses of lemma, most frequent first: by SemCor count,
// then by position in its index file (WordNet's own frequency order), then by
// part of speech n, v, a, r.
func (d *db) senses(lemma string) []sense {
	var out []sense
	for _, p := range posOrder {
		for rank, off := range d.index[lemma][p] {
			ss := d.synsets[p][off]
			if ss == nil {
				continue
			}
			n := 0
			if k := wordIndex(ss, lemma); k >= 0 {
				key := fmt.Sprintf("%s%%%c:%02d:%02d", lemma, ssDigit[ss.ssType], ss.lexFile, ss.lexIDs[k])
				n = d.senseCount[key]
			}
			out = append(out, sense{pos: p, rank: rank, ss: ss, count: n})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.count != b.count {
			return a.count > b.count
		}
		return a.rank < b.rank
	})
	return out
}

// mainSenses keeps the senses that may give a word its derivational base.
// All do, except that a word SemCor saw at least vetoCount times in its most
// frequent sense keeps an unattested sense only when that sense belongs to
// the same lexicographer file (the same semantic field) as the most frequent
// one: the liver is not a derivative of "live" though "a high liver" is, nor
// better (adjective) of bet though a bettor is a better. A word that is an
// inflection of the other in form (married, marry) is exempt: see
// isInflection.
func mainSenses(ss []sense) []bool {
	main := make([]bool, len(ss))
	for i, s := range ss {
		main[i] = ss[0].count < vetoCount || s.count > 0 ||
			s.ss.pos == ss[0].ss.pos && s.ss.lexFile == ss[0].ss.lexFile
	}
	return main
}

func wordIndex(ss *synset, w string) int {
	for i, x := range ss.words {
		if x == w {
			return i
		}
	}
	return -1
}

// similar reports whether some adjective synset of form is, or is similar
// to (a satellite of), a synset of lemma: larger → large.
func (d *db) similar(form, lemma string) bool {
	for _, off := range d.index[form]['a'] {
		ss := d.synsets['a'][off]
		if ss == nil {
			continue
		}
		if wordIndex(ss, lemma) >= 0 {
			return true
		}
		for _, p := range ss.ptrs {
			if p.sym == "&" {
				if t := d.synsets['a'][p.off]; t != nil && wordIndex(t, lemma) >= 0 {
					return true
				}
			}
		}
	}
	return false
}

func (d *db) count(lemma string, p byte) int { return d.posCount[lemma][p] }

func (d *db) total(lemma string) int {
	n := 0
	for _, c := range d.posCount[lemma] {
		n += c
	}
	return n
}

func (d *db) isLemma(w string, p byte) bool { return d.index[w][p] != nil }

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// suppletive reports whether the adjective or adverb form is not built on its
// lemma (better/good, worse/bad, further/far): such pairs differ in meaning
// often enough that they are left out.
func suppletive(form, lemma string) bool {
	need := min(3, len(lemma)-1)
	return need < 2 || commonPrefix(form, lemma) < need
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

func endsConsY(w string) bool {
	return len(w) >= 2 && w[len(w)-1] == 'y' && !isVowel(w[len(w)-2])
}

func endsSibilant(w string) bool {
	return strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x") || strings.HasSuffix(w, "z") ||
		strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "sh")
}

// inflect returns the regular inflections of lemma as a part of speech p,
// built by the inverse of WordNet's morphy detachment rules. excForms are the
// lemma's forms in the exception list of p: a slot they fill (a plural, a
// past, an -ing form, comparatives) gets no regular spelling beside them
// (no "childs" beside "children", no "stoped" beside "stopped").
func inflect(lemma string, p byte, excForms []string) []string {
	var out []string
	switch p {
	case 'n':
		if len(excForms) > 0 {
			return nil // children, not childs
		}
		switch {
		case endsSibilant(lemma):
			out = append(out, lemma+"es")
		case endsConsY(lemma):
			out = append(out, lemma[:len(lemma)-1]+"ies")
		default:
			out = append(out, lemma+"s")
		}
		if strings.HasSuffix(lemma, "man") && len(lemma) > 3 {
			out = append(out, lemma[:len(lemma)-3]+"men")
		}
	case 'v':
		excPast, excIng := false, false
		for _, f := range excForms {
			switch {
			case strings.HasSuffix(f, "ing"):
				excIng = true
			case strings.HasSuffix(f, "s") && !strings.HasSuffix(f, "ss"):
			default:
				excPast = true
			}
		}
		switch {
		case endsSibilant(lemma):
			out = append(out, lemma+"es")
		case endsConsY(lemma):
			out = append(out, lemma[:len(lemma)-1]+"ies")
		default:
			out = append(out, lemma+"s")
		}
		if !excPast {
			switch {
			case strings.HasSuffix(lemma, "e"):
				out = append(out, lemma+"d")
			case endsConsY(lemma):
				out = append(out, lemma[:len(lemma)-1]+"ied")
			default:
				out = append(out, lemma+"ed")
			}
		}
		if !excIng {
			switch {
			case strings.HasSuffix(lemma, "ie"):
				// dying, lying: exception list
			case strings.HasSuffix(lemma, "ee") || strings.HasSuffix(lemma, "oe") || strings.HasSuffix(lemma, "ye"):
				out = append(out, lemma+"ing")
			case strings.HasSuffix(lemma, "e") && len(lemma) > 2:
				out = append(out, lemma[:len(lemma)-1]+"ing")
			default:
				out = append(out, lemma+"ing")
			}
		}
	case 'a':
		if len(lemma) > maxAdjInflect || len(excForms) > 0 || strings.HasSuffix(lemma, "y") ||
			strings.HasSuffix(lemma, "ed") || strings.HasSuffix(lemma, "er") || strings.HasSuffix(lemma, "est") || strings.HasSuffix(lemma, "ing") {
			return nil
		}
		if strings.HasSuffix(lemma, "e") {
			out = append(out, lemma+"r", lemma+"st")
		} else {
			out = append(out, lemma+"er", lemma+"est")
		}
	}
	return out
}

// participleOf returns the verbs of which x is spelled as a regular
// participle: an -ed or -ing form. (An irregular one that is a lemma of its
// own either was folded into its verb or is used in its own right: bound is
// not taken for a form of bind.) Sorted, so that the choice among several is
// deterministic.
func participleOf(d *db, x string, excOf map[string]map[byte][]string) []string {
	var out []string
	for _, suf := range []string{"ed", "d", "ied", "ing"} {
		stem, ok := strings.CutSuffix(x, suf)
		if !ok || len(stem) < 2 {
			continue
		}
		for _, r := range []string{stem, stem + "e", stem + "y"} {
			if !d.isLemma(r, 'v') {
				continue
			}
			for _, f := range inflect(r, 'v', excOf[r]['v']) {
				if f == x && (strings.HasSuffix(f, "ed") || strings.HasSuffix(f, "ing")) {
					out = append(out, r)
				}
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// ableForm returns the "-able" adjective of a verb: refund → refundable,
// use → usable, change → changeable, rely → reliable.
func ableForm(v string) string {
	switch {
	case strings.HasSuffix(v, "ce") || strings.HasSuffix(v, "ge") || strings.HasSuffix(v, "ee"):
		return v + "able"
	case strings.HasSuffix(v, "e"):
		return v[:len(v)-1] + "able"
	case endsConsY(v):
		return v[:len(v)-1] + "iable"
	}
	return v + "able"
}

type stats struct {
	lemmas, records, keys, words, folded, irregular, regular, able, based, withSyn, withAnt, bytes int
}

func (s stats) String() string {
	return fmt.Sprintf("%d records (of %d single-word lemmas), %d keys: %d lemmas folded into another, %d irregular forms, %d regular inflections, %d synthesised -able; %d records with a base other than themselves, %d with synonyms, %d with antonyms; %d bytes",
		s.records, s.lemmas, s.keys, s.folded, s.irregular, s.regular, s.able, s.based, s.withSyn, s.withAnt, s.bytes)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// generate writes the table derived from the WordNet database files of dir
// to w, and returns its statistics.
func generate(dir string, w *bytes.Buffer) (stats, error) {
	var st stats
	d, err := load(dir)
	if err != nil {
		return st, err
	}
	b := &builder{d: d, lemmas: sortedKeys(d.index), cands: map[string][]cand{}, excOf: map[string]map[byte][]string{},
		owner: map[string]string{}, visiting: map[string]bool{}, root: map[string]string{}, recs: map[string]*entry{}, kinds: map[string]int{}}
	st.lemmas = len(b.lemmas)
	b.exceptionCandidates()
	b.regularCandidates()
	b.rankCandidates()
	for _, form := range sortedKeys(b.cands) {
		b.ownerOf(form)
	}
	for _, l := range b.lemmas {
		b.ownerOf(l)
	}
	b.findRoots()
	for _, l := range b.lemmas {
		if b.owner[l] == l {
			b.recs[l] = b.recordOf(l)
		}
	}
	b.addForms()
	b.addAbleForms()
	b.write(w, &st)
	return st, nil
}

// builder holds what generate works out from the database, step by step.
type builder struct {
	d      *db
	lemmas []string // every single-word lemma, sorted
	// cands: for every surface form, the lemmas it may be an inflection
	// of, best first.
	cands map[string][]cand
	excOf map[string]map[byte][]string // lemma → pos → its exception forms
	// owner: the lemma whose record a surface form belongs to ("" for
	// none); visiting guards ownerOf against cycles.
	owner    map[string]string
	visiting map[string]bool
	root     map[string]string // each owning lemma's base
	recs     map[string]*entry // the record of each owning lemma
	kinds    map[string]int    // the kind of each extra form on a record
}

// entry is one record of the table before it is written.
type entry struct {
	forms []string
	base  string
	syns  []string
	ants  []string
}

// The kind of each extra form on a record: regular inflection, irregular
// form, folded lemma, or synthesised -able adjective.
const (
	kRegular = iota
	kIrregular
	kFolded
	kAble
)

// exceptionCandidates records the forms of the exception lists as
// candidates of their lemmas (but not the suppletive adjective and adverb
// ones: better is not taken for good), and each lemma's exception forms.
func (b *builder) exceptionCandidates() {
	d := b.d
	for _, p := range posOrder {
		for _, form := range sortedKeys(d.exc[p]) {
			if !isWord(form) {
				continue
			}
			for _, l := range d.exc[p][form] {
				if l == form || !isWord(l) || !d.isLemma(l, p) {
					continue
				}
				if b.excOf[l] == nil {
					b.excOf[l] = map[byte][]string{}
				}
				b.excOf[l][p] = append(b.excOf[l][p], form)
				if (p == 'a' || p == 'r') && suppletive(form, l) {
					continue
				}
				b.cands[form] = append(b.cands[form], cand{lemma: l, pos: p, exc: true})
			}
		}
	}
}

// regularCandidates records the regular inflections of every lemma as its
// candidates.
func (b *builder) regularCandidates() {
	d := b.d
	for _, l := range b.lemmas {
		for _, p := range posOrder {
			if !d.isLemma(l, p) {
				continue
			}
			if p == 'n' && !d.common[l] || p == 'a' && d.count(l, p) == 0 {
				continue // no plural of a proper name; comparatives of attested adjectives only
			}
			for _, form := range inflect(l, p, b.excOf[l][p]) {
				if form == l || !isWord(form) {
					continue
				}
				if _, isLemma := d.index[form]; isLemma && !d.isLemma(form, p) {
					// liver is not a comparative of live: a regular form that is
					// a lemma only of other parts of speech stays that lemma.
					continue
				}
				b.cands[form] = append(b.cands[form], cand{lemma: l, pos: p})
			}
		}
	}
}

// rankCandidates orders each form's candidates, most frequent first (then
// exception forms, then by lemma and part of speech), and keeps the best
// one of each lemma.
func (b *builder) rankCandidates() {
	d := b.d
	for _, form := range sortedKeys(b.cands) {
		cs := b.cands[form]
		sort.SliceStable(cs, func(i, j int) bool {
			a, b := cs[i], cs[j]
			if ca, cb := d.count(a.lemma, a.pos), d.count(b.lemma, b.pos); ca != cb {
				return ca > cb
			}
			if a.exc != b.exc {
				return a.exc
			}
			if a.lemma != b.lemma {
				return a.lemma < b.lemma
			}
			return a.pos < b.pos
		})
		seen := map[string]bool{}
		k := 0
		for _, c := range cs {
			if !seen[c.lemma] {
				seen[c.lemma] = true
				cs[k] = c
				k++
			}
		}
		b.cands[form] = cs[:k]
	}
}

// ownerOf returns the lemma whose record form belongs to, and records it. A
// lemma owns itself unless it is mostly used as an inflection of another
// lemma that owns itself.
func (b *builder) ownerOf(form string) string {
	d := b.d
	if o, ok := b.owner[form]; ok {
		return o
	}
	if b.visiting[form] {
		return ""
	}
	b.visiting[form] = true
	defer delete(b.visiting, form)
	_, isLemma := d.index[form]
	o := ""
	if isLemma {
		o = form
	}
	for _, c := range b.cands[form] {
		if b.ownerOf(c.lemma) != c.lemma {
			continue // no chains: laid → lay, but lay → lie does not carry laid along
		}
		if isLemma && !b.folds(form, c) {
			continue
		}
		if isLemma && explain {
			fmt.Fprintf(os.Stderr, "fold %s (%d) -> %s/%c (%d) exc=%v\n", form, d.total(form), c.lemma, c.pos, d.count(c.lemma, c.pos), c.exc)
		}
		o = c.lemma
		break
	}
	b.owner[form] = o
	return o
}

// folds reports whether the lemma form is folded into its candidate c (see
// dominance). A regular inflection in its own part of speech (goods,
// larger) also folds when it is merely less frequent in that part of
// speech; a comparative must moreover be similar to its adjective (larger
// to large, but liver not to live).
func (b *builder) folds(form string, c cand) bool {
	d := b.d
	n := d.count(c.lemma, c.pos)
	if n < minDominant {
		return false
	}
	return !(n <= dominance*d.total(form) &&
		(c.exc || n <= d.count(form, c.pos) || c.pos == 'a' && !d.similar(form, c.lemma)))
}

// isInflection reports whether x is spelled as an inflection of the verb
// or noun r (married, marry; frightening, frighten), whatever x's part of
// speech. Comparatives do not count: liver is not a form of live.
func (b *builder) isInflection(x, r string) bool {
	for _, p := range []byte{'n', 'v'} {
		if !b.d.isLemma(r, p) {
			continue
		}
		if slices.Contains(b.excOf[r][p], x) || slices.Contains(inflect(r, p, b.excOf[r][p]), x) {
			return true
		}
	}
	return false
}

// participles returns the verbs of each participial adjective (increased,
// limited, interesting) that owns itself. Only a word used mostly as an
// adjective counts: ground (the earth) is not taken for a form of grind.
func (b *builder) participles() map[string][]string {
	d := b.d
	participle := map[string][]string{}
	for _, x := range b.lemmas {
		if b.owner[x] != x || !d.isLemma(x, 'a') {
			continue
		}
		a := d.count(x, 'a')
		o := d.total(x) - a
		if a+o > 0 && a < o || a+o == 0 && d.isLemma(x, 'n') {
			continue
		}
		if ps := participleOf(d, x, b.excOf); len(ps) > 0 {
			participle[x] = ps
		}
	}
	return participle
}

// findRoots gives every owning lemma its derivational base, one hop,
// shortest lemmas first, so that a candidate base is settled before the
// longer words that may use it. A participial adjective takes its verb
// first, with or without a derivational pointer. The base of a regular
// participle passes on to the words derived from it (amazingly → amazing
// → amaze), as the irregular-form step does.
func (b *builder) findRoots() {
	participle := b.participles()
	passOn := map[string]bool{} // regular participles whose base passes on
	byLen := append([]string(nil), b.lemmas...)
	sort.SliceStable(byLen, func(i, j int) bool { return len(byLen[i]) < len(byLen[j]) })
	for _, x := range byLen {
		if b.owner[x] != x {
			continue
		}
		best, bestCP := x, -1
		for _, r := range participle[x] {
			if r != x && b.owner[r] == r && b.root[r] == r {
				best, bestCP = r, len(x)
				passOn[x] = true
				break
			}
		}
		if bestCP != len(x) {
			best = b.pointerBase(x, passOn)
		}
		if passOn[best] {
			best = b.root[best]
		}
		b.root[x] = best
	}
}

// pointerBase returns the base of x reached through a derivational pointer
// of one of its senses (x itself when none qualifies): the shorter lemma
// that shares the longest prefix with x, at least four letters or all of
// its own three or more.
func (b *builder) pointerBase(x string, passOn map[string]bool) string {
	best, bestCP := x, -1
	senses := b.d.senses(x)
	main := mainSenses(senses)
	for si, s := range senses {
		k := wordIndex(s.ss, x)
		for _, ptr := range s.ss.ptrs {
			if ptr.src != k+1 || ptr.dst == 0 {
				continue
			}
			// "+" derivationally related form; "\" pertainym (adjective
			// → noun) and derived-from (adverb → adjective).
			if ptr.sym != "+" && ptr.sym != `\` {
				continue
			}
			r, ok := b.pointerTarget(x, ptr, passOn)
			if !ok {
				continue
			}
			cp := commonPrefix(x, r)
			if cp < 4 && !(len(r) >= 3 && cp == len(r)) {
				continue
			}
			if !main[si] && !b.isInflection(x, r) {
				continue
			}
			if cp > bestCP || cp == bestCP && (len(r) < len(best) || len(r) == len(best) && r < best) {
				best, bestCP = r, cp
			}
		}
	}
	return best
}

// pointerTarget returns the word ptr points to when it may be the base of
// x: a single word shorter than x that owns itself and is its own base (or
// a participle whose base passes on).
func (b *builder) pointerTarget(x string, ptr pointer, passOn map[string]bool) (string, bool) {
	t := b.d.synsets[ptr.pos][ptr.off]
	if t == nil || ptr.dst > len(t.words) {
		return "", false
	}
	r := t.words[ptr.dst-1]
	if !isWord(r) || len(r) >= len(x) || b.owner[r] != r || b.root[r] != r && !passOn[r] {
		return "", false
	}
	return r, true
}

// antonymsOf returns the direct antonyms of all the senses of x, most
// frequent sense first.
func (b *builder) antonymsOf(x string) []string {
	var out []string
	for _, s := range b.d.senses(x) {
		k := wordIndex(s.ss, x)
		for _, ptr := range s.ss.ptrs {
			if ptr.sym != "!" || ptr.src != k+1 || ptr.dst == 0 {
				continue
			}
			t := b.d.synsets[ptr.pos][ptr.off]
			if t == nil || ptr.dst > len(t.words) {
				continue
			}
			out = appendNew(out, t.words[ptr.dst-1], x)
		}
	}
	return out
}

// recordOf builds the record of owning lemma l: its base, its synonyms
// (see synSenses) and its antonyms, then those of its base.
func (b *builder) recordOf(l string) *entry {
	d := b.d
	r := &entry{forms: []string{l}, base: b.root[l]}
	ss := d.senses(l)
	for i, s := range ss {
		if i >= synSenses || i > 0 && (s.count*secondRatio < ss[0].count || s.count == 0) {
			break
		}
		for _, w := range s.ss.words {
			if b.owner[w] != l && !vague(d, w) {
				r.syns = appendNew(r.syns, w, l)
			}
		}
	}
	// Words attested in SemCor first (synset order otherwise), so that the
	// cap drops the rare ones: child → kid youngster minor before shaver
	// nipper tiddler.
	sort.SliceStable(r.syns, func(i, j int) bool {
		return d.total(r.syns[i]) > 0 && d.total(r.syns[j]) == 0
	})
	if len(r.syns) > maxSyn {
		r.syns = r.syns[:maxSyn]
	}
	r.ants = b.antonymsOf(l)
	if r.base != l {
		for _, a := range b.antonymsOf(r.base) {
			r.ants = appendNew(r.ants, a, l)
		}
	}
	if len(r.ants) > maxAnt {
		r.ants = r.ants[:maxAnt]
	}
	return r
}

// addForms puts each candidate form on its owner's record and records its
// kind: a folded lemma, an irregular form, or a regular inflection.
func (b *builder) addForms() {
	for _, form := range sortedKeys(b.cands) {
		o := b.owner[form]
		if o == "" || o == form {
			continue
		}
		b.recs[o].forms = append(b.recs[o].forms, form)
		switch {
		case b.d.index[form] != nil:
			b.kinds[form] = kFolded
		case b.cands[form][0].exc && b.cands[form][0].lemma == o:
			b.kinds[form] = kIrregular
		default:
			b.kinds[form] = kRegular
		}
	}
}

// addAbleForms synthesises the -able adjectives of attested verbs that are
// their own base.
func (b *builder) addAbleForms() {
	d := b.d
	for _, l := range b.lemmas {
		if b.owner[l] != l || b.root[l] != l || !d.isLemma(l, 'v') || d.count(l, 'v') == 0 || len(l) < 4 {
			continue
		}
		f := ableForm(l)
		if _, taken := b.owner[f]; taken || d.index[f] != nil {
			continue
		}
		b.owner[f] = l // batable: of bat, not of bate too
		b.recs[l].forms = append(b.recs[l].forms, "+"+f)
		b.kinds["+"+f] = kAble
	}
}

// write writes the header and the records worth keeping to w, sorted by
// lemma, and counts them in st.
func (b *builder) write(w *bytes.Buffer, st *stats) {
	isBase := map[string]bool{}
	for x, r := range b.root {
		if r != x {
			isBase[r] = true
		}
	}
	var body bytes.Buffer
	w.WriteString("# WordNet 3.0 lexical table, generated by gen/main.go from the WordNet 3.0 database.\n")
	w.WriteString("# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. See LICENSE-WordNet.\n")
	w.WriteString("# forms<TAB>base<TAB>synonyms<TAB>antonyms; a form \"<n><suffix>\" is the lemma less n letters plus suffix.\n")
	for _, l := range sortedKeys(b.recs) {
		r := b.recs[l]
		if !b.tells(l, r, isBase) {
			continue
		}
		b.count(l, r, st)
		base := r.base
		if base == l {
			base = ""
		}
		body.WriteString(l)
		for _, f := range r.forms[1:] {
			body.WriteByte(' ')
			if f[0] == '+' {
				body.WriteByte('+')
				f = f[1:]
			}
			body.WriteString(encodeForm(l, f))
		}
		fmt.Fprintf(&body, "\t%s\t%s\t%s\n", base, strings.Join(r.syns, " "), strings.Join(r.ants, " "))
	}
	fmt.Fprintf(w, "#! keys=%d words=%d\n", st.keys, st.words)
	w.Write(body.Bytes())
	st.bytes = w.Len()
}

// tells reports whether the record r of lemma l tells something the
// caller's own stemmer does not: it is kept unless l is its own base, with
// regular inflections only, no synonym and no antonym, and no other
// record's base.
func (b *builder) tells(l string, r *entry, isBase map[string]bool) bool {
	special := false
	for _, f := range r.forms[1:] {
		special = special || b.kinds[f] != kRegular
	}
	return special || r.base != l || len(r.syns) > 0 || len(r.ants) > 0 || isBase[l]
}

// count adds the record r of lemma l to the statistics.
func (b *builder) count(l string, r *entry, st *stats) {
	st.records++
	st.keys += len(r.forms)
	for _, f := range r.forms[1:] {
		switch b.kinds[f] {
		case kRegular:
			st.regular++
		case kIrregular:
			st.irregular++
		case kFolded:
			st.folded++
		case kAble:
			st.able++
		}
	}
	if r.base != l {
		st.based++
	}
	if len(r.syns) > 0 {
		st.withSyn++
	}
	if len(r.ants) > 0 {
		st.withAnt++
	}
	st.words += len(r.syns) + len(r.ants)
}

// encodeForm writes form relative to lemma when that is shorter: "writes"
// of "write" is "0s", "written" is "1ten".
func encodeForm(lemma, form string) string {
	cp := commonPrefix(lemma, form)
	drop := len(lemma) - cp
	if drop <= 9 && 1+len(form)-cp < len(form) {
		return strconv.Itoa(drop) + form[cp:]
	}
	return form
}

// vague reports whether w says too little to stand as a synonym: the
// auxiliaries, and words of more than maxSynSenses senses (get for start,
// take, make, set).
func vague(d *db, w string) bool {
	switch w {
	case "be", "have", "do":
		return true
	}
	n := 0
	for _, offs := range d.index[w] {
		n += len(offs)
	}
	return n > maxSynSenses
}

// appendNew appends w to list unless it is not a word, is self, or is there
// already.
func appendNew(list []string, w, self string) []string {
	if !isWord(w) || w == self {
		return list
	}
	for _, x := range list {
		if x == w {
			return list
		}
	}
	return append(list, w)
}
