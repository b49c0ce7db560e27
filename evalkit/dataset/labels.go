package dataset

import (
	"encoding/json"
	"fmt"

	"github.com/ragtriage/ragtriage/guard"
)

// labelNotes collects what the labels' keys are worth a warning for.
type labelNotes struct {
	unknown  *keySet // unknown keys, by path
	repeated *keySet // known keys given twice, by path
}

// add notes an unknown key at path.
func (n *labelNotes) add(k pathKey) { n.unknown.add(k) }

// seen notes a known key at prefix, and whether it was seen before in
// its object (keys holds those seen).
func (n *labelNotes) seen(keys map[string]bool, prefix, key string) {
	if keys[key] {
		n.repeated.add(pathKey{prefix, key})
	}
	keys[key] = true
}

// decodeExpected decodes a row's labels (a JSON value that is not null).
// Keys match exactly; an unknown key is noted by its path
// ("expected.groundedness") and its value ignored. why words the first
// mistyped label in JSON terms (its path, what it wants, what it got), or
// is "". A repeated key's last value wins, and the key is noted.
func decodeExpected(b json.RawMessage, unknown *labelNotes) (e *Expected, why string) {
	if jsonKind(b) != "an object" {
		return nil, "expected: want an object, got " + jsonKind(b)
	}
	e = &Expected{}
	keys := map[string]bool{}
	for _, m := range members(b) {
		if m.key == "diagnosis" || m.key == "retrieval" || m.key == "generation" {
			unknown.seen(keys, "expected", m.key)
		}
		switch m.key {
		case "diagnosis":
			e.Diagnosis, why = diagnosisLabel(m.val)
		case "retrieval":
			e.Retrieval, why = retrievalLabels(m.val, unknown)
		case "generation":
			e.Generation, why = generationLabels(m.val, unknown)
		default:
			unknown.add(pathKey{"expected", m.key})
		}
		if why != "" {
			return nil, why
		}
	}
	return e, ""
}

// gotKind names a JSON value's kind as the label errors do.
func gotKind(b []byte) string {
	if k := jsonKind(b); k != "true" && k != "false" {
		return k
	}
	return "true or false"
}

func diagnosisLabel(b json.RawMessage) (*guard.Diagnosis, string) {
	if isNull(b) {
		return nil, ""
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return nil, "expected.diagnosis: want a string, got " + gotKind(b)
	}
	d := guard.Diagnosis(s)
	return &d, ""
}

// boolLabel decodes true, false or null (nil) at path.
func boolLabel(path string, b json.RawMessage) (*bool, string) {
	if isNull(b) {
		return nil, ""
	}
	var v bool
	if json.Unmarshal(b, &v) != nil {
		return nil, fmt.Sprintf("%s: want true, false or null, got %s", path, gotKind(b))
	}
	return &v, ""
}

// labelObject returns the members of the labels object at path, or why it
// is not an object.
func labelObject(path string, b json.RawMessage) ([]member, string) {
	if jsonKind(b) != "an object" {
		return nil, fmt.Sprintf("%s: want an object, got %s", path, gotKind(b))
	}
	return members(b), ""
}

func retrievalLabels(b json.RawMessage, unknown *labelNotes) (*RetrievalLabels, string) {
	if isNull(b) {
		return nil, ""
	}
	ms, why := labelObject("expected.retrieval", b)
	if why != "" {
		return nil, why
	}
	r := &RetrievalLabels{}
	keys := map[string]bool{}
	for _, m := range ms {
		switch m.key {
		case "chunkRelevance", "contextSufficiency", "contextConflict":
			unknown.seen(keys, "expected.retrieval", m.key)
		}
		switch m.key {
		case "chunkRelevance":
			r.ChunkRelevance, why = chunkLabels(m.val, unknown)
		case "contextSufficiency":
			r.ContextSufficiency, why = boolLabel("expected.retrieval.contextSufficiency", m.val)
		case "contextConflict":
			r.ContextConflict, why = boolLabel("expected.retrieval.contextConflict", m.val)
		default:
			unknown.add(pathKey{"expected.retrieval", m.key})
		}
		if why != "" {
			return nil, why
		}
	}
	return r, ""
}

// chunkLabels decodes the object of context ids to true or false. A null
// leaves its context unlabelled, as null does for every other label.
func chunkLabels(b json.RawMessage, notes *labelNotes) (map[string]bool, string) {
	const path = "expected.retrieval.chunkRelevance"
	if isNull(b) {
		return nil, ""
	}
	ms, why := labelObject(path, b)
	if why != "" {
		return nil, why
	}
	out := make(map[string]bool, len(ms))
	ids := map[string]bool{}
	for _, m := range ms {
		notes.seen(ids, path, m.key)
		if isNull(m.val) {
			delete(out, m.key) // a later null unlabels an earlier value too
			continue
		}
		var v bool
		if json.Unmarshal(m.val, &v) != nil {
			return nil, fmt.Sprintf("%s: want true, false or null for each context id, got %s", path, gotKind(m.val))
		}
		out[m.key] = v
	}
	return out, ""
}

func generationLabels(b json.RawMessage, unknown *labelNotes) (*GenerationLabels, string) {
	if isNull(b) {
		return nil, ""
	}
	ms, why := labelObject("expected.generation", b)
	if why != "" {
		return nil, why
	}
	g := &GenerationLabels{}
	keys := map[string]bool{}
	for _, m := range ms {
		path := "expected.generation." + m.key
		switch m.key {
		case "answerRelevance", "groundedness", "contradiction", "correctness":
			unknown.seen(keys, "expected.generation", m.key)
		}
		switch m.key {
		case "answerRelevance":
			g.AnswerRelevance, why = boolLabel(path, m.val)
		case "groundedness":
			g.Groundedness, why = boolLabel(path, m.val)
		case "contradiction":
			g.Contradiction, why = boolLabel(path, m.val)
		case "correctness":
			g.Correctness, why = boolLabel(path, m.val)
		default:
			unknown.add(pathKey{"expected.generation", m.key})
		}
		if why != "" {
			return nil, why
		}
	}
	return g, ""
}
