package otlp

import (
	"bufio"
	"bytes"
	"encoding/hex"
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
// EvaluationSpans = Records + NoResult + BadSpans + Repeated.
type Stats struct {
	Lines           int // non-blank lines
	BadLines        int // lines that are not OTLP JSON (reported in Problems)
	Spans           int // spans on the good lines
	EvaluationSpans int // spans named otelkeys.SpanEvaluation
	Records         int // records passed to fn
	WithSample      int // records that carry the sample (content capture was on)
	NoResult        int // evaluation spans of evaluations that gave no result
	BadSpans        int // evaluation spans that could not be rebuilt (reported in Problems)
	// Repeated counts the evaluation spans whose trace and span ID were
	// already read (a batch exported twice): each span counts once, and
	// each repeat is listed in Problems.
	Repeated int
	// OldFormat counts the bad spans refused because they are in the old
	// verdict format (no ragtriage.verdicts attribute).
	OldFormat int
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
	// Repeat marks a span read before (Stats.Repeated): it was skipped, and
	// is not a bad span.
	Repeat bool
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
// A span in the old verdict format (without ragtriage.verdicts=answer) is
// such a span: it is refused, never converted, and also counted in
// Stats.OldFormat.
// An evaluation span with the trace and span ID of one read before (the
// same batch exported twice) is skipped: it counts once, in
// Stats.Repeated, and is listed in Problems marked Repeat.
// Lines holding other signals (metrics, logs) are counted but hold no spans.
// Read stops at the first error of r or fn and returns it.
func Read(r io.Reader, fn func(line int, rec record.Record) error) (Stats, error) {
	return NewReader().Read(r, fn)
}

// A Reader reads OTLP JSON files one after the other and remembers the
// evaluation spans it has read, so that a span repeated within a file or
// across files counts once. A Reader must not be used concurrently.
type Reader struct {
	seen  map[spanKey]spanSeen
	files int
}

// spanKey is a span's trace and span IDs, decoded from hex.
type spanKey [24]byte

// spanSeen says where a span was first read: the file's ordinal and line.
type spanSeen struct{ file, line int }

// NewReader returns a Reader that has read nothing.
func NewReader() *Reader { return &Reader{seen: map[spanKey]spanSeen{}} }

// Read is like the function Read, and skips the evaluation spans that this
// Reader has read before (counted in Stats.Repeated).
func (rd *Reader) Read(r io.Reader, fn func(line int, rec record.Record) error) (Stats, error) {
	rd.files++
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
			} else if ferr := rd.readOTLPLine(&st, lineNo, line, fn); ferr != nil {
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

func (rd *Reader) readOTLPLine(st *Stats, lineNo int, line []byte, fn func(int, record.Record) error) error {
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
				if rd.repeated(st, lineNo, sp) {
					continue
				}
				rec, incomplete, err := spanRecord(sp)
				switch {
				case err == errNoResult:
					st.NoResult++
					continue
				case err != nil:
					st.BadSpans++
					if errors.Is(err, errOldVerdicts) {
						st.OldFormat++
					}
					st.problem(lineNo, sp.SpanID, "%v", err)
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

// repeated reports whether the span was read before, and then counts and
// lists it. A span whose IDs are not hex is never a repeat: it is bad.
func (rd *Reader) repeated(st *Stats, lineNo int, sp *otlpSpan) bool {
	var k spanKey
	if !isHex(sp.TraceID, 32) || !isHex(sp.SpanID, 16) {
		return false
	}
	hex.Decode(k[:16], []byte(sp.TraceID))
	hex.Decode(k[16:], []byte(sp.SpanID))
	first, ok := rd.seen[k]
	if !ok {
		rd.seen[k] = spanSeen{file: rd.files, line: lineNo}
		return false
	}
	st.Repeated++
	where := fmt.Sprintf("line %d", first.line)
	if first.file != rd.files {
		where += " of an earlier file"
	}
	if len(st.Problems) < maxProblems {
		st.Problems = append(st.Problems, Problem{Line: lineNo, SpanID: strings.ToLower(sp.SpanID), Repeat: true,
			Reason: fmt.Sprintf("span repeated: trace %s span %s was read at %s; counted once", strings.ToLower(sp.TraceID), strings.ToLower(sp.SpanID), where)})
	}
	return true
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

// errNoResult marks an evaluation span of an evaluation that gave no result.
var errNoResult = errors.New("no result")

// errOldVerdicts marks an evaluation span written before the
// otelkeys.Verdicts attribute: its context_conflict and contradiction
// labels are verdicts on the proposition ("pass" = a conflict), and it is
// refused, not converted.
var errOldVerdicts = fmt.Errorf("no %s attribute: the span is in the old format, whose context_conflict and contradiction labels "+
	"are verdicts on the proposition; this version reads spans with %s=%s only", otelkeys.Verdicts, otelkeys.Verdicts, otelkeys.VerdictsForAnswer)

// spanRecord rebuilds the record of one evaluation span. err is errNoResult
// for an evaluation that gave no result and says what is wrong otherwise;
// incomplete names a missing decision in a usable record.
func spanRecord(sp *otlpSpan) (rec record.Record, incomplete string, err error) {
	a := attrMap(sp.Attributes)
	id, _ := a.str(otelkeys.SampleID)
	if id == "" {
		return rec, "", fmt.Errorf("no %s attribute", otelkeys.SampleID)
	}
	if _, noResult := a.str(otelkeys.EvaluationError); noResult {
		return rec, "", errNoResult
	}
	fail := func(err error) (record.Record, string, error) {
		return record.Record{}, "", fmt.Errorf("sample %s: %w", id, err)
	}
	rec, err = spanIdentity(sp, id)
	if err != nil {
		return fail(err)
	}
	r := &rec.Result
	if err := outcomeAttrs(a, r); err != nil {
		return fail(err)
	}
	if err := judgeAttrs(a, r); err != nil {
		return fail(err)
	}
	var fbUsage guard.Usage
	if r.Fallback, fbUsage, err = fallbackAttrs(a); err != nil {
		return fail(err)
	}
	ids, _, err := a.strs(otelkeys.ContextIDs)
	if err != nil {
		return fail(err)
	}
	if incomplete, err = decisionEvents(sp, ids, r); err != nil {
		return fail(err)
	}
	if rec.EvidenceKinds, err = evidenceKindsAttr(a); err != nil {
		return fail(err)
	}
	rec.Legs = record.Legs(r, fbUsage)
	if rec.Sample, err = sampleAttrs(a, ids); err != nil {
		return fail(err)
	}
	if err := record.Check(&rec); err != nil {
		return fail(err)
	}
	return rec, incomplete, nil
}

// spanIdentity starts the record of the span: its version, sample ID, trace
// and span IDs and time.
func spanIdentity(sp *otlpSpan, id string) (record.Record, error) {
	if !isHex(sp.TraceID, 32) || !isHex(sp.SpanID, 16) {
		return record.Record{}, fmt.Errorf("trace or span ID is not hex (traceId %q, spanId %q)", sp.TraceID, sp.SpanID)
	}
	if sp.StartTimeUnixNano > math.MaxInt64 {
		return record.Record{}, fmt.Errorf("start time %d out of range", sp.StartTimeUnixNano)
	}
	return record.Record{Version: record.Version, ID: id, TraceID: strings.ToLower(sp.TraceID), SpanID: strings.ToLower(sp.SpanID),
		Time: time.Unix(0, int64(sp.StartTimeUnixNano)).UTC()}, nil
}

// outcomeAttrs reads what the guard concluded: diagnosis, route, action,
// reason, the decision set and the latency.
func outcomeAttrs(a attrs, r *guard.Result) error {
	diag, _ := a.str(otelkeys.Diagnosis)
	if diag == "" {
		return fmt.Errorf("no %s attribute", otelkeys.Diagnosis)
	}
	r.Diagnosis = guard.Diagnosis(diag)
	r.DiagnosisVersion, _ = a.str(otelkeys.DiagnosisVersion)
	r.Confidence, _ = a.float(otelkeys.Confidence)
	switch route, _ := a.str(otelkeys.Route); route {
	case "auto":
		r.Route = guard.Auto
	case "fallback":
		r.Route = guard.Fallback
	case "review":
		r.Route = guard.RouteReview
	default:
		return fmt.Errorf("%s %q: want auto, fallback or review", otelkeys.Route, route)
	}
	act, _ := a.str(otelkeys.Action)
	if err := r.Action.UnmarshalText([]byte(act)); err != nil {
		return fmt.Errorf("%s: %v", otelkeys.Action, err)
	}
	r.Reason, _ = a.str(otelkeys.Reason)
	r.DecisionID, _ = a.str(otelkeys.DecisionID)
	r.DecisionVersion, _ = a.str(otelkeys.DecisionVersion)
	variant, _ := a.str(otelkeys.DecisionVariant)
	r.DecisionVariant = guard.Variant(variant)
	r.LatencyMs, _ = a.float(otelkeys.LatencyMs)
	r.Evidence = []guard.Evidence{}
	return nil
}

// judgeAttrs reads the primary judges, the judges that failed and the
// primary's usage.
func judgeAttrs(a attrs, r *guard.Result) error {
	judges, _, err := a.strs(otelkeys.Judges)
	if err != nil {
		return err
	}
	if len(judges) > 0 {
		r.Judges = make(map[string]string, len(judges))
		for _, j := range judges {
			at := strings.LastIndexByte(j, '@')
			if at < 0 {
				return fmt.Errorf("%s entry %q: want name@version", otelkeys.Judges, j)
			}
			r.Judges[j[:at]] = j[at+1:]
		}
	}
	failedJudges, _, err := a.strs(otelkeys.JudgeErrors)
	if err != nil {
		return err
	}
	failCauses, _, err := a.strs(otelkeys.JudgeErrorCauses)
	if err != nil {
		return err
	}
	for i, j := range failedJudges {
		je := guard.JudgeError{Judge: j, Message: "judge failed (the message is not traced)"}
		if i < len(failCauses) {
			je.Cause = guard.Cause(failCauses[i])
		}
		r.Errors = append(r.Errors, je)
	}
	r.Usage = usageAttrs(a, otelkeys.UsageInputTokens, otelkeys.UsageOutputTokens, otelkeys.UsageCalls, otelkeys.UsageRetries)
	return nil
}

// fallbackAttrs reads the escalation to the fallback judge, when the span
// has one (nil otherwise), and the fallback's usage.
func fallbackAttrs(a attrs) (*guard.FallbackInfo, guard.Usage, error) {
	fj, ok := a.str(otelkeys.FallbackJudge)
	if !ok {
		return nil, guard.Usage{}, nil
	}
	f := &guard.FallbackInfo{Judge: fj}
	ds, _, err := a.strs(otelkeys.FallbackDecisions)
	if err != nil {
		return nil, guard.Usage{}, err
	}
	for _, d := range ds {
		dd, err := guard.ParseDecision(d)
		if err != nil {
			return nil, guard.Usage{}, fmt.Errorf("%s: %v", otelkeys.FallbackDecisions, err)
		}
		f.Decisions = append(f.Decisions, dd)
	}
	if f.Contexts, _, err = a.strs(otelkeys.FallbackContexts); err != nil {
		return nil, guard.Usage{}, err
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
		return nil, guard.Usage{}, err
	}
	for _, c := range causes {
		if f.Causes == nil {
			f.Causes = make(map[guard.Cause]int, 2)
		}
		f.Causes[guard.Cause(c)]++
	}
	rule, _ := a.str(otelkeys.FallbackRule)
	if err := f.Rule.UnmarshalText([]byte(rule)); err != nil {
		return nil, guard.Usage{}, fmt.Errorf("%s: %v", otelkeys.FallbackRule, err)
	}
	f.LatencyMs, _ = a.float(otelkeys.FallbackLatencyMs)
	f.Usage = usageAttrs(a, otelkeys.FallbackInputTokens, otelkeys.FallbackOutputTokens, otelkeys.FallbackCalls, otelkeys.FallbackRetries)
	return f, f.Usage, nil
}

// sampleAttrs reads the captured sample, when content capture was on (nil
// otherwise).
func sampleAttrs(a attrs, ids []string) (*record.Sample, error) {
	q, ok := a.str(otelkeys.SampleQuestion)
	if !ok {
		return nil, nil
	}
	s := &record.Sample{Question: q}
	s.Answer, _ = a.str(otelkeys.SampleAnswer)
	s.OriginalQuestion, _ = a.str(otelkeys.SampleOriginalQuestion)
	if ref, ok := a.str(otelkeys.SampleReference); ok {
		s.Reference = &ref
	}
	texts, _, err := a.strs(otelkeys.SampleContextTexts)
	if err != nil {
		return nil, err
	}
	if len(texts) != len(ids) {
		return nil, fmt.Errorf("%d context texts for %d context IDs", len(texts), len(ids))
	}
	s.Contexts = make([]record.Context, len(ids))
	for i := range ids {
		s.Contexts[i] = record.Context{ID: ids[i], Text: texts[i]}
	}
	return s, nil
}

func usageAttrs(a attrs, in, out, calls, retries string) guard.Usage {
	var u guard.Usage
	u.InputTokens, _ = a.int(in)
	u.OutputTokens, _ = a.int(out)
	u.Calls, _ = a.int(calls)
	u.Retries, _ = a.int(retries)
	return u
}

// event is what one gen_ai.evaluation.result event says about a decision.
type event struct {
	p      guard.Prob
	v      guard.Verdict
	judge  string
	reason string
	cause  guard.Cause
}

// missingEvent stands for a decision whose event is not in the span.
func missingEvent() *event { return &event{p: guard.Prob{Asked: true}, reason: "not in the trace"} }

// decisionEvents fills the probabilities, verdicts and abstentions from the
// span's gen_ai.evaluation.result events; incomplete names the decisions
// that have no event.
func decisionEvents(sp *otlpSpan, ids []string, r *guard.Result) (incomplete string, err error) {
	switch sem, _ := attrMap(sp.Attributes).str(otelkeys.Verdicts); sem {
	case otelkeys.VerdictsForAnswer:
	case "":
		return "", errOldVerdicts
	default:
		return "", fmt.Errorf("%s %q: want %q", otelkeys.Verdicts, sem, otelkeys.VerdictsForAnswer)
	}
	single, chunks, err := readEvents(sp.Events)
	if err != nil {
		return "", err
	}
	for cid := range chunks {
		if !slices.Contains(ids, cid) {
			return "", fmt.Errorf("chunk_relevance event for context %q, which is not in %s", cid, otelkeys.ContextIDs)
		}
	}
	missing := setChunkEvents(r, ids, chunks)
	for _, d := range guard.Decisions[1:] {
		x := single[d]
		if x == nil {
			if d == guard.Correctness && r.DecisionVariant != guard.WithReference {
				continue // absent without a reference
			}
			missing = append(missing, d.String())
			x = missingEvent()
		}
		abstainIfUnknown(r, d, "", x)
		r.Set(d, x.p, x.v)
	}
	if len(missing) > 0 {
		return "no event for " + strings.Join(missing, ", ") + " (recorded as unknown)", nil
	}
	return "", nil
}

// readEvents decodes the evaluation-result events: those of the
// single-valued decisions by decision, those of chunk_relevance by context ID.
func readEvents(events []otlpEvent) (single map[guard.Decision]*event, chunks map[string]*event, err error) {
	single, chunks = map[guard.Decision]*event{}, map[string]*event{}
	for i := range events {
		e := &events[i]
		if e.Name != otelkeys.EventEvaluationResult {
			continue
		}
		a := attrMap(e.Attributes)
		name, _ := a.str(otelkeys.GenAIEvaluationName)
		d, err := guard.ParseDecision(name)
		if err != nil {
			return nil, nil, fmt.Errorf("event %d: %v", i, err)
		}
		x := &event{p: guard.Prob{Asked: true}}
		switch label, _ := a.str(otelkeys.GenAIEvaluationScoreLabel); label {
		case otelkeys.LabelPass:
			x.v = guard.Pass
		case otelkeys.LabelFail:
			x.v = guard.Fail
		case otelkeys.LabelUncertain:
			x.v = guard.Uncertain
		default:
			return nil, nil, fmt.Errorf("event %d (%s): score label %q: want pass, fail or uncertain", i, name, label)
		}
		if p, ok := a.float(otelkeys.GenAIEvaluationScoreValue); ok {
			x.p = guard.KnownProb(p)
		} else {
			x.reason, _ = a.str(otelkeys.GenAIEvaluationExplanation)
			x.judge, _ = a.str(otelkeys.EventJudge)
			cause, _ := a.str(otelkeys.EventCause)
			x.cause = guard.Cause(cause)
		}
		if d != guard.ChunkRelevance {
			single[d] = x
			continue
		}
		cid, _ := a.str(otelkeys.EventContextID)
		if cid == "" {
			return nil, nil, fmt.Errorf("event %d: chunk_relevance without %s", i, otelkeys.EventContextID)
		}
		chunks[cid] = x
	}
	return single, chunks, nil
}

// setChunkEvents sets chunk_relevance for each context in ids, in their
// order, and returns the contexts that have no event.
func setChunkEvents(r *guard.Result, ids []string, chunks map[string]*event) (missing []string) {
	r.Retrieval.ChunkRelevance = make(guard.Keyed[guard.Prob], len(ids))
	r.Verdicts.Retrieval.ChunkRelevance = make(guard.Keyed[guard.Verdict], len(ids))
	for i, cid := range ids {
		x := chunks[cid]
		if x == nil {
			missing = append(missing, "chunk_relevance["+cid+"]")
			x = missingEvent()
		}
		r.Retrieval.ChunkRelevance[i] = guard.Entry[guard.Prob]{Key: cid, Value: x.p}
		r.Verdicts.Retrieval.ChunkRelevance[i] = guard.Entry[guard.Verdict]{Key: cid, Value: x.v}
		abstainIfUnknown(r, guard.ChunkRelevance, cid, x)
	}
	return missing
}

// abstainIfUnknown lists an event without a score among the abstentions.
func abstainIfUnknown(r *guard.Result, d guard.Decision, cid string, x *event) {
	if !x.p.Known {
		r.Abstentions = append(r.Abstentions, guard.Abstention{Decision: d, ContextID: cid, Judge: x.judge, Reason: x.reason, Cause: x.cause})
	}
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

// evidenceKindsAttr reads the otelkeys.EvidenceKinds attribute as the
// middleware writes it: "decision:kind" entries, the decision one of the
// seven names and the kind one of guard.EvidenceKinds, either of them
// possibly otelkeys.EvidenceOther. It returns the entries sorted and
// unique, nil when the attribute is absent, and an error naming the first
// entry that is not of that form.
func evidenceKindsAttr(a attrs) ([]string, error) {
	ks, _, err := a.strs(otelkeys.EvidenceKinds)
	if err != nil || len(ks) == 0 {
		return nil, err
	}
	for _, k := range ks {
		d, kind, ok := strings.Cut(k, ":")
		if !ok || !knownEvidenceDecision(d) || !knownEvidenceKind(kind) {
			return nil, fmt.Errorf("%s entry %q: want decision:kind, from the guard's decisions and evidence kinds or %q",
				otelkeys.EvidenceKinds, k, otelkeys.EvidenceOther)
		}
	}
	ks = slices.Clone(ks)
	slices.Sort(ks)
	return slices.Compact(ks), nil
}

// knownEvidenceDecision reports whether d names one of the seven
// decisions, or is otelkeys.EvidenceOther.
func knownEvidenceDecision(d string) bool {
	if d == otelkeys.EvidenceOther {
		return true
	}
	_, err := guard.ParseDecision(d)
	return err == nil
}

// knownEvidenceKind reports whether k is one of guard.EvidenceKinds, or
// otelkeys.EvidenceOther.
func knownEvidenceKind(k string) bool {
	return k == otelkeys.EvidenceOther || slices.Contains(guard.EvidenceKinds, guard.EvidenceKind(k))
}
