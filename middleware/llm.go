package middleware

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/ragtriage/ragtriage/otelkeys"
)

// LLM is an llms.Model that records a generation span for every call.
// Inside a wrapped chain call, it hands the generated text to that call's
// capture. Safe for concurrent use if the model it wraps is.
type LLM struct {
	inner llms.Model
	cfg   *config
	name  string
}

var _ llms.Model = (*LLM)(nil)

// WrapLLM returns m instrumented. Options that apply: WithModel,
// WithTracerProvider, WithContent. Inside a wrapped chain call the chain's
// tracer provider and content settings are used instead. Wrapping an *LLM
// again returns it unchanged when no options are given. It panics (a
// programmer error) when m is nil or an option is invalid.
func WrapLLM(m llms.Model, opts ...Option) *LLM {
	if m == nil {
		panic("middleware: WrapLLM: nil model")
	}
	if w, ok := m.(*LLM); ok {
		if len(opts) == 0 {
			return w
		}
		m = w.inner
	}
	cfg, err := newConfig(opts)
	if err != nil {
		panic(err.Error())
	}
	return newLLM(m, cfg)
}

func newLLM(m llms.Model, cfg *config) *LLM {
	name := otelkeys.SpanGeneration
	if cfg.model != "" {
		name += " " + cfg.model
	}
	return &LLM{inner: m, cfg: cfg, name: name}
}

// Unwrap returns the wrapped model.
func (l *LLM) Unwrap() llms.Model { return l.inner }

// Call generates from a single prompt through GenerateContent, so that it is
// traced the same way.
func (l *LLM) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, l, prompt, options...)
}

// GenerateContent calls the wrapped model under a generation span.
func (l *LLM) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	capt := captureFrom(ctx)
	cfg := l.cfg
	if capt != nil {
		cfg = capt.cfg
	}
	ctx, span := cfg.tracer.Start(ctx, l.name, kindClient)
	defer span.End()
	rec := span.IsRecording()
	if rec {
		span.SetAttributes(
			attribute.String(otelkeys.GenAIOperationName, otelkeys.OperationChat),
			attribute.String(otelkeys.OpenInferenceSpanKind, otelkeys.KindLLM))
		if l.cfg.provider != "" {
			span.SetAttributes(attribute.String(otelkeys.GenAIProviderName, l.cfg.provider))
		}
		if l.cfg.model != "" {
			span.SetAttributes(attribute.String(otelkeys.GenAIRequestModel, l.cfg.model))
		}
		if cfg.redact != nil {
			span.SetAttributes(attribute.String(otelkeys.GenAIInputMessages, inputMessages(cfg, messages)))
		}
	}
	resp, err := l.inner.GenerateContent(ctx, messages, options...)
	if err != nil {
		if rec {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		return resp, err
	}
	if resp != nil && len(resp.Choices) > 0 && resp.Choices[0] != nil {
		ch := resp.Choices[0]
		if capt != nil {
			capt.addGeneration(ch.Content)
		}
		if rec {
			reasons := make([]string, 0, len(resp.Choices))
			for _, c := range resp.Choices {
				if c != nil && c.StopReason != "" {
					reasons = append(reasons, c.StopReason)
				}
			}
			if len(reasons) > 0 {
				span.SetAttributes(attribute.StringSlice(otelkeys.GenAIResponseFinishReasons, reasons))
			}
			if n, ok := intInfo(ch.GenerationInfo, "PromptTokens"); ok {
				span.SetAttributes(attribute.Int(otelkeys.GenAIUsageInputTokens, n))
			}
			if n, ok := intInfo(ch.GenerationInfo, "CompletionTokens"); ok {
				span.SetAttributes(attribute.Int(otelkeys.GenAIUsageOutputTokens, n))
			}
			if cfg.redact != nil {
				span.SetAttributes(attribute.String(otelkeys.GenAIOutputMessages, outputMessages(cfg, resp)))
			}
		}
	}
	return resp, nil
}

func intInfo(m map[string]any, key string) (int, bool) {
	switch v := m[key].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case int32:
		return int(v), true
	case float64:
		return int(v), true
	}
	return 0, false
}

// The GenAI conventions' message shape: [{role, parts:[{type, content}]}].
type genaiPart struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type genaiMessage struct {
	Role         string      `json:"role"`
	Parts        []genaiPart `json:"parts"`
	FinishReason string      `json:"finish_reason,omitempty"`
}

func inputMessages(cfg *config, msgs []llms.MessageContent) string {
	out := make([]genaiMessage, len(msgs))
	for i, m := range msgs {
		out[i].Role = roleName(m.Role)
		out[i].Parts = []genaiPart{}
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				out[i].Parts = append(out[i].Parts, genaiPart{Type: "text", Content: cfg.text(FieldPrompt, t.Text)})
			}
		}
	}
	return jsonString(out)
}

func outputMessages(cfg *config, resp *llms.ContentResponse) string {
	out := make([]genaiMessage, 0, len(resp.Choices))
	for _, c := range resp.Choices {
		if c == nil {
			continue
		}
		out = append(out, genaiMessage{Role: "assistant", FinishReason: c.StopReason,
			Parts: []genaiPart{{Type: "text", Content: cfg.text(FieldCompletion, c.Content)}}})
	}
	return jsonString(out)
}

// jsonString encodes v without HTML escaping (the text is for people and
// tools, not for a web page).
func jsonString(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func roleName(r llms.ChatMessageType) string {
	switch r {
	case llms.ChatMessageTypeSystem:
		return "system"
	case llms.ChatMessageTypeAI:
		return "assistant"
	case llms.ChatMessageTypeHuman, llms.ChatMessageTypeGeneric:
		return "user"
	case llms.ChatMessageTypeTool, llms.ChatMessageTypeFunction:
		return "tool"
	}
	return string(r)
}
