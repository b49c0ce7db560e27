package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// Position names a line of an input file (1-based line numbers, counting
// blank lines).
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (p Position) String() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// Item is one unit of replay input: a dataset row, or a recorded request
// joined with its labels. Exactly one of the following holds:
//
//   - Err != nil: the line is bad; Pos says where and Err why (ID when it
//     could be read). The item is counted as a failed row.
//   - Sample != nil: a sample to judge, with its labels when known.
//   - Record != nil and Sample == nil: a record without captured content; it
//     can be scored from its recorded result but not judged again.
//
// Record is set for every item that came from a record file.
type Item struct {
	Pos      Position
	ID       string
	Sample   *guard.Sample
	Expected *Expected
	Record   *record.Record
	Err      error
}

// A Source produces replay items one at a time, in input order. Next returns
// io.EOF after the last item; any other error means the input cannot be read
// any further (a bad line is not such an error: it is an Item with Err set).
// Inputs describes the files read so far; it is complete once Next has
// returned io.EOF. Close releases the files. A Source is used by one
// goroutine at a time.
//
// FileSource reads dataset files and RecordSource reads record files
// joined with labels; other inputs (OpenTelemetry traces, …) plug in by
// implementing Source.
type Source interface {
	Next() (Item, error)
	Inputs() []InputFile
	Close() error
}

// InputFile describes one file a report was computed from.
type InputFile struct {
	// Name is the file's base name (the report does not depend on where the
	// file was read from).
	Name string `json:"file"`
	// Kind is "dataset", "records" or "labels".
	Kind   string `json:"kind"`
	SHA256 string `json:"sha256"`
	// Lines counts the non-blank lines, Bad the lines that could not be read
	// as an item of that kind.
	Lines int `json:"lines"`
	Bad   int `json:"bad"`
	// Repeated counts the trace file's evaluation spans skipped because
	// their trace and span ID were read before (a batch exported twice).
	Repeated int `json:"repeated,omitempty"`
	// Bytes is the file size.
	Bytes int64 `json:"bytes"`
}

// LineFile reads the non-blank lines of one file, hashing every byte it
// reads, and reports lines longer than MaxLineBytes as bad without keeping
// them in memory.
type LineFile struct {
	f     *os.File
	r     *bufio.Reader
	h     hash.Hash
	info  InputFile
	line  int
	buf   []byte
	read  int64 // bytes consumed so far
	first bool
}

// OpenLines opens the file at path for LineFile to read; kind names it in
// InputFile.Kind.
func OpenLines(path, kind string) (*LineFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory", path)
	}
	lf := &LineFile{f: f, h: sha256.New(), first: true,
		info: InputFile{Name: filepath.Base(path), Kind: kind, Bytes: st.Size()}}
	lf.r = bufio.NewReaderSize(io.TeeReader(f, lf.h), 64<<10)
	return lf, nil
}

// ErrLongLine is returned for a line over MaxLineBytes.
var ErrLongLine = fmt.Errorf("line is over the limit of %d bytes", MaxLineBytes)

// Next returns the next non-blank line (without its line feed, valid until
// the following call) and its number, ErrLongLine for an over-long line (with
// its number), or io.EOF. The trailing partial line is returned like any
// other.
func (lf *LineFile) Next() ([]byte, int, error) {
	for {
		lf.buf = lf.buf[:0]
		long := false
		var err error
		for {
			var chunk []byte
			chunk, err = lf.r.ReadSlice('\n')
			lf.read += int64(len(chunk))
			if !long {
				if len(lf.buf)+len(chunk) > MaxLineBytes+1 {
					long, lf.buf = true, lf.buf[:0]
				} else {
					lf.buf = append(lf.buf, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			break
		}
		if err != nil && err != io.EOF {
			return nil, 0, fmt.Errorf("%s: reading line %d: %w", lf.info.Name, lf.line+1, err)
		}
		if err == io.EOF && len(lf.buf) == 0 && !long {
			return nil, 0, io.EOF
		}
		lf.line++
		if long {
			lf.info.Lines++
			return nil, lf.line, ErrLongLine
		}
		line := bytes.TrimSuffix(lf.buf, []byte("\n"))
		if lf.first {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			lf.first = false
		}
		if isBlankLine(line) {
			if err == io.EOF {
				return nil, 0, io.EOF
			}
			continue
		}
		lf.info.Lines++
		return line, lf.line, nil
	}
}

// Done completes the file's description once it has been read to the end.
func (lf *LineFile) Done() InputFile {
	lf.info.SHA256 = hex.EncodeToString(lf.h.Sum(nil))
	return lf.info
}

// Name is the file's base name.
func (lf *LineFile) Name() string { return lf.info.Name }

// Bad counts the line just returned as bad.
func (lf *LineFile) Bad() { lf.info.Bad++ }

// Close closes the file.
func (lf *LineFile) Close() error { return lf.f.Close() }

func isBlankLine(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Lines reads the non-blank lines of several files of one kind, one
// file after the other, describing each file once it is read to the end.
// FileSource, and evalkit's record and trace sources, read their input
// through it. Make one with NewLines.
type Lines struct {
	paths  []string
	kind   string // "dataset" or "records", as in InputFile.Kind
	next   int
	cur    *LineFile
	inputs []InputFile
	base   int64 // bytes of the files already read to the end
}

// Line returns the next non-blank line (valid until the following call) and
// its position. An over-long line is counted bad and returned as ErrLongLine
// with its position; io.EOF follows the last line of the last file; any
// other error means the input cannot be read any further.
func (m *Lines) Line() ([]byte, Position, error) {
	for {
		if m.cur == nil {
			if m.next >= len(m.paths) {
				return nil, Position{}, io.EOF
			}
			lf, err := OpenLines(m.paths[m.next], m.kind)
			if err != nil {
				return nil, Position{}, fmt.Errorf("evalkit: %s: %w", m.kind, err)
			}
			m.cur = lf
			m.next++
		}
		line, n, err := m.cur.Next()
		if err == io.EOF {
			m.inputs = append(m.inputs, m.cur.Done())
			m.base += m.cur.read
			m.cur.f.Close()
			m.cur = nil
			continue
		}
		pos := Position{File: m.cur.info.Name, Line: n}
		if errors.Is(err, ErrLongLine) {
			m.cur.info.Bad++
			return nil, pos, err
		}
		if err != nil {
			return nil, Position{}, fmt.Errorf("evalkit: %s: %w", m.kind, err)
		}
		return line, pos, nil
	}
}

// Bad counts the line just returned as bad.
func (m *Lines) Bad() { m.cur.info.Bad++ }

// BytesRead returns the bytes read so far across the files.
func (m *Lines) BytesRead() int64 {
	if m.cur != nil {
		return m.base + m.cur.read
	}
	return m.base
}

// Inputs describes the files read to the end so far.
func (m *Lines) Inputs() []InputFile { return m.inputs }

// NewLines returns a reader of the non-blank lines of the files at paths,
// one after the other; kind names them in InputFile.Kind and in errors
// ("dataset", "records", …).
func NewLines(kind string, paths ...string) *Lines { return &Lines{paths: paths, kind: kind} }

// Close closes the file being read.
func (m *Lines) Close() error {
	if m.cur != nil {
		err := m.cur.f.Close()
		m.cur = nil
		return err
	}
	return nil
}

// FileSource reads dataset files (JSON Lines in the dataset shape, see
// ParseRow) one after the other. Each non-blank line becomes one Item: a
// sample with its labels, or a bad line with its position and reason.
type FileSource struct {
	lines *Lines
	check Checker
	// BytesRead, when set, is called with the number of bytes read so far
	// across all files (for a progress display).
	BytesRead func(n int64)
}

// NewFileSource returns a source over the dataset files at paths, read in
// order. Files are opened lazily; a file that cannot be opened is an error of
// Next.
func NewFileSource(paths ...string) *FileSource {
	return &FileSource{lines: NewLines("dataset", paths...)}
}

// TotalBytes returns the total size of the files (0 for a file that cannot be
// stat'ed).
func TotalBytes(paths ...string) int64 {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}

// Next implements Source.
func (s *FileSource) Next() (Item, error) {
	line, pos, err := s.lines.Line()
	if s.BytesRead != nil {
		s.BytesRead(s.lines.BytesRead())
	}
	if errors.Is(err, ErrLongLine) {
		return Item{Pos: pos, Err: &RowError{Reason: err.Error()}}, nil
	}
	if err != nil {
		return Item{}, err
	}
	row, err := s.check.Parse(pos, line)
	if err != nil {
		s.lines.Bad()
		var re *RowError
		id := ""
		if errors.As(err, &re) {
			id = re.ID
		}
		return Item{Pos: pos, ID: id, Err: err}, nil
	}
	sample := row.Sample
	return Item{Pos: pos, ID: sample.ID, Sample: &sample, Expected: row.Expected}, nil
}

// Inputs implements Source.
func (s *FileSource) Inputs() []InputFile { return s.lines.Inputs() }

// Warnings returns the warnings about the lines read so far (see
// DatasetChecker): each unknown top-level key, once per file, and each file
// that is not JSON Lines. It is complete once Next has returned io.EOF.
func (s *FileSource) Warnings() []Warning { return s.check.Warnings() }

// Close implements Source.
func (s *FileSource) Close() error { return s.lines.Close() }
