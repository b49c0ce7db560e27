package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
)

// ReportSchema names the JSON form of Report. It changes when a field changes
// meaning; new fields keep it. docs/report-schema.md documents every field.
const ReportSchema = "ragtriage.report/1"

// Report is the outcome of a replay: how well each decision and the
// diagnosis are judged, at which thresholds how much traffic is decided
// automatically with what error, and what the judging cost. Its JSON form is
// stable (see ReportSchema). Rates whose denominator is 0 are 0, except the
// accuracies (and the diagnosis success rate): over no labelled row they are
// null, as is a metric that is undefined for the data (AUROC with one
// class).
type Report struct {
	Schema string `json:"schema"`
	// Mode is primary, fallback, cascade or recorded.
	Mode Mode `json:"mode"`
	// Partial is set when the run was interrupted; the figures cover the
	// rows evaluated before the interruption (PartialReason says which).
	Partial       bool   `json:"partial"`
	PartialReason string `json:"partialReason,omitempty"`
	// Simulation describes the simulated fallback judge, when one was used.
	// Every figure of the fallback leg then comes from a simulation.
	Simulation *SimulationInfo `json:"simulation,omitempty"`

	Input     Input     `json:"input"`
	Diagnosis Diagnosis `json:"diagnosis"`
	Decisions Decisions `json:"decisions"`
	// Abstentions counts the decisions the results give no probability
	// for, by cause.
	Abstentions Abstentions `json:"abstentions"`
	Cascade     *Cascade    `json:"cascade,omitempty"`
	// Estimates are the traffic estimates from the fallback's sample
	// (modes that call a fallback, and recorded mode), keyed by the
	// decision's JSON key (docs/estimates.md); EstimatesByDiagnosis the
	// same per diagnosis; EstimateMethod names the estimator.
	Estimates            map[string]*FailShareEstimate      `json:"estimates,omitempty"`
	EstimatesByDiagnosis map[string]*DiagnosisShareEstimate `json:"estimatesByDiagnosis,omitempty"`
	EstimateMethod       string                             `json:"estimateMethod,omitempty"`
	// Draws counts the teacher draws (-explore, -audit) and what the
	// teacher made of them; absent without draws.
	Draws *Draws `json:"draws,omitempty"`
	// Promise follows the promise monitor (-audit with a monitor): when
	// and where it tripped; absent without one.
	Promise *Promise `json:"promise,omitempty"`
	// Claims describes the advanced groundedness mode (claims mode only).
	Claims *Claims `json:"claims,omitempty"`
	// FallbackErrors counts the fallback judge's calls and their failures
	// (fallback and cascade mode).
	FallbackErrors *FallbackErrors `json:"fallbackErrors,omitempty"`
	Latency        Latency         `json:"latency"`
	Usage          Usage           `json:"usage"`
	Cost           Cost            `json:"cost"`
	Reproduce      Reproducibility `json:"reproducibility"`
	Settings       Settings        `json:"settings"`
	// NonFinite lists the figures that were not finite numbers (NaN or an
	// infinity) when the report was written, by JSON path; see WriteJSON.
	// Empty in a sound run.
	NonFinite []string `json:"nonFinite,omitempty"`
}

// SimulationInfo describes a simulated fallback judge in a report.
type SimulationInfo struct {
	Judge        string  `json:"judge"`
	Version      string  `json:"version"`
	ErrorRate    float64 `json:"errorRate"`
	LatencyMs    float64 `json:"latencyMs"`
	Slept        bool    `json:"slept"`
	InputTokens  int     `json:"inputTokensPerCall"`
	OutputTokens int     `json:"outputTokensPerCall"`
	Seed         uint64  `json:"seed"`
	// PricedAs is the model whose price the simulated tokens are costed at.
	PricedAs string `json:"pricedAs,omitempty"`
	// Unlabeled says who answers decisions without a label ("abstain" or a
	// judge name).
	Unlabeled string `json:"unlabeled"`
	Note      string `json:"note"`
}

// Settings records the fixed grids and constants of the report.
type Settings struct {
	Bins           int       `json:"reliabilityBins"`
	Confidence     float64   `json:"boundConfidence"`
	OneSided       []float64 `json:"oneSidedThresholds"`
	SweepFail      []float64 `json:"sweepFail"`
	SweepPass      []float64 `json:"sweepPass"`
	CurvePoints    int       `json:"curvePoints"`
	DecisionCutoff float64   `json:"accuracyCutoff"`
}

// Input accounts for every row: RowsRead = RowsEvaluated + RowsFailed
// + RowsNotEvaluated.
type Input struct {
	Files []InputFile `json:"files"`
	// RowsRead counts the non-blank lines read from the replayed files.
	RowsRead int `json:"rowsRead"`
	// RowsEvaluated have a result (judged, or recorded).
	RowsEvaluated int `json:"rowsEvaluated"`
	// RowsFailed could not be evaluated: see FailuresByKind and Failures.
	RowsFailed int `json:"rowsFailed"`
	// RowsNotEvaluated were read but not evaluated because the run was
	// interrupted.
	RowsNotEvaluated int `json:"rowsNotEvaluated"`
	// RowsLabeled have at least one label; RowsWithJudgeErrors have a result
	// in which a judge failed (those decisions are uncertain).
	RowsLabeled         int `json:"rowsLabeled"`
	RowsWithJudgeErrors int `json:"rowsWithJudgeErrors"`
	// RecordsUnlabeled counts records whose id had no labels; LabelsUnused
	// the labeled ids no record matched (record input only).
	RecordsUnlabeled int `json:"recordsUnlabeled,omitempty"`
	LabelsUnused     int `json:"labelsUnused,omitempty"`
	// FailuresByKind counts failed rows (and unusable label lines) by kind.
	FailuresByKind map[string]int `json:"failuresByKind"`
	// Failures lists the first MaxListedFailures failures; FailuresListed
	// says how many of FailuresTotal that is.
	Failures       []Failure `json:"failures"`
	FailuresTotal  int       `json:"failuresTotal"`
	FailuresListed int       `json:"failuresListed"`
	// PerFile breaks the diagnosis accuracy down by input file.
	PerFile []FileQuality `json:"perFile"`
}

// MaxListedFailures bounds the failures a report lists one by one.
const MaxListedFailures = 100

// Failure kinds.
const (
	FailBadLine  = "bad_line"       // the line is not a valid row or record
	FailSample   = "invalid_sample" // the guard rejected the sample (size limits, NUL bytes, …)
	FailNoSample = "no_sample"      // a record without captured content cannot be judged again
	FailLabels   = "bad_labels"     // a label line could not be used
	FailEval     = "evaluate"       // evaluation failed without a result
)

// Failure is one row that could not be evaluated, or one unusable label line.
type Failure struct {
	Pos    Position `json:"position"`
	ID     string   `json:"id,omitempty"`
	Kind   string   `json:"kind"`
	Reason string   `json:"reason"`
}

// FileQuality is the diagnosis quality on the rows of one input file.
type FileQuality struct {
	File    string `json:"file"`
	Rows    int    `json:"rows"`
	Labeled int    `json:"diagnosisLabeled"`
	Correct int    `json:"correct"`
	// Accuracy = Correct/Labeled; null when the file has no diagnosis label.
	Accuracy *float64 `json:"accuracy"`
}

// Diagnosis scores the diagnosis as a multi-class decision on the rows
// with a diagnosis label.
type Diagnosis struct {
	// Attempted counts the rows with a diagnosis label that were evaluated
	// or failed; Successful those evaluated with no judge failure; Failures
	// = Attempted − Successful; Correct the successful rows whose diagnosis
	// equals the label.
	Attempted  int `json:"attempted"`
	Successful int `json:"successful"`
	Failures   int `json:"failures"`
	Correct    int `json:"correct"`
	// Accuracy = correct/evaluated over every evaluated labeled row (a row
	// whose judge failed counts with the result it got).
	Accuracy *float64 `json:"accuracy"`
	// SuccessfulAccuracy = Correct/Successful; OverallAccuracy =
	// Correct/Attempted (a failure counts as wrong); SuccessRate =
	// Successful/Attempted. Each of the four is null when its denominator
	// is 0 (no labelled row): an accuracy over nothing is not 0.
	SuccessfulAccuracy *float64 `json:"successfulAccuracy"`
	OverallAccuracy    *float64 `json:"overallAccuracy"`
	SuccessRate        *float64 `json:"successRate"`
	// InvalidLabels counts rows whose diagnosis label is not a known code.
	InvalidLabels int `json:"invalidLabels"`
	// Labels are the classes, in guard.Diagnoses order; Confusion[t][p]
	// counts rows labeled Labels[t] and diagnosed Labels[p].
	Labels    []string         `json:"labels"`
	PerLabel  []LabelScore     `json:"perLabel"`
	Confusion [][]int          `json:"confusion"`
	Predicted map[string]int   `json:"predicted"`
	Routes    map[string]int   `json:"routes"`
	Actions   map[string]int   `json:"actions"`
	Selective SelectiveQuality `json:"selective"`
}

// LabelScore is the one-vs-rest quality of one diagnosis code.
type LabelScore struct {
	Label string `json:"label"`
	calibrate.ClassScore
}

// SelectiveQuality answers the deployment question for the diagnosis: rows
// are ranked auto-routed first, then by diagnosis confidence; a row is an
// error when its diagnosis differs from the label (JUDGE_UNCERTAIN is an
// error unless so labeled).
type SelectiveQuality struct {
	N int `json:"n"`
	// Thresholds: the rows routed auto with confidence ≥ threshold are
	// decided automatically.
	Thresholds []ThresholdRow `json:"thresholds"`
	// Curve is the risk–coverage curve (thinned to at most curvePoints
	// points); AURC is computed on the full curve, null when N is 0.
	Curve []calibrate.RiskPoint `json:"riskCoverage"`
	AURC  *float64              `json:"aurc"`
}

// ThresholdRow is one row of a one-sided threshold table: Accepted rows are
// decided automatically (Coverage = Accepted/N), Errors of them wrongly
// (ErrorRate = Errors/Accepted, the risk), UpperBound is the Clopper–Pearson
// upper bound on that error rate at the report's confidence, and Review =
// 1 − Coverage is the share left to the fallback or a human.
type ThresholdRow struct {
	Threshold  float64 `json:"threshold"`
	Accepted   int     `json:"accepted"`
	Errors     int     `json:"errors"`
	Coverage   float64 `json:"coverage"`
	ErrorRate  float64 `json:"errorRate"`
	UpperBound float64 `json:"errorUpperBound"`
	Review     float64 `json:"review"`
}

// Decisions holds the per-decision quality, retrieval and generation
// apart.
type Decisions struct {
	Retrieval  []Decision `json:"retrieval"`
	Generation []Decision `json:"generation"`
}

// All returns the retrieval then the generation decisions.
func (d *Decisions) All() []Decision {
	return append(append([]Decision(nil), d.Retrieval...), d.Generation...)
}

// Decision is the quality of one decision on the rows labeled for it
// (chunk relevance: one item per labeled context).
type Decision struct {
	Decision string `json:"decision"`
	Stage    string `json:"stage"`
	// Labeled counts the labels; N the labeled items with a known
	// probability (the others were abstained or failed: Abstained). Every
	// metric below is over the N items.
	Labeled   int `json:"labeled"`
	N         int `json:"n"`
	Abstained int `json:"abstained"`
	Positives int `json:"positives"`
	// Accuracy: the share of items where (P ≥ 0.5) equals the label; null
	// when N is 0.
	Accuracy *float64 `json:"accuracy"`
	// AUROC is null with a single class (AUROCNote says so). AUROC, Brier,
	// ECE and AURC are null when N is 0.
	AUROC       *float64              `json:"auroc"`
	AUROCNote   string                `json:"aurocNote,omitempty"`
	Brier       *float64              `json:"brier"`
	ECE         *float64              `json:"ece"`
	Reliability []ReliabilityBin      `json:"reliability"`
	Policy      PolicyOutcome         `json:"policy"`
	OneSided    []ThresholdRow        `json:"oneSided"`
	Sweep       []SweepRow            `json:"sweep"`
	Curve       []calibrate.RiskPoint `json:"riskCoverage"`
	AURC        *float64              `json:"aurc"`
}

// ReliabilityBin is one bucket of a reliability table: [Lower, Upper), the
// last one including 1.
type ReliabilityBin struct {
	Lower   float64 `json:"lower"`
	Upper   float64 `json:"upper"`
	Count   int     `json:"count"`
	MeanP   float64 `json:"meanP"`
	FracPos float64 `json:"fracPositive"`
}

// PolicyOutcome is what the policy the results were judged with did on the
// labeled items: the verdicts as they are in the results.
type PolicyOutcome struct {
	Fail float64 `json:"fail"`
	Pass float64 `json:"pass"`
	// NoFail and NoPass: that side is undecided by policy (its threshold
	// is not read; see guard.Thresholds).
	NoFail    bool        `json:"noFail,omitempty"`
	NoPass    bool        `json:"noPass,omitempty"`
	AutoPass  RegionStats `json:"autoPass"`
	AutoFail  RegionStats `json:"autoFail"`
	Escalated int         `json:"escalated"`
	// Coverage is (AutoPass.Count + AutoFail.Count)/N.
	Coverage float64 `json:"coverage"`
}

// RegionStats is one automatically decided region: Errors of Count items
// are wrong (label false in auto-pass, true in auto-fail).
type RegionStats struct {
	Count      int     `json:"count"`
	Errors     int     `json:"errors"`
	ErrorRate  float64 `json:"errorRate"`
	UpperBound float64 `json:"errorUpperBound"`
}

// SweepRow is one (fail, pass) pair of the two-sided sweep: P ≥ pass
// auto-passes, P ≤ fail auto-fails, the rest goes to the fallback.
type SweepRow struct {
	Fail              float64 `json:"fail"`
	Pass              float64 `json:"pass"`
	AutoPassCoverage  float64 `json:"autoPassCoverage"`
	AutoFailCoverage  float64 `json:"autoFailCoverage"`
	FallbackCoverage  float64 `json:"fallbackCoverage"`
	AutoPassErrors    int     `json:"autoPassErrors"`
	AutoFailErrors    int     `json:"autoFailErrors"`
	AutoPassErrorRate float64 `json:"autoPassErrorRate"`
	AutoFailErrorRate float64 `json:"autoFailErrorRate"`
}

// Abstentions counts the abstentions of the evaluated results
// (guard.Result.Abstentions: one per decision without a probability, per
// context for chunk relevance, labeled or not) by cause.
type Abstentions struct {
	Total int `json:"total"`
	// ByCause has a key for every guard.Cause an abstention can have
	// (every name of guard.Causes but fallback_uncertain) and
	// CauseUnrecorded for abstentions whose result names no cause (records
	// and traces written before causes were recorded); a cause name this
	// version does not know gets its own key. The counts add up to Total.
	ByCause map[string]int `json:"byCause"`
}

// CauseUnrecorded is the key under which reports count abstentions and
// unsettled decisions whose result names no cause.
const CauseUnrecorded = "unrecorded"

// Cascade describes the cascade: in cascade mode, and in recorded
// mode when a record was escalated.
type Cascade struct {
	Rows int `json:"rows"`
	// ResolvedByPrimary counts the rows the primary judges decided alone;
	// Escalated the rows sent to the fallback (FallbackRate = Escalated/Rows).
	ResolvedByPrimary int     `json:"resolvedByPrimary"`
	PrimaryResolved   float64 `json:"primaryResolvedRate"`
	Escalated         int     `json:"escalated"`
	FallbackRate      float64 `json:"fallbackRate"`
	// PrimaryFailures counts rows where a primary judge failed.
	PrimaryFailures    int     `json:"primaryFailures"`
	PrimaryFailureRate float64 `json:"primaryFailureRate"`
	// FallbackFailures counts escalations whose fallback call failed.
	FallbackFailures int `json:"fallbackFailures"`
	// SettledDecisions and UnsettledDecisions sum the fallback's outcome over
	// the escalated decisions; StillUncertain counts escalated rows whose
	// final diagnosis is JUDGE_UNCERTAIN.
	SettledDecisions   int `json:"settledDecisions"`
	UnsettledDecisions int `json:"unsettledDecisions"`
	StillUncertain     int `json:"stillUncertain"`
	// UnsettledByCause counts the UnsettledDecisions by cause, from the
	// results (guard.FallbackInfo.Causes): a key for every fallback cause
	// (breaker_open, deadline, budget, concurrency, closed, cancelled,
	// fallback_failed, fallback_abstained, fallback_uncertain) and
	// CauseUnrecorded for those whose result names no cause; a cause name
	// this version does not know gets its own key. The counts add up to
	// UnsettledDecisions.
	UnsettledByCause map[string]int `json:"unsettledByCause"`
	// AcceptedRegion is the diagnosis error among labeled rows the primary
	// decided alone; Escalated among the labeled escalated rows (after the
	// fallback); EndToEnd over all labeled rows after the fallback.
	AcceptedRegion RegionStats `json:"acceptedRegion"`
	EscalatedRows  RegionStats `json:"escalatedRows"`
	EndToEnd       RegionStats `json:"endToEnd"`
	// EndToEndAccuracy = 1 − EndToEnd.ErrorRate; null when no row had a
	// diagnosis label.
	EndToEndAccuracy *float64 `json:"endToEndAccuracy"`
	// Settings is how the cascade around the fallback was configured (the
	// effective values); nil when cascade mode's escalator was not built
	// from a cascade.Config.
	Settings *CascadeSettings `json:"settings,omitempty"`
	// Runtime is what the cascade did, from its own counters at the end of
	// the run; nil when the escalator keeps none.
	Runtime *CascadeRuntime `json:"runtime,omitempty"`
	// Catch compares the ungrounded answers the fallback's calls caught
	// with random admission at the same share.
	Catch *Catch `json:"catch,omitempty"`
}

// CascadeSettings records the effective cascade.Config in a report,
// durations in milliseconds.
type CascadeSettings struct {
	MaxConcurrent int `json:"maxConcurrent"`
	// MaxWaiting: 0 means no bound (every call waits for a slot), negative
	// that nobody waits.
	MaxWaiting    int     `json:"maxWaiting"`
	CallTimeoutMs float64 `json:"callTimeoutMs"`
	// CacheSize is 0 when the cache was off.
	CacheSize         int     `json:"cacheSize"`
	BreakerFailures   int     `json:"breakerFailures"`
	BreakerCooldownMs float64 `json:"breakerCooldownMs"`
	// BudgetCalls and BudgetTokens are 0 when uncapped; BudgetWindowMs is 0
	// without a budget.
	BudgetCalls    int     `json:"budgetCalls"`
	BudgetTokens   int     `json:"budgetTokens"`
	BudgetWindowMs float64 `json:"budgetWindowMs"`
	// Share is the fraction of escalations admitted (0: no bound),
	// ShareWindow the escalations it is counted over, ShareUniform the
	// part drawn uniformly (cascade.Limits.Share).
	Share        float64 `json:"share,omitempty"`
	ShareWindow  int     `json:"shareWindow,omitempty"`
	ShareUniform float64 `json:"shareUniform,omitempty"`
}

// CascadeRuntime is what the cascade around the fallback did over the run
// (cascade.Stats). Estimate counts add up: Requested = CacheHits +
// CacheMisses, CacheMisses = Settled + Abstained, and Abstained = the sum of
// the Refused… counts, Cancelled, Failed and FallbackAbstained.
type CascadeRuntime struct {
	// Escalator names the cascade ("cascade(<fallback judge>)").
	Escalator string `json:"escalator"`
	// Escalations counts escalated rows (and claims) the cascade was asked
	// about; Requested the estimates asked (one per chunk for chunk
	// relevance).
	Escalations int `json:"escalations"`
	Requested   int `json:"requested"`
	// CacheHits are answered from the cache at no cost; CacheHitRate =
	// CacheHits/Requested.
	CacheHits    int     `json:"cacheHits"`
	CacheMisses  int     `json:"cacheMisses"`
	CacheHitRate float64 `json:"cacheHitRate"`
	// Settled counts estimates the fallback gave; Abstained those that came
	// back abstained, by reason below.
	Settled            int `json:"settled"`
	Abstained          int `json:"abstained"`
	RefusedBreaker     int `json:"refusedBreaker"`
	RefusedDeadline    int `json:"refusedDeadline"`
	RefusedBudget      int `json:"refusedBudget"`
	RefusedShare       int `json:"refusedShare,omitempty"`
	RefusedConcurrency int `json:"refusedConcurrency"`
	RefusedClosed      int `json:"refusedClosed"`
	Cancelled          int `json:"cancelled"`
	Failed             int `json:"failed"`
	FallbackAbstained  int `json:"fallbackAbstained"`
	// FallbackCalls counts calls of the fallback judge (one call answers
	// every estimate of an escalation, or its chunks apart); of them
	// FallbackCallErrors failed and counted against the breaker, and
	// FallbackCallsExcluded ended because the caller did. Collapsed counts
	// escalations that shared an identical call under way.
	FallbackCalls         int `json:"fallbackCalls"`
	FallbackCallErrors    int `json:"fallbackCallErrors"`
	FallbackCallsExcluded int `json:"fallbackCallsExcluded"`
	Collapsed             int `json:"collapsed"`
	// BreakerTrips counts changes of the breaker to open; BreakerState is
	// its state when the run ended (closed, half-open, open).
	BreakerTrips int    `json:"breakerTrips"`
	BreakerState string `json:"breakerState"`
	// InputTokens and OutputTokens sum what the fallback calls reported.
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	// FallbackP95Ms is the p95 of the fallback calls' wall time over the
	// cascade's latency window (0 until enough calls were seen); it is
	// measured on this machine, also for a simulated fallback.
	FallbackP95Ms float64 `json:"fallbackP95Ms"`
}

// Claims describes the claims of the advanced groundedness mode
// (guard.WithClaims): present when the run had a claim extractor
// (Config.ClaimExtractor) or a result carried claims. Counts add up:
// RowsWithClaims + RowsWithoutClaims = the evaluated rows; Claims = the sum
// of ByVerdict; Escalated = EscalatedSettled + EscalatedUnsettled.
//
// Only the first MaxListedClaimRows rows with a failed or uncertain claim
// are listed; every row's claims are in its result (guard.Result.Claims,
// also in the records the middleware writes).
type Claims struct {
	// Extractor names the claim extractor ("" when unknown, as for records
	// judged elsewhere).
	Extractor string `json:"extractor"`
	// RowsWithClaims counts evaluated rows whose groundedness is the weakest
	// claim's; RowsWithoutClaims those judged on the whole answer instead
	// (basic mode), because the extractor failed, found no claim or found
	// more than guard.MaxClaims — the result lists that as a judge error.
	RowsWithClaims    int `json:"rowsWithClaims"`
	RowsWithoutClaims int `json:"rowsWithoutClaims"`
	// Claims counts the claims judged; PerRowMean and PerRowMax are over the
	// rows with claims.
	Claims     int     `json:"claimsJudged"`
	PerRowMean float64 `json:"claimsPerRowMean"`
	PerRowMax  int     `json:"claimsPerRowMax"`
	// ByVerdict counts the claims by final verdict: pass, fail, uncertain
	// (every key is present). Abstained counts the claims whose support no
	// judge could estimate (they are uncertain).
	ByVerdict map[string]int `json:"byVerdict"`
	Abstained int            `json:"abstained"`
	// Escalated counts the claims sent to the fallback on their own
	// (cascade mode); EscalatedSettled those it settled (pass or fail),
	// EscalatedUnsettled those still uncertain.
	Escalated          int `json:"escalated"`
	EscalatedSettled   int `json:"escalatedSettled"`
	EscalatedUnsettled int `json:"escalatedUnsettled"`
	// RowsWithFailedClaim counts rows with at least one failed claim;
	// RowsWithUncertainClaim rows with an uncertain claim and none failed.
	RowsWithFailedClaim    int `json:"rowsWithFailedClaim"`
	RowsWithUncertainClaim int `json:"rowsWithUncertainClaim"`
	// Rows lists, in input order, the first MaxListedClaimRows rows with a
	// failed or uncertain claim, each with all of its claims; RowsListed
	// says how many of RowsWithFailedClaim + RowsWithUncertainClaim that is.
	Rows       []ClaimRow `json:"rows"`
	RowsListed int        `json:"rowsListed"`
	ListLimit  int        `json:"listLimit"`
}

// MaxListedClaimRows bounds the rows whose claims a report lists one by one.
const MaxListedClaimRows = 20

// ClaimRow is one row of Claims.Rows: its groundedness as judged (the
// weakest claim's), its groundedness label when it has one, and every claim.
type ClaimRow struct {
	Pos Position `json:"position"`
	ID  string   `json:"id,omitempty"`
	// Groundedness is the row's probability (null when no claim's support
	// could be estimated) and Verdict its final verdict.
	Groundedness *float64 `json:"groundedness"`
	Verdict      string   `json:"verdict"`
	// Label is the row's groundedness label; null when unlabeled.
	Label  *bool   `json:"label"`
	Claims []Claim `json:"claims"`
}

// Claim is one claim of a listed row, as guard.Claim has it.
type Claim struct {
	Text string `json:"text"`
	// P is the claim's support probability; null when abstained.
	P         *float64 `json:"p"`
	Verdict   string   `json:"verdict"`
	Judge     string   `json:"judge,omitempty"`
	Escalated bool     `json:"escalated"`
	Reason    string   `json:"reason,omitempty"`
	// Evidence is the judge's evidence for the claim (the first
	// maxClaimEvidence items; the result has them all).
	Evidence []guard.Evidence `json:"evidence,omitempty"`
}

// Latency gives latency percentiles per leg and combined, in
// milliseconds. A leg's latency is the larger of its measured wall time and
// the latency its judges reported (a simulation reports without waiting).
type Latency struct {
	Primary  Percentiles `json:"primary"`
	Fallback Percentiles `json:"fallback"`
	Combined Percentiles `json:"combined"`
	// Measured says which legs were timed on this machine (machine-dependent)
	// rather than reported by a simulation or a record.
	Measured []string `json:"measured"`
}

// Percentiles summarises latencies over the N rows where a leg ran.
type Percentiles struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50Ms"`
	P95  float64 `json:"p95Ms"`
	Mean float64 `json:"meanMs"`
	Max  float64 `json:"maxMs"`
}

// Usage sums token usage per leg.
type Usage struct {
	Primary  LegUsage `json:"primary"`
	Fallback LegUsage `json:"fallback"`
}

// LegUsage is what one leg spent over the run. Retries is null unless a judge
// reported retries.
type LegUsage struct {
	Judge        string `json:"judge,omitempty"`
	Model        string `json:"model,omitempty"`
	Rows         int    `json:"rows"`
	Calls        int    `json:"calls"`
	InputTokens  int    `json:"inputTokens"`
	OutputTokens int    `json:"outputTokens"`
	Retries      *int   `json:"retries"`
	Failures     int    `json:"failures"`
}

// Cost prices the usage from a pricing snapshot. An amount is null and
// its Status "unavailable" when no price applies; it is never a made-up 0.
type Cost struct {
	PricingVersion string  `json:"pricingVersion,omitempty"`
	Currency       string  `json:"currency,omitempty"`
	Primary        LegCost `json:"primary"`
	Fallback       LegCost `json:"fallback"`
	Total          LegCost `json:"total"`
	// PerThousandRows is Total per 1000 evaluated rows.
	PerThousandRows *float64 `json:"perThousandRows"`
}

// LegCost is the cost of one leg, or why it is unavailable.
type LegCost struct {
	Status string   `json:"status"` // "priced" or "unavailable"
	Amount *float64 `json:"amount"`
	Reason string   `json:"reason,omitempty"`
}

// Reproducibility records what the report was computed with.
type Reproducibility struct {
	Timestamp    string           `json:"timestamp"`
	Command      []string         `json:"command,omitempty"`
	DecisionSets []DecisionSetUse `json:"decisionSets"`
	// DecisionVariant is the variant of the decision sets used, or "mixed"
	// (guard.Result calls it decisionVariant too).
	DecisionVariant   string            `json:"decisionVariant"`
	DiagnosisVersions []string          `json:"diagnosisVersions"`
	Judges            map[string]string `json:"judges"`
	PrimaryModel      string            `json:"primaryModel,omitempty"`
	FallbackModel     string            `json:"fallbackModel,omitempty"`
	// ClaimExtractor names and versions the claim extractor of claims mode;
	// absent in basic mode.
	ClaimExtractor *guard.JudgeInfo `json:"claimExtractor,omitempty"`
	Datasets       []InputFile      `json:"datasets"`
	// SelectionHash is the SHA-256 of the escalated rows' ids in input order
	// (one per line): two cascade runs escalated the same subset exactly when
	// their hashes match. Empty outside cascade mode.
	SelectionHash  string        `json:"fallbackSelectionHash,omitempty"`
	PrimaryPolicy  *guard.Policy `json:"primaryPolicy,omitempty"`
	FallbackPolicy *guard.Policy `json:"fallbackPolicy,omitempty"`
	Degrade        string        `json:"degrade,omitempty"`
	ProfileVersion string        `json:"profileVersion,omitempty"`
	PricingVersion string        `json:"pricingVersion,omitempty"`
	GoVersion      string        `json:"goVersion"`
	Modules        []string      `json:"modules"`
	Workers        int           `json:"workers"`
	ElapsedSeconds float64       `json:"elapsedSeconds"`
	// MetricsSeconds is the time spent keeping the per-row numbers and
	// computing the report (a part of ElapsedSeconds).
	MetricsSeconds float64 `json:"metricsSeconds"`
	// Nondeterminism says why the figures of this run may differ from a
	// rerun's on the same data (cascade mode with more than one worker);
	// empty when they may not, apart from the measured latencies and a live
	// model's own variation.
	Nondeterminism string `json:"nondeterminism,omitempty"`
}

// FallbackErrors counts the calls of the fallback judge (fallback and
// cascade mode) and those that failed. A call is one Judge call of the
// fallback judge (in cascade mode one per cascade call: cache hits and
// refusals call nothing); a call the caller ended (cancelled) is not a
// failure.
type FallbackErrors struct {
	// Calls counts the fallback judge's calls; Failed those that returned
	// an error; Transport those of the failed whose HTTP request got no
	// response (connection refused, DNS, TLS, timeout: known only for
	// judges whose client uses MeteredTransport, as the CLI's openai
	// fallback does).
	Calls     int `json:"calls"`
	Failed    int `json:"failed"`
	Transport int `json:"transport"`
	// FailedRate = Failed/Calls; null when no call was made.
	FailedRate *float64 `json:"failedRate"`
	// Estimates counts the estimates the calls gave (not abstained): 0
	// means the fallback settled nothing.
	Estimates int `json:"estimates"`
	// Errors quotes the first MaxListedFallbackErrors distinct errors, in
	// input order (the judge's message, with the transport's in
	// parentheses when the judge's leaves it out).
	Errors []string `json:"errors"`
}

// MaxListedFallbackErrors bounds the errors FallbackErrors quotes.
const MaxListedFallbackErrors = 5

// DecisionSetUse counts the results judged with one decision definition set.
type DecisionSetUse struct {
	ID      string `json:"id"`
	Version string `json:"version"`
	Variant string `json:"variant"`
	Rows    int    `json:"rows"`
}

// WriteJSON writes the report as indented JSON to path. JSON has no NaN or
// infinity: a figure that is not a finite number is written as 0 (NaN) or
// the largest float64 of its sign, and its path is listed in NonFinite, so
// that the report is always written. The readers and sums of evalkit keep
// every figure finite; NonFinite is the last guard.
func (r *Report) WriteJSON(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		r.NonFinite = append(r.NonFinite, clampNonFinite(reflect.ValueOf(r).Elem(), "")...)
		b, err = json.MarshalIndent(r, "", "  ")
	}
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// clampNonFinite replaces, in v and below it, every NaN by 0 and every
// infinity by the largest float64 of its sign; it returns their paths.
func clampNonFinite(v reflect.Value, path string) (paths []string) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			return nil
		}
		if v.CanSet() {
			v.SetFloat(clampFloat(f))
		}
		return []string{path}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return clampNonFinite(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				paths = append(paths, clampNonFinite(v.Field(i), path+"."+jsonName(f))...)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			paths = append(paths, clampNonFinite(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			// Map values are not addressable: fix a copy and store it back.
			cp := reflect.New(iter.Value().Type()).Elem()
			cp.Set(iter.Value())
			if p := clampNonFinite(cp, fmt.Sprintf("%s[%v]", path, iter.Key())); len(p) > 0 {
				v.SetMapIndex(iter.Key(), cp)
				paths = append(paths, p...)
			}
		}
	}
	return paths
}

func clampFloat(f float64) float64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f > 0:
		return math.MaxFloat64
	}
	return -math.MaxFloat64
}

// jsonName is the JSON key of a struct field.
func jsonName(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
		return name
	}
	return f.Name
}

// ReadReport reads a report written by WriteJSON.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("evalkit: report %s: %w", path, err)
	}
	if r.Schema != ReportSchema {
		return nil, fmt.Errorf("evalkit: report %s: schema %q, want %q", path, r.Schema, ReportSchema)
	}
	if err := refuseOldKeys(b); err != nil {
		return nil, fmt.Errorf("evalkit: report %s: %w", path, err)
	}
	return &r, nil
}

// refuseOldKeys refuses a report written before reproducibility.variant
// became reproducibility.decisionVariant.
func refuseOldKeys(b []byte) error {
	var old struct {
		Reproduce struct {
			Variant json.RawMessage `json:"variant"`
		} `json:"reproducibility"`
	}
	if json.Unmarshal(b, &old) == nil && old.Reproduce.Variant != nil {
		return errors.New("reproducibility.variant: the report is in the old format; this version reads reports " +
			"with reproducibility.decisionVariant only (run eval again to write one)")
	}
	return nil
}

// Draws counts the teacher draws of a run (guard.WithDraws). Rows counts
// the rows with a draw record; Drawn those drawn (by kind in ByKind).
// Taught = Answered + the sum of ByCause (the teacher refused or failed,
// by guard.Teacher.Cause: never retried); Drawn − Taught were not taught
// (Teach failed: NotTaught). FromPrimary counts the taught rows some of
// whose teacher answers read the primary judge (no labels). AuditSides and
// Disagreements compare, on audit draws, the embedded verdicts decided
// alone with the teacher's (guard.AuditOutcomes). TeacherUsage is what the
// teacher spent; it is not part of the legs' usage.
type Draws struct {
	Explore       float64        `json:"explore"`
	Audit         float64        `json:"audit"`
	Seed          uint64         `json:"seed"`
	Rows          int            `json:"rows"`
	Drawn         int            `json:"drawn"`
	ByKind        map[string]int `json:"byKind"`
	Taught        int            `json:"taught"`
	Answered      int            `json:"answered"`
	ByCause       map[string]int `json:"byCause"`
	Refused       int            `json:"refused"`
	NotTaught     int            `json:"notTaught"`
	FromPrimary   int            `json:"fromPrimary"`
	AuditSides    int            `json:"auditSides"`
	Disagreements int            `json:"disagreements"`
	TeacherUsage  TokenUsage     `json:"teacherUsage"`
}

// TokenUsage is one usage total: tokens and calls.
type TokenUsage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	Calls        int `json:"calls"`
}

// Promise follows the promise monitor over a run (guard.PromiseMonitor,
// `ragtriage eval -audit R`): when and where it tripped, and the embedded
// judges' own verdicts on each decision side, wrong ones counted against
// the rows' labels, before and after the side tripped. Rows are numbered
// from 1 in input order; the rows are judged one at a time, so a trip
// caused by a row's audit applies from the next row on.
type Promise struct {
	// Alpha is the promise tested: a side's disagreement with the teacher
	// ≤ Alpha. Delta bounds the chance that a side keeping it ever trips
	// (per side); PriorA, PriorB shape the test (guard.PromiseConfig).
	Alpha  float64 `json:"alpha"`
	Delta  float64 `json:"delta"`
	PriorA float64 `json:"priorA"`
	PriorB float64 `json:"priorB"`
	// Promise is the guard's guard.Promise.Key; Test names the test.
	Promise string `json:"promise"`
	Test    string `json:"test"`
	// Rows counts the rows judged; AuditedRows those whose audit reached
	// the monitor (an audit draw the teacher answered on some side).
	Rows        int `json:"rows"`
	AuditedRows int `json:"auditedRows"`
	// Trips lists the trips in the order they happened; empty when none.
	Trips []PromiseTrip `json:"trips"`
	// Sides holds every side with automatic verdicts, audits or a trip, in
	// decision order, pass side first.
	Sides []PromiseSide `json:"sides"`
}

// PromiseTrip is one side's trip: where (decision, side) and when (the row
// whose audit tripped it, and the audits then).
type PromiseTrip struct {
	Decision string `json:"decision"`
	Side     string `json:"side"`
	// Row is the 1-based index of the row whose audit tripped it; ID its ID.
	Row int    `json:"row"`
	ID  string `json:"id,omitempty"`
	// AuditedRows counts the audited rows up to and including Row.
	AuditedRows int `json:"auditedRows"`
	// Audits and Disagreements are the side's tallies at the trip; EValue
	// the test's statistic then (≥ 1/Delta).
	Audits        int64   `json:"audits"`
	Disagreements int64   `json:"disagreements"`
	EValue        float64 `json:"eValue"`
}

// PromiseSide is one decision side over the run.
type PromiseSide struct {
	Decision string `json:"decision"`
	Side     string `json:"side"`
	// Audits, Disagreements and EValue are the monitor's at the end.
	Audits        int64   `json:"audits"`
	Disagreements int64   `json:"disagreements"`
	EValue        float64 `json:"eValue"`
	Tripped       bool    `json:"tripped"`
	// TripRow is the row whose audit tripped the side (0: it did not).
	TripRow int `json:"tripRow,omitempty"`
	// Before counts the side's automatic verdicts up to and including
	// TripRow (every row when it did not trip), After those after it.
	Before AutoVerdicts `json:"before"`
	After  AutoVerdicts `json:"after"`
	// Withheld counts the rows whose verdict on this side the guard
	// withheld because the side was tripped (they escalated).
	Withheld int `json:"withheld"`
}

// AutoVerdicts counts automatic verdicts on one side: the embedded
// judges' own (not settled by the fallback), one per row (per chunk for
// chunk relevance); Labelled those whose row has the decision's label;
// Wrong those the label contradicts.
type AutoVerdicts struct {
	Verdicts int `json:"verdicts"`
	Labelled int `json:"labelled"`
	Wrong    int `json:"wrong"`
}
