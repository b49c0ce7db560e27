package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
)

// Pricing is a versioned snapshot of token prices (testdata/pricing/DATE.json;
// the current one is built in, see DefaultPricing):
//
//	{"version": "2025-06-01", "currency": "USD", "unit": "per 1M tokens",
//	 "source": "…", "models": {"gpt-4o-mini": {"input": 0.15, "output": 0.60}, …}}
//
// A model absent from the snapshot has no price: its cost is reported as
// unavailable, never as 0. A local judge that costs nothing per token is
// listed with explicit zero prices.
type Pricing struct {
	Version  string           `json:"version"`
	Currency string           `json:"currency"`
	Unit     string           `json:"unit"`
	Source   string           `json:"source"`
	Models   map[string]Price `json:"models"`
}

// Price is the price of one model per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	Note   string  `json:"note,omitempty"`
}

// MaxPrice is the largest price per million tokens LoadPricing accepts: far
// above any model's, and low enough that every token count prices to a
// finite amount (an infinite cost could not be written in a JSON report).
const MaxPrice = 1e9

// defaultPricing is the snapshot built into the binary, so that costs are
// priced wherever it runs. It is a copy of testdata/pricing/2025-06-01.json
// (a test keeps the two identical); its "source" says where the prices come
// from and how far to trust them.
//
//go:embed pricing/2025-06-01.json
var defaultPricing []byte

// DefaultPricingJSON returns the embedded pricing snapshot as it is stored.
func DefaultPricingJSON() []byte { return slices.Clone(defaultPricing) }

// DefaultPricing returns the pricing snapshot built into the binary
// (version 2025-06-01: hand-entered list prices, see its Source). Each call
// returns a new copy.
func DefaultPricing() *Pricing {
	p, err := ParsePricing(defaultPricing, "embedded pricing/2025-06-01.json")
	if err != nil {
		panic(err) // a test checks the embedded file
	}
	return p
}

// LoadPricing reads and checks a pricing snapshot.
func LoadPricing(path string) (*Pricing, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePricing(b, path)
}

// ParsePricing checks a pricing snapshot in its JSON form; name says where
// it came from, in errors.
func ParsePricing(b []byte, name string) (*Pricing, error) {
	path := name
	var p Pricing
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("evalkit: pricing %s: %w", path, err)
	}
	if p.Version == "" || p.Currency == "" {
		return nil, fmt.Errorf("evalkit: pricing %s: version and currency are required", path)
	}
	if p.Unit != "per 1M tokens" {
		return nil, fmt.Errorf("evalkit: pricing %s: unit %q, want \"per 1M tokens\"", path, p.Unit)
	}
	for m, pr := range p.Models {
		if !(pr.Input >= 0 && pr.Input <= MaxPrice) || !(pr.Output >= 0 && pr.Output <= MaxPrice) || math.IsInf(pr.Input, 0) || math.IsInf(pr.Output, 0) {
			return nil, fmt.Errorf("evalkit: pricing %s: model %q: prices must be finite, ≥ 0 and ≤ %g per 1M tokens (input %g, output %g)", path, m, MaxPrice, pr.Input, pr.Output)
		}
	}
	return &p, nil
}

// Cost returns the cost of the given tokens on model, and false when the
// snapshot has no price for it.
func (p *Pricing) Cost(model string, input, output int) (float64, bool) {
	if p == nil {
		return 0, false
	}
	pr, ok := p.Models[model]
	if !ok {
		return 0, false
	}
	return (float64(input)*pr.Input + float64(output)*pr.Output) / 1e6, true
}

// PriceUsage prices the usage of a run of rows rows with p (nil: no
// snapshot, every leg "unavailable"): a leg that did not run costs 0, a leg
// without a known model or price is "unavailable" with the reason, never 0.
func PriceUsage(p *Pricing, u *Usage, rows int) Cost {
	c := Cost{}
	if p != nil {
		c.PricingVersion, c.Currency = p.Version, p.Currency
	}
	leg := func(lu *LegUsage) LegCost {
		switch {
		case lu.Rows == 0:
			zero := 0.0
			return LegCost{Status: "priced", Amount: &zero, Reason: "the leg did not run"}
		case p == nil:
			return LegCost{Status: "unavailable", Reason: "no pricing snapshot"}
		case lu.Model == "":
			return LegCost{Status: "unavailable", Reason: "the leg's model is not known"}
		}
		amt, ok := p.Cost(lu.Model, lu.InputTokens, lu.OutputTokens)
		if !ok {
			return LegCost{Status: "unavailable", Reason: fmt.Sprintf("pricing %s has no price for %q", p.Version, lu.Model)}
		}
		return LegCost{Status: "priced", Amount: &amt}
	}
	c.Primary, c.Fallback = leg(&u.Primary), leg(&u.Fallback)
	if c.Primary.Amount != nil && c.Fallback.Amount != nil {
		t := *c.Primary.Amount + *c.Fallback.Amount
		c.Total = LegCost{Status: "priced", Amount: &t}
		if rows > 0 {
			per := t * 1000 / float64(rows)
			c.PerThousandRows = &per
		}
	} else {
		why := c.Primary.Reason
		if c.Fallback.Amount == nil {
			why = c.Fallback.Reason
		}
		c.Total = LegCost{Status: "unavailable", Reason: why}
	}
	return c
}
