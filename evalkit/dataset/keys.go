package dataset

import (
	"fmt"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// pathKey is a key of a JSON object and the path of the object: "" for the
// row itself, "contexts[]" for any context, "expected.generation" for the
// generation labels.
type pathKey struct{ prefix, key string }

func (k pathKey) String() string {
	if k.prefix == "" {
		return k.key
	}
	return k.prefix + "." + k.key
}

// smallSetMax is the size from which a keySet indexes its keys in a map.
const smallSetMax = 8

// keySet is a set of keys in the order they were added. Adding is O(1)
// (amortized): a short list is scanned, a longer one indexed, so a line of
// n contexts costs O(n), never O(n²). The zero value is an empty set.
type keySet struct {
	list []pathKey
	m    map[pathKey]struct{}
	// work counts the keys compared (a scanned entry or a map lookup), for
	// the test that the row parser is linear in contexts.
	work int
}

// add adds k and reports whether it was new.
func (s *keySet) add(k pathKey) bool {
	if s.m != nil {
		s.work++
		if _, dup := s.m[k]; dup {
			return false
		}
		s.m[k] = struct{}{}
		s.list = append(s.list, k)
		return true
	}
	for _, x := range s.list {
		s.work++
		if x == k {
			return false
		}
	}
	s.list = append(s.list, k)
	if len(s.list) > smallSetMax {
		s.m = make(map[pathKey]struct{}, 2*len(s.list))
		for _, x := range s.list {
			s.m[x] = struct{}{}
		}
	}
	return true
}

// keys returns the keys alone, in order, or nil for an empty set.
func (s *keySet) keys() []string {
	if len(s.list) == 0 {
		return nil
	}
	out := make([]string, len(s.list))
	for i, k := range s.list {
		out[i] = k.key
	}
	return out
}

// paths returns the keys as paths ("expected.groundedness"), in order, or
// nil for an empty set.
func (s *keySet) paths() []string {
	if len(s.list) == 0 {
		return nil
	}
	out := make([]string, len(s.list))
	for i, k := range s.list {
		out[i] = k.String()
	}
	return out
}

// ---- where a label belongs ------------------------------------------------

// labelHomes maps each label key, normalized (normKey), and the names
// datasets and older results use for them, to the label's path.
var labelHomes = func() map[string]string {
	m := map[string]string{
		"diagnosis":  "expected.diagnosis",
		"retrieval":  "expected.retrieval",
		"generation": "expected.generation",
		// Other names of the labels.
		"sufficiency": "expected.retrieval.contextSufficiency", "sufficient": "expected.retrieval.contextSufficiency",
		"conflict": "expected.retrieval.contextConflict", "conflicting": "expected.retrieval.contextConflict",
		"chunks": "expected.retrieval.chunkRelevance", "contextrelevance": "expected.retrieval.chunkRelevance",
		"relevance": "expected.generation.answerRelevance", "relevant": "expected.generation.answerRelevance",
		"grounded": "expected.generation.groundedness", "faithfulness": "expected.generation.groundedness",
		"faithful": "expected.generation.groundedness", "supported": "expected.generation.groundedness",
		"contradicts": "expected.generation.contradiction", "contradicted": "expected.generation.contradiction",
		"correct": "expected.generation.correctness",
	}
	for _, k := range retrievalKeys {
		m[normKey(k)] = "expected.retrieval." + k
	}
	for _, k := range generationKeys {
		m[normKey(k)] = "expected.generation." + k
	}
	return m
}()

// labelNames are the keys of labelHomes that are the real label keys, for
// the edit-distance match.
var labelNames = func() []string {
	var ns []string
	for _, k := range expectedKeys {
		ns = append(ns, normKey(k))
	}
	for _, k := range retrievalKeys {
		ns = append(ns, normKey(k))
	}
	for _, k := range generationKeys {
		ns = append(ns, normKey(k))
	}
	return ns
}()

// labelHome returns the path of the label that key (unknown at prefix)
// likely stands for, or "": the same key spelled differently (case,
// separators, a plural "s", one or two typos), or another name of it.
func labelHome(key string) string {
	n := normKey(key)
	for _, c := range []string{n, strings.TrimSuffix(n, "s"), n + "s"} {
		if h, ok := labelHomes[c]; ok && c != "" {
			return h
		}
	}
	if best := closest(n, labelNames); best != "" {
		return labelHomes[best]
	}
	return ""
}

// suggestPath returns the path that the unknown key at path prefix likely
// means, or "". A key of a context is matched against the context keys, a
// key under expected against the labels, wherever they belong.
func suggestPath(k pathKey) string {
	if k.prefix != "contexts[]" {
		return labelHome(k.key)
	}
	if m := suggestKey(contextSuggestions, k.key); m != "" {
		return "contexts[]." + m
	}
	return ""
}

// closest returns the one of names within a small edit distance of n (one
// edit for names up to 5 bytes, two beyond), or "" when none is or two are
// equally close.
func closest(n string, names []string) string {
	limit := 1
	if len(n) > 5 {
		limit = 2
	}
	best, bestD, tie := "", limit+1, false
	for _, name := range names {
		d := editDistance(n, name, limit)
		switch {
		case d < bestD:
			best, bestD, tie = name, d, false
		case d == bestD:
			tie = true
		}
	}
	if tie || bestD > limit {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes), or limit+1
// when it is over limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}

// ---- diagnosis labels -----------------------------------------------------

// diagnosisMeant returns the diagnosis an unknown diagnosis label likely
// stands for, or "": the same name in other case or separators, one with a
// typo or two ("PASSED"), or the one it is the end of ("ungrounded").
func diagnosisMeant(v string) guard.Diagnosis {
	n := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_", ".", "_").Replace(strings.TrimSpace(v)))
	names := make([]string, len(guard.Diagnoses))
	for i, d := range guard.Diagnoses {
		names[i] = string(d)
		if n == names[i] {
			return d
		}
	}
	if best := closest(n, names); best != "" {
		return guard.Diagnosis(best)
	}
	var found guard.Diagnosis
	for _, d := range guard.Diagnoses {
		if len(n) >= 4 && strings.HasSuffix(string(d), "_"+n) {
			if found != "" {
				return "" // ambiguous
			}
			found = d
		}
	}
	return found
}

// diagnosisWarning words the warning about an unknown diagnosis label.
func diagnosisWarning(v string, lines int) string {
	msg := fmt.Sprintf("expected.diagnosis: unknown diagnosis %q: the label is not used", v)
	if lines > 1 {
		msg += fmt.Sprintf(" (first seen here, on %d lines in all)", lines)
	}
	if d := diagnosisMeant(v); d != "" {
		return msg + fmt.Sprintf("; did you mean %q?", d)
	}
	names := make([]string, len(guard.Diagnoses))
	for i, d := range guard.Diagnoses {
		names[i] = string(d)
	}
	return msg + "; a diagnosis is one of " + strings.Join(names, ", ")
}
