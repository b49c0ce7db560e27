package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/fake"
	"github.com/tmc/langchaingo/schema"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/record"
)

// refundDocs is a retriever that returns the same two documents.
type refundDocs struct{}

func (refundDocs) GetRelevantDocuments(context.Context, string) ([]schema.Document, error) {
	return []schema.Document{{PageContent: "Refunds are accepted within 30 days of purchase."},
		{PageContent: "Shipping takes 5 business days."}}, nil
}

// TestCustomCauseRoundTrip: a custom judge that abstains with a cause of
// its own writes records, through the middleware's record sink, that eval
// reads, every line of them. The cause is one warning at its first line,
// not a bad line (on 2262ee7 every line was bad).
func TestCustomCauseRoundTrip(t *testing.T) {
	custom := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			e := guard.Abstain(d, "", "my judge cannot tell")
			e.Cause = "my_cause"
			out = append(out, e)
		}
		return out, nil
	})
	lex, err := lexical.New(lexical.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.WithJudge(lex), guard.WithJudge(custom, guard.Groundedness))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	var buf bytes.Buffer
	llm := fake.NewFakeLLM([]string{"Refunds are accepted within 30 days.", "Within 30 days.", "Shipping takes 5 business days."})
	chain := middleware.Wrap(chains.NewRetrievalQAFromLLM(llm, refundDocs{}),
		middleware.WithGuard(g, middleware.Gate{Block: middleware.AnnotateOnly, Review: middleware.AnnotateOnly}),
		middleware.WithSink(record.NewWriter(&buf)), middleware.WithContent(middleware.NoRedaction))
	for range n {
		if _, err := chains.Run(context.Background(), chain, "How long do I have to ask for a refund?"); err != nil {
			t.Fatal(err)
		}
	}
	if err := chain.(*middleware.Chain).Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(buf.String(), `"cause":"my_cause"`); c < n {
		t.Fatalf("%d records name my_cause; want every one of %d:\n%s", c, n, buf.String())
	}
	recs := writeFile(t, "records.jsonl", buf.String())
	st, _, e := runCmd(t, "eval", "-records", recs, "-mode", "recorded", "-pricing", pricingFile, "-out", filepath.Join(t.TempDir(), "r.json"))
	if st != 0 {
		t.Fatalf("eval: exit %d:\n%s", st, e)
	}
	for _, want := range []string{"3 rows read, 3 evaluated, 0 failed",
		`records.jsonl:1: result.abstentions[0].cause: cause "my_cause" is not one guard names`} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
	if c := strings.Count(e, `"my_cause"`); c != 1 {
		t.Errorf("my_cause named %d times on stderr; want once:\n%s", c, e)
	}
}
