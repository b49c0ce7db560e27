package ragtriage_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/middleware"
)

// refundsRetriever is a one-document knowledge base (a stand-in for a
// vector store).
type refundsRetriever struct{}

func (refundsRetriever) GetRelevantDocuments(context.Context, string) ([]schema.Document, error) {
	return []schema.Document{{PageContent: "Customers may request a full refund within 30 days of purchase.",
		Metadata: map[string]any{"id": "policy/refunds"}}}, nil
}

// scriptedLLM stands in for the application's generator LLM (a simulation:
// no model runs): it always answers "90 days", against the policy's 30.
type scriptedLLM struct{}

func (scriptedLLM) GenerateContent(context.Context, []llms.MessageContent, ...llms.CallOption) (*llms.ContentResponse, error) {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "You can get a full refund within 90 days."}}}, nil
}

func (m scriptedLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// The guard gating a langchaingo chain inline: a blocked answer comes back
// as a *middleware.GateError carrying the result. The generator and the
// fallback are simulations (scriptedLLM, simulatedLLMJudge) so that the
// example runs offline.
func Example_middleware() {
	llm, retriever := scriptedLLM{}, refundsRetriever{}
	g, err := ragtriage.New(ragtriage.WithFallback(simulatedLLMJudge{}, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close(context.Background())

	chain, err := middleware.New(chains.NewRetrievalQAFromLLM(llm, retriever),
		middleware.WithGuard(g, middleware.Gate{Block: middleware.ReturnError, Review: middleware.ReplaceAnswer}))
	if err != nil {
		log.Fatal(err)
	}
	answer, err := chains.Run(context.Background(), chain, "How long do I have to ask for a refund?")
	var gated *middleware.GateError
	switch {
	case errors.As(err, &gated):
		fmt.Println("withheld:", gated.Result.Diagnosis, gated.Action)
	case err != nil:
		log.Fatal(err)
	default:
		fmt.Println(answer)
	}
	// Output: withheld: GENERATOR_UNGROUNDED block
}

// A fallback on a server of your own (vLLM here; llama.cpp's server and
// Ollama's /v1 API work the same way: see docs/fallback.md), with the
// cascade's limits and budget set.
func Example_localServer() {
	j, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{
		BaseURL: "http://localhost:8000/v1",
		Model:   "Qwen/Qwen2.5-7B-Instruct",
		APIKey:  os.Getenv(llmjudge.APIKeyEnv),
		// LegacyMaxTokens: true,   // for servers that only read max_tokens
		// Judge: llmjudge.Config{Samples: 7, MaxDisagreement: 0.15},
	})
	if err != nil {
		log.Fatal(err) // llmjudge.ErrNoAPIKey when the key is empty
	}
	g, err := ragtriage.New(ragtriage.WithFallback(j, guard.UniformPolicy(0.3, 0.7), guard.FailClosed,
		cascade.WithLimits(cascade.Limits{MaxConcurrent: 8, MaxWaiting: 32, CallTimeout: 20 * time.Second}),
		cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 600, MaxTokens: 2_000_000}),
	))
	if err != nil {
		log.Fatal(err)
	}
	defer g.Close(context.Background())
	fmt.Println(g.Cascade().Fallback().Name)
}
