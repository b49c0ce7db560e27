package guard

import (
	"log/slog"
	"strings"
)

// LogValue implements slog.LogValuer: a compact group that says what was
// decided and why, and carries none of the sample's text, so that a result
// can be logged where user text must not go:
//
//	decisionId, diagnosis, route, action, confidence,
//	verdicts: {chunk_relevance: {pass, fail, uncertain} counts, context_sufficiency, …},
//	reason, fallback: {judge, settled, unsettled, rule, reason}, errors,
//	withheld (the sides the promise monitor found broken, "groundedness/pass"), latencyMs
//
// Reasons are judges' and rules' free text, which may quote the sample (a
// word of the answer that no context holds): every quoted excerpt in them
// is withheld (see WithholdQuotes). Evidence, citations, claims, abstention
// reasons and context IDs are left out; log the Result's JSON form where
// the text may go.
//
//	logger.Info("answer judged", "result", res)
func (r Result) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 11)
	attrs = append(attrs,
		slog.String("decisionId", r.DecisionID),
		slog.String("diagnosis", string(r.Diagnosis)),
		slog.String("route", r.Route.String()),
		slog.String("action", r.Action.String()),
		slog.Float64("confidence", r.Confidence),
		slog.Attr{Key: "verdicts", Value: r.verdictsLogValue()},
	)
	if r.Reason != "" {
		attrs = append(attrs, slog.String("reason", WithholdQuotes(r.Reason)))
	}
	if f := r.Fallback; f != nil {
		fb := []slog.Attr{
			slog.String("judge", f.Judge),
			slog.Int("settled", f.Settled),
			slog.Int("unsettled", f.Unsettled),
			slog.String("rule", f.Rule.String()),
		}
		if f.Reason != "" {
			fb = append(fb, slog.String("reason", WithholdQuotes(f.Reason)))
		}
		attrs = append(attrs, slog.Attr{Key: "fallback", Value: slog.GroupValue(fb...)})
	}
	if len(r.Errors) > 0 {
		judges := make([]string, len(r.Errors))
		for i := range r.Errors {
			judges[i] = r.Errors[i].Judge
		}
		attrs = append(attrs, slog.String("failedJudges", strings.Join(judges, ",")))
	}
	if len(r.Withheld) > 0 {
		var s Sides
		for i := range r.Withheld {
			s |= sideBit(r.Withheld[i].Decision, r.Withheld[i].Verdict)
		}
		l := s.List()
		names := make([]string, len(l))
		for i, x := range l {
			names[i] = x.String()
		}
		attrs = append(attrs, slog.String("withheld", strings.Join(names, ",")), slog.String("cause", string(CausePromiseBroken)))
	}
	attrs = append(attrs, slog.Float64("latencyMs", r.LatencyMs))
	return slog.GroupValue(attrs...)
}

// verdictsLogValue lists the verdict of every decision of the result, with
// chunk relevance counted by verdict.
func (r *Result) verdictsLogValue() slog.Value {
	var pass, fail, unsure int
	for _, e := range r.Verdicts.Retrieval.ChunkRelevance {
		switch e.Value {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			unsure++
		}
	}
	attrs := make([]slog.Attr, 0, len(Decisions))
	attrs = append(attrs, slog.Attr{Key: ChunkRelevance.String(), Value: slog.GroupValue(
		slog.Int("pass", pass), slog.Int("fail", fail), slog.Int("uncertain", unsure))})
	for _, d := range Decisions[1:] {
		if v, ok := r.Verdict(d); ok {
			attrs = append(attrs, slog.String(d.String(), v.String()))
		}
	}
	return slog.GroupValue(attrs...)
}

// withheld replaces each quoted excerpt in WithholdQuotes.
const withheld = `"[withheld]"`

// WithholdQuotes returns s with every quoted excerpt — between straight
// double quotes (a backslash escapes one) or between “ and ” — replaced by
// "[withheld]" (quotes included). Judges quote the user's texts in their free-text reasons (the
// embedded judges name a word of the answer that no context holds, the LLM
// judge a quote it could not find); this is how such a reason can leave the
// process without them. A quote that is never closed (a message cut short)
// runs to the end of s.
func WithholdQuotes(s string) string {
	if !strings.ContainsAny(s, "\"“") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"':
			j := i + 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			b.WriteString(withheld)
			i = min(j+1, len(s)+1)
		case strings.HasPrefix(s[i:], "“"):
			k := strings.Index(s[i:], "”")
			b.WriteString(withheld)
			if k < 0 {
				i = len(s)
			} else {
				i += k + len("”")
			}
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}
