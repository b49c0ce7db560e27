// Package report is the report of an offline replay: its model (the JSON
// schema, [ReportSchema], documented field by field in
// docs/report-schema.md), how it is read back ([ReadReport]), priced
// ([Pricing], [PriceUsage]; [DefaultPricing] is built in), gated against a
// baseline ([Compare], [CheckFallbackErrors]); package
// [github.com/ragtriage/ragtriage/evalkit/render] renders it as Markdown and
// HTML.
//
// It is the "report out" job of the offline kit: package evalkit runs the
// replay and fills a [Report]; this package neither reads datasets nor
// judges. Its rules: an accuracy over no labelled row is null, never 0; a
// cost without a price is "unavailable", never 0; the gate fails closed (no
// labelled rows, a metric gone, a row count changed beyond tolerance are
// failures).
//
//	base, err := report.ReadReport("baseline.json")
//	cur, err := report.ReadReport("report.json")
//	g := report.Compare(base, cur, report.GateOptions{MaxDrop: 0.02})
//	if g.Failed() { … } // regressions or problems: exit 1
package report
