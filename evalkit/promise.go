package evalkit

import (
	"slices"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// promiseTest names the promise monitor's test in the report.
const promiseTest = "beta-binomial mixture martingale per decision side, checked after every audit (Ville: P(a side keeping its promise ever trips) ≤ delta)"

// promiseAcc follows the promise monitor over a run (report.Promise), row
// by row in input order.
type promiseAcc struct {
	rows, audited int
	trips         []report.PromiseTrip
	sides         map[guard.Side]*promiseSideAcc
}

type promiseSideAcc struct {
	tripRow       int
	before, after report.AutoVerdicts
	withheld      int
}

func (p *promiseAcc) side(s guard.Side) *promiseSideAcc {
	if p.sides == nil {
		p.sides = map[guard.Side]*promiseSideAcc{}
	}
	a, ok := p.sides[s]
	if !ok {
		a = &promiseSideAcc{}
		p.sides[s] = a
	}
	return a
}

// add counts one judged row: its automatic verdicts (against its labels),
// its withheld verdicts, whether its audit reached the monitor, and the
// trips that audit caused (which apply from the next row on).
func (p *promiseAcc) add(o *outcome) {
	p.rows++
	r := &o.res
	exp := o.item.Expected
	count := func(d guard.Decision, id string, v guard.Verdict) {
		if v == guard.Uncertain || escalatedDecision(r.Fallback, d, id) {
			return
		}
		a := p.side(guard.Side{Decision: d, Verdict: v})
		c := &a.before
		if a.tripRow > 0 {
			c = &a.after
		}
		c.Verdicts++
		var y, ok bool
		if d == guard.ChunkRelevance {
			y, ok = exp.ChunkLabel(id)
		} else {
			y, ok = exp.Label(d)
		}
		if ok {
			c.Labelled++
			if wrongVerdict(d, v, y) {
				c.Wrong++
			}
		}
	}
	for _, e := range r.Verdicts.Retrieval.ChunkRelevance {
		count(guard.ChunkRelevance, e.Key, e.Value)
	}
	for _, d := range guard.Decisions[1:] {
		if v, ok := r.Verdict(d); ok {
			count(d, "", v)
		}
	}
	var withheld guard.Sides
	for _, w := range r.Withheld {
		withheld |= guard.SidesOf(guard.Side{Decision: w.Decision, Verdict: w.Verdict})
	}
	for _, s := range withheld.List() {
		p.side(s).withheld++
	}
	if r.Draw != nil && r.Draw.Drawn && r.Draw.Kind == guard.DrawAudit && len(guard.AuditOutcomes(r)) > 0 {
		p.audited++
	}
	for _, t := range o.trips {
		p.side(t.Side).tripRow = p.rows
		p.trips = append(p.trips, report.PromiseTrip{Decision: t.Decision.String(), Side: t.Verdict.String(),
			Row: p.rows, ID: rowID(&o.item), AuditedRows: p.audited,
			Audits: t.Audits, Disagreements: t.Disagreements, EValue: t.EValue})
	}
}

// rowID is the row's ID, or its sample's.
func rowID(it *dataset.Item) string {
	if it.ID == "" && it.Sample != nil {
		return it.Sample.ID
	}
	return it.ID
}

// escalatedDecision reports whether the fallback was asked about (d, id):
// its verdict is then the fallback's, not the embedded judges'.
func escalatedDecision(f *guard.FallbackInfo, d guard.Decision, id string) bool {
	if f == nil || !slices.Contains(f.Decisions, d) {
		return false
	}
	return d != guard.ChunkRelevance || slices.Contains(f.Contexts, id)
}

// wrongVerdict reports whether the verdict v on the answer (Pass or Fail)
// contradicts the label y of d's proposition: for most decisions the truth
// is Pass when y holds; for the adverse ones (conflict, contradiction) when
// it does not.
func wrongVerdict(d guard.Decision, v guard.Verdict, y bool) bool {
	healthy := y != d.Adverse()
	return (v == guard.Pass) != healthy
}

// report returns the promise block: the accumulated counts beside the
// monitor's state at the end.
func (p *promiseAcc) report(m *guard.PromiseMonitor, ev Evaluator) *report.Promise {
	cfg := m.Config()
	out := &report.Promise{Alpha: cfg.Alpha, Delta: cfg.Delta, PriorA: cfg.PriorA, PriorB: cfg.PriorB, Test: promiseTest,
		Rows: p.rows, AuditedRows: p.audited, Trips: nonNil(p.trips), Sides: []report.PromiseSide{}}
	state := map[guard.Side]guard.SideState{}
	if g, ok := ev.(interface {
		Monitor() (guard.Monitor, *guard.Promise)
	}); ok {
		if _, pr := g.Monitor(); pr != nil {
			out.Promise = pr.Key
			for _, st := range m.State(pr) {
				state[st.Side] = st
			}
		}
	}
	for _, d := range guard.Decisions {
		for _, v := range []guard.Verdict{guard.Pass, guard.Fail} {
			s := guard.Side{Decision: d, Verdict: v}
			a, st := p.sides[s], state[s]
			if a == nil && st.Audits == 0 && !st.Tripped {
				continue
			}
			if a == nil {
				a = &promiseSideAcc{}
			}
			out.Sides = append(out.Sides, report.PromiseSide{Decision: d.String(), Side: v.String(),
				Audits: st.Audits, Disagreements: st.Disagreements, EValue: st.EValue, Tripped: st.Tripped || a.tripRow > 0,
				TripRow: a.tripRow, Before: a.before, After: a.after, Withheld: a.withheld})
		}
	}
	return out
}
