package lexical

import (
	"sync"
	"testing"
)

// resetLexicon drops the tables loadLexicon built, so that the next call
// builds them again, as the first call in a process does.
func resetLexicon() {
	lexOnce, mapsOnce = sync.Once{}, sync.Once{}
	wordFlagMap, canonOf, canonStem, synonymOf, antonymOf, defaultVocab = nil, nil, nil, relTable{}, relTable{}, nil
}

// BenchmarkNewGuard measures a fresh build of the default guard: the
// lexicon tables and the vocabulary are dropped before every iteration, so
// each one decodes them again, as the first NewGuard of a process does.
func BenchmarkNewGuard(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		resetLexicon()
		if _, err := NewGuard(); err != nil {
			b.Fatal(err)
		}
	}
	resetLexicon()
	loadLexicon()
}
