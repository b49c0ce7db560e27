package middleware

import (
	"strings"
	"testing"

	"github.com/tmc/langchaingo/chains"

	"github.com/ragtriage/ragtriage/guard"
)

// A nil or typed-nil guard is refused by New and NewShadow with an error,
// and Wrap panics with the same message (a programmer error).
func TestNilEvaluatorRefused(t *testing.T) {
	chain := chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{})
	var g *guard.Guard // what a failed guard constructor returns
	if _, err := New(chain, WithGuard(g, Gate{})); err == nil || !strings.Contains(err.Error(), "nil *guard.Guard") {
		t.Errorf("New(WithGuard(nil *guard.Guard)) = %v; want an error naming the typed nil", err)
	}
	if _, err := New(chain, WithGuard(nil, Gate{})); err == nil {
		t.Error("New(WithGuard(nil)): no error")
	}
	if _, err := NewShadow(g, ShadowConfig{}); err == nil || !strings.Contains(err.Error(), "nil *guard.Guard") {
		t.Errorf("NewShadow(nil *guard.Guard) = %v; want an error naming the typed nil", err)
	}
	defer func() {
		if v := recover(); v == nil || !strings.Contains(v.(string), "nil *guard.Guard") {
			t.Errorf("Wrap(WithGuard(nil *guard.Guard)) panicked with %v; want New's error", v)
		}
	}()
	Wrap(chain, WithGuard(g, Gate{}))
}
