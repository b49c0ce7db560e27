package evalkit

import "github.com/ragtriage/ragtriage/evalkit/dataset"

// The dataset reader (row parser, checker, line reader, DatasetSource)
// lives in package evalkit/dataset; these names keep evalkit's API.

// MaxLineBytes is dataset.MaxLineBytes.
const MaxLineBytes = dataset.MaxLineBytes

type (
	// Row is dataset.Row.
	Row = dataset.Row
	// Expected is dataset.Expected.
	Expected = dataset.Expected
	// RetrievalLabels is dataset.RetrievalLabels.
	RetrievalLabels = dataset.RetrievalLabels
	// GenerationLabels is dataset.GenerationLabels.
	GenerationLabels = dataset.GenerationLabels
	// RowError is dataset.RowError.
	RowError = dataset.RowError
	// Warning is dataset.Warning.
	Warning = dataset.Warning
	// DatasetChecker is dataset.DatasetChecker.
	DatasetChecker = dataset.DatasetChecker
	// Position is dataset.Position.
	Position = dataset.Position
	// Item is dataset.Item.
	Item = dataset.Item
	// Source is dataset.Source.
	Source = dataset.Source
	// InputFile is dataset.InputFile.
	InputFile = dataset.InputFile
	// DatasetSource is dataset.DatasetSource.
	DatasetSource = dataset.DatasetSource
)

// ErrBadRow is dataset.ErrBadRow.
var ErrBadRow = dataset.ErrBadRow

// ParseRow is dataset.ParseRow.
func ParseRow(line []byte) (Row, error) { return dataset.ParseRow(line) }

// NewDatasetSource is dataset.NewDatasetSource.
func NewDatasetSource(paths ...string) *DatasetSource { return dataset.NewDatasetSource(paths...) }

// TotalBytes is dataset.TotalBytes.
func TotalBytes(paths ...string) int64 { return dataset.TotalBytes(paths...) }
