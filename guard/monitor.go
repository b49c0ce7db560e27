package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// A Monitor watches whether the guard's automatic verdicts keep their
// promise, "of what this side decides, at most α disagrees with the
// teacher", on the traffic the guard actually sees. The guard reports to it
// the audits of answers its own judges decided (see Guard.Teach), and
// Evaluate asks it which decision sides are broken: their verdicts are
// withheld (the decision reads as uncertain, so the answer escalates, as
// with an open circuit breaker) with the cause CausePromiseBroken.
// PromiseMonitor is the implementation this package ships.
//
// Implementations must be safe for concurrent use.
type Monitor interface {
	// Broken returns the sides of p whose promise is broken. Evaluate
	// calls it once per sample, on the caller's path: it must return at
	// once, without I/O. New calls it once too, when it builds the guard,
	// so that a monitor learns of the promise before the first Evaluate.
	Broken(p *Promise) Sides
	// Observe records the audit of one answer (an audit draw: see Draws
	// and AuditOutcomes): for each verdict the guard's own judges gave on
	// it and the teacher gave too, whether they disagree. Teach calls it
	// off the request path; it may do I/O (a store shared by a fleet)
	// within ctx. An error says the audit could not be shared; the monitor
	// still counts it.
	Observe(ctx context.Context, p *Promise, audits []AuditOutcome) error
}

// WithMonitor has Evaluate withhold the verdicts of the decision sides m
// reports broken, and Teach report the outcomes of audit draws to m (see
// WithDraws: the monitor learns only from Draws.Audit). A nil monitor, or a
// nil pointer in a Monitor, is refused.
func WithMonitor(m Monitor) Option {
	return func(g *Guard) error {
		if isNil(m) {
			return nilError("WithMonitor", "monitor", m)
		}
		g.monitor = m
		return nil
	}
}

// Monitor returns the guard's monitor (nil without WithMonitor) and the
// promise it watches for this guard.
func (g *Guard) Monitor() (Monitor, *Promise) { return g.monitor, g.promise }

// Promise names what a guard's automatic verdicts promise: the judges that
// give them, with their versions (the embedded judges' version names their
// profile), and the policy's thresholds. A guard built on a new profile has
// a new Promise, so a monitor's evidence against the old one does not carry
// over to it. A Promise is immutable.
type Promise struct {
	// Key identifies the promise: equal for guards with the same judges,
	// versions and policy (the replicas of a fleet), different otherwise.
	// It is a short hexadecimal string, safe in a store's key.
	Key string `json:"key"`
	// Judges lists the judges as "name@version", in the order they were
	// given.
	Judges []string `json:"judges"`
}

// newPromise builds the Promise of a guard from its bindings and policy.
func newPromise(bindings []binding, p *Policy) *Promise {
	h := fnv.New64a()
	pr := &Promise{Judges: make([]string, 0, len(bindings))}
	for i := range bindings {
		b := &bindings[i]
		pr.Judges = append(pr.Judges, b.info.Name+"@"+b.info.Version)
		fmt.Fprintf(h, "%s@%s:", b.info.Name, b.info.Version)
		for _, d := range b.decisions {
			fmt.Fprintf(h, "%d,", d)
		}
		h.Write([]byte{0})
	}
	pj, _ := json.Marshal(p) // a Policy always encodes
	h.Write(pj)
	pr.Key = strconv.FormatUint(h.Sum64(), 16)
	return pr
}

// Side is one side of a decision: the automatic verdicts Pass, or Fail,
// that the policy gives it (verdicts on the answer, as in Result).
type Side struct {
	Decision Decision `json:"decision"`
	Verdict  Verdict  `json:"side"`
}

func (s Side) String() string { return s.Decision.String() + "/" + s.Verdict.String() }

// Valid reports whether s is a valid decision's pass or fail side.
func (s Side) Valid() bool { return s.Decision.Valid() && (s.Verdict == Pass || s.Verdict == Fail) }

// ParseSide reads "groundedness/pass" (what String writes).
func ParseSide(s string) (Side, error) {
	name, v, ok := strings.Cut(s, "/")
	if !ok {
		return Side{}, fmt.Errorf("guard: side %q: want decision/pass or decision/fail", s)
	}
	d, err := ParseDecision(name)
	if err != nil {
		return Side{}, fmt.Errorf("guard: side %q: %w", s, err)
	}
	switch v {
	case "pass":
		return Side{d, Pass}, nil
	case "fail":
		return Side{d, Fail}, nil
	}
	return Side{}, fmt.Errorf("guard: side %q: want decision/pass or decision/fail", s)
}

// Sides is a set of decision sides. The zero Sides is empty.
type Sides uint16

// bit is the bit of (d, v) in a Sides, 0 for an invalid side.
func sideBit(d Decision, v Verdict) Sides {
	if !d.Valid() || (v != Pass && v != Fail) {
		return 0
	}
	return 1 << (2*(uint(d)-1) + uint(v) - 1)
}

// SidesOf returns the set of the given sides (invalid ones are left out).
func SidesOf(sides ...Side) Sides {
	var s Sides
	for _, x := range sides {
		s |= sideBit(x.Decision, x.Verdict)
	}
	return s
}

// Has reports whether the set holds the side of d with verdict v.
func (s Sides) Has(d Decision, v Verdict) bool {
	b := sideBit(d, v)
	return b != 0 && s&b != 0
}

// List returns the sides in the set, in the order of Decisions, pass side
// first.
func (s Sides) List() []Side {
	var out []Side
	for _, d := range Decisions {
		for _, v := range [...]Verdict{Pass, Fail} {
			if s.Has(d, v) {
				out = append(out, Side{d, v})
			}
		}
	}
	return out
}

func (s Sides) String() string {
	l := s.List()
	names := make([]string, len(l))
	for i, x := range l {
		names[i] = x.String()
	}
	return "{" + strings.Join(names, " ") + "}"
}

// Withheld records a verdict a result does not give although its judge's
// probability is on a deciding side of the policy: the Monitor found that
// side's promise broken. The decision reads as uncertain, so the answer is
// escalated (or sent to review without a fallback).
type Withheld struct {
	Decision  Decision `json:"decision"`
	ContextID string   `json:"contextId,omitempty"`
	// Verdict is the verdict the policy would have given.
	Verdict Verdict `json:"verdict"`
	// Cause is CausePromiseBroken.
	Cause  Cause  `json:"cause"`
	Reason string `json:"reason"`
}

// Err returns the withholding as a *CauseError, so that
// errors.Is(w.Err(), guard.ErrPromiseBroken) works.
func (w *Withheld) Err() error { return &CauseError{Cause: w.Cause, Reason: w.Reason} }

// withhold records that the verdict v of (d, id) was withheld.
func (t *table) withhold(d Decision, id string, v Verdict) {
	t.withheld = append(t.withheld, Withheld{Decision: d, ContextID: id, Verdict: v, Cause: CausePromiseBroken,
		Reason: "the promise monitor found the " + d.String() + " " + v.String() + " side broken"})
}

// withheldReason is what a result's reason adds when verdicts were
// withheld: the sides, each once.
func withheldReason(ws []Withheld) string {
	var s Sides
	for i := range ws {
		s |= sideBit(ws[i].Decision, ws[i].Verdict)
	}
	l := s.List()
	names := make([]string, len(l))
	for i, x := range l {
		names[i] = x.Decision.String() + " " + x.Verdict.String()
	}
	return "; promise broken, verdicts withheld: " + strings.Join(names, ", ")
}
