package render

import (
	"fmt"
	"html"
	"strings"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

// promiseSummary says in one sentence what the promise monitor tested and
// whether it tripped.
func promiseSummary(pr *report.Promise) string {
	s := fmt.Sprintf("Promise monitor (promise %s): per decision side, \"the embedded verdicts disagree with the teacher at most %.3g\", tested with a %s, prior Beta(%g, %g) on [alpha, 1]; %d of %d rows audited.",
		pr.Promise, pr.Alpha, pr.Test, pr.PriorA, pr.PriorB, pr.AuditedRows, pr.Rows)
	if len(pr.Trips) == 0 {
		return s + " It did not trip."
	}
	var where []string
	for _, t := range pr.Trips {
		where = append(where, fmt.Sprintf("%s %s at row %d (%d audited rows; %d disagreements in %d audits, e-value %.3g)",
			t.Decision, t.Side, t.Row, t.AuditedRows, t.Disagreements, t.Audits, t.EValue))
	}
	return s + " It tripped: " + strings.Join(where, "; ") + ". A tripped side's verdicts were withheld from the next row on (cause promise_broken: those rows escalated)."
}

// promiseHeader and promiseRow are the columns of the sides table.
var promiseHeader = []string{"decision", "side", "audits", "disagreements", "e-value", "tripped at row",
	"auto verdicts before", "wrong before (of labelled)", "auto verdicts after", "wrong after (of labelled)", "withheld"}

func promiseRow(s report.PromiseSide) []string {
	trip := "—"
	if s.TripRow > 0 {
		trip = fmt.Sprint(s.TripRow)
	} else if s.Tripped {
		trip = "yes"
	}
	return []string{s.Decision, s.Side, fmt.Sprint(s.Audits), fmt.Sprint(s.Disagreements), fmt.Sprintf("%.3g", s.EValue), trip,
		fmt.Sprint(s.Before.Verdicts), fmt.Sprintf("%d (of %d)", s.Before.Wrong, s.Before.Labelled),
		fmt.Sprint(s.After.Verdicts), fmt.Sprintf("%d (of %d)", s.After.Wrong, s.After.Labelled), fmt.Sprint(s.Withheld)}
}

func (w *mdWriter) promise(pr *report.Promise) {
	w.p("\n## Promise monitor\n\n%s\n", promiseSummary(pr))
	if len(pr.Sides) == 0 {
		return
	}
	w.p("\n| %s |\n|%s\n", strings.Join(promiseHeader, " | "), strings.Repeat("---|", len(promiseHeader)))
	for _, s := range pr.Sides {
		w.p("| %s |\n", strings.Join(promiseRow(s), " | "))
	}
}

func promiseHTML(b *strings.Builder, pr *report.Promise) {
	fmt.Fprintf(b, "<h2>Promise monitor</h2>\n<p>%s</p>\n", html.EscapeString(promiseSummary(pr)))
	if len(pr.Sides) == 0 {
		return
	}
	b.WriteString("<table><tr>")
	for _, h := range promiseHeader {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr>\n")
	for _, s := range pr.Sides {
		b.WriteString("<tr>")
		for _, c := range promiseRow(s) {
			fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}
