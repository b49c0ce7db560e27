package main

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

type report struct {
	Profile    string             `json:"profile"`
	Command    string             `json:"command"`
	Folds      int                `json:"folds"`
	Alpha      float64            `json:"alpha"`
	Confidence float64            `json:"confidence"`
	MinRows    int                `json:"minGroupRows"`
	PassRule   string             `json:"passRule"`
	Data       []lexical.DataFile `json:"data"`
	// Gate is the end-to-end outcome of the embedded judges alone, per
	// source, on held-out folds (nested).
	Gate      []gateRow        `json:"gate"`
	Decisions []decisionReport `json:"decisions"`
	Rules     []ruleCheck      `json:"passRuleChecks"`

	gate map[string]*gateRow
	dec  map[guard.Decision]*decisionReport
}

type gateRow struct {
	Source       string  `json:"source"`
	Good         int     `json:"good"`
	Bad          int     `json:"bad"`
	GoodBlocked  int     `json:"goodBlocked"`
	GoodPassed   int     `json:"goodAutoPassed"`
	GoodReview   int     `json:"goodReview"`
	BadAllowed   int     `json:"badAllowed"`
	BadBlocked   int     `json:"badBlocked"`
	GoodBlockedR float64 `json:"goodBlockedRate"`
	GoodPassedR  float64 `json:"goodAutoPassedRate"`
	BadAllowedR  float64 `json:"badAllowedRate"`
	BadBlockedR  float64 `json:"badBlockedRate"`
}

type decisionReport struct {
	Decision  string             `json:"decision"`
	Sources   []string           `json:"sources"`
	N         int                `json:"n"`
	Positives int                `json:"positives"`
	Policy    guard.Thresholds   `json:"policy"`
	SoftFloor float64            `json:"softFloor,omitempty"`
	SoftCeil  float64            `json:"softCeiling,omitempty"`
	PerSource []sourceQuality    `json:"perSource"`
	Weights   map[string]float64 `json:"weights"`
}

type sourceQuality struct {
	Source    string  `json:"source"`
	N         int     `json:"n"`
	Positives int     `json:"positives"`
	AUROC     float64 `json:"auroc"`    // -1: one class
	Baseline  float64 `json:"baseline"` // -1: none
	ECE       float64 `json:"ece"`
	// Held-out (nested) policy check.
	AutoPass    int     `json:"autoPass"`
	AutoPassErr int     `json:"autoPassErrors"`
	AutoFail    int     `json:"autoFail"`
	AutoFailErr int     `json:"autoFailErrors"`
	Decided     float64 `json:"decided"`
	ErrorRate   float64 `json:"errorRate"`

	p []float64
	y []bool
	b []float64
}

func newReport(c *corpus, st settings, prof *lexical.Profile, shipped *fitted) *report {
	r := &report{Profile: prof.Version, Command: refitCommand, Folds: nFolds, Alpha: st.alpha, Confidence: st.confidence,
		MinRows: calibrate.MinRowsForBound(st.alpha, 1-(1-st.confidence)/float64(len(starts))), PassRule: shipped.passRule.String(), Data: prof.Data,
		Rules: shipped.ruleChecks, gate: map[string]*gateRow{}, dec: map[guard.Decision]*decisionReport{}}
	for _, d := range guard.Decisions {
		fd := shipped.dec[d]
		if fd == nil {
			continue
		}
		exs := c.ex[d]
		dr := &decisionReport{Decision: d.String(), Sources: sources[d], Policy: fd.Selection.Thresholds, SoftFloor: fd.Selection.SoftFloor, SoftCeil: fd.Selection.SoftCeiling, Weights: map[string]float64{}}
		for i, n := range lexical.FeatureNames(d) {
			dr.Weights[n] = fd.Model.Weights[i]
		}
		dr.Weights["(bias)"] = fd.Model.Bias
		bySrc := map[int]*sourceQuality{}
		for t, i := range fd.train {
			e := &exs[i]
			dr.N++
			if e.y {
				dr.Positives++
			}
			q := bySrc[e.src]
			if q == nil {
				q = &sourceQuality{Source: c.names[e.src]}
				bySrc[e.src] = q
			}
			q.N++
			if e.y {
				q.Positives++
			}
			q.p = append(q.p, fd.Gate(fd.OOF[t], e.hard))
			q.y = append(q.y, e.y)
			q.b = append(q.b, baseline(c, d, e))
		}
		// Pooled sets a target is stated on.
		if d == guard.ContextSufficiency {
			pool := &sourceQuality{Source: "squad_v2+hotpotqa+ablated (pooled)"}
			for _, name := range []string{"squad_v2", "hotpotqa", "hotpotqa_ablated"} {
				for src, q := range bySrc {
					if c.names[src] == name {
						pool.N += q.N
						pool.Positives += q.Positives
						pool.p = append(pool.p, q.p...)
						pool.y = append(pool.y, q.y...)
						pool.b = append(pool.b, q.b...)
					}
				}
			}
			bySrc[-1] = pool
		}
		for _, q := range bySrc {
			q.AUROC = auroc(q.p, q.y)
			q.Baseline = -1
			if !slices.Contains(q.b, math.NaN()) && !hasNaN(q.b) {
				q.Baseline = auroc(q.b, q.y)
			}
			q.ECE = calibrate.ECE(q.p, q.y, nil, 10)
			dr.PerSource = append(dr.PerSource, *q)
		}
		sort.Slice(dr.PerSource, func(a, b int) bool { return dr.PerSource[a].Source < dr.PerSource[b].Source })
		r.dec[d] = dr
		// Fill the profile's counts and quality.
		m := prof.Decisions[d.String()]
		m.Positives, m.Negatives = dr.Positives, dr.N-dr.Positives
		m.CV = map[string]lexical.Quality{}
		for _, q := range dr.PerSource {
			if strings.HasSuffix(q.Source, "(pooled)") {
				continue
			}
			m.CV[q.Source] = lexical.Quality{N: q.N, AUROC: q.AUROC, Brier: calibrate.Brier(q.p, q.y, nil), ECE: q.ECE}
		}
	}
	return r
}

func hasNaN(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

// countHeldOut counts one held-out verdict v on an example of source src
// labelled y.
func (dr *decisionReport) countHeldOut(src string, v guard.Verdict, y bool) {
	q := dr.source(src)
	switch v {
	case guard.Pass:
		q.AutoPass++
		if !y {
			q.AutoPassErr++
		}
	case guard.Fail:
		q.AutoFail++
		if y {
			q.AutoFailErr++
		}
	}
}

// addHeldOutSamples counts chunk relevance's sample-level checks of outer
// fold k: a good grounded sample whose every chunk is at or below the fail
// threshold is a held-out auto-fail error (see corpus.addGoodSamples).
func (r *report) addHeldOutSamples(c *corpus, fd *fittedDecision, k int) {
	dr := r.dec[guard.ChunkRelevance]
	for i := range c.samples {
		e := &c.samples[i]
		if foldOf(e.group, "", nFolds) != k {
			continue
		}
		best := 0.0
		for _, x := range e.chunks {
			best = math.Max(best, fd.Model.Predict(x))
		}
		// The check speaks for the fail side alone.
		if v := fd.Selection.Thresholds.Verdict(best); v == guard.Fail {
			dr.countHeldOut(c.names[e.src], v, e.y)
		}
	}
}

// addHeldOut judges outer fold k with what the pipeline chose without it.
func (r *report) addHeldOut(c *corpus, inner *fitted, k int) error {
	// Single decisions.
	for d, fd := range inner.dec {
		exs := c.ex[d]
		dr := r.dec[d]
		inTrain := make([]bool, len(exs))
		for _, i := range fd.train {
			inTrain[i] = true
		}
		for i := range exs {
			e := &exs[i]
			// Synthetic examples make no promise: they are left out here as
			// they are when thresholds are chosen.
			if inTrain[i] || e.synth || (e.row < 0 && foldOf(e.group, "", nFolds) != k) {
				continue
			}
			dr.countHeldOut(c.names[e.src], fd.Selection.Thresholds.Verdict(fd.Gate(fd.Model.Predict(e.x), e.hard)), e.y)
		}
		if d == guard.ChunkRelevance {
			r.addHeldOutSamples(c, fd, k)
		}
	}
	// Whole answers.
	var idx []int
	for i := range c.rows {
		// Rows without contexts (TruthfulQA) are RETRIEVAL_MISS by
		// definition: they say nothing about the gate.
		if c.rows[i].good >= 0 && len(c.rows[i].sample.Contexts) > 0 && foldOf(c.rows[i].group, "", nFolds) == k {
			idx = append(idx, i)
		}
	}
	outs, err := judgeRows(c, idx, inner.profileFor(-1, inner.passRule))
	if err != nil {
		return err
	}
	for _, i := range idx {
		row := &c.rows[i]
		diag := outs[i].diag[inner.passRule]
		for _, name := range []string{c.names[row.src], "all"} {
			g := r.gate[name]
			if g == nil {
				g = &gateRow{Source: name}
				r.gate[name] = g
			}
			pass, block := diag == guard.PassDiagnosis, diag != guard.PassDiagnosis && diag != guard.JudgeUncertain
			if row.good == 1 {
				g.Good++
				switch {
				case pass:
					g.GoodPassed++
				case block:
					g.GoodBlocked++
				default:
					g.GoodReview++
				}
			} else {
				g.Bad++
				if pass {
					g.BadAllowed++
				}
				if block {
					g.BadBlocked++
				}
			}
		}
	}
	return nil
}

func (dr *decisionReport) source(name string) *sourceQuality {
	for i := range dr.PerSource {
		if dr.PerSource[i].Source == name {
			return &dr.PerSource[i]
		}
	}
	dr.PerSource = append(dr.PerSource, sourceQuality{Source: name, AUROC: -1, Baseline: -1})
	return &dr.PerSource[len(dr.PerSource)-1]
}

func (r *report) finish(c *corpus) {
	rate := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	for _, g := range r.gate {
		g.GoodBlockedR, g.GoodPassedR = rate(g.GoodBlocked, g.Good), rate(g.GoodPassed, g.Good)
		g.BadAllowedR, g.BadBlockedR = rate(g.BadAllowed, g.Bad), rate(g.BadBlocked, g.Bad)
		r.Gate = append(r.Gate, *g)
	}
	// Worst first: most bad answers allowed, then most good answers blocked.
	sort.Slice(r.Gate, func(a, b int) bool {
		x, y := r.Gate[a], r.Gate[b]
		if x.Source == "all" || y.Source == "all" {
			return y.Source == "all" && x.Source != "all"
		}
		if x.BadAllowedR != y.BadAllowedR {
			return x.BadAllowedR > y.BadAllowedR
		}
		if x.GoodBlockedR != y.GoodBlockedR {
			return x.GoodBlockedR > y.GoodBlockedR
		}
		return x.Source < y.Source
	})
	for _, d := range guard.Decisions {
		dr := r.dec[d]
		if dr == nil {
			continue
		}
		for i := range dr.PerSource {
			q := &dr.PerSource[i]
			dec := q.AutoPass + q.AutoFail
			q.Decided = rate(dec, q.N)
			q.ErrorRate = rate(q.AutoPassErr+q.AutoFailErr, dec)
		}
		// Worst source first: lowest AUROC.
		sort.SliceStable(dr.PerSource, func(a, b int) bool { return auKey(dr.PerSource[a]) < auKey(dr.PerSource[b]) })
		r.Decisions = append(r.Decisions, *dr)
	}
}

func auKey(q sourceQuality) float64 {
	if q.AUROC < 0 {
		return 2
	}
	return q.AUROC
}

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Embedded lexical judges: quality on the development data\n\n")
	fmt.Fprintf(&b, "Profile `%s`, written by `%s` (data in `data/`, see `data/README.md`).\n\n", r.Profile, r.Command)
	fmt.Fprintf(&b, "Every figure is out of fold. Quality per source: %d-fold cross-validation grouped by passage. ", r.Folds)
	fmt.Fprintf(&b, "Policy figures are nested: for each outer fold, the models, the thresholds, the soft-evidence gates and the pass rule are all chosen on the other four folds and applied to the held-out one. Thresholds: fixed-sequence selection, four label-free starts each at δ/4, keeping the Clopper–Pearson bound on a region's error ≤ %.2f at %.0f%% confidence pooled, for every source with at least %d rows in the region (the size that test needs at δ/4), and for the smaller sources pooled, which may hold no error at all while they are too few to test. Synthetic examples never choose thresholds and are not counted in the held-out check. Chunk relevance's fail side blocks a sample as a retrieval miss when every chunk is at or below it, so it also answers for samples: every row whose answer is good (its diagnosis label, else its decision labels), whose groundedness label is true and whose answer relevance label is not false, in any source, with or without chunk labels, adds one check for the fail side alone, with P its highest chunk P (out of fold) and label true, under its source and fold group. The assumption: a good answer grounded in the contexts draws on at least one of them, so at least one chunk is relevant and blocking every chunk is an error. The checks choose the fail threshold and are counted among its held-out auto-fail errors; they are one per sample, clustered with its chunks, and never fitted.\n\n", r.Alpha, 100*r.Confidence, r.MinRows)

	fmt.Fprintf(&b, "## What a deployment gets: the embedded judges alone, held-out folds\n\n")
	fmt.Fprintf(&b, "An answer is *good* when its label says it should pass (its diagnosis label, else its groundedness, contradiction, relevance, correctness and sufficiency labels). *Allowed* = PASS; *blocked* = a confident failure; the rest is escalated for review. Rows without contexts (TruthfulQA: RETRIEVAL_MISS by definition) are left out. Pass rule of the shipped profile: `%s`. Worst source first.\n\n", r.PassRule)
	fmt.Fprintf(&b, "| source | good | bad | good blocked | good auto-passed | bad allowed | bad blocked |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, g := range r.Gate {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s |\n", g.Source, g.Good, g.Bad, pct(g.GoodBlocked, g.Good), pct(g.GoodPassed, g.Good), pct(g.BadAllowed, g.Bad), pct(g.BadBlocked, g.Bad))
	}

	fmt.Fprintf(&b, "\n## Quality per decision and source\n\nAUROC of the judge's P (out of fold) beside the plain baseline on the same rows; worst source first. Baselines: groundedness — share of the answer's words found in the contexts; contradiction — one minus that; chunk relevance — share of the question's words in the chunk; sufficiency — best sentence's share of the question's words; answer relevance — share of the question's words in the answer; correctness — Jaccard of answer and reference words. \"decided\" and \"errors\" are the held-out policy check.\n\n")
	for _, d := range r.Decisions {
		fmt.Fprintf(&b, "### %s\n\n", d.Decision)
		th := fmt.Sprintf("fail ≤ %.4f", d.Policy.Fail)
		if d.Policy.NoFail {
			th = "fail side undecided by policy"
		}
		if d.Policy.NoPass {
			th += ", pass side undecided by policy"
		} else {
			th += fmt.Sprintf(", pass ≥ %.4f", d.Policy.Pass)
		}
		if d.SoftFloor > 0 {
			th += fmt.Sprintf("; without hard evidence P ≥ %.4f", d.SoftFloor)
		}
		if d.SoftCeil > 0 {
			th += fmt.Sprintf("; without hard evidence P ≤ %.4f", d.SoftCeil)
		}
		fmt.Fprintf(&b, "Shipped policy: %s. Labels: %s.\n\n", th, strings.Join(d.Sources, "; "))
		fmt.Fprintf(&b, "| source | n | positives | AUROC | baseline | ECE | decided (held out) | auto-pass errors | auto-fail errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, q := range d.PerSource {
			au, bl := fmt.Sprintf("%.3f", q.AUROC), fmt.Sprintf("%.3f", q.Baseline)
			if q.AUROC < 0 {
				au = "n/a (one class)"
			}
			if q.Baseline < 0 {
				bl = "–"
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %.3f | %s | %d of %d | %d of %d |\n", q.Source, q.N, q.Positives, au, bl, q.ECE,
				pct(q.AutoPass+q.AutoFail, q.N), q.AutoPassErr, q.AutoPass, q.AutoFailErr, q.AutoFail)
		}
		fmt.Fprintf(&b, "\nWeights (standardization folded in; signs fixed by the feature definitions): ")
		names := lexical.FeatureNames(mustDecision(d.Decision))
		for i, n := range append(names, "(bias)") {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "`%s` %.3g", n, d.Weights[n])
		}
		b.WriteString("\n\n")
	}

	fmt.Fprintf(&b, "## Pass rule\n\nRules are tested in a fixed order, strictest first; the shipped rule is the last one whose auto-pass error bound held on every source (out of fold, all rows). errors/auto-passed per source:\n\n")
	for _, rc := range r.Rules {
		state := "not tested (too few auto-passed rows)"
		if rc.Tested {
			state = "holds"
			if !rc.Holds {
				state = "fails: the sequence stops"
			}
		} else if rc.Pooled[1] >= calibrate.MinRowsForBound(r.Alpha, r.Confidence) {
			state = "not tested (the sequence stopped)"
		}
		fmt.Fprintf(&b, "- `%s`: %s; pooled %d/%d", rc.Rule, state, rc.Pooled[0], rc.Pooled[1])
		for _, s := range sortedKeys(rc.PerSrc) {
			e := rc.PerSrc[s]
			fmt.Fprintf(&b, "; %s %d/%d", s, e[0], e[1])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n## Data\n\n| file | rows | SHA-256 |\n|---|---:|---|\n")
	for _, f := range r.Data {
		fmt.Fprintf(&b, "| %s | %d | `%s` |\n", f.Path, f.Rows, f.SHA256)
	}
	return b.String()
}

func mustDecision(s string) guard.Decision {
	d, err := guard.ParseDecision(s)
	if err != nil {
		panic(err)
	}
	return d
}

func sortedKeys[T any](m map[string]T) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

func words(s string) []string { return wordRE.FindAllString(strings.ToLower(s), -1) }

func set(ws []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func share(of []string, in map[string]bool) float64 {
	if len(of) == 0 {
		return 1
	}
	n := 0
	for _, w := range of {
		if in[w] {
			n++
		}
	}
	return float64(n) / float64(len(of))
}

// baseline is the plain signal of decision d for example e (NaN when the
// example has no row to read it from).
func baseline(c *corpus, d guard.Decision, e *example) float64 {
	if e.row < 0 {
		return math.NaN()
	}
	s := &c.rows[e.row].sample
	ctxWords := func() map[string]bool {
		m := map[string]bool{}
		for _, ctx := range s.Contexts {
			for _, w := range words(ctx.Text) {
				m[w] = true
			}
		}
		return m
	}
	switch d {
	case guard.Groundedness:
		return share(words(s.Answer), ctxWords())
	case guard.Contradiction:
		return 1 - share(words(s.Answer), ctxWords())
	case guard.AnswerRelevance:
		return share(words(s.Question), set(words(s.Answer)))
	case guard.ChunkRelevance:
		return share(words(s.Question), set(words(s.Contexts[e.ctx].Text)))
	case guard.ContextSufficiency:
		best := 0.0
		q := words(s.Question)
		for _, ctx := range s.Contexts {
			for _, sent := range splitSentences(ctx.Text) {
				best = math.Max(best, share(q, set(words(sent))))
			}
		}
		return best
	case guard.Correctness:
		if s.Reference == nil {
			return math.NaN()
		}
		a, r := set(words(s.Answer)), set(words(*s.Reference))
		inter := 0
		for w := range a {
			if r[w] {
				inter++
			}
		}
		if u := len(a) + len(r) - inter; u > 0 {
			return float64(inter) / float64(u)
		}
		return 0
	}
	return math.NaN()
}

func auroc(p []float64, y []bool) float64 {
	a, err := calibrate.AUROC(p, y, nil)
	if err != nil || math.IsNaN(a) {
		return -1
	}
	return a
}
