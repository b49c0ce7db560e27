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

// vocabulary maps a stem hash to its inverse document frequency.
type vocabulary struct {
	idf     map[uint64]float64
	unknown float64 // IDF of a stem never seen
	docs    int
}

func parseVocab(text string) (*vocabulary, error) {
	v := &vocabulary{idf: map[uint64]float64{}}
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
		v.idf[hashString(f[0])] = idf(df, v.docs)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if v.docs == 0 {
		return nil, fmt.Errorf("lexical: empty vocabulary")
	}
	v.unknown = idf(0, v.docs)
	return v, nil
}

// idf is the smoothed inverse document frequency log((N+1)/(df+1)), scaled
// to [0, 1] by the IDF of an unseen word.
func idf(df, n int) float64 {
	return math.Log(float64(n+1)/float64(df+1)) / math.Log(float64(n+1))
}

func (v *vocabulary) weight(t *token) float64 {
	if !t.content() {
		return 0
	}
	if w, ok := v.idf[t.hash]; ok {
		return w
	}
	return v.unknown
}

var defaultVocab = func() *vocabulary {
	v, err := parseVocab(vocabText)
	if err != nil {
		panic(err)
	}
	return v
}()

// Stems returns the normalized stems of the words of text, in order, as the
// judges see them (lower-cased, accents folded, light suffix stripping).
// Function words are included. It is meant for offline tools, such as the one
// that counts the vocabulary; judges never call it.
func Stems(text string) []string {
	tz := tokenizer{keep: true}
	tz.tokenize(nil, text, nil)
	return tz.stems
}
