package evalkit

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
//
// Strings of the row that hold no escape sequence share the memory of one
// copy of the line. A well-formed row is decoded in a single pass; anything
// unusual (an error, a key spelled in another case, a duplicate key) is
// decoded again by encoding/json, which gives the error its wording, so both
// paths accept and reject exactly the same lines.
func ParseRow(line []byte) (Row, error) {
	if len(line) > MaxLineBytes {
		return Row{}, &RowError{Reason: fmt.Sprintf("line is %d bytes, over the limit of %d", len(line), MaxLineBytes)}
	}
	if !utf8.Valid(line) {
		return Row{}, &RowError{Reason: fmt.Sprintf("invalid UTF-8 at byte %d", firstInvalid(line))}
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

// ---- the single-pass decoder ----------------------------------------------

// rowKeys are the keys of a dataset line that ParseRow reads, in the order of
// the bits that record them.
var rowKeys = [...]string{"id", "question", "contexts", "answer", "referenceAnswer", "expected", "source", "metadata"}

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
}

// parseRowFast decodes a well-formed line. ok is false when the line is
// malformed or unusual: the caller must then use parseRowJSON.
func parseRowFast(line []byte) (row Row, ok bool) {
	p := fastParser{b: line, s: string(line)}
	p.ws()
	if !p.eat('{') {
		return row, false
	}
	var (
		seen         uint
		haveQ, haveA bool
		haveCtx      bool
	)
	p.ws()
	if !p.eat('}') {
		for {
			p.ws()
			k, ok := p.key(rowKeys[:])
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
			switch k {
			case -1:
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
				haveQ = true
			case 2:
				row.Sample.Contexts, ok = p.contexts()
				haveCtx = true
			case 3:
				row.Sample.Answer, ok = p.str()
				haveA = true
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
					start := p.i
					if ok = p.peek() == '{' && p.skip(0); ok {
						var m map[string]any // not &row...: row would escape
						ok = json.Unmarshal(p.b[start:p.i], &m) == nil
						row.Sample.Metadata = m
					}
				}
			}
			if !ok {
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
	if p.i != len(p.b) || !haveQ || !haveA || !haveCtx {
		return row, false
	}
	return row, true
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

// key reads an object key and returns its index in known, or -1 for a key
// the caller skips. ok is false for a key encoding/json would match to a
// known one other than exactly (it folds case), or one with escapes.
func (p *fastParser) key(known []string) (int, bool) {
	if !p.eat('"') {
		return 0, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			k := p.s[start:p.i]
			p.i++
			for j, name := range known {
				if k == name {
					return j, true
				}
			}
			for j := 0; j < len(k); j++ {
				if k[j] >= utf8.RuneSelf {
					return 0, false // may fold to a known key (K, ſ)
				}
			}
			for _, name := range known {
				if strings.EqualFold(k, name) {
					return 0, false
				}
			}
			return -1, true
		}
		if c == '\\' || c < ' ' {
			return 0, false
		}
		p.i++
	}
	return 0, false
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
	end := p.i
	for end < len(p.b) && p.b[end] != '"' {
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
// known lists the keys field handles, any other key's value is skipped.
// Duplicates of known keys are refused.
func (p *fastParser) object(known []string, field func(k int) bool) bool {
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
		k, ok := p.key(known)
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		if k < 0 {
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
	p.ws()
	if !p.eat(']') {
		for {
			p.ws()
			var (
				c          guard.Context
				haveID, ok bool
				haveText   bool
			)
			ok = p.object(contextKeys[:], func(k int) bool {
				var ok bool
				switch k {
				case 0:
					c.ID, ok = p.str()
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
			for j := range list {
				if list[j].ID == c.ID {
					return nil, false
				}
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
	ok := p.object(expectedKeys[:], func(k int) bool {
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
			return p.object(retrievalKeys[:], func(k int) bool {
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
			return p.object(generationKeys[:], func(k int) bool {
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
