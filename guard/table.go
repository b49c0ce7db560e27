package guard

// reader says which policy turns an estimate's P into a verdict.
type reader uint8

const (
	readPolicy   reader = iota // the guard's policy
	readFallback               // the escalator's policy
	readFixed                  // a verdict fixed by claims mode (table.fixed)
)

// table is the guard's working state for one evaluation: the estimates it
// kept and, beside them, which policy reads each one. Routing lives here, not
// on the exported Estimate. The Result's per-decision fields are filled from
// it through Result.slots (result.go).
type table struct {
	ests []Estimate
	// via[i] reads ests[i]; nil when every estimate is read with the guard's
	// policy (the usual case, which allocates nothing).
	via []reader
	// fixed is the verdict of the estimate read with readFixed.
	fixed Verdict
	// spent, when set, replaces the sum of the kept estimates' usage in
	// Result.Usage: an escalation also counts what it spent on estimates it
	// did not keep.
	spent    Usage
	spentSet bool
	// broken holds the sides the monitor found broken: the guard's policy
	// does not give their verdicts. withheld records the verdicts so
	// withheld on the first decide (decided: it ran once).
	broken   Sides
	withheld []Withheld
	decided  bool
}

// emptied returns a table without estimates (room for n) that keeps the
// rest of t: the fixed verdict and the monitor's broken sides and withheld
// verdicts.
func (t *table) emptied(n int) table {
	return table{ests: make([]Estimate, 0, n), fixed: t.fixed, broken: t.broken, withheld: t.withheld, decided: t.decided}
}

func (t *table) reader(i int) reader {
	if t.via == nil {
		return readPolicy
	}
	return t.via[i]
}

// add appends e, read with r.
func (t *table) add(e Estimate, r reader) {
	if t.via == nil && r != readPolicy {
		t.via = make([]reader, len(t.ests), cap(t.ests)+1)
	}
	t.ests = append(t.ests, e)
	if t.via != nil {
		t.via = append(t.via, r)
	}
}

// verdict reads ests[i] with the policy that applies to it, as a verdict on
// the answer (Policy.Verdict).
func (g *Guard) verdict(t *table, i int) Verdict {
	e := &t.ests[i]
	switch t.reader(i) {
	case readFallback:
		return g.esc.policy.Verdict(e.Decision, e.P)
	case readFixed:
		return t.fixed
	}
	v := g.policyVerdict(e.Decision, e.P)
	if t.broken != 0 && t.broken.Has(e.Decision, v) {
		if !t.decided {
			t.withhold(e.Decision, e.ContextID, v)
		}
		return Uncertain
	}
	return v
}

// policyVerdict is g.policy.Verdict(d, p), read from the thresholds New
// prepared.
func (g *Guard) policyVerdict(d Decision, p float64) Verdict {
	if int(d) >= len(g.live) || !g.live[d] {
		return Uncertain
	}
	return d.AnswerVerdict(g.thresholds[d].Verdict(p))
}

// oneChunk holds the chunk relevance of a sample with one context.
type oneChunk struct {
	p [1]Entry[Prob]
	v [1]Entry[Verdict]
}

// decide fills the per-decision part of r from t — probabilities, verdicts
// and abstentions, through Result.slots — and diagnoses it. It runs
// once, and again after an escalation merged its estimates into t.
func (g *Guard) decide(r *Result, s *Sample, t *table) {
	ests := t.ests
	r.Abstentions = r.Abstentions[:0]
	var single [numDecisions + 1]int // index+1 into ests; 0: none
	for i := range ests {
		if d := ests[i].Decision; d != ChunkRelevance && single[d] == 0 {
			single[d] = i + 1
		}
	}

	// Chunk relevance, in context order.
	if n := len(s.Contexts); n > 0 {
		if len(r.Retrieval.ChunkRelevance) != n {
			if n == 1 {
				// The usual sample has one context: both slices in one
				// allocation.
				c := new(oneChunk)
				r.Retrieval.ChunkRelevance, r.Verdicts.Retrieval.ChunkRelevance = c.p[:], c.v[:]
			} else {
				r.Retrieval.ChunkRelevance = make(Keyed[Prob], n)
				r.Verdicts.Retrieval.ChunkRelevance = make(Keyed[Verdict], n)
			}
		}
		cursor := 0
		for i := range s.Contexts {
			id := s.Contexts[i].ID
			r.Retrieval.ChunkRelevance[i] = Entry[Prob]{Key: id, Value: Prob{Asked: true}}
			r.Verdicts.Retrieval.ChunkRelevance[i] = Entry[Verdict]{Key: id}
			found := -1
			// Judges usually return chunks in context order: start the
			// search after the previous match.
			for k := range ests {
				j := (cursor + k) % len(ests)
				if ests[j].Decision == ChunkRelevance && ests[j].ContextID == id {
					found, cursor = j, j+1
					break
				}
			}
			switch {
			case found < 0:
				r.Abstentions = append(r.Abstentions, missing(r, ChunkRelevance, id))
			case ests[found].Abstained:
				r.Abstentions = append(r.Abstentions, abstention(&ests[found]))
			default:
				r.Retrieval.ChunkRelevance[i].Value = KnownProb(ests[found].P)
				r.Verdicts.Retrieval.ChunkRelevance[i].Value = g.verdict(t, found)
			}
		}
	} else {
		r.Retrieval.ChunkRelevance = Keyed[Prob]{}
		r.Verdicts.Retrieval.ChunkRelevance = Keyed[Verdict]{}
	}

	for _, d := range Decisions[1:] {
		if d == Correctness && s.Reference == nil {
			continue // absent, never guessed
		}
		p, v := Prob{Asked: true}, Uncertain
		switch i := single[d] - 1; {
		case i < 0:
			r.Abstentions = append(r.Abstentions, missing(r, d, ""))
		case ests[i].Abstained:
			r.Abstentions = append(r.Abstentions, abstention(&ests[i]))
		default:
			p, v = KnownProb(ests[i].P), g.verdict(t, i)
		}
		pp, vp, _ := r.slots(d, true) // Set, for a decision that has its fields
		*pp, *vp = p, v
	}
	if len(r.Abstentions) == 0 {
		r.Abstentions = nil
	}

	r.PassRule = g.policy.PassRule
	var o Outcome
	// The built-in rules are known by their type, not by comparison with
	// the DefaultDiagnoser variable: a caller may have set that to rules of
	// its own, of a type that cannot even be compared.
	_, builtin := g.diagnoser.(diagnoserV1)
	switch {
	case !builtin:
		o = g.diagnoser.Diagnose(escaped(r))
	case g.esc == nil:
		o = diagnose(r, true) // routed to review, in one allocation
	default:
		o = diagnose(r, false) // DefaultDiagnoser.Diagnose, without the interface call
	}
	r.Diagnosis, r.Confidence, r.Route, r.Reason = o.Diagnosis, o.Confidence, o.Route, o.Reason
	t.decided = true
	if len(t.withheld) > 0 {
		r.Withheld = t.withheld
		r.Reason += withheldReason(t.withheld)
	}
}

// escaped returns a copy of r on the heap, for a Diagnoser of the caller's:
// r handed to an interface method would escape, and Evaluate's Result would
// be allocated on every call, also with the built-in diagnosis. The copy
// holds what r holds (a Diagnoser must not modify the result).
func escaped(r *Result) *Result {
	c := new(Result)
	*c = *r
	return c
}

// finish fills the parts of r that gather every kept estimate: the
// estimates themselves, evidence, citations and usage. It runs once, after
// the escalation (if any) merged its estimates into t.
func (g *Guard) finish(r *Result, t *table) {
	ests := t.ests
	r.Estimates = ests
	n := 0
	for i := range ests {
		n += len(ests[i].Evidence)
	}
	r.Evidence = make([]Evidence, n) // never nil, also when empty
	n = 0
	var u Usage
	for i := range ests {
		e := &ests[i]
		if len(e.Evidence) > 0 {
			n += copy(r.Evidence[n:], e.Evidence)
		}
		if len(e.Citations) > 0 && r.Citations == nil {
			r.Citations = e.Citations
		}
		// Local judges spend nothing: adding a zero usage changes no sum.
		if e.Usage != (Usage{}) && !t.spentSet {
			u = u.Add(e.Usage)
		}
	}
	if t.spentSet {
		u = t.spent
	}
	r.Usage = u
}
