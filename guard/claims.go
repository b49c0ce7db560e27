package guard

import (
	"context"
	"errors"
)

// A ClaimExtractor splits an answer into atomic claims, each a short
// self-contained statement, for the advanced groundedness mode (WithClaims).
// The host may supply one; package guard/llmjudge has one backed by an LLM.
type ClaimExtractor interface {
	ExtractClaims(ctx context.Context, s *Sample) ([]string, error)
}

// ClaimExtractorFunc adapts a function to the ClaimExtractor interface.
type ClaimExtractorFunc func(ctx context.Context, s *Sample) ([]string, error)

// ExtractClaims calls f(ctx, s).
func (f ClaimExtractorFunc) ExtractClaims(ctx context.Context, s *Sample) ([]string, error) {
	return f(ctx, s)
}

// Claim is one atomic claim of the answer and its support, in claims mode.
type Claim struct {
	Text         string  `json:"text"`
	Groundedness Prob    `json:"groundedness"`
	Verdict      Verdict `json:"verdict"`
	// Judge names the judge whose estimate was used.
	Judge string `json:"judge,omitempty"`
	// Escalated is set when the claim went to the fallback.
	Escalated bool `json:"escalated,omitempty"`
	// Reason says why the support is unknown, when it is.
	Reason   string     `json:"reason,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// WithClaims turns on the advanced groundedness mode: x splits each answer
// into claims, the judge bound to Groundedness estimates each claim's support
// on its own (escalating an uncertain claim when an escalator is set), and
// groundedness is the weakest claim's. Result.Claims lists every claim. If x
// fails or finds no claim, groundedness is judged on the whole answer and the
// failure is reported in Result.Errors.
func WithClaims(x ClaimExtractor) Option {
	return func(g *Guard) error {
		if x == nil {
			return errors.New("guard: WithClaims: nil extractor")
		}
		g.claims = x
		return nil
	}
}
