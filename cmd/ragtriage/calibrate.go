package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
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
	"github.com/ragtriage/ragtriage/guard/lexical/fit"
)

var calibrateCommand = &command{
	name:    "calibrate",
	summary: "fit the lexical judges' calibration and thresholds with a risk bound",
	usage:   calibrateUsage,
	run:     runCalibrate,
}

const calibrateUsage = `Usage: ragtriage calibrate -dataset FILE [-dataset FILE …] [-alpha 0.05] [-confidence 0.95]
                           -out profile.json [flags]
       ragtriage calibrate -records FILE [-records FILE …] [-dataset LABELS] -out profile.json [flags]

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

With -records, calibrate learns from the teacher (the fallback judge)
instead: the labels are the teacher's verdicts recorded on drawn answers
("teacher", see "ragtriage eval -explore" and the middleware's draws) and
the fallback's settled verdicts on escalated answers; rows of -dataset
joined by ID replace them with human labels. Each record's "features" are
what is fitted, so records need no text. The models are fitted on every
labelled row; the thresholds are chosen (and the held-out check run) on
the uniform draws only: explore draws, thinned to the smallest inclusion
probability when rates differ. A row escalated because it was uncertain,
or drawn by an audit (which skips escalated answers), is not a uniform
draw. The thresholds are chosen by one fixed sequence per side, at the
full -confidence, started at the region the out-of-fold P predicts to
certify the most rows (a teacher's own errors keep small regions from
certifying), and no side crosses P = 0.5; both are read from P alone, so
the bound still holds after the selection. A teacher estimate read from
the primary judge (fromPrimary, or an estimate whose judge is one of the
guard's own) is never a label. The
promise is then "disagreement with <teacher> ≤ -alpha", and it is stated so
in the output, the profile and the report; when human labels exist the
report gives the teacher's accuracy on them with an exact interval.
Records without features, with features of another version, or with no
uniform draw, and a teacher that gave no label (all abstentions), exit 1
with the counts. A bad line (another record version, malformed JSON) is
listed with its line number and skipped. A teacher labels every decision it
is asked, so with the default decisions one whose teacher labels are too few
or of one class keeps the base profile's model, with a note; named in
-decisions it is refused as with -dataset.

Folds group rows that share a question or a context set, except by a key
that more than a 1/-folds share of the rows hold (an FAQ bot's question,
NLI prompts' empty one): such a key is a template, not a topic, and is
named in a note. Records without text are grouped by their chunk
relevance vectors, which read the question and contexts only.

Calibrate refuses, naming the decision, when a decision to fit has fewer than
-min-labels labels, fewer than -min-class of either class, or a fold whose
training rows hold a single class. Leave such a decision out with -decisions.

Flags:
  -dataset FILE     labeled JSON Lines (repeatable, or a comma-separated list);
                    with -records, human labels joined to records by ID
  -records FILE     records with teacher draws to learn from (repeatable, or
                    a comma-separated list)
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
  -strict           exit 1 when any refitted decision decides nothing
  -allow-undecided  exit 0 although no refitted decision decides anything

A line that is not a valid row is listed on standard error and skipped.
Every decision or side left undecided by policy is named on standard
output. The default profile version hashes the data and every setting that
shapes the profile (alpha, confidence, folds, label minimums, decisions,
base profile, features version).

Labels are read from each row's "expected" object: decision labels under
"expected.retrieval" and "expected.generation", true when the decision's
proposition holds (for contextConflict and contradiction, true is the bad
outcome). The format, what true means for each decision, and a worked row:
docs/labels.md, or "ragtriage help labels". "ragtriage export" writes rows
to label.

Exit status: 0 when the profile was written and at least one refitted
decision decides something; the ones that decide nothing are named in a
warning on standard error (with -strict they make the exit status 1). 1 when
calibration refused or failed, when the datasets hold no row or no label, or
when no refitted decision decides anything (the profile is still written;
-allow-undecided accepts it). 2 on a usage error.
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
	// GroupingIgnored lists the keys (a question, a context set) too
	// common to group rows by (see rowGroups.finish).
	GroupingIgnored []string `json:"groupingIgnored,omitempty"`
	// Records says, with -records, where the labels came from and the
	// promise the thresholds keep.
	Records *recordsReport `json:"records,omitempty"`
}

type passRuleCheck struct {
	Rule       string `json:"rule"`
	Tested     bool   `json:"tested"`
	Holds      bool   `json:"holds"`
	AutoPassed int    `json:"autoPassed"`
	Errors     int    `json:"errors"`
}

type decisionFitReport struct {
	Decision  string `json:"decision"`
	N         int    `json:"n"`
	Positives int    `json:"positives"`
	Groups    int    `json:"groups"`
	// Certifying counts the examples that chose the thresholds, when not
	// all did (with -records: the uniform teacher draws); Coverage is then
	// their share auto-decided.
	Certifying int              `json:"certifying,omitempty"`
	OOF        lexical.Quality  `json:"outOfFold"`
	AUROCNote  string           `json:"aurocNote,omitempty"`
	Bins       []calibrate.Bin  `json:"reliability"`
	Policy     guard.Thresholds `json:"policy"`
	// Selection is the threshold choice on all out-of-fold predictions.
	AutoPass calibrate.Region `json:"autoPass"`
	AutoFail calibrate.Region `json:"autoFail"`
	Coverage float64          `json:"coverage"`
	// HeldOut applies thresholds chosen on the other folds to each fold.
	HeldOut fit.HeldOut `json:"heldOut"`
	// Undecided: no region on either side keeps the promise on every
	// input file; the decision always escalates.
	Undecided bool `json:"undecidedByPolicy,omitempty"`
}

// selectionStarts are the starting points of the fixed sequences (see
// calibrate.FixedSequenceConfig.Starts), the same as internal/refit's.
var selectionStarts = []float64{0, 0.03, 0.1, 0.3}

// With -records the fixed sequences run differently (fit.Settings
// PredictedStart and SidesOfHalf, both read against P alone, so the
// guarantee is unaffected). A teacher's own errors put a floor under the
// disagreement of every region: with a 5%-wrong teacher at α = 0.10 a
// region must hold a hundred rows or more to certify, so the small starts
// of selectionStarts are spent δ (each of J sequences runs at δ/J) on
// regions that cannot certify. Records run ONE sequence per side, at the
// full δ, started where the out-of-fold P predicts the most rows to
// certify (calibrate.FixedSequenceConfig.PredictedStart). And a side never
// crosses P = ½: with the larger δ the groundedness fail side could
// otherwise run on into the few hard-evidence rows the model calls
// grounded (P ≈ 0.93), and the soft floor set just above it would then
// leave no room for the pass side.

// starts returns the fixed sequences' fractional starts of this run: none
// with -records (the predicted start alone).
func (cf *calibrateFlags) starts() []float64 {
	if len(cf.records) > 0 {
		return nil
	}
	return selectionStarts
}

// calExample is one labeled feature vector.
type calExample struct {
	x     []float64
	y     bool
	group int // index of the row's group
	file  string
	row   int // index into the labelled rows
	ctx   int // context index, for chunk relevance
	// certify: the example may choose thresholds. Every labelled row does
	// with -dataset; with -records only uniform teacher draws do, the rest
	// shape the models only (fit.Example.Synthetic).
	certify bool
}

// calRow is a labelled row, kept for the pass-rule check.
type calRow struct {
	sample  *guard.Sample
	exp     *dataset.Expected
	file    string
	certify bool
	// vecs are a recorded row's feature vectors (nil with -dataset).
	vecs []guard.FeatureVector
}

// calibrateFlags are calibrate's parsed flags.
type calibrateFlags struct {
	datasets                   []string
	records                    []string
	want                       []guard.Decision
	out, basePath, version     string
	reportPath                 string
	alpha, confidence          float64
	minLabels, minClass, folds int
	allowUndecided, strict     bool
}

// settings are the numbers the fit package takes from the flags.
func (cf *calibrateFlags) settings() fit.Settings {
	recorded := len(cf.records) > 0
	return fit.Settings{Alpha: cf.alpha, Confidence: cf.confidence, Folds: cf.folds, Starts: cf.starts(),
		PredictedStart: recorded, SidesOfHalf: recorded}
}

// calibrationSet is what calibrate reads from the datasets: the labelled
// rows and each decision's examples.
type calibrationSet struct {
	rows   []calRow
	ex     map[guard.Decision][]calExample
	groups *rowGroups
	bad    int
	data   []lexical.DataFile
	// read counts the lines read; withExpected the rows with an "expected"
	// object, empty those of them that hold no label this parser reads.
	// diagnosisOnly counts the empty ones that have a diagnosis label.
	read, withExpected, empty, diagnosisOnly int
	// recorded is set with -records: what the records gave.
	recorded *recordsReport
}

func runCalibrate(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cf, code := parseCalibrateFlags(args, stderr)
	if cf == nil {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ragtriage calibrate: %v\n", err)
		return 1
	}
	if err := checkInputs("dataset", cf.datasets); err != nil {
		return fail(err)
	}
	if err := checkInputs("records", cf.records); err != nil {
		return fail(err)
	}
	base := lexical.DefaultProfile()
	if cf.basePath != "" {
		var err error
		if base, err = loadProfile("base", cf.basePath); err != nil {
			return fail(err)
		}
	}
	var set *calibrationSet
	var err error
	if len(cf.records) > 0 {
		set, err = readRecordSet(cf, base, stderr)
	} else {
		set, err = readCalibrationSet(cf.datasets, base, cf.folds, stderr)
	}
	if err != nil {
		return fail(err)
	}
	if len(set.labelled()) == 0 {
		return fail(set.noLabels(cf.datasets))
	}
	if len(cf.want) == 0 {
		cf.want = set.labelled()
		if set.recorded != nil {
			// A teacher labels every decision it is asked, so some have
			// too few labels, or one class (conflicts are rare): with the
			// default decisions those keep the base profile's model.
			cf.want = set.leaveOutUnfit(cf, stderr)
			if len(cf.want) == 0 {
				return fail(errors.New("refusing: no decision has enough teacher labels of both classes to fit (listed above); record more traffic, or name decisions with -decisions to see why each is refused"))
			}
		}
	}
	if refusals := set.refusals(cf); len(refusals) > 0 {
		for _, r := range refusals {
			fmt.Fprintf(stderr, "ragtriage calibrate: refusing: %s\n", r)
		}
		fmt.Fprintln(stderr, "ragtriage calibrate: add labels, or leave those decisions out with -decisions (they then keep the base profile's model)")
		return 1
	}
	prof, rep := newCalibratedProfile(cf, args, base, set)
	oof, err := set.fitDecisions(cf, prof, &rep)
	if err != nil {
		return fail(err)
	}
	if err := set.choosePassRule(cf, prof, &rep, oof); err != nil {
		return fail(err)
	}
	if err := writeCalibration(cf, prof, &rep); err != nil {
		return fail(err)
	}
	printCalibration(stdout, &rep, cf.out)
	return refuseIdle(cf, &rep, stderr)
}

// parseCalibrateFlags parses and checks calibrate's flags. On a usage error
// or -help it returns nil and the exit status.
func parseCalibrateFlags(args []string, stderr io.Writer) (*calibrateFlags, int) {
	fs := newFlagSet("calibrate")
	var datasets, records, decisions listFlag
	cf := &calibrateFlags{}
	fs.Var(&datasets, "dataset", "labeled dataset `FILE`")
	fs.Var(&records, "records", "record `FILE` with teacher draws")
	fs.Var(&decisions, "decisions", "decisions to fit")
	fs.StringVar(&cf.out, "out", "", "profile `FILE` to write")
	fs.Float64Var(&cf.alpha, "alpha", 0.05, "largest error rate in each accepted region")
	fs.Float64Var(&cf.confidence, "confidence", 0.95, "confidence of the upper bound")
	fs.IntVar(&cf.minLabels, "min-labels", 30, "fewest labels a decision needs")
	fs.IntVar(&cf.minClass, "min-class", 5, "fewest labels of each class")
	fs.IntVar(&cf.folds, "folds", 5, "cross-validation folds")
	fs.StringVar(&cf.basePath, "base", "", "base profile `FILE`")
	fs.StringVar(&cf.version, "version", "", "profile version")
	fs.StringVar(&cf.reportPath, "report", "", "calibration report `FILE`")
	fs.BoolVar(&cf.allowUndecided, "allow-undecided", false, "exit 0 although no refitted decision decides anything")
	fs.BoolVar(&cf.strict, "strict", false, "exit 1 when any refitted decision decides nothing")
	if err := fs.Parse(args); err != nil {
		return nil, flagError(fs, calibrateUsage, err, stderr)
	}
	usage := func(format string, a ...any) (*calibrateFlags, int) {
		fmt.Fprintf(stderr, "ragtriage calibrate: "+format+"\n", a...)
		return nil, 2
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q (give datasets with -dataset, records with -records)", fs.Arg(0))
	case len(datasets) == 0 && len(records) == 0:
		return usage("-dataset or -records is required")
	case cf.out == "":
		return usage("-out is required")
	case !(cf.alpha > 0 && cf.alpha < 1):
		return usage("-alpha %v: want a number in (0, 1)", cf.alpha)
	case !(cf.confidence > 0 && cf.confidence < 1):
		return usage("-confidence %v: want a number in (0, 1)", cf.confidence)
	case cf.folds < 2:
		return usage("-folds %d: want 2 or more", cf.folds)
	case cf.minLabels < 2 || cf.minClass < 1:
		return usage("-min-labels must be ≥ 2 and -min-class ≥ 1")
	}
	for _, name := range decisions {
		d, err := guard.ParseDecision(name)
		if err != nil {
			return usage("-decisions: %v", err)
		}
		cf.want = append(cf.want, d)
	}
	cf.datasets, cf.records = datasets, records
	return cf, 0
}

// readCalibrationSet reads the labelled rows and computes their features
// with the base profile's judge. Bad lines are listed on stderr and
// skipped.
func readCalibrationSet(datasets []string, base *lexical.Profile, folds int, stderr io.Writer) (*calibrationSet, error) {
	judge, err := lexical.New(base)
	if err != nil {
		return nil, err
	}
	src := dataset.NewFileSource(datasets...)
	defer src.Close()
	set := &calibrationSet{ex: map[guard.Decision][]calExample{}, groups: newGroups()}
	for {
		it, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if it.Err == nil && it.Expected != nil {
			it.Err = it.Sample.Validate(guard.Limits{})
		}
		if it.Err != nil {
			set.bad++
			fmt.Fprintf(stderr, "ragtriage calibrate: %s: skipped: %v\n", it.Pos, it.Err)
			continue
		}
		if it.Expected != nil {
			set.withExpected++
			if !it.Expected.HasDecisionLabel() {
				set.empty++
				if it.Expected.Diagnosis != nil {
					set.diagnosisOnly++
				}
			}
			set.add(judge, it.Sample, it.Expected, it.Pos.File)
		}
	}
	for _, w := range src.Warnings() {
		fmt.Fprintf(stderr, "ragtriage calibrate: %s: %s\n", w.Pos, w.Message)
	}
	printCSVHints(stderr, "calibrate", src.Inputs(), datasets)
	set.finishGroups(folds)
	for _, in := range src.Inputs() {
		set.data = append(set.data, lexical.DataFile{Path: in.Name, SHA256: in.SHA256, Rows: in.Lines - in.Bad})
		set.read += in.Lines
	}
	return set, nil
}

// add keeps a labelled row and one example for each label it has.
func (set *calibrationSet) add(judge *lexical.Judge, s *guard.Sample, e *dataset.Expected, file string) {
	g := set.groups.add(s)
	f := judge.Features(s)
	ri := len(set.rows)
	set.rows = append(set.rows, calRow{sample: s, exp: e, file: file, certify: true})
	for ci, c := range s.Contexts {
		if v, ok := e.ChunkLabel(c.ID); ok {
			set.ex[guard.ChunkRelevance] = append(set.ex[guard.ChunkRelevance], calExample{f.ChunkRelevance[ci], v, g, file, ri, ci, true})
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
			set.ex[d] = append(set.ex[d], calExample{x, v, g, file, ri, -1, true})
		}
	}
}

// finishGroups joins the rows' groups (rowGroups.finish) and gives each
// example its group's root.
func (set *calibrationSet) finishGroups(folds int) {
	set.groups.finish(folds)
	for _, es := range set.ex {
		for i := range es {
			es[i].group = set.groups.label[es[i].group]
		}
	}
}

// labelled lists the decisions with at least one label.
func (set *calibrationSet) labelled() []guard.Decision {
	var out []guard.Decision
	for _, d := range guard.Decisions {
		if len(set.ex[d]) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// refusals names each decision to fit whose labels are too few, or of a
// single class, before anything is fitted.
func (set *calibrationSet) refusals(cf *calibrateFlags) []string {
	var out []string
	for _, d := range cf.want {
		if r := set.refusal(cf, d); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// refusal says why decision d cannot be fitted on its labels, or "".
func (set *calibrationSet) refusal(cf *calibrateFlags, d guard.Decision) string {
	n, pos := len(set.ex[d]), 0
	for _, e := range set.ex[d] {
		if e.y {
			pos++
		}
	}
	switch {
	case n < cf.minLabels:
		return fmt.Sprintf("%s: %d labels, fewer than -min-labels %d", d, n, cf.minLabels)
	case pos == 0 || pos == n:
		return fmt.Sprintf("%s: all %d labels are %v: a calibrator cannot be fitted on a single class", d, n, pos == n)
	case pos < cf.minClass || n-pos < cf.minClass:
		return fmt.Sprintf("%s: %d true and %d false labels, fewer than -min-class %d of one class", d, pos, n-pos, cf.minClass)
	}
	return ""
}

// foldRefusal says which fold's training rows hold a single class for
// decision d (fit.Decision refuses such a fit), or "".
func (set *calibrationSet) foldRefusal(cf *calibrateFlags, d guard.Decision) string {
	pos, neg := make([]int, cf.folds), make([]int, cf.folds)
	tp, tn := 0, 0
	for _, e := range set.ex[d] {
		k := calibrate.GroupFold(fmt.Sprint(e.group), cf.folds)
		if e.y {
			pos[k]++
			tp++
		} else {
			neg[k]++
			tn++
		}
	}
	for k := range cf.folds {
		if tp-pos[k] == 0 || tn-neg[k] == 0 {
			return fmt.Sprintf("%s: the rows outside fold %d hold a single class", d, k)
		}
	}
	return ""
}

// leaveOutUnfit returns the decisions of cf.want that can be fitted, and
// names the others on stderr: they keep the base profile's model.
func (set *calibrationSet) leaveOutUnfit(cf *calibrateFlags, stderr io.Writer) []guard.Decision {
	var keep []guard.Decision
	for _, d := range cf.want {
		r := set.refusal(cf, d)
		if r == "" {
			r = set.foldRefusal(cf, d)
		}
		if r != "" {
			fmt.Fprintf(stderr, "ragtriage calibrate: note: not refitting %s; it keeps the base profile's model (name it in -decisions to make this a refusal)\n", r)
			continue
		}
		keep = append(keep, d)
	}
	return keep
}

// newCalibratedProfile starts the profile and its report: the data, the
// version, and the base profile's decisions that are not refitted.
func newCalibratedProfile(cf *calibrateFlags, args []string, base *lexical.Profile, set *calibrationSet) (*lexical.Profile, calibrationReport) {
	now := evalNow().UTC()
	prof := &lexical.Profile{
		Version: cf.version, FeaturesVersion: lexical.FeaturesVersion, Created: now.Format(time.RFC3339),
		RefitCommand: "ragtriage calibrate " + strings.Join(args, " "),
		Data:         set.data, Decisions: map[string]*lexical.DecisionModel{}, Policy: base.Policy,
		Alpha: cf.alpha,
	}
	if prof.Version == "" {
		prof.Version = "calibrated-" + now.Format("20060102") + "-" + cf.versionHash(set.data, base)
	}
	rep := calibrationReport{Profile: prof.Version, Alpha: cf.alpha, Confidence: cf.confidence, Folds: cf.folds, Data: set.data, BadLines: set.bad,
		GroupingIgnored: set.groups.Ignored, Records: set.recorded}
	for _, d := range guard.Decisions {
		if slices.Contains(cf.want, d) {
			continue
		}
		if m, ok := base.Decisions[d.String()]; ok {
			kept := *m
			kept.Sources = append([]string{"not refitted by ragtriage calibrate: kept from profile " + base.Version}, m.Sources...)
			prof.Decisions[d.String()] = &kept
			rep.Kept = append(rep.Kept, d.String())
		}
	}
	return prof, rep
}

// versionHash names everything that shapes the profile: the data, the
// settings, the decisions refitted, the base profile and the features, so
// two different policies never share a version.
func (cf *calibrateFlags) versionHash(data []lexical.DataFile, base *lexical.Profile) string {
	h := sha256.New()
	for _, d := range data {
		fmt.Fprintf(h, "data %s %s %d\n", d.Path, d.SHA256, d.Rows)
	}
	names := make([]string, len(cf.want))
	for i, d := range cf.want {
		names[i] = d.String()
	}
	slices.Sort(names)
	fmt.Fprintf(h, "alpha=%v confidence=%v folds=%d min-labels=%d min-class=%d decisions=%s base=%s features=%s starts=%v\n",
		cf.alpha, cf.confidence, cf.folds, cf.minLabels, cf.minClass, strings.Join(names, ","), base.Version, lexical.FeaturesVersion, cf.starts())
	if st := cf.settings(); st.PredictedStart || st.SidesOfHalf {
		fmt.Fprintf(h, "predicted-start=%v sides-of-half=%v\n", st.PredictedStart, st.SidesOfHalf)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// oofKey names one labelled estimate: a row, a decision and, for chunk
// relevance, a context index (−1 otherwise).
type oofKey struct {
	row int
	d   guard.Decision
	ctx int
}

// fitDecisions fits every decision asked into prof and rep. It returns
// each labelled estimate's out-of-fold P, gated as the profile gates it,
// for the pass-rule check.
func (set *calibrationSet) fitDecisions(cf *calibrateFlags, prof *lexical.Profile, rep *calibrationReport) (map[oofKey]float64, error) {
	oof := map[oofKey]float64{}
	for _, d := range cf.want {
		es := set.ex[d]
		dm, dr, f, err := fitCalibration(d, es, cf.settings())
		if err != nil {
			return nil, fmt.Errorf("refusing: %s: %w", d, err)
		}
		dr.Groups = set.groups.count(es)
		if rr := set.recorded; rr != nil {
			dm.Sources = append([]string{"labels: teacher verdicts from records (ragtriage calibrate -records); promise: " + rr.Promise,
				fmt.Sprintf("%d labels, %d of them uniform teacher draws that chose the thresholds; the rest (escalations, thinned or non-uniform draws) fitted the model only", len(es), certifyingCount(es))},
				dm.Sources...)
		}
		prof.Decisions[d.String()] = dm
		prof.Policy.Set(d, dr.Policy)
		rep.Decisions = append(rep.Decisions, dr)
		for i, e := range es {
			oof[oofKey{e.row, d, e.ctx}] = f.Gate(f.OOF[i], lexical.HardEvidence(d, e.x))
		}
	}
	return oof, nil
}

// choosePassRule judges each labelled row by the new profile, with the
// out-of-fold P of every decision it has a label for, under each rule in
// turn. It keeps the most lenient rule that keeps the promise on every
// input file (fit.PassRule, as internal/refit chooses the shipped one).
func (set *calibrationSet) choosePassRule(cf *calibrateFlags, prof *lexical.Profile, rep *calibrationReport, oof map[oofKey]float64) error {
	if err := prof.Validate(); err != nil {
		return err
	}
	pj, err := lexical.New(prof)
	if err != nil {
		return err
	}
	var cur int
	var replay guard.Judge = guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
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
	if set.recorded != nil {
		replay = recordedJudge(set, &cur, oof)
	}
	rg, err := guard.New(guard.WithJudge(replay), guard.WithPolicy(prof.Policy))
	if err != nil {
		return err
	}
	var results []guard.Result
	var good []bool
	var fileOf []int
	files := sourceIDs{}
	for ri, r := range set.rows {
		pass, known := r.exp.ShouldPass()
		if !known || len(r.sample.Contexts) == 0 || !r.certify {
			continue
		}
		cur = ri
		res, err := rg.Evaluate(context.Background(), *r.sample)
		if err == nil {
			err = res.Err() // a failed judge: the check would be on uncertain decisions
		}
		if err != nil {
			return fmt.Errorf("pass-rule check: %w", err)
		}
		results, good, fileOf = append(results, res), append(good, pass), append(fileOf, files.id(r.file))
	}
	rule, checks := fit.PassRule(results, good, fileOf, cf.settings())
	prof.Policy.PassRule = rule
	rep.PassRule = rule.String()
	for _, rc := range checks {
		rep.PassRuleChecks = append(rep.PassRuleChecks, passRuleCheck{Rule: rc.Rule.String(), Tested: rc.Tested, Holds: rc.Holds,
			AutoPassed: rc.PooledPassed, Errors: rc.PooledErrors})
	}
	return prof.Validate()
}

// sourceIDs numbers the input files in the order they are first seen.
type sourceIDs map[string]int

func (s sourceIDs) id(file string) int {
	id, ok := s[file]
	if !ok {
		id = len(s)
		s[file] = id
	}
	return id
}

// writeCalibration writes the profile and, with -report, the report.
func writeCalibration(cf *calibrateFlags, prof *lexical.Profile, rep *calibrationReport) error {
	if err := writeIndentedJSON(cf.out, prof); err != nil {
		return err
	}
	if cf.reportPath != "" {
		return writeIndentedJSON(cf.reportPath, rep)
	}
	return nil
}

// refuseIdle names the refitted decisions that decide nothing and returns
// the exit status. They are a warning when another refitted decision
// decides something: the profile is useful. It exits 1 when none decides
// anything (unless -allow-undecided accepts it), and with -strict when any
// decides nothing.
func refuseIdle(cf *calibrateFlags, rep *calibrationReport, stderr io.Writer) int {
	var idle []string
	for _, d := range rep.Decisions {
		if d.Coverage == 0 {
			idle = append(idle, d.Decision)
		}
	}
	if len(idle) == 0 {
		return 0
	}
	verb := "decides"
	if len(idle) > 1 {
		verb = "decide"
	}
	what := fmt.Sprintf("%s %s nothing on this data (undecided by policy, or no row in a certified region): the profile %s leaves every such decision uncertain: it is escalated to the fallback when one is configured, and goes to review otherwise",
		strings.Join(idle, ", "), verb, cf.out)
	switch {
	case cf.strict:
		fmt.Fprintf(stderr, "ragtriage calibrate: %s; -strict makes this a failure (exit 1)\n", what)
		return 1
	case len(idle) < len(rep.Decisions):
		fmt.Fprintf(stderr, "ragtriage calibrate: warning: %s; the other decisions are calibrated (exit 0; -strict makes this a failure)\n", what)
		return 0
	case cf.allowUndecided:
		fmt.Fprintf(stderr, "ragtriage calibrate: warning: %s; accepted by -allow-undecided\n", what)
		return 0
	}
	fmt.Fprintf(stderr, "ragtriage calibrate: %s, and no refitted decision decides anything: add labels, leave them out with -decisions, or accept it with -allow-undecided\n", what)
	return 1
}

// labelsHelp is where the label format is described.
const labelsHelp = "docs/labels.md (or 'ragtriage help labels')"

// noLabels says why the datasets gave nothing to calibrate, and what to do:
// no rows, no rows that could be read, no "expected" object, or "expected"
// objects with no label where calibrate reads them.
func (set *calibrationSet) noLabels(datasets []string) error {
	const nothing = "no labels in the datasets: nothing to calibrate"
	switch {
	case set.read == 0:
		return fmt.Errorf("no rows: %s; nothing to calibrate", holdNoRow(datasets))
	case set.read == set.bad:
		return fmt.Errorf("%s: none of the %d lines is a valid row (listed above)", nothing, set.read)
	case set.withExpected == 0:
		return fmt.Errorf("%s: none of the %d rows has an \"expected\" object; the label format is in %s, and 'ragtriage export' writes rows to label", nothing, set.read-set.bad, labelsHelp)
	case set.empty > 0:
		only := ""
		if set.diagnosisOnly > 0 {
			only = fmt.Sprintf(" (%d of them only a diagnosis, which calibrate does not fit)", set.diagnosisOnly)
		}
		verb := "hold"
		if set.empty == 1 {
			verb = "holds"
		}
		return fmt.Errorf("%s: %d of the %d rows with an \"expected\" object %s no decision label%s: decision labels go under \"expected.retrieval\" and \"expected.generation\", as in {\"expected\":{\"generation\":{\"groundedness\":true}}}; a label at the top of \"expected\" ({\"expected\":{\"groundedness\":true}}) is misplaced and ignored; see %s",
			nothing, set.empty, set.withExpected, verb, only, labelsHelp)
	}
	return fmt.Errorf("%s: the rows' labels are of decisions these rows cannot be judged on (correctness needs a referenceAnswer); see %s", nothing, labelsHelp)
}

// fitCalibration fits one decision through package fit (out-of-fold
// predictions, the thresholds chosen on them, the held-out check and the
// final model) and reports their quality.
func fitCalibration(d guard.Decision, es []calExample, st fit.Settings) (*lexical.DecisionModel, decisionFitReport, *fit.Fitted, error) {
	exs := make([]fit.Example, len(es))
	y := make([]bool, len(es))
	files := sourceIDs{}
	for i, e := range es {
		exs[i] = fit.Example{X: e.x, Y: e.y, Source: files.id(e.file), Fold: calibrate.GroupFold(fmt.Sprint(e.group), st.Folds),
			Hard: lexical.HardEvidence(d, e.x), Synthetic: !e.certify}
		y[i] = e.y
	}
	f, err := fit.Decision(d, exs, st)
	if err != nil {
		return nil, decisionFitReport{}, nil, err
	}
	held, err := fit.CheckHeldOut(f, exs, st)
	if err != nil {
		return nil, decisionFitReport{}, nil, err
	}
	dr := newDecisionFitReport(f, y, held)
	if cert := certifyingCount(es); cert < len(es) {
		dr.Certifying = cert
		dr.Coverage = 0
		if cert > 0 {
			dr.Coverage = float64(dr.AutoPass.Count+dr.AutoFail.Count) / float64(cert)
		}
	}
	dm := f.DecisionModel(-1)
	dm.Positives, dm.Negatives = dr.Positives, len(es)-dr.Positives
	dm.CV = map[string]lexical.Quality{"all": dr.OOF}
	addFileQuality(dm, es, f.OOF)
	return dm, dr, f, nil
}

// certifyingCount counts the examples that may choose thresholds.
func certifyingCount(es []calExample) int {
	n := 0
	for _, e := range es {
		if e.certify {
			n++
		}
	}
	return n
}

// newDecisionFitReport reports a fitted decision: its out-of-fold quality,
// the regions its thresholds auto-decide and the held-out check.
func newDecisionFitReport(f *fit.Fitted, y []bool, held fit.HeldOut) decisionFitReport {
	dr := decisionFitReport{Decision: f.Decision.String(), N: len(y), HeldOut: held}
	for _, v := range y {
		if v {
			dr.Positives++
		}
	}
	var err error
	if dr.OOF, err = fit.Quality(f.OOF, y); err != nil {
		dr.AUROCNote = err.Error()
	}
	dr.Bins = calibrate.Reliability(f.OOF, y, nil, 10)
	sel := f.Selection
	dr.Policy = sel.Thresholds
	dr.AutoPass, dr.AutoFail = sel.Pass.AutoPass, sel.Fail.AutoFail
	if !sel.Pass.HasPass {
		dr.AutoPass = calibrate.Region{Threshold: 1, UpperBound: 1}
	}
	if !sel.Fail.HasFail {
		dr.AutoFail = calibrate.Region{UpperBound: 1}
	}
	dr.Coverage = float64(dr.AutoPass.Count+dr.AutoFail.Count) / float64(len(y))
	dr.Undecided = sel.Thresholds.IsUndecided()
	return dr
}

// addFileQuality adds the out-of-fold quality and label counts of each
// input file to the decision's model.
func addFileQuality(dm *lexical.DecisionModel, es []calExample, oof []float64) {
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
			p[j], yy[j] = oof[i], es[i].y
			if es[i].y {
				n++
			}
		}
		q, _ := fit.Quality(p, yy)
		dm.CV[strings.TrimSuffix(f, ".jsonl")] = q
		dm.Sources = append(dm.Sources, fmt.Sprintf("%s: %d labels (%d true)", f, len(idx), n))
	}
}

// rowGroups joins rows that share a question or a context set into one group
// (union–find), so that cross-validation never splits them. Keys are
// collected as rows are added and joined by finish, which leaves out a key
// too common to be a topic (see finish).
type rowGroups struct {
	parent []int
	keys   [][]string // each row's keys, until finish
	label  []int      // each row's group label, from finish
	// Ignored describes the keys finish left out, for the report.
	Ignored []string
}

func newGroups() *rowGroups { return &rowGroups{} }

func (g *rowGroups) find(i int) int {
	for g.parent[i] != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = g.parent[i]
	}
	return i
}

// add returns the row's node. Its keys are its question and its context
// set; rows sharing a key end up in the same group once finish has run. A
// blank question is kept as a key (so group labels stay as they were before
// keys could be left out) but never joins rows: it is no question.
func (g *rowGroups) add(s *guard.Sample) int {
	keys := []string{"q\x00" + strings.ToLower(strings.Join(strings.Fields(s.Question), " "))}
	if len(s.Contexts) > 0 {
		h := sha256.New()
		for _, c := range s.Contexts {
			h.Write([]byte(c.Text))
			h.Write([]byte{0})
		}
		keys = append(keys, "c\x00"+string(h.Sum(nil)))
	}
	return g.addKeys(keys...)
}

// addKeys adds a row with the given keys and returns its node.
func (g *rowGroups) addKeys(keys ...string) int {
	i := len(g.parent)
	g.parent = append(g.parent, i)
	g.keys = append(g.keys, keys)
	return i
}

// finish joins the rows that share a key and labels each group. A key held
// by more than a 1/folds share of the rows (and by more than one row) does
// not join them: such a key is a template, not a topic (an FAQ bot's one
// question, NLI-style prompts that all ask the same, one knowledge base sent
// with every request), so grouping by it would put nearly every row in one
// group, and one fold, and leave the other folds' training rows with a
// single class. The features compare texts with each other, so a key most
// rows share tells a model little it could overfit. Rows are then grouped by
// their other keys. The keys left out are listed in Ignored; a blank question
// never joins rows and is not listed.
//
// A group's label is the smallest number, in order of first appearance, of
// the keys that joined it (a fresh number when none did), so the labels,
// and the folds drawn from them, are those of plain union–find on every key
// whenever no key is left out.
func (g *rowGroups) finish(folds int) {
	n := len(g.parent)
	count := map[string]int{}
	id := map[string]int{}
	for _, ks := range g.keys {
		for _, k := range ks {
			count[k]++
			if _, ok := id[k]; !ok {
				id[k] = len(id)
			}
		}
	}
	limit := n / max(folds, 1)
	joins := func(k string) bool { return k != "q\x00" && (count[k] <= 1 || count[k] <= limit) }
	first := map[string]int{}
	for i, ks := range g.keys {
		for _, k := range ks {
			if !joins(k) {
				continue
			}
			j, ok := first[k]
			if !ok {
				first[k] = i
				continue
			}
			if ri, rj := g.find(i), g.find(j); ri != rj {
				g.parent[max(ri, rj)] = min(ri, rj)
			}
		}
	}
	for k, c := range count {
		if k != "q\x00" && !joins(k) {
			g.Ignored = append(g.Ignored, describeKey(k, c, n))
		}
	}
	sort.Strings(g.Ignored)
	best := map[int]int{}
	for i, ks := range g.keys {
		r := g.find(i)
		for _, k := range ks {
			if joins(k) {
				if b, ok := best[r]; !ok || id[k] < b {
					best[r] = id[k]
				}
			}
		}
	}
	g.label = make([]int, n)
	for i := range g.label {
		r := g.find(i)
		if b, ok := best[r]; ok {
			g.label[i] = b
		} else {
			g.label[i] = len(id) + r
		}
	}
	g.keys = nil
}

// describeKey names a key left out of the grouping.
func describeKey(k string, c, n int) string {
	kind, v, _ := strings.Cut(k, "\x00")
	what := "a context set"
	switch kind {
	case "q":
		what = fmt.Sprintf("the question %q", v)
		if len([]rune(v)) > 60 {
			what = fmt.Sprintf("the question %q…", string([]rune(v)[:60]))
		}
	case "v":
		what = "one set of chunk relevance vectors (records without text are grouped by them)"
	}
	return fmt.Sprintf("%s, shared by %d of %d rows", what, c, n)
}

// count returns the number of distinct groups among examples.
func (g *rowGroups) count(es []calExample) int {
	seen := map[int]bool{}
	for _, e := range es {
		seen[e.group] = true
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
	for _, k := range r.GroupingIgnored {
		fmt.Fprintf(w, "note: folds do not group rows by %s: a key that common is a template, not a topic; rows are grouped by their other keys\n", k)
	}
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
	if rr := r.Records; rr != nil {
		printRecords(w, rr)
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
