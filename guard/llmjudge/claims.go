package llmjudge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/ragtriage/ragtriage/guard"
)

// ClaimExtractor is a guard.ClaimExtractor backed by an llms.Model: a
// versioned prompt (PromptVersion) asks the model to split the answer into
// atomic claims, one per line. Safe for concurrent use if the Model is.
type ClaimExtractor struct {
	model     llms.Model
	maxClaims int
	opts      []llms.CallOption
}

// ErrUnparsableClaims is returned when the model's reply holds neither
// claims nor NONE.
var ErrUnparsableClaims = errors.New("llmjudge: claim extraction reply is unparsable")

// NewClaimExtractor returns a ClaimExtractor over m that keeps at most
// maxClaims claims (0 means 20); opts are added to every call.
func NewClaimExtractor(m llms.Model, maxClaims int, opts ...llms.CallOption) (*ClaimExtractor, error) {
	if m == nil {
		return nil, errors.New("llmjudge: NewClaimExtractor: nil model")
	}
	if maxClaims < 0 {
		return nil, fmt.Errorf("llmjudge: NewClaimExtractor: maxClaims %d < 0", maxClaims)
	}
	if maxClaims == 0 {
		maxClaims = 20
	}
	return &ClaimExtractor{model: m, maxClaims: maxClaims, opts: opts}, nil
}

// ExtractClaims implements guard.ClaimExtractor. An answer the model says
// asserts nothing gives no claims and no error; a reply that is neither
// claims nor NONE is ErrUnparsableClaims; more than the maximum claims is an
// error too (the answer is not cut silently).
func (x *ClaimExtractor) ExtractClaims(ctx context.Context, s *guard.Sample) ([]string, error) {
	if s == nil {
		return nil, errors.New("llmjudge: ExtractClaims: nil sample")
	}
	if strings.TrimSpace(s.Answer) == "" {
		return nil, nil
	}
	opts := append([]llms.CallOption{llms.WithTemperature(0), llms.WithMaxTokens(1024)}, x.opts...)
	resp, err := x.model.GenerateContent(ctx, claimsMessages(s.Question, s.Answer), opts...)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			return nil, fmt.Errorf("llmjudge: claims: %w (%w)", cerr, err)
		}
		return nil, fmt.Errorf("llmjudge: claims: %w", err)
	}
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, errors.New("llmjudge: claims: the model returned no choice")
	}
	claims, none, ok := parseClaims(resp.Choices[0].Content)
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: %s", ErrUnparsableClaims, quoteForReason(resp.Choices[0].Content))
	case none && len(claims) == 0:
		return nil, nil
	case len(claims) > x.maxClaims:
		return nil, fmt.Errorf("llmjudge: claims: %d claims, over the limit of %d", len(claims), x.maxClaims)
	}
	return claims, nil
}
