package evalkit

import (
	"github.com/ragtriage/ragtriage/evalkit/render"
	"github.com/ragtriage/ragtriage/evalkit/report"
)

// The report model, the baseline gate and pricing live in package
// evalkit/report, the Markdown and HTML renderers in evalkit/render; these
// names keep evalkit's API.

type (
	// AbstentionsReport is report.AbstentionsReport.
	AbstentionsReport = report.AbstentionsReport
	// CascadeReport is report.CascadeReport.
	CascadeReport = report.CascadeReport
	// CascadeRuntime is report.CascadeRuntime.
	CascadeRuntime = report.CascadeRuntime
	// CascadeSettingsReport is report.CascadeSettingsReport.
	CascadeSettingsReport = report.CascadeSettingsReport
	// ClaimReport is report.ClaimReport.
	ClaimReport = report.ClaimReport
	// ClaimRow is report.ClaimRow.
	ClaimRow = report.ClaimRow
	// ClaimsReport is report.ClaimsReport.
	ClaimsReport = report.ClaimsReport
	// CostReport is report.CostReport.
	CostReport = report.CostReport
	// DecisionReport is report.DecisionReport.
	DecisionReport = report.DecisionReport
	// DecisionSetUse is report.DecisionSetUse.
	DecisionSetUse = report.DecisionSetUse
	// DecisionsReport is report.DecisionsReport.
	DecisionsReport = report.DecisionsReport
	// DiagnosisReport is report.DiagnosisReport.
	DiagnosisReport = report.DiagnosisReport
	// Failure is report.Failure.
	Failure = report.Failure
	// FallbackErrorsReport is report.FallbackErrorsReport.
	FallbackErrorsReport = report.FallbackErrorsReport
	// FileQuality is report.FileQuality.
	FileQuality = report.FileQuality
	// GateOptions is report.GateOptions.
	GateOptions = report.GateOptions
	// GateResult is report.GateResult.
	GateResult = report.GateResult
	// InputReport is report.InputReport.
	InputReport = report.InputReport
	// LabelScore is report.LabelScore.
	LabelScore = report.LabelScore
	// LatencyReport is report.LatencyReport.
	LatencyReport = report.LatencyReport
	// LegCost is report.LegCost.
	LegCost = report.LegCost
	// LegUsage is report.LegUsage.
	LegUsage = report.LegUsage
	// Percentiles is report.Percentiles.
	Percentiles = report.Percentiles
	// PolicyOutcome is report.PolicyOutcome.
	PolicyOutcome = report.PolicyOutcome
	// Price is report.Price.
	Price = report.Price
	// Pricing is report.Pricing.
	Pricing = report.Pricing
	// RegionStats is report.RegionStats.
	RegionStats = report.RegionStats
	// Regression is report.Regression.
	Regression = report.Regression
	// ReliabilityBin is report.ReliabilityBin.
	ReliabilityBin = report.ReliabilityBin
	// Report is report.Report.
	Report = report.Report
	// ReportSettings is report.ReportSettings.
	ReportSettings = report.ReportSettings
	// Reproducibility is report.Reproducibility.
	Reproducibility = report.Reproducibility
	// SelectiveQuality is report.SelectiveQuality.
	SelectiveQuality = report.SelectiveQuality
	// SimulationInfo is report.SimulationInfo.
	SimulationInfo = report.SimulationInfo
	// SweepRow is report.SweepRow.
	SweepRow = report.SweepRow
	// ThresholdRow is report.ThresholdRow.
	ThresholdRow = report.ThresholdRow
	// UsageReport is report.UsageReport.
	UsageReport = report.UsageReport
)

const (
	// CauseUnrecorded is report.CauseUnrecorded.
	CauseUnrecorded = report.CauseUnrecorded
	// FailBadLine is report.FailBadLine.
	FailBadLine = report.FailBadLine
	// FailEval is report.FailEval.
	FailEval = report.FailEval
	// FailLabels is report.FailLabels.
	FailLabels = report.FailLabels
	// FailNoSample is report.FailNoSample.
	FailNoSample = report.FailNoSample
	// FailSample is report.FailSample.
	FailSample = report.FailSample
	// MaxListedClaimRows is report.MaxListedClaimRows.
	MaxListedClaimRows = report.MaxListedClaimRows
	// MaxListedFailures is report.MaxListedFailures.
	MaxListedFailures = report.MaxListedFailures
	// MaxListedFallbackErrors is report.MaxListedFallbackErrors.
	MaxListedFallbackErrors = report.MaxListedFallbackErrors
	// MaxPrice is report.MaxPrice.
	MaxPrice = report.MaxPrice
	// ReportSchema is report.ReportSchema.
	ReportSchema = report.ReportSchema
)

// CheckFallbackErrors is report.CheckFallbackErrors.
func CheckFallbackErrors(r *report.Report, maxRate float64) []string {
	return report.CheckFallbackErrors(r, maxRate)
}

// Compare is report.Compare.
func Compare(base *report.Report, cur *report.Report, opt report.GateOptions) report.GateResult {
	return report.Compare(base, cur, opt)
}

// DefaultPricing is report.DefaultPricing.
func DefaultPricing() *report.Pricing { return report.DefaultPricing() }

// DefaultPricingJSON is report.DefaultPricingJSON.
func DefaultPricingJSON() []byte { return report.DefaultPricingJSON() }

// LoadPricing is report.LoadPricing.
func LoadPricing(path string) (*report.Pricing, error) { return report.LoadPricing(path) }

// ParsePricing is report.ParsePricing.
func ParsePricing(b []byte, name string) (*report.Pricing, error) {
	return report.ParsePricing(b, name)
}

// ReadReport is report.ReadReport.
func ReadReport(path string) (*report.Report, error) { return report.ReadReport(path) }

// priceUsage is report.PriceUsage.
func priceUsage(p *Pricing, u *UsageReport, rows int) CostReport {
	return report.PriceUsage(p, u, rows)
}

// Markdown is render.Markdown.
func Markdown(r *Report) string { return render.Markdown(r) }

// HTML is render.HTML.
func HTML(r *Report) string { return render.HTML(r) }
