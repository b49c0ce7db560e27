package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/memory"
	"github.com/tmc/langchaingo/schema"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

func spanByName(t *testing.T, spans []sdktrace.ReadOnlySpan, prefix string) []sdktrace.ReadOnlySpan {
	t.Helper()
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if strings.HasPrefix(s.Name(), prefix) {
			out = append(out, s)
		}
	}
	return out
}

func attrOf(kvs []attribute.KeyValue, key string) (attribute.Value, bool) {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// TestRetrievalQASpans checks the span tree, the evaluation span's
// attributes and events, and the metrics of an inline RetrievalQA call.
func TestRetrievalQASpans(t *testing.T) {
	k := newTelemetry(t)
	qa := chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{})
	chain := Wrap(qa, append(k.opts(), WithGuard(testGuard(t), Gate{Block: AnnotateOnly, Review: AnnotateOnly}),
		WithDataSource("kb"), WithModel("scripted", "canned-1"))...)
	ctx, out := WithOutcome(context.Background())
	ctx = WithCallInfo(ctx, CallInfo{ID: "q-1"})
	answer, err := chains.Run(ctx, chain, qPass)
	if err != nil {
		t.Fatal(err)
	}
	if answer != aPass {
		t.Errorf("answer = %q; want %q", answer, aPass)
	}
	if !out.Evaluated || out.Result.Diagnosis != guard.PassDiagnosis || out.Action != guard.Allow || out.ID != "q-1" {
		t.Fatalf("outcome = %+v; want an evaluated PASS, allow, id q-1", out)
	}

	spans := k.spans.Ended()
	roots := spanByName(t, spans, otelkeys.SpanChain)
	if len(roots) != 1 {
		t.Fatalf("%d chain spans; want 1", len(roots))
	}
	root := roots[0]
	for _, name := range []string{"retrieval kb", "chat canned-1", otelkeys.SpanEvaluation} {
		got := spanByName(t, spans, name)
		if len(got) != 1 {
			t.Fatalf("%d spans named %q; want 1 (spans: %v)", len(got), name, names(spans))
		}
		if got[0].Parent().SpanID() != root.SpanContext().SpanID() || got[0].SpanContext().TraceID() != root.SpanContext().TraceID() {
			t.Errorf("span %q is not a child of the chain span", name)
		}
	}
	ret := spanByName(t, spans, "retrieval kb")[0]
	if v, _ := attrOf(ret.Attributes(), otelkeys.GenAIOperationName); v.AsString() != "retrieval" {
		t.Errorf("retrieval span operation = %q", v.AsString())
	}
	if v, _ := attrOf(ret.Attributes(), otelkeys.RetrievalDocumentIDs); len(v.AsStringSlice()) != 1 || v.AsStringSlice()[0] != "geo/france" {
		t.Errorf("retrieval document ids = %v", v.AsStringSlice())
	}
	gen := spanByName(t, spans, "chat canned-1")[0]
	if v, _ := attrOf(gen.Attributes(), otelkeys.GenAIUsageInputTokens); v.AsInt64() != 42 {
		t.Errorf("input tokens = %v; want 42", v.AsInt64())
	}

	ev := spanByName(t, spans, otelkeys.SpanEvaluation)[0]
	for key, want := range map[string]string{
		otelkeys.Diagnosis: "PASS", otelkeys.Route: "auto", otelkeys.Action: "allow", otelkeys.SampleID: "q-1",
		otelkeys.DecisionID: out.Result.DecisionID, otelkeys.DecisionVersion: out.Result.DecisionVersion,
		otelkeys.Mode: "inline", otelkeys.Verdicts: otelkeys.VerdictsForAnswer,
	} {
		if v, ok := attrOf(ev.Attributes(), key); !ok || v.AsString() != want {
			t.Errorf("evaluation span %s = %q; want %q", key, v.AsString(), want)
		}
	}
	events := ev.Events()
	if len(events) != 1+5 {
		t.Fatalf("%d evaluation events; want 6 (one chunk, five decisions)", len(events))
	}
	seen := map[string]bool{}
	for _, e := range events {
		if e.Name != otelkeys.EventEvaluationResult {
			t.Errorf("event name %q", e.Name)
		}
		name, _ := attrOf(e.Attributes, otelkeys.GenAIEvaluationName)
		label, _ := attrOf(e.Attributes, otelkeys.GenAIEvaluationScoreLabel)
		score, ok := attrOf(e.Attributes, otelkeys.GenAIEvaluationScoreValue)
		if !ok || score.AsFloat64() < 0 || score.AsFloat64() > 1 {
			t.Errorf("event %s: score %v", name.AsString(), score)
		}
		switch label.AsString() {
		case "pass", "uncertain":
		case "fail": // a verdict speaks for the answer: a passed answer has no failed decision
			t.Errorf("event %s: label fail (score %v) on an answer that passed", name.AsString(), score.AsFloat64())
		default:
			t.Errorf("event %s: label %q", name.AsString(), label.AsString())
		}
		if n := name.AsString(); (n == "context_conflict" || n == "contradiction") && score.AsFloat64() < 0.1 && label.AsString() != "pass" {
			t.Errorf("event %s: score %v labelled %q; confidently no conflict is pass", n, score.AsFloat64(), label.AsString())
		}
		seen[name.AsString()] = true
	}
	for _, d := range []string{"chunk_relevance", "context_sufficiency", "context_conflict", "answer_relevance", "groundedness", "contradiction"} {
		if !seen[d] {
			t.Errorf("no event for %s", d)
		}
	}
	if seen["correctness"] {
		t.Error("a correctness event without a reference")
	}
	if n := k.sum(t, otelkeys.MetricEvaluations, map[string]string{otelkeys.Diagnosis: "PASS", otelkeys.Route: "auto", otelkeys.Mode: "inline"}); n != 1 {
		t.Errorf("evaluation counter = %d; want 1", n)
	}
	if n := k.histCount(t, otelkeys.MetricGuardDuration); n != 1 {
		t.Errorf("guard duration recordings = %d; want 1", n)
	}
	assertNoUserText(t, spans)
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

// assertNoUserText fails if any question, answer or context text appears in
// any span attribute or event.
func assertNoUserText(t *testing.T, spans []sdktrace.ReadOnlySpan) {
	t.Helper()
	texts := []string{qPass, qFail, qEscalate, aPass, aFail, aEscalate, "Paris is the capital and largest", "Customers may request", "Standard shipping takes", "Paris", "refund within", "90 days", "30 days"}
	check := func(where string, kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			v := kv.Value.Emit()
			for _, s := range texts {
				if strings.Contains(v, s) {
					t.Errorf("%s: attribute %s holds user text %q", where, kv.Key, s)
				}
			}
		}
	}
	for _, s := range spans {
		check(s.Name(), s.Attributes())
		for _, e := range s.Events() {
			check(s.Name()+"/"+e.Name, e.Attributes)
		}
	}
}

// TestContentRedacted checks that WithContent puts the texts on spans and
// records only through the redactor.
func TestContentRedacted(t *testing.T) {
	k := newTelemetry(t)
	var buf bytes.Buffer
	sink := record.NewWriter(&buf)
	redact := func(f Field, s string) string { return "<" + f.String() + ":" + strings.ToUpper(s) + ">" }
	qa := chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{})
	chain := Wrap(qa, append(k.opts(), WithGuard(testGuard(t), Gate{Block: AnnotateOnly, Review: AnnotateOnly}),
		WithContent(redact), WithSink(sink))...)
	if _, err := chains.Run(context.Background(), chain, qPass); err != nil {
		t.Fatal(err)
	}
	spans := k.spans.Ended()
	ev := spanByName(t, spans, otelkeys.SpanEvaluation)[0]
	want := map[string]string{
		otelkeys.SampleQuestion: "<question:" + strings.ToUpper(qPass) + ">",
		otelkeys.SampleAnswer:   "<answer:" + strings.ToUpper(aPass) + ">",
	}
	for key, w := range want {
		if v, _ := attrOf(ev.Attributes(), key); v.AsString() != w {
			t.Errorf("%s = %q; want %q", key, v.AsString(), w)
		}
	}
	if v, _ := attrOf(ev.Attributes(), otelkeys.SampleContextTexts); len(v.AsStringSlice()) != 1 || !strings.HasPrefix(v.AsStringSlice()[0], "<context:PARIS") {
		t.Errorf("context texts = %v", v.AsStringSlice())
	}
	root := spanByName(t, spans, otelkeys.SpanChain)[0]
	if v, _ := attrOf(root.Attributes(), otelkeys.InputValue); v.AsString() != "<question:"+strings.ToUpper(qPass)+">" {
		t.Errorf("chain input.value = %q", v.AsString())
	}
	gen := spanByName(t, spans, otelkeys.SpanGeneration)[0]
	if v, _ := attrOf(gen.Attributes(), otelkeys.GenAIOutputMessages); !strings.Contains(v.AsString(), "<completion:PARIS") {
		t.Errorf("output messages = %s", v.AsString())
	}
	// Nothing raw anywhere.
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			if strings.Contains(kv.Value.Emit(), aPass) {
				t.Errorf("%s %s: raw answer on a span", s.Name(), kv.Key)
			}
		}
	}
	shutdownChain(t, chain)
	var rec record.Record
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Sample == nil || rec.Sample.Answer != "<answer:"+strings.ToUpper(aPass)+">" {
		t.Errorf("record sample = %+v; want the redacted answer", rec.Sample)
	}
}

// TestConversationalRetrievalQA checks that the condensed question is
// judged and the original one recorded, and that memory still works.
func TestConversationalRetrievalQA(t *testing.T) {
	llm := &scriptedLLM{condensed: qPass}
	mem := memory.NewConversationBuffer()
	if err := mem.ChatHistory.AddUserMessage(context.Background(), "Tell me about France."); err != nil {
		t.Fatal(err)
	}
	if err := mem.ChatHistory.AddAIMessage(context.Background(), "France is a country in Europe."); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	conv := chains.NewConversationalRetrievalQAFromLLM(llm, kbRetriever{}, mem)
	chain := Wrap(conv, WithGuard(testGuard(t), Gate{}), WithContent(NoRedaction), WithSink(record.NewWriter(&buf)))
	ctx, out := WithOutcome(context.Background())
	res, err := chains.Call(ctx, chain, map[string]any{"question": "What is its capital?"})
	if err != nil {
		t.Fatalf("call: %v (outcome %+v)", err, out)
	}
	if res["text"] != aPass {
		t.Errorf("answer = %v", res["text"])
	}
	if out.Sample.Question != qPass || out.OriginalQuestion != "What is its capital?" {
		t.Errorf("question %q, original %q; want the condensed and the original", out.Sample.Question, out.OriginalQuestion)
	}
	shutdownChain(t, chain)
	var rec record.Record
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Sample.Question != qPass || rec.Sample.OriginalQuestion != "What is its capital?" {
		t.Errorf("record sample = %+v", rec.Sample)
	}
	msgs, err := mem.ChatHistory.Messages(context.Background())
	if err != nil || len(msgs) != 4 {
		t.Errorf("memory holds %d messages (%v); want 4", len(msgs), err)
	}
}

// handBuilt is a chain that retrieves and generates by itself.
type handBuilt struct {
	r   schema.Retriever
	llm llms.Model
}

func (h handBuilt) Call(ctx context.Context, in map[string]any, _ ...chains.ChainCallOption) (map[string]any, error) {
	q := in["q"].(string)
	docs, err := h.r.GetRelevantDocuments(ctx, q)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	for _, d := range docs {
		sb.WriteString(d.PageContent + "\n")
	}
	a, err := llms.GenerateFromSinglePrompt(ctx, h.llm, sb.String()+"Question: "+q)
	if err != nil {
		return nil, err
	}
	return map[string]any{"answer": a, "n": len(docs)}, nil
}
func (handBuilt) GetMemory() schema.Memory { return memory.NewSimple() }
func (handBuilt) GetInputKeys() []string   { return []string{"q"} }
func (handBuilt) GetOutputKeys() []string  { return []string{"n", "answer"} }

// TestHandBuiltTwiceWrapped checks a hand-built chain with a wrapped
// retriever, wrapped twice: one capture, one evaluation, one record.
func TestHandBuiltTwiceWrapped(t *testing.T) {
	k := newTelemetry(t)
	var buf bytes.Buffer
	sink := record.NewWriter(&buf)
	hb := handBuilt{r: WrapRetriever(WrapRetriever(kbRetriever{})), llm: WrapLLM(&scriptedLLM{})}
	inner := Wrap(hb, append(k.opts(), WithGuard(testGuard(t), Gate{}), WithSink(sink))...)
	outer := Wrap(inner, append(k.opts(), WithGuard(testGuard(t), Gate{}), WithSink(sink))...)
	if Wrap(outer) != outer {
		t.Error("Wrap without options of a wrapped chain is not the same chain")
	}
	_, err := chains.Call(context.Background(), outer, map[string]any{"q": qFail})
	var ge *GateError
	if !errors.As(err, &ge) || !errors.Is(err, ErrBlocked) || ge.Result == nil || ge.Result.Diagnosis != guard.GeneratorUngrounded {
		t.Fatalf("err = %v; want a *GateError blocking GENERATOR_UNGROUNDED", err)
	}
	shutdownChain(t, inner)
	shutdownChain(t, outer)
	if w, f := sink.Counts(); w != 1 || f != 0 {
		t.Errorf("records written %d, failed %d; want 1, 0", w, f)
	}
	spans := k.spans.Ended()
	if n := len(spanByName(t, spans, otelkeys.SpanChain)); n != 1 {
		t.Errorf("%d chain spans; want 1", n)
	}
	if n := len(spanByName(t, spans, otelkeys.SpanEvaluation)); n != 1 {
		t.Errorf("%d evaluation spans; want 1", n)
	}
	if n := len(spanByName(t, spans, otelkeys.SpanRetrieval)); n != 1 {
		t.Errorf("%d retrieval spans; want 1", n)
	}
	// The blocking result's evidence quotes the answer and the context.
	if len(ge.Result.Evidence) == 0 {
		t.Error("the blocked result carries no evidence")
	}
	assertNoUserText(t, spans)
}

// TestNoRetrievalCaptured checks that a chain whose retriever is not wrapped
// is reported, not judged as a retrieval miss.
func TestNoRetrievalCaptured(t *testing.T) {
	var errs []error
	hb := handBuilt{r: kbRetriever{}, llm: &scriptedLLM{}}
	chain := Wrap(hb, WithGuard(testGuard(t), Gate{Review: AnnotateOnly}), WithErrorHandler(func(err error) { errs = append(errs, err) }))
	ctx, out := WithOutcome(context.Background())
	res, err := chains.Call(ctx, chain, map[string]any{"q": qPass})
	if err != nil || res["answer"] != aPass {
		t.Fatalf("call = %v, %v; want the answer unchanged", res, err)
	}
	if out.Evaluated || out.Action != guard.Review || !errors.Is(out.Err, ErrNoRetrieval) {
		t.Errorf("outcome = %+v; want not evaluated, review, ErrNoRetrieval", out)
	}
	if len(errs) != 1 || !errors.Is(errs[0], ErrNoRetrieval) {
		t.Errorf("handled errors = %v", errs)
	}
}

// TestGateEnforcements checks the three enforcements and the result key.
func TestGateEnforcements(t *testing.T) {
	g := testGuard(t)
	for _, tc := range []struct {
		name       string
		gate       Gate
		q          string
		wantErr    error
		wantAnswer string
		action     guard.Action
	}{
		{"pass annotate", Gate{}, qPass, nil, aPass, guard.Allow},
		{"fail error", Gate{Block: ReturnError}, qFail, ErrBlocked, "", guard.Block},
		{"fail replace", Gate{Block: ReplaceAnswer, FallbackText: "no"}, qFail, nil, "no", guard.Block},
		{"fail annotate", Gate{Block: AnnotateOnly}, qFail, nil, aFail, guard.Block},
		{"escalate error", Gate{Block: AnnotateOnly}, qEscalate, ErrReview, "", guard.Review},
		{"escalate replace default", Gate{Review: ReplaceAnswer}, qEscalate, nil, DefaultFallbackText, guard.Review},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qa := chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{})
			chain := Wrap(qa, WithGuard(g, tc.gate), WithResultKey("ragtriage"))
			out, err := chains.Call(context.Background(), chain, map[string]any{"query": tc.q})
			if tc.wantErr != nil {
				var ge *GateError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &ge) || ge.Action != tc.action || out != nil {
					t.Fatalf("Call = %v, %v; want %v with action %v and no outputs", out, err, tc.wantErr, tc.action)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out["text"] != tc.wantAnswer {
				t.Errorf("answer = %q; want %q", out["text"], tc.wantAnswer)
			}
			o, ok := out["ragtriage"].(*Outcome)
			if !ok || o.Action != tc.action || !o.Evaluated {
				t.Errorf("result key = %+v; want action %v", out["ragtriage"], tc.action)
			}
		})
	}
}

// TestSinkFailure checks that a failing sink changes nothing the chain
// returns and reaches the error handler and the error counter.
func TestSinkFailure(t *testing.T) {
	k := newTelemetry(t)
	var mu sync.Mutex
	var handled []error
	boom := errors.New("disk full")
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(),
		WithGuard(testGuard(t), Gate{}),
		WithSink(SinkFunc(func(context.Context, *record.Record) error { return boom })),
		WithErrorHandler(func(err error) { mu.Lock(); handled = append(handled, err); mu.Unlock() }))...)
	ans, err := chains.Run(context.Background(), chain, qPass)
	if err != nil || ans != aPass {
		t.Fatalf("Run = %q, %v; want the answer", ans, err)
	}
	shutdownChain(t, chain)
	if st := chain.(*Chain).SinkStats(); st != (SinkStats{Captured: 1, Failed: 1}) {
		t.Errorf("SinkStats = %+v; want 1 captured, 1 failed", st)
	}
	if len(handled) != 1 || !errors.Is(handled[0], boom) {
		t.Errorf("handled = %v; want the sink error", handled)
	}
	if n := k.sum(t, otelkeys.MetricSinkErrors, nil); n != 1 {
		t.Errorf("sink error counter = %d; want 1", n)
	}
}

// TestRecordRoundTrip writes records through the sink and reads them back.
func TestRecordRoundTrip(t *testing.T) {
	k := newTelemetry(t)
	var buf bytes.Buffer
	sink := record.NewWriter(&buf)
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(),
		WithGuard(testGuard(t), Gate{Block: AnnotateOnly, Review: AnnotateOnly}), WithSink(sink), WithContent(NoRedaction))...)
	want := map[string]*Outcome{}
	for i, q := range []string{qPass, qFail, qEscalate} {
		ctx, out := WithOutcome(context.Background())
		ctx = WithCallInfo(ctx, CallInfo{ID: []string{"a", "b", "c"}[i], Metadata: map[string]any{"tenant": "t1"}})
		if i == 1 {
			ctx = WithReference(ctx, "Within 30 days.")
		}
		if _, err := chains.Run(ctx, chain, q); err != nil {
			t.Fatal(err)
		}
		want[out.ID] = out
	}
	shutdownChain(t, chain)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("%d lines; want 3", len(lines))
	}
	for _, line := range lines {
		var rec record.Record
		if err := json.Unmarshal(line, &rec); err != nil {
			t.Fatal(err)
		}
		o := want[rec.ID]
		if o == nil {
			t.Fatalf("record for unknown id %q", rec.ID)
		}
		if rec.Version != record.Version || rec.TraceID == "" || rec.SpanID == "" || rec.Metadata["tenant"] != "t1" {
			t.Errorf("record %s header = %+v", rec.ID, rec)
		}
		wantJSON, _ := json.Marshal(o.Result)
		gotJSON, _ := json.Marshal(rec.Result)
		if !bytes.Equal(wantJSON, gotJSON) {
			t.Errorf("record %s result:\n got %s\nwant %s", rec.ID, gotJSON, wantJSON)
		}
		if rec.Sample == nil || rec.Sample.Answer != o.Sample.Answer || rec.Sample.Question != o.Sample.Question || len(rec.Sample.Contexts) != len(o.Sample.Contexts) {
			t.Errorf("record %s sample = %+v; want %+v", rec.ID, rec.Sample, o.Sample)
		}
		if (rec.Sample.Reference != nil) != (rec.ID == "b") {
			t.Errorf("record %s reference = %v", rec.ID, rec.Sample.Reference)
		}
		if len(rec.Legs) != 1 || rec.Legs[0].Name != "primary" {
			t.Errorf("record %s legs = %+v", rec.ID, rec.Legs)
		}
	}
}

// TestModeOffTracesOnly checks that without a guard the chain is traced
// and nothing is evaluated.
func TestModeOffTracesOnly(t *testing.T) {
	k := newTelemetry(t)
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), k.opts()...)
	ctx, out := WithOutcome(context.Background())
	if _, err := chains.Run(ctx, chain, qFail); err != nil {
		t.Fatal(err)
	}
	if out.Mode != "off" || out.Evaluated || out.Sample.Answer != aFail || len(out.Sample.Contexts) != 1 {
		t.Errorf("outcome = %+v", out)
	}
	if n := len(spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)); n != 0 {
		t.Errorf("%d evaluation spans without a guard", n)
	}
}

// TestChainErrorPassesThrough checks that an inner error is returned as is.
func TestChainErrorPassesThrough(t *testing.T) {
	boom := errors.New("vector store down")
	r := retrieverFunc(func(context.Context, string) ([]schema.Document, error) { return nil, boom })
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, r), WithGuard(testGuard(t), Gate{}))
	if _, err := chains.Run(context.Background(), chain, qPass); !errors.Is(err, boom) {
		t.Errorf("err = %v; want %v", err, boom)
	}
}

type retrieverFunc func(context.Context, string) ([]schema.Document, error)

func (f retrieverFunc) GetRelevantDocuments(ctx context.Context, q string) ([]schema.Document, error) {
	return f(ctx, q)
}

// TestContextIDs checks the default IDs and their deduplication.
func TestContextIDs(t *testing.T) {
	docs := []schema.Document{
		{Metadata: map[string]any{"source": "a.txt"}}, {Metadata: map[string]any{"source": "a.txt"}},
		{}, {Metadata: map[string]any{"id": "a.txt#2"}},
	}
	got := contextsOf(docs, DefaultContextID)
	want := []string{"a.txt", "a.txt#2", "doc-3", "a.txt#2#2"}
	for i := range want {
		if got[i].ID != want[i] {
			t.Errorf("context %d id = %q; want %q", i, got[i].ID, want[i])
		}
	}
	if err := (&guard.Sample{Contexts: got}).Validate(guard.Limits{}); err != nil {
		t.Errorf("contexts do not validate: %v", err)
	}
}

var _ trace.Span = nil

// TestBlockedIsNotAnError checks that a blocked answer leaves the
// evaluation span's status unset (OpenTelemetry keeps Error for a failed
// operation) and is an event and an attribute instead, inline and in shadow.
func TestBlockedIsNotAnError(t *testing.T) {
	for _, mode := range []string{"inline", "shadow"} {
		t.Run(mode, func(t *testing.T) {
			k := newTelemetry(t)
			opts := append(k.opts(), WithGuard(testGuard(t), Gate{Block: AnnotateOnly}))
			var sh *Shadow
			if mode == "shadow" {
				var err error
				if sh, err = NewShadow(testGuard(t), ShadowConfig{}, k.opts()...); err != nil {
					t.Fatal(err)
				}
				opts = append(k.opts(), WithShadow(sh))
			}
			chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), opts...)
			if _, err := chains.Run(context.Background(), chain, qFail); err != nil {
				t.Fatal(err)
			}
			if sh != nil {
				if err := sh.Shutdown(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			evs := spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)
			if len(evs) != 1 {
				t.Fatalf("%d evaluation spans; want 1", len(evs))
			}
			s := evs[0]
			if s.Status().Code != codes.Unset {
				t.Errorf("status %v %q; want unset for a blocked answer", s.Status().Code, s.Status().Description)
			}
			var blocked bool
			for _, e := range s.Events() {
				if e.Name == otelkeys.EventAnswerBlocked {
					blocked = true
					for _, a := range e.Attributes {
						if string(a.Key) == otelkeys.Mode && a.Value.AsString() != mode {
							t.Errorf("event mode %q; want %q", a.Value.AsString(), mode)
						}
					}
				}
			}
			if !blocked {
				t.Errorf("no %s event", otelkeys.EventAnswerBlocked)
			}
		})
	}
}
