package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// diagnose prints, per decision and source, the AUROC of each raw feature
// taken alone, oriented by its declared sign (0.5 = no signal; below 0.5 the
// feature points the wrong way on that source). It is a development aid
// (-stage features); nothing is written.
func diagnose(sets []dataset) error {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	c := buildCorpus(j, sets)
	for _, d := range guard.Decisions {
		exs := c.ex[d]
		fs := lexical.DecisionFeatures(d)
		bySrc := map[string][]int{}
		for i := range exs {
			bySrc[c.names[exs[i].src]] = append(bySrc[c.names[exs[i].src]], i)
		}
		srcs := make([]string, 0, len(bySrc))
		for s := range bySrc {
			srcs = append(srcs, s)
		}
		sort.Strings(srcs)
		fmt.Printf("\n## %s\n%-28s", d, "feature")
		for _, s := range srcs {
			fmt.Printf(" %8.8s", s)
		}
		fmt.Println()
		for fi, f := range fs {
			fmt.Printf("%-28s", fmt.Sprintf("%s(%+d)", f.Name, f.Sign))
			for _, s := range srcs {
				var p []float64
				var y []bool
				for _, i := range bySrc[s] {
					v := exs[i].x[fi]
					if f.Sign < 0 {
						v = -v
					}
					p = append(p, v)
					y = append(y, exs[i].y)
				}
				a := auroc(p, y)
				if a < 0 {
					fmt.Printf(" %8s", "-")
				} else {
					fmt.Printf(" %8.3f", a)
				}
			}
			fmt.Println()
		}
		fmt.Printf("%-28s", "baseline")
		for _, s := range srcs {
			var p []float64
			var y []bool
			for _, i := range bySrc[s] {
				p = append(p, baseline(c, d, &exs[i]))
				y = append(y, exs[i].y)
			}
			a := auroc(p, y)
			if a < 0 || hasNaN(p) {
				fmt.Printf(" %8s", "-")
			} else {
				fmt.Printf(" %8.3f", a)
			}
		}
		fmt.Println()
		_ = strings.TrimSpace
	}
	return nil
}

// precisionAtFull prints, per source, how many groundedness rows have every
// content word found (containment 1), and the share of them labelled true;
// likewise with every adjacent pair found too.
func precisionAtFull(sets []dataset) error {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	c := buildCorpus(j, sets)
	names := lexical.FeatureNames(guard.Groundedness)
	idx := func(n string) int { return slices.Index(names, n) }
	ci, bi, ti := idx("containment"), idx("bigram_support"), idx("token_support")
	type acc struct{ n, t, n2, t2, n3, t3, all int }
	m := map[string]*acc{}
	for _, e := range c.ex[guard.Groundedness] {
		s := c.names[e.src]
		a := m[s]
		if a == nil {
			a = &acc{}
			m[s] = a
		}
		a.all++
		hard := lexical.HardEvidence(guard.Groundedness, e.x)
		if e.x[ci] >= 1 && !hard {
			a.n++
			if e.y {
				a.t++
			}
			if e.x[bi] >= 0.8 {
				a.n2++
				if e.y {
					a.t2++
				}
			}
			if e.x[ti] >= 1 && e.x[bi] >= 1 {
				a.n3++
				if e.y {
					a.t3++
				}
			}
		}
	}
	for _, s := range sortedKeys(m) {
		a := m[s]
		fmt.Printf("%-18s all %5d  full %5d prec %.3f  +bigram.8 %5d prec %.3f  +all-tokens+bigrams %5d prec %.3f\n", s, a.all, a.n, float64(a.t)/float64(max(1, a.n)), a.n2, float64(a.t2)/float64(max(1, a.n2)), a.n3, float64(a.t3)/float64(max(1, a.n3)))
	}
	return nil
}
