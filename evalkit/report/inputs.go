package report

import "github.com/ragtriage/ragtriage/evalkit/dataset"

type (
	// InputFile describes one file a report was computed from
	// (dataset.InputFile).
	InputFile = dataset.InputFile
	// Position is a file and line (dataset.Position).
	Position = dataset.Position
)
