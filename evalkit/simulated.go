package evalkit

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
)

type labelsKey struct{}

// ContextWithLabels returns a context carrying the labels of the sample being
// replayed. The runner sets it for every labeled row so that a label-aware
// simulation (SimulatedJudge) can read them; real judges never look.
func ContextWithLabels(ctx context.Context, e *dataset.Expected) context.Context {
	return context.WithValue(ctx, labelsKey{}, e)
}

// labelsFromContext returns the labels ContextWithLabels stored, or nil.
func labelsFromContext(ctx context.Context) *dataset.Expected {
	e, _ := ctx.Value(labelsKey{}).(*dataset.Expected)
	return e
}

// simulationName is the name a SimulatedJudge reports by default. It says
// "simulated" so that no report can pass it off as a real judge.
const simulationName = "simulated-fallback"

// simulationVersion is the version of SimulatedJudge's behaviour.
const simulationVersion = "sim/1"

// SimulatedConfig configures a SimulatedJudge. The zero value is a
// simulation that is never wrong, reports no latency and no tokens, and
// abstains on unlabeled decisions.
type SimulatedConfig struct {
	// ErrorRate is the probability, in [0, 1], that an estimate of a
	// labeled decision lands on the wrong side of 0.5.
	ErrorRate float64
	// Latency is the latency the simulation reports for each call (one call
	// per decision, per context for chunk relevance), varied
	// deterministically by ±20%. Nothing waits for it unless Sleep is set.
	Latency time.Duration
	// Sleep makes each Judge call wait for the longest latency it reports
	// (honouring ctx), for load tests. Off, the latency is only reported.
	Sleep bool
	// InputTokens and OutputTokens are the tokens each call reports.
	InputTokens, OutputTokens int
	// Seed selects the deterministic draws: the same seed, sample and
	// decision always give the same estimate.
	Seed uint64
	// Unlabeled answers the decisions that have no label (the runner passes
	// the labels through the context, see ContextWithLabels). Its estimates
	// keep its name (Estimate.Judge), so that a teacher answer read from
	// the primary judge is never taken for a label. nil: those decisions
	// are abstained with a reason.
	Unlabeled guard.Judge
	// Name replaces "simulated-fallback" in results; it must still say that the
	// judge is a simulation.
	Name string
}

// SimulatedJudge is a SIMULATION of a fallback judge, for offline runs and
// CI: it has no model and no network. For a decision whose label it can read
// from the context (ContextWithLabels), it returns a confident probability
// on the labeled side of 0.5 — P in [0.80, 0.99] for true, [0.01, 0.20] for
// false — except that with probability ErrorRate it lands on the wrong side.
// All draws are deterministic functions of (Seed, sample ID or text,
// decision, context ID). Decisions without a label go to Unlabeled, or are
// abstained. Every estimate (also those Unlabeled gives) reports the
// configured latency and token usage as one call,
// so that latency, token and cost sections of a report can be exercised
// without a network.
//
// A SimulatedJudge is immutable and safe for concurrent use.
type SimulatedJudge struct {
	cfg SimulatedConfig
}

// NewSimulatedJudge returns a simulated judge, or an error for an error rate
// outside [0, 1], a negative latency or token count.
func NewSimulatedJudge(cfg SimulatedConfig) (*SimulatedJudge, error) {
	switch {
	case math.IsNaN(cfg.ErrorRate) || cfg.ErrorRate < 0 || cfg.ErrorRate > 1:
		return nil, fmt.Errorf("evalkit: simulated judge: error rate %v not in [0, 1]", cfg.ErrorRate)
	case cfg.Latency < 0:
		return nil, fmt.Errorf("evalkit: simulated judge: negative latency %v", cfg.Latency)
	case cfg.InputTokens < 0 || cfg.OutputTokens < 0:
		return nil, errors.New("evalkit: simulated judge: negative token count")
	}
	if cfg.Name == "" {
		cfg.Name = simulationName
	}
	return &SimulatedJudge{cfg: cfg}, nil
}

// Describe names the judge as a simulation.
func (j *SimulatedJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: j.cfg.Name, Version: simulationVersion}
}

// Inline reports whether the judge may run on the caller's goroutine: true
// unless it sleeps.
func (j *SimulatedJudge) Inline() bool { return !j.cfg.Sleep }

// Judge implements guard.Judge.
func (j *SimulatedJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	labels := labelsFromContext(ctx)
	s := req.Sample
	key := s.ID
	if key == "" {
		key = "q:" + s.Question + "\x00a:" + s.Answer
	}
	var (
		out        []guard.Estimate
		unlabeled  []guard.Decision
		unChunks   map[string]bool
		maxLatency time.Duration
	)
	add := func(d guard.Decision, ctxID string, label bool) {
		u := j.draw(key, d, ctxID, 0)
		v := j.draw(key, d, ctxID, 1)
		right := label
		if u < j.cfg.ErrorRate {
			right = !label
		}
		p := 0.01 + 0.19*v
		if right {
			p = 0.80 + 0.19*v
		}
		lat, usage := j.callCost(key, d, ctxID)
		maxLatency = max(maxLatency, lat)
		out = append(out, guard.Estimate{Decision: d, ContextID: ctxID, P: p, Latency: lat, Usage: usage})
	}
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for _, c := range s.Contexts {
				if v, ok := labels.ChunkLabel(c.ID); ok {
					add(d, c.ID, v)
					continue
				}
				if unChunks == nil {
					unChunks = map[string]bool{}
					unlabeled = append(unlabeled, d)
				}
				unChunks[c.ID] = true
			}
			continue
		}
		if v, ok := labels.Label(d); ok {
			add(d, "", v)
		} else {
			unlabeled = append(unlabeled, d)
		}
	}
	if len(unlabeled) > 0 {
		more, err := j.unlabeled(ctx, req, key, unlabeled, unChunks)
		if err != nil {
			return nil, err
		}
		for i := range more {
			maxLatency = max(maxLatency, more[i].Latency)
		}
		out = append(out, more...)
	}
	if j.cfg.Sleep && maxLatency > 0 {
		t := time.NewTimer(maxLatency)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return out, nil
}

// unlabeled answers the decisions without a label through cfg.Unlabeled, or
// abstains on them.
func (j *SimulatedJudge) unlabeled(ctx context.Context, req guard.Request, key string, ds []guard.Decision, chunks map[string]bool) ([]guard.Estimate, error) {
	const reason = "simulated judge: no label for this decision"
	if j.cfg.Unlabeled == nil {
		var out []guard.Estimate
		for _, d := range ds {
			if d == guard.ChunkRelevance {
				for _, c := range req.Sample.Contexts {
					if chunks[c.ID] {
						out = append(out, guard.Abstain(d, c.ID, reason))
					}
				}
				continue
			}
			out = append(out, guard.Abstain(d, "", reason))
		}
		return out, nil
	}
	sub := req
	sub.Decisions = ds
	got, err := j.cfg.Unlabeled.Judge(ctx, sub)
	if err != nil {
		return nil, fmt.Errorf("simulated judge: unlabeled decisions: %w", err)
	}
	// These estimates are the Unlabeled judge's, and say so: a teacher
	// answer read from the primary judge is not a label (see
	// guard.Teacher.FromPrimary).
	var info guard.JudgeInfo
	if d, ok := j.cfg.Unlabeled.(guard.Describer); ok {
		info = d.Describe()
	}
	if info.Name == "" {
		info.Name = fmt.Sprintf("%T", j.cfg.Unlabeled)
	}
	out := got[:0]
	for _, e := range got {
		if e.Decision == guard.ChunkRelevance && !chunks[e.ContextID] {
			continue
		}
		// The simulation stands for one judge: these calls cost like the
		// others.
		e.Latency, e.Usage = j.callCost(key, e.Decision, e.ContextID)
		if e.Judge == "" {
			e.Judge, e.JudgeVersion = info.Name, info.Version
		}
		e.Features = nil
		out = append(out, e)
	}
	return out, nil
}

// callCost is the latency and usage the simulation reports for one call.
func (j *SimulatedJudge) callCost(key string, d guard.Decision, ctxID string) (time.Duration, guard.Usage) {
	lat := time.Duration(float64(j.cfg.Latency) * (0.8 + 0.4*j.draw(key, d, ctxID, 2)))
	return lat, guard.Usage{InputTokens: j.cfg.InputTokens, OutputTokens: j.cfg.OutputTokens, Calls: 1}
}

// draw returns a deterministic uniform number in [0, 1) for one stream of one
// estimate.
func (j *SimulatedJudge) draw(key string, d guard.Decision, ctxID string, stream byte) float64 {
	h := fnv.New64a()
	var b [9]byte
	binary.LittleEndian.PutUint64(b[:8], j.cfg.Seed)
	b[8] = stream
	h.Write(b[:])
	h.Write([]byte(key))
	h.Write([]byte{0, byte(d), 0})
	h.Write([]byte(ctxID))
	x := h.Sum64()
	// Finalise (splitmix64) so that nearby inputs give unrelated outputs.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}
