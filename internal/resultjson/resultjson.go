package resultjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
)

// Append appends the JSON form of r to dst and returns the extended buffer.
// The bytes are exactly those of json.Marshal(r) when escapeHTML is true,
// and those of a json.Encoder with SetEscapeHTML(false) (without the
// Encoder's final line feed) when it is false; an error is returned in the
// same cases, with the same message. It is a hand-written encoder that
// allocates nothing beyond dst's growth; should guard.Result change shape
// without the encoder following, it hands the whole value to encoding/json
// instead (TestResultLayout fails until the encoder is brought up to date).
func Append(dst []byte, r *guard.Result, escapeHTML bool) ([]byte, error) {
	if resultLayout.known {
		e := resultEncoder{buf: dst, html: escapeHTML}
		e.result(r)
		if e.err == nil {
			return e.buf, nil
		}
		// Let encoding/json word the error.
	}
	rc := *r // a copy goes to encoding/json, so that r does not escape
	return appendJSONValue(dst, &rc, escapeHTML)
}

// appendJSONValue appends v encoded by encoding/json.
func appendJSONValue(dst []byte, v any, escapeHTML bool) ([]byte, error) {
	if escapeHTML {
		b, err := json.Marshal(v)
		if err != nil {
			return dst, err
		}
		return append(dst, b...), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// resultEncoder writes a Result field by field, in the order and with the
// rules of the struct tags (omitempty, omitzero) and of the types' own
// MarshalJSON and MarshalText methods.
type resultEncoder struct {
	buf  []byte
	html bool
	err  error
}

func (e *resultEncoder) raw(s string) { e.buf = append(e.buf, s...) }

func (e *resultEncoder) str(s string) { e.buf = appendJSONString(e.buf, s, e.html) }

// key writes `,"name":` or `"name":` for the first field (first is
// then cleared).
func (e *resultEncoder) key(first *bool, name string) {
	if !*first {
		e.buf = append(e.buf, ',')
	}
	*first = false
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"', ':')
}

func (e *resultEncoder) int(n int) { e.buf = strconv.AppendInt(e.buf, int64(n), 10) }

func (e *resultEncoder) bool(b bool) { e.buf = strconv.AppendBool(e.buf, b) }

// float writes a float64 the way encoding/json does (ES6 number style).
func (e *resultEncoder) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail(fmt.Errorf("guard: unsupported value %v", f))
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.buf = strconv.AppendFloat(e.buf, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		n := len(e.buf)
		if n >= 4 && e.buf[n-4] == 'e' && e.buf[n-3] == '-' && e.buf[n-2] == '0' {
			e.buf[n-2] = e.buf[n-1]
			e.buf = e.buf[:n-1]
		}
	}
}

func (e *resultEncoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// prob writes a Prob as its MarshalJSON does.
func (e *resultEncoder) prob(p guard.Prob) {
	if !p.Known || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		e.raw("null")
		return
	}
	e.buf = strconv.AppendFloat(e.buf, p.Value, 'g', -1, 64)
}

// verdict writes a Verdict as its MarshalJSON does (json.Marshal of its
// name, which escapes HTML whatever the outer setting).
func (e *resultEncoder) verdict(v guard.Verdict) {
	if v <= guard.Fail {
		e.buf = append(e.buf, '"')
		e.buf = append(e.buf, v.String()...)
		e.buf = append(e.buf, '"')
		return
	}
	e.buf = appendJSONString(e.buf, v.String(), true)
}

func (e *resultEncoder) decision(d guard.Decision) {
	if !d.Valid() {
		e.fail(fmt.Errorf("guard: invalid decision %d", uint8(d)))
		return
	}
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, d.String()...)
	e.buf = append(e.buf, '"')
}

func (e *resultEncoder) decisions(ds []guard.Decision) {
	if ds == nil {
		e.raw("null")
		return
	}
	e.buf = append(e.buf, '[')
	for i, d := range ds {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.decision(d)
	}
	e.buf = append(e.buf, ']')
}

// keyedProb and keyedVerdict write a Keyed object as Keyed.MarshalJSON
// does: keys go through json.Marshal, which always escapes HTML.
func (e *resultEncoder) keyedProb(k guard.Keyed[guard.Prob]) {
	e.buf = append(e.buf, '{')
	for i := range k {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendJSONString(e.buf, k[i].Key, true)
		e.buf = append(e.buf, ':')
		e.prob(k[i].Value)
	}
	e.buf = append(e.buf, '}')
}

func (e *resultEncoder) keyedVerdict(k guard.Keyed[guard.Verdict]) {
	e.buf = append(e.buf, '{')
	for i := range k {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendJSONString(e.buf, k[i].Key, true)
		e.buf = append(e.buf, ':')
		e.verdict(k[i].Value)
	}
	e.buf = append(e.buf, '}')
}

func (e *resultEncoder) quote(q *guard.Quote) {
	first := true
	e.buf = append(e.buf, '{')
	e.key(&first, "source")
	e.str(string(q.Source))
	if q.ContextID != "" {
		e.key(&first, "contextId")
		e.str(q.ContextID)
	}
	e.key(&first, "start")
	e.int(q.Start)
	e.key(&first, "end")
	e.int(q.End)
	e.key(&first, "text")
	e.str(q.Text)
	e.buf = append(e.buf, '}')
}

func (e *resultEncoder) evidence(ev []guard.Evidence) {
	if ev == nil {
		e.raw("null")
		return
	}
	e.buf = append(e.buf, '[')
	for i := range ev {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		x := &ev[i]
		first := true
		e.buf = append(e.buf, '{')
		e.key(&first, "decision")
		e.decision(x.Decision)
		e.key(&first, "kind")
		e.str(string(x.Kind))
		if x.Detail != "" {
			e.key(&first, "detail")
			e.str(x.Detail)
		}
		if !x.Quote.IsZero() {
			e.key(&first, "quote")
			e.quote(&x.Quote)
		}
		if !x.Counterpart.IsZero() {
			e.key(&first, "counterpart")
			e.quote(&x.Counterpart)
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

func (e *resultEncoder) citations(cs []guard.Citation) {
	e.buf = append(e.buf, '[')
	for i := range cs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		c := &cs[i]
		first := true
		e.buf = append(e.buf, '{')
		e.key(&first, "sentence")
		e.quote(&c.Sentence)
		e.key(&first, "support")
		e.float(c.Support)
		e.key(&first, "supported")
		e.bool(c.Supported)
		if !c.Context.IsZero() {
			e.key(&first, "context")
			e.quote(&c.Context)
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

func (e *resultEncoder) abstentions(as []guard.Abstention) {
	e.buf = append(e.buf, '[')
	for i := range as {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		a := &as[i]
		first := true
		e.buf = append(e.buf, '{')
		e.key(&first, "decision")
		e.decision(a.Decision)
		if a.ContextID != "" {
			e.key(&first, "contextId")
			e.str(a.ContextID)
		}
		if a.Judge != "" {
			e.key(&first, "judge")
			e.str(a.Judge)
		}
		e.key(&first, "reason")
		e.str(a.Reason)
		if a.Cause != "" {
			e.key(&first, "cause")
			e.str(string(a.Cause))
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

// withheld writes the verdicts the promise monitor withheld.
func (e *resultEncoder) withheld(ws []guard.Withheld) {
	e.buf = append(e.buf, '[')
	for i := range ws {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		w := &ws[i]
		first := true
		e.buf = append(e.buf, '{')
		e.key(&first, "decision")
		e.decision(w.Decision)
		if w.ContextID != "" {
			e.key(&first, "contextId")
			e.str(w.ContextID)
		}
		e.key(&first, "verdict")
		e.verdict(w.Verdict)
		e.key(&first, "cause")
		e.str(string(w.Cause))
		e.key(&first, "reason")
		e.str(w.Reason)
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

// judges writes the map with its keys sorted, as encoding/json does.
func (e *resultEncoder) judges(m map[string]string) {
	var small [4]string
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.str(k)
		e.buf = append(e.buf, ':')
		e.str(m[k])
	}
	e.buf = append(e.buf, '}')
}

func (e *resultEncoder) judgeErrors(es []guard.JudgeError) {
	e.buf = append(e.buf, '[')
	for i := range es {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		x := &es[i]
		first := true
		e.buf = append(e.buf, '{')
		e.key(&first, "judge")
		e.str(x.Judge)
		e.key(&first, "decisions")
		e.decisions(x.Decisions)
		e.key(&first, "error")
		e.str(x.Message)
		if x.Cause != "" {
			e.key(&first, "cause")
			e.str(string(x.Cause))
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

func (e *resultEncoder) fallback(f *guard.FallbackInfo) {
	first := true
	e.buf = append(e.buf, '{')
	e.key(&first, "judge")
	e.str(f.Judge)
	e.key(&first, "decisions")
	e.decisions(f.Decisions)
	if len(f.Contexts) > 0 {
		e.key(&first, "contexts")
		e.buf = append(e.buf, '[')
		for i, c := range f.Contexts {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.str(c)
		}
		e.buf = append(e.buf, ']')
	}
	e.key(&first, "settled")
	e.int(f.Settled)
	e.key(&first, "unsettled")
	e.int(f.Unsettled)
	if f.Reason != "" {
		e.key(&first, "reason")
		e.str(f.Reason)
	}
	if f.Cause != "" {
		e.key(&first, "cause")
		e.str(string(f.Cause))
	}
	if len(f.Causes) > 0 {
		e.key(&first, "causes")
		e.causes(f.Causes)
	}
	e.key(&first, "rule")
	e.str(f.Rule.String())
	e.key(&first, "latencyMs")
	e.float(f.LatencyMs)
	if f.Usage != (guard.Usage{}) {
		e.key(&first, "usage")
		e.usage(f.Usage)
	}
	if f.Inclusion != 0 {
		e.key(&first, "inclusion")
		e.float(f.Inclusion)
	}
	e.buf = append(e.buf, '}')
}

// causes writes the map with its keys sorted, as encoding/json does.
func (e *resultEncoder) causes(m map[guard.Cause]int) {
	var small [12]guard.Cause
	keys := small[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.str(string(k))
		e.buf = append(e.buf, ':')
		e.int(m[k])
	}
	e.buf = append(e.buf, '}')
}

func (e *resultEncoder) claims(cs []guard.Claim) {
	e.buf = append(e.buf, '[')
	for i := range cs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		c := &cs[i]
		first := true
		e.buf = append(e.buf, '{')
		e.key(&first, "text")
		e.str(c.Text)
		e.key(&first, "groundedness")
		e.prob(c.Groundedness)
		e.key(&first, "verdict")
		e.verdict(c.Verdict)
		if c.Judge != "" {
			e.key(&first, "judge")
			e.str(c.Judge)
		}
		if c.Escalated {
			e.key(&first, "escalated")
			e.bool(true)
		}
		if c.Reason != "" {
			e.key(&first, "reason")
			e.str(c.Reason)
		}
		if c.Cause != "" {
			e.key(&first, "cause")
			e.str(string(c.Cause))
		}
		if len(c.Evidence) > 0 {
			e.key(&first, "evidence")
			e.evidence(c.Evidence)
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

func (e *resultEncoder) usage(u guard.Usage) {
	first := true
	e.buf = append(e.buf, '{')
	if u.InputTokens != 0 {
		e.key(&first, "inputTokens")
		e.int(u.InputTokens)
	}
	if u.OutputTokens != 0 {
		e.key(&first, "outputTokens")
		e.int(u.OutputTokens)
	}
	if u.Calls != 0 {
		e.key(&first, "calls")
		e.int(u.Calls)
	}
	if u.Retries != 0 {
		e.key(&first, "retries")
		e.int(u.Retries)
	}
	e.buf = append(e.buf, '}')
}

// result writes a Result: its scores, verdicts, outcome and details, then
// its latency.
func (e *resultEncoder) result(r *guard.Result) {
	e.scores(r)
	e.verdicts(&r.Verdicts)
	e.outcome(r)
	e.details(r)
	e.raw(`,"latencyMs":`)
	e.float(r.LatencyMs)
	e.loop(r)
	e.buf = append(e.buf, '}')
}

// loop writes the teacher draws' parts: features, draw and teacher.
func (e *resultEncoder) loop(r *guard.Result) {
	if f := r.Features; f != nil {
		e.raw(`,"features":{"version":`)
		e.str(f.Version)
		e.raw(`,"vectors":`)
		if f.Vectors == nil {
			e.raw("null")
		} else {
			e.buf = append(e.buf, '[')
			for i := range f.Vectors {
				if i > 0 {
					e.buf = append(e.buf, ',')
				}
				v := &f.Vectors[i]
				e.raw(`{"decision":`)
				e.decision(v.Decision)
				if v.ContextID != "" {
					e.raw(`,"contextId":`)
					e.str(v.ContextID)
				}
				e.raw(`,"x":`)
				e.floats(v.X)
				e.buf = append(e.buf, '}')
			}
			e.buf = append(e.buf, ']')
		}
		e.buf = append(e.buf, '}')
	}
	if d := r.Draw; d != nil {
		e.raw(`,"draw":{"kind":`)
		e.str(string(d.Kind))
		e.raw(`,"rate":`)
		e.float(d.Rate)
		e.raw(`,"seed":`)
		e.buf = strconv.AppendUint(e.buf, d.Seed, 10)
		e.raw(`,"drawn":`)
		e.bool(d.Drawn)
		e.raw(`,"inclusion":`)
		e.float(d.Inclusion)
		e.buf = append(e.buf, '}')
	}
	if t := r.Teacher; t != nil {
		e.raw(`,"teacher":{"judge":`)
		e.str(t.Judge)
		e.raw(`,"estimates":`)
		e.estimates(t.Estimates)
		e.verdicts(&t.Verdicts)
		if t.Cause != "" {
			e.raw(`,"cause":`)
			e.str(string(t.Cause))
		}
		if t.Reason != "" {
			e.raw(`,"reason":`)
			e.str(t.Reason)
		}
		if t.Usage != (guard.Usage{}) {
			e.raw(`,"usage":`)
			e.usage(t.Usage)
		}
		e.raw(`,"latencyMs":`)
		e.float(t.LatencyMs)
		e.raw(`,"fromPrimary":`)
		e.bool(t.FromPrimary)
		e.buf = append(e.buf, '}')
	}
}

func (e *resultEncoder) floats(xs []float64) {
	if xs == nil {
		e.raw("null")
		return
	}
	e.buf = append(e.buf, '[')
	for i, x := range xs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.float(x)
	}
	e.buf = append(e.buf, ']')
}

// estimates writes estimates with the rules of Estimate's tags.
func (e *resultEncoder) estimates(es []guard.Estimate) {
	if es == nil {
		e.raw("null")
		return
	}
	e.buf = append(e.buf, '[')
	for i := range es {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		x := &es[i]
		e.raw(`{"decision":`)
		e.decision(x.Decision)
		if x.ContextID != "" {
			e.raw(`,"contextId":`)
			e.str(x.ContextID)
		}
		e.raw(`,"p":`)
		e.float(x.P)
		if x.Abstained {
			e.raw(`,"abstained":true`)
		}
		if x.Reason != "" {
			e.raw(`,"reason":`)
			e.str(x.Reason)
		}
		if x.Cause != "" {
			e.raw(`,"cause":`)
			e.str(string(x.Cause))
		}
		if len(x.Evidence) > 0 {
			e.raw(`,"evidence":`)
			e.evidence(x.Evidence)
		}
		if len(x.Citations) > 0 {
			e.raw(`,"citations":`)
			e.citations(x.Citations)
		}
		if x.Judge != "" {
			e.raw(`,"judge":`)
			e.str(x.Judge)
		}
		if x.JudgeVersion != "" {
			e.raw(`,"judgeVersion":`)
			e.str(x.JudgeVersion)
		}
		if x.Latency != 0 {
			e.raw(`,"latency":`)
			e.buf = strconv.AppendInt(e.buf, int64(x.Latency), 10)
		}
		if x.Usage != (guard.Usage{}) {
			e.raw(`,"usage":`)
			e.usage(x.Usage)
		}
		if x.Inclusion != 0 {
			e.raw(`,"inclusion":`)
			e.float(x.Inclusion)
		}
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, ']')
}

// scores opens the object and writes the retrieval and generation scores.
func (e *resultEncoder) scores(r *guard.Result) {
	e.raw(`{"retrieval":{"chunkRelevance":`)
	e.keyedProb(r.Retrieval.ChunkRelevance)
	e.raw(`,"contextSufficiency":`)
	e.prob(r.Retrieval.ContextSufficiency)
	e.raw(`,"contextConflict":`)
	e.prob(r.Retrieval.ContextConflict)

	g := &r.Generation
	e.raw(`},"generation":{"groundedness":`)
	e.prob(g.Groundedness)
	e.raw(`,"answerRelevance":`)
	e.prob(g.AnswerRelevance)
	e.raw(`,"contradiction":`)
	e.prob(g.Contradiction)
	if !g.Correctness.IsZero() {
		e.raw(`,"correctness":`)
		e.prob(g.Correctness)
	}
	e.raw(`}`)
}

// verdicts writes the verdicts object.
func (e *resultEncoder) verdicts(v *guard.Verdicts) {
	e.raw(`,"verdicts":{"retrieval":{"chunkRelevance":`)
	e.keyedVerdict(v.Retrieval.ChunkRelevance)
	e.raw(`,"contextSufficiency":`)
	e.verdict(v.Retrieval.ContextSufficiency)
	e.raw(`,"contextConflict":`)
	e.verdict(v.Retrieval.ContextConflict)
	e.raw(`},"generation":{"groundedness":`)
	e.verdict(v.Generation.Groundedness)
	e.raw(`,"answerRelevance":`)
	e.verdict(v.Generation.AnswerRelevance)
	e.raw(`,"contradiction":`)
	e.verdict(v.Generation.Contradiction)
	if v.Generation.Correctness != nil {
		e.raw(`,"correctness":`)
		e.verdict(*v.Generation.Correctness)
	}
	e.raw(`}}`)
}

// outcome writes what the guard concluded: diagnosis, confidence, route,
// reason, action, the decision set and the evidence.
func (e *resultEncoder) outcome(r *guard.Result) {
	e.raw(`,"diagnosis":`)
	e.str(string(r.Diagnosis))
	e.raw(`,"confidence":`)
	e.float(r.Confidence)
	e.raw(`,"route":`)
	e.str(r.Route.String())
	if r.Reason != "" {
		e.raw(`,"reason":`)
		e.str(r.Reason)
	}
	e.raw(`,"action":`)
	e.str(r.Action.String())
	e.raw(`,"decisionId":`)
	e.str(r.DecisionID)
	e.raw(`,"decisionVersion":`)
	e.str(r.DecisionVersion)
	e.raw(`,"decisionVariant":`)
	e.str(string(r.DecisionVariant))
	e.raw(`,"diagnosisVersion":`)
	e.str(r.DiagnosisVersion)
	e.raw(`,"evidence":`)
	e.evidence(r.Evidence)
}

// details writes the optional lists and blocks: citations, abstentions,
// withheld verdicts, judges, errors, fallback, claims and usage.
func (e *resultEncoder) details(r *guard.Result) {
	if len(r.Citations) > 0 {
		e.raw(`,"citations":`)
		e.citations(r.Citations)
	}
	if len(r.Abstentions) > 0 {
		e.raw(`,"abstentions":`)
		e.abstentions(r.Abstentions)
	}
	if len(r.Withheld) > 0 {
		e.raw(`,"withheld":`)
		e.withheld(r.Withheld)
	}
	if len(r.Judges) > 0 {
		e.raw(`,"judges":`)
		e.judges(r.Judges)
	}
	if len(r.Errors) > 0 {
		e.raw(`,"errors":`)
		e.judgeErrors(r.Errors)
	}
	if r.Fallback != nil {
		e.raw(`,"fallback":`)
		e.fallback(r.Fallback)
	}
	if len(r.Claims) > 0 {
		e.raw(`,"claims":`)
		e.claims(r.Claims)
	}
	if r.Usage != (guard.Usage{}) {
		e.raw(`,"usage":`)
		e.usage(r.Usage)
	}
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped exactly as
// encoding/json escapes it: control characters, quote and backslash;
// <, > and & when html is set; U+2028 and U+2029 always; invalid UTF-8 as
// U+FFFD. Runs of eight plain ASCII bytes are copied without a look at
// each byte.
func appendJSONString(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	i := 0
	for i < len(s) {
		if i+8 <= len(s) {
			x := load8(s, i)
			// Any byte ≥ 0x80, < 0x20, '"' or '\\' (or <, >, & for html)?
			t := x&highs | (x-ones*0x20)&^x | (x^(ones*'"')-ones)&^(x^(ones*'"')) | (x^(ones*'\\')-ones)&^(x^(ones*'\\'))
			if html {
				t |= (x^(ones*'<')-ones)&^(x^(ones*'<')) | (x^(ones*'>')-ones)&^(x^(ones*'>')) | (x^(ones*'&')-ones)&^(x^(ones*'&'))
			}
			if t&highs == 0 {
				i += 8
				continue
			}
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && (!html || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load8 reads the eight bytes of s at i as a little-endian word.
func load8(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// Byte-parallel tests ("Determine if a word has a byte less than n", Sean
// Eron Anderson's Bit Twiddling Hacks): (x-ones*n)&^x has the high bit of
// some byte set exactly when some byte of x is less than n (n ≤ 128), and
// (y-ones)&^y, for y = x^(ones*c), when some byte equals c.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// appendEscapedByte appends the escape of an ASCII byte.
func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

// resultLayoutHash is the hash of the JSON-visible shape of Result that the
// encoder above was written for (see layoutSignature). When the shape
// changes, Append falls back to encoding/json and TestResultLayout fails
// until the encoder is brought up to date and the hash renewed.
const resultLayoutHash = 0x96c6f38edefa454

// resultLayout records whether Result still has the shape the encoder
// knows.
var resultLayout = func() (l struct {
	sig   string
	hash  uint64
	known bool
}) {
	l.sig = layoutSignature(reflect.TypeFor[guard.Result]())
	h := fnv.New64a()
	h.Write([]byte(l.sig))
	l.hash = h.Sum64()
	l.known = l.hash == resultLayoutHash
	return l
}()

// layoutSignature describes every JSON-visible part of t: for each struct
// reachable from it, its fields' names, types and tags; for each type, the
// JSON and text marshalers it has.
func layoutSignature(t reflect.Type) string {
	var sb strings.Builder
	seen := map[reflect.Type]bool{}
	marshaler := reflect.TypeFor[json.Marshaler]()
	textMarshaler := reflect.TypeFor[interface{ MarshalText() ([]byte, error) }]()
	zeroer := reflect.TypeFor[interface{ IsZero() bool }]()
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		fmt.Fprintf(&sb, "%s:%s", t.String(), t.Kind())
		if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
			sb.WriteString(":json")
		}
		if t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
			sb.WriteString(":text")
		}
		if t.Implements(zeroer) {
			sb.WriteString(":zero")
		}
		sb.WriteString(";")
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(t.Elem())
		case reflect.Map:
			walk(t.Key())
			walk(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() || f.Tag.Get("json") == "-" {
					continue
				}
				fmt.Fprintf(&sb, "%s.%s %s `%s`;", t.Name(), f.Name, f.Type, f.Tag.Get("json"))
				walk(f.Type)
			}
		}
	}
	walk(t)
	return sb.String()
}
