package report

// EstimateMethod names the estimator of Estimates (docs/estimates.md).
const EstimateMethod = "horvitz-thompson, post-stratified by inclusion probability; 95% stratified Wilson interval with finite-population correction"

// Interval is the part every traffic estimate shares: a 95% interval, how
// many rows it reads and whether it could be given at all.
type Interval struct {
	// Low and High bound the 95% interval; null when unavailable.
	Low  *float64 `json:"low"`
	High *float64 `json:"high"`
	// N counts the rows whose value is known (observed), Rows the rows of
	// the population (every evaluated row with a verdict for the
	// decision); Sampled the observed rows that had an inclusion
	// probability below 1 (the fallback's random sample).
	N       int `json:"n"`
	Rows    int `json:"rows"`
	Sampled int `json:"sampled"`
	// Available is false when no unbiased estimate exists: Reason says
	// why (escalated rows without an inclusion probability, as in records
	// written before it was recorded; or sampled rows the fallback left
	// unsettled, a non-response that would bias it).
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// FailShareEstimate estimates, for one decision, the share of all answers
// whose final verdict is fail (the embedded judges' where they were
// confident, the fallback's where they were not).
type FailShareEstimate struct {
	FailShare *float64 `json:"failShare"`
	Interval
	// Labeled and LabeledFailShare: the rows with a label for the
	// decision and the share of them labeled negative (unhealthy), to
	// compare the estimate with; absent without labels.
	Labeled          int      `json:"labeled,omitempty"`
	LabeledFailShare *float64 `json:"labeledFailShare,omitempty"`
}

// DiagnosisShareEstimate estimates the share of all answers with one
// diagnosis, with the fallback's verdicts where the embedded judges were
// uncertain.
type DiagnosisShareEstimate struct {
	Share *float64 `json:"share"`
	Interval
}

// Catch compares, for groundedness, what the fallback's calls caught with
// what random admission of as many rows would catch (the cascade report).
type Catch struct {
	// FallbackCalls counts the fallback calls made (the cascade's own
	// count when it keeps one, else the admitted rows); CallShare =
	// FallbackCalls / Rows.
	FallbackCalls int     `json:"fallbackCalls"`
	Rows          int     `json:"rows"`
	CallShare     float64 `json:"callShare"`
	// Escalated counts the rows whose groundedness was escalated;
	// Admitted those of them the fallback saw.
	Escalated int `json:"escalated"`
	Admitted  int `json:"admitted"`
	// FailCaught counts admitted rows the fallback called ungrounded.
	FailCaught int `json:"failCaught"`
	// With groundedness labels: LabeledFail counts the rows labeled
	// ungrounded, LabeledFailCaught those of them the fallback saw;
	// CaughtShare = LabeledFailCaught / LabeledFail, and
	// RandomCaughtShare what admitting as many escalated rows at random
	// would catch in expectation: (Admitted / Escalated) × (labeled
	// ungrounded escalated rows) / LabeledFail. Null without labels.
	LabeledFail       int      `json:"labeledFail"`
	LabeledFailCaught int      `json:"labeledFailCaught"`
	CaughtShare       *float64 `json:"caughtShare"`
	RandomCaughtShare *float64 `json:"randomCaughtShare"`
	// EstimatedCaughtShare = FailCaught / (the estimated ungrounded share
	// × Rows), from the fallback's own sample (no labels needed); null
	// when that estimate is unavailable or zero.
	EstimatedCaughtShare *float64 `json:"estimatedCaughtShare"`
}
