package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Writer writes records as JSON Lines (one Marshal line per
// record), the format `ragtriage eval -records` replays. It satisfies the
// middleware's record sink. Safe for concurrent use: each record is written
// with a single Write call under a lock, so lines never interleave.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	written uint64
	failed  uint64
	closed  bool
}

// ErrWriterClosed is returned by WriteRecord after Close.
var ErrWriterClosed = errors.New("record: writer closed")

// NewWriter returns a writer to w. The caller keeps ownership of w:
// Close does not close it.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteRecord writes rec as one line, filling its Version when empty. A record
// that cannot be encoded, or a failed or short write, counts as failed and
// returns an error naming the record's ID. ctx is not consulted: a record
// outlives the request that produced it.
func (w *Writer) WriteRecord(_ context.Context, rec *Record) error {
	if rec == nil {
		w.mu.Lock()
		w.failed++
		w.mu.Unlock()
		return errors.New("record: WriteRecord: nil record")
	}
	line, err := Marshal(rec)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.failed++
		return fmt.Errorf("record %q: %w", rec.ID, err)
	}
	if w.closed {
		w.failed++
		return fmt.Errorf("record %q: %w", rec.ID, ErrWriterClosed)
	}
	n, err := w.w.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.failed++
		return fmt.Errorf("record: writing %q: %w", rec.ID, err)
	}
	w.written++
	return nil
}

// Counts returns how many records were written and how many failed.
func (w *Writer) Counts() (written, failed uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written, w.failed
}

// Close makes later writes fail with ErrWriterClosed. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	return nil
}
