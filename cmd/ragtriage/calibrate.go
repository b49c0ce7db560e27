package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

var calibrateCommand = &command{
	name:    "calibrate",
	summary: "fit the lexical judges' calibration and thresholds with a risk bound",
	usage:   calibrateUsage,
	run:     runCalibrate,
}

const calibrateUsage = `Usage: ragtriage calibrate -dataset FILE [-dataset FILE …] [-alpha 0.05] [-confidence 0.95]
                           -out profile.json [flags]

Calibrate fits, for each decision with labels in the datasets, the logistic
model that turns the lexical judges' raw features into a probability (each
feature keeps its declared direction), and chooses the decision's thresholds
(fail, pass) by fixed-sequence testing from the most conservative one: a
region is kept only while the Clopper–Pearson upper bound on its error rate
at -confidence stays ≤ -alpha, pooled and on every input file (each file is a
source), so the bound holds after the selection. A side no region certifies
is undecided by policy. The pass rule (which uncertain decisions may stand
beside a PASS) is then chosen the same way.

The thresholds are chosen on out-of-fold predictions: rows are split into
-folds folds, grouped so that rows sharing a question or a context set never
straddle folds, and every row is predicted by a model that did not see it.
The same predictions give the calibration reported (AUROC, Brier, ECE), and a
held-out check picks thresholds on all folds but one and applies them to the
remaining one. The model shipped in the profile is then fitted on all rows.

The profile written loads with "ragtriage judge -profile FILE",
"ragtriage eval -profile FILE" and lexical.LoadProfile / lexical.New.
Decisions that are not refitted keep the model and thresholds of the base
profile (-base, default the embedded one), and the profile says so.

Calibrate refuses, naming the decision, when a decision to fit has fewer than
-min-labels labels, fewer than -min-class of either class, or a fold whose
training rows hold a single class. Leave such a decision out with -decisions.

Flags:
  -dataset FILE     labeled JSON Lines (repeatable, or a comma-separated list)
  -out FILE         the profile to write (required)
  -alpha A          largest error rate allowed in each accepted region (0.05)
  -confidence C     confidence of the upper bound (0.95)
  -decisions LIST   decisions to fit, comma-separated (default: every decision
                    with at least one label)
  -min-labels N     fewest labels a decision needs (30)
  -min-class N      fewest labels of each class (5)
  -folds K          cross-validation folds (5)
  -base FILE        profile whose other decisions are kept (default: embedded)
  -version NAME     profile version (default calibrated-DATE-HASH)
  -report FILE      also write the calibration report as JSON
  -allow-undecided  exit 0 although a refitted decision decides nothing

A line that is not a valid row is listed on standard error and skipped.
Every decision or side left undecided by policy is named on standard
output. The default profile version hashes the data and every setting that
shapes the profile (alpha, confidence, folds, label minimums, decisions,
base profile, features version).

Exit status: 0 when the profile was written and every refitted decision
decides something; 1 when calibration refused or failed, or when a refitted
decision decides nothing (the profile is still written; -allow-undecided
accepts it); 2 on a usage error.
`

// calibrationReport is what -report writes and the summary prints.
type calibrationReport struct {
	Profile    string              `json:"profile"`
	Alpha      float64             `json:"alpha"`
	Confidence float64             `json:"confidence"`
	Folds      int                 `json:"folds"`
	Data       []lexical.DataFile  `json:"data"`
	BadLines   int                 `json:"badLines"`
	Decisions  []decisionFitReport `json:"decisions"`
	Kept       []string            `json:"kept"`
	// PassRule is the rule chosen for the profile; PassRuleChecks how each
	// rule fared (see lexical.SelectPassRule).
	PassRule       string          `json:"passRule"`
	PassRuleChecks []passRuleCheck `json:"passRuleChecks"`
}

type passRuleCheck struct {
	Rule       string `json:"rule"`
	Tested     bool   `json:"tested"`
	Holds      bool   `json:"holds"`
	AutoPassed int    `json:"autoPassed"`
	Errors     int    `json:"errors"`
}

type decisionFitReport struct {
	Decision  string           `json:"decision"`
	N         int              `json:"n"`
	Positives int              `json:"positives"`
	Groups    int              `json:"groups"`
	OOF       lexical.Quality  `json:"outOfFold"`
	AUROCNote string           `json:"aurocNote,omitempty"`
	Bins      []calibrate.Bin  `json:"reliability"`
	Policy    guard.Thresholds `json:"policy"`
	// Selection is the threshold choice on all out-of-fold predictions.
	AutoPass calibrate.Region `json:"autoPass"`
	AutoFail calibrate.Region `json:"autoFail"`
	Coverage float64          `json:"coverage"`
	// HeldOut applies thresholds chosen on the other folds to each fold.
	HeldOut heldOutCheck `json:"heldOut"`
	// Undecided: no region on either side keeps the promise on every
	// input file; the decision always escalates.
	Undecided bool `json:"undecidedByPolicy,omitempty"`
}

// selectionStarts are the starting points of the fixed sequences (see
// calibrate.FixedSequenceConfig.Starts), the same as internal/refit's.
var selectionStarts = []float64{0, 0.03, 0.1, 0.3}

type heldOutCheck struct {
	N              int     `json:"n"`
	AutoPass       int     `json:"autoPass"`
	AutoPassErrors int     `json:"autoPassErrors"`
	AutoFail       int     `json:"autoFail"`
	AutoFailErrors int     `json:"autoFailErrors"`
	Coverage       float64 `json:"coverage"`
	ErrorRate      float64 `json:"errorRate"`
}

// calExample is one labeled feature vector.
type calExample struct {
	x     []float64
	y     bool
	group int // index of the row's group
	file  string
	row   int // index into the labelled rows
	ctx   int // context index, for chunk relevance
}

// calRow is a labelled row, kept for the pass-rule check.
type calRow struct {
	sample *guard.Sample
	exp    *dataset.Expected
	file   string
}

func runCalibrate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, calibrateUsage) }
	var datasets, decisions listFlag
	fs.Var(&datasets, "dataset", "labeled dataset `FILE`")
	fs.Var(&decisions, "decisions", "decisions to fit")
	out := fs.String("out", "", "profile `FILE` to write")
	alpha := fs.Float64("alpha", 0.05, "largest error rate in each accepted region")
	confidence := fs.Float64("confidence", 0.95, "confidence of the upper bound")
	minLabels := fs.Int("min-labels", 30, "fewest labels a decision needs")
	minClass := fs.Int("min-class", 5, "fewest labels of each class")
	folds := fs.Int("folds", 5, "cross-validation folds")
	basePath := fs.String("base", "", "base profile `FILE`")
	version := fs.String("version", "", "profile version")
	reportPath := fs.String("report", "", "calibration report `FILE`")
	allowUndecided := fs.Bool("allow-undecided", false, "exit 0 although a refitted decision decides nothing")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "ragtriage calibrate: "+format+"\n", a...)
		return 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q (give datasets with -dataset)", fs.Arg(0))
	case len(datasets) == 0:
		return usage("-dataset is required")
	case *out == "":
		return usage("-out is required")
	case !(*alpha > 0 && *alpha < 1):
		return usage("-alpha %v: want a number in (0, 1)", *alpha)
	case !(*confidence > 0 && *confidence < 1):
		return usage("-confidence %v: want a number in (0, 1)", *confidence)
	case *folds < 2:
		return usage("-folds %d: want 2 or more", *folds)
	case *minLabels < 2 || *minClass < 1:
		return usage("-min-labels must be ≥ 2 and -min-class ≥ 1")
	}
	var want []guard.Decision
	for _, name := range decisions {
		d, err := guard.ParseDecision(name)
		if err != nil {
			return usage("-decisions: %v", err)
		}
		want = append(want, d)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ragtriage calibrate: %v\n", err)
		return 1
	}

	base := lexical.DefaultProfile()
	if *basePath != "" {
		var err error
		if base, err = lexical.LoadProfile(*basePath); err != nil {
			return fail(err)
		}
	}
	judge, err := lexical.New(base)
	if err != nil {
		return fail(err)
	}

	// Read the rows and compute their features.
	src := dataset.NewFileSource(datasets...)
	defer src.Close()
	ex := map[guard.Decision][]calExample{}
	var rows []calRow
	groups := newGroups()
	bad := 0
	for {
		it, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		if it.Err != nil {
			bad++
			fmt.Fprintf(stderr, "ragtriage calibrate: %s: skipped: %v\n", it.Pos, it.Err)
			continue
		}
		if it.Expected == nil {
			continue
		}
		s := it.Sample
		if err := s.Validate(guard.Limits{}); err != nil {
			bad++
			fmt.Fprintf(stderr, "ragtriage calibrate: %s: skipped: %v\n", it.Pos, err)
			continue
		}
		g := groups.add(s)
		f := judge.Features(s)
		e := it.Expected
		ri := len(rows)
		rows = append(rows, calRow{s, e, it.Pos.File})
		for ci, c := range s.Contexts {
			if v, ok := e.ChunkLabel(c.ID); ok {
				ex[guard.ChunkRelevance] = append(ex[guard.ChunkRelevance], calExample{f.ChunkRelevance[ci], v, g, it.Pos.File, ri, ci})
			}
		}
		vecs := map[guard.Decision][]float64{guard.ContextSufficiency: f.ContextSufficiency, guard.ContextConflict: f.ContextConflict,
			guard.AnswerRelevance: f.AnswerRelevance, guard.Groundedness: f.Groundedness, guard.Contradiction: f.Contradiction,
			guard.Correctness: f.Correctness}
		for d, x := range vecs {
			if x == nil {
				continue // correctness without a reference
			}
			if v, ok := e.Label(d); ok {
				ex[d] = append(ex[d], calExample{x, v, g, it.Pos.File, ri, -1})
			}
		}
	}
	for _, w := range src.Warnings() {
		fmt.Fprintf(stderr, "ragtriage calibrate: %s: %s\n", w.Pos, w.Message)
	}
	for _, es := range ex {
		for i := range es {
			es[i].group = groups.find(es[i].group)
		}
	}
	if len(want) == 0 {
		for _, d := range guard.Decisions {
			if len(ex[d]) > 0 {
				want = append(want, d)
			}
		}
	}
	if len(want) == 0 {
		return fail(errors.New("no labels in the datasets: nothing to calibrate"))
	}

	// Refuse before fitting anything.
	var refusals []string
	for _, d := range want {
		n, pos := len(ex[d]), 0
		for _, e := range ex[d] {
			if e.y {
				pos++
			}
		}
		switch {
		case n < *minLabels:
			refusals = append(refusals, fmt.Sprintf("%s: %d labels, fewer than -min-labels %d", d, n, *minLabels))
		case pos == 0 || pos == n:
			refusals = append(refusals, fmt.Sprintf("%s: all %d labels are %v: a calibrator cannot be fitted on a single class", d, n, pos == n))
		case pos < *minClass || n-pos < *minClass:
			refusals = append(refusals, fmt.Sprintf("%s: %d true and %d false labels, fewer than -min-class %d of one class", d, pos, n-pos, *minClass))
		}
	}
	if len(refusals) > 0 {
		for _, r := range refusals {
			fmt.Fprintf(stderr, "ragtriage calibrate: refusing: %s\n", r)
		}
		fmt.Fprintln(stderr, "ragtriage calibrate: add labels, or leave those decisions out with -decisions (they then keep the base profile's model)")
		return 1
	}

	var data []lexical.DataFile
	for _, in := range src.Inputs() {
		data = append(data, lexical.DataFile{Path: in.Name, SHA256: in.SHA256, Rows: in.Lines - in.Bad})
	}
	now := evalNow().UTC()
	prof := &lexical.Profile{
		Version: *version, FeaturesVersion: lexical.FeaturesVersion, Created: now.Format(time.RFC3339),
		RefitCommand: "ragtriage calibrate " + strings.Join(args, " "),
		Data:         data, Decisions: map[string]*lexical.DecisionModel{}, Policy: base.Policy,
	}
	if prof.Version == "" {
		// The version names everything that shapes the profile: the data,
		// the settings, the decisions refitted, the base profile and the
		// features, so two different policies never share a version.
		h := sha256.New()
		for _, d := range data {
			fmt.Fprintf(h, "data %s %s %d\n", d.Path, d.SHA256, d.Rows)
		}
		names := make([]string, len(want))
		for i, d := range want {
			names[i] = d.String()
		}
		slices.Sort(names)
		fmt.Fprintf(h, "alpha=%v confidence=%v folds=%d min-labels=%d min-class=%d decisions=%s base=%s features=%s starts=%v\n",
			*alpha, *confidence, *folds, *minLabels, *minClass, strings.Join(names, ","), base.Version, lexical.FeaturesVersion, selectionStarts)
		prof.Version = "calibrated-" + now.Format("20060102") + "-" + hex.EncodeToString(h.Sum(nil))[:12]
	}
	rep := calibrationReport{Profile: prof.Version, Alpha: *alpha, Confidence: *confidence, Folds: *folds, Data: data, BadLines: bad}
	for _, d := range guard.Decisions {
		if slices.Contains(want, d) {
			continue
		}
		if m, ok := base.Decisions[d.String()]; ok {
			kept := *m
			kept.Sources = append([]string{"not refitted by ragtriage calibrate: kept from profile " + base.Version}, m.Sources...)
			prof.Decisions[d.String()] = &kept
			rep.Kept = append(rep.Kept, d.String())
		}
	}
	// oof holds each labelled estimate's out-of-fold P, gated as the
	// profile gates it, for the pass-rule check.
	type oofKey struct {
		row int
		d   guard.Decision
		ctx int
	}
	oof := map[oofKey]float64{}
	for _, d := range want {
		dm, dr, fit, err := fitCalibration(d, ex[d], *folds, *alpha, *confidence)
		if err != nil {
			return fail(fmt.Errorf("refusing: %s: %w", d, err))
		}
		dr.Groups = groups.count(ex[d])
		prof.Decisions[d.String()] = dm
		prof.Policy.Set(d, dr.Policy)
		rep.Decisions = append(rep.Decisions, dr)
		for i, e := range ex[d] {
			p := fit.oof[i]
			if !fit.hard[i] {
				p = max(p, fit.sel.SoftFloor)
				if fit.sel.SoftCeiling > 0 {
					p = min(p, fit.sel.SoftCeiling)
				}
			}
			oof[oofKey{e.row, d, e.ctx}] = p
		}
	}
	// The pass rule: each labelled row judged by the new profile, with the
	// out-of-fold P of every decision it has a label for, under each rule
	// in turn; the most lenient rule that keeps the promise on every input
	// file (lexical.SelectPassRule, as internal/refit chooses the shipped
	// one).
	if err := prof.Validate(); err != nil {
		return fail(err)
	}
	pj, err := lexical.New(prof)
	if err != nil {
		return fail(err)
	}
	var cur int
	replay := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		ests, err := pj.Judge(ctx, req)
		for i := range ests {
			e := &ests[i]
			ci := -1
			if e.Decision == guard.ChunkRelevance {
				ci = slices.IndexFunc(req.Sample.Contexts, func(c guard.Context) bool { return c.ID == e.ContextID })
			}
			if p, ok := oof[oofKey{cur, e.Decision, ci}]; ok && !e.Abstained {
				e.P = p
			}
		}
		return ests, err
	})
	rg, err := guard.New(guard.WithJudge(replay), guard.WithPolicy(prof.Policy))
	if err != nil {
		return fail(err)
	}
	passed := make([][]bool, len(guard.PassRules))
	var good []bool
	var fileOf []int
	fileIDs := map[string]int{}
	for ri, r := range rows {
		pass, known := r.exp.ShouldPass()
		if !known || len(r.sample.Contexts) == 0 {
			continue
		}
		cur = ri
		res, err := rg.Evaluate(context.Background(), *r.sample)
		if err == nil {
			err = res.Err() // a failed judge: the check would be on uncertain decisions
		}
		if err != nil {
			return fail(fmt.Errorf("pass-rule check: %w", err))
		}
		for k, rule := range guard.PassRules {
			res.PassRule = rule
			passed[k] = append(passed[k], guard.Diagnose(&res).Diagnosis == guard.PassDiagnosis)
		}
		id, ok := fileIDs[r.file]
		if !ok {
			id = len(fileIDs)
			fileIDs[r.file] = id
		}
		good, fileOf = append(good, pass), append(fileOf, id)
	}
	rule, checks := lexical.SelectPassRule(passed, good, fileOf, *alpha, *confidence)
	prof.Policy.PassRule = rule
	rep.PassRule = rule.String()
	for _, rc := range checks {
		rep.PassRuleChecks = append(rep.PassRuleChecks, passRuleCheck{Rule: rc.Rule.String(), Tested: rc.Tested, Holds: rc.Holds,
			AutoPassed: rc.PooledPassed, Errors: rc.PooledErrors})
	}
	if err := prof.Validate(); err != nil {
		return fail(err)
	}
	if err := writeIndentedJSON(*out, prof); err != nil {
		return fail(err)
	}
	if *reportPath != "" {
		if err := writeIndentedJSON(*reportPath, rep); err != nil {
			return fail(err)
		}
	}
	printCalibration(stdout, &rep, *out)
	var idle []string
	for _, d := range rep.Decisions {
		if d.Coverage == 0 {
			idle = append(idle, d.Decision)
		}
	}
	if len(idle) > 0 && !*allowUndecided {
		verb := "decides"
		if len(idle) > 1 {
			verb = "decide"
		}
		fmt.Fprintf(stderr, "ragtriage calibrate: %s %s nothing on this data (undecided by policy, or no row in a certified region): the profile %s sends every such decision to review; add labels, leave them out with -decisions, or accept it with -allow-undecided\n",
			strings.Join(idle, ", "), verb, *out)
		return 1
	}
	return 0
}

// fitCalibration fits one decision: out-of-fold predictions, their quality,
// the thresholds chosen on them, the held-out check, and the final model.
// calFit is what the pass-rule check needs from fitCalibration.
type calFit struct {
	oof  []float64
	hard []bool
	sel  lexical.Selection
}

func fitCalibration(d guard.Decision, es []calExample, k int, alpha, confidence float64) (*lexical.DecisionModel, decisionFitReport, calFit, error) {
	// The features' declared directions hold in every fit (see
	// lexical.Feature).
	cfg := calibrate.LogisticConfig{L2: 1, MaxIter: 500, Signs: lexical.FeatureSigns(d)}
	x := make([][]float64, len(es))
	y := make([]bool, len(es))
	folds := make([]int, len(es))
	pos := 0
	for i, e := range es {
		x[i], y[i] = e.x, e.y
		folds[i] = calibrate.GroupFold(fmt.Sprint(e.group), k)
		if e.y {
			pos++
		}
	}
	// Every training set (all folds but one) needs both classes.
	for f := range k {
		tp, tn := 0, 0
		for i := range es {
			if folds[i] != f {
				if y[i] {
					tp++
				} else {
					tn++
				}
			}
		}
		if tp == 0 || tn == 0 {
			return nil, decisionFitReport{}, calFit{}, fmt.Errorf("the rows outside fold %d hold a single class; add labels of the other class", f)
		}
	}
	oof, err := calibrate.CrossValPredict(x, y, nil, folds, k, cfg)
	if errors.Is(err, calibrate.ErrNotConverged) {
		err = nil // a sign-constrained fit still moving within tolerance: its last iterate keeps the signs
	}
	if err != nil {
		return nil, decisionFitReport{}, calFit{}, err
	}
	full, err := calibrate.FitStandardized(x, y, nil, cfg)
	if errors.Is(err, calibrate.ErrNotConverged) {
		err = nil
	}
	if err != nil {
		return nil, decisionFitReport{}, calFit{}, err
	}
	dr := decisionFitReport{Decision: d.String(), N: len(es), Positives: pos}
	dr.OOF = lexical.Quality{N: len(es), Brier: calibrate.Brier(oof, y, nil), ECE: calibrate.ECE(oof, y, nil, 10), AUROC: -1}
	if a, err := calibrate.AUROC(oof, y, nil); err == nil {
		dr.OOF.AUROC = a
	} else {
		dr.AUROCNote = err.Error()
	}
	dr.Bins = calibrate.Reliability(oof, y, nil, 10)
	// Each input file is a labelled source: the promise is checked on each.
	fileIDs := map[string]int{}
	src := make([]int, len(es))
	hard := make([]bool, len(es))
	for i, e := range es {
		id, ok := fileIDs[e.file]
		if !ok {
			id = len(fileIDs)
			fileIDs[e.file] = id
		}
		src[i], hard[i] = id, lexical.HardEvidence(d, e.x)
	}
	fsCfg := calibrate.FixedSequenceConfig{Alpha: alpha, Confidence: confidence, Starts: selectionStarts}
	sel, err := lexical.SelectPolicy(d, oof, y, src, hard, fsCfg)
	if err != nil {
		return nil, decisionFitReport{}, calFit{}, err
	}
	dr.Policy = sel.Thresholds
	dr.AutoPass, dr.AutoFail = sel.Pass.AutoPass, sel.Fail.AutoFail
	if !sel.Pass.HasPass {
		dr.AutoPass = calibrate.Region{Threshold: 1, UpperBound: 1}
	}
	if !sel.Fail.HasFail {
		dr.AutoFail = calibrate.Region{UpperBound: 1}
	}
	dr.Coverage = float64(dr.AutoPass.Count+dr.AutoFail.Count) / float64(len(es))
	dr.Undecided = sel.Thresholds.IsUndecided()

	// Held-out check, cross-fitted (not nested: the other folds'
	// out-of-fold predictions come from models that saw this fold):
	// thresholds chosen on them, applied to this fold.
	h := &dr.HeldOut
	for f := range k {
		var p []float64
		var yy []bool
		var gg []int
		var hh []bool
		for i := range es {
			if folds[i] != f {
				p, yy, gg, hh = append(p, oof[i]), append(yy, y[i]), append(gg, src[i]), append(hh, hard[i])
			}
		}
		if len(p) == 0 {
			continue
		}
		s, err := lexical.SelectPolicy(d, p, yy, gg, hh, fsCfg)
		if err != nil {
			return nil, decisionFitReport{}, calFit{}, fmt.Errorf("held-out check, fold %d: %w", f, err)
		}
		th := s.Thresholds
		for i := range es {
			if folds[i] != f {
				continue
			}
			h.N++
			pi := oof[i]
			if !hard[i] {
				pi = max(pi, s.SoftFloor)
				if s.SoftCeiling > 0 {
					pi = min(pi, s.SoftCeiling)
				}
			}
			switch th.Verdict(pi) {
			case guard.Pass:
				h.AutoPass++
				if !y[i] {
					h.AutoPassErrors++
				}
			case guard.Fail:
				h.AutoFail++
				if y[i] {
					h.AutoFailErrors++
				}
			}
		}
	}
	if h.N > 0 {
		h.Coverage = float64(h.AutoPass+h.AutoFail) / float64(h.N)
	}
	if dec := h.AutoPass + h.AutoFail; dec > 0 {
		h.ErrorRate = float64(h.AutoPassErrors+h.AutoFailErrors) / float64(dec)
	}

	dm := &lexical.DecisionModel{Features: lexical.FeatureNames(d), Model: full, Positives: pos, Negatives: len(es) - pos,
		SoftFloor: sel.SoftFloor, SoftCeiling: sel.SoftCeiling,
		CV: map[string]lexical.Quality{"all": dr.OOF}}
	byFile := map[string][]int{}
	for i, e := range es {
		byFile[e.file] = append(byFile[e.file], i)
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		idx := byFile[f]
		p := make([]float64, len(idx))
		yy := make([]bool, len(idx))
		n := 0
		for j, i := range idx {
			p[j], yy[j] = oof[i], y[i]
			if y[i] {
				n++
			}
		}
		q := lexical.Quality{N: len(idx), Brier: calibrate.Brier(p, yy, nil), ECE: calibrate.ECE(p, yy, nil, 10), AUROC: -1}
		if a, err := calibrate.AUROC(p, yy, nil); err == nil {
			q.AUROC = a
		}
		dm.CV[strings.TrimSuffix(f, ".jsonl")] = q
		dm.Sources = append(dm.Sources, fmt.Sprintf("%s: %d labels (%d true)", f, len(idx), n))
	}
	return dm, dr, calFit{oof: oof, hard: hard, sel: sel}, nil
}

// rowGroups joins rows that share a question or a context set into one group
// (union–find), so that cross-validation never splits them.
type rowGroups struct {
	parent []int
	byKey  map[string]int
}

func newGroups() *rowGroups { return &rowGroups{byKey: map[string]int{}} }

func (g *rowGroups) find(i int) int {
	for g.parent[i] != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = g.parent[i]
	}
	return i
}

func (g *rowGroups) node(key string) int {
	if i, ok := g.byKey[key]; ok {
		return i
	}
	i := len(g.parent)
	g.parent = append(g.parent, i)
	g.byKey[key] = i
	return i
}

// add returns the row's node; rows sharing a key end up with the same root.
func (g *rowGroups) add(s *guard.Sample) int {
	q := g.node("q\x00" + strings.ToLower(strings.Join(strings.Fields(s.Question), " ")))
	if len(s.Contexts) > 0 {
		h := sha256.New()
		for _, c := range s.Contexts {
			h.Write([]byte(c.Text))
			h.Write([]byte{0})
		}
		c := g.node("c\x00" + string(h.Sum(nil)))
		if rq, rc := g.find(q), g.find(c); rq != rc {
			g.parent[max(rq, rc)] = min(rq, rc)
		}
	}
	return q
}

// count returns the number of distinct groups among examples.
func (g *rowGroups) count(es []calExample) int {
	seen := map[int]bool{}
	for _, e := range es {
		seen[g.find(e.group)] = true
	}
	return len(seen)
}

func writeIndentedJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func printCalibration(w io.Writer, r *calibrationReport, out string) {
	fmt.Fprintf(w, "ragtriage calibrate: profile %s → %s (alpha %.3g at %.0f%% confidence, %d folds; %d bad lines skipped)\n",
		r.Profile, out, r.Alpha, 100*r.Confidence, r.Folds, r.BadLines)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "decision\tn\ttrue\tgroups\tOOF AUROC\tOOF Brier\tOOF ECE\tfail ≤\tpass ≥\tcoverage\tpass err UB\tfail err UB\theld-out coverage\theld-out error\t")
	for _, d := range r.Decisions {
		auc := "n/a"
		if d.OOF.AUROC >= 0 {
			auc = fmt.Sprintf("%.3f", d.OOF.AUROC)
		}
		ub := func(reg calibrate.Region) string {
			if reg.Count == 0 {
				return "–"
			}
			return fmt.Sprintf("%.3f", reg.UpperBound)
		}
		fail, pass := fmt.Sprintf("%.3f", d.Policy.Fail), fmt.Sprintf("%.3f", d.Policy.Pass)
		if d.Policy.NoFail {
			fail = "undecided"
		}
		if d.Policy.NoPass {
			pass = "undecided"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%.3f\t%.3f\t%s\t%s\t%.1f%%\t%s\t%s\t%.1f%%\t%.1f%%\t\n", d.Decision, d.N, d.Positives, d.Groups, auc,
			d.OOF.Brier, d.OOF.ECE, fail, pass, 100*d.Coverage, ub(d.AutoPass), ub(d.AutoFail), 100*d.HeldOut.Coverage, 100*d.HeldOut.ErrorRate)
	}
	tw.Flush()
	for _, d := range r.Decisions {
		switch {
		case d.Undecided:
			fmt.Fprintf(w, "warning: %s is undecided by policy: no region keeps error ≤ %.3g at %.0f%% confidence on every input file; it will always escalate\n", d.Decision, r.Alpha, 100*r.Confidence)
		case d.Policy.NoFail:
			fmt.Fprintf(w, "note: %s never fails confidently (its fail side is undecided by policy)\n", d.Decision)
		case d.Policy.NoPass:
			fmt.Fprintf(w, "note: %s never passes confidently (its pass side is undecided by policy)\n", d.Decision)
		}
	}
	fmt.Fprintf(w, "pass rule: %s", r.PassRule)
	for _, c := range r.PassRuleChecks {
		switch {
		case c.Tested && c.Holds:
			fmt.Fprintf(w, "; %s holds (%d errors in %d auto-passed)", c.Rule, c.Errors, c.AutoPassed)
		case c.Tested:
			fmt.Fprintf(w, "; %s fails (%d errors in %d auto-passed)", c.Rule, c.Errors, c.AutoPassed)
		case c.AutoPassed > 0:
			fmt.Fprintf(w, "; %s not tested (%d auto-passed)", c.Rule, c.AutoPassed)
		}
	}
	fmt.Fprintln(w)
	if len(r.Kept) > 0 {
		fmt.Fprintf(w, "kept from the base profile (not refitted): %s\n", strings.Join(r.Kept, ", "))
	}
}
