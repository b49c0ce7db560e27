package evalkit

import (
	"io"

	"github.com/ragtriage/ragtriage/evalkit/otlp"
)

// The OTLP trace reader lives in package evalkit/otlp; these names keep
// evalkit's API.

// MaxOTLPLineBytes is otlp.MaxOTLPLineBytes.
const MaxOTLPLineBytes = otlp.MaxOTLPLineBytes

type (
	// OTLPStats is otlp.OTLPStats.
	OTLPStats = otlp.OTLPStats
	// OTLPProblem is otlp.OTLPProblem.
	OTLPProblem = otlp.OTLPProblem
)

// ReadOTLP is otlp.ReadOTLP.
func ReadOTLP(r io.Reader, fn func(line int, rec Record) error) (OTLPStats, error) {
	return otlp.ReadOTLP(r, fn)
}
