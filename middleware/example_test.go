package middleware_test

import (
	"context"
	"fmt"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
)

type oneDoc struct{}

func (oneDoc) GetRelevantDocuments(context.Context, string) ([]schema.Document, error) {
	return []schema.Document{{PageContent: "Refunds are processed within 5 business days.", Metadata: map[string]any{"id": "policy#1"}}}, nil
}

type canned struct{}

func (canned) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "Refunds take 5 business days."}}}, nil
}

func (c canned) Call(ctx context.Context, p string, o ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, p, o...)
}

// A guard with no judges escalates everything: with Review set to
// ReplaceAnswer, the caller gets the fallback text and the outcome says why.
func ExampleWrap() {
	g, _ := guard.New()
	chain := middleware.Wrap(chains.NewRetrievalQAFromLLM(canned{}, oneDoc{}),
		middleware.WithGuard(g, middleware.Gate{Review: middleware.ReplaceAnswer, FallbackText: "Let me check."}))
	ctx, out := middleware.WithOutcome(context.Background())
	answer, err := chains.Run(ctx, chain, "How long do refunds take?")
	fmt.Println(answer, err)
	fmt.Println(out.Sample.Answer, "->", out.Result.Diagnosis, out.Action)
	// Output:
	// Let me check. <nil>
	// Refunds take 5 business days. -> JUDGE_UNCERTAIN review
}
