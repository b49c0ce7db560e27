package otlp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// MaxLineBytes is the longest OTLP JSON line Read accepts (64 MiB):
// the Collector's file exporter writes one batch of spans per line. A longer
// line is reported and skipped.
const MaxLineBytes = 64 << 20

// maxProblems bounds Stats.Problems; the counts stay exact.
const maxProblems = 1000

// Stats counts what Read saw. Lines = BadLines + the lines parsed;
// EvaluationSpans = Records + NoResult + BadSpans.
type Stats struct {
	Lines           int // non-blank lines
	BadLines        int // lines that are not OTLP JSON (reported in Problems)
	Spans           int // spans on the good lines
	EvaluationSpans int // spans named otelkeys.SpanEvaluation
	Records         int // records passed to fn
	WithSample      int // records that carry the sample (content capture was on)
	NoResult        int // evaluation spans of evaluations that gave no result
	BadSpans        int // evaluation spans that could not be rebuilt (reported in Problems)
	// Incomplete counts records rebuilt with a decision missing (its event was
	// dropped, e.g. by the span's event limit); each is also in Problems.
	Incomplete int
	// Problems lists the first 1000 problems, each with its line number.
	Problems []Problem
}

// Problem is one bad line or span.
type Problem struct {
	Line   int    // 1-based line number
	SpanID string // the span's ID, when the problem is about a span
	Reason string
}

func (p Problem) String() string {
	if p.SpanID != "" {
		return fmt.Sprintf("line %d: span %s: %s", p.Line, p.SpanID, p.Reason)
	}
	return fmt.Sprintf("line %d: %s", p.Line, p.Reason)
}

func (st *Stats) problem(line int, span, format string, args ...any) {
	if len(st.Problems) < maxProblems {
		st.Problems = append(st.Problems, Problem{Line: line, SpanID: span, Reason: fmt.Sprintf(format, args...)})
	}
}

// Read reads the OTLP JSON Lines that the OpenTelemetry Collector's file
// exporter writes (one ExportTraceServiceRequest per line) and rebuilds a
// Record from every evaluation span the middleware recorded, calling fn with
// the line number and the record, in file order. A record carries its
// Sample only when the application captured content (middleware.WithContent);
// otherwise it carries the Result only. The rebuilt Result holds what the
// span carries — probabilities, verdicts, diagnosis, route, action,
// definitions, judges, usage, fallback — but no evidence, citations or claims,
// which never go on spans; its Metadata is nil.
//
// A line that is not OTLP JSON, or an evaluation span that cannot be rebuilt,
// is skipped, counted and listed in the stats' Problems with its line number.
// Lines holding other signals (metrics, logs) are counted but hold no spans.
// Read stops at the first error of r or fn and returns it.
func Read(r io.Reader, fn func(line int, rec record.Record) error) (Stats, error) {
	var st Stats
	br := bufio.NewReaderSize(r, 1<<16)
	var buf []byte
	for lineNo := 1; ; lineNo++ {
		line, tooLong, err := readLine(br, &buf)
		if err != nil && err != io.EOF {
			return st, fmt.Errorf("evalkit: reading OTLP line %d: %w", lineNo, err)
		}
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			st.Lines++
			if tooLong {
				st.BadLines++
				st.problem(lineNo, "", "line is over the limit of %d bytes", MaxLineBytes)
			} else if ferr := readOTLPLine(&st, lineNo, line, fn); ferr != nil {
				return st, ferr
			}
		}
		if err == io.EOF {
			return st, nil
		}
	}
}

// readLine returns the next line without its newline; a line over the limit
// is consumed and reported as tooLong.
func readLine(br *bufio.Reader, buf *[]byte) (line []byte, tooLong bool, err error) {
	b := (*buf)[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(b)+len(chunk) > MaxLineBytes+1 {
				tooLong, b = true, b[:0]
			} else {
				b = append(b, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		*buf = b
		return bytes.TrimSuffix(b, []byte("\n")), tooLong, err
	}
}

// The OTLP JSON shapes, as far as Read needs them.
type otlpFile struct {
	ResourceSpans []struct {
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
	ResourceMetrics json.RawMessage `json:"resourceMetrics"`
	ResourceLogs    json.RawMessage `json:"resourceLogs"`
}

type otlpSpan struct {
	TraceID           string         `json:"traceId"`
	SpanID            string         `json:"spanId"`
	ParentSpanID      string         `json:"parentSpanId"`
	Name              string         `json:"name"`
	StartTimeUnixNano otlpUint       `json:"startTimeUnixNano"`
	Attributes        []otlpKeyValue `json:"attributes"`
	Events            []otlpEvent    `json:"events"`
}

type otlpEvent struct {
	Name       string         `json:"name"`
	Attributes []otlpKeyValue `json:"attributes"`
}

type otlpKeyValue struct {
	Key   string       `json:"key"`
	Value otlpAnyValue `json:"value"`
}

type otlpAnyValue struct {
	StringValue *string     `json:"stringValue"`
	BoolValue   *bool       `json:"boolValue"`
	IntValue    *otlpInt    `json:"intValue"`
	DoubleValue *otlpDouble `json:"doubleValue"`
	ArrayValue  *struct {
		Values []otlpAnyValue `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []otlpKeyValue `json:"values"`
	} `json:"kvlistValue"`
}

// otlpInt reads an int64 written as a JSON string (the OTLP JSON rule) or a
// number.
type otlpInt int64

func (n *otlpInt) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("integer %s: %w", b, err)
	}
	*n = otlpInt(v)
	return nil
}

// otlpUint reads a uint64 written as a JSON string or a number.
type otlpUint uint64

func (n *otlpUint) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("unsigned integer %s: %w", b, err)
	}
	*n = otlpUint(v)
	return nil
}

// otlpDouble reads a double, which protobuf JSON may write as a number or as
// the strings "NaN", "Infinity", "-Infinity".
type otlpDouble float64

func (d *otlpDouble) UnmarshalJSON(b []byte) error {
	s := string(b)
	switch s {
	case `"NaN"`:
		*d = otlpDouble(math.NaN())
		return nil
	case `"Infinity"`:
		*d = otlpDouble(math.Inf(1))
		return nil
	case `"-Infinity"`:
		*d = otlpDouble(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(strings.Trim(s, `"`), 64)
	if err != nil {
		return fmt.Errorf("double %s: %w", b, err)
	}
	*d = otlpDouble(v)
	return nil
}

func readOTLPLine(st *Stats, lineNo int, line []byte, fn func(int, record.Record) error) error {
	if !utf8.Valid(line) {
		st.BadLines++
		st.problem(lineNo, "", "invalid UTF-8")
		return nil
	}
	var f otlpFile
	if err := json.Unmarshal(line, &f); err != nil {
		st.BadLines++
		st.problem(lineNo, "", "not OTLP JSON: %v", err)
		return nil
	}
	if f.ResourceSpans == nil && f.ResourceMetrics == nil && f.ResourceLogs == nil {
		st.BadLines++
		st.problem(lineNo, "", "not OTLP JSON: no resourceSpans, resourceMetrics or resourceLogs")
		return nil
	}
	for _, rs := range f.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for i := range ss.Spans {
				sp := &ss.Spans[i]
				st.Spans++
				if sp.Name != otelkeys.SpanEvaluation {
					continue
				}
				st.EvaluationSpans++
				rec, ok, why, incomplete := spanRecord(sp)
				switch {
				case why != "" && !ok:
					st.BadSpans++
					st.problem(lineNo, sp.SpanID, "%s", why)
					continue
				case !ok:
					st.NoResult++
					continue
				}
				if incomplete != "" {
					st.Incomplete++
					st.problem(lineNo, sp.SpanID, "%s", incomplete)
				}
				st.Records++
				if rec.Sample != nil {
					st.WithSample++
				}
				if err := fn(lineNo, rec); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// attrs is a span's or event's attributes by key.
type attrs map[string]*otlpAnyValue

func attrMap(kvs []otlpKeyValue) attrs {
	m := make(attrs, len(kvs))
	for i := range kvs {
		m[kvs[i].Key] = &kvs[i].Value
	}
	return m
}

func (a attrs) str(k string) (string, bool) {
	if v := a[k]; v != nil && v.StringValue != nil {
		return *v.StringValue, true
	}
	return "", false
}

func (a attrs) float(k string) (float64, bool) {
	v := a[k]
	switch {
	case v == nil:
		return 0, false
	case v.DoubleValue != nil:
		return float64(*v.DoubleValue), true
	case v.IntValue != nil:
		return float64(*v.IntValue), true
	}
	return 0, false
}

func (a attrs) int(k string) (int, bool) {
	if v := a[k]; v != nil && v.IntValue != nil {
		return int(*v.IntValue), true
	}
	return 0, false
}

// strs reads a string array; ok is false when absent, and an error when an
// element is not a string.
func (a attrs) strs(k string) ([]string, bool, error) {
	v := a[k]
	if v == nil {
		return nil, false, nil
	}
	if v.ArrayValue == nil {
		return nil, true, fmt.Errorf("%s: want an array of strings", k)
	}
	out := make([]string, len(v.ArrayValue.Values))
	for i, e := range v.ArrayValue.Values {
		if e.StringValue == nil {
			return nil, true, fmt.Errorf("%s[%d]: want a string", k, i)
		}
		out[i] = *e.StringValue
	}
	return out, true, nil
}

// spanRecord rebuilds the record of one evaluation span. ok is false with an
// empty why for an evaluation that gave no result; why says what is wrong
// otherwise; incomplete names a missing decision in a usable record.
func spanRecord(sp *otlpSpan) (rec record.Record, ok bool, why, incomplete string) {
	a := attrMap(sp.Attributes)
	fail := func(format string, args ...any) (record.Record, bool, string, string) {
		return record.Record{}, false, fmt.Sprintf(format, args...), ""
	}
	id, _ := a.str(otelkeys.SampleID)
	if id == "" {
		return fail("no %s attribute", otelkeys.SampleID)
	}
	if _, noResult := a.str(otelkeys.EvaluationError); noResult {
		return record.Record{}, false, "", ""
	}
	if !isHex(sp.TraceID, 32) || !isHex(sp.SpanID, 16) {
		return fail("sample %s: trace or span ID is not hex (traceId %q, spanId %q)", id, sp.TraceID, sp.SpanID)
	}
	rec = record.Record{Version: record.Version, ID: id, TraceID: strings.ToLower(sp.TraceID), SpanID: strings.ToLower(sp.SpanID)}
	if sp.StartTimeUnixNano > math.MaxInt64 {
		return fail("sample %s: start time %d out of range", id, sp.StartTimeUnixNano)
	}
	rec.Time = time.Unix(0, int64(sp.StartTimeUnixNano)).UTC()

	r := &rec.Result
	diag, _ := a.str(otelkeys.Diagnosis)
	if diag == "" {
		return fail("sample %s: no %s attribute", id, otelkeys.Diagnosis)
	}
	r.Diagnosis = guard.Diagnosis(diag)
	r.DiagnosisVersion, _ = a.str(otelkeys.DiagnosisVersion)
	r.Confidence, _ = a.float(otelkeys.Confidence)
	route, _ := a.str(otelkeys.Route)
	switch route {
	case "auto":
		r.Route = guard.Auto
	case "fallback":
		r.Route = guard.Fallback
	default:
		return fail("sample %s: %s %q: want auto or fallback", id, otelkeys.Route, route)
	}
	act, _ := a.str(otelkeys.Action)
	if err := r.Action.UnmarshalText([]byte(act)); err != nil {
		return fail("sample %s: %s: %v", id, otelkeys.Action, err)
	}
	r.Reason, _ = a.str(otelkeys.Reason)
	r.DecisionID, _ = a.str(otelkeys.DecisionID)
	r.DecisionVersion, _ = a.str(otelkeys.DecisionVersion)
	variant, _ := a.str(otelkeys.DecisionVariant)
	r.DecisionVariant = guard.Variant(variant)
	r.LatencyMs, _ = a.float(otelkeys.LatencyMs)
	r.Evidence = []guard.Evidence{}

	judges, _, err := a.strs(otelkeys.Judges)
	if err != nil {
		return fail("sample %s: %v", id, err)
	}
	if len(judges) > 0 {
		r.Judges = make(map[string]string, len(judges))
		for _, j := range judges {
			at := strings.LastIndexByte(j, '@')
			if at < 0 {
				return fail("sample %s: %s entry %q: want name@version", id, otelkeys.Judges, j)
			}
			r.Judges[j[:at]] = j[at+1:]
		}
	}
	failedJudges, _, err := a.strs(otelkeys.JudgeErrors)
	if err != nil {
		return fail("sample %s: %v", id, err)
	}
	failCauses, _, err := a.strs(otelkeys.JudgeErrorCauses)
	if err != nil {
		return fail("sample %s: %v", id, err)
	}
	for i, j := range failedJudges {
		je := guard.JudgeError{Judge: j, Message: "judge failed (the message is not traced)"}
		if i < len(failCauses) {
			je.Cause = guard.Cause(failCauses[i])
		}
		r.Errors = append(r.Errors, je)
	}
	r.Usage = usageAttrs(a, otelkeys.UsageInputTokens, otelkeys.UsageOutputTokens, otelkeys.UsageCalls, otelkeys.UsageRetries)

	var fbUsage guard.Usage
	if fj, ok := a.str(otelkeys.FallbackJudge); ok {
		f := &guard.FallbackInfo{Judge: fj}
		ds, _, err := a.strs(otelkeys.FallbackDecisions)
		if err != nil {
			return fail("sample %s: %v", id, err)
		}
		for _, d := range ds {
			dd, err := guard.ParseDecision(d)
			if err != nil {
				return fail("sample %s: %s: %v", id, otelkeys.FallbackDecisions, err)
			}
			f.Decisions = append(f.Decisions, dd)
		}
		f.Contexts, _, err = a.strs(otelkeys.FallbackContexts)
		if err != nil {
			return fail("sample %s: %v", id, err)
		}
		if len(f.Contexts) == 0 {
			f.Contexts = nil
		}
		f.Settled, _ = a.int(otelkeys.FallbackSettled)
		f.Unsettled, _ = a.int(otelkeys.FallbackUnsettled)
		f.Reason, _ = a.str(otelkeys.FallbackReason)
		cause, _ := a.str(otelkeys.FallbackCause)
		f.Cause = guard.Cause(cause)
		causes, _, err := a.strs(otelkeys.FallbackCauses)
		if err != nil {
			return fail("sample %s: %v", id, err)
		}
		for _, c := range causes {
			if f.Causes == nil {
				f.Causes = make(map[guard.Cause]int, 2)
			}
			f.Causes[guard.Cause(c)]++
		}
		rule, _ := a.str(otelkeys.FallbackRule)
		if err := f.Rule.UnmarshalText([]byte(rule)); err != nil {
			return fail("sample %s: %s: %v", id, otelkeys.FallbackRule, err)
		}
		f.LatencyMs, _ = a.float(otelkeys.FallbackLatencyMs)
		fbUsage = usageAttrs(a, otelkeys.FallbackInputTokens, otelkeys.FallbackOutputTokens, otelkeys.FallbackCalls, otelkeys.FallbackRetries)
		f.Usage = fbUsage
		r.Fallback = f
	}

	ids, _, err := a.strs(otelkeys.ContextIDs)
	if err != nil {
		return fail("sample %s: %v", id, err)
	}
	if why := decisionEvents(sp, ids, r, &incomplete); why != "" {
		return fail("sample %s: %s", id, why)
	}
	rec.Legs = record.Legs(r, fbUsage)

	if q, ok := a.str(otelkeys.SampleQuestion); ok {
		s := &record.Sample{Question: q}
		s.Answer, _ = a.str(otelkeys.SampleAnswer)
		s.OriginalQuestion, _ = a.str(otelkeys.SampleOriginalQuestion)
		if ref, ok := a.str(otelkeys.SampleReference); ok {
			s.Reference = &ref
		}
		texts, _, err := a.strs(otelkeys.SampleContextTexts)
		if err != nil {
			return fail("sample %s: %v", id, err)
		}
		if len(texts) != len(ids) {
			return fail("sample %s: %d context texts for %d context IDs", id, len(texts), len(ids))
		}
		s.Contexts = make([]record.Context, len(ids))
		for i := range ids {
			s.Contexts[i] = record.Context{ID: ids[i], Text: texts[i]}
		}
		rec.Sample = s
	}
	return rec, true, "", incomplete
}

func usageAttrs(a attrs, in, out, calls, retries string) guard.Usage {
	var u guard.Usage
	u.InputTokens, _ = a.int(in)
	u.OutputTokens, _ = a.int(out)
	u.Calls, _ = a.int(calls)
	u.Retries, _ = a.int(retries)
	return u
}

// decisionEvents fills the probabilities, verdicts and abstentions from the
// span's gen_ai.evaluation.result events.
func decisionEvents(sp *otlpSpan, ids []string, r *guard.Result, incomplete *string) string {
	type ev struct {
		p      guard.Prob
		v      guard.Verdict
		judge  string
		reason string
		cause  guard.Cause
	}
	single := map[guard.Decision]*ev{}
	chunks := map[string]*ev{}
	// A span without the verdicts attribute is older: its labels on the
	// adverse decisions are verdicts on the proposition ("pass" = a
	// conflict), turned here into verdicts on the answer.
	sem, _ := attrMap(sp.Attributes).str(otelkeys.Verdicts)
	old := sem == ""
	if !old && sem != otelkeys.VerdictsForAnswer {
		return fmt.Sprintf("%s %q: want %q", otelkeys.Verdicts, sem, otelkeys.VerdictsForAnswer)
	}
	for i := range sp.Events {
		e := &sp.Events[i]
		if e.Name != otelkeys.EventEvaluationResult {
			continue
		}
		a := attrMap(e.Attributes)
		name, _ := a.str(otelkeys.GenAIEvaluationName)
		d, err := guard.ParseDecision(name)
		if err != nil {
			return fmt.Sprintf("event %d: %v", i, err)
		}
		x := &ev{p: guard.Prob{Asked: true}}
		label, _ := a.str(otelkeys.GenAIEvaluationScoreLabel)
		switch label {
		case otelkeys.LabelPass:
			x.v = guard.Pass
		case otelkeys.LabelFail:
			x.v = guard.Fail
		case otelkeys.LabelUncertain:
			x.v = guard.Uncertain
		default:
			return fmt.Sprintf("event %d (%s): score label %q: want pass, fail or uncertain", i, name, label)
		}
		if old {
			x.v = d.AnswerVerdict(x.v)
		}
		if p, ok := a.float(otelkeys.GenAIEvaluationScoreValue); ok {
			x.p = guard.KnownProb(p)
		} else {
			x.reason, _ = a.str(otelkeys.GenAIEvaluationExplanation)
			x.judge, _ = a.str(otelkeys.EventJudge)
			cause, _ := a.str(otelkeys.EventCause)
			x.cause = guard.Cause(cause)
		}
		if d == guard.ChunkRelevance {
			cid, _ := a.str(otelkeys.EventContextID)
			if cid == "" {
				return fmt.Sprintf("event %d: chunk_relevance without %s", i, otelkeys.EventContextID)
			}
			chunks[cid] = x
		} else {
			single[d] = x
		}
	}
	var missing []string
	abstain := func(d guard.Decision, cid string, x *ev) {
		if !x.p.Known {
			r.Abstentions = append(r.Abstentions, guard.Abstention{Decision: d, ContextID: cid, Judge: x.judge, Reason: x.reason, Cause: x.cause})
		}
	}
	r.Retrieval.ChunkRelevance = make(guard.Keyed[guard.Prob], len(ids))
	r.Verdicts.Retrieval.ChunkRelevance = make(guard.Keyed[guard.Verdict], len(ids))
	for i, cid := range ids {
		x := chunks[cid]
		if x == nil {
			missing = append(missing, "chunk_relevance["+cid+"]")
			x = &ev{p: guard.Prob{Asked: true}, reason: "not in the trace"}
		}
		r.Retrieval.ChunkRelevance[i] = guard.Entry[guard.Prob]{Key: cid, Value: x.p}
		r.Verdicts.Retrieval.ChunkRelevance[i] = guard.Entry[guard.Verdict]{Key: cid, Value: x.v}
		abstain(guard.ChunkRelevance, cid, x)
	}
	for cid := range chunks {
		if !slices.Contains(ids, cid) {
			return fmt.Sprintf("chunk_relevance event for context %q, which is not in %s", cid, otelkeys.ContextIDs)
		}
	}
	for _, d := range guard.Decisions[1:] {
		x := single[d]
		if x == nil {
			if d == guard.Correctness && r.DecisionVariant != guard.WithReference {
				continue // absent without a reference
			}
			missing = append(missing, d.String())
			x = &ev{p: guard.Prob{Asked: true}, reason: "not in the trace"}
		}
		abstain(d, "", x)
		r.Set(d, x.p, x.v)
	}
	if len(missing) > 0 {
		*incomplete = "no event for " + strings.Join(missing, ", ") + " (recorded as unknown)"
	}
	return ""
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

var _ = errors.New
