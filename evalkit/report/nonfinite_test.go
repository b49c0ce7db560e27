package report

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ragtriage/ragtriage/calibrate"
)

// WriteJSON writes a report whatever its figures: a NaN or infinity (which
// JSON cannot hold) is clamped and its path listed in nonFinite.
func TestWriteJSONClampsNonFinite(t *testing.T) {
	r := &Report{Schema: ReportSchema}
	r.Latency.Primary.Mean = math.Inf(1)
	r.Latency.Combined.P95 = math.NaN()
	r.Decisions.Generation = []Decision{{Decision: "groundedness", Curve: []calibrate.RiskPoint{{Risk: math.Inf(-1)}}}}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := r.WriteJSON(path); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	back, err := ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".latency.primary.meanMs", ".latency.combined.p95Ms", ".decisions.generation[0].riskCoverage[0].risk"}
	for _, w := range want {
		if !slices.Contains(back.NonFinite, w) {
			t.Errorf("nonFinite %v; want it to list %s", back.NonFinite, w)
		}
	}
	if back.Latency.Primary.Mean != math.MaxFloat64 || back.Latency.Combined.P95 != 0 || back.Decisions.Generation[0].Curve[0].Risk != -math.MaxFloat64 {
		t.Errorf("clamped to %v, %v, %v; want max, 0, -max", back.Latency.Primary.Mean, back.Latency.Combined.P95, back.Decisions.Generation[0].Curve[0].Risk)
	}
}
