package llmjudge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/tmc/langchaingo/embeddings"

	"github.com/ragtriage/ragtriage/guard"
)

// EmbeddingConfig configures an EmbeddingJudge.
type EmbeddingConfig struct {
	// Embedder embeds the question and the contexts. Required.
	Embedder embeddings.Embedder
	// Name names the embedding model in results; "embedding" when empty.
	Name string
	// Floor is the cosine similarity below which a chunk is judged
	// irrelevant. It is a rule, not a probability: choose it on labeled
	// data (the similarity of relevant chunks rarely falls below it).
	// Required, in (-1, 1].
	Floor float64
	// BelowFloor is the P reported for a chunk under the floor (default
	// 0, the rule's "irrelevant"). Calibrate, when set, is used instead.
	BelowFloor float64
	// Calibrate, when set, maps a similarity to P(relevant) for every chunk
	// (a calibrator fitted on labeled data, e.g. with package calibrate).
	// Without it, chunks at or above the floor are abstentions: the floor
	// only rules chunks out.
	Calibrate func(similarity float64) float64
}

// EmbeddingJudge is a guard.Judge for chunk relevance by embedding
// similarity: it gives a similarity floor that rules out chunks unrelated
// to the question, to corroborate or cheaply pre-empt an LLM judge. It
// abstains on every other decision. Safe for concurrent use if the
// Embedder is.
type EmbeddingJudge struct {
	cfg EmbeddingConfig
}

// NewEmbedding returns an EmbeddingJudge.
func NewEmbedding(cfg EmbeddingConfig) (*EmbeddingJudge, error) {
	if cfg.Embedder == nil {
		return nil, errors.New("llmjudge: EmbeddingConfig.Embedder is nil")
	}
	if math.IsNaN(cfg.Floor) || cfg.Floor <= -1 || cfg.Floor > 1 {
		return nil, fmt.Errorf("llmjudge: embedding floor %v outside (-1, 1]", cfg.Floor)
	}
	if math.IsNaN(cfg.BelowFloor) || cfg.BelowFloor < 0 || cfg.BelowFloor > 1 {
		return nil, fmt.Errorf("llmjudge: BelowFloor %v outside [0, 1]", cfg.BelowFloor)
	}
	if cfg.Name == "" {
		cfg.Name = "embedding"
	}
	return &EmbeddingJudge{cfg: cfg}, nil
}

// Describe implements guard.Describer.
func (j *EmbeddingJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "llmjudge/embedding/" + j.cfg.Name, Version: PromptVersion}
}

// Judge implements guard.Judge.
func (j *EmbeddingJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	s := req.Sample
	if s == nil {
		return nil, errors.New("llmjudge: nil sample")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llmjudge: embedding: %w", err)
	}
	var out []guard.Estimate
	wantChunks := false
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			wantChunks = true
			continue
		}
		if d.Valid() {
			out = append(out, guard.Abstain(d, "", "the embedding judge only judges chunk relevance"))
		}
	}
	if !wantChunks || len(s.Contexts) == 0 {
		return out, nil
	}
	start := time.Now()
	q, err := j.cfg.Embedder.EmbedQuery(ctx, s.Question)
	if err != nil {
		return nil, j.wrap(ctx, err)
	}
	texts := make([]string, len(s.Contexts)) // the embedder may rewrite it
	for i := range s.Contexts {
		texts[i] = s.Contexts[i].Text
	}
	vs, err := j.cfg.Embedder.EmbedDocuments(ctx, texts)
	if err != nil {
		return nil, j.wrap(ctx, err)
	}
	if len(vs) != len(s.Contexts) {
		return nil, fmt.Errorf("llmjudge: embedding: %d vectors for %d contexts", len(vs), len(s.Contexts))
	}
	lat := time.Since(start)
	for i, c := range s.Contexts {
		sim, ok := cosine(q, vs[i])
		e := guard.Estimate{Decision: guard.ChunkRelevance, ContextID: c.ID, Latency: lat}
		switch {
		case !ok:
			e.Abstained, e.Reason = true, "embedding vectors are empty, zero or of different lengths"
		case j.cfg.Calibrate != nil:
			p := j.cfg.Calibrate(sim)
			if math.IsNaN(p) || p < 0 || p > 1 {
				return nil, fmt.Errorf("llmjudge: embedding: Calibrate(%v) = %v, outside [0, 1]", sim, p)
			}
			e.P = p
		case sim < j.cfg.Floor:
			e.P = j.cfg.BelowFloor
		default:
			e.Abstained, e.Reason = true, fmt.Sprintf("similarity %.3f is at or above the floor %.3f: the embedding judge only rules chunks out", sim, j.cfg.Floor)
		}
		if sim < j.cfg.Floor && ok {
			e.Evidence = []guard.Evidence{{Decision: guard.ChunkRelevance, Kind: guard.EvidenceOffTopic,
				Detail: fmt.Sprintf("cosine similarity to the question %.3f, below the floor %.3f", sim, j.cfg.Floor)}}
		}
		out = append(out, e)
	}
	return out, nil
}

func (j *EmbeddingJudge) wrap(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("llmjudge: embedding: %w (%w)", cerr, err)
	}
	return fmt.Errorf("llmjudge: embedding: %w", err)
}

// cosine returns the cosine similarity of a and b.
func cosine(a, b []float32) (float64, bool) {
	if len(a) == 0 || len(a) != len(b) {
		return 0, false
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 || math.IsNaN(dot) {
		return 0, false
	}
	return dot / math.Sqrt(na*nb), true
}
