package middleware

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// estimateDecisions are the decisions the estimate metrics cover: every
// answer-level one (chunk relevance is per context).
var estimateDecisions = guard.Decisions[1:]

// estimateInstruments are the traffic-estimate counters (docs/estimates.md).
type estimateInstruments struct {
	rows, unusable    metric.Int64Counter
	weight, variance  metric.Float64Counter
	attrs             [8]metric.MeasurementOption // by decision
	noIncl, unsettled [8]metric.MeasurementOption
}

func (in *estimateInstruments) init(m metric.Meter) error {
	var err, e error
	in.rows, e = m.Int64Counter(otelkeys.MetricEstimateRows,
		metric.WithDescription("Answers with a verdict for the decision: the population of the traffic estimate."), metric.WithUnit("{answer}"))
	err = errors.Join(err, e)
	in.weight, e = m.Float64Counter(otelkeys.MetricEstimateFailWeight,
		metric.WithDescription("Sum of 1/inclusion probability over answers whose final verdict is fail: the Horvitz-Thompson total of failing answers."))
	err = errors.Join(err, e)
	in.variance, e = m.Float64Counter(otelkeys.MetricEstimateFailVariance,
		metric.WithDescription("Sum of (1-p)/p^2 over answers whose final verdict is fail (p: inclusion probability): the variance estimate of the total."))
	err = errors.Join(err, e)
	in.unusable, e = m.Int64Counter(otelkeys.MetricEstimateUnusable,
		metric.WithDescription("Answers the traffic estimate cannot count: escalated without an inclusion probability, or unsettled in the fallback's sample."), metric.WithUnit("{answer}"))
	err = errors.Join(err, e)
	for _, d := range estimateDecisions {
		a := attribute.String(otelkeys.EstimateDecision, d.String())
		in.attrs[d] = metric.WithAttributeSet(attribute.NewSet(a))
		in.noIncl[d] = metric.WithAttributeSet(attribute.NewSet(a, attribute.String(otelkeys.EstimateReason, record.UnknownInclusion)))
		in.unsettled[d] = metric.WithAttributeSet(attribute.NewSet(a, attribute.String(otelkeys.EstimateReason, record.UnknownUnsettled)))
	}
	return err
}

// observe adds one result to the estimate counters.
func (in *estimateInstruments) observe(ctx context.Context, r *guard.Result) {
	if in.rows == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, d := range estimateDecisions {
		o := record.Observe(r, d)
		if !o.Counted {
			continue
		}
		in.rows.Add(ctx, 1, in.attrs[d])
		switch o.Unknown {
		case record.UnknownInclusion:
			in.unusable.Add(ctx, 1, in.noIncl[d])
			continue
		case record.UnknownUnsettled:
			in.unusable.Add(ctx, 1, in.unsettled[d])
			continue
		}
		if o.Observed && o.Fail {
			in.weight.Add(ctx, 1/o.Inclusion, in.attrs[d])
			if o.Inclusion < 1 {
				in.variance.Add(ctx, (1-o.Inclusion)/(o.Inclusion*o.Inclusion), in.attrs[d])
			}
		}
	}
}
