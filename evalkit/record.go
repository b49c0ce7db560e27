package evalkit

import (
	"io"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// The record format lives in package record (a leaf the middleware can
// import without the offline kit); these names keep evalkit's API.

// RecordVersion names the record format; see record.Version.
const RecordVersion = record.Version

type (
	// Record is record.Record.
	Record = record.Record
	// RecordSample is record.Sample.
	RecordSample = record.Sample
	// RecordContext is record.Context.
	RecordContext = record.Context
	// Leg is record.Leg.
	Leg = record.Leg
	// RecordWriter is record.Writer.
	RecordWriter = record.Writer
)

// ErrWriterClosed is record.ErrWriterClosed.
var ErrWriterClosed = record.ErrWriterClosed

// NewRecordSample copies a guard.Sample into a RecordSample (record.NewSample).
func NewRecordSample(s *guard.Sample) *RecordSample { return record.NewSample(s) }

// MarshalRecord returns r as one JSON line (record.Marshal).
func MarshalRecord(r *Record) ([]byte, error) { return record.Marshal(r) }

// NewRecordWriter returns a record writer to w (record.NewWriter).
func NewRecordWriter(w io.Writer) *RecordWriter { return record.NewWriter(w) }
