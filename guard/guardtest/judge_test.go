package guardtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// recorder is a reporter that keeps failures instead of failing.
type recorder struct {
	mu     sync.Mutex
	errors []string
	logs   []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// runChecks runs every check of the kit on newJudge and returns the failures
// of each, by check name.
func runChecks(newJudge func() guard.Judge) map[string][]string {
	out := map[string][]string{}
	for _, c := range checks {
		var r recorder
		c.run(&r, newJudge)
		out[c.name] = r.errors
	}
	return out
}

func good() guard.Judge {
	return Fixed{
		P:      map[guard.Decision]float64{guard.ContextConflict: 0.05, guard.Contradiction: 0, guard.Groundedness: 1},
		Chunks: map[string]float64{"policy#1": 0.97},
		// The default is used for every other decision.
		Default: 0.8,
	}
}

func TestJudgeFixed(t *testing.T) { TestJudge(t, good) }

func TestJudgeAbstaining(t *testing.T) {
	TestJudge(t, func() guard.Judge { return Abstaining{} })
}

func TestJudgeSlowThatHonoursContext(t *testing.T) {
	TestJudge(t, func() guard.Judge { return Slow{Delay: time.Millisecond, Then: good()} })
}

func TestJudgeFunc(t *testing.T) {
	// A hand-written judge: a deterministic function of the text, returning
	// the sentinel context error unwrapped.
	TestJudge(t, func() guard.Judge {
		return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			var out []guard.Estimate
			for _, d := range req.Decisions {
				if d != guard.ChunkRelevance {
					p := float64(len(req.Sample.Answer)%10) / 9
					out = append(out, guard.Estimate{Decision: d, P: p})
					continue
				}
				for _, c := range req.Sample.Contexts {
					out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: math.Min(1, float64(len(c.Text))/100)})
				}
			}
			return out, nil
		})
	})
}

// TestKitPasses checks that the recorder variant agrees with TestJudge on
// judges that conform.
func TestKitPasses(t *testing.T) {
	for name, j := range map[string]func() guard.Judge{
		"Fixed":      good,
		"Abstaining": func() guard.Judge { return Abstaining{Reason: "why not"} },
	} {
		for check, errs := range runChecks(j) {
			if len(errs) > 0 {
				t.Errorf("%s: check %s failed: %q", name, check, errs)
			}
		}
	}
}

// TestKitFails checks that the kit catches each kind of broken judge, in the
// checks it should and only those.
func TestKitFails(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })

	tests := []struct {
		name     string
		newJudge func() guard.Judge
		// want maps each check that must fail to a substring of one of its
		// failures; checks not listed must pass.
		want map[string]string
		// some: only the listed checks are inspected.
		some bool
	}{
		{
			name:     "NaN",
			newJudge: func() guard.Judge { return NaN{} },
			want:     map[string]string{"Valid": "P is NaN", "OnlyAsked": "P is NaN", "Concurrent": "P is NaN"},
		},
		{
			name: "out of range",
			newJudge: func() guard.Judge {
				return Fixed{Default: 0.5, P: map[guard.Decision]float64{guard.Groundedness: 1.7}}
			},
			want: map[string]string{"Valid": "outside [0, 1]", "OnlyAsked": "outside [0, 1]", "Concurrent": "outside [0, 1]"},
		},
		{
			name:     "Failing",
			newJudge: func() guard.Judge { return Failing{} },
			want:     map[string]string{"Valid": "want estimates", "OnlyAsked": "want estimates", "Concurrent": "nothing to run"},
		},
		{
			name:     "Panicking",
			newJudge: func() guard.Judge { return Panicking{Value: "boom"} },
			want: map[string]string{"Valid": "panicked: boom", "OnlyAsked": "panicked: boom", "Cancelled": "panicked: boom",
				"DeadlineExceeded": "panicked: boom", "Concurrent": "nothing to run"},
		},
		{
			name: "ignores cancellation and blocks",
			newJudge: func() guard.Judge {
				return Slow{IgnoreContext: true, Release: release}
			},
			want: map[string]string{"Cancelled": "did not return within", "DeadlineExceeded": "did not return within"},
			some: true, // Valid and the others would wait CallTimeout
		},
		{
			name: "answers after cancellation",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
					return Fixed{Default: 0.5}.Judge(context.Background(), req)
				})
			},
			want: map[string]string{"Cancelled": "no error", "DeadlineExceeded": "no error"},
		},
		{
			name: "string error",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					if err := ctx.Err(); err != nil {
						return nil, fmt.Errorf("stopped: %v", err)
					}
					return Fixed{Default: 0.5}.Judge(ctx, req)
				})
			},
			want: map[string]string{"Cancelled": "wraps nothing", "DeadlineExceeded": "wraps nothing"},
		},
		{
			name: "answers what was not asked",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					all := req
					all.Decisions = []guard.Decision{guard.ContextSufficiency, guard.AnswerRelevance, guard.Groundedness}
					for _, d := range req.Decisions {
						if d != guard.ContextSufficiency && d != guard.AnswerRelevance && d != guard.Groundedness {
							all.Decisions = append(all.Decisions, d)
						}
					}
					return Fixed{Default: 0.5}.Judge(ctx, all)
				})
			},
			want: map[string]string{"OnlyAsked": "was not asked"},
		},
		{
			name: "leaves estimates out",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					out, err := Fixed{Default: 0.5}.Judge(ctx, req)
					if len(out) > 0 {
						out = out[:len(out)-1]
					}
					return out, err
				})
			},
			want: map[string]string{"Valid": "rather than leave it out", "OnlyAsked": "rather than leave it out", "Concurrent": "rather than leave it out"},
		},
		{
			name: "bad context IDs",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					out, err := Fixed{Default: 0.5}.Judge(ctx, req)
					for i := range out {
						if out[i].Decision == guard.ChunkRelevance {
							out[i].ContextID += "?"
						} else {
							out[i].ContextID = "x"
						}
					}
					return out, err
				})
			},
			want: map[string]string{"Valid": "names no context", "OnlyAsked": "not chunk relevance", "Concurrent": "names no context"},
		},
		{
			name: "duplicates",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					out, err := Fixed{Default: 0.5}.Judge(ctx, req)
					return append(out, out...), err
				})
			},
			want: map[string]string{"Valid": "more than one", "OnlyAsked": "more than one", "Concurrent": "more than one"},
		},
		{
			name: "bad evidence",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					out, err := Fixed{Default: 0.5}.Judge(ctx, req)
					for i := range out {
						out[i].Evidence = []guard.Evidence{{
							Kind:  guard.EvidenceUnsupported, // no Decision: the result would not encode
							Quote: guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 1, Text: "not the answer"},
						}}
					}
					return out, err
				})
			},
			want: map[string]string{"Valid": "invalid decision 0", "OnlyAsked": "do not encode as JSON", "Concurrent": "select"},
		},
		{
			name: "modifies the sample",
			newJudge: func() guard.Judge {
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					out, err := Fixed{Default: 0.5}.Judge(ctx, req)
					req.Sample.Answer = strings.ToUpper(req.Sample.Answer)
					return out, err
				})
			},
			want: map[string]string{"Valid": "modified the sample"},
			some: true, // Concurrent only fails under -race
		},
		{
			name: "nondeterministic",
			newJudge: func() guard.Judge {
				var mu sync.Mutex
				n := 0
				return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
					mu.Lock()
					n++
					p := float64(n%7) / 7
					mu.Unlock()
					return Fixed{Default: p}.Judge(ctx, req)
				})
			},
			want: map[string]string{}, // determinism is not required
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range checks {
				want, mustFail := tt.want[c.name]
				if tt.some && !mustFail {
					continue
				}
				var r recorder
				c.run(&r, tt.newJudge)
				switch {
				case !mustFail && len(r.errors) > 0:
					t.Errorf("check %s failed on %s: %q; want it to pass", c.name, tt.name, r.errors)
				case mustFail && len(r.errors) == 0:
					t.Errorf("check %s passed on %s; want a failure mentioning %q", c.name, tt.name, want)
				case mustFail && !anyContains(r.errors, want):
					t.Errorf("check %s on %s failed with %q; want a failure mentioning %q", c.name, tt.name, r.errors, want)
				}
			}
		})
	}
}

func anyContains(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestSamplesAreValid(t *testing.T) {
	seen := map[string]bool{}
	var withRef, withoutRef, noContexts int
	for _, ns := range samples() {
		if seen[ns.name] {
			t.Errorf("duplicate sample name %q", ns.name)
		}
		seen[ns.name] = true
		if err := ns.s.Validate(guard.Limits{}); err != nil {
			t.Errorf("sample %q: Validate = %v; want nil", ns.name, err)
		}
		if ns.s.HasReference() {
			withRef++
		} else {
			withoutRef++
		}
		if len(ns.s.Contexts) == 0 {
			noContexts++
		}
	}
	if withRef == 0 || withoutRef == 0 || noContexts == 0 {
		t.Errorf("samples: %d with reference, %d without, %d without contexts; want some of each", withRef, withoutRef, noContexts)
	}
}

func TestUninspectable(t *testing.T) {
	sentinel := errors.New("sentinel")
	type typed struct{ error }
	tests := []struct {
		name      string
		err, then error
		ok        bool
	}{
		{"wrapped", fmt.Errorf("judge: %w", context.Canceled), nil, true},
		{"joined", errors.Join(errors.New("a"), errors.New("b")), nil, true},
		{"sentinel", sentinel, sentinel, true},
		{"context.Canceled", context.Canceled, context.Canceled, true},
		{"DeadlineExceeded", context.DeadlineExceeded, context.DeadlineExceeded, true},
		{"typed", typed{errors.New("x")}, nil, true},
		{"PanicError", &guard.PanicError{Value: 1}, nil, true},
		{"fresh string", errors.New("x"), errors.New("x"), false},
		{"Errorf %v", fmt.Errorf("x: %v", context.Canceled), nil, false},
	}
	for _, tt := range tests {
		why := uninspectable(tt.err, tt.then)
		if got := why == ""; got != tt.ok {
			t.Errorf("uninspectable(%s: %v) = %q; want ok=%v", tt.name, tt.err, why, tt.ok)
		}
	}
}

func TestCheckQuote(t *testing.T) {
	s := &guard.Sample{
		Question:  "Qué?",
		Answer:    "Ça va.",
		Reference: guard.Ref("ref"),
		Contexts:  []guard.Context{{ID: "c1", Text: "hello world"}},
	}
	tests := []struct {
		q    guard.Quote
		want string // substring of the problem; "" for none
	}{
		{guard.Quote{}, ""},
		{guard.Quote{Source: guard.SourceContext, ContextID: "c1", Start: 6, End: 11, Text: "world"}, ""},
		{guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 3, Text: "Ça"}, ""},
		{guard.Quote{Source: guard.SourceQuestion, Start: 0, End: 5, Text: "Qué?"}, ""},
		{guard.Quote{Source: guard.SourceReference, Start: 0, End: 3, Text: "ref"}, ""},
		{guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 2, Text: "Ça"}, "select"},
		{guard.Quote{Source: guard.SourceContext, ContextID: "c2", Start: 0, End: 1, Text: "h"}, "unknown context"},
		{guard.Quote{Source: guard.SourceContext, ContextID: "c1", Start: 5, End: 40, Text: ""}, "outside"},
		{guard.Quote{Source: guard.SourceContext, ContextID: "c1", Start: 3, End: 2, Text: ""}, "outside"},
		{guard.Quote{Source: "elsewhere", Start: 0, End: 0}, "unknown source"},
	}
	for _, tt := range tests {
		got := checkQuote(s, tt.q)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("checkQuote(%+v) = %q; want %q", tt.q, got, tt.want)
		}
	}
	noRef := &guard.Sample{Answer: "a"}
	if got := checkQuote(noRef, guard.Quote{Source: guard.SourceReference, Text: ""}); !strings.Contains(got, "has none") {
		t.Errorf("checkQuote(reference quote without a reference) = %q; want a problem", got)
	}
}
