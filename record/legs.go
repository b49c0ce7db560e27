package record

import (
	"slices"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// Legs splits a result's latency and usage into the primary leg and, when
// the answer was escalated, the fallback leg, given fb, what the fallback
// spent (r.Fallback.Usage for a live result). The primary leg names the
// result's other judges, sorted and joined by commas. The middleware's sink
// writes these legs, and evalkit/otlp rebuilds them from a trace the same way.
func Legs(r *guard.Result, fb guard.Usage) []Leg {
	names := make([]string, 0, len(r.Judges))
	for name := range r.Judges {
		if r.Fallback == nil || name != r.Fallback.Judge {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	primary := Leg{Name: "primary", Judge: strings.Join(names, ","), LatencyMs: r.LatencyMs, Usage: r.Usage, Retries: r.Usage.Retries}
	if r.Fallback == nil {
		return []Leg{primary}
	}
	primary.Usage = guard.Usage{
		InputTokens:  r.Usage.InputTokens - fb.InputTokens,
		OutputTokens: r.Usage.OutputTokens - fb.OutputTokens,
		Calls:        r.Usage.Calls - fb.Calls,
		Retries:      r.Usage.Retries - fb.Retries,
	}
	primary.Retries = primary.Usage.Retries
	primary.LatencyMs = max(0, r.LatencyMs-r.Fallback.LatencyMs)
	return []Leg{primary, {Name: "fallback", Judge: r.Fallback.Judge, LatencyMs: r.Fallback.LatencyMs, Usage: fb, Retries: fb.Retries}}
}
