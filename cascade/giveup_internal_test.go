package cascade

import (
	"testing"
	"time"
)

// TestGiveUpGrace: a caller waits past CallTimeout for at most
// max(CallTimeout/10, Reserve/2), and never more than a second, so that
// the documented bound (CallTimeout plus at most a second) holds at the
// default 30s as it does at 500ms.
func TestGiveUpGrace(t *testing.T) {
	for _, tt := range []struct {
		call, reserve, want time.Duration
	}{
		{500 * time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond},
		{20 * time.Millisecond, 10 * time.Millisecond, 5 * time.Millisecond},
		{30 * time.Second, 10 * time.Millisecond, time.Second},
		{time.Second, 600 * time.Millisecond, 300 * time.Millisecond},
		{time.Minute, 10 * time.Second, time.Second},
	} {
		l := Limits{CallTimeout: tt.call, Reserve: tt.reserve}
		if got := l.giveUpGrace(); got != tt.want {
			t.Errorf("CallTimeout %v, Reserve %v: grace %v; want %v", tt.call, tt.reserve, got, tt.want)
		}
	}
}
