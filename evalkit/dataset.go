package evalkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// MaxLineBytes is the longest dataset line accepted (16 MiB). A longer line
// is reported as an error and skipped.
const MaxLineBytes = 16 << 20

// Row is one dataset line: a sample and, when labeled, what is expected of
// it. A label that is absent is unlabeled, never false.
type Row struct {
	Sample   guard.Sample
	Expected *Expected
	// Source is the row's provenance, when the dataset gives one.
	Source string
}

// Expected holds a row's labels. Every field is optional.
type Expected struct {
	Diagnosis  *guard.Diagnosis  `json:"diagnosis,omitempty"`
	Retrieval  *RetrievalLabels  `json:"retrieval,omitempty"`
	Generation *GenerationLabels `json:"generation,omitempty"`
}

// RetrievalLabels are the labels of the retrieval decisions.
type RetrievalLabels struct {
	ChunkRelevance     map[string]bool `json:"chunkRelevance,omitempty"`
	ContextSufficiency *bool           `json:"contextSufficiency,omitempty"`
	ContextConflict    *bool           `json:"contextConflict,omitempty"`
}

// GenerationLabels are the labels of the generation decisions.
type GenerationLabels struct {
	AnswerRelevance *bool `json:"answerRelevance,omitempty"`
	Groundedness    *bool `json:"groundedness,omitempty"`
	Contradiction   *bool `json:"contradiction,omitempty"`
	Correctness     *bool `json:"correctness,omitempty"`
}

// Label returns the label of a decision other than ChunkRelevance.
func (e *Expected) Label(d guard.Decision) (value, ok bool) {
	if e == nil {
		return false, false
	}
	var p *bool
	switch d {
	case guard.ContextSufficiency:
		if e.Retrieval != nil {
			p = e.Retrieval.ContextSufficiency
		}
	case guard.ContextConflict:
		if e.Retrieval != nil {
			p = e.Retrieval.ContextConflict
		}
	case guard.AnswerRelevance:
		if e.Generation != nil {
			p = e.Generation.AnswerRelevance
		}
	case guard.Groundedness:
		if e.Generation != nil {
			p = e.Generation.Groundedness
		}
	case guard.Contradiction:
		if e.Generation != nil {
			p = e.Generation.Contradiction
		}
	case guard.Correctness:
		if e.Generation != nil {
			p = e.Generation.Correctness
		}
	}
	if p == nil {
		return false, false
	}
	return *p, true
}

// ChunkLabel returns the relevance label of one context.
func (e *Expected) ChunkLabel(id string) (value, ok bool) {
	if e == nil || e.Retrieval == nil {
		return false, false
	}
	v, ok := e.Retrieval.ChunkRelevance[id]
	return v, ok
}

// ErrBadRow is wrapped by every error ParseRow returns.
var ErrBadRow = errors.New("bad row")

type rawRow struct {
	ID        json.RawMessage `json:"id"`
	Question  json.RawMessage `json:"question"`
	Contexts  json.RawMessage `json:"contexts"`
	Answer    json.RawMessage `json:"answer"`
	Reference json.RawMessage `json:"referenceAnswer"`
	Expected  json.RawMessage `json:"expected"`
	Source    json.RawMessage `json:"source"`
	Metadata  json.RawMessage `json:"metadata"`
}

type rawContext struct {
	ID       json.RawMessage `json:"id"`
	Text     json.RawMessage `json:"text"`
	Score    *float64        `json:"score"`
	Metadata map[string]any  `json:"metadata"`
}

// RowError says what is wrong with a dataset line. ID is the row's id when
// it could be read.
type RowError struct {
	ID     string
	Reason string
}

func (e *RowError) Error() string { return e.Reason }

// Unwrap makes errors.Is(err, ErrBadRow) true.
func (e *RowError) Unwrap() error { return ErrBadRow }

// ParseRow decodes one dataset line. It rejects, with a *RowError naming the
// field: invalid UTF-8, malformed JSON, a missing or non-string question or
// answer, contexts that are missing or not a list, a context without a string
// id or text, and duplicate context ids. Samples are further checked by
// guard's Validate (size limits, NUL bytes) when evaluated. The id is
// optional; a numeric id is kept as its decimal text.
func ParseRow(line []byte) (Row, error) {
	var row Row
	if len(line) > MaxLineBytes {
		return row, &RowError{Reason: fmt.Sprintf("line is %d bytes, over the limit of %d", len(line), MaxLineBytes)}
	}
	if !utf8.Valid(line) {
		return row, &RowError{Reason: fmt.Sprintf("invalid UTF-8 at byte %d", firstInvalid(line))}
	}
	var raw rawRow
	if err := json.Unmarshal(line, &raw); err != nil {
		return row, &RowError{Reason: "malformed JSON: " + err.Error()}
	}
	id, err := optString(raw.ID)
	if err != nil {
		// Accept a numeric id as its text.
		var n json.Number
		if json.Unmarshal(raw.ID, &n) != nil {
			return row, &RowError{Reason: "id: want a string or a number"}
		}
		id = n.String()
	}
	row.Sample.ID = id
	bad := func(format string, args ...any) (Row, error) {
		return Row{}, &RowError{ID: id, Reason: fmt.Sprintf(format, args...)}
	}
	q, ok, err := reqString(raw.Question)
	if !ok {
		return bad("question: missing")
	}
	if err != nil {
		return bad("question: want a string")
	}
	a, ok, err := reqString(raw.Answer)
	if !ok {
		return bad("answer: missing")
	}
	if err != nil {
		return bad("answer: want a string")
	}
	row.Sample.Question, row.Sample.Answer = q, a
	if len(raw.Reference) > 0 && !isNull(raw.Reference) {
		var ref string
		if err := json.Unmarshal(raw.Reference, &ref); err != nil {
			return bad("referenceAnswer: want a string")
		}
		row.Sample.Reference = &ref
	}
	if len(raw.Contexts) == 0 || isNull(raw.Contexts) {
		return bad("contexts: missing (use [] for none)")
	}
	var ctxs []rawContext
	if err := json.Unmarshal(raw.Contexts, &ctxs); err != nil {
		if bytes.HasPrefix(bytes.TrimSpace(raw.Contexts), []byte("[")) {
			return bad("contexts: want a list of {\"id\",\"text\"} objects")
		}
		return bad("contexts: want a list")
	}
	row.Sample.Contexts = make([]guard.Context, len(ctxs))
	seen := make(map[string]int, len(ctxs))
	for i, c := range ctxs {
		cid, ok, err := reqString(c.ID)
		if !ok || err != nil || cid == "" {
			return bad("contexts[%d].id: want a non-empty string", i)
		}
		if j, dup := seen[cid]; dup {
			return bad("contexts[%d].id: duplicate of contexts[%d].id %q", i, j, cid)
		}
		seen[cid] = i
		text, ok, err := reqString(c.Text)
		if !ok || err != nil {
			return bad("contexts[%d].text: want a string", i)
		}
		row.Sample.Contexts[i] = guard.Context{ID: cid, Text: text, Score: c.Score, Metadata: c.Metadata}
	}
	if len(raw.Metadata) > 0 && !isNull(raw.Metadata) {
		if err := json.Unmarshal(raw.Metadata, &row.Sample.Metadata); err != nil {
			return bad("metadata: want an object")
		}
	}
	if len(raw.Source) > 0 && !isNull(raw.Source) {
		if err := json.Unmarshal(raw.Source, &row.Source); err != nil {
			return bad("source: want a string")
		}
	}
	if len(raw.Expected) > 0 && !isNull(raw.Expected) {
		var e Expected
		if err := json.Unmarshal(raw.Expected, &e); err != nil {
			return bad("expected: %v", err)
		}
		row.Expected = &e
	}
	return row, nil
}

func isNull(b json.RawMessage) bool { return string(bytes.TrimSpace(b)) == "null" }

// optString decodes an optional string (absent or null → "").
func optString(b json.RawMessage) (string, error) {
	if len(b) == 0 || isNull(b) {
		return "", nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

// reqString decodes a required string; ok is false when absent or null.
func reqString(b json.RawMessage) (s string, ok bool, err error) {
	if len(b) == 0 || isNull(b) {
		return "", false, nil
	}
	err = json.Unmarshal(b, &s)
	return s, true, err
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
