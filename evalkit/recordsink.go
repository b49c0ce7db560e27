package evalkit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// RecordWriter writes records as JSON Lines (one MarshalRecord line per
// record), the format `ragtriage eval -records` replays. It satisfies the
// middleware's record sink. Safe for concurrent use: each record is written
// with a single Write call under a lock, so lines never interleave.
type RecordWriter struct {
	mu      sync.Mutex
	w       io.Writer
	written uint64
	failed  uint64
	closed  bool
}

// ErrWriterClosed is returned by WriteRecord after Close.
var ErrWriterClosed = errors.New("evalkit: record writer closed")

// NewRecordWriter returns a writer to w. The caller keeps ownership of w:
// Close does not close it.
func NewRecordWriter(w io.Writer) *RecordWriter { return &RecordWriter{w: w} }

// WriteRecord writes rec as one line, filling its Version when empty. A record
// that cannot be encoded, or a failed or short write, counts as failed and
// returns an error naming the record's ID. ctx is not consulted: a record
// outlives the request that produced it.
func (w *RecordWriter) WriteRecord(_ context.Context, rec *Record) error {
	if rec == nil {
		w.mu.Lock()
		w.failed++
		w.mu.Unlock()
		return errors.New("evalkit: WriteRecord: nil record")
	}
	line, err := MarshalRecord(rec)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.failed++
		return fmt.Errorf("evalkit: record %q: %w", rec.ID, err)
	}
	if w.closed {
		w.failed++
		return fmt.Errorf("evalkit: record %q: %w", rec.ID, ErrWriterClosed)
	}
	n, err := w.w.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.failed++
		return fmt.Errorf("evalkit: writing record %q: %w", rec.ID, err)
	}
	w.written++
	return nil
}

// Counts returns how many records were written and how many failed.
func (w *RecordWriter) Counts() (written, failed uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written, w.failed
}

// Close makes later writes fail with ErrWriterClosed. It does not close the
// underlying writer.
func (w *RecordWriter) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return nil
}
