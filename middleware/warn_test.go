package middleware

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// captured is a slog.Handler that keeps the records it is given. Safe for
// concurrent use.
type captured struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *captured) Enabled(context.Context, slog.Level) bool { return true }
func (h *captured) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.records = append(h.records, r.Clone())
	h.mu.Unlock()
	return nil
}
func (h *captured) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captured) WithGroup(string) slog.Handler      { return h }

func (h *captured) warnings() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.records {
		if r.Level == slog.LevelWarn {
			out = append(out, r.Message)
		}
	}
	return out
}

// TestWarnWithholdAll checks the construction warning of an inline gate
// that withholds every answer but retrieval misses: a guard with no
// fallback under a policy that decides nothing on its own (the shipped
// profile, directly or through ragtriage.New). It must not fire in shadow
// mode, with a fallback, under a policy that decides, or when reviews are
// only annotated.
func TestWarnWithholdAll(t *testing.T) {
	shipped, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	if p := shipped.Policy(); p.Decides() {
		t.Fatal("the shipped profile decides something on its own; this test assumes it decides nothing")
	}
	root, err := ragtriage.New()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close(context.Background())
	fallback := guard.EscalatorFunc(func(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
		return nil, nil
	})
	withFallback, err := lexical.NewGuard(guard.WithEscalator(fallback, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
	if err != nil {
		t.Fatal(err)
	}
	var undecided guard.Policy
	for _, d := range guard.Decisions {
		undecided.Set(d, guard.Undecided())
	}
	zeroPolicy, err := guard.New(guard.WithJudge(scriptedJudge{}), guard.WithPolicy(undecided))
	if err != nil {
		t.Fatal(err)
	}
	shadowOf := func(e Evaluator) Option {
		sh, err := NewShadow(e, ShadowConfig{Workers: 1, QueueSize: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sh.Shutdown(context.Background()) })
		return WithShadow(sh)
	}
	for _, tc := range []struct {
		name string
		opt  Option
		warn bool
	}{
		{"shipped profile inline, no fallback", WithGuard(shipped, Gate{}), true},
		{"ragtriage.New inline, no fallback", WithGuard(root, Gate{Block: ReturnError, Review: ReplaceAnswer}), true},
		{"every side undecided, no fallback", WithGuard(zeroPolicy, Gate{}), true},
		{"shipped profile in shadow mode", shadowOf(shipped), false},
		{"ragtriage.New in shadow mode", shadowOf(root), false},
		{"shipped profile with a fallback", WithGuard(withFallback, Gate{}), false},
		{"a policy that decides", WithGuard(testGuard(t), Gate{}), false},
		{"reviews annotated only", WithGuard(shipped, Gate{Review: AnnotateOnly}), false},
		{"an evaluator that is no guard", WithGuard(evaluatorFunc(shipped.Evaluate), Gate{}), false},
	} {
		h := &captured{}
		c, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), tc.opt, WithLogger(slog.New(h)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		shutdownChain(t, c)
		ws := h.warnings()
		switch {
		case tc.warn && len(ws) != 1:
			t.Errorf("%s: %d warnings %q; want 1", tc.name, len(ws), ws)
		case tc.warn:
			for _, want := range []string{"every answer will be withheld", "except retrieval misses",
				"fallback judge", "ragtriage calibrate -records", "WithShadow"} {
				if !strings.Contains(ws[0], want) {
					t.Errorf("%s: warning %q lacks %q", tc.name, ws[0], want)
				}
			}
		case len(ws) != 0:
			t.Errorf("%s: warned %q; want no warning", tc.name, ws)
		}
	}
}

// TestWithLoggerNil refuses a nil logger.
func TestWithLoggerNil(t *testing.T) {
	if _, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), WithLogger(nil)); err == nil ||
		!strings.Contains(err.Error(), "WithLogger: nil logger") {
		t.Errorf("New(WithLogger(nil)) = %v; want the nil logger refused", err)
	}
}
