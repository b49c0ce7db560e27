package guard

import (
	"fmt"
	"reflect"
	"strings"
)

// Calibrated is implemented by judges whose probabilities come with the
// policy they were calibrated with: the embedded lexical judges return the
// thresholds and pass rule of their profile. A guard built without
// WithPolicy reads each decision with the policy of the judge that answers
// it, so that binding a calibrated judge brings its thresholds along.
type Calibrated interface {
	Policy() Policy
}

// isNil reports whether v is nil or holds a nil pointer, map, slice,
// function or channel: a typed nil that a constructor returned beside an
// error, which would panic on its first method call.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// nilError is the error a constructor gives for a nil or typed-nil
// collaborator.
func nilError(where, what string, v any) error {
	if v == nil {
		return fmt.Errorf("guard: %s: nil %s", where, what)
	}
	return fmt.Errorf("guard: %s: the %s is a nil %T (did the constructor that returned it also return an error?)", where, what, v)
}

// derivePolicy sets the policy of a guard built without WithPolicy from
// its calibrated judges (see Calibrated): each decision takes the
// thresholds of the judge that answers it, and the pass rule is the
// strictest of the judges' rules, PassAll when a judge without a policy
// answers any decision. With no calibrated judge the policy stays zero.
func (g *Guard) derivePolicy() error {
	var (
		p     Policy
		found bool
		rule  = PassRules[len(PassRules)-1]
	)
	for i := range g.bindings {
		b := &g.bindings[i]
		c, ok := b.judge.(Calibrated)
		if !ok {
			rule = PassAll
			continue
		}
		jp := c.Policy()
		if err := jp.Validate(); err != nil {
			return fmt.Errorf("guard: the policy of judge %s: %w", b.info.Name, err)
		}
		for _, d := range b.decisions {
			p.Set(d, jp.For(d))
		}
		rule = min(rule, jp.PassRule)
		found = true
	}
	if found {
		p.PassRule = rule
		g.policy = p
	}
	return nil
}

// UniformPolicy returns a policy with the same thresholds, fail and pass,
// for every decision, and the strictest pass rule (PassAll). It is the
// usual way to read an LLM fallback judge (WithEscalator): llmjudge's judge,
// when it samples, gives 0, 0.2, 0.8 or 1 (five votes; it abstains when
// more than one dissents), so UniformPolicy(0.3, 0.7) reads it by majority
// — the default of `ragtriage eval -fallback-policy`. A judge that returns
// log-probabilities gives any P; its thresholds are best calibrated on
// labelled data like the embedded judges' (a Policy is JSON: a calibrated
// one can be stored and read back). The result is checked where it is used
// (WithPolicy, WithEscalator): fail must be below pass, both in [0, 1].
func UniformPolicy(fail, pass float64) Policy {
	var p Policy
	for _, d := range Decisions {
		p.Set(d, Thresholds{Fail: fail, Pass: pass})
	}
	return p
}

// checkFallbackPolicy refuses a fallback policy that cannot read some of
// the fallback's answers: an invalid one, or one that leaves a decision's
// thresholds unset (the fallback would be asked about it, and paid, and its
// answer never read).
func checkFallbackPolicy(p Policy) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("guard: WithEscalator: fallback %s", strings.TrimPrefix(err.Error(), "guard: "))
	}
	var unset []string
	for _, d := range Decisions {
		if p.For(d).IsZero() {
			unset = append(unset, d.String())
		}
	}
	switch {
	case len(unset) == len(Decisions):
		return fmt.Errorf("guard: WithEscalator: the fallback policy is zero: every escalated decision would be " +
			"asked of the fallback and none of its answers read, so nothing would ever be settled; " +
			"pass thresholds for the fallback's probabilities, such as guard.UniformPolicy(0.3, 0.7)")
	case len(unset) > 0:
		return fmt.Errorf("guard: WithEscalator: the fallback policy sets no thresholds for %s: the fallback would "+
			"be asked about them and its answers never read; set them (guard.UniformPolicy sets every decision), "+
			"or mark a decision the fallback must not settle with guard.Undecided()", strings.Join(unset, ", "))
	}
	return nil
}
