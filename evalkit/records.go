package evalkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/record"
)

// errBadRecord is wrapped by every error parseRecord returns.
var errBadRecord = errors.New("bad record")

// recordError says what is wrong with a record line. ID is the record's id
// when it could be read.
type recordError struct {
	ID     string
	Reason string
}

func (e *recordError) Error() string { return e.Reason }

// Unwrap makes errors.Is(err, errBadRecord) true.
func (e *recordError) Unwrap() error { return errBadRecord }

// parseRecord decodes one line of a record file (see record.Record). It
// rejects, with a *recordError: invalid UTF-8, malformed JSON, a
// recordVersion other than record.Version (a version 1 record is refused by
// name; a newer one needs a newer reader), a missing id, and a captured
// sample whose contexts lack ids or repeat one, and a result that no
// evaluation can produce (see record.Check: a probability outside 0 to 1, a
// negative latency or token count, an unknown verdict, a diagnosis or cause
// that is not a name). A well-formed diagnosis or cause guard does not
// name is read; the source warns about it.
// Unknown fields are ignored,
// so records with new optional fields still read.
func parseRecord(line []byte) (record.Record, error) {
	var r record.Record
	if len(line) > dataset.MaxLineBytes {
		return r, &recordError{Reason: fmt.Sprintf("line is %d bytes, over the limit of %d", len(line), dataset.MaxLineBytes)}
	}
	if !utf8.Valid(line) {
		return r, &recordError{Reason: fmt.Sprintf("invalid UTF-8 at byte %d", dataset.FirstInvalid(line))}
	}
	if err := json.Unmarshal(line, &r); err != nil {
		head := peekHead(line)
		if head.Version == recordVersion1 {
			return record.Record{}, v1Error(head.ID)
		}
		return record.Record{}, &recordError{ID: head.ID, Reason: "malformed record: " + err.Error()}
	}
	bad := func(format string, args ...any) (record.Record, error) {
		return record.Record{}, &recordError{ID: r.ID, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.Version == "":
		return bad("recordVersion: missing")
	case r.Version == recordVersion1:
		return record.Record{}, v1Error(r.ID)
	case r.Version != record.Version:
		return bad("recordVersion: %q, this reader knows %q only", r.Version, record.Version)
	case r.ID == "":
		return bad("id: missing (records are joined to labels by id)")
	}
	if s := r.Sample; s != nil {
		seen := make(map[string]int, len(s.Contexts))
		for i, c := range s.Contexts {
			if c.ID == "" {
				return bad("sample.contexts[%d].id: empty", i)
			}
			if j, dup := seen[c.ID]; dup {
				return bad("sample.contexts[%d].id: duplicate of sample.contexts[%d].id %q", i, j, c.ID)
			}
			seen[c.ID] = i
		}
	}
	if err := record.Check(&r); err != nil {
		return bad("%v", err)
	}
	return r, nil
}

// recordVersion1 is the record format before verdicts spoke for the answer.
const recordVersion1 = "ragtriage.record/1"

// v1Error refuses a version 1 record.
func v1Error(id string) error {
	return &recordError{ID: id, Reason: fmt.Sprintf("recordVersion: %q: this version reads %q only "+
		"(version 1 verdicts on context_conflict and contradiction mean the opposite)", recordVersion1, record.Version)}
}

// peekHead returns the top-level "recordVersion" and "id" strings of a line
// that failed to decode, when they can be found.
func peekHead(line []byte) (head struct {
	Version string `json:"recordVersion"`
	ID      string `json:"id"`
}) {
	json.Unmarshal(line, &head) // best effort: a field that fails stays empty
	return head
}

// Labels maps sample IDs to their labels, read from dataset files. Only the
// labels are kept, not the texts.
type Labels struct {
	m map[string]*dataset.Expected
	// Files describes the label files read.
	Files []dataset.InputFile
	// Problems lists the lines of the label files that could not be used
	// (bad lines, rows without an id, repeated ids: the first row wins).
	Problems []report.Failure
	used     map[string]bool
	check    dataset.Checker // the label files' warnings: unknown and misplaced keys, unknown diagnoses
}

// warnings returns the warnings about the label files (none for nil).
func (l *Labels) warnings() []dataset.Warning {
	if l == nil {
		return nil
	}
	return l.check.Warnings()
}

// ReadLabels reads the labels of the dataset files at paths. A bad line is
// listed in Problems, not an error; an unreadable file is. What is worth
// telling the files' author (an unknown or misplaced key, an unknown
// diagnosis) is a warning of the sources that join the labels.
func ReadLabels(paths ...string) (*Labels, error) {
	l := &Labels{m: map[string]*dataset.Expected{}, used: map[string]bool{}}
	for _, p := range paths {
		lf, err := dataset.OpenLines(p, "labels")
		if err != nil {
			return nil, fmt.Errorf("evalkit: labels: %w", err)
		}
		for {
			line, n, err := lf.Next()
			if err == io.EOF {
				break
			}
			pos := dataset.Position{File: lf.Name(), Line: n}
			if errors.Is(err, dataset.ErrLongLine) {
				lf.Bad()
				l.Problems = append(l.Problems, report.Failure{Pos: pos, Kind: report.FailBadLine, Reason: err.Error()})
				continue
			}
			if err != nil {
				lf.Close()
				return nil, fmt.Errorf("evalkit: labels: %w", err)
			}
			row, err := l.check.Parse(pos, line)
			switch {
			case err != nil:
				lf.Bad()
				l.Problems = append(l.Problems, report.Failure{Pos: pos, Kind: report.FailBadLine, Reason: err.Error()})
			case row.Sample.ID == "":
				l.Problems = append(l.Problems, report.Failure{Pos: pos, Kind: report.FailLabels, Reason: "row has no id: its labels cannot be joined"})
			default:
				if _, dup := l.m[row.Sample.ID]; dup {
					l.Problems = append(l.Problems, report.Failure{Pos: pos, ID: row.Sample.ID, Kind: report.FailLabels, Reason: "id repeated: the first row's labels are used"})
					continue
				}
				l.m[row.Sample.ID] = row.Expected
			}
		}
		l.Files = append(l.Files, lf.Done())
		lf.Close()
	}
	return l, nil
}

// lookup returns the labels of id (nil when the row has none) and whether
// the id is known. It marks the id as used.
func (l *Labels) lookup(id string) (*dataset.Expected, bool) {
	if l == nil {
		return nil, false
	}
	e, ok := l.m[id]
	if ok {
		l.used[id] = true
	}
	return e, ok
}

// count returns the number of labeled ids.
func (l *Labels) count() int {
	if l == nil {
		return 0
	}
	return len(l.m)
}

// unused returns how many ids were never looked up.
func (l *Labels) unused() int {
	if l == nil {
		return 0
	}
	return len(l.m) - len(l.used)
}

// RecordSource reads record files (one Record per line, as the middleware's
// record sink writes them) and joins each record to its labels by ID.
type RecordSource struct {
	lines   *dataset.Lines
	labels  *Labels
	unknown unknownNames
	// Unlabeled counts the records whose id has no labels.
	Unlabeled int
}

// NewRecordSource returns a source over the record files at paths, joined
// with labels (which may be nil: every record is then unlabeled).
func NewRecordSource(labels *Labels, paths ...string) *RecordSource {
	return &RecordSource{lines: dataset.NewLines("records", paths...), labels: labels}
}

// Next implements Source. A record with captured content yields an Item
// with Sample set (its ID is the record's); one without content yields an
// Item with only Record set.
func (s *RecordSource) Next() (dataset.Item, error) {
	line, pos, err := s.lines.Line()
	if errors.Is(err, dataset.ErrLongLine) {
		return dataset.Item{Pos: pos, Err: &recordError{Reason: err.Error()}}, nil
	}
	if err != nil {
		return dataset.Item{}, err
	}
	rec, err := parseRecord(bytes.Clone(line))
	if err != nil {
		s.lines.Bad()
		var re *recordError
		id := ""
		if errors.As(err, &re) {
			id = re.ID
		}
		return dataset.Item{Pos: pos, ID: id, Err: err}, nil
	}
	s.unknown.note(pos, &rec)
	it := dataset.Item{Pos: pos, ID: rec.ID, Record: &rec}
	if e, ok := s.labels.lookup(rec.ID); ok {
		it.Expected = e
	} else {
		s.Unlabeled++
	}
	if rec.Sample != nil {
		gs := rec.Sample.GuardSample(rec.ID)
		gs.Metadata = rec.Metadata
		it.Sample = &gs
	}
	return it, nil
}

// Inputs implements Source: the record files read so far, then the label
// files.
func (s *RecordSource) Inputs() []dataset.InputFile {
	out := append([]dataset.InputFile(nil), s.lines.Inputs()...)
	if s.labels != nil {
		out = append(out, s.labels.Files...)
	}
	return out
}

// Close implements Source.
func (s *RecordSource) Close() error { return s.lines.Close() }

// Warnings returns the warnings about the files read so far: the
// diagnoses and causes of records that guard does not name (one warning
// each, at the first line that has it), then the label files' (unknown and
// misplaced label keys, unknown diagnoses).
func (s *RecordSource) Warnings() []dataset.Warning {
	return append(s.unknown.warnings(), s.labels.warnings()...)
}

// unknownNames follows the diagnoses and causes of records that guard does
// not name (a custom judge's or Diagnoser's, or a newer version's). Each
// distinct one is a warning, at its first line, with the records counted.
type unknownNames struct {
	seen  map[record.Name]int // Path empty: kind and value only
	first []unknownName
}

type unknownName struct {
	pos     dataset.Position
	name    record.Name
	records int
}

// note notes the unknown names of rec, read at pos.
func (u *unknownNames) note(pos dataset.Position, rec *record.Record) {
	for _, n := range record.Unknown(rec) {
		path := n.Path
		n.Path = ""
		if u.seen == nil {
			u.seen = map[record.Name]int{}
		}
		i, ok := u.seen[n]
		if !ok {
			i = len(u.first)
			u.seen[n] = i
			n.Path = path
			u.first = append(u.first, unknownName{pos: pos, name: n})
		}
		u.first[i].records++
	}
}

// warnings returns a warning for each distinct unknown name.
func (u *unknownNames) warnings() []dataset.Warning {
	var ws []dataset.Warning
	for _, f := range u.first {
		ws = append(ws, dataset.Warning{Pos: f.pos, Message: fmt.Sprintf(
			"%s: %s %q is not one guard names (a custom judge's, or a newer version's): read as it is; in %d records",
			f.name.Path, f.name.Kind, f.name.Value, f.records)})
	}
	return ws
}

// recordedLegs returns the latency and usage of each leg of a record, from
// its Legs when present and otherwise from its result.
func recordedLegs(r *record.Record) (primary, fallback legSample) {
	if len(r.Legs) > 0 {
		for _, l := range r.Legs {
			ls := legSample{ran: true, latencyMs: l.LatencyMs, usage: l.Usage}
			if l.Retries > 0 && ls.usage.Retries == 0 {
				ls.usage.Retries = l.Retries
			}
			if strings.EqualFold(l.Name, "fallback") {
				fallback = ls
			} else {
				primary = ls
			}
		}
		return primary, fallback
	}
	primary = legSample{ran: true, latencyMs: r.Result.LatencyMs, usage: r.Result.Usage}
	if fb := r.Result.Fallback; fb != nil {
		fallback = legSample{ran: true, latencyMs: fb.LatencyMs}
		primary.latencyMs = max(0, primary.latencyMs-fb.LatencyMs)
	}
	return primary, fallback
}
