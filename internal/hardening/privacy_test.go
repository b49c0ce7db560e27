package hardening

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// Privacy: every channel through which anything leaves the process — spans
// (attributes, events, status, links), metrics (names, attributes,
// exemplars), log output (log, slog, the OpenTelemetry error handler), the
// middleware's error handler, the errors callers get back, and the record
// sink — is collected while wrapped chains run with default options, and
// searched for the user's text. The texts are built from made-up words
// (Zorblax, Quexil, …) so that any fragment of them, a quote or a sentence,
// carries at least one.

// secretWords are the made-up words every user text is built from.
var secretWords = []string{"zorblax", "quexil", "vantrix", "plumbex", "drovnik", "skelm", "wuzzard", "frindle", "gorbit", "yannow"}

var secretRe = regexp.MustCompile(`(?i)` + strings.Join(secretWords, "|"))

// privacyCase is one user question with what the retriever and the LLM
// return for it.
type privacyCase struct {
	question string
	docs     []string
	answer   string
}

var privacyCases = []privacyCase{
	{ // supported: the guard passes or escalates it
		question: "How many days does Zorblax give Quexil buyers for a refund?",
		docs:     []string{"Zorblax gives Quexil buyers 30 days for a refund. Vantrix orders ship from Plumbex.", "Drovnik shipping takes 5 Skelm days."},
		answer:   "Zorblax gives Quexil buyers 30 days for a refund.",
	},
	{ // contradicted: the guard fails it
		question: "How many days does Zorblax give Quexil buyers for a refund?",
		docs:     []string{"Zorblax gives Quexil buyers 30 days for a refund."},
		answer:   "Zorblax gives Quexil buyers 90 days for a refund, says Wuzzard.",
	},
	{ // unsupported and off topic: escalated to the fallback
		question: "Which Frindle does Gorbit recommend to Yannow?",
		docs:     []string{"Gorbit sells Frindle kits and Yannow spares.", "Skelm Drovnik is closed on Plumbex day."},
		answer:   "Gorbit recommends the Frindle Vantrix kit to Yannow.",
	},
	{ // invalid: a NUL byte in a retrieved document; no result
		question: "Is the Zorblax Quexil store open?",
		docs:     []string{"The Zorblax Quexil store\x00 is open."},
		answer:   "The Zorblax Quexil store is open.",
	},
}

// privacyRetriever and privacyLLM serve privacyCases (a simulation).
type privacyRetriever struct{ c *privacyCase }

func (r privacyRetriever) GetRelevantDocuments(context.Context, string) ([]schema.Document, error) {
	out := make([]schema.Document, len(r.c.docs))
	for i, d := range r.c.docs {
		out[i] = schema.Document{PageContent: d, Metadata: map[string]any{"id": fmt.Sprint("doc", i+1)}}
	}
	return out, nil
}

type privacyLLM struct{ c *privacyCase }

func (m privacyLLM) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.c.answer, StopReason: "stop"}}}, nil
}

func (m privacyLLM) Call(ctx context.Context, p string, o ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, o...)
}

// channels collects everything that leaves the process.
type channels struct {
	spans   *tracetest.SpanRecorder
	tp      *sdktrace.TracerProvider
	reader  *sdkmetric.ManualReader
	mp      *sdkmetric.MeterProvider
	mu      sync.Mutex
	logs    bytes.Buffer // log and slog output
	handled []string     // the middleware's error handler and otel.Handle
	errs    []string     // errors returned to callers
	records []string     // record lines
}

func newChannels(t *testing.T) *channels {
	ch := &channels{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	ch.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(ch.spans))
	ch.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(ch.reader))
	// Capture the process's log output and the global OpenTelemetry
	// error handler for the duration of the test.
	prevLog, prevFlags := log.Writer(), log.Flags()
	log.SetOutput(&syncWriter{ch: ch})
	prevSlog := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&syncWriter{ch: ch}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(ch.handle))
	t.Cleanup(func() {
		log.SetOutput(prevLog)
		log.SetFlags(prevFlags)
		slog.SetDefault(prevSlog)
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Print(err) }))
		_ = ch.tp.Shutdown(context.Background())
		_ = ch.mp.Shutdown(context.Background())
	})
	return ch
}

type syncWriter struct{ ch *channels }

func (w *syncWriter) Write(p []byte) (int, error) {
	w.ch.mu.Lock()
	defer w.ch.mu.Unlock()
	return w.ch.logs.Write(p)
}

func (ch *channels) handle(err error) {
	ch.mu.Lock()
	ch.handled = append(ch.handled, err.Error())
	ch.mu.Unlock()
}

func (ch *channels) returned(err error) {
	if err != nil {
		ch.mu.Lock()
		ch.errs = append(ch.errs, err.Error(), fmt.Sprintf("%+v", err))
		ch.mu.Unlock()
	}
}

// WriteRecord is the record sink: it keeps each record's JSON line.
func (ch *channels) WriteRecord(_ context.Context, rec *record.Record) error {
	b, err := record.Marshal(rec)
	if err != nil {
		return err
	}
	ch.mu.Lock()
	ch.records = append(ch.records, string(b))
	ch.mu.Unlock()
	return nil
}

func attrText(kvs []attribute.KeyValue) string {
	var b strings.Builder
	for _, kv := range kvs {
		fmt.Fprintf(&b, "%s=%s\n", kv.Key, kv.Value.Emit())
	}
	return b.String()
}

// texts returns every piece of text each channel holds, by channel name.
func (ch *channels) texts(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, s := range ch.spans.Ended() {
		var b strings.Builder
		fmt.Fprintf(&b, "span %s\n%s", s.Name(), attrText(s.Attributes()))
		fmt.Fprintf(&b, "status %s %s\n", s.Status().Code, s.Status().Description)
		for _, e := range s.Events() {
			fmt.Fprintf(&b, "event %s\n%s", e.Name, attrText(e.Attributes))
		}
		for _, l := range s.Links() {
			b.WriteString(attrText(l.Attributes))
		}
		out["spans"] = append(out["spans"], b.String())
	}
	var rm metricdata.ResourceMetrics
	if err := ch.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			// The JSON form holds names, descriptions, attributes and
			// exemplars of every data point.
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			out["metrics"] = append(out["metrics"], string(b))
		}
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	out["logs"] = []string{ch.logs.String()}
	out["error handler"] = append([]string(nil), ch.handled...)
	out["returned errors"] = append([]string(nil), ch.errs...)
	out["records"] = append([]string(nil), ch.records...)
	return out
}

// privacyStack is a guard with a cascade over the fake server (a
// simulation); the server fails every third request, so that error paths
// run too.
func privacyStack(t *testing.T, ch *channels) ([]*guard.Guard, *stack) {
	var n int
	var mu sync.Mutex
	model := func(r fakeopenai.Request) fakeopenai.Reply {
		mu.Lock()
		n++
		k := n
		mu.Unlock()
		if k%7 == 0 {
			return fakeopenai.Reply{Status: 500, Message: "simulated outage"}
		}
		// A model that echoes the data it was given: a "quote" copied from
		// the answer (not in any context), or a reply that repeats the
		// question instead of yes/no. Both end up in abstention reasons.
		user := r.Role("user")
		if strings.Contains(r.Role("system"), "QUOTE [context id]") {
			return fakeopenai.YesNo(0.9, "Yes\nQUOTE [doc1]: "+firstBlockLine(user, "ANSWER"))
		}
		if k%5 == 1 {
			return fakeopenai.YesNo(0.9, firstBlockLine(user, "QUESTION"))
		}
		return fakeopenai.YesNo(0.6, "Yes")
	}
	// A breaker that never opens: every escalation reaches the server.
	br := gobreaker.Settings{ReadyToTrip: func(gobreaker.Counts) bool { return false }}
	st := newStack(t, model, stackConfig{rule: guard.FailClosed, breaker: &br, limits: cascade.Limits{MaxConcurrent: 8}, mp: ch.mp})
	// Two guards: the embedded judges (their evidence quotes the texts),
	// and a primary that is unsure of everything, so that every decision
	// goes through the cascade to the LLM judge.
	lex := kbGuard(t)
	esc, err := guard.New(guard.WithJudge(guardtest.Fixed{Default: 0.5, Name: "unsure"}), guard.WithPolicy(fallbackPolicy()),
		guard.WithEscalator(st.c, fallbackPolicy(), guard.FailClosed))
	if err != nil {
		t.Fatal(err)
	}
	g := []*guard.Guard{lex, esc}
	return g, st
}

// runPrivacy runs every privacy case through a RetrievalQA wrapped with
// opts, inline and in shadow mode, a few times each.
func runPrivacy(t *testing.T, ch *channels, gs []*guard.Guard, opts ...middleware.Option) {
	for _, g := range gs {
		runPrivacyGuard(t, ch, g, opts...)
	}
}

func runPrivacyGuard(t *testing.T, ch *channels, g *guard.Guard, opts ...middleware.Option) {
	sh, err := middleware.NewShadow(g, middleware.ShadowConfig{Workers: 2}, append([]middleware.Option{middleware.WithMeterProvider(ch.mp)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	base := append([]middleware.Option{middleware.WithTracerProvider(ch.tp), middleware.WithMeterProvider(ch.mp), middleware.WithSink(ch)}, opts...)
	var chainsMade []*middleware.Chain
	for round := range 3 {
		for i := range privacyCases {
			c := &privacyCases[i]
			qa := chains.NewRetrievalQAFromLLM(privacyLLM{c}, privacyRetriever{c})
			for _, mode := range []middleware.Option{
				middleware.WithGuard(g, middleware.Gate{}),
				middleware.WithGuard(g, middleware.Gate{Block: middleware.ReplaceAnswer, Review: middleware.AnnotateOnly}),
				middleware.WithShadow(sh),
			} {
				wrapped, err := middleware.New(qa, append(append([]middleware.Option(nil), base...), mode)...)
				if err != nil {
					t.Fatal(err)
				}
				chainsMade = append(chainsMade, wrapped)
				ctx := middleware.WithCallInfo(context.Background(), middleware.CallInfo{ID: fmt.Sprintf("case%d-round%d", i, round)})
				_, err = chains.Run(ctx, wrapped, c.question)
				ch.returned(err)
				// The guard's own errors, as a caller of Evaluate sees them:
				// none without a result, the failed judges in the result.
				s := guard.Sample{Question: c.question, Answer: c.answer}
				for k, d := range c.docs {
					s.Contexts = append(s.Contexts, guard.Context{ID: fmt.Sprint("doc", k+1), Text: d})
				}
				res, err := g.Evaluate(context.Background(), s)
				ch.returned(err)
				ch.returned(res.Err())
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch.returned(sh.Shutdown(ctx))
	// Then the chains' record queues, so that every record has reached the
	// sink before the channels are searched.
	for _, c := range chainsMade {
		if err := c.Shutdown(ctx); err != nil {
			t.Errorf("chain Shutdown: %v", err)
		}
	}
}

func TestPrivacyDefaultOptions(t *testing.T) {
	ch := newChannels(t)
	g, st := privacyStack(t, ch)
	// No WithErrorHandler: the middleware's failures go to otel.Handle,
	// which the channels capture.
	runPrivacy(t, ch, g)
	t.Logf("fake server requests: %d", st.srv.Count())
	st.close()
	texts := ch.texts(t)
	total := 0
	for name, ts := range texts {
		total += len(ts)
		for _, s := range ts {
			if m := secretRe.FindStringIndex(s); m != nil {
				lo, hi := max(0, m[0]-80), min(len(s), m[1]+80)
				t.Errorf("%s: user text %q leaked:\n…%s…", name, s[m[0]:m[1]], s[lo:hi])
			}
		}
	}
	t.Logf("searched %d spans, %d metrics, %d bytes of log output, %d handled errors, %d returned errors, %d records",
		len(texts["spans"]), len(texts["metrics"]), len(texts["logs"][0]), len(texts["error handler"]), len(texts["returned errors"]), len(texts["records"]))
	// The test must have seen every channel carry something.
	for _, name := range []string{"spans", "metrics", "error handler", "returned errors", "records"} {
		if len(texts[name]) == 0 {
			t.Errorf("channel %q carried nothing: the test did not exercise it", name)
		}
	}
	checkEvidenceKinds(t, ch)
}

// evidenceKindRe matches an evidence kind as spans and records carry it:
// "decision:kind" in lower-case names, no text.
var evidenceKindRe = regexp.MustCompile(`^[a-z_]+:[a-z_]+$`)

// checkEvidenceKinds checks that the evidence kinds went out without
// content capture (the "90 days" answer's number mismatch among them), and
// that they hold names only.
func checkEvidenceKinds(t *testing.T, ch *channels) {
	t.Helper()
	seen := map[string]int{}
	note := func(where string, kinds []string) {
		for _, k := range kinds {
			if !evidenceKindRe.MatchString(k) {
				t.Errorf("%s: evidence kind %q is not a decision:kind name", where, k)
			}
			seen[k]++
		}
	}
	for _, s := range ch.spans.Ended() {
		for _, kv := range s.Attributes() {
			if kv.Key == otelkeys.EvidenceKinds {
				note("span "+s.Name(), kv.Value.AsStringSlice())
			}
		}
	}
	ch.mu.Lock()
	lines := append([]string(nil), ch.records...)
	ch.mu.Unlock()
	for _, line := range lines {
		var rec record.Record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		note("record "+rec.ID, rec.EvidenceKinds)
	}
	t.Logf("evidence kinds on spans and records: %v", seen)
	if seen["groundedness:number_mismatch"] == 0 {
		t.Error("no span or record names the contradicted answer's groundedness:number_mismatch")
	}
}

// TestPrivacyContentRedacted turns content capture on with a redaction hook:
// the hook's output, never the raw text, leaves the process.
func TestPrivacyContentRedacted(t *testing.T) {
	ch := newChannels(t)
	g, st := privacyStack(t, ch)
	var mu sync.Mutex
	seen := map[middleware.Field]int{}
	redact := func(f middleware.Field, text string) string {
		mu.Lock()
		seen[f]++
		mu.Unlock()
		return fmt.Sprintf("[redacted %s, %d bytes]", f, len(text))
	}
	runPrivacy(t, ch, g, middleware.WithContent(redact), middleware.WithErrorHandler(ch.handle))
	st.close()
	texts := ch.texts(t)
	redacted := 0
	for name, ts := range texts {
		for _, s := range ts {
			redacted += strings.Count(s, "[redacted ")
			if m := secretRe.FindStringIndex(s); m != nil {
				lo, hi := max(0, m[0]-80), min(len(s), m[1]+80)
				t.Errorf("%s: raw user text %q despite the redaction hook:\n…%s…", name, s[m[0]:m[1]], s[lo:hi])
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("redaction hook calls by field: %v; redacted texts found in the output: %d", seen, redacted)
	for _, f := range []middleware.Field{middleware.FieldQuestion, middleware.FieldContext, middleware.FieldAnswer} {
		if seen[f] == 0 {
			t.Errorf("the redaction hook never saw field %v", f)
		}
	}
	if redacted == 0 {
		t.Error("no redacted text in the output: content capture did not run")
	}
}

// firstBlockLine returns the first line of the first data block of the
// given kind in a judge prompt.
func firstBlockLine(user, kind string) string {
	_, rest, ok := strings.Cut(user, "<<<BEGIN "+kind)
	if !ok {
		return ""
	}
	_, rest, _ = strings.Cut(rest, "\n")
	line, _, _ := strings.Cut(rest, "\n")
	return line
}
