package dataset

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
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
	// UnknownKeys lists the top-level keys of the line that are not part of
	// the dataset shape, in line order, each once: ParseRow ignores them
	// ("reference_answer" is not "referenceAnswer"). Keys match exactly:
	// "Question" is not "question" either. "meta" (provenance that nothing
	// reads) is known. nil when there are none.
	UnknownKeys []string
	// UnknownPaths lists, the same way, the unknown keys of the contexts
	// and of the labels, as paths: "contexts[].Text" (a key of any
	// context), then "expected.groundedness" or
	// "expected.generation.Groundedness". nil when there are none.
	UnknownPaths []string
	// RepeatedKeys lists, as paths, the known keys the line gives more than
	// once ("question", "contexts[].text", "expected.generation.groundedness",
	// "expected.retrieval.chunkRelevance.c1"): the last value is used, as
	// with encoding/json. nil when there are none.
	RepeatedKeys []string
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
	Meta      json.RawMessage `json:"meta"` // provenance: known, not read
}

type rawContext struct {
	ID       json.RawMessage `json:"id"`
	Text     json.RawMessage `json:"text"`
	Score    json.RawMessage `json:"score"`
	Metadata json.RawMessage `json:"metadata"`
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
// field in JSON terms: invalid UTF-8, malformed JSON, a line that is not a
// JSON object (a JSON array, a piece of JSON spread over several lines), a
// missing or non-string question or answer, contexts that are missing or not
// a list, a context without an id or a string text, duplicate context ids,
// and mistyped labels. A missing field's error names the unknown key that
// was likely meant ("query" for "question"). Samples are further checked by
// guard's Validate (size limits, NUL bytes) when evaluated. The id is
// optional; a numeric id, of the row or of a context, is kept as its decimal
// text. Keys match exactly, at the top and in the contexts and labels:
// "Question" is an unknown key, never read as "question". Unknown keys are
// listed in Row.UnknownKeys (top-level) and Row.UnknownPaths (nested); a
// Checker turns them into warnings.
//
// Strings of the row that hold no escape sequence share the memory of one
// copy of the line. A well-formed row is decoded in a single pass, in time
// linear in its length. Anything unusual (an error, a key with escapes, a
// repeated key) is decoded again through encoding/json, which gives the
// error its wording. Both paths accept and reject exactly the same lines.
func ParseRow(line []byte) (Row, error) {
	if len(line) > MaxLineBytes {
		return Row{}, &RowError{Reason: fmt.Sprintf("line is %d bytes, over the limit of %d", len(line), MaxLineBytes)}
	}
	if !utf8.Valid(line) {
		return Row{}, &RowError{Reason: fmt.Sprintf("invalid UTF-8 at byte %d", FirstInvalid(line))}
	}
	if row, ok := parseRowFast(line); ok {
		return row, nil
	}
	return parseRowJSON(line)
}

// parseRowJSON decodes a line of valid UTF-8 with encoding/json. It is the
// reference behaviour of ParseRow, and the path that words its errors.
func parseRowJSON(line []byte) (Row, error) {
	var row Row
	var raw rawRow
	if msg := notAnObject(line); msg != "" {
		return row, &RowError{Reason: msg}
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return row, &RowError{Reason: "malformed JSON: " + err.Error()}
	}
	// encoding/json matches keys but for case; the dataset's keys match
	// exactly, so the fields are taken again from the members.
	var top, ctxKeys, labelKeys, repeated keySet
	raw = exactRow(members(line), &top, &repeated)
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
	why := row.decodeTexts(line, &raw)
	if why == "" {
		if len(raw.Contexts) == 0 || isNull(raw.Contexts) {
			why = missingField(line, "contexts", " (use [] for none)")
		} else {
			row.Sample.Contexts, why = decodeContexts(raw.Contexts, &ctxKeys, &repeated)
		}
	}
	if why == "" {
		why = row.decodeExtras(&raw, &labelKeys, &repeated)
	}
	if why != "" {
		return Row{}, &RowError{ID: id, Reason: why}
	}
	row.UnknownKeys = top.keys()
	row.UnknownPaths = append(ctxKeys.paths(), labelKeys.paths()...)
	row.RepeatedKeys = repeated.paths()
	return row, nil
}

// member is one member of a JSON object.
type member struct {
	key string
	val json.RawMessage
}

// members returns the members of the JSON object b, in order (repeated
// keys too), or nil when b is not a valid object.
func members(b []byte) []member {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var ms []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return nil
		}
		ms = append(ms, member{key: k, val: v})
	}
	return ms
}

// exactRow sets the fields of a row from its members by exact key (the
// last of a repeated key wins, as with encoding/json). It notes the unknown
// keys in top and the repeated known ones in rep.
func exactRow(ms []member, top, rep *keySet) rawRow {
	var raw rawRow
	fields := map[string]*json.RawMessage{"id": &raw.ID, "question": &raw.Question, "contexts": &raw.Contexts,
		"answer": &raw.Answer, "referenceAnswer": &raw.Reference, "expected": &raw.Expected, "source": &raw.Source,
		"metadata": &raw.Metadata, "meta": &raw.Meta}
	for _, m := range ms {
		if f := fields[m.key]; f != nil {
			if *f != nil {
				rep.add(pathKey{key: m.key})
			}
			*f = m.val
		} else {
			top.add(pathKey{key: m.key})
		}
	}
	return raw
}

// exactContext does for a context what exactRow does for a row; unknown
// keys go to unknown as "contexts[].key", repeated known ones to rep.
func exactContext(ms []member, unknown, rep *keySet) rawContext {
	var c rawContext
	for _, m := range ms {
		var f *json.RawMessage
		switch m.key {
		case "id":
			f = &c.ID
		case "text":
			f = &c.Text
		case "score":
			f = &c.Score
		case "metadata":
			f = &c.Metadata
		default:
			unknown.add(pathKey{"contexts[]", m.key})
			continue
		}
		if *f != nil {
			rep.add(pathKey{"contexts[]", m.key})
		}
		*f = m.val
	}
	return c
}

// missingField words the error of a required field that is absent, naming
// the unknown key of the line that was likely meant.
func missingField(line []byte, field, otherwise string) string {
	if k := keyMeant(objectKeys(line), rowKeys[:], rowSuggestions, field); k != "" {
		return fmt.Sprintf("%s: missing (the row has %q; the key must be %q)", field, k, field)
	}
	return fmt.Sprintf("%s: missing%s", field, otherwise)
}

// decodeTexts sets the question, answer and reference answer; it returns
// what is wrong with them, or "".
func (row *Row) decodeTexts(line []byte, raw *rawRow) string {
	q, ok, err := reqString(raw.Question)
	if !ok {
		return missingField(line, "question", "")
	}
	if err != nil {
		return "question: want a string"
	}
	a, ok, err := reqString(raw.Answer)
	if !ok {
		return missingField(line, "answer", "")
	}
	if err != nil {
		return "answer: want a string"
	}
	row.Sample.Question, row.Sample.Answer = q, a
	if len(raw.Reference) > 0 && !isNull(raw.Reference) {
		var ref string
		if err := json.Unmarshal(raw.Reference, &ref); err != nil {
			return "referenceAnswer: want a string"
		}
		row.Sample.Reference = &ref
	}
	return ""
}

// decodeContexts decodes the contexts list; why says what is wrong, or is "".
func decodeContexts(list json.RawMessage, unknown, rep *keySet) (ctxs []guard.Context, why string) {
	var raws []json.RawMessage
	if err := json.Unmarshal(list, &raws); err != nil {
		return nil, fmt.Sprintf("contexts: want a list, got %s", jsonKind(list))
	}
	ctxs = make([]guard.Context, len(raws))
	seen := make(map[string]int, len(raws))
	for i, b := range raws {
		if ctxs[i], why = decodeContext(i, b, seen, unknown, rep); why != "" {
			return nil, why
		}
	}
	return ctxs, ""
}

// decodeContext decodes contexts[i]; seen maps the ids so far to their
// index, to refuse a duplicate; unknown keys go to unknown, repeated ones
// to rep.
func decodeContext(i int, b json.RawMessage, seen map[string]int, unknown, rep *keySet) (guard.Context, string) {
	var c rawContext
	if b = bytes.TrimSpace(b); len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &c) != nil {
		return guard.Context{}, fmt.Sprintf("contexts[%d]: want an object {\"id\":…,\"text\":…}, got %s", i, jsonKind(b))
	}
	c = exactContext(members(b), unknown, rep)
	// meant names the unknown key of the context that was likely meant
	// for field.
	meant := func(field string) string {
		if k := keyMeant(objectKeys(b), contextKeys[:], contextSuggestions, field); k != "" {
			return fmt.Sprintf(" (the context has %q; the key must be %q)", k, field)
		}
		return ""
	}
	cid, ok, err := reqString(c.ID)
	if ok && err != nil {
		// Accept a numeric id as its text, like the row's.
		var n json.Number
		if json.Unmarshal(c.ID, &n) == nil {
			cid, err = n.String(), nil
		}
	}
	if !ok || err != nil || cid == "" {
		hint := ""
		if !ok {
			hint = meant("id")
		}
		return guard.Context{}, fmt.Sprintf("contexts[%d].id: want a non-empty string or a number%s", i, hint)
	}
	if j, dup := seen[cid]; dup {
		return guard.Context{}, fmt.Sprintf("contexts[%d].id: duplicate of contexts[%d].id %q", i, j, cid)
	}
	seen[cid] = i
	text, ok, err := reqString(c.Text)
	if !ok {
		return guard.Context{}, fmt.Sprintf("contexts[%d].text: missing%s", i, meant("text"))
	}
	if err != nil {
		return guard.Context{}, fmt.Sprintf("contexts[%d].text: want a string", i)
	}
	gc := guard.Context{ID: cid, Text: text}
	if len(c.Score) > 0 && !isNull(c.Score) {
		var v float64
		if err := json.Unmarshal(c.Score, &v); err != nil {
			if jsonKind(c.Score) == "a number" {
				return guard.Context{}, fmt.Sprintf("contexts[%d].score: %s is out of range", i, c.Score)
			}
			return guard.Context{}, fmt.Sprintf("contexts[%d].score: want a number or null", i)
		}
		gc.Score = &v
	}
	if len(c.Metadata) > 0 && !isNull(c.Metadata) {
		if err := json.Unmarshal(c.Metadata, &gc.Metadata); err != nil {
			return guard.Context{}, fmt.Sprintf("contexts[%d].metadata: want an object", i)
		}
	}
	return gc, ""
}

// decodeExtras sets the metadata, source and labels; it returns what is
// wrong with them, or "".
func (row *Row) decodeExtras(raw *rawRow, labelKeys, rep *keySet) string {
	if len(raw.Metadata) > 0 && !isNull(raw.Metadata) {
		if err := json.Unmarshal(raw.Metadata, &row.Sample.Metadata); err != nil {
			return "metadata: want an object"
		}
	}
	if len(raw.Source) > 0 && !isNull(raw.Source) {
		if err := json.Unmarshal(raw.Source, &row.Source); err != nil {
			return "source: want a string"
		}
	}
	if len(raw.Expected) > 0 && !isNull(raw.Expected) {
		e, why := decodeExpected(raw.Expected, &labelNotes{labelKeys, rep})
		if why != "" {
			return why
		}
		row.Expected = e
	}
	return ""
}

// notAnObject returns why line, which does not decode as a row, is not a
// JSON object, or "" when it is one (or a broken one). Lines of a JSON
// array or of an object spread over several lines say so: their own
// syntax errors would be noise.
func notAnObject(line []byte) string {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '{':
		switch {
		case len(t) == 1:
			return expectedJSONL + "; " + partOfValue
		case t[len(t)-1] == ',' && json.Valid(t[:len(t)-1]):
			return expectedJSONL + ", with no comma after it"
		}
		return ""
	case '[':
		if json.Valid(t) {
			return expectedJSONL + "; this line holds a JSON array"
		}
		return expectedJSONL + "; this line starts a JSON array"
	}
	if json.Valid(t) {
		return "want a JSON object, got " + jsonKind(t)
	}
	if closersOnly(t) || looksLikeMember(t) {
		return expectedJSONL + "; " + partOfValue
	}
	return ""
}

const partOfValue = "this line looks like part of a JSON value spread over several lines"

// closersOnly reports whether t holds only closing brackets, commas and
// white space: the end of a value spread over lines.
func closersOnly(t []byte) bool {
	for _, c := range t {
		switch c {
		case '}', ']', ',', ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

// looksLikeMember reports whether t starts with an object member, `"key":`,
// as the lines of a pretty-printed object do.
func looksLikeMember(t []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(t))
	var k string
	if dec.Decode(&k) != nil {
		return false
	}
	rest := bytes.TrimSpace(t[dec.InputOffset():])
	return len(rest) > 0 && rest[0] == ':'
}

// jsonKind names the kind of a JSON value in words ("a string").
func jsonKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch c := b[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't':
		return "true"
	case c == 'f':
		return "false"
	case c == 'n':
		return "null"
	case c == '-' || isDigit(c):
		return "a number"
	}
	return "something else"
}

// objectKeys returns the keys of the JSON object b, in order (repeated
// ones too), or nil when b is not a valid object.
func objectKeys(b []byte) []string {
	ms := members(b)
	if ms == nil {
		return nil
	}
	keys := make([]string, len(ms))
	for i, m := range ms {
		keys[i] = m.key
	}
	return keys
}

// knownKey reports whether key is one of known. Keys match exactly.
func knownKey(key string, known []string) bool {
	return slices.Contains(known, key)
}

// keyMeant returns the first of keys that is unknown and likely meant to be
// field, or "".
func keyMeant(keys, known []string, t *keyTable, field string) string {
	for _, k := range keys {
		if !knownKey(k, known) && suggestKey(t, k) == field {
			return k
		}
	}
	return ""
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

// FirstInvalid returns the byte offset of the first invalid UTF-8 sequence
// in b, or len(b) when b is valid UTF-8.
func FirstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// ---- the single-pass decoder ----------------------------------------------

// rowKeys are the keys of a dataset line that ParseRow knows, in the order
// of the bits that record them. All are read but "meta", which datasets use
// for provenance.
var rowKeys = [...]string{"id", "question", "contexts", "answer", "referenceAnswer", "expected", "source", "metadata", "meta"}

var (
	contextKeys    = [...]string{"id", "text", "score", "metadata"}
	expectedKeys   = [...]string{"diagnosis", "retrieval", "generation"}
	retrievalKeys  = [...]string{"chunkRelevance", "contextSufficiency", "contextConflict"}
	generationKeys = [...]string{"answerRelevance", "groundedness", "contradiction", "correctness"}
)

// maxFastDepth bounds the nesting the single-pass decoder follows in values
// it skips; deeper lines go to encoding/json, which has its own limit.
const maxFastDepth = 256

// fastParser decodes the common shape of a dataset line in one pass. Every
// method returns ok=false at the first thing it does not handle exactly as
// encoding/json would (which includes every error); the caller then decodes
// the line again with encoding/json.
type fastParser struct {
	b []byte // the line
	s string // the same bytes as a string: unescaped strings are slices of it
	i int

	top       keySet // the row's unknown keys
	ctxKeys   keySet // the contexts' unknown keys
	labelKeys keySet // the labels' unknown keys
	idWork    int    // context ids compared, for the test that parsing is linear
}

// parseRowFast decodes a well-formed line. ok is false when the line is
// malformed or unusual: the caller must then use parseRowJSON.
func parseRowFast(line []byte) (row Row, ok bool) {
	p := fastParser{b: line, s: string(line)}
	return p.row()
}

// row decodes the line; see parseRowFast.
func (p *fastParser) row() (row Row, ok bool) {
	p.ws()
	if !p.eat('{') {
		return row, false
	}
	var seen uint // bit k: rowKeys[k] was read
	p.ws()
	if !p.eat('}') {
		for {
			p.ws()
			k, name, ok := p.key(rowKeys[:])
			if !ok {
				return row, false
			}
			p.ws()
			if !p.eat(':') {
				return row, false
			}
			p.ws()
			if k >= 0 {
				if seen&(1<<k) != 0 {
					return row, false // a duplicate key: encoding/json keeps the last
				}
				seen |= 1 << k
			}
			if !p.rowValue(k, name, &row) {
				return row, false
			}
			p.ws()
			if p.eat('}') {
				break
			}
			if !p.eat(',') {
				return row, false
			}
		}
	}
	p.ws()
	const required = 1<<1 | 1<<2 | 1<<3 // question, contexts, answer
	if p.i != len(p.b) || seen&required != required {
		return row, false
	}
	row.UnknownKeys = p.top.keys()
	row.UnknownPaths = append(p.ctxKeys.paths(), p.labelKeys.paths()...)
	return row, true
}

// rowValue reads the value of the row's key rowKeys[k] (k = -1: an
// unknown key, name) into row.
func (p *fastParser) rowValue(k int, name string, row *Row) (ok bool) {
	switch k {
	case -1:
		ok = p.skip(0)
		p.top.add(pathKey{key: name})
	case 8: // meta: known, not read
		ok = p.skip(0)
	case 0: // id
		switch {
		case p.peek() == '"':
			row.Sample.ID, ok = p.str()
		case p.peek() == '-' || isDigit(p.peek()):
			row.Sample.ID, ok = p.number()
		default:
			ok = p.null()
		}
	case 1:
		row.Sample.Question, ok = p.str()
	case 2:
		row.Sample.Contexts, ok = p.contexts()
	case 3:
		row.Sample.Answer, ok = p.str()
	case 4: // referenceAnswer
		if p.peek() == 'n' {
			ok = p.null()
		} else {
			var ref string
			if ref, ok = p.str(); ok {
				row.Sample.Reference = &ref
			}
		}
	case 5: // expected
		if p.peek() == 'n' {
			ok = p.null()
		} else {
			row.Expected, ok = p.expected()
		}
	case 6: // source
		if p.peek() == 'n' {
			ok = p.null()
		} else {
			row.Source, ok = p.str()
		}
	case 7: // metadata
		if p.peek() == 'n' {
			ok = p.null()
		} else {
			row.Sample.Metadata, ok = p.anyObject()
		}
	}
	return ok
}

// anyObject reads a JSON object with encoding/json.
func (p *fastParser) anyObject() (map[string]any, bool) {
	start := p.i
	if p.peek() != '{' || !p.skip(0) {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(p.b[start:p.i], &m) != nil {
		return nil, false
	}
	return m, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *fastParser) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// key reads an object key and returns its index in known, or -1 for an
// unknown key, and the key. Keys match exactly: "Question" is not
// "question". ok is false for a key with escapes.
func (p *fastParser) key(known []string) (int, string, bool) {
	if !p.eat('"') {
		return 0, "", false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			k := p.s[start:p.i]
			p.i++
			for j, name := range known {
				if k == name {
					return j, k, true
				}
			}
			return -1, k, true
		}
		if c == '\\' || c < ' ' {
			return 0, "", false
		}
		p.i++
	}
	return 0, "", false
}

// str reads a JSON string.
func (p *fastParser) str() (string, bool) {
	if !p.eat('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		// Eight plain bytes at a time.
		for p.i+8 <= len(p.b) && plain8(binary.LittleEndian.Uint64(p.b[p.i:])) {
			p.i += 8
		}
		if p.i >= len(p.b) {
			break
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], true
		case c == '\\':
			return p.unescape(start)
		case c < ' ':
			return "", false
		}
		p.i++
	}
	return "", false
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plain8 reports whether none of the eight bytes of x is a quote, a
// backslash or a control character: they are copied into a string as they
// are. (The byte tests are exact; see "Determine if a word has a byte less
// than n" in Sean Eron Anderson's Bit Twiddling Hacks.)
func plain8(x uint64) bool {
	lessThan := func(x, n uint64) bool { return (x-ones*n)&^x&highs != 0 }
	return !lessThan(x, ' ') && !lessThan(x^(ones*'"'), 1) && !lessThan(x^(ones*'\\'), 1)
}

// unescape finishes a string holding escape sequences; start is just after
// its opening quote and p.i at its first backslash. It decodes like
// encoding/json: a lone or broken UTF-16 surrogate becomes U+FFFD. The
// result is built in one allocation (escapes only ever shrink the text).
func (p *fastParser) unescape(start int) (string, bool) {
	// Where the string ends bounds its length: found eight plain bytes at
	// a time, as the copy below reads them.
	end := p.i
	for end < len(p.b) {
		for end+8 <= len(p.b) && plain8(binary.LittleEndian.Uint64(p.b[end:])) {
			end += 8
		}
		if end >= len(p.b) || p.b[end] == '"' {
			break
		}
		if p.b[end] == '\\' {
			end++
		}
		end++
	}
	var sb strings.Builder
	sb.Grow(end - start)
	sb.Write(p.b[start:p.i])
	for p.i < len(p.b) {
		// Copy the plain bytes up to the next quote, backslash or control
		// character in one go.
		run := p.i
		for p.i+8 <= len(p.b) && plain8(binary.LittleEndian.Uint64(p.b[p.i:])) {
			p.i += 8
		}
		for p.i < len(p.b) && p.b[p.i] >= ' ' && p.b[p.i] != '"' && p.b[p.i] != '\\' {
			p.i++
		}
		sb.Write(p.b[run:p.i])
		if p.i >= len(p.b) {
			break
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), true
		case c < ' ':
			return "", false
		}
		if p.i+1 >= len(p.b) {
			return "", false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r := p.hex4(p.i)
			if r < 0 {
				return "", false
			}
			p.i += 4
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					r2 = p.hex4(p.i + 2)
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					p.i += 6
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 decodes the four hex digits at i, or returns -1.
func (p *fastParser) hex4(i int) rune {
	if i+4 > len(p.b) {
		return -1
	}
	var r rune
	for _, c := range p.b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads a JSON number and returns its literal text.
func (p *fastParser) number() (string, bool) {
	b, start := p.b, p.i
	i := p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return "", false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return "", false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return "", false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	p.i = i
	return p.s[start:i], true
}

func (p *fastParser) literal(lit string) bool {
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
		return true
	}
	return false
}

func (p *fastParser) null() bool { return p.literal("null") }

// skip validates and skips one value.
func (p *fastParser) skip(depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	switch c := p.peek(); {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == '-' || isDigit(c):
		_, ok := p.number()
		return ok
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.null()
	case c == '[':
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(']') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case c == '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			if _, ok := p.str(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
			p.ws()
			if p.eat('}') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	}
	return false
}

// object calls field for each key of an object, with p at the key's value;
// known lists the keys field handles, any other key's value is skipped and
// the key noted in unknown under prefix. Duplicates of known keys are
// refused.
func (p *fastParser) object(known []string, unknown *keySet, prefix string, field func(k int) bool) bool {
	if !p.eat('{') {
		return false
	}
	var seen uint
	p.ws()
	if p.eat('}') {
		return true
	}
	for {
		p.ws()
		k, name, ok := p.key(known)
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		if k < 0 {
			unknown.add(pathKey{prefix, name})
			ok = p.skip(1)
		} else {
			if seen&(1<<k) != 0 {
				return false
			}
			seen |= 1 << k
			ok = field(k)
		}
		if !ok {
			return false
		}
		p.ws()
		if p.eat('}') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// contexts reads the list of contexts. It leaves the checks with messages
// (ids present, non-empty, unique; texts present) to the caller's fallback:
// it fails on any of them.
func (p *fastParser) contexts() ([]guard.Context, bool) {
	if !p.eat('[') {
		return nil, false
	}
	var small [4]guard.Context
	list := small[:0]
	var ids map[string]struct{} // the ids of list, once it is long
	p.ws()
	if !p.eat(']') {
		for {
			p.ws()
			var (
				c          guard.Context
				haveID, ok bool
				haveText   bool
			)
			ok = p.object(contextKeys[:], &p.ctxKeys, "contexts[]", func(k int) bool {
				var ok bool
				switch k {
				case 0:
					if p.peek() == '-' || isDigit(p.peek()) {
						c.ID, ok = p.number() // a numeric id is kept as its text
					} else {
						c.ID, ok = p.str()
					}
					haveID = ok && c.ID != ""
				case 1:
					c.Text, ok = p.str()
					haveText = ok
				case 2:
					if p.peek() == 'n' {
						return p.null()
					}
					var lit string
					if lit, ok = p.number(); ok {
						v, err := strconv.ParseFloat(lit, 64)
						if err != nil {
							return false
						}
						c.Score = &v
					}
				case 3:
					if p.peek() == 'n' {
						return p.null()
					}
					start := p.i
					if ok = p.peek() == '{' && p.skip(1); ok {
						var m map[string]any // not &c.Metadata: c would escape
						ok = json.Unmarshal(p.b[start:p.i], &m) == nil
						c.Metadata = m
					}
				}
				return ok
			})
			if !ok || !haveID || !haveText {
				return nil, false
			}
			if p.duplicateID(list, &ids, c.ID) {
				return nil, false // the fallback words the error
			}
			list = append(list, c)
			p.ws()
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return nil, false
			}
		}
	}
	out := make([]guard.Context, len(list))
	copy(out, list)
	return out, true
}

// duplicateID reports whether id is the id of one of list. A short list is
// scanned; from smallSetMax contexts on, *ids indexes them, so that a row of
// n contexts costs O(n) comparisons (p.idWork counts them), not O(n²).
func (p *fastParser) duplicateID(list []guard.Context, ids *map[string]struct{}, id string) bool {
	if len(list) < smallSetMax {
		for j := range list {
			p.idWork++
			if list[j].ID == id {
				return true
			}
		}
		return false
	}
	if *ids == nil {
		*ids = make(map[string]struct{}, 2*len(list))
		for _, c := range list {
			(*ids)[c.ID] = struct{}{}
		}
	}
	p.idWork++
	if _, dup := (*ids)[id]; dup {
		return true
	}
	(*ids)[id] = struct{}{}
	return false
}

// boolMap reads an object of booleans.
func (p *fastParser) boolMap() (map[string]bool, bool) {
	if !p.eat('{') {
		return nil, false
	}
	m := map[string]bool{}
	p.ws()
	if p.eat('}') {
		return m, true
	}
	for {
		p.ws()
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.ws()
		if !p.eat(':') {
			return nil, false
		}
		p.ws()
		if _, dup := m[k]; dup {
			return nil, false // a repeated id: encoding/json warns about it
		}
		switch {
		case p.literal("true"):
			m[k] = true
		case p.literal("false"):
			m[k] = false
		default:
			return nil, false
		}
		p.ws()
		if p.eat('}') {
			return m, true
		}
		if !p.eat(',') {
			return nil, false
		}
	}
}

// optBool reads true, false or null (nil).
func (p *fastParser) optBool(dst **bool, store *bool) bool {
	switch {
	case p.literal("true"):
		*store = true
	case p.literal("false"):
		*store = false
	case p.null():
		*dst = nil
		return true
	default:
		return false
	}
	*dst = store
	return true
}

// expectedBlock holds one row's labels in a single allocation.
type expectedBlock struct {
	e     Expected
	r     RetrievalLabels
	g     GenerationLabels
	diag  guard.Diagnosis
	bools [6]bool
}

// expected reads the labels of a row.
func (p *fastParser) expected() (*Expected, bool) {
	blk := new(expectedBlock)
	ok := p.object(expectedKeys[:], &p.labelKeys, "expected", func(k int) bool {
		switch k {
		case 0:
			if p.peek() == 'n' {
				return p.null()
			}
			s, ok := p.str()
			blk.diag = guard.Diagnosis(s)
			blk.e.Diagnosis = &blk.diag
			return ok
		case 1:
			if p.peek() == 'n' {
				return p.null()
			}
			blk.e.Retrieval = &blk.r
			return p.object(retrievalKeys[:], &p.labelKeys, "expected.retrieval", func(k int) bool {
				switch k {
				case 0:
					if p.peek() == 'n' {
						return p.null()
					}
					m, ok := p.boolMap()
					blk.r.ChunkRelevance = m
					return ok
				case 1:
					return p.optBool(&blk.r.ContextSufficiency, &blk.bools[0])
				default:
					return p.optBool(&blk.r.ContextConflict, &blk.bools[1])
				}
			})
		default:
			if p.peek() == 'n' {
				return p.null()
			}
			blk.e.Generation = &blk.g
			return p.object(generationKeys[:], &p.labelKeys, "expected.generation", func(k int) bool {
				switch k {
				case 0:
					return p.optBool(&blk.g.AnswerRelevance, &blk.bools[2])
				case 1:
					return p.optBool(&blk.g.Groundedness, &blk.bools[3])
				case 2:
					return p.optBool(&blk.g.Contradiction, &blk.bools[4])
				default:
					return p.optBool(&blk.g.Correctness, &blk.bools[5])
				}
			})
		}
	})
	return &blk.e, ok
}

// HasDecisionLabel reports whether e holds a label of a decision (not only
// a diagnosis). False for nil.
func (e *Expected) HasDecisionLabel() bool {
	if e == nil {
		return false
	}
	if r := e.Retrieval; r != nil && (len(r.ChunkRelevance) > 0 || r.ContextSufficiency != nil || r.ContextConflict != nil) {
		return true
	}
	g := e.Generation
	return g != nil && (g.AnswerRelevance != nil || g.Groundedness != nil || g.Contradiction != nil || g.Correctness != nil)
}

// HasLabel reports whether e holds a label a report can use: a decision
// label or a known diagnosis. An empty "expected":{} (what export writes),
// and one whose keys are all misplaced or unknown, holds none.
func (e *Expected) HasLabel() bool {
	if e == nil {
		return false
	}
	return e.HasDecisionLabel() || (e.Diagnosis != nil && slices.Contains(guard.Diagnoses, *e.Diagnosis))
}

// ShouldPass says whether a row's answer should pass: its diagnosis label
// when it has one; else false when groundedness or correctness is false,
// contradiction true or answer relevance false, or sufficiency false beside a
// groundedness or correctness label, and true when groundedness or
// correctness is true and nothing else objects. known is false when the
// labels do not say (a nil e included).
func (e *Expected) ShouldPass() (pass, known bool) {
	if e == nil {
		return false, false
	}
	if e.Diagnosis != nil {
		return *e.Diagnosis == guard.PassDiagnosis, true
	}
	for _, d := range []guard.Decision{guard.Groundedness, guard.Correctness} {
		if v, ok := e.Label(d); ok {
			known = true
			if !v {
				return false, true
			}
		}
	}
	if v, ok := e.Label(guard.Contradiction); ok && v {
		return false, true
	}
	if v, ok := e.Label(guard.AnswerRelevance); ok && !v {
		return false, true
	}
	if v, ok := e.Label(guard.ContextSufficiency); ok && !v && known {
		return false, true
	}
	return known, known
}

// ---- keys meant -------------------------------------------------------------

// keyTable holds the keys of one kind of object of the dataset shape and the
// unknown keys that likely stand for them.
type keyTable struct {
	// known are the keys that may be suggested.
	known []string
	// aliases maps unknown keys, normalized (see normKey), to the known key
	// they likely stand for. Keys that normalize to a known key
	// ("reference_answer", "Meta_Data") need no entry.
	aliases map[string]string
}

// rowSuggestions are the top-level keys. "meta" is never suggested: nothing
// reads it.
var rowSuggestions = &keyTable{known: rowKeys[:len(rowKeys)-1], aliases: map[string]string{
	"reference": "referenceAnswer", "ref": "referenceAnswer", "groundtruth": "referenceAnswer",
	"gold": "referenceAnswer", "goldanswer": "referenceAnswer", "expectedanswer": "referenceAnswer",
	"expectedoutput": "referenceAnswer", "correctanswer": "referenceAnswer", "idealanswer": "referenceAnswer",
	"targetanswer": "referenceAnswer", "target": "referenceAnswer", "answerreference": "referenceAnswer",
	"referenceresponse": "referenceAnswer", "rightanswer": "referenceAnswer", "truth": "referenceAnswer",

	"context": "contexts", "passage": "contexts", "document": "contexts", "doc": "contexts",
	"retrievedcontexts": "contexts", "retrievedcontext": "contexts", "retrieveddocuments": "contexts",
	"retrieveddocs": "contexts", "retrieved": "contexts", "chunk": "contexts", "knowledge": "contexts",
	"evidence": "contexts", "snippet": "contexts", "retrieval": "contexts",

	"label": "expected", "goldlabel": "expected", "annotation": "expected", "expectation": "expected",
	"judgement": "expected", "judgment": "expected", "verdict": "expected",

	"query": "question", "userinput": "question", "input": "question", "prompt": "question",
	"userquery": "question", "q": "question",

	"response": "answer", "output": "answer", "generatedanswer": "answer", "prediction": "answer",
	"completion": "answer", "modelanswer": "answer", "modeloutput": "answer", "reply": "answer",
	"modelresponse": "answer", "a": "answer",

	"sampleid": "id", "rowid": "id", "uid": "id", "uuid": "id", "exampleid": "id", "qid": "id",
	"questionid": "id",
}}

// contextSuggestions are the keys of a context.
var contextSuggestions = &keyTable{known: contextKeys[:], aliases: map[string]string{
	"content": "text", "pagecontent": "text", "passage": "text", "chunk": "text", "body": "text",
	"document": "text", "snippet": "text", "textcontent": "text", "passagetext": "text",
	"chunktext": "text", "context": "text",

	"docid": "id", "documentid": "id", "chunkid": "id", "passageid": "id", "contextid": "id",
	"uid": "id", "uuid": "id", "key": "id",
}}

// normKey folds case and drops '_', '-', '.' and spaces: "Reference_Answer"
// and "referenceAnswer" are the same key.
func normKey(k string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(k) {
		switch r {
		case '_', '-', '.', ' ':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// suggestKey returns the known key of t that the unknown key likely stands
// for, or "": one it spells differently (case, separators, a plural "s"), or
// one of its aliases.
func suggestKey(t *keyTable, key string) string {
	n := normKey(key)
	for _, c := range []string{n, strings.TrimSuffix(n, "s"), n + "s"} {
		if c == "" {
			continue
		}
		for _, k := range t.known {
			if c == strings.ToLower(k) {
				return k
			}
		}
		if k, ok := t.aliases[c]; ok {
			return k
		}
	}
	return ""
}

// ---- what only shows across lines -----------------------------------------

// Warning is something about a dataset file worth telling its author that
// does not by itself make a line bad: an unknown key, or a file that is not
// JSON Lines (whose lines are also reported one by one).
type Warning struct {
	// Pos is the first line the warning is about.
	Pos     Position
	Message string
}

func (w Warning) String() string { return w.Pos.String() + ": " + w.Message }

const expectedJSONL = "expected JSON Lines: one JSON object per line"

// A Checker follows the lines of dataset files and notices what no
// single line shows:
//
//   - A JSON array, pretty-printed or not, or an object spread over several
//     lines, where JSON Lines are expected. Every line of it is bad, for one
//     reason that names the line it starts on (rather than a syntax error
//     per line), and the file gets one warning that counts them and says
//     how to convert the file.
//   - Unknown top-level keys (Row.UnknownKeys): one warning per file and
//     key, at the first line that has it, naming the key likely meant
//     ("reference_answer" → "referenceAnswer", "Question" → "question").
//   - Unknown and misplaced label keys (Row.UnknownPaths), naming where
//     the label belongs: "expected.groundedness" → "did you mean
//     expected.generation.groundedness?"; a case variant, a typo or
//     another name ("faithfulness") of a label is matched too. Unknown
//     keys of contexts warn only when they likely mean a known one
//     ("Text"); contexts carry keys of their own (a title, a URL).
//   - An unknown diagnosis label ("PASSED"), which is not used: one
//     warning per file and value, naming the closest diagnosis.
//
// Parse does both for one line. A caller that parses lines concurrently
// calls Line for each line in order, then ParseRow and Row in any order.
// Lines reported bad without being parsed (over MaxLineBytes) and blank
// lines need not be shown to it. A new file starts when Position.File
// changes or its line number does not grow.
//
// The zero value is ready to use. Its methods may be called concurrently.
type Checker struct {
	mu    sync.Mutex
	file  string     // Line's current file
	last  int        // the last line given to Line
	open  *openValue // the array or object spread over lines being read
	files map[string]int
	shape map[shapeKey]*warnEntry
	keys  map[shapeKey]*warnEntry
	warns []*warnEntry
}

// openValue is a JSON value spread over several lines.
type openValue struct {
	start int
	array bool
	depth int // brackets still open
}

// shapeKey names a warning: a file and the unknown key, or "[" or "{" for
// a file's arrays and objects spread over lines.
type shapeKey struct{ file, key string }

type warnEntry struct {
	pos       Position
	key       string // the unknown key (a path when nested); "" for a shape warning
	nested    bool   // key is the path of a key of a context or of the labels
	diagnosis string // an unknown diagnosis label (key is "expected.diagnosis")
	repeated  bool   // key is a known key (a path) given twice on a line
	array     bool   // a shape warning: arrays (true) or objects
	meant     string // the key (or path) likely meant
	lines     int    // lines concerned
	fileIdx   int
}

// Line notes the next non-blank line of a file before it is parsed. It
// returns a *RowError when the line must not be parsed on its own: it is
// part of a JSON array or of an object spread over several lines.
func (c *Checker) Line(pos Position, line []byte) error {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if pos.File != c.file || pos.Line <= c.last {
		c.file, c.open = pos.File, nil
	}
	c.last = pos.Line
	o := c.open
	if o == nil {
		switch {
		case t[0] == '{' && t[len(t)-1] == '}':
			return nil // a row, or a broken one ParseRow words
		case t[0] == '[':
			o = &openValue{start: pos.Line, array: true}
		case len(t) == 1 && t[0] == '{':
			o = &openValue{start: pos.Line}
		default:
			return nil
		}
	} else if !o.array && line[0] == '{' && t[len(t)-1] == '}' {
		// A row at the start of the line after an object that never
		// closed (a stray "{"): JSON Lines again. The lines of a
		// pretty-printed object are indented.
		c.open = nil
		return nil
	}
	o.depth += bracketDepth(t)
	if o.depth > 0 {
		c.open = o
	} else {
		c.open = nil
	}
	key := shapeKey{pos.File, "{"}
	if o.array {
		key.key = "["
	}
	if e := c.shape[key]; e != nil {
		e.lines++
	} else {
		if c.shape == nil {
			c.shape = map[shapeKey]*warnEntry{}
		}
		e = &warnEntry{pos: Position{File: pos.File, Line: o.start}, array: o.array, lines: 1, fileIdx: c.fileIndex(pos.File)}
		c.shape[key] = e
		c.warns = append(c.warns, e)
	}
	if o.array {
		return &RowError{Reason: fmt.Sprintf("%s; this file looks like a JSON array (line %d)", expectedJSONL, o.start)}
	}
	return &RowError{Reason: fmt.Sprintf("%s; this looks like a JSON object spread over several lines (line %d)", expectedJSONL, o.start)}
}

// bracketDepth returns the brackets t opens less those it closes, outside
// strings.
func bracketDepth(t []byte) int {
	d, inString, escaped := 0, false, false
	for _, c := range t {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			d++
		case '}', ']':
			d--
		}
	}
	return d
}

// Row notes the row parsed from the line at pos: its unknown keys (of the
// row, of its labels, and those of its contexts that likely mean a known
// one) and an unknown diagnosis label.
func (c *Checker) Row(pos Position, row *Row) {
	diag := unknownDiagnosis(row.Expected)
	if len(row.UnknownKeys) == 0 && len(row.UnknownPaths) == 0 && len(row.RepeatedKeys) == 0 && diag == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range row.UnknownKeys {
		c.note(pos, warnEntry{key: k}, func() string { return topKeyMeant(k) })
	}
	for _, p := range row.UnknownPaths {
		prefix, key := splitPath(p)
		meant := suggestPath(pathKey{prefix, key})
		if prefix == "contexts[]" && meant == "" {
			continue // contexts carry keys of their own (title, url): no noise
		}
		c.note(pos, warnEntry{key: p, nested: true}, func() string { return meant })
	}
	if diag != "" {
		c.note(pos, warnEntry{key: "expected.diagnosis", diagnosis: diag}, nil)
	}
	for _, p := range row.RepeatedKeys {
		c.note(pos, warnEntry{key: p, repeated: true}, nil)
	}
}

// note counts one line of the warning e (keyed by its key and diagnosis),
// creating it with meant() when it is new. c.mu is held.
func (c *Checker) note(pos Position, e warnEntry, meant func() string) {
	key := shapeKey{pos.File, e.key + "\x00" + e.diagnosis}
	if e.repeated {
		key.key += "\x00repeated"
	}
	if old := c.keys[key]; old != nil {
		old.lines++
		if pos.Line < old.pos.Line {
			old.pos = pos
		}
		return
	}
	if c.keys == nil {
		c.keys = map[shapeKey]*warnEntry{}
	}
	// Not the line's memory.
	e.key, e.diagnosis = strings.Clone(e.key), strings.Clone(e.diagnosis)
	key.key = strings.Clone(key.key)
	if meant != nil {
		e.meant = meant()
	}
	e.pos, e.lines, e.fileIdx = pos, 1, c.fileIndex(pos.File)
	c.keys[key] = &e
	c.warns = append(c.warns, &e)
}

// unknownDiagnosis returns the row's diagnosis label when guard does not
// know it, or "".
func unknownDiagnosis(e *Expected) string {
	if e == nil || e.Diagnosis == nil || slices.Contains(guard.Diagnoses, *e.Diagnosis) {
		return ""
	}
	return string(*e.Diagnosis)
}

// topKeyMeant returns the key an unknown top-level key likely stands for:
// a key of the row ("referenceAnswer" for "reference_answer"), or the path
// of a label put at the top ("expected.generation.groundedness").
func topKeyMeant(k string) string {
	if m := suggestKey(rowSuggestions, k); m != "" {
		return m
	}
	return labelHome(k)
}

// splitPath splits an UnknownPaths entry into the object's path and the key.
func splitPath(p string) (prefix, key string) {
	for _, pre := range []string{"contexts[]", "expected.retrieval", "expected.generation", "expected"} {
		if strings.HasPrefix(p, pre+".") {
			return pre, p[len(pre)+1:]
		}
	}
	return "", p
}

// fileIndex numbers files in the order they are first seen. c.mu is held.
func (c *Checker) fileIndex(name string) int {
	if i, ok := c.files[name]; ok {
		return i
	}
	if c.files == nil {
		c.files = map[string]int{}
	}
	c.files[name] = len(c.files)
	return c.files[name]
}

// Parse parses the line at pos (Line, then ParseRow, then Row).
func (c *Checker) Parse(pos Position, line []byte) (Row, error) {
	if err := c.Line(pos, line); err != nil {
		return Row{}, err
	}
	row, err := ParseRow(line)
	if err == nil {
		c.Row(pos, &row)
	}
	return row, err
}

// Warnings returns the warnings about the lines seen so far, by file (in the
// order files were first seen) and line.
func (c *Checker) Warnings() []Warning {
	c.mu.Lock()
	defer c.mu.Unlock()
	es := slices.Clone(c.warns)
	slices.SortStableFunc(es, func(a, b *warnEntry) int {
		if a.fileIdx != b.fileIdx {
			return a.fileIdx - b.fileIdx
		}
		return a.pos.Line - b.pos.Line
	})
	var ws []Warning
	for _, e := range es {
		ws = append(ws, Warning{Pos: e.pos, Message: e.message()})
	}
	return ws
}

func (e *warnEntry) message() string {
	lines := fmt.Sprintf("%d lines", e.lines)
	if e.lines == 1 {
		lines = "1 line"
	}
	switch {
	case e.key == "" && e.array:
		return fmt.Sprintf("%s; this file looks like a JSON array (line %d): %s reported as bad; convert it with jq -c '.[]'", expectedJSONL, e.pos.Line, lines)
	case e.key == "":
		return fmt.Sprintf("%s; this file has JSON objects spread over several lines (line %d): %s reported as bad; convert them with jq -c .", expectedJSONL, e.pos.Line, lines)
	}
	if e.diagnosis != "" {
		return diagnosisWarning(e.diagnosis, e.lines)
	}
	if e.repeated {
		msg := fmt.Sprintf("key repeated: %q is given more than once; the last value is used", e.key)
		if e.lines > 1 {
			msg += fmt.Sprintf(" (first seen here, on %d lines in all)", e.lines)
		}
		return msg
	}
	msg := fmt.Sprintf("unknown key %q is ignored", e.key)
	if e.nested {
		what := "a label key"
		if strings.HasPrefix(e.key, "contexts[].") {
			what = "a context key"
		}
		msg = fmt.Sprintf("%s: not %s, ignored", e.key, what)
	}
	if e.lines > 1 {
		msg += fmt.Sprintf(" (first seen here, on %d lines in all)", e.lines)
	}
	if e.meant != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.meant)
	}
	return msg
}
