package cascade

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/ragtriage/ragtriage/guard"
)

// DefaultShareUniform is the part of Limits.Share spread uniformly over the
// answers below the risk quantile when Limits.ShareUniform is 0.
const DefaultShareUniform = 0.1

// BudgetRiskReserve is the part of a call budget (Budget.MaxCalls, rounded
// up) kept for the escalations Limits.Share admits by rank: one admitted by
// the uniform draw (or during the warm-up) is refused with
// guard.CauseBudget once the window's calls reach MaxCalls less this part.
// So when the budget runs short, the least risky admitted escalations are
// refused first. Such a refusal is a non-response of the share's sample:
// the traffic estimates then say they are unavailable rather than guess.
const BudgetRiskReserve = 0.2

// ShareWarmup is how many risks a window holds (ShareWindow, when fewer)
// before its quantile is used; until then every escalation is drawn
// uniformly with probability Share. A ShareStore uses the same.
const ShareWarmup = 32

// Risk is the risk an escalation is ranked by under Limits.Share (unless
// WithRisk replaces it): the probability, by the embedded judges' own
// estimates (Escalation.Primary), that the answer fails the check that
// every pass rule makes, groundedness:
//
//	risk = 1 − P(grounded)
//
// When groundedness is not escalated, it is 1 − Π P(healthy) over the
// escalated decisions the pass rule (Escalation.PassRule) does not waive, or
// over every escalated decision when it waives them all. P(healthy) is the
// estimate's P, or 1 − P for an adverse decision (context conflict,
// contradiction); for chunk relevance it is the probability that at least
// one escalated chunk is relevant, 1 − Π(1 − P). An abstained or missing
// estimate counts as even odds (0.5). The product treats the decisions as
// independent: a ranking, not a calibrated probability. Groundedness alone
// ranks first because a PASS needs it under every rule, and because the
// other decisions' estimates, uninformative on much real traffic, would
// drown its ranking in a product. A NaN reads as 1.
func Risk(esc *guard.Escalation) float64 {
	var h float64
	if slices.Contains(esc.Decisions, guard.Groundedness) {
		h = healthyP(esc, guard.Groundedness)
	} else {
		prod := func(all bool) (float64, bool) {
			p, any := 1.0, false
			for _, d := range esc.Decisions {
				if !all && esc.PassRule.Waives(d) {
					continue
				}
				any = true
				p *= healthyP(esc, d)
			}
			return p, any
		}
		var ok bool
		if h, ok = prod(false); !ok {
			h, _ = prod(true)
		}
	}
	r := 1 - h
	switch {
	case math.IsNaN(r) || r > 1:
		return 1
	case r < 0:
		return 0
	}
	return r
}

// healthyP is the probability that decision d is healthy for the answer,
// by the primary estimates of esc.
func healthyP(esc *guard.Escalation, d guard.Decision) float64 {
	const even = 0.5
	clamp := func(p float64) float64 {
		if math.IsNaN(p) {
			return even
		}
		return min(max(p, 0), 1)
	}
	if d == guard.ChunkRelevance {
		none, seen := 1.0, false
		for i := range esc.Primary {
			e := &esc.Primary[i]
			if e.Decision != d {
				continue
			}
			p := even
			if !e.Abstained {
				p = clamp(e.P)
			}
			none *= 1 - p
			seen = true
		}
		if !seen {
			return even
		}
		return 1 - none
	}
	for i := range esc.Primary {
		e := &esc.Primary[i]
		if e.Decision != d {
			continue
		}
		if e.Abstained {
			return even
		}
		if d.Adverse() {
			return 1 - clamp(e.P)
		}
		return clamp(e.P)
	}
	return even
}

// RiskWindow names a window of recent risks kept for Limits.Share: its size
// (Limits.ShareWindow) and the fraction of it admitted by rank (the share
// less its uniform part). A ShareStore keeps one per distinct RiskWindow.
type RiskWindow struct {
	Size int
	Top  float64
}

// Admission is what a risk window says about one risk.
type Admission struct {
	// Warm reports that the window held enough risks (32, or its size when
	// smaller) for its quantile to be used; until then every escalation is
	// drawn uniformly.
	Warm bool
	// Top reports that the risk was above the window's (1 − Top) quantile
	// while fewer than ⌈Top × min(n + 1, Size)⌉ of the window's n answers
	// were admitted by rank: the escalation is admitted with probability
	// 1.
	Top bool
}

// ShareStore is a Store that also keeps a fleet's window of recent risks,
// so that N replicas admit one share of their joint traffic (package
// cascade/redisstore implements it). A store that does not implement it
// leaves each replica to its own window.
type ShareStore interface {
	Store
	// AdmitRisk ranks risk against window w's recent risks (as
	// MemoryStore.AdmitRisk does), then adds it to the window, atomically.
	AdmitRisk(ctx context.Context, w RiskWindow, risk float64) (Admission, error)
}

// riskWindow is a sliding window of the last size risks, kept sorted for
// its quantile, with which of them were admitted by rank. Safe for
// concurrent use.
type riskWindow struct {
	w      RiskWindow
	mu     sync.Mutex
	ring   []float64 // in arrival order, from head
	top    []bool
	head   int
	sorted []float64
	tops   int
}

func newRiskWindow(w RiskWindow) *riskWindow {
	return &riskWindow{w: w, ring: make([]float64, 0, w.Size), top: make([]bool, 0, w.Size), sorted: make([]float64, 0, w.Size)}
}

// admit ranks risk against the window, then adds it.
func (rw *riskWindow) admit(risk float64) Admission {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	n := len(rw.sorted)
	var a Admission
	if n >= min(ShareWarmup, rw.w.Size) {
		a.Warm = true
		r := min(int((1-rw.w.Top)*float64(n)), n-1)
		a.Top = risk >= rw.sorted[r] && rw.tops < topCap(rw.w, n)
	}
	if n == rw.w.Size {
		old := rw.ring[rw.head]
		if rw.top[rw.head] {
			rw.tops--
		}
		i := sort.SearchFloat64s(rw.sorted, old)
		rw.sorted = slices.Delete(rw.sorted, i, i+1)
		rw.ring[rw.head], rw.top[rw.head] = risk, a.Top
		rw.head = (rw.head + 1) % rw.w.Size
	} else {
		rw.ring = append(rw.ring, risk)
		rw.top = append(rw.top, a.Top)
	}
	if a.Top {
		rw.tops++
	}
	i := sort.SearchFloat64s(rw.sorted, risk)
	rw.sorted = slices.Insert(rw.sorted, i, risk)
	return a
}

// topCap is ⌈Top × min(n + 1, Size)⌉, the most escalations of a window
// holding n risks that may be admitted by rank once the next one is: so
// the part by rank stays within Top of the escalations seen while the
// window fills, and of the window once it is full (a hair below the
// product, so that 0.2 × 0.9 × 100 is 18, not 19).
func topCap(w RiskWindow, n int) int {
	return int(math.Ceil(w.Top*float64(min(n+1, w.Size)) - 1e-9))
}

// AdmitRisk implements ShareStore: risk is admitted by rank (Top) when it
// is above the (1 − w.Top) quantile of the window's last w.Size risks (n of
// them) and fewer than ⌈w.Top × min(n + 1, w.Size)⌉ of them were; then it
// joins the window. A NaN risk reads as 1.
func (m *MemoryStore) AdmitRisk(_ context.Context, w RiskWindow, risk float64) (Admission, error) {
	if w.Size <= 0 || !(w.Top >= 0 && w.Top <= 1) {
		return Admission{}, fmt.Errorf("cascade: risk window %+v: want a positive size and a top fraction in [0, 1]", w)
	}
	if math.IsNaN(risk) {
		risk = 1
	}
	return m.window(w).admit(risk), nil
}

// window returns the risk window for w, made on first use.
func (m *MemoryStore) window(w RiskWindow) *riskWindow {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.wins == nil {
		m.wins = map[RiskWindow]*riskWindow{}
	}
	rw, ok := m.wins[w]
	if !ok {
		rw = newRiskWindow(w)
		m.wins[w] = rw
	}
	return rw
}

var _ ShareStore = (*MemoryStore)(nil)

// shareGate admits escalations within Limits.Share (see Limits.Share for
// the design).
type shareGate struct {
	share   float64 // Limits.Share
	uniform float64 // probability of the uniform draw below the quantile
	w       RiskWindow
	local   *riskWindow
	seed    uint64
	risk    func(*guard.Escalation) float64 // WithRisk; nil: Risk
	seq     atomic.Uint64
	// Counters: escalations admitted by rank, by the draw, refused.
	top, drawn, refused atomic.Uint64
}

// newShareGate returns the gate for l (nil without a share). l is valid.
func newShareGate(l Limits) *shareGate {
	if l.Share == 0 {
		return nil
	}
	u := l.ShareUniform
	if u == 0 {
		u = DefaultShareUniform
	}
	top := l.Share * (1 - u)
	g := &shareGate{share: l.Share, w: RiskWindow{Size: l.ShareWindow, Top: top}, seed: l.ShareSeed}
	if top < 1 {
		g.uniform = (l.Share - top) / (1 - top)
	}
	g.local = newRiskWindow(g.w)
	return g
}

// draw returns a uniform number in [0, 1) from the gate's seed and its
// sequence of draws (SplitMix64): the same sequence for the same seed.
func (g *shareGate) draw() float64 {
	z := g.seed + g.seq.Add(1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// admit decides whether esc goes to the fallback and returns its inclusion
// probability.
func (c *Cascade) admit(ctx context.Context, esc *guard.Escalation) (pi float64, ok bool) {
	g := c.share
	if g.share >= 1 {
		g.top.Add(1)
		return 1, true
	}
	var risk float64
	if g.risk != nil {
		risk = g.risk(esc)
	} else {
		risk = Risk(esc)
	}
	a := g.local.admit(risk)
	if ss, shared := c.shared.(ShareStore); shared {
		sctx, cancel := c.storeCtx(ctx)
		sa, err := ss.AdmitRisk(sctx, g.w, risk)
		cancel()
		if err == nil {
			a = sa
		} else {
			c.storeFailed(ctx, opShare)
		}
	}
	switch {
	case !a.Warm:
		pi = g.share
	case a.Top:
		g.top.Add(1)
		return 1, true
	default:
		pi = g.uniform
	}
	if g.draw() < pi {
		g.drawn.Add(1)
		return pi, true
	}
	g.refused.Add(1)
	return pi, false
}

// refuseShare abstains every item of an escalation the share did not
// admit.
func (c *Cascade) refuseShare(ctx context.Context, its []item, out []guard.Estimate, pi float64) {
	why := fmt.Sprintf("%s: risk below the %.0f%% share's quantile, not drawn (inclusion probability %.4g)", reasonShare, 100*c.share.share, pi)
	for i, it := range its {
		out[i] = guard.Abstain(it.d, it.ctx, why)
		out[i].Cause = guard.CauseShare
		out[i].Judge, out[i].JudgeVersion = c.info.Name, c.info.Version
		out[i].Inclusion = pi
		c.count(ctx, guard.CauseShare)
	}
	c.st.misses.Add(uint64(len(its)))
	c.report(Counts{Escalations: 1, Requested: uint64(len(its)), Abstained: uint64(len(its))})
}

// validateShare checks the share fields of l.
func (l Limits) validateShare() error {
	switch {
	case math.IsNaN(l.Share) || l.Share < 0 || l.Share > 1:
		return fmt.Errorf("cascade: limits: Share %v: want a fraction in (0, 1], or 0 for no bound", l.Share)
	case l.Share == 0 && (l.ShareWindow != 0 || l.ShareUniform != 0):
		return errors.New("cascade: limits: ShareWindow and ShareUniform need Share: set Share to the fraction of answers the fallback may see")
	case l.Share == 0:
		return nil
	case l.ShareWindow <= 0:
		return fmt.Errorf("cascade: limits: Share %v needs ShareWindow %d > 0: set ShareWindow to the number of recent answers the share is counted over (e.g. 1000)", l.Share, l.ShareWindow)
	case math.IsNaN(l.ShareUniform) || l.ShareUniform < 0 || l.ShareUniform >= 1:
		return fmt.Errorf("cascade: limits: ShareUniform %v: want a fraction in [0, 1) (0: DefaultShareUniform)", l.ShareUniform)
	}
	return nil
}

// ShareStats are the counts of Limits.Share's admission since New. They
// add up to the escalations the share governed: Stats().Escalations less
// the teacher draws (guard.Escalation.Teacher), which it does not.
type ShareStats struct {
	// Top counts escalations admitted by rank (inclusion probability 1);
	// Drawn those admitted by the uniform draw; Refused those it did not
	// admit (their estimates abstain with guard.CauseShare).
	Top     uint64 `json:"top"`
	Drawn   uint64 `json:"drawn"`
	Refused uint64 `json:"refused"`
}

// ShareStats returns the share's counts (zero without Limits.Share).
func (c *Cascade) ShareStats() ShareStats {
	if c.share == nil {
		return ShareStats{}
	}
	return ShareStats{Top: c.share.top.Load(), Drawn: c.share.drawn.Load(), Refused: c.share.refused.Load()}
}
