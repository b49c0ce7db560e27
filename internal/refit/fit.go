package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/lexical/fit"
)

const (
	nFolds = 5
	// l2 is the ridge penalty of every fit, on standardized features.
	l2 = 1.0
	// sourceCap bounds a source's weight in a fit: a source with n > cap
	// examples of a decision has each weighted cap/n, so that no source's
	// size (the NLI sets have ~1,500 rows each) decides what the model learns.
	sourceCap = 400.0
)

// starts are where the fixed sequences of a selection begin, as fractions of
// the rows (label-free): four sequences, each at δ/4.
var starts = []float64{0, 0.03, 0.1, 0.3}

// verbose logs every selection (-v); with dumpDir set (-dump DIR) the
// first pipeline's selection data are written there too.
var (
	verbose bool
	dumpDir string
)

type settings struct {
	alpha, confidence float64
}

// refitCommand reproduces the profile from a clean clone.
const refitCommand = "go run ./internal/refit -stage vocab && go run ./internal/refit -stage fit"

func foldOf(group string, salt string, k int) int {
	h := fnv.New64a()
	h.Write([]byte(salt))
	h.Write([]byte(group))
	return int(h.Sum64() % uint64(k))
}

func fitProfile(sets []labelled, st settings, profOut, reportOut string, out map[string][]byte) error {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	c := buildCorpus(j, sets)
	log.Printf("refit: %d rows; examples: %s", len(c.rows), exampleCounts(c))

	var files []lexical.DataFile
	for _, ds := range sets {
		files = append(files, ds.file)
	}
	all := make([]bool, len(c.rows))
	for i := range all {
		all[i] = true
	}
	// The shipped profile: everything chosen on all rows.
	shipped, err := c.pipeline(all, "", st)
	if err != nil {
		return err
	}
	dumpDir = "" // the dump shows the shipped selection only
	prof := shipped.profile(files, st)
	if err := prof.Validate(); err != nil {
		return err
	}
	pb, err := json.MarshalIndent(prof, "", "  ")
	if err != nil {
		return err
	}
	out[profOut] = append(pb, '\n')

	// The nested check: for each outer fold, choose everything on the other
	// folds and judge the held-out one.
	rep := newReport(c, st, prof, shipped)
	for k := 0; k < nFolds; k++ {
		train := make([]bool, len(c.rows))
		for i := range c.rows {
			train[i] = foldOf(c.rows[i].group, "", nFolds) != k
		}
		inner, err := c.pipeline(train, fmt.Sprintf("inner%d:", k), st)
		if err != nil {
			return fmt.Errorf("outer fold %d: %w", k, err)
		}
		if err := rep.addHeldOut(c, inner, k); err != nil {
			return err
		}
		log.Printf("refit: outer fold %d done", k)
	}
	rep.finish(c)
	rb, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	out[reportOut+".json"] = append(rb, '\n')
	out[reportOut+".md"] = []byte(rep.markdown())
	return nil
}

func exampleCounts(c *corpus) string {
	s := ""
	for _, d := range guard.Decisions {
		s += fmt.Sprintf("%s %d  ", d, len(c.ex[d]))
	}
	return s
}

// fitted is what a pipeline chooses on a training set of rows.
type fitted struct {
	// per decision: the model on every training example, the out-of-fold
	// predictions (raw, before gating) of every training example, the
	// models of each inner fold, the selection and gate.
	dec map[guard.Decision]*fittedDecision
	// passRule is the chosen rule; ruleChecks the auto-pass errors of every
	// rule tested, per source, on the training rows (out of fold).
	passRule   guard.PassRule
	ruleChecks []ruleCheck
}

type fittedDecision struct {
	*fit.Fitted
	train []int // indices of the examples fitted, in c.ex[d]
}

// settings are the numbers package fit takes.
func (st settings) fit() fit.Settings {
	return fit.Settings{Alpha: st.alpha, Confidence: st.confidence, Folds: nFolds, Starts: starts, SourceCap: sourceCap}
}

// pipeline fits, cross-predicts and selects every decision on the examples
// whose row (or, for synthetic examples, group) is in train, then picks the
// pass rule. salt separates the fold assignment of nested runs.
func (c *corpus) pipeline(train []bool, salt string, st settings) (*fitted, error) {
	inTrain := func(e *example) bool {
		if e.row >= 0 {
			return train[e.row]
		}
		// Synthetic examples follow the outer fold of their group.
		if salt == "" {
			return true
		}
		k, _ := strconv.Atoi(salt[len("inner") : len(salt)-1])
		return foldOf(e.group, "", nFolds) != k
	}
	ft := &fitted{dec: map[guard.Decision]*fittedDecision{}}
	for _, d := range guard.Decisions {
		exs := c.ex[d]
		if len(exs) == 0 {
			continue
		}
		fd := &fittedDecision{}
		var in []fit.Example
		for i := range exs {
			if e := &exs[i]; inTrain(e) {
				fd.train = append(fd.train, i)
				in = append(in, fit.Example{X: e.x, Y: e.y, Source: e.src, Fold: foldOf(e.group, salt+"cv:", nFolds),
					Hard: e.hard, Weight: e.w, Synthetic: e.synth})
			}
		}
		if d == guard.ChunkRelevance {
			in = c.appendSamples(in, inTrain, salt)
		}
		f, err := fit.Decision(d, in, st.fit())
		if err != nil {
			return nil, fmt.Errorf("%v: %w", d, err)
		}
		for _, err := range f.Approximate {
			log.Printf("refit: %v; keeping the last iterate", err)
		}
		fd.Fitted = f
		logSelection(d, in, f)
		ft.dec[d] = fd
	}
	if err := c.selectPassRule(ft, train, salt, st); err != nil {
		return nil, err
	}
	return ft, nil
}

// appendSamples appends the sample-level checks of chunk relevance whose
// row is in train, after the real examples: they choose thresholds and are
// never fitted (fit.Example.Chunks). Being last, they leave the indices of
// fittedDecision.train aligned with the first OOF entries.
func (c *corpus) appendSamples(in []fit.Example, inTrain func(*example) bool, salt string) []fit.Example {
	for i := range c.samples {
		if e := &c.samples[i]; inTrain(e) {
			in = append(in, fit.Example{Chunks: e.chunks, Y: e.y, Source: e.src, Fold: foldOf(e.group, salt+"cv:", nFolds)})
		}
	}
	return in
}

// logSelection logs a decision's selection (-v) and, with -dump, writes
// the data it was chosen on (the real examples only).
func logSelection(d guard.Decision, in []fit.Example, f *fit.Fitted) {
	if !verbose {
		return
	}
	var b strings.Builder
	for i, e := range in {
		if !e.Synthetic {
			fmt.Fprintf(&b, "%v\t%v\t%d\t%v\n", f.OOF[i], e.Y, e.Source, e.Hard)
		}
	}
	if b.Len() == 0 {
		return
	}
	if dumpDir != "" {
		_ = os.WriteFile(filepath.Join(dumpDir, "sel-"+d.String()+".tsv"), []byte(b.String()), 0o644)
	}
	s := f.Selection
	log.Printf("select %v: fail %v (has %v, tested %d, region %d/%d err) pass %v (has %v, tested %d, region %d/%d err) floor %v ceil %v",
		d, s.Fail.Fail, s.Fail.HasFail, s.Fail.Tested[0], s.Fail.AutoFail.Errors, s.Fail.AutoFail.Count,
		s.Pass.Pass, s.Pass.HasPass, s.Pass.Tested[1], s.Pass.AutoPass.Errors, s.Pass.AutoPass.Count, s.SoftFloor, s.SoftCeiling)
}

// profileFor builds a profile from the fold-k models (k < 0: the models on
// every training example) with the pipeline's policy and gates.
func (ft *fitted) profileFor(k int, rule guard.PassRule) *lexical.Profile {
	p := &lexical.Profile{Version: "refit", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}}
	for d, fd := range ft.dec {
		p.Decisions[d.String()] = fd.DecisionModel(k)
		p.Policy.Set(d, fd.Selection.Thresholds)
	}
	p.Policy.PassRule = rule
	return p
}

// outcome is what the guard concluded about one row under each pass rule.
type outcome struct {
	diag [5]guard.Diagnosis
	// verdicts of the single decisions under the policy, for the check.
	res guard.Result
}

// judgeRows evaluates the rows idx with the guard built on profile prof,
// returning each row's diagnosis under every pass rule.
func judgeRows(c *corpus, idx []int, prof *lexical.Profile) (map[int]*outcome, error) {
	j, err := lexical.New(prof)
	if err != nil {
		return nil, err
	}
	g, err := guard.New(guard.WithJudge(j), guard.WithPolicy(prof.Policy))
	if err != nil {
		return nil, err
	}
	out := make(map[int]*outcome, len(idx))
	for _, i := range idx {
		s := c.rows[i].sample
		s.ID = "r" + strconv.Itoa(i)
		res, err := g.Evaluate(context.Background(), s)
		if err == nil {
			err = res.Err() // a failed judge: its decisions would be uncertain
		}
		if err != nil {
			return nil, fmt.Errorf("row %d (%s): %w", i, c.names[c.rows[i].src], err)
		}
		o := &outcome{res: res}
		for ri, rule := range guard.PassRules {
			res.PassRule = rule
			o.diag[ri] = guard.Diagnose(&res).Diagnosis
		}
		out[i] = o
	}
	return out, nil
}

// ruleCheck is the out-of-fold auto-pass record of one pass rule.
type ruleCheck struct {
	Rule   string            `json:"rule"`
	Tested bool              `json:"tested"`
	Holds  bool              `json:"holds"`
	PerSrc map[string][2]int `json:"autoPassErrorsOfCount"` // source → {errors, auto-passed}
	Pooled [2]int            `json:"pooled"`
}

// selectPassRule judges every training row with a known good/bad label by
// the guard built on its inner-fold models and the chosen thresholds, and
// picks the most lenient pass rule, testing them in their fixed order, whose
// auto-pass error keeps the promise on every source.
func (c *corpus) selectPassRule(ft *fitted, train []bool, salt string, st settings) error {
	byFold := make([][]int, nFolds)
	for i := range c.rows {
		if train[i] && c.rows[i].good >= 0 {
			k := foldOf(c.rows[i].group, salt+"cv:", nFolds)
			byFold[k] = append(byFold[k], i)
		}
	}
	outs := map[int]*outcome{}
	for k := 0; k < nFolds; k++ {
		o, err := judgeRows(c, byFold[k], ft.profileFor(k, guard.PassAll))
		if err != nil {
			return err
		}
		for i, v := range o {
			outs[i] = v
		}
	}
	rows := make([]int, 0, len(outs))
	for i := range outs {
		rows = append(rows, i)
	}
	slices.Sort(rows)
	results := make([]guard.Result, len(rows))
	good := make([]bool, len(rows))
	group := make([]int, len(rows))
	for t, i := range rows {
		results[t], good[t], group[t] = outs[i].res, c.rows[i].good == 1, c.rows[i].src
	}
	rule, checks := fit.PassRule(results, good, group, st.fit())
	ft.passRule = rule
	ft.ruleChecks = nil
	for _, rc := range checks {
		out := ruleCheck{Rule: rc.Rule.String(), Tested: rc.Tested, Holds: rc.Holds, PerSrc: map[string][2]int{},
			Pooled: [2]int{rc.PooledErrors, rc.PooledPassed}}
		for g, n := range rc.Passed {
			out.PerSrc[c.names[g]] = [2]int{rc.Errors[g], n}
		}
		ft.ruleChecks = append(ft.ruleChecks, out)
	}
	return nil
}

// selectionRules names, in the profile's version, what the threshold
// selection reads beyond the examples: the sample-level checks of chunk
// relevance's fail side (corpus.addGoodSamples).
const selectionRules = " chunk-fail-answers-for-good-samples"

func (ft *fitted) profile(files []lexical.DataFile, st settings) *lexical.Profile {
	p := ft.profileFor(-1, ft.passRule)
	p.FeaturesVersion = lexical.FeaturesVersion
	p.RefitCommand = refitCommand
	p.Data = files
	// The version names what shaped the profile: the data, the features and
	// the settings. Same inputs, same version.
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %s %d\n", f.Path, f.SHA256, f.Rows)
	}
	fmt.Fprintf(h, "%s alpha=%v confidence=%v folds=%d l2=%v cap=%v synth=%v starts=%v%s\n", lexical.FeaturesVersion, st.alpha, st.confidence, nFolds, l2, sourceCap, synthWeight, starts, selectionRules)
	sum := h.Sum(nil)
	p.Version = "dev-" + hex.EncodeToString(sum[:6])
	for d := range ft.dec {
		p.Decisions[d.String()].Sources = sources[d]
	}
	return p
}
