package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// fixedLLM answers every prompt with one text (a simulation).
type fixedLLM struct{ answer string }

func (m fixedLLM) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.answer, StopReason: "stop"}}}, nil
}

func (m fixedLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// refundRetriever returns the refund-policy document whatever the query.
type refundRetriever struct{}

func (refundRetriever) GetRelevantDocuments(context.Context, string) ([]schema.Document, error) {
	return []schema.Document{testDocs["refund"]}, nil
}

// evidenceRun is what one call left behind: its evaluation span and its
// record line.
type evidenceRun struct {
	span sdktrace.ReadOnlySpan
	line string
	rec  record.Record
}

// runEvidence asks the refund question of a RetrievalQA whose LLM gives
// answer, wrapped with the embedded judges under the shipped profile,
// inline (annotate only) or in shadow mode, without content capture.
func runEvidence(t *testing.T, g *guard.Guard, shadow bool, answer string) evidenceRun {
	t.Helper()
	k := newTelemetry(t)
	var buf bytes.Buffer
	opts := append(k.opts(), WithSink(record.NewWriter(&buf)))
	var sh *Shadow
	if shadow {
		var err error
		if sh, err = NewShadow(g, ShadowConfig{}, k.opts()...); err != nil {
			t.Fatal(err)
		}
		opts = append(opts, WithShadow(sh))
	} else {
		opts = append(opts, WithGuard(g, Gate{Block: AnnotateOnly, Review: AnnotateOnly}))
	}
	chain := Wrap(chains.NewRetrievalQAFromLLM(fixedLLM{answer}, refundRetriever{}), opts...)
	if _, err := chains.Run(context.Background(), chain, qFail); err != nil {
		t.Fatal(err)
	}
	if sh != nil {
		if err := sh.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	shutdownChain(t, chain)
	evs := spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)
	if len(evs) != 1 {
		t.Fatalf("%d evaluation spans; want 1", len(evs))
	}
	run := evidenceRun{span: evs[0], line: buf.String()}
	if err := json.Unmarshal(buf.Bytes(), &run.rec); err != nil {
		t.Fatalf("record %q: %v", buf.String(), err)
	}
	return run
}

// spanKinds is the evaluation span's ragtriage.evidence.kinds.
func spanKinds(s sdktrace.ReadOnlySpan) []string {
	v, _ := attrOf(s.Attributes(), otelkeys.EvidenceKinds)
	return v.AsStringSlice()
}

// eventKinds is the ragtriage.evidence.kinds of the span's event for
// decision d (not chunk relevance).
func eventKinds(t *testing.T, s sdktrace.ReadOnlySpan, d guard.Decision) []string {
	t.Helper()
	for _, e := range s.Events() {
		if n, _ := attrOf(e.Attributes, otelkeys.GenAIEvaluationName); e.Name == otelkeys.EventEvaluationResult && n.AsString() == d.String() {
			v, _ := attrOf(e.Attributes, otelkeys.EventEvidenceKinds)
			return v.AsStringSlice()
		}
	}
	t.Fatalf("no %s event", d)
	return nil
}

// vocabularyRe matches a "decision:kind" entry made of names only.
var vocabularyRe = regexp.MustCompile(`^[a-z_]+:[a-z_]+$`)

// TestEvidenceKindsWithoutContent runs the README's refund question with
// four answers through the embedded judges (shipped profile), inline and
// in shadow mode, without content capture. The span and the record name
// what the judges saw: a number mismatch for "90 days", none for the
// correct answer. Every answer is JUDGE_UNCERTAIN under the shipped
// profile, so the diagnosis alone cannot tell them apart.
func TestEvidenceKindsWithoutContent(t *testing.T) {
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, answer string
		// want must all be present, and none of forbid.
		want, forbid []string
		// anyOf: at least one of them is present (nil: no condition).
		anyOf []string
		// grounded is the groundedness event's kinds, when checked.
		grounded []string
	}{
		{name: "correct", answer: "You can get a full refund within 30 days of purchase.",
			forbid:   []string{"groundedness:number_mismatch", "contradiction:number_mismatch", "groundedness:unsupported_sentence"},
			grounded: []string{}},
		{name: "90 days", answer: aFail,
			want:     []string{"groundedness:number_mismatch", "contradiction:number_mismatch"},
			grounded: []string{"number_mismatch"}},
		{name: "off topic", answer: "The weather in Paris is sunny today.",
			want:   []string{"groundedness:unsupported_sentence"},
			forbid: []string{"groundedness:number_mismatch"},
			anyOf:  []string{"answer_relevance:off_topic", "answer_relevance:type_mismatch"}},
		{name: "refusal", answer: "I don't know.",
			want:     []string{"answer_relevance:refusal", "groundedness:refusal"},
			forbid:   []string{"groundedness:number_mismatch"},
			grounded: []string{"refusal"}},
	}
	for _, mode := range []string{modeInline, modeShadow} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				run := runEvidence(t, g, mode == modeShadow, tt.answer)
				if run.rec.Sample != nil {
					t.Fatal("the record holds the sample without content capture")
				}
				fromSpan := spanKinds(run.span)
				if !slices.Equal(fromSpan, run.rec.EvidenceKinds) {
					t.Errorf("span %s = %q; record evidenceKinds = %q; want the same", otelkeys.EvidenceKinds, fromSpan, run.rec.EvidenceKinds)
				}
				checkKinds(t, run.rec.EvidenceKinds, tt.want, tt.forbid, tt.anyOf)
				if tt.grounded != nil {
					if got := eventKinds(t, run.span, guard.Groundedness); !slices.Equal(got, tt.grounded) {
						t.Errorf("groundedness event %s = %q; want %q", otelkeys.EventEvidenceKinds, got, tt.grounded)
					}
				}
				for _, text := range []string{"30 days", "90 days", "full refund", "purchase", "weather", "know", "Customers"} {
					if strings.Contains(run.line, text) {
						t.Errorf("the record without content capture holds %q: %s", text, run.line)
					}
				}
				assertNoUserText(t, []sdktrace.ReadOnlySpan{run.span})
			})
		}
	}
}

// checkKinds checks a sorted, unique set of names-only kinds against the
// entries it must, must not, and may hold.
func checkKinds(t *testing.T, got, want, forbid, anyOf []string) {
	t.Helper()
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("kinds %q are not sorted and unique", got)
	}
	for _, k := range got {
		if !vocabularyRe.MatchString(k) {
			t.Errorf("kind %q is not decision:kind", k)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("kinds %q lack %q", got, w)
		}
	}
	for _, f := range forbid {
		if slices.Contains(got, f) {
			t.Errorf("kinds %q hold %q", got, f)
		}
	}
	if anyOf != nil && !slices.ContainsFunc(anyOf, func(k string) bool { return slices.Contains(got, k) }) {
		t.Errorf("kinds %q hold none of %q", got, anyOf)
	}
}

// kindsEvaluator returns a result with the given evidence: a custom
// evaluator whose judges say what they like.
type kindsEvaluator struct{ ev []guard.Evidence }

func (k kindsEvaluator) Evaluate(context.Context, guard.Sample) (guard.Result, error) {
	return guard.Result{DecisionID: "x", Diagnosis: guard.JudgeUncertain, Route: guard.Fallback, Action: guard.Review,
		Evidence: k.ev}, nil
}

// TestEvidenceKindsOther: a kind outside the fixed list is "other",
// whatever its text, on the span, its events and the record. (A decision
// outside the seven cannot reach a record, which refuses to encode it;
// TestEvidenceKindsBounded covers it.)
func TestEvidenceKindsOther(t *testing.T) {
	secret := "Zorblax said 90 days"
	ev := []guard.Evidence{
		{Decision: guard.Groundedness, Kind: guard.EvidenceKind(secret)},
		{Decision: guard.Groundedness, Kind: "made_up"},
		{Decision: guard.Groundedness, Kind: ""},
		{Decision: guard.Groundedness, Kind: guard.EvidenceNumberMismatch},
		{Decision: guard.ChunkRelevance, Kind: guard.EvidenceKind(secret),
			Quote: guard.Quote{Source: guard.SourceContext, ContextID: "policy/refunds"}},
	}
	k := newTelemetry(t)
	var buf bytes.Buffer
	chain := Wrap(chains.NewRetrievalQAFromLLM(fixedLLM{aFail}, refundRetriever{}),
		append(k.opts(), WithSink(record.NewWriter(&buf)), WithGuard(kindsEvaluator{ev}, Gate{Review: AnnotateOnly}))...)
	if _, err := chains.Run(context.Background(), chain, qFail); err != nil {
		t.Fatal(err)
	}
	shutdownChain(t, chain)
	want := []string{"chunk_relevance:other", "groundedness:number_mismatch", "groundedness:other"}
	var rec record.Record
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.EvidenceKinds, want) {
		t.Errorf("record evidenceKinds = %q; want %q", rec.EvidenceKinds, want)
	}
	span := spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)[0]
	if got := spanKinds(span); !slices.Equal(got, want) {
		t.Errorf("span %s = %q; want %q", otelkeys.EvidenceKinds, got, want)
	}
	if strings.Contains(buf.String(), "Zorblax") || strings.Contains(buf.String(), "made_up") {
		t.Errorf("a custom kind's text reached the record: %s", buf.String())
	}
	for _, e := range span.Events() {
		for _, kv := range e.Attributes {
			if s := kv.Value.Emit(); strings.Contains(s, "Zorblax") || strings.Contains(s, "made_up") {
				t.Errorf("event %s: %s = %s holds a custom kind's text", e.Name, kv.Key, s)
			}
		}
	}
}

// TestEvidenceKindsBounded feeds kindsOf random kinds and decisions: the
// values it writes stay within the fixed set of (1 + 7) decisions × (14 + 1)
// kinds, however many distinct inputs it sees.
func TestEvidenceKindsBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 6))
	allowed := map[string]bool{}
	for _, d := range decisionSlots {
		for _, k := range evidenceVocabulary {
			allowed[d+":"+string(k)] = true
		}
	}
	if len(allowed) != 8*15 {
		t.Fatalf("%d allowed values; want 8 × 15", len(allowed))
	}
	seen := map[string]bool{}
	for range 2000 {
		var r guard.Result
		for range rng.IntN(6) {
			kind := guard.EvidenceKind(fmt.Sprintf("kind_%d", rng.Uint64()))
			if rng.IntN(2) == 0 {
				kind = evidenceVocabulary[rng.IntN(len(evidenceVocabulary))]
			}
			r.Evidence = append(r.Evidence, guard.Evidence{Decision: guard.Decision(rng.IntN(256)), Kind: kind,
				Quote: guard.Quote{Source: guard.SourceContext, ContextID: fmt.Sprint("c", rng.IntN(3))}})
		}
		ek := kindsOf(&r)
		for _, p := range ek.pairs {
			if !allowed[p] {
				t.Fatalf("kindsOf wrote %q, outside the fixed set", p)
			}
			seen[p] = true
		}
		for _, d := range guard.Decisions {
			for _, id := range []string{"", "c0", "c1", "c2"} {
				for _, k := range ek.of(d, id) {
					if !allowed[d.String()+":"+k] {
						t.Fatalf("event kinds hold %q, outside the fixed set", k)
					}
				}
			}
		}
	}
	other := guard.Result{Evidence: []guard.Evidence{{Decision: guard.Decision(200), Kind: guard.EvidenceNegationFlip}, {Kind: "x"}}}
	if got, want := kindsOf(&other).pairs, []string{"other:negation_flip", "other:other"}; !slices.Equal(got, want) {
		t.Errorf("kindsOf(invalid decisions) = %q; want %q", got, want)
	}
	if len(seen) > len(allowed) || len(seen) < len(allowed)/2 {
		t.Errorf("saw %d distinct values of %d allowed; the test did not explore the set", len(seen), len(allowed))
	}
}

// TestEvidenceVocabulary keeps evidenceVocabulary in step with the guard:
// every EvidenceKind constant of package guard, plus "other", in byte
// order.
func TestEvidenceVocabulary(t *testing.T) {
	files, err := filepath.Glob("../guard/*.go")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{otelkeys.EvidenceOther}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, evidenceKindConsts(f)...)
	}
	slices.Sort(want)
	var got []string
	for _, k := range evidenceVocabulary {
		got = append(got, string(k))
	}
	if !slices.Equal(got, want) {
		t.Errorf("evidenceVocabulary = %q;\nwant (guard's EvidenceKind constants and %q, sorted) %q", got, otelkeys.EvidenceOther, want)
	}
}

// evidenceKindConsts returns the values of the EvidenceKind constants a
// file declares.
func evidenceKindConsts(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "EvidenceKind" {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					out = append(out, strings.Trim(lit.Value, `"`))
				}
			}
		}
	}
	return out
}
