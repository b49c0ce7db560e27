package evalkit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// Report grids. They are part of the report schema (settings).
var (
	oneSidedThresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99}
	sweepFail          = []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5}
	sweepPass          = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95}
)

const (
	curvePoints    = 51
	accuracyCutoff = 0.5
)

// decisionAcc keeps, for one decision, the numbers its metrics need: one
// probability, label and verdict per labeled item.
type decisionAcc struct {
	labeled, abstained int
	p                  []float64
	y                  []bool
	v                  []guard.Verdict
}

func (d *decisionAcc) add(p guard.Prob, v guard.Verdict, label bool) {
	d.labeled++
	if !p.Known {
		d.abstained++
		return
	}
	d.p = append(d.p, p.Value)
	d.y = append(d.y, label)
	d.v = append(d.v, v)
}

// diagRow is one row with a diagnosis label.
type diagRow struct {
	conf    float64
	truth   int8
	pred    int8
	auto    bool
	success bool
	file    int16
}

type fileAcc struct {
	name             string
	rows             int
	labeled, correct int
}

// accumulator ingests outcomes in input order and keeps only metric numbers.
type accumulator struct {
	cfg *Config

	read, evaluated, failed, notEvaluated int
	labeledRows, judgeErrRows             int
	failures                              []report.Failure
	failuresTotal                         int
	failKinds                             map[string]int

	dec [8]decisionAcc // indexed by guard.Decision

	diag          []diagRow
	diagAttempted int
	invalidLabels int
	predicted     map[string]int
	routes        map[string]int
	actions       map[string]int

	files   []fileAcc
	fileIdx map[string]int

	lat     [numLegs][]float64
	latAll  []float64
	usage   [numLegs]guard.Usage
	legRows [numLegs]int
	legFail [numLegs]int
	retries bool

	// Abstentions by cause.
	abstentions map[string]int

	// Cascade.
	escalated, primaryFailures, fallbackFailures int
	settled, unsettled, stillUncertain           int
	unsettledBy                                  map[string]int
	accepted, escalatedLab, endToEnd             report.RegionStats
	selHash                                      hash.Hash

	claims  claimsAcc
	draws   drawsAcc
	promise promiseAcc

	// Traffic estimates (modes that call a fallback, and recorded mode).
	est *estimatesAcc

	// The fallback judge's calls (legs[legFallback]).
	fbCalls, fbFailed, fbTransport, fbEstimates int
	fbErrs                                      []string

	sets       map[report.DecisionSetUse]int
	diagVers   map[string]bool
	judges     map[string]string
	anyMeasure bool
}

func newAccumulator(cfg *Config) *accumulator {
	a := newAccumulatorBase(cfg)
	switch cfg.Mode {
	case report.ModeCascade, report.ModeFallback, report.ModeRecorded:
		a.est = newEstimatesAcc()
	}
	return a
}

func newAccumulatorBase(cfg *Config) *accumulator {
	return &accumulator{cfg: cfg, failKinds: map[string]int{}, predicted: map[string]int{},
		abstentions: causeCounts(abstentionCauses), unsettledBy: causeCounts(fallbackCauses),
		routes: map[string]int{}, actions: map[string]int{}, fileIdx: map[string]int{},
		selHash: sha256.New(), sets: map[report.DecisionSetUse]int{}, diagVers: map[string]bool{}, judges: map[string]string{}}
}

var diagIndex = func() map[guard.Diagnosis]int8 {
	m := map[guard.Diagnosis]int8{}
	for i, d := range guard.Diagnoses {
		m[d] = int8(i)
	}
	return m
}()

func (a *accumulator) fail(f report.Failure) {
	a.failKinds[f.Kind]++
	a.failuresTotal++
	if len(a.failures) < report.MaxListedFailures {
		a.failures = append(a.failures, f)
	}
}

func (a *accumulator) file(name string) int {
	if i, ok := a.fileIdx[name]; ok {
		return i
	}
	a.fileIdx[name] = len(a.files)
	a.files = append(a.files, fileAcc{name: name})
	return len(a.files) - 1
}

// add ingests one outcome: the input accounting, then each part of the
// report that the row feeds.
func (a *accumulator) add(o *outcome) {
	a.read++
	it := &o.item
	fi := a.file(it.Pos.File)
	a.files[fi].rows++
	truth, hasTruth := a.diagnosisLabel(it.Expected)
	if it.Expected.HasLabel() {
		a.labeledRows++
	}
	if !o.hasResult {
		a.failed++
		a.fail(report.Failure{Pos: it.Pos, ID: it.ID, Kind: o.kind, Reason: failReason(o.err)})
		if hasTruth {
			a.diagAttempted++
		}
		return
	}
	a.evaluated++
	r := &o.res
	jerr := len(r.Errors) > 0
	if jerr {
		a.judgeErrRows++
	}
	if a.cfg.ClaimExtractor != nil || len(r.Claims) > 0 {
		a.claims.add(it, r)
	}
	for i := range r.Abstentions {
		a.abstentions[causeKey(r.Abstentions[i].Cause)]++
	}
	if it.Expected != nil {
		a.addDecisions(it.Expected, r)
	}
	correct := a.addDiagnosis(r, truth, hasTruth, !jerr, fi)
	a.addLegs(o)
	if a.est != nil {
		a.est.add(r, it.Expected)
	}
	if a.cfg.Mode == report.ModeCascade || a.cfg.Mode == report.ModeRecorded {
		a.addCascade(o, hasTruth, correct)
	}
	a.addProvenance(r)
	a.draws.add(o) // a row Teach could not ask about counts in notTaught
	if a.cfg.Monitor != nil {
		a.promise.add(o)
	}
	if a.cfg.Records != nil {
		writeRecord(a.cfg, o)
	}
}

// diagnosisLabel returns the row's diagnosis label, if it has a valid one;
// an unknown label is counted as invalid.
func (a *accumulator) diagnosisLabel(exp *dataset.Expected) (guard.Diagnosis, bool) {
	if exp == nil || exp.Diagnosis == nil {
		return "", false
	}
	if _, ok := diagIndex[*exp.Diagnosis]; !ok {
		a.invalidLabels++
		return "", false
	}
	return *exp.Diagnosis, true
}

// addDecisions keeps, for each labeled decision the guard was asked, its
// probability, verdict and label.
func (a *accumulator) addDecisions(exp *dataset.Expected, r *guard.Result) {
	for i, e := range r.Retrieval.ChunkRelevance {
		if y, ok := exp.ChunkLabel(e.Key); ok {
			v := guard.Uncertain
			if i < len(r.Verdicts.Retrieval.ChunkRelevance) {
				v = r.Verdicts.Retrieval.ChunkRelevance[i].Value
			}
			a.dec[guard.ChunkRelevance].add(e.Value, v, y)
		}
	}
	for _, d := range guard.Decisions[1:] {
		p := r.Prob(d)
		if !p.Asked {
			continue
		}
		if y, ok := exp.Label(d); ok {
			v, _ := r.Verdict(d)
			a.dec[d].add(p, v, y)
		}
	}
}

// addDiagnosis counts the diagnosis, route and action, and keeps the
// diagnosis of a labeled row; it reports whether the diagnosis is the label.
func (a *accumulator) addDiagnosis(r *guard.Result, truth guard.Diagnosis, hasTruth, success bool, fi int) (correct bool) {
	a.predicted[string(r.Diagnosis)]++
	a.routes[r.Route.String()]++
	a.actions[r.Action.String()]++
	if !hasTruth {
		return false
	}
	a.diagAttempted++
	pred, ok := diagIndex[r.Diagnosis]
	if !ok {
		pred = diagIndex[guard.JudgeUncertain]
	}
	correct = r.Diagnosis == truth
	a.diag = append(a.diag, diagRow{conf: r.Confidence, truth: diagIndex[truth], pred: pred,
		auto: r.Route == guard.Auto, success: success, file: int16(fi)})
	a.files[fi].labeled++
	if correct {
		a.files[fi].correct++
	}
	return correct
}

// addLegs keeps each leg's latency and usage, and the fallback judge's
// calls and first distinct errors.
func (a *accumulator) addLegs(o *outcome) {
	total := 0.0
	for l := range numLegs {
		s := o.legs[l]
		if !s.ran {
			continue
		}
		a.legRows[l]++
		a.lat[l] = append(a.lat[l], s.latencyMs)
		total = addMs(total, s.latencyMs)
		a.usage[l] = addUsage(a.usage[l], s.usage)
		if s.usage.Retries > 0 {
			a.retries = true
		}
		if s.failed {
			a.legFail[l]++
		}
	}
	if s := &o.legs[legFallback]; s.calls > 0 {
		a.fbCalls = addCount(a.fbCalls, s.calls)
		a.fbFailed = addCount(a.fbFailed, s.callErrors)
		a.fbTransport = addCount(a.fbTransport, s.transportErrors)
		a.fbEstimates = addCount(a.fbEstimates, s.estimates)
		for _, e := range s.errs {
			if len(a.fbErrs) < report.MaxListedFallbackErrors && !slices.Contains(a.fbErrs, e) {
				a.fbErrs = append(a.fbErrs, e)
			}
		}
	}
	a.latAll = append(a.latAll, max(total, o.totalMs))
	if o.measured {
		a.anyMeasure = true
	}
}

// addCascade counts what the cascade did with the row: a primary failure,
// an escalation (settled and unsettled decisions by cause, the selection
// hash) and which region's error the row counts in.
func (a *accumulator) addCascade(o *outcome, hasTruth, correct bool) {
	r := &o.res
	for _, je := range r.Errors {
		if r.Fallback == nil || je.Judge != r.Fallback.Judge {
			a.primaryFailures++
			break
		}
	}
	if fb := r.Fallback; fb != nil {
		a.addEscalation(o, fb)
		if hasTruth {
			countRegion(&a.escalatedLab, !correct)
		}
	} else if hasTruth {
		countRegion(&a.accepted, !correct)
	}
	if hasTruth {
		countRegion(&a.endToEnd, !correct)
	}
}

// addEscalation counts one escalated row.
func (a *accumulator) addEscalation(o *outcome, fb *guard.FallbackInfo) {
	a.escalated++
	a.settled = addCount(a.settled, fb.Settled)
	a.unsettled = addCount(a.unsettled, fb.Unsettled)
	named := 0
	for c, n := range fb.Causes {
		if n > 0 && c != "" {
			a.unsettledBy[string(c)] = addCount(a.unsettledBy[string(c)], n)
			named = addCount(named, n)
		}
	}
	if rest := fb.Unsettled - named; rest > 0 {
		a.unsettledBy[report.CauseUnrecorded] += rest
	}
	if o.legs[legFallback].failed {
		a.fallbackFailures++
	}
	if o.res.Diagnosis == guard.JudgeUncertain {
		a.stillUncertain++
	}
	a.selHash.Write([]byte(o.item.ID))
	a.selHash.Write([]byte{'\n'})
}

// addProvenance keeps what the result was judged with: decision set,
// diagnosis rules and judges.
func (a *accumulator) addProvenance(r *guard.Result) {
	a.sets[report.DecisionSetUse{ID: r.DecisionID, Version: r.DecisionVersion, Variant: string(r.DecisionVariant)}]++
	if r.DiagnosisVersion != "" {
		a.diagVers[r.DiagnosisVersion] = true
	}
	for name, v := range r.Judges {
		a.judges[name] = v
	}
	if fb := r.Fallback; fb != nil && fb.Judge != "" {
		if _, ok := a.judges[fb.Judge]; !ok {
			a.judges[fb.Judge] = ""
		}
	}
}

// claimsAcc keeps the claims section's counters and its bounded list.
type claimsAcc struct {
	rows, claims, maxPerRow int
	byVerdict               [3]int // indexed by guard.Verdict
	abstained               int
	escalated, settled      int
	rowsFailed, rowsUnsure  int
	listed                  []report.ClaimRow
}

// maxClaimEvidence bounds the evidence a listed claim carries.
const maxClaimEvidence = 3

func (c *claimsAcc) add(it *dataset.Item, r *guard.Result) {
	n := len(r.Claims)
	if n == 0 {
		return
	}
	c.rows++
	c.claims += n
	c.maxPerRow = max(c.maxPerRow, n)
	failed, unsure := false, false
	for i := range r.Claims {
		cl := &r.Claims[i]
		v := cl.Verdict
		if int(v) >= len(c.byVerdict) {
			v = guard.Uncertain // an unknown verdict never reads as pass
		}
		c.byVerdict[v]++
		failed = failed || v == guard.Fail
		unsure = unsure || v == guard.Uncertain
		if !cl.Groundedness.Known {
			c.abstained++
		}
		if cl.Escalated {
			c.escalated++
			if v != guard.Uncertain {
				c.settled++
			}
		}
	}
	switch {
	case failed:
		c.rowsFailed++
	case unsure:
		c.rowsUnsure++
	default:
		return
	}
	if len(c.listed) >= report.MaxListedClaimRows {
		return
	}
	row := report.ClaimRow{Pos: it.Pos, ID: it.ID, Claims: make([]report.Claim, n)}
	if p := r.Prob(guard.Groundedness); p.Known {
		row.Groundedness = &p.Value
	}
	v, _ := r.Verdict(guard.Groundedness)
	row.Verdict = v.String()
	if y, ok := it.Expected.Label(guard.Groundedness); ok {
		row.Label = &y
	}
	for i := range r.Claims {
		cl := &r.Claims[i]
		cr := report.Claim{Text: cl.Text, Verdict: cl.Verdict.String(), Judge: cl.Judge, Escalated: cl.Escalated, Reason: cl.Reason}
		if cl.Groundedness.Known {
			p := cl.Groundedness.Value
			cr.P = &p
		}
		if len(cl.Evidence) > 0 {
			cr.Evidence = slices.Clone(cl.Evidence[:min(len(cl.Evidence), maxClaimEvidence)])
		}
		row.Claims[i] = cr
	}
	c.listed = append(c.listed, row)
}

func (a *accumulator) claimsReport() *report.Claims {
	c := &a.claims
	r := &report.Claims{RowsWithClaims: c.rows, RowsWithoutClaims: a.evaluated - c.rows, Claims: c.claims,
		PerRowMean: ratio(c.claims, c.rows), PerRowMax: c.maxPerRow,
		ByVerdict: map[string]int{"pass": c.byVerdict[guard.Pass], "fail": c.byVerdict[guard.Fail], "uncertain": c.byVerdict[guard.Uncertain]},
		Abstained: c.abstained, Escalated: c.escalated, EscalatedSettled: c.settled, EscalatedUnsettled: c.escalated - c.settled,
		RowsWithFailedClaim: c.rowsFailed, RowsWithUncertainClaim: c.rowsUnsure,
		Rows: nonNil(c.listed), RowsListed: len(c.listed), ListLimit: report.MaxListedClaimRows}
	if x := a.cfg.ClaimExtractor; x != nil {
		r.Extractor = describeAny(x).Name
	}
	return r
}

// The causes a report counts, each a key of its counts even when 0.
var (
	// promise_broken is neither: a withheld verdict has its probability
	// (the promise block counts them).
	abstentionCauses = slices.DeleteFunc(slices.Clone(guard.Causes), func(c guard.Cause) bool {
		return c == guard.CauseFallbackUncertain || c == guard.CausePromiseBroken
	})
	fallbackCauses = slices.DeleteFunc(slices.Clone(guard.Causes), func(c guard.Cause) bool {
		return c == guard.CauseAbstained || c == guard.CauseJudgeFailed || c == guard.CauseInputTooLarge || c == guard.CausePromiseBroken
	})
)

// causeCounts returns counts with a 0 for every cause and CauseUnrecorded.
func causeCounts(cs []guard.Cause) map[string]int {
	m := make(map[string]int, len(cs)+1)
	for _, c := range cs {
		m[string(c)] = 0
	}
	m[report.CauseUnrecorded] = 0
	return m
}

// causeKey is the report key of a cause: its name, or CauseUnrecorded.
func causeKey(c guard.Cause) string {
	if c == "" {
		return report.CauseUnrecorded
	}
	return string(c)
}

func countRegion(r *report.RegionStats, wrong bool) {
	r.Count++
	if wrong {
		r.Errors++
	}
}

func failReason(err error) string {
	if err == nil {
		return ""
	}
	var re *dataset.RowError
	if errors.As(err, &re) {
		return re.Reason
	}
	return err.Error()
}

// ratioOrNull is a/b, or nil when b is 0: an accuracy over nothing is not
// a number.
func ratioOrNull(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (a *accumulator) region(r report.RegionStats) report.RegionStats {
	r.ErrorRate = ratio(r.Errors, r.Count)
	r.UpperBound = 1
	if r.Count > 0 {
		r.UpperBound = calibrate.ClopperPearsonUpper(r.Errors, r.Count, a.cfg.Confidence)
	}
	return r
}

// report builds the report from what was collected.
func (a *accumulator) report(src dataset.Source, elapsed time.Duration) *report.Report {
	cfg := a.cfg
	r := &report.Report{Schema: report.ReportSchema, Mode: cfg.Mode, Simulation: cfg.Simulation}
	r.Settings = report.Settings{Bins: cfg.Bins, Confidence: cfg.Confidence, OneSided: oneSidedThresholds,
		SweepFail: sweepFail, SweepPass: sweepPass, CurvePoints: curvePoints, DecisionCutoff: accuracyCutoff}

	// Input.
	in := &r.Input
	in.Files = src.Inputs()
	if in.Files == nil {
		in.Files = []dataset.InputFile{}
	}
	in.RowsRead = a.read + a.notEvaluated
	in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated = a.evaluated, a.failed, a.notEvaluated
	in.RowsLabeled, in.RowsWithJudgeErrors = a.labeledRows, a.judgeErrRows
	if rs, ok := src.(*RecordSource); ok {
		in.RecordsUnlabeled = rs.Unlabeled
		in.LabelsUnused = rs.labels.unused()
		if rs.labels != nil {
			for _, p := range rs.labels.Problems {
				a.fail(p)
			}
		}
	}
	in.FailuresByKind, in.Failures, in.FailuresTotal = a.failKinds, a.failures, a.failuresTotal
	if in.Failures == nil {
		in.Failures = []report.Failure{}
	}
	in.FailuresListed = len(in.Failures)
	for _, f := range a.files {
		in.PerFile = append(in.PerFile, report.FileQuality{File: f.name, Rows: f.rows, Labeled: f.labeled, Correct: f.correct, Accuracy: ratioOrNull(f.correct, f.labeled)})
	}
	if in.PerFile == nil {
		in.PerFile = []report.FileQuality{}
	}

	r.Diagnosis = a.diagnosisReport()
	r.Decisions = a.decisionsReport()
	r.Abstentions = report.Abstentions{ByCause: a.abstentions}
	for _, n := range a.abstentions {
		r.Abstentions.Total += n
	}
	if cfg.Mode == report.ModeCascade || (cfg.Mode == report.ModeRecorded && a.escalated > 0) {
		r.Cascade = a.cascadeReport()
		if cfg.CascadeSettings != nil {
			r.Cascade.Settings = cascadeSettingsReport(*cfg.CascadeSettings)
		}
		if st, ok := cfg.Escalator.(cascadeStatser); ok {
			r.Cascade.Runtime = runtimeReport(describeAny(cfg.Escalator).Name, st.Stats())
		}
	}
	if a.est != nil {
		r.Estimates, r.EstimatesByDiagnosis = a.est.report()
		r.EstimateMethod = report.EstimateMethod
		if r.Cascade != nil {
			calls := -1
			if r.Cascade.Runtime != nil {
				calls = r.Cascade.Runtime.FallbackCalls
			}
			r.Cascade.Catch = a.est.catch(a.evaluated, calls, r.Estimates[guard.Groundedness.JSONKey()])
		}
	}
	if a.cfg.ClaimExtractor != nil || a.claims.rows > 0 {
		r.Claims = a.claimsReport()
	}
	r.Draws = a.draws.report(cfg.Draws)
	if cfg.Monitor != nil {
		r.Promise = a.promise.report(cfg.Monitor, cfg.Guard)
	}
	if cfg.Mode == report.ModeFallback || cfg.Mode == report.ModeCascade {
		r.FallbackErrors = &report.FallbackErrors{Calls: a.fbCalls, Failed: a.fbFailed, Transport: a.fbTransport,
			FailedRate: ratioOrNull(a.fbFailed, a.fbCalls), Estimates: a.fbEstimates, Errors: nonNil(a.fbErrs)}
	}
	a.latencyUsage(r)
	r.Cost = report.PriceUsage(cfg.Pricing, &r.Usage, a.evaluated)
	r.Reproduce = a.reproducibility(r, elapsed)
	return r
}

func (a *accumulator) diagnosisReport() report.Diagnosis {
	d := report.Diagnosis{Attempted: a.diagAttempted, InvalidLabels: a.invalidLabels,
		Predicted: a.predicted, Routes: a.routes, Actions: a.actions}
	k := len(guard.Diagnoses)
	truth := make([]int, len(a.diag))
	pred := make([]int, len(a.diag))
	conf := make([]float64, len(a.diag))
	wrong := make([]bool, len(a.diag))
	allCorrect := 0
	for i, row := range a.diag {
		truth[i], pred[i] = int(row.truth), int(row.pred)
		ok := row.truth == row.pred
		wrong[i] = !ok
		if ok {
			allCorrect++
		}
		if row.success {
			d.Successful++
			if ok {
				d.Correct++
			}
		}
		// Auto-routed rows rank before escalated ones.
		conf[i] = row.conf
		if row.auto {
			conf[i] += 1
		}
	}
	d.Failures = d.Attempted - d.Successful
	d.Accuracy = ratioOrNull(allCorrect, len(a.diag))
	d.SuccessfulAccuracy = ratioOrNull(d.Correct, d.Successful)
	d.OverallAccuracy = ratioOrNull(d.Correct, d.Attempted)
	d.SuccessRate = ratioOrNull(d.Successful, d.Attempted)
	m := calibrate.Confusion(truth, pred, k)
	for _, g := range guard.Diagnoses {
		d.Labels = append(d.Labels, string(g))
	}
	d.Confusion = m
	for i, s := range calibrate.ClassScores(m) {
		d.PerLabel = append(d.PerLabel, report.LabelScore{Label: d.Labels[i], ClassScore: s})
	}
	// Selective: threshold t accepts auto rows with confidence ≥ t.
	sel := report.SelectiveQuality{N: len(a.diag)}
	for _, t := range oneSidedThresholds {
		acc, errs := 0, 0
		for i, row := range a.diag {
			if row.auto && row.conf >= t {
				acc++
				if wrong[i] {
					errs++
				}
			}
		}
		sel.Thresholds = append(sel.Thresholds, a.thresholdRow(t, acc, errs, len(a.diag)))
	}
	curve := calibrate.RiskCoverage(conf, wrong)
	for i := range curve {
		if curve[i].Confidence >= 1 {
			curve[i].Confidence-- // undo the auto bonus
		}
	}
	sel.Curve = nonNil(calibrate.ThinCurve(curve, curvePoints))
	if sel.N > 0 {
		aurc := calibrate.AURC(conf, wrong)
		sel.AURC = &aurc
	}
	d.Selective = sel
	return d
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (a *accumulator) thresholdRow(t float64, accepted, errs, n int) report.ThresholdRow {
	row := report.ThresholdRow{Threshold: t, Accepted: accepted, Errors: errs, Coverage: ratio(accepted, n),
		ErrorRate: ratio(errs, accepted), UpperBound: 1, Review: 1 - ratio(accepted, n)}
	if n == 0 {
		row.Review = 0
	}
	if accepted > 0 {
		row.UpperBound = calibrate.ClopperPearsonUpper(errs, accepted, a.cfg.Confidence)
	}
	return row
}

func (a *accumulator) decisionsReport() report.Decisions {
	var out report.Decisions
	pol := a.cfg.PrimaryPolicy
	if a.cfg.Mode == report.ModeFallback {
		pol = a.cfg.FallbackPolicy
	}
	for _, d := range guard.Decisions {
		dr := a.decisionReport(d, pol)
		if d.Retrieval() {
			out.Retrieval = append(out.Retrieval, dr)
		} else {
			out.Generation = append(out.Generation, dr)
		}
	}
	return out
}

// decisionReport computes the quality of one decision: its scores, what
// the policy did with it, and its threshold tables and curve.
func (a *accumulator) decisionReport(d guard.Decision, pol *guard.Policy) report.Decision {
	acc := &a.dec[d]
	dr := report.Decision{Decision: d.String(), Stage: "generation", Labeled: acc.labeled, N: len(acc.p), Abstained: acc.abstained}
	if d.Retrieval() {
		dr.Stage = "retrieval"
	}
	conf, wrong := a.scores(&dr, acc.p, acc.y)
	a.policyOutcome(&dr, d, pol, acc)
	a.thresholdTables(&dr, acc.p, acc.y, conf, wrong)
	return dr
}

// scores sets the accuracy at the 0.5 cutoff, AUROC, Brier, ECE and the
// reliability bins; it returns each item's confidence max(P, 1−P) and
// whether the cutoff gets it wrong.
func (a *accumulator) scores(dr *report.Decision, p []float64, y []bool) (conf []float64, wrong []bool) {
	n := len(p)
	right := 0
	conf = make([]float64, n)
	wrong = make([]bool, n)
	for i, pi := range p {
		if y[i] {
			dr.Positives++
		}
		w := (pi >= accuracyCutoff) != y[i]
		wrong[i] = w
		if !w {
			right++
		}
		conf[i] = max(pi, 1-pi)
	}
	dr.Accuracy = ratioOrNull(right, n)
	switch {
	case n == 0:
		dr.AUROCNote = "no labeled items"
	default:
		if auc, err := calibrate.AUROC(p, y, nil); err == nil {
			dr.AUROC = &auc
		} else if errors.Is(err, calibrate.ErrOneClass) {
			dr.AUROCNote = "undefined: every label is the same class"
		} else {
			dr.AUROCNote = err.Error()
		}
	}
	if n > 0 {
		brier, ece := calibrate.Brier(p, y, nil), calibrate.ECE(p, y, nil, a.cfg.Bins)
		dr.Brier, dr.ECE = &brier, &ece
	}
	for _, b := range calibrate.Reliability(p, y, nil, a.cfg.Bins) {
		dr.Reliability = append(dr.Reliability, report.ReliabilityBin{Lower: b.Lower, Upper: b.Upper, Count: b.Count, MeanP: b.MeanP, FracPos: b.FracPos})
	}
	return conf, wrong
}

// policyOutcome sets the policy's thresholds and what its verdicts did:
// the auto-pass and auto-fail regions with their errors, and the escalated.
// The verdicts are read on the proposition (Pass = P ≥ the pass threshold):
// the regions and their errors are about P, and a verdict speaks for the
// answer, flipped for the adverse decisions.
func (a *accumulator) policyOutcome(dr *report.Decision, d guard.Decision, pol *guard.Policy, acc *decisionAcc) {
	if pol != nil {
		th := pol.For(d)
		dr.Policy.Fail, dr.Policy.Pass = th.Fail, th.Pass
		dr.Policy.NoFail, dr.Policy.NoPass = th.NoFail, th.NoPass
	}
	var ap, af report.RegionStats
	for i, v := range acc.v {
		switch d.PropositionVerdict(v) {
		case guard.Pass:
			countRegion(&ap, !acc.y[i])
		case guard.Fail:
			countRegion(&af, acc.y[i])
		default:
			dr.Policy.Escalated++
		}
	}
	dr.Policy.AutoPass, dr.Policy.AutoFail = a.region(ap), a.region(af)
	dr.Policy.Coverage = ratio(ap.Count+af.Count, len(acc.p))
}

// thresholdTables sets the one-sided threshold table on confidence, the
// two-sided sweep on P, and the risk–coverage curve with its AURC.
func (a *accumulator) thresholdTables(dr *report.Decision, p []float64, y []bool, conf []float64, wrong []bool) {
	n := len(p)
	// One-sided on confidence: decide when max(P, 1−P) ≥ t.
	for _, t := range oneSidedThresholds {
		accepted, errs := 0, 0
		for i, c := range conf {
			if c >= t {
				accepted++
				if wrong[i] {
					errs++
				}
			}
		}
		dr.OneSided = append(dr.OneSided, a.thresholdRow(t, accepted, errs, n))
	}
	for _, sp := range calibrate.SweepTwoSided(p, y, sweepFail, sweepPass) {
		dr.Sweep = append(dr.Sweep, report.SweepRow{Fail: sp.Fail, Pass: sp.Pass, AutoPassCoverage: sp.AutoPassCoverage,
			AutoFailCoverage: sp.AutoFailCoverage, FallbackCoverage: sp.EscalatedCoverage,
			AutoPassErrors: sp.AutoPassErrors, AutoFailErrors: sp.AutoFailErrors,
			AutoPassErrorRate: sp.AutoPassErrorRate, AutoFailErrorRate: sp.AutoFailErrorRate})
	}
	if n == 0 {
		// SweepTwoSided reports every pair of an empty input as all-zero;
		// keep them so that the table has the same shape.
		for i := range dr.Sweep {
			dr.Sweep[i].FallbackCoverage = 0
		}
	}
	dr.Curve = nonNil(calibrate.ThinCurve(calibrate.RiskCoverage(conf, wrong), curvePoints))
	if n > 0 {
		aurc := calibrate.AURC(conf, wrong)
		dr.AURC = &aurc
	}
}

func (a *accumulator) cascadeReport() *report.Cascade {
	c := &report.Cascade{Rows: a.evaluated, Escalated: a.escalated, ResolvedByPrimary: a.evaluated - a.escalated,
		PrimaryFailures: a.primaryFailures, FallbackFailures: a.fallbackFailures,
		SettledDecisions: a.settled, UnsettledDecisions: a.unsettled, StillUncertain: a.stillUncertain, UnsettledByCause: a.unsettledBy}
	c.PrimaryResolved = ratio(c.ResolvedByPrimary, c.Rows)
	c.FallbackRate = ratio(c.Escalated, c.Rows)
	c.PrimaryFailureRate = ratio(c.PrimaryFailures, c.Rows)
	c.AcceptedRegion = a.region(a.accepted)
	c.EscalatedRows = a.region(a.escalatedLab)
	c.EndToEnd = a.region(a.endToEnd)
	if c.EndToEnd.Count > 0 {
		acc := 1 - c.EndToEnd.ErrorRate
		c.EndToEndAccuracy = &acc
	}
	return c
}

func (a *accumulator) latencyUsage(r *report.Report) {
	cfg := a.cfg
	r.Latency.Primary = percentiles(a.lat[legPrimary])
	r.Latency.Fallback = percentiles(a.lat[legFallback])
	r.Latency.Combined = percentiles(a.latAll)
	r.Latency.Measured = []string{}
	if a.anyMeasure {
		if a.legRows[legPrimary] > 0 {
			r.Latency.Measured = append(r.Latency.Measured, "primary")
		}
		if a.legRows[legFallback] > 0 && cfg.Simulation == nil {
			r.Latency.Measured = append(r.Latency.Measured, "fallback")
		}
		r.Latency.Measured = append(r.Latency.Measured, "combined")
	}
	legUsage := func(l legKind, judge, model string) report.LegUsage {
		u := a.usage[l]
		lu := report.LegUsage{Judge: judge, Model: model, Rows: a.legRows[l], Calls: u.Calls, InputTokens: u.InputTokens,
			OutputTokens: u.OutputTokens, Failures: a.legFail[l]}
		if a.retries {
			n := u.Retries
			lu.Retries = &n
		}
		return lu
	}
	r.Usage.Primary = legUsage(legPrimary, cfg.PrimaryJudge, cfg.PrimaryModel)
	r.Usage.Fallback = legUsage(legFallback, cfg.FallbackJudge, cfg.FallbackModel)
}

// percentiles returns the 50th and 95th percentiles by linear interpolation
// between closest ranks (x at rank h = (n−1)·q, 0-based), the mean and max.
func percentiles(xs []float64) report.Percentiles {
	n := len(xs)
	if n == 0 {
		return report.Percentiles{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) float64 {
		h := float64(n-1) * p
		lo := int(math.Floor(h))
		hi := min(lo+1, n-1)
		return s[lo] + (h-float64(lo))*(s[hi]-s[lo])
	}
	var sum float64
	for _, x := range s {
		sum = addMs(sum, x)
	}
	return report.Percentiles{N: n, P50: q(0.5), P95: q(0.95), Mean: meanMs(s, sum), Max: s[n-1]}
}

func (a *accumulator) reproducibility(r *report.Report, elapsed time.Duration) report.Reproducibility {
	cfg := a.cfg
	rp := report.Reproducibility{
		Timestamp: cfg.Now().UTC().Format(time.RFC3339), Command: cfg.Command,
		Judges: a.judges, PrimaryModel: cfg.PrimaryModel, FallbackModel: cfg.FallbackModel,
		Datasets: r.Input.Files, ProfileVersion: cfg.ProfileVersion, Workers: cfg.Workers,
		ElapsedSeconds: elapsed.Seconds(),
	}
	for s, n := range a.sets {
		s.Rows = n
		rp.DecisionSets = append(rp.DecisionSets, s)
	}
	sort.Slice(rp.DecisionSets, func(i, j int) bool { return rp.DecisionSets[i].ID < rp.DecisionSets[j].ID })
	rp.DecisionSets = nonNil(rp.DecisionSets)
	variants := map[string]bool{}
	for _, s := range rp.DecisionSets {
		variants[s.Variant] = true
	}
	switch len(variants) {
	case 0:
		rp.DecisionVariant = ""
	case 1:
		rp.DecisionVariant = rp.DecisionSets[0].Variant
	default:
		rp.DecisionVariant = string(guard.Mixed)
	}
	for v := range a.diagVers {
		rp.DiagnosisVersions = append(rp.DiagnosisVersions, v)
	}
	sort.Strings(rp.DiagnosisVersions)
	rp.DiagnosisVersions = nonNil(rp.DiagnosisVersions)
	if cfg.Mode == report.ModeCascade {
		rp.SelectionHash = hex.EncodeToString(a.selHash.Sum(nil))
		rp.Degrade = cfg.Degrade.String()
		if cfg.Workers > 1 {
			rp.Nondeterminism = nondeterminismNote(cfg)
		}
	}
	if cfg.Mode != report.ModeFallback {
		rp.PrimaryPolicy = cfg.PrimaryPolicy
	}
	if cfg.Mode == report.ModeFallback || cfg.Mode == report.ModeCascade {
		rp.FallbackPolicy = cfg.FallbackPolicy
	}
	if cfg.Pricing != nil {
		rp.PricingVersion = cfg.Pricing.Version
	}
	if x := cfg.ClaimExtractor; x != nil {
		info := describeAny(x)
		rp.ClaimExtractor = &info
	}
	rp.GoVersion, rp.Modules = buildModules()
	return rp
}

// nondeterminismNote says why a cascade replay with more than one worker
// may not repeat itself.
func nondeterminismNote(cfg *Config) string {
	note := fmt.Sprintf("cascade mode with %d workers: the cascade's cache and shared calls key on a row's content, not its id, so "+
		"when rows repeat a sample, which of them reaches the fallback first varies between runs; the cache-hit and "+
		"shared-call counts can then vary", cfg.Workers)
	if cfg.Simulation != nil {
		note += ", and so can every fallback figure, since the simulated fallback answers with the labels of the row that reached it"
	}
	return note + " (-workers 1 fixes the order)"
}
