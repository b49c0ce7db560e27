package middleware

import (
	"context"

	"github.com/tmc/langchaingo/schema"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/ragtriage/ragtriage/otelkeys"
)

// Retriever is a schema.Retriever that records a retrieval span for every
// call. Inside a wrapped chain call, it hands the query and the documents
// to that call's capture. Safe for concurrent use if the retriever it wraps
// is.
type Retriever struct {
	inner schema.Retriever
	cfg   *config
	name  string
}

var _ schema.Retriever = (*Retriever)(nil)

// WrapRetriever returns r instrumented. Options that apply: WithDataSource,
// WithTracerProvider, WithContent, WithContextIDs, WithErrorHandler. Inside a
// wrapped chain call the chain's tracer provider and content settings are
// used instead. Wrapping a *Retriever again returns it unchanged when no
// options are given; with options, it rewraps the same inner retriever. It
// panics (a programmer error) when r is nil or an option is invalid.
func WrapRetriever(r schema.Retriever, opts ...Option) *Retriever {
	if r == nil {
		panic("middleware: WrapRetriever: nil retriever")
	}
	if w, ok := r.(*Retriever); ok {
		if len(opts) == 0 {
			return w
		}
		r = w.inner
	}
	cfg, err := newConfig(opts)
	if err != nil {
		panic(err.Error())
	}
	return newRetriever(r, cfg)
}

func newRetriever(r schema.Retriever, cfg *config) *Retriever {
	name := otelkeys.SpanRetrieval
	if cfg.source != "" {
		name += " " + cfg.source
	}
	return &Retriever{inner: r, cfg: cfg, name: name}
}

// Unwrap returns the wrapped retriever.
func (r *Retriever) Unwrap() schema.Retriever { return r.inner }

// GetRelevantDocuments calls the wrapped retriever under a retrieval span.
func (r *Retriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	capt := captureFrom(ctx)
	cfg := r.cfg
	if capt != nil {
		cfg = capt.cfg
	}
	ctx, span := cfg.tracer.Start(ctx, r.name, kindClient)
	defer span.End()
	rec := span.IsRecording()
	if rec {
		span.SetAttributes(
			attribute.String(otelkeys.GenAIOperationName, otelkeys.OperationRetrieval),
			attribute.String(otelkeys.OpenInferenceSpanKind, otelkeys.KindRetriever))
		if r.cfg.source != "" {
			span.SetAttributes(attribute.String(otelkeys.GenAIDataSourceID, r.cfg.source))
		}
		if cfg.redact != nil {
			q := cfg.text(FieldQuery, query)
			span.SetAttributes(attribute.String(otelkeys.GenAIRetrievalQueryText, q), attribute.String(otelkeys.InputValue, q))
		}
	}
	docs, err := r.inner.GetRelevantDocuments(ctx, query)
	if err != nil {
		if rec {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		return docs, err
	}
	var texts []string
	if rec {
		ids := make([]string, len(docs))
		structured := make([]attribute.Value, len(docs))
		for i := range docs {
			ids[i] = cfg.contextID(i, docs[i])
			structured[i] = attribute.MapValue(
				attribute.String("id", ids[i]),
				attribute.Float64("score", float64(docs[i].Score)))
		}
		span.SetAttributes(
			attribute.Int(otelkeys.RetrievalDocumentCount, len(docs)),
			attribute.StringSlice(otelkeys.RetrievalDocumentIDs, ids),
			attribute.Slice(otelkeys.GenAIRetrievalDocuments, structured...))
		if cfg.redact != nil {
			texts = make([]string, len(docs))
			for i := range docs {
				texts[i] = cfg.text(FieldContext, docs[i].PageContent)
			}
			span.SetAttributes(attribute.StringSlice(otelkeys.RetrievalDocumentTexts, texts))
		}
	}
	if capt != nil {
		// The call's evaluation reuses the redacted texts.
		capt.addRetrieval(query, docs, texts)
	}
	return docs, nil
}
