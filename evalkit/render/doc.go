// Package render renders a replay's report (package
// [github.com/ragtriage/ragtriage/evalkit/report]) for people: [Markdown]
// for a pull request or a terminal, [HTML] as one self-contained page with
// inline SVG charts (reliability diagram, threshold sweep) and no scripts or
// external resources.
//
// It is the "presentation" job of the offline kit: it reads a
// report.Report and nothing else, computes no metric, and changes when the
// way a report reads changes (the report's model and schema change in
// package report). A metric the report leaves null (an accuracy over no
// labelled row) shows as "n/a", never 0; a cost without a price says it is
// unavailable.
//
//	rep, err := report.ReadReport("report.json")
//	os.WriteFile("report.md", []byte(render.Markdown(rep)), 0o644)
//	os.WriteFile("report.html", []byte(render.HTML(rep)), 0o644)
package render
