package render

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// Markdown renders the summary of a report. It has the input accounting and
// the diagnosis quality with its threshold table. Then come the decisions
// without a probability by cause, and per-decision quality and threshold
// tables. The cascade (with its unsettled decisions by cause) and the claims
// of claims mode follow when present. Latency, usage, cost and the
// reproducibility block close it.
func Markdown(r *report.Report) string {
	var w mdWriter
	w.header(r)
	w.input(&r.Input)
	w.diagnosis(r)
	w.decisions(&r.Decisions)
	if c := r.Cascade; c != nil {
		w.cascade(c)
	}
	estimatesMarkdown(&w.Builder, r)
	if fe := r.FallbackErrors; fe != nil {
		w.p("\n%s\n", fallbackErrorsText(fe, "`"))
	}
	if pr := r.Promise; pr != nil {
		w.promise(pr)
	}
	if c := r.Claims; c != nil {
		claimsMarkdown(&w.Builder, c)
	}
	w.costs(r)
	w.reproducibility(&r.Reproduce)
	return w.String()
}

// mdWriter builds the Markdown report, one section per method.
type mdWriter struct{ strings.Builder }

func (w *mdWriter) p(format string, a ...any) { fmt.Fprintf(&w.Builder, format, a...) }

// header writes the title and the partial-report and simulation notices.
func (w *mdWriter) header(r *report.Report) {
	p := w.p
	title := fmt.Sprintf("# ragtriage eval report: %s mode", r.Mode)
	if r.Partial {
		title += " (PARTIAL)"
	}
	p("%s\n\n", title)
	if r.Partial {
		p("**Partial report**: %s.\n\n", r.PartialReason)
	}
	if s := r.Simulation; s != nil {
		p("> **Simulated fallback.** The fallback judge `%s` is a simulation (%s): it reads the labels and is wrong at rate %.3g; it reports %.0f ms and %d+%d tokens per call (priced as `%s`), seed %d; unlabeled decisions: %s. Fallback quality, latency, tokens and cost below are simulated, not measured.\n\n",
			s.Judge, s.Version, s.ErrorRate, s.LatencyMs, s.InputTokens, s.OutputTokens, s.PricedAs, s.Seed, s.Unlabeled)
	}
}

// input writes the input accounting: files, then failures by kind.
func (w *mdWriter) input(in *report.Input) {
	p := w.p
	p("## Input\n\n%d rows read: %d evaluated, %d failed, %d not evaluated. %d rows carry labels; %d results list a judge failure.\n\n",
		in.RowsRead, in.RowsEvaluated, in.RowsFailed, in.RowsNotEvaluated, in.RowsLabeled, in.RowsWithJudgeErrors)
	p("| file | kind | lines | bad | SHA-256 |\n|---|---|---:|---:|---|\n")
	for _, f := range in.Files {
		p("| %s | %s | %d | %d | `%.16s…` |\n", f.Name, f.Kind, f.Lines, f.Bad, f.SHA256)
	}
	if in.FailuresTotal > 0 {
		p("\nFailures by kind: %s.", kinds(in.FailuresByKind))
		for _, f := range in.Failures[:min(10, len(in.Failures))] {
			p("\n- `%s` %s: %s", f.Pos, f.Kind, f.Reason)
		}
		if in.FailuresTotal > 10 {
			p("\n- … %d more (see the JSON report)", in.FailuresTotal-10)
		}
		p("\n")
	}
}

// diagnosis writes the diagnosis quality: the summary, the per-file
// accuracy, the threshold table, the per-label scores, the confusion matrix,
// routes and actions, and the decisions without a probability.
func (w *mdWriter) diagnosis(r *report.Report) {
	p := w.p
	d, in := &r.Diagnosis, &r.Input
	p("\n## Diagnosis\n\n")
	p("| labeled rows | successful | failures | accuracy | successful accuracy | overall accuracy | success rate | AURC |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	p("| %d | %d | %d | %s | %s | %s | %s | %s |\n\n", d.Attempted, d.Successful, d.Failures, pCell(d.Accuracy), pCell(d.SuccessfulAccuracy), pCell(d.OverallAccuracy), pCell(d.SuccessRate), pCell(d.Selective.AURC))
	if len(in.PerFile) > 1 {
		p("| file | rows | diagnosis labels | accuracy |\n|---|---:|---:|---:|\n")
		for _, f := range in.PerFile {
			p("| %s | %d | %d | %s |\n", f.File, f.Rows, f.Labeled, pCell(f.Accuracy))
		}
		p("\n")
	}
	p("Threshold table: a row is decided automatically when the guard routes it `auto` with diagnosis confidence ≥ the threshold; an error is a diagnosis other than the label. Upper bound: Clopper–Pearson at %.0f%%.\n\n", 100*r.Settings.Confidence)
	thresholdTable(&w.Builder, d.Selective.Thresholds)
	p("\n| label | support | predicted | precision | recall | F1 |\n|---|---:|---:|---:|---:|---:|\n")
	for _, l := range d.PerLabel {
		if l.Support == 0 && l.Predicted == 0 {
			continue
		}
		p("| %s | %d | %d | %.3f | %.3f | %.3f |\n", l.Label, l.Support, l.Predicted, l.Precision, l.Recall, l.F1)
	}
	w.confusion(d)
	p("\nRoutes: %s. Actions: %s.\n", kinds(d.Routes), kinds(d.Actions))
	p("\nDecisions without a probability: %d (by cause: %s).\n", r.Abstentions.Total, causesText(r.Abstentions.ByCause))
}

// confusion writes the confusion matrix over the labels that occur.
func (w *mdWriter) confusion(d *report.Diagnosis) {
	p := w.p
	p("\nConfusion matrix (rows: label, columns: diagnosis; labels that never occur are left out):\n\n")
	var used []int
	for i := range d.Labels {
		if d.PerLabel[i].Support > 0 || d.PerLabel[i].Predicted > 0 {
			used = append(used, i)
		}
	}
	p("| label \\ diagnosis |")
	for _, j := range used {
		p(" %s |", short(d.Labels[j]))
	}
	p("\n|---|%s\n", strings.Repeat("---:|", len(used)))
	for _, i := range used {
		p("| %s |", d.Labels[i])
		for _, j := range used {
			p(" %d |", d.Confusion[i][j])
		}
		p("\n")
	}
}

// decisions writes, for each stage, the per-decision quality table and
// each decided decision's one-sided threshold table.
func (w *mdWriter) decisions(ds *report.Decisions) {
	p := w.p
	for _, stage := range []struct {
		name string
		ds   []report.Decision
	}{{"Retrieval decisions", ds.Retrieval}, {"Generation decisions", ds.Generation}} {
		p("\n## %s\n\n", stage.name)
		p("| decision | labels | n | abstained | accuracy | AUROC | Brier | ECE | AURC | policy fail / pass | policy coverage | auto-pass errors | auto-fail errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n")
		for _, dr := range stage.ds {
			auc := "n/a"
			if dr.AUROC != nil {
				auc = fmt.Sprintf("%.3f", *dr.AUROC)
			}
			if dr.N == 0 {
				p("| %s | %d | 0 | %d | – | – | – | – | – | %s | – | – | – |\n", dr.Decision, dr.Labeled, dr.Abstained, thresholdsText(dr.Policy))
				continue
			}
			p("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %.1f%% | %d/%d | %d/%d |\n",
				dr.Decision, dr.Labeled, dr.N, dr.Abstained, pCell(dr.Accuracy), auc, pCell(dr.Brier), pCell(dr.ECE), pCell(dr.AURC),
				thresholdsText(dr.Policy), 100*dr.Policy.Coverage,
				dr.Policy.AutoPass.Errors, dr.Policy.AutoPass.Count, dr.Policy.AutoFail.Errors, dr.Policy.AutoFail.Count)
		}
		for _, dr := range stage.ds {
			if dr.N == 0 {
				continue
			}
			p("\n### %s\n\nDecided when max(P, 1−P) ≥ threshold (P ≥ t: true, P ≤ 1−t: false).\n\n", dr.Decision)
			thresholdTable(&w.Builder, dr.OneSided)
		}
	}
}

// cascade writes the cascade's summary, its unsettled decisions by cause,
// its runtime counters and its settings.
func (w *mdWriter) cascade(c *report.Cascade) {
	p := w.p
	p("\n## Cascade\n\n| rows | resolved by primary | fallback rate | primary failure rate | accepted-region error | escalated-row error | end-to-end accuracy | settled / unsettled decisions | still uncertain |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	p("| %d | %d (%.1f%%) | %.1f%% | %.1f%% | %s | %s | %s | %d / %d | %d |\n", c.Rows, c.ResolvedByPrimary, 100*c.PrimaryResolved,
		100*c.FallbackRate, 100*c.PrimaryFailureRate, regionCell(c.AcceptedRegion), regionCell(c.EscalatedRows), pCell(c.EndToEndAccuracy),
		c.SettledDecisions, c.UnsettledDecisions, c.StillUncertain)
	p("\nUnsettled decisions by cause: %s.\n", causesText(c.UnsettledByCause))
	if rt := c.Runtime; rt != nil {
		p("\nCascade runtime (`%s`, its counters at the end of the run; estimates are per decision, per chunk for chunk relevance):\n\n", rt.Escalator)
		p("| escalations | estimates asked | cache hits | settled | abstained | fallback calls | call errors | shared calls | breaker trips | breaker at end | refused: budget | breaker | deadline | concurrency | failed | fallback abstained |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n")
		p("| %d | %d | %d (%.1f%%) | %d | %d | %d | %d | %d | %d | %s | %d | %d | %d | %d | %d | %d |\n", rt.Escalations, rt.Requested, rt.CacheHits, 100*rt.CacheHitRate,
			rt.Settled, rt.Abstained, rt.FallbackCalls, rt.FallbackCallErrors, rt.Collapsed, rt.BreakerTrips, rt.BreakerState,
			rt.RefusedBudget, rt.RefusedBreaker, rt.RefusedDeadline, rt.RefusedConcurrency, rt.Failed, rt.FallbackAbstained)
		if n := rt.RefusedShare; n > 0 {
			p("\n%d estimates were refused by the fallback share (cause `share`: their escalations were not admitted).\n", n)
		}
		if n := rt.RefusedClosed + rt.Cancelled; n > 0 {
			p("\n%d estimates abstained because the cascade was closed or the request ended first.\n", n)
		}
	}
	if st := c.Settings; st != nil {
		p("\nCascade settings: %s.\n", cascadeSettingsText(st))
	}
}

// costs writes latency, usage and cost per leg, and the prices used.
func (w *mdWriter) costs(r *report.Report) {
	p := w.p
	l := &r.Latency
	p("\n## Latency, usage and cost\n\n| leg | rows | p50 ms | p95 ms | calls | input tokens | output tokens | retries | cost |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	leg := func(name string, pc report.Percentiles, u *report.LegUsage, c report.LegCost) {
		retries := "–"
		if u != nil && u.Retries != nil {
			retries = fmt.Sprint(*u.Retries)
		}
		if u == nil {
			p("| %s | %d | %.3f | %.3f | | | | | %s |\n", name, pc.N, pc.P50, pc.P95, costCell(c, r.Cost.Currency))
			return
		}
		p("| %s | %d | %.3f | %.3f | %d | %d | %d | %s | %s |\n", name, pc.N, pc.P50, pc.P95, u.Calls, u.InputTokens, u.OutputTokens, retries, costCell(c, r.Cost.Currency))
	}
	leg("primary", l.Primary, &r.Usage.Primary, r.Cost.Primary)
	leg("fallback", l.Fallback, &r.Usage.Fallback, r.Cost.Fallback)
	leg("combined", l.Combined, nil, r.Cost.Total)
	if r.Cost.PricingVersion != "" {
		p("\nPrices: snapshot %s (%s).", r.Cost.PricingVersion, r.Cost.Currency)
	}
	if r.Cost.PerThousandRows != nil {
		p(" Cost per 1000 rows: %.4f %s.", *r.Cost.PerThousandRows, r.Cost.Currency)
	}
	p(" Latency measured on this machine: %s.\n", strings.Join(l.Measured, ", "))
}

// reproducibility writes what the report was computed with.
func (w *mdWriter) reproducibility(rp *report.Reproducibility) {
	p := w.p
	p("\n## Reproducibility\n\n")
	p("- timestamp: %s\n- decision variant: %s\n", rp.Timestamp, rp.DecisionVariant)
	for _, s := range rp.DecisionSets {
		p("- decision set: `%s` %s (%s), %d rows\n", s.ID, s.Version, s.Variant, s.Rows)
	}
	p("- diagnosis rules: %s\n", strings.Join(rp.DiagnosisVersions, ", "))
	var js []string
	for n, v := range rp.Judges {
		js = append(js, fmt.Sprintf("`%s` %s", n, v))
	}
	sort.Strings(js)
	p("- judges: %s\n", strings.Join(js, ", "))
	if rp.ProfileVersion != "" {
		p("- profile: %s\n", rp.ProfileVersion)
	}
	if x := rp.ClaimExtractor; x != nil {
		p("- claim extractor: `%s` %s\n", x.Name, x.Version)
	}
	if rp.SelectionHash != "" {
		p("- fallback selection hash: `%s`\n", rp.SelectionHash)
	}
	if rp.PricingVersion != "" {
		p("- pricing: %s\n", rp.PricingVersion)
	}
	if len(rp.Command) > 0 {
		p("- command: `%s`\n", strings.Join(rp.Command, " "))
	}
	p("- Go %s, %d modules in the build\n", rp.GoVersion, len(rp.Modules))
}

// claimsMarkdown writes the claims section: the counts, then the claims of
// the listed rows.
func claimsMarkdown(b *strings.Builder, c *report.Claims) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	ext := "an unknown claim extractor"
	if c.Extractor != "" {
		ext = "`" + c.Extractor + "`"
	}
	p("\n## Claims (advanced groundedness)\n\nThe answers were split into claims by %s; each claim was judged on its own and a row's groundedness is its weakest claim's.\n\n", ext)
	p("| rows with claims | rows judged whole | claims judged | per row (mean / max) | pass | fail | uncertain | abstained | escalated | settled by fallback | rows with a failed claim | rows with only an uncertain one |\n|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	p("| %d | %d | %d | %.2f / %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", c.RowsWithClaims, c.RowsWithoutClaims, c.Claims, c.PerRowMean, c.PerRowMax,
		c.ByVerdict["pass"], c.ByVerdict["fail"], c.ByVerdict["uncertain"], c.Abstained, c.Escalated, c.EscalatedSettled,
		c.RowsWithFailedClaim, c.RowsWithUncertainClaim)
	if c.RowsWithoutClaims > 0 {
		p("\n%d rows were judged on the whole answer (the extractor failed or found no claim; their results list why).\n", c.RowsWithoutClaims)
	}
	if len(c.Rows) == 0 {
		p("\nNo row has a failed or uncertain claim.\n")
		return
	}
	p("\nClaims of the first %d rows with a failed or uncertain claim (of %d; at most %d are listed; every row's claims are in its result):\n\n",
		c.RowsListed, c.RowsWithFailedClaim+c.RowsWithUncertainClaim, c.ListLimit)
	p("| row | groundedness (label) | claim | P | verdict | escalated |\n|---|---|---|---:|---|---|\n")
	for _, row := range c.Rows {
		id := row.ID
		if id == "" {
			id = row.Pos.String()
		}
		g := fmt.Sprintf("%s %s (%s)", pCell(row.Groundedness), row.Verdict, labelCell(row.Label))
		for i, cl := range row.Claims {
			if i > 0 {
				id, g = "", ""
			}
			esc := ""
			if cl.Escalated {
				esc = "yes"
			}
			p("| %s | %s | %s | %s | %s | %s |\n", mdCell(id), g, mdCell(cl.Text), pCell(cl.P), cl.Verdict, esc)
		}
	}
}

// fallbackErrorsText describes the fallback's calls and failures in one
// paragraph, quoting the errors between the quote marks given.
func fallbackErrorsText(fe *report.FallbackErrors, quote string) string {
	if fe.Failed == 0 {
		return fmt.Sprintf("Fallback calls: %d made, none failed.", fe.Calls)
	}
	s := fmt.Sprintf("Fallback calls: %d made, %d failed (%d with no HTTP response), %s of them; the calls gave %d estimates.",
		fe.Calls, fe.Failed, fe.Transport, pctCell(fe.FailedRate), fe.Estimates)
	if len(fe.Errors) > 0 {
		qs := make([]string, len(fe.Errors))
		for i, e := range fe.Errors {
			qs[i] = quote + strings.ReplaceAll(e, quote, "'") + quote
		}
		s += " First errors: " + strings.Join(qs, "; ") + "."
	}
	return s
}

// pctCell writes a rate as a percentage, or n/a when there is none.
func pctCell(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**p)
}

// pCell writes a probability (or an accuracy), or n/a when there is none.
func pCell(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.3f", *p)
}

func labelCell(y *bool) string {
	switch {
	case y == nil:
		return "unlabeled"
	case *y:
		return "label: grounded"
	}
	return "label: ungrounded"
}

// mdCell makes text safe inside a Markdown table cell: one line, pipes
// escaped, at most 300 characters.
func mdCell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// cascadeSettingsText describes the cascade's settings in one line.
func cascadeSettingsText(st *report.CascadeSettings) string {
	waiting := "no bound on calls waiting for a slot"
	switch {
	case st.MaxWaiting < 0:
		waiting = "no call waits for a slot"
	case st.MaxWaiting > 0:
		waiting = fmt.Sprintf("at most %d waiting for a slot", st.MaxWaiting)
	}
	cache := fmt.Sprintf("cache of %d estimates", st.CacheSize)
	if st.CacheSize == 0 {
		cache = "no cache"
	}
	budget := "no budget"
	if st.BudgetCalls > 0 || st.BudgetTokens > 0 {
		var caps []string
		if st.BudgetCalls > 0 {
			caps = append(caps, fmt.Sprintf("%d calls", st.BudgetCalls))
		}
		if st.BudgetTokens > 0 {
			caps = append(caps, fmt.Sprintf("%d tokens", st.BudgetTokens))
		}
		budget = fmt.Sprintf("budget of %s per %s", strings.Join(caps, " and "), msText(st.BudgetWindowMs))
	}
	return fmt.Sprintf("%d calls at once, %s, %s per call, %s, breaker opens after %d consecutive failures for %s, %s",
		st.MaxConcurrent, waiting, msText(st.CallTimeoutMs), cache, st.BreakerFailures, msText(st.BreakerCooldownMs), budget)
}

// msText writes milliseconds as a Go duration ("30s", "1m0s", "250ms").
func msText(ms float64) string {
	return time.Duration(ms * float64(time.Millisecond)).String()
}

func thresholdTable(b *strings.Builder, rows []report.ThresholdRow) {
	fmt.Fprintf(b, "| threshold | coverage | accepted errors | error rate | error upper bound | review |\n|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range rows {
		fmt.Fprintf(b, "| %.2f | %.1f%% (%d) | %d | %.1f%% | %.1f%% | %.1f%% |\n", t.Threshold, 100*t.Coverage, t.Accepted, t.Errors, 100*t.ErrorRate, 100*t.UpperBound, 100*t.Review)
	}
}

func regionCell(r report.RegionStats) string {
	if r.Count == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*r.ErrorRate, r.Errors, r.Count)
}

func costCell(c report.LegCost, cur string) string {
	if c.Amount == nil {
		return "unavailable"
	}
	return fmt.Sprintf("%.4f %s", *c.Amount, cur)
}

func kinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// causesText lists the non-zero counts of a by-cause map in guard.Causes
// order, then CauseUnrecorded, then names this version does not know
// (sorted): "budget 3, deadline 1", or "none".
func causesText(m map[string]int) string {
	var parts []string
	seen := map[string]bool{}
	add := func(k string) {
		seen[k] = true
		if n := m[k]; n != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
	}
	for _, c := range guard.Causes {
		add(string(c))
	}
	add(report.CauseUnrecorded)
	var other []string
	for k := range m {
		if !seen[k] {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		add(k)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// short abbreviates a diagnosis code for a table header.
func short(s string) string {
	switch s {
	case "CONFLICTING_EVIDENCE":
		return "CONFLICT"
	case "RETRIEVAL_MISS":
		return "MISS"
	case "RETRIEVAL_INSUFFICIENT":
		return "INSUFF"
	case "ANSWER_IRRELEVANT":
		return "IRREL"
	case "GENERATOR_UNGROUNDED":
		return "UNGROUNDED"
	case "ANSWER_INCORRECT":
		return "INCORRECT"
	case "JUDGE_UNCERTAIN":
		return "UNCERTAIN"
	}
	return s
}

// thresholdsText writes a policy's two thresholds, "undecided" for a side
// that is undecided by policy.
func thresholdsText(po report.PolicyOutcome) string {
	f, p := fmt.Sprintf("%.3f", po.Fail), fmt.Sprintf("%.3f", po.Pass)
	if po.NoFail {
		f = "undecided"
	}
	if po.NoPass {
		p = "undecided"
	}
	return f + " / " + p
}
