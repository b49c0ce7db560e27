package middleware

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// Evaluation modes, as they appear in spans, metrics and Outcome.Mode.
const (
	modeInline = "inline"
	modeShadow = "shadow"
	modeOff    = "off"
)

// diagnosisError labels, in metrics, an evaluation that gave no result.
const diagnosisError = "EVALUATION_ERROR"

type instruments struct {
	evaluations metric.Int64Counter
	duration    metric.Float64Histogram
	sinkErrors  metric.Int64Counter
	sinkDropped metric.Int64Counter
	withheld    metric.Int64Counter
	est         estimateInstruments
}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	m := mp.Meter(otelkeys.ScopeName)
	var in instruments
	var err, e error
	in.evaluations, e = m.Int64Counter(otelkeys.MetricEvaluations,
		metric.WithDescription("Answers evaluated by the guard, by route, diagnosis, action and mode."),
		metric.WithUnit("{evaluation}"))
	err = errors.Join(err, e)
	in.duration, e = m.Float64Histogram(otelkeys.MetricGuardDuration,
		metric.WithDescription("Time the guard took to evaluate one answer."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
	err = errors.Join(err, e)
	in.sinkErrors, e = m.Int64Counter(otelkeys.MetricSinkErrors,
		metric.WithDescription("Records the sink failed to write."),
		metric.WithUnit("{record}"))
	err = errors.Join(err, e)
	in.sinkDropped, e = m.Int64Counter(otelkeys.MetricSinkDropped,
		metric.WithDescription("Records never handed to the sink: the record queue was full or shut down, or Shutdown gave up on them."),
		metric.WithUnit("{record}"))
	err = errors.Join(err, e)
	in.withheld, e = m.Int64Counter(otelkeys.MetricPromiseWithheld,
		metric.WithDescription("Evaluations in which the guard withheld the verdicts of a decision side its promise monitor found broken, by decision and side."),
		metric.WithUnit("{evaluation}"))
	err = errors.Join(err, e)
	err = errors.Join(err, in.est.init(m))
	if err != nil {
		return nil, errorf("creating metric instruments: %w", err)
	}
	return &in, nil
}

// evaluation is one captured sample on its way to the guard.
type evaluation struct {
	cfg      *config
	eval     Evaluator
	shadow   *Shadow // in shadow mode, the Shadow that evaluates it
	id       string
	mode     string
	sample   guard.Sample
	original string
	// parent is the chain span; the evaluation span is its child.
	parent trace.SpanContext
	// texts holds the sample's redacted texts; nil without content capture.
	texts *sampleTexts
}

// asked returns the sample's question and answer texts as they may leave
// the process, redacted on first use; nil without content capture.
func (ev *evaluation) asked() *sampleTexts {
	t := ev.texts
	if t != nil && !t.hasAsked {
		ev.cfg.redactAsked(t)
	}
	return t
}

// redacted returns all of the sample's texts as they may leave the
// process, redacted on first use; nil without content capture. The
// caller's goroutine may call it (or asked) before it hands a shadow
// evaluation over, and the worker after that, never both at once.
func (ev *evaluation) redacted() *sampleTexts {
	t := ev.asked()
	if t != nil && !t.full {
		ev.cfg.redactRest(t)
	}
	return t
}

// verdict is what one evaluation produced.
type verdict struct {
	res    guard.Result
	ok     bool // res is a result
	action guard.Action
	err    error
	// abandoned: a shadow evaluation whose context Shutdown cancelled while
	// it ran, or that Shutdown gave up waiting for. Its result is not
	// trusted: it is neither counted nor recorded, and the shadow counts
	// the sample as lost.
	abandoned bool
	// timedOut: a shadow evaluation whose deadline (ShadowConfig.Timeout)
	// passed before the evaluator returned. It is counted and recorded as
	// such.
	timedOut bool
}

// run evaluates the sample under an evaluation span, records metrics and
// queues the record for the sink. ctx carries the chain span (inline). In
// shadow mode it is the worker's context with the evaluation's deadline,
// and the parent span comes from ev.parent.
func (ev *evaluation) run(ctx context.Context) verdict {
	c := ev.cfg
	if ev.parent.IsValid() && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, ev.parent)
	}
	// The span starts at the record's time, so that a record rebuilt from
	// the span (evalkit/otlp.Read) has the same one.
	start := c.now()
	ctx, span := c.tracer.Start(ctx, otelkeys.SpanEvaluation, kindInternal, trace.WithTimestamp(start))
	res, err := ev.eval.Evaluate(ctx, ev.sample)
	elapsed := c.now().Sub(start)
	v := ev.verdictOf(ctx, res, err)
	if !v.abandoned {
		attrs := evaluationAttrs(ev.mode, &v)
		c.inst.evaluations.Add(ctx, 1, attrs)
		c.inst.duration.Record(ctx, elapsed.Seconds(), attrs)
		if v.ok && len(v.res.Withheld) > 0 {
			for _, w := range withheldSides(&v.res) {
				c.inst.withheld.Add(ctx, 1, metric.WithAttributes(attribute.String(otelkeys.Mode, ev.mode),
					attribute.String(otelkeys.PromiseDecision, w.side.Decision.String()),
					attribute.String(otelkeys.PromiseSide, w.side.Verdict.String())))
			}
		}
	}
	// A result drawn for the teacher is taught before its record is
	// written and before the estimate counters count it (they read the
	// teacher's verdict): here in the shadow worker, inline in the
	// background once the answer is returned (see Teacher).
	tc, later := drawn(ev, &v)
	if later && ev.shadow != nil {
		c.teach.drawn.Add(1)
		c.teach.teach(ctx, tc, ev, &v.res)
		later = false
	}
	if v.ok && !v.abandoned && !later {
		c.inst.est.observe(ctx, &v.res)
	}

	// The record's copy of the result comes first: the span reuses its
	// redacted reasons.
	var exported *guard.Result
	if c.records != nil && v.ok && !v.abandoned {
		x := c.exportResult(&v.res, ev.redacted())
		exported = &x
	}
	var kinds evidenceKinds
	if v.ok && (exported != nil || span.IsRecording()) {
		kinds = kindsOf(&v.res)
	}
	if span.IsRecording() {
		ev.annotate(span, &v, exported, &kinds)
		if v.timedOut {
			span.SetAttributes(attribute.Bool(otelkeys.ShadowTimedOut, true))
			span.SetStatus(codes.Error, "shadow evaluation timed out")
		}
	}
	sc := span.SpanContext()
	span.End()

	switch {
	case later:
		// The caller's v keeps no teacher: the background copy gets it.
		c.teach.later(ctx, tc, ev, v, kinds.pairs, start, sc)
	case exported != nil:
		c.records.put(context.WithoutCancel(ctx), ev.record(&v, exported, kinds.pairs, start, sc))
	}
	return v
}

// verdictOf turns what the evaluator returned into a verdict. It settles a
// shadow evaluation with its Shadow and sends any failure to the error
// handler.
func (ev *evaluation) verdictOf(ctx context.Context, res guard.Result, err error) verdict {
	c := ev.cfg
	// An error means no result (Evaluator's contract); a judge that failed
	// is part of the result, and goes to the error handler from there.
	v := verdict{res: res, err: err, ok: err == nil}
	if v.ok {
		v.action = res.Action
		err = res.Err()
	} else {
		v.action = guard.Review
		v.res = guard.Result{}
	}
	if ev.shadow != nil {
		v.timedOut = ctx.Err() != nil && errors.Is(context.Cause(ctx), ErrShadowTimeout)
		v.abandoned = !ev.shadow.settle(ctx, &v)
	}
	switch {
	case v.abandoned:
	case v.timedOut:
		if err == nil {
			err = errors.New("the evaluator returned after the deadline")
		}
		c.handle(errorf("evaluating sample %s: %w after %v: %w", ev.id, ErrShadowTimeout, ev.shadow.cfg.Timeout, err))
	case err != nil:
		c.handle(errorf("evaluating sample %s: %w", ev.id, err))
	}
	return v
}

// evaluationAttrs labels one evaluation in the metrics.
func evaluationAttrs(mode string, v *verdict) metric.MeasurementOption {
	return metric.WithAttributes(
		attribute.String(otelkeys.Mode, mode),
		attribute.String(otelkeys.Route, routeLabel(v)),
		attribute.String(otelkeys.Diagnosis, diagnosisLabel(v)),
		attribute.String(otelkeys.Action, v.action.String()))
}

func routeLabel(v *verdict) string {
	if !v.ok {
		return "none"
	}
	return v.res.Route.String()
}

func diagnosisLabel(v *verdict) string {
	if !v.ok {
		return diagnosisError
	}
	return string(v.res.Diagnosis)
}

func labelOf(v guard.Verdict) string {
	switch v {
	case guard.Pass:
		return otelkeys.LabelPass
	case guard.Fail:
		return otelkeys.LabelFail
	}
	return otelkeys.LabelUncertain
}

// annotate sets the evaluation span's attributes and adds one
// gen_ai.evaluation.result event per decision. x is the record's copy of
// the result, or nil when there is no record; ek is its evidence kinds.
func (ev *evaluation) annotate(span trace.Span, v *verdict, x *guard.Result, ek *evidenceKinds) {
	attrs := ev.sampleAttrs(v)
	if !v.ok {
		attrs = append(attrs, attribute.String(otelkeys.EvaluationError, ev.cfg.reasonText(v.err.Error())))
		span.SetAttributes(attrs...)
		span.SetStatus(codes.Error, "evaluation gave no result")
		return
	}
	r := &v.res
	rt := resultText{c: ev.cfg, r: r, x: x, kinds: ek}
	attrs = resultAttrs(attrs, r, rt)
	if r.Fallback != nil {
		attrs = fallbackAttrs(attrs, r, rt)
	}
	span.SetAttributes(attrs...)
	decisionEvents(span, r, rt)
	// A blocked answer is an outcome of a successful evaluation, not a
	// failed operation. OpenTelemetry keeps the Error status for the
	// latter, so the block is an event here (and the action an attribute),
	// and the span's status stays unset. In shadow mode the event records
	// what would have been blocked; nothing was.
	for _, w := range withheldSides(r) {
		span.AddEvent(otelkeys.EventPromiseBroken, trace.WithAttributes(
			attribute.String(otelkeys.GenAIEvaluationName, w.side.Decision.String()),
			attribute.String(otelkeys.PromiseSide, w.side.Verdict.String()),
			attribute.String(otelkeys.EventCause, string(guard.CausePromiseBroken)),
			attribute.Int(otelkeys.PromiseWithheldCount, w.n)))
	}
	if v.action == guard.Block {
		span.AddEvent(otelkeys.EventAnswerBlocked, trace.WithAttributes(
			attribute.String(otelkeys.Diagnosis, string(r.Diagnosis)),
			attribute.String(otelkeys.Mode, ev.mode)))
	}
}

// sampleAttrs are the attributes that say what was judged: the sample's ID,
// mode and action, its context IDs and, with content capture, its texts.
func (ev *evaluation) sampleAttrs(v *verdict) []attribute.KeyValue {
	s := &ev.sample
	ids := make([]string, len(s.Contexts))
	for i := range s.Contexts {
		ids[i] = s.Contexts[i].ID
	}
	attrs := []attribute.KeyValue{
		attribute.String(otelkeys.OpenInferenceSpanKind, otelkeys.KindEvaluator),
		attribute.String(otelkeys.SampleID, ev.id),
		attribute.String(otelkeys.Mode, ev.mode),
		attribute.String(otelkeys.Action, v.action.String()),
		attribute.StringSlice(otelkeys.ContextIDs, ids),
	}
	t := ev.redacted()
	if t == nil {
		return attrs
	}
	attrs = append(attrs,
		attribute.String(otelkeys.SampleQuestion, t.question),
		attribute.String(otelkeys.SampleAnswer, t.answer))
	if ev.original != "" {
		attrs = append(attrs, attribute.String(otelkeys.SampleOriginalQuestion, t.original))
	}
	if s.Reference != nil {
		attrs = append(attrs, attribute.String(otelkeys.SampleReference, t.reference))
	}
	return append(attrs, attribute.StringSlice(otelkeys.SampleContextTexts, t.contexts))
}

// resultText gives the span a result's free texts as they may leave the
// process. With a record they come from the record's copy (x), so each is
// redacted once. Without one they are redacted here. kinds is the result's
// evidence kinds, which need no redaction.
type resultText struct {
	c     *config
	r, x  *guard.Result
	kinds *evidenceKinds
}

func (t resultText) reason() string {
	if t.x != nil {
		return t.x.Reason
	}
	return t.c.reasonText(t.r.Reason)
}

func (t resultText) fallbackReason() string {
	if t.x != nil {
		return t.x.Fallback.Reason
	}
	return t.c.reasonText(t.r.Fallback.Reason)
}

func (t resultText) abstention(i int) string {
	if t.x != nil {
		return t.x.Abstentions[i].Reason
	}
	return t.c.reasonText(t.r.Abstentions[i].Reason)
}

// resultAttrs adds what the guard decided: the diagnosis and its reason, the
// route, the decision set, the judges, their errors and their usage.
func resultAttrs(attrs []attribute.KeyValue, r *guard.Result, rt resultText) []attribute.KeyValue {
	attrs = append(attrs,
		attribute.String(otelkeys.Diagnosis, string(r.Diagnosis)),
		attribute.String(otelkeys.DiagnosisVersion, r.DiagnosisVersion),
		attribute.Float64(otelkeys.Confidence, r.Confidence),
		attribute.String(otelkeys.Route, r.Route.String()),
		attribute.String(otelkeys.DecisionID, r.DecisionID),
		attribute.String(otelkeys.DecisionVersion, r.DecisionVersion),
		attribute.String(otelkeys.DecisionVariant, string(r.DecisionVariant)),
		attribute.String(otelkeys.Verdicts, otelkeys.VerdictsForAnswer),
		attribute.Float64(otelkeys.LatencyMs, r.LatencyMs),
	)
	if r.Reason != "" {
		attrs = append(attrs, attribute.String(otelkeys.Reason, rt.reason()))
	}
	if ks := rt.kinds.pairs; ks != nil {
		attrs = append(attrs, attribute.StringSlice(otelkeys.EvidenceKinds, ks))
	}
	if len(r.Judges) > 0 {
		js := make([]string, 0, len(r.Judges))
		for name, ver := range r.Judges {
			js = append(js, name+"@"+ver)
		}
		slices.Sort(js)
		attrs = append(attrs, attribute.StringSlice(otelkeys.Judges, js))
	}
	if ws := withheldSides(r); ws != nil {
		names := make([]string, len(ws))
		for i, w := range ws {
			names[i] = w.side.String()
		}
		attrs = append(attrs, attribute.StringSlice(otelkeys.PromiseWithheld, names))
	}
	if len(r.Errors) > 0 {
		names := make([]string, len(r.Errors))
		causes := make([]string, len(r.Errors))
		for i := range r.Errors {
			names[i], causes[i] = r.Errors[i].Judge, string(r.Errors[i].Cause)
		}
		attrs = append(attrs, attribute.StringSlice(otelkeys.JudgeErrors, names),
			attribute.StringSlice(otelkeys.JudgeErrorCauses, causes))
	}
	if d := r.Draw; d != nil {
		attrs = append(attrs, attribute.String(otelkeys.DrawKind, string(d.Kind)),
			attribute.Bool(otelkeys.DrawDrawn, d.Drawn), attribute.Float64(otelkeys.DrawInclusion, d.Inclusion))
	}
	if tc := r.Teacher; tc != nil {
		attrs = append(attrs, attribute.String(otelkeys.TeacherJudge, tc.Judge))
		if tc.Cause != "" {
			attrs = append(attrs, attribute.String(otelkeys.TeacherCause, string(tc.Cause)))
		}
	}
	if u := r.Usage; u != (guard.Usage{}) {
		attrs = append(attrs,
			attribute.Int(otelkeys.UsageInputTokens, u.InputTokens),
			attribute.Int(otelkeys.UsageOutputTokens, u.OutputTokens),
			attribute.Int(otelkeys.UsageCalls, u.Calls),
			attribute.Int(otelkeys.UsageRetries, u.Retries))
	}
	return attrs
}

// fallbackAttrs adds what the fallback did: which decisions it was asked,
// how many it settled, why the rest stayed open, and what it spent.
func fallbackAttrs(attrs []attribute.KeyValue, r *guard.Result, rt resultText) []attribute.KeyValue {
	f := r.Fallback
	ds := make([]string, len(f.Decisions))
	for i, d := range f.Decisions {
		ds[i] = d.String()
	}
	attrs = append(attrs,
		attribute.String(otelkeys.FallbackJudge, f.Judge),
		attribute.StringSlice(otelkeys.FallbackDecisions, ds),
		attribute.StringSlice(otelkeys.FallbackContexts, f.Contexts),
		attribute.Int(otelkeys.FallbackSettled, f.Settled),
		attribute.Int(otelkeys.FallbackUnsettled, f.Unsettled),
		attribute.String(otelkeys.FallbackRule, f.Rule.String()),
		attribute.Float64(otelkeys.FallbackLatencyMs, f.LatencyMs))
	if f.Reason != "" {
		attrs = append(attrs, attribute.String(otelkeys.FallbackReason, rt.fallbackReason()))
	}
	if f.Cause != "" {
		attrs = append(attrs, attribute.String(otelkeys.FallbackCause, string(f.Cause)))
	}
	if cs := causeList(f.Causes); len(cs) > 0 {
		attrs = append(attrs, attribute.StringSlice(otelkeys.FallbackCauses, cs))
	}
	if u := fallbackUsage(r); u != (guard.Usage{}) {
		attrs = append(attrs,
			attribute.Int(otelkeys.FallbackInputTokens, u.InputTokens),
			attribute.Int(otelkeys.FallbackOutputTokens, u.OutputTokens),
			attribute.Int(otelkeys.FallbackCalls, u.Calls),
			attribute.Int(otelkeys.FallbackRetries, u.Retries))
	}
	return attrs
}

// decisionEvents adds one gen_ai.evaluation.result event per decision:
// chunk relevance first, in context order, then each other decision asked.
func decisionEvents(span trace.Span, r *guard.Result, rt resultText) {
	for i, e := range r.Retrieval.ChunkRelevance {
		vd := guard.Uncertain
		if i < len(r.Verdicts.Retrieval.ChunkRelevance) {
			vd = r.Verdicts.Retrieval.ChunkRelevance[i].Value
		}
		span.AddEvent(otelkeys.EventEvaluationResult,
			trace.WithAttributes(decisionEvent(r, rt, guard.ChunkRelevance, e.Key, e.Value, vd)...))
	}
	for _, d := range guard.Decisions[1:] {
		p := r.Prob(d)
		if !p.Asked {
			continue
		}
		vd, _ := r.Verdict(d)
		span.AddEvent(otelkeys.EventEvaluationResult,
			trace.WithAttributes(decisionEvent(r, rt, d, "", p, vd)...))
	}
}

// decisionEvent is the attributes of one decision's event: its name and
// label, its evidence kinds, and its score or, without one, why the judge
// abstained.
func decisionEvent(r *guard.Result, rt resultText, d guard.Decision, ctxID string, p guard.Prob, vd guard.Verdict) []attribute.KeyValue {
	ks := rt.kinds.of(d, ctxID)
	ea := make([]attribute.KeyValue, 0, 6+min(len(ks), 1))
	ea = append(ea,
		attribute.String(otelkeys.GenAIEvaluationName, d.String()),
		attribute.String(otelkeys.GenAIEvaluationScoreLabel, labelOf(vd)))
	if ctxID != "" {
		ea = append(ea, attribute.String(otelkeys.EventContextID, ctxID))
	}
	if ks != nil {
		ea = append(ea, attribute.StringSlice(otelkeys.EventEvidenceKinds, ks))
	}
	if p.Known {
		return append(ea, attribute.Float64(otelkeys.GenAIEvaluationScoreValue, p.Value))
	}
	i := slices.IndexFunc(r.Abstentions, func(a guard.Abstention) bool {
		return a.Decision == d && a.ContextID == ctxID
	})
	if i < 0 {
		return ea
	}
	a := &r.Abstentions[i]
	if a.Reason != "" {
		ea = append(ea, attribute.String(otelkeys.GenAIEvaluationExplanation, rt.abstention(i)))
	}
	if a.Judge != "" {
		ea = append(ea, attribute.String(otelkeys.EventJudge, a.Judge))
	}
	if a.Cause != "" {
		ea = append(ea, attribute.String(otelkeys.EventCause, string(a.Cause)))
	}
	return ea
}

// record builds the record the sink writes. x is the result as it may
// leave the process (exportResult), kinds its evidence kinds.
func (ev *evaluation) record(v *verdict, x *guard.Result, kinds []string, start time.Time, sc trace.SpanContext) *record.Record {
	rec := &record.Record{
		Version:       record.Version,
		ID:            ev.id,
		Time:          start,
		Result:        *x,
		EvidenceKinds: kinds,
		Legs:          record.Legs(&v.res, fallbackUsage(&v.res)),
		Metadata:      ev.sample.Metadata,
		TimedOut:      v.timedOut,
	}
	if sc.IsValid() {
		rec.TraceID, rec.SpanID = sc.TraceID().String(), sc.SpanID().String()
	}
	t := ev.redacted()
	if t == nil {
		return rec
	}
	s := &ev.sample
	rs := &record.Sample{
		Question:         t.question,
		Answer:           t.answer,
		OriginalQuestion: t.original,
		Contexts:         make([]record.Context, len(s.Contexts)),
	}
	if s.Reference != nil {
		ref := t.reference
		rs.Reference = &ref
	}
	for i := range s.Contexts {
		rs.Contexts[i] = record.Context{ID: s.Contexts[i].ID, Text: t.contexts[i]}
	}
	rec.Sample = rs
	return rec
}

// causeList spells out a FallbackInfo.Causes count as one name per
// unsettled decision, in guard.Causes order (names this version does not
// know last, sorted), for the ragtriage.fallback.causes attribute.
func causeList(m map[guard.Cause]int) []string {
	if len(m) == 0 {
		return nil
	}
	var out []string
	for _, c := range guard.Causes {
		for range m[c] {
			out = append(out, string(c))
		}
	}
	var other []string
	for c, n := range m {
		if !c.Known() {
			for range n {
				other = append(other, string(c))
			}
		}
	}
	slices.Sort(other)
	return append(out, other...)
}

// fallbackUsage is what the fallback spent on the result (the guard sums
// it, abstentions and claims included).
func fallbackUsage(r *guard.Result) guard.Usage {
	if r.Fallback == nil {
		return guard.Usage{}
	}
	return r.Fallback.Usage
}

// withheldSide is one decision side whose verdicts a result withheld, with
// how many.
type withheldSide struct {
	side guard.Side
	n    int
}

// withheldSides lists the sides of r.Withheld in guard.Decisions order,
// pass side first; nil when none.
func withheldSides(r *guard.Result) []withheldSide {
	if len(r.Withheld) == 0 {
		return nil
	}
	var out []withheldSide
	for _, s := range guard.SidesOf(sidesOf(r.Withheld)...).List() {
		n := 0
		for _, w := range r.Withheld {
			if w.Decision == s.Decision && w.Verdict == s.Verdict {
				n++
			}
		}
		out = append(out, withheldSide{s, n})
	}
	return out
}

func sidesOf(ws []guard.Withheld) []guard.Side {
	out := make([]guard.Side, len(ws))
	for i, w := range ws {
		out[i] = guard.Side{Decision: w.Decision, Verdict: w.Verdict}
	}
	return out
}
