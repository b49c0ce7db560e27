package report

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestDefaultPricing: the embedded snapshot is the one in testdata, byte
// for byte, and loads.
func TestDefaultPricing(t *testing.T) {
	want, err := os.ReadFile("../../testdata/pricing/2025-06-01.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(DefaultPricingJSON(), want) {
		t.Error("evalkit/report/pricing/2025-06-01.json differs from testdata/pricing/2025-06-01.json")
	}
	p := DefaultPricing()
	loaded, err := LoadPricing("../../testdata/pricing/2025-06-01.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, loaded) || p.Version != "2025-06-01" || p.Source == "" {
		t.Errorf("DefaultPricing %+v; want the snapshot %+v", p, loaded)
	}
	// Callers get their own copy.
	p.Models["gpt-4o-mini"] = Price{}
	if DefaultPricing().Models["gpt-4o-mini"].Input != 0.15 {
		t.Error("DefaultPricing shares its map")
	}
	var v map[string]any
	if err := json.Unmarshal(DefaultPricingJSON(), &v); err != nil || v["source"] == nil {
		t.Errorf("embedded snapshot: %v", err)
	}
}

// PriceUsage never makes up a 0: a leg without a snapshot, a model or a
// price is unavailable with the reason; a leg that did not run costs 0.
func TestPriceUsage(t *testing.T) {
	p := DefaultPricing()
	u := &Usage{Primary: LegUsage{Rows: 10, Model: "gpt-4o-mini", InputTokens: 1_000_000}}
	c := PriceUsage(p, u, 10)
	if c.Primary.Status != "priced" || c.Primary.Amount == nil || *c.Primary.Amount != 0.15 {
		t.Errorf("primary leg %+v; want 0.15 for 1M input tokens of gpt-4o-mini", c.Primary)
	}
	if c.Fallback.Amount == nil || *c.Fallback.Amount != 0 || c.Total.Amount == nil || c.PerThousandRows == nil || *c.PerThousandRows != 15 {
		t.Errorf("cost %+v; want the idle fallback at 0 and 15 per 1,000 rows", c)
	}
	for _, tc := range []struct {
		p    *Pricing
		leg  LegUsage
		want string
	}{
		{nil, LegUsage{Rows: 1, Model: "gpt-4o-mini"}, "no pricing snapshot"},
		{p, LegUsage{Rows: 1}, "model is not known"},
		{p, LegUsage{Rows: 1, Model: "no-such-model"}, "no price for"},
	} {
		c := PriceUsage(tc.p, &Usage{Fallback: tc.leg}, 1)
		if c.Fallback.Amount != nil || c.Fallback.Status != "unavailable" || !strings.Contains(c.Fallback.Reason, tc.want) || c.Total.Amount != nil {
			t.Errorf("%+v: cost %+v; want the fallback and the total unavailable (%q)", tc.leg, c, tc.want)
		}
	}
}
