package main

import (
	"fmt"
	"os"
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
func diagnose(sets []labelled) error {
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
func precisionAtFull(sets []labelled) error {
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

// topErrors prints the groundedness rows with the highest P (out of fold, as
// fitted by a plain pipeline on all rows) that are labelled false.
func topErrors(sets []labelled, st settings, dec string, source string) error {
	want, err := guard.ParseDecision(dec)
	if err != nil {
		return err
	}
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	c := buildCorpus(j, sets)
	all := make([]bool, len(c.rows))
	for i := range all {
		all[i] = true
	}
	ft, err := c.pipeline(all, "", st)
	if err != nil {
		return err
	}
	for _, d := range []guard.Decision{want} {
		fd := ft.dec[d]
		exs := c.ex[d]
		ord := make([]int, len(fd.train))
		for t := range ord {
			ord[t] = t
		}
		sort.Slice(ord, func(a, b int) bool { return fd.OOF[ord[a]] > fd.OOF[ord[b]] })
		shown := 0
		for rank, t := range ord {
			e := &exs[fd.train[t]]
			bad := !e.y // wrong on the pass side (the top of P)
			if !bad || e.synth || e.row < 0 || (source != "" && c.names[e.src] != source) {
				continue
			}
			s := c.rows[e.row].sample
			ctx := ""
			for _, cx := range s.Contexts {
				ctx += cx.Text + " | "
			}
			if len(ctx) > 300 {
				ctx = ctx[:300]
			}
			fmt.Printf("#%d p=%.3f %s %s\n  A: %s\n  C: %s\n  x=%v\n  %s\n", rank, fd.OOF[t], c.names[e.src], s.ID, s.Answer, ctx, e.x, j.Explain(&s))
			if shown++; shown == 25 {
				break
			}
		}
	}
	return nil
}

// dumpFeatures writes every example of every decision as TSV (decision,
// source, synthetic, label, hard, features...) for offline study.
func dumpFeatures(sets []labelled, path string) error {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	c := buildCorpus(j, sets)
	var b strings.Builder
	for _, d := range guard.Decisions {
		fmt.Fprintf(&b, "#%s\t%s\n", d, strings.Join(lexical.FeatureNames(d), "\t"))
		for _, e := range c.ex[d] {
			fmt.Fprintf(&b, "%s\t%s\t%v\t%v\t%v\t%d", d, c.names[e.src], e.synth, e.y, e.hard, e.row)
			for _, v := range e.x {
				fmt.Fprintf(&b, "\t%.6g", v)
			}
			b.WriteByte('\n')
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// explainHard prints, for rows of a source whose groundedness label is
// true, the hard evidence the judges find (false alarms to study).
func explainHard(sets []labelled, source string) error {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	for _, ds := range sets {
		if ds.name != source {
			continue
		}
		for _, r := range ds.rows {
			v, ok := r.Expected.Label(guard.Groundedness)
			if !ok || !v {
				continue
			}
			s := r.Sample
			if e := j.Explain(&s); e != "" {
				fmt.Printf("%s\n  A: %s\n  => %s\n", s.ID, s.Answer, e)
			}
		}
	}
	return nil
}
