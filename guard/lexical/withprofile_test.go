package lexical_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// otherProfile returns the shipped profile with other thresholds and pass
// rule: a stand-in for one written by `ragtriage calibrate`.
func otherProfile(t *testing.T) *lexical.Profile {
	t.Helper()
	p := lexical.DefaultProfile()
	p.Version = "test-other"
	p.Policy = guard.UniformPolicy(0.25, 0.75)
	p.Policy.PassRule = guard.PassGroundedRelevant
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every way of loading a profile brings its thresholds and pass rule: the
// option, the file option, and the obvious guess (a judge from New bound
// with guard.WithJudge, with or without lexical.NewGuard's defaults).
func TestProfileBringsItsPolicy(t *testing.T) {
	p := otherProfile(t)
	j, err := lexical.New(p)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "profile.json")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, build := range map[string]func() (*guard.Guard, error){
		"WithProfile":            func() (*guard.Guard, error) { return lexical.NewGuard(lexical.WithProfile(p)) },
		"WithProfileFile":        func() (*guard.Guard, error) { return lexical.NewGuard(lexical.WithProfileFile(path)) },
		"NewGuard(WithJudge)":    func() (*guard.Guard, error) { return lexical.NewGuard(guard.WithJudge(j)) },
		"guard.New(WithJudge)":   func() (*guard.Guard, error) { return guard.New(guard.WithJudge(j)) },
		"guard.New(WithProfile)": func() (*guard.Guard, error) { return guard.New(lexical.WithProfile(p)) },
	} {
		g, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := g.Policy(); got != p.Policy {
			t.Errorf("%s: policy %+v; want the profile's %+v", name, got, p.Policy)
		}
		res, err := g.Evaluate(context.Background(), guard.Sample{Question: "q?", Answer: "a.",
			Contexts: []guard.Context{{ID: "c1", Text: "Some text."}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Judges[lexical.Name]; got != lexical.Version+"+test-other" {
			t.Errorf("%s: judge version %q; want the profile's", name, got)
		}
	}
	// An explicit policy wins over the profile's.
	g, err := lexical.NewGuard(lexical.WithProfile(p), guard.WithPolicy(guard.Policy{}))
	if err != nil {
		t.Fatal(err)
	}
	if g.Policy() != (guard.Policy{}) {
		t.Errorf("explicit zero policy replaced by %+v", g.Policy())
	}
}

// A judge bound to some decisions brings its thresholds for those only, and
// a judge with no policy makes the pass rule the strictest.
func TestProfilePolicyPerDecision(t *testing.T) {
	p := otherProfile(t)
	fixed := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) { return nil, nil })
	g, err := lexical.NewGuard(lexical.WithProfile(p), guard.WithJudge(fixed, guard.ContextConflict))
	if err != nil {
		t.Fatal(err)
	}
	pol := g.Policy()
	if !pol.For(guard.ContextConflict).IsZero() {
		t.Errorf("conflict thresholds %+v; want unset (its judge brings none)", pol.For(guard.ContextConflict))
	}
	if pol.For(guard.Groundedness) != p.Policy.Groundedness {
		t.Errorf("groundedness thresholds %+v; want the profile's", pol.For(guard.Groundedness))
	}
	if pol.PassRule != guard.PassAll {
		t.Errorf("pass rule %v; want all (a judge without a policy answers a decision)", pol.PassRule)
	}
}

// A profile fitted on other features is refused, and the error says what
// to do.
func TestWithProfileRefusesOtherFeatures(t *testing.T) {
	p := otherProfile(t)
	p.FeaturesVersion = "lexical-features/1"
	_, err := lexical.NewGuard(lexical.WithProfile(p))
	if err == nil || !strings.Contains(err.Error(), "ragtriage calibrate") || !strings.Contains(err.Error(), lexical.FeaturesVersion) {
		t.Fatalf("NewGuard(WithProfile(features/1)) = %v; want an error naming the version and how to refit", err)
	}
	if _, err := lexical.NewGuard(lexical.WithProfileFile(filepath.Join(t.TempDir(), "missing.json"))); err == nil {
		t.Fatal("WithProfileFile(missing file): no error")
	}
}
