package evalkit

import (
	"context"
	"fmt"

	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// drawsAcc counts the teacher draws of a run (report.Draws).
type drawsAcc struct {
	rows, drawn, taught, answered, refused, notTaught, fromPrimary int
	sides, disagree                                                int
	byKind, byCause                                                map[string]int
	usage                                                          guard.Usage
}

// add counts one row's draw and teacher.
func (d *drawsAcc) add(o *outcome) {
	r := &o.res
	if r.Draw == nil {
		return
	}
	if d.byKind == nil {
		d.byKind, d.byCause = map[string]int{}, map[string]int{}
	}
	d.rows++
	if !r.Draw.Drawn {
		return
	}
	d.drawn++
	d.byKind[string(r.Draw.Kind)]++
	t := r.Teacher
	if t == nil {
		d.notTaught++
		return
	}
	d.taught++
	d.usage = d.usage.Add(t.Usage)
	if t.FromPrimary {
		d.fromPrimary++
	}
	switch {
	case t.Cause == "":
		d.answered++
	default:
		d.byCause[string(t.Cause)]++
		if t.Refused() {
			d.refused++
		}
	}
	if r.Draw.Kind == guard.DrawAudit {
		for _, a := range guard.AuditOutcomes(r) {
			d.sides++
			if a.Disagree {
				d.disagree++
			}
		}
	}
}

// report returns the draws block, or nil when no row had a draw and none
// were configured.
func (d *drawsAcc) report(cfg *guard.Draws) *report.Draws {
	if cfg == nil && d.rows == 0 {
		return nil
	}
	r := &report.Draws{Rows: d.rows, Drawn: d.drawn, ByKind: d.byKind, Taught: d.taught, Answered: d.answered,
		ByCause: d.byCause, Refused: d.refused, NotTaught: d.notTaught, FromPrimary: d.fromPrimary,
		AuditSides: d.sides, Disagreements: d.disagree,
		TeacherUsage: report.TokenUsage{InputTokens: d.usage.InputTokens, OutputTokens: d.usage.OutputTokens, Calls: d.usage.Calls}}
	if cfg != nil {
		r.Explore, r.Audit, r.Seed = cfg.Explore, cfg.Audit, cfg.Seed
	}
	if r.ByKind == nil {
		r.ByKind, r.ByCause = map[string]int{}, map[string]int{}
	}
	return r
}

// writeRecord writes one row's record to cfg.Records: the row's ID, the
// result as the middleware's sink writes it (without user text unless
// cfg.RecordsContent), its legs and the sample's metadata.
func writeRecord(cfg *Config, o *outcome) {
	it := &o.item
	id := it.ID
	if id == "" && it.Sample != nil {
		id = it.Sample.ID
	}
	if id == "" {
		id = fmt.Sprintf("%s:%d", it.Pos.File, it.Pos.Line)
	}
	rec := &record.Record{Version: record.Version, ID: id, Time: cfg.Now()}
	var fb guard.Usage
	if o.res.Fallback != nil {
		fb = o.res.Fallback.Usage
	}
	rec.Legs = record.Legs(&o.res, fb)
	if cfg.RecordsContent && it.Sample != nil {
		rec.Result = o.res
		rec.Result.Estimates = nil
		rec.Sample = record.NewSample(it.Sample)
	} else {
		rec.Result = record.WithoutText(&o.res)
	}
	if it.Sample != nil {
		rec.Metadata = it.Sample.Metadata
	}
	// Errors are the writer's to count (record.Writer.Counts).
	cfg.Records.WriteRecord(context.Background(), rec) //nolint:errcheck
}
