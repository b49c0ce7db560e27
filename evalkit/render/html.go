package render

import (
	"fmt"
	"html"
	"math"
	"strings"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/evalkit/report"
)

// HTML renders a report as one self-contained page: no script, no external
// resource, only inline CSS and SVG. It shows the summary tables (with, in
// claims mode, the claims counts and the bounded claims listing), a
// reliability diagram per decision, the risk–coverage curves (diagnosis and
// decisions) and, per decision, the two-sided threshold sweep as a heat map
// of automatic coverage annotated with the accepted-region error.
func HTML(r *report.Report) string {
	var w htmlWriter
	w.head(r)
	w.summary(r)
	if c := r.Cascade; c != nil {
		cascadeHTML(&w.Builder, c)
	}
	estimatesHTML(&w.Builder, r)
	if fe := r.FallbackErrors; fe != nil {
		w.p("<p>%s</p>\n", html.EscapeString(fallbackErrorsText(fe, "\"")))
	}
	if c := r.Claims; c != nil {
		claimsHTML(&w.Builder, c)
	}
	if pr := r.Promise; pr != nil {
		promiseHTML(&w.Builder, pr)
	}
	w.decisions(r)
	w.charts(r)
	w.costs(r)
	w.reproducibility(&r.Reproduce)
	w.p("</body></html>\n")
	return w.String()
}

// htmlWriter builds the HTML report, one section per method.
type htmlWriter struct{ strings.Builder }

func (w *htmlWriter) p(format string, a ...any) { fmt.Fprintf(&w.Builder, format, a...) }

// head writes the document head with its style, the title and the
// partial-report and simulation notices.
func (w *htmlWriter) head(r *report.Report) {
	p, esc := w.p, html.EscapeString
	title := fmt.Sprintf("ragtriage eval report: %s mode", r.Mode)
	if r.Partial {
		title += " (partial)"
	}
	p(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1f24;background:#fff;max-width:1200px}
h1{font-size:24px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
table{border-collapse:collapse;font-size:13px;margin:8px 0}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:right}
th{background:#f3f5f7}td:first-child,th:first-child{text-align:left}
.note{background:#fff4d6;border:1px solid #e5c25a;padding:8px 12px;border-radius:4px}
.partial{background:#ffe1e1;border:1px solid #d66;padding:8px 12px;border-radius:4px}
.grid{display:flex;flex-wrap:wrap;gap:16px}.card{border:1px solid #d0d7de;border-radius:6px;padding:8px}
.card h3{font-size:14px;margin:0 0 4px}svg text{font-family:inherit}
.kpi{display:flex;gap:12px;flex-wrap:wrap}.kpi div{background:#f3f5f7;border-radius:6px;padding:8px 12px}
.kpi b{display:block;font-size:20px}
</style></head><body>
<h1>%s</h1>
`, esc(title), esc(title))
	if r.Partial {
		p(`<p class="partial"><b>Partial report:</b> %s</p>`+"\n", esc(r.PartialReason))
	}
	if s := r.Simulation; s != nil {
		p(`<p class="note"><b>Simulated fallback.</b> The fallback judge <code>%s</code> is a simulation: it reads the labels and is wrong at rate %.3g, reporting %.0f ms and %d+%d tokens per call (priced as %s). Fallback quality, latency and cost are simulated, not measured.</p>`+"\n",
			esc(s.Judge), s.ErrorRate, s.LatencyMs, s.InputTokens, s.OutputTokens, esc(s.PricedAs))
	}
}

// summary writes the key figures and the diagnosis threshold table.
func (w *htmlWriter) summary(r *report.Report) {
	p, esc := w.p, html.EscapeString
	d := &r.Diagnosis
	in := &r.Input
	p(`<div class="kpi"><div>rows read<b>%d</b></div><div>evaluated<b>%d</b></div><div>failed<b>%d</b></div><div>diagnosis accuracy<b>%s</b></div><div>overall accuracy<b>%s</b></div><div>diagnosis AURC<b>%s</b></div>`,
		in.RowsRead, in.RowsEvaluated, in.RowsFailed, pCell(d.Accuracy), pCell(d.OverallAccuracy), pCell(d.Selective.AURC))
	if c := r.Cascade; c != nil {
		p(`<div>fallback rate<b>%.1f%%</b></div><div>end-to-end accuracy<b>%s</b></div>`, 100*c.FallbackRate, pCell(c.EndToEndAccuracy))
	}
	if r.Cost.Total.Amount != nil {
		p(`<div>cost<b>%.4f %s</b></div>`, *r.Cost.Total.Amount, esc(r.Cost.Currency))
	} else {
		p(`<div>cost<b>unavailable</b></div>`)
	}
	p("</div>\n")

	p("<h2>Diagnosis: threshold table</h2>\n<table><tr><th>threshold</th><th>coverage</th><th>accepted errors</th><th>error rate</th><th>error upper bound</th><th>review</th></tr>\n")
	for _, t := range d.Selective.Thresholds {
		p("<tr><td>%.2f</td><td>%.1f%% (%d)</td><td>%d</td><td>%.1f%%</td><td>%.1f%%</td><td>%.1f%%</td></tr>\n", t.Threshold, 100*t.Coverage, t.Accepted, t.Errors, 100*t.ErrorRate, 100*t.UpperBound, 100*t.Review)
	}
	p("</table>\n")
}

// decisions writes the per-decision quality table and the decisions
// without a probability.
func (w *htmlWriter) decisions(r *report.Report) {
	p, esc := w.p, html.EscapeString
	p("<h2>Decisions</h2>\n<table><tr><th>decision</th><th>stage</th><th>n</th><th>accuracy</th><th>AUROC</th><th>Brier</th><th>ECE</th><th>AURC</th><th>policy fail / pass</th><th>policy coverage</th></tr>\n")
	for _, dr := range r.Decisions.All() {
		auc := "n/a"
		if dr.AUROC != nil {
			auc = fmt.Sprintf("%.3f", *dr.AUROC)
		}
		p("<tr><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f%%</td></tr>\n",
			esc(dr.Decision), dr.Stage, dr.N, pCell(dr.Accuracy), auc, pCell(dr.Brier), pCell(dr.ECE), pCell(dr.AURC), esc(thresholdsText(dr.Policy)), 100*dr.Policy.Coverage)
	}
	p("</table>\n")
	p("<p>Decisions without a probability: %d (by cause: %s).</p>\n", r.Abstentions.Total, esc(causesText(r.Abstentions.ByCause)))
}

// charts writes the risk–coverage curves, the reliability diagrams and the
// two-sided threshold sweeps.
func (w *htmlWriter) charts(r *report.Report) {
	p, esc := w.p, html.EscapeString
	all := r.Decisions.All()
	p(`<h2>Risk–coverage</h2><div class="grid"><div class="card">`)
	series := []curveSeries{{name: "diagnosis", pts: r.Diagnosis.Selective.Curve}}
	for _, dr := range all {
		if dr.N > 0 {
			series = append(series, curveSeries{name: dr.Decision, pts: dr.Curve})
		}
	}
	riskCoverageSVG(&w.Builder, series)
	p("</div></div>\n")

	p(`<h2>Reliability diagrams</h2><div class="grid">`)
	for _, dr := range all {
		if dr.N == 0 {
			continue
		}
		p(`<div class="card"><h3>%s (n=%d, ECE %s)</h3>`, esc(dr.Decision), dr.N, pCell(dr.ECE))
		reliabilitySVG(&w.Builder, dr.Reliability)
		p("</div>")
	}
	p("</div>\n")

	p(`<h2>Two-sided threshold sweep</h2><p>Cell colour: share decided automatically (P ≤ fail or P ≥ pass); text: coverage and the larger of the two accepted-region error rates.</p><div class="grid">`)
	for _, dr := range all {
		if dr.N == 0 {
			continue
		}
		p(`<div class="card"><h3>%s</h3>`, esc(dr.Decision))
		sweepSVG(&w.Builder, dr.Sweep, r.Settings.SweepFail, r.Settings.SweepPass)
		p("</div>")
	}
	p("</div>\n")
}

// costs writes latency, usage and cost per leg.
func (w *htmlWriter) costs(r *report.Report) {
	p, esc := w.p, html.EscapeString
	p("<h2>Latency, usage and cost</h2>\n<table><tr><th>leg</th><th>rows</th><th>p50 ms</th><th>p95 ms</th><th>calls</th><th>input tokens</th><th>output tokens</th><th>cost</th></tr>\n")
	p("<tr><td>primary</td><td>%d</td><td>%.3f</td><td>%.3f</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>\n", r.Latency.Primary.N, r.Latency.Primary.P50, r.Latency.Primary.P95,
		r.Usage.Primary.Calls, r.Usage.Primary.InputTokens, r.Usage.Primary.OutputTokens, esc(costCell(r.Cost.Primary, r.Cost.Currency)))
	p("<tr><td>fallback</td><td>%d</td><td>%.3f</td><td>%.3f</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>\n", r.Latency.Fallback.N, r.Latency.Fallback.P50, r.Latency.Fallback.P95,
		r.Usage.Fallback.Calls, r.Usage.Fallback.InputTokens, r.Usage.Fallback.OutputTokens, esc(costCell(r.Cost.Fallback, r.Cost.Currency)))
	p("<tr><td>combined</td><td>%d</td><td>%.3f</td><td>%.3f</td><td></td><td></td><td></td><td>%s</td></tr>\n</table>\n", r.Latency.Combined.N, r.Latency.Combined.P50, r.Latency.Combined.P95, esc(costCell(r.Cost.Total, r.Cost.Currency)))
}

// reproducibility writes what the report was computed with.
func (w *htmlWriter) reproducibility(rp *report.Reproducibility) {
	p, esc := w.p, html.EscapeString
	p("<h2>Reproducibility</h2>\n<table>")
	row := func(k, v string) { p("<tr><td>%s</td><td style=\"text-align:left\">%s</td></tr>", esc(k), esc(v)) }
	row("timestamp", rp.Timestamp)
	row("decision variant", rp.DecisionVariant)
	row("profile", rp.ProfileVersion)
	row("pricing", rp.PricingVersion)
	if x := rp.ClaimExtractor; x != nil {
		row("claim extractor", x.Name+" "+x.Version)
	}
	for _, f := range rp.Datasets {
		row("input "+f.Name, f.SHA256)
	}
	if rp.SelectionHash != "" {
		row("fallback selection hash", rp.SelectionHash)
	}
	row("command", strings.Join(rp.Command, " "))
	row("Go", rp.GoVersion)
	p("</table>\n")
}

// cascadeHTML writes the cascade section: what the cascade decided, and
// what its runtime (breaker, cache, budget, limits) did.
func cascadeHTML(b *strings.Builder, c *report.Cascade) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	esc := html.EscapeString
	p("<h2>Cascade</h2>\n<table><tr><th>rows</th><th>resolved by primary</th><th>fallback rate</th><th>primary failure rate</th><th>accepted-region error</th><th>escalated-row error</th><th>end-to-end accuracy</th><th>settled / unsettled decisions</th><th>still uncertain</th></tr>\n")
	p("<tr><td>%d</td><td>%d (%.1f%%)</td><td>%.1f%%</td><td>%.1f%%</td><td>%s</td><td>%s</td><td>%s</td><td>%d / %d</td><td>%d</td></tr>\n</table>\n",
		c.Rows, c.ResolvedByPrimary, 100*c.PrimaryResolved, 100*c.FallbackRate, 100*c.PrimaryFailureRate,
		esc(regionCell(c.AcceptedRegion)), esc(regionCell(c.EscalatedRows)), pCell(c.EndToEndAccuracy), c.SettledDecisions, c.UnsettledDecisions, c.StillUncertain)
	p("<p>Unsettled decisions by cause: %s.</p>\n", esc(causesText(c.UnsettledByCause)))
	if rt := c.Runtime; rt != nil {
		p("<p>Cascade runtime (<code>%s</code>), per estimate (per chunk for chunk relevance) unless it says calls:</p>\n", esc(rt.Escalator))
		p("<table><tr><th>escalations</th><th>estimates asked</th><th>cache hits</th><th>settled</th><th>abstained</th><th>fallback calls</th><th>call errors</th><th>shared calls</th><th>breaker trips</th><th>breaker at end</th></tr>\n")
		p("<tr><td>%d</td><td>%d</td><td>%d (%.1f%%)</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td></tr>\n</table>\n",
			rt.Escalations, rt.Requested, rt.CacheHits, 100*rt.CacheHitRate, rt.Settled, rt.Abstained, rt.FallbackCalls, rt.FallbackCallErrors,
			rt.Collapsed, rt.BreakerTrips, esc(rt.BreakerState))
		p("<table><tr><th>refused: budget</th><th>breaker open</th><th>deadline</th><th>concurrency</th><th>closed / cancelled</th><th>fallback failed</th><th>fallback abstained</th></tr>\n")
		p("<tr><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>\n</table>\n",
			rt.RefusedBudget, rt.RefusedBreaker, rt.RefusedDeadline, rt.RefusedConcurrency, rt.RefusedClosed+rt.Cancelled, rt.Failed, rt.FallbackAbstained)
		if n := rt.RefusedShare; n > 0 {
			p("<p>%d estimates were refused by the fallback share (cause <code>share</code>: their escalations were not admitted).</p>\n", n)
		}
	}
	if st := c.Settings; st != nil {
		p("<p>Cascade settings: %s.</p>\n", esc(cascadeSettingsText(st)))
	}
}

// claimsHTML writes the claims section: the counts, then the claims of the
// listed rows.
func claimsHTML(b *strings.Builder, c *report.Claims) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	esc := html.EscapeString
	ext := "an unknown claim extractor"
	if c.Extractor != "" {
		ext = "<code>" + esc(c.Extractor) + "</code>"
	}
	p("<h2>Claims (advanced groundedness)</h2>\n<p>The answers were split into claims by %s; each claim was judged on its own and a row's groundedness is its weakest claim's.</p>\n", ext)
	p("<table><tr><th>rows with claims</th><th>rows judged whole</th><th>claims judged</th><th>per row (mean / max)</th><th>pass</th><th>fail</th><th>uncertain</th><th>abstained</th><th>escalated</th><th>settled by fallback</th><th>rows with a failed claim</th><th>rows with only an uncertain one</th></tr>\n")
	p("<tr><td>%d</td><td>%d</td><td>%d</td><td>%.2f / %d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>\n</table>\n",
		c.RowsWithClaims, c.RowsWithoutClaims, c.Claims, c.PerRowMean, c.PerRowMax, c.ByVerdict["pass"], c.ByVerdict["fail"], c.ByVerdict["uncertain"],
		c.Abstained, c.Escalated, c.EscalatedSettled, c.RowsWithFailedClaim, c.RowsWithUncertainClaim)
	if len(c.Rows) == 0 {
		p("<p>No row has a failed or uncertain claim.</p>\n")
		return
	}
	p("<p>Claims of the first %d rows with a failed or uncertain claim (of %d; at most %d are listed; every row's claims are in its result):</p>\n",
		c.RowsListed, c.RowsWithFailedClaim+c.RowsWithUncertainClaim, c.ListLimit)
	p("<table><tr><th>row</th><th>groundedness (label)</th><th>claim</th><th>P</th><th>verdict</th><th>escalated</th></tr>\n")
	for _, row := range c.Rows {
		id := row.ID
		if id == "" {
			id = row.Pos.String()
		}
		n := len(row.Claims)
		for i, cl := range row.Claims {
			p("<tr>")
			if i == 0 {
				p(`<td rowspan="%d">%s</td><td rowspan="%d">%s %s (%s)</td>`, n, esc(id), n, pCell(row.Groundedness), esc(row.Verdict), labelCell(row.Label))
			}
			escd := ""
			if cl.Escalated {
				escd = "yes"
			}
			p(`<td style="text-align:left">%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`+"\n", esc(cl.Text), pCell(cl.P), esc(cl.Verdict), escd)
		}
	}
	p("</table>\n")
}

type curveSeries struct {
	name string
	pts  []calibrate.RiskPoint
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}

// plot geometry: a square plot area of side s at (x0, y0).
const (
	plotX0 = 46.0
	plotY0 = 12.0
)

func axes(b *strings.Builder, s float64, xLabel, yLabel string, yMax float64) {
	fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="#fafbfc" stroke="#8c959f"/>`, plotX0, plotY0, s, s)
	for i := 0; i <= 4; i++ {
		f := float64(i) / 4
		x := plotX0 + f*s
		y := plotY0 + s - f*s
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e1e4e8"/>`, x, plotY0, x, plotY0+s)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e1e4e8"/>`, plotX0, y, plotX0+s, y)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%.2g</text>`, x, plotY0+s+13, f)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="end">%.2g</text>`, plotX0-4, y+3, f*yMax)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">%s</text>`, plotX0+s/2, plotY0+s+28, html.EscapeString(xLabel))
	fmt.Fprintf(b, `<text x="12" y="%.1f" font-size="11" text-anchor="middle" transform="rotate(-90 12 %.1f)">%s</text>`, plotY0+s/2, plotY0+s/2, html.EscapeString(yLabel))
}

func reliabilitySVG(b *strings.Builder, bins []report.ReliabilityBin) {
	const s = 200.0
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img">`, plotX0+s+10, plotY0+s+36)
	axes(b, s, "mean predicted P", "fraction true", 1)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#8c959f" stroke-dasharray="4 3"/>`, plotX0, plotY0+s, plotX0+s, plotY0)
	maxCount := 0
	for _, bin := range bins {
		maxCount = max(maxCount, bin.Count)
	}
	var pts []string
	for _, bin := range bins {
		if bin.Count == 0 {
			continue
		}
		// Count histogram along the bottom.
		h := 0.25 * s * float64(bin.Count) / float64(maxCount)
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#9ecae1" opacity="0.6"/>`,
			plotX0+bin.Lower*s+1, plotY0+s-h, (bin.Upper-bin.Lower)*s-2, h)
		x, y := plotX0+bin.MeanP*s, plotY0+s-bin.FracPos*s
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="#d62728"><title>[%.2f, %.2f): n=%d, mean P %.3f, fraction true %.3f</title></circle>`,
			x, y, bin.Lower, bin.Upper, bin.Count, bin.MeanP, bin.FracPos)
	}
	if len(pts) > 1 {
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="#d62728" stroke-width="1.5"/>`, strings.Join(pts, " "))
	}
	b.WriteString("</svg>")
}

func riskCoverageSVG(b *strings.Builder, series []curveSeries) {
	const s = 320.0
	yMax := 0.0
	for _, c := range series {
		for _, pt := range c.pts {
			yMax = max(yMax, pt.Risk)
		}
	}
	yMax = niceCeil(yMax)
	legendW := 190.0
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img">`, plotX0+s+legendW, plotY0+s+36)
	axes(b, s, "coverage (share decided automatically)", "risk (error rate)", yMax)
	for i, c := range series {
		col := palette[i%len(palette)]
		var pts []string
		for _, pt := range c.pts {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", plotX0+pt.Coverage*s, plotY0+s-pt.Risk/yMax*s))
		}
		width := 1.5
		if i == 0 {
			width = 3
		}
		if len(pts) > 0 {
			fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%.1f"/>`, strings.Join(pts, " "), col, width)
		}
		ly := plotY0 + 10 + float64(i)*16
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`, plotX0+s+12, ly, plotX0+s+32, ly, col, width)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11">%s</text>`, plotX0+s+36, ly+4, html.EscapeString(c.name))
	}
	b.WriteString("</svg>")
}

// niceCeil rounds a positive risk up to 0.05, 0.1, 0.2, 0.5 or 1.
func niceCeil(v float64) float64 {
	for _, c := range []float64{0.05, 0.1, 0.2, 0.5} {
		if v <= c {
			return c
		}
	}
	return 1
}

func sweepSVG(b *strings.Builder, rows []report.SweepRow, fails, passes []float64) {
	const cell = 44.0
	w := plotX0 + cell*float64(len(passes)) + 10
	h := plotY0 + cell*float64(len(fails)) + 36
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img">`, w, h)
	at := map[[2]float64]report.SweepRow{}
	for _, r := range rows {
		at[[2]float64{r.Fail, r.Pass}] = r
	}
	for i, f := range fails {
		y := plotY0 + float64(i)*cell
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="end">%.2g</text>`, plotX0-4, y+cell/2+3, f)
		for j, q := range passes {
			x := plotX0 + float64(j)*cell
			r, ok := at[[2]float64{f, q}]
			if !ok {
				fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#eaeef2" stroke="#fff"/>`, x, y, cell, cell)
				continue
			}
			cov := r.AutoPassCoverage + r.AutoFailCoverage
			errRate := math.Max(r.AutoPassErrorRate, r.AutoFailErrorRate)
			fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" stroke="#fff"><title>fail ≤ %.2f, pass ≥ %.2f: auto-pass %.1f%% (error %.1f%%), auto-fail %.1f%% (error %.1f%%), fallback %.1f%%</title></rect>`,
				x, y, cell, cell, heat(cov), f, q, 100*r.AutoPassCoverage, 100*r.AutoPassErrorRate, 100*r.AutoFailCoverage, 100*r.AutoFailErrorRate, 100*r.FallbackCoverage)
			txt := "#1b1f24"
			if cov > 0.6 {
				txt = "#ffffff"
			}
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="%s">%.0f%%</text>`, x+cell/2, y+cell/2-2, txt, 100*cov)
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle" fill="%s">e%.0f%%</text>`, x+cell/2, y+cell/2+10, txt, 100*errRate)
		}
	}
	for j, q := range passes {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%.2g</text>`, plotX0+float64(j)*cell+cell/2, plotY0+float64(len(fails))*cell+13, q)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="middle">pass threshold</text>`, plotX0+cell*float64(len(passes))/2, h-4)
	fmt.Fprintf(b, `<text x="12" y="%.1f" font-size="11" text-anchor="middle" transform="rotate(-90 12 %.1f)">fail threshold</text>`, plotY0+cell*float64(len(fails))/2, plotY0+cell*float64(len(fails))/2)
	b.WriteString("</svg>")
}

// heat maps [0, 1] to a white-to-blue colour.
func heat(v float64) string {
	v = min(max(v, 0), 1)
	r := int(247 - v*(247-8))
	g := int(251 - v*(251-69))
	bl := int(255 - v*(255-148))
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}
