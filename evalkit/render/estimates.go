package render

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// estimateRow is one line of the traffic estimates: a decision or a
// diagnosis.
type estimateRow struct {
	name    string
	share   *float64
	iv      report.Interval
	labeled *float64 // the labeled share, when there are labels
}

// estimateRows lists the report's estimates: decisions in guard order, then
// diagnoses in guard order (unknown names last, sorted).
func estimateRows(r *report.Report) (decisions, diagnoses []estimateRow) {
	for _, d := range guard.Decisions {
		if e := r.Estimates[d.JSONKey()]; e != nil {
			decisions = append(decisions, estimateRow{d.JSONKey(), e.FailShare, e.Interval, e.LabeledFailShare})
		}
	}
	var names []string
	for n := range r.EstimatesByDiagnosis {
		names = append(names, n)
	}
	order := func(n string) int {
		if i := slices.Index(guard.Diagnoses, guard.Diagnosis(n)); i >= 0 {
			return i
		}
		return len(guard.Diagnoses)
	}
	slices.SortFunc(names, func(a, b string) int {
		if oa, ob := order(a), order(b); oa != ob {
			return oa - ob
		}
		return strings.Compare(a, b)
	})
	for _, n := range names {
		e := r.EstimatesByDiagnosis[n]
		diagnoses = append(diagnoses, estimateRow{n, e.Share, e.Interval, nil})
	}
	return decisions, diagnoses
}

func intervalText(row estimateRow) (share, ci string) {
	if !row.iv.Available || row.share == nil {
		return "unavailable", "—"
	}
	return fmt.Sprintf("%.1f%%", 100**row.share), fmt.Sprintf("%.1f%% – %.1f%%", 100**row.iv.Low, 100**row.iv.High)
}

// estimatesMarkdown writes the traffic estimates and the cascade's catch.
func estimatesMarkdown(b *strings.Builder, r *report.Report) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if c := r.Cascade; c != nil && c.Catch != nil {
		k := c.Catch
		p("\n## What the fallback calls caught\n\n| fallback calls | of rows | ungrounded answers caught (labels) | random admission, same share | caught, by the estimate |\n|---:|---:|---:|---:|---:|\n")
		p("| %d | %.1f%% | %s | %s | %s |\n", k.FallbackCalls, 100*k.CallShare, caughtCell(k.CaughtShare, k.LabeledFailCaught, k.LabeledFail), pctCell(k.RandomCaughtShare), pctCell(k.EstimatedCaughtShare))
		p("\n%d of %d escalated rows were sent to the fallback; it called %d of them ungrounded.\n", k.Admitted, k.Escalated, k.FailCaught)
	}
	decs, diags := estimateRows(r)
	if len(decs) == 0 && len(diags) == 0 {
		return
	}
	p("\n## Traffic estimates\n\nThe share of all answers whose final verdict is fail (the fallback's where the embedded judges were uncertain), estimated from the fallback's sample with its inclusion probabilities (`%s`; docs/estimates.md).\n\n", r.EstimateMethod)
	p("| decision | fail share | 95%% interval | observed / rows | sampled | labeled fail share | note |\n|---|---:|---|---:|---:|---:|---|\n")
	for _, row := range decs {
		s, ci := intervalText(row)
		p("| %s | %s | %s | %d / %d | %d | %s | %s |\n", row.name, s, ci, row.iv.N, row.iv.Rows, row.iv.Sampled, pctCell(row.labeled), mdCell(row.iv.Reason))
	}
	if len(diags) > 0 {
		p("\n| diagnosis | share | 95%% interval | observed / rows | sampled | note |\n|---|---:|---|---:|---:|---|\n")
		for _, row := range diags {
			s, ci := intervalText(row)
			p("| %s | %s | %s | %d / %d | %d | %s |\n", row.name, s, ci, row.iv.N, row.iv.Rows, row.iv.Sampled, mdCell(row.iv.Reason))
		}
	}
}

func caughtCell(share *float64, caught, of int) string {
	if share == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%% (%d of %d)", 100**share, caught, of)
}

// estimatesHTML writes the same, with a plot of the intervals.
func estimatesHTML(b *strings.Builder, r *report.Report) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	esc := html.EscapeString
	if c := r.Cascade; c != nil && c.Catch != nil {
		k := c.Catch
		p("<h2>What the fallback calls caught</h2>\n<table><tr><th>fallback calls</th><th>of rows</th><th>ungrounded answers caught (labels)</th><th>random admission, same share</th><th>caught, by the estimate</th></tr>\n")
		p("<tr><td>%d</td><td>%.1f%%</td><td>%s</td><td>%s</td><td>%s</td></tr>\n</table>\n", k.FallbackCalls, 100*k.CallShare,
			esc(caughtCell(k.CaughtShare, k.LabeledFailCaught, k.LabeledFail)), pctCell(k.RandomCaughtShare), pctCell(k.EstimatedCaughtShare))
	}
	decs, diags := estimateRows(r)
	if len(decs) == 0 && len(diags) == 0 {
		return
	}
	p("<h2>Traffic estimates</h2>\n<p>The share of all answers whose final verdict is fail, from the fallback's sample and its inclusion probabilities (%s). Points are estimates, bars 95%% intervals, diamonds the labeled share.</p>\n", esc(r.EstimateMethod))
	intervalsSVG(b, append(decs, diags...))
	p("<table><tr><th>decision or diagnosis</th><th>share</th><th>95%% interval</th><th>observed / rows</th><th>sampled</th><th>note</th></tr>\n")
	for _, row := range append(decs, diags...) {
		s, ci := intervalText(row)
		p("<tr><td>%s</td><td>%s</td><td>%s</td><td>%d / %d</td><td>%d</td><td>%s</td></tr>\n", esc(row.name), s, esc(ci), row.iv.N, row.iv.Rows, row.iv.Sampled, esc(row.iv.Reason))
	}
	p("</table>\n")
}

// intervalsSVG plots one horizontal interval per available row on a 0–1
// axis.
func intervalsSVG(b *strings.Builder, rows []estimateRow) {
	var avail []estimateRow
	for _, r := range rows {
		if r.iv.Available && r.share != nil {
			avail = append(avail, r)
		}
	}
	if len(avail) == 0 {
		return
	}
	const x0, w, rowH, top = 210.0, 360.0, 22.0, 10.0
	h := top + rowH*float64(len(avail)) + 30
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img">`, x0+w+20, h)
	for i := 0; i <= 4; i++ {
		x := x0 + float64(i)/4*w
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#e1e4e8"/>`, x, top, x, h-24)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle">%.0f%%</text>`, x, h-10, float64(i)*25)
	}
	for i, r := range avail {
		y := top + rowH*(float64(i)+0.5)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="11" text-anchor="end">%s</text>`, x0-8, y+4, html.EscapeString(r.name))
		lo, hi := x0+*r.iv.Low*w, x0+*r.iv.High*w
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#1f77b4" stroke-width="3"/>`, lo, y, hi, y)
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="#d62728"><title>%s: %.1f%% (%.1f%% – %.1f%%), %d observed of %d</title></circle>`,
			x0+*r.share*w, y, html.EscapeString(r.name), 100**r.share, 100**r.iv.Low, 100**r.iv.High, r.iv.N, r.iv.Rows)
		if r.labeled != nil {
			x := x0 + *r.labeled*w
			fmt.Fprintf(b, `<path d="M%.1f %.1fl5 5l-5 5l-5 -5z" fill="none" stroke="#2ca02c" stroke-width="1.5"><title>labeled: %.1f%%</title></path>`, x, y-5, 100**r.labeled)
		}
	}
	b.WriteString("</svg>\n")
}
