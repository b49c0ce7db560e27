package evalkit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/otlp"
	"github.com/ragtriage/ragtriage/record"
)

// TraceSource replays the evaluation spans of OTLP JSON files, as the
// OpenTelemetry Collector's file exporter writes them, joined with labels by
// ID. Each evaluation span becomes an Item with Record set (and Sample set
// when content capture was on); each bad line and each evaluation span that
// could not be rebuilt becomes an Item with Err set, so that rows read =
// rows evaluated + rows failed. An evaluation span repeated (same trace and
// span ID, in any of the files) counts once: each repeat is a warning
// (Warnings) and counted in its file's InputFile.Repeated. Records rebuilt with a decision missing (see
// otlp.Stats.Incomplete) are replayed as they are.
type TraceSource struct {
	paths   []string
	labels  *Labels
	next    int
	reader  *otlp.Reader // shared by the files: a span repeated in another file counts once
	warns   []dataset.Warning
	unknown unknownNames // diagnoses and causes guard does not name

	cur    *traceFile
	inputs []dataset.InputFile
	// Stats sums the reader's statistics over the files read so far.
	Stats otlp.Stats
	// Unlabeled counts the records with no label row.
	Unlabeled int
}

type traceFile struct {
	info  dataset.InputFile
	f     *os.File
	items chan dataset.Item
	done  chan struct{}
	res   chan traceResult
}

type traceResult struct {
	st  otlp.Stats
	err error
	sum string
	n   int64
}

var errStopped = errors.New("evalkit: trace source closed")

// NewTraceSource returns a source over the OTLP JSON files at paths, joined
// with labels (which may be nil).
func NewTraceSource(labels *Labels, paths ...string) *TraceSource {
	return &TraceSource{paths: paths, labels: labels, reader: otlp.NewReader()}
}

// Next implements Source.
func (s *TraceSource) Next() (dataset.Item, error) {
	for {
		if s.cur == nil {
			if s.next >= len(s.paths) {
				return dataset.Item{}, io.EOF
			}
			tf, err := s.open(s.paths[s.next])
			if err != nil {
				return dataset.Item{}, err
			}
			s.cur = tf
			s.next++
		}
		it, ok := <-s.cur.items
		if ok {
			if it.Err == nil {
				if it.Record != nil {
					s.unknown.note(it.Pos, it.Record)
				}
				if e, found := s.labels.lookup(it.ID); found {
					it.Expected = e
				} else {
					s.Unlabeled++
				}
			}
			return it, nil
		}
		r := <-s.cur.res
		s.cur.f.Close()
		info := s.cur.info
		s.cur = nil
		if r.err != nil {
			return dataset.Item{}, fmt.Errorf("evalkit: traces %s: %w", info.Name, r.err)
		}
		info.SHA256, info.Bytes = r.sum, r.n
		info.Lines = r.st.Lines
		info.Bad = r.st.BadLines + r.st.BadSpans + r.st.NoResult
		info.Repeated = r.st.Repeated
		s.inputs = append(s.inputs, info)
		s.warns = append(s.warns, repeatWarnings(info, r.st)...)
		s.add(r.st)
	}
}

func (s *TraceSource) open(path string) (*traceFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("evalkit: traces: %w", err)
	}
	tf := &traceFile{
		info:  dataset.InputFile{Name: filepath.Base(path), Kind: "traces"},
		f:     f,
		items: make(chan dataset.Item),
		done:  make(chan struct{}),
		res:   make(chan traceResult, 1),
	}
	go tf.read(s.reader)
	return tf, nil
}

// read runs otlp.Read over the file, handing each record (and then each
// problem) to Next through the items channel.
func (tf *traceFile) read(rd *otlp.Reader) {
	h := sha256.New()
	cr := &countingReader{r: io.TeeReader(tf.f, h)}
	send := func(it dataset.Item) error {
		select {
		case tf.items <- it:
			return nil
		case <-tf.done:
			return errStopped
		}
	}
	replayed := map[string]bool{}
	st, err := rd.Read(cr, func(line int, rec record.Record) error {
		it := dataset.Item{Pos: dataset.Position{File: tf.info.Name, Line: line}, ID: rec.ID, Record: &rec}
		if rec.Sample != nil {
			gs := rec.Sample.GuardSample(rec.ID)
			gs.Metadata = rec.Metadata
			it.Sample = &gs
		}
		if rec.SpanID != "" {
			replayed[rec.SpanID] = true
		}
		return send(it)
	})
	if err == nil {
		// Bad lines and spans that could not be rebuilt are failed rows.
		// Problems keeps the first 1000; the rest are reported by count.
		listed := 0
		for _, p := range st.Problems {
			if p.Repeat || p.SpanID != "" && replayed[p.SpanID] {
				continue // a repeat (a warning), or an incomplete record: it was replayed
			}
			listed++
			if err = send(dataset.Item{Pos: dataset.Position{File: tf.info.Name, Line: p.Line}, Err: &recordError{Reason: p.Reason}}); err != nil {
				break
			}
		}
		for i := listed; err == nil && i < st.BadLines+st.BadSpans; i++ {
			err = send(dataset.Item{Pos: dataset.Position{File: tf.info.Name}, Err: &recordError{Reason: "one more bad line or span (details beyond the first 1000 problems are not kept)"}})
		}
		for i := 0; err == nil && i < st.NoResult; i++ {
			err = send(dataset.Item{Pos: dataset.Position{File: tf.info.Name}, Err: &recordError{Reason: "an evaluation span records no result (the guard returned an error)"}})
		}
	}
	close(tf.items)
	tf.res <- traceResult{st: st, err: err, sum: hex.EncodeToString(h.Sum(nil)), n: cr.n}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// repeatWarnings words the repeated spans of one file as warnings: those
// listed in the stats, then one for the rest.
func repeatWarnings(info dataset.InputFile, st otlp.Stats) []dataset.Warning {
	var ws []dataset.Warning
	for _, p := range st.Problems {
		if p.Repeat {
			ws = append(ws, dataset.Warning{Pos: dataset.Position{File: info.Name, Line: p.Line}, Message: p.Reason})
		}
	}
	if rest := st.Repeated - len(ws); rest > 0 {
		ws = append(ws, dataset.Warning{Pos: dataset.Position{File: info.Name}, Message: fmt.Sprintf("%d more repeated spans, each counted once", rest)})
	}
	return ws
}

// Warnings returns the warnings about the files read so far: the repeated
// spans, then the label files'.
func (s *TraceSource) Warnings() []dataset.Warning {
	ws := append(slices.Clone(s.warns), s.unknown.warnings()...)
	return append(ws, s.labels.warnings()...)
}

func (s *TraceSource) add(st otlp.Stats) {
	t := &s.Stats
	t.Lines += st.Lines
	t.BadLines += st.BadLines
	t.Spans += st.Spans
	t.EvaluationSpans += st.EvaluationSpans
	t.Records += st.Records
	t.WithSample += st.WithSample
	t.NoResult += st.NoResult
	t.BadSpans += st.BadSpans
	t.Repeated += st.Repeated
	t.Incomplete += st.Incomplete
	t.OldFormat += st.OldFormat
	if room := 1000 - len(t.Problems); room > 0 {
		t.Problems = append(t.Problems, st.Problems[:min(room, len(st.Problems))]...)
	}
}

// Inputs implements Source: the trace files read so far, then the label
// files.
func (s *TraceSource) Inputs() []dataset.InputFile {
	out := append([]dataset.InputFile(nil), s.inputs...)
	if s.labels != nil {
		out = append(out, s.labels.Files...)
	}
	return out
}

// Close implements Source. It stops the reader of the current file.
func (s *TraceSource) Close() error {
	if s.cur == nil {
		return nil
	}
	close(s.cur.done)
	for range s.cur.items {
	}
	r := <-s.cur.res
	err := s.cur.f.Close()
	s.cur = nil
	if r.err != nil && !errors.Is(r.err, errStopped) {
		return r.err
	}
	return err
}
