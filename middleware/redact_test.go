package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/memory"

	"github.com/ragtriage/ragtriage/record"
)

// countingRedactor counts its calls by field and text. It marks each text
// it returns, so that a test can tell a redacted copy from a raw one. Safe
// for concurrent use.
type countingRedactor struct {
	mu    sync.Mutex
	calls map[redactCall]int
}

type redactCall struct {
	field Field
	text  string
}

func (r *countingRedactor) redact(f Field, s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = make(map[redactCall]int)
	}
	r.calls[redactCall{f, s}]++
	return "<" + f.String() + ">" + s
}

// TestRedactOncePerText checks that one call's texts each go through the
// Redactor once: the chain span, the evaluation span and the record write
// the same redacted copies, and the retriever span's context texts are
// reused. Every field is a separate call: the query and the question are
// the same text but two fields.
func TestRedactOncePerText(t *testing.T) {
	conversational := func() chains.Chain {
		mem := memory.NewConversationBuffer()
		if err := mem.ChatHistory.AddUserMessage(context.Background(), "Tell me about France."); err != nil {
			t.Fatal(err)
		}
		return chains.NewConversationalRetrievalQAFromLLM(&scriptedLLM{condensed: qPass}, kbRetriever{}, mem)
	}
	retrievalQA := func() chains.Chain { return chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}) }
	annotate := Gate{Block: AnnotateOnly, Review: AnnotateOnly}
	tests := []struct {
		name     string
		chain    func() chains.Chain
		mode     string
		question string
		ref      string
		want     []Field // fields the Redactor must see (at least)
	}{
		{"inline pass", retrievalQA, modeInline, qPass, "", []Field{FieldQuestion, FieldAnswer, FieldContext, FieldQuery, FieldPrompt, FieldCompletion}},
		{"inline fail", retrievalQA, modeInline, qFail, "", []Field{FieldQuestion, FieldAnswer, FieldContext}},
		{"inline reference", retrievalQA, modeInline, qPass, "Paris.", []Field{FieldReference}},
		{"inline condensed", conversational, modeInline, "What is its capital?", "", []Field{FieldOriginalQuestion, FieldQuestion}},
		{"shadow fail", retrievalQA, modeShadow, qFail, "Within 30 days.", []Field{FieldQuestion, FieldAnswer, FieldContext, FieldReference}},
		{"shadow condensed", conversational, modeShadow, "What is its capital?", "", []Field{FieldOriginalQuestion}},
		{"off", retrievalQA, modeOff, qPass, "", []Field{FieldQuestion, FieldAnswer, FieldContext}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newTelemetry(t)
			r := &countingRedactor{}
			var buf bytes.Buffer
			opts := append(k.opts(), WithContent(r.redact), WithSink(record.NewWriter(&buf)))
			var sh *Shadow
			switch tc.mode {
			case modeInline:
				opts = append(opts, WithGuard(testGuard(t), annotate))
			case modeShadow:
				var err error
				if sh, err = NewShadow(testGuard(t), ShadowConfig{}); err != nil {
					t.Fatal(err)
				}
				opts = append(opts, WithShadow(sh))
			}
			chain := Wrap(tc.chain(), opts...)
			ctx := context.Background()
			if tc.ref != "" {
				ctx = WithReference(ctx, tc.ref)
			}
			if _, err := chains.Run(ctx, chain, tc.question); err != nil {
				t.Fatal(err)
			}
			if sh != nil {
				if err := sh.Shutdown(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			shutdownChain(t, chain)

			var twice []string
			seen := map[Field]bool{}
			for call, n := range r.calls {
				seen[call.field] = true
				if n != 1 {
					twice = append(twice, fmt.Sprintf("%s %q: %d calls", call.field, call.text, n))
				}
			}
			slices.Sort(twice)
			for _, s := range twice {
				t.Errorf("redacted more than once: %s", s)
			}
			for _, f := range tc.want {
				if !seen[f] {
					t.Errorf("the Redactor never saw %s", f)
				}
			}
			if tc.mode == modeOff {
				return
			}
			// The record carries the redacted copies.
			var rec record.Record
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("record: %v", err)
			}
			if rs := rec.Sample; rs == nil || !strings.HasPrefix(rs.Answer, "<answer>") || !strings.HasPrefix(rs.Question, "<question>") ||
				len(rs.Contexts) != 1 || !strings.HasPrefix(rs.Contexts[0].Text, "<context>") {
				t.Errorf("record sample = %+v; want the redacted texts", rs)
			}
		})
	}
}
