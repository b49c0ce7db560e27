package guard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// The log value says what was decided and carries none of the sample's
// text, even where judges quote it in their reasons.
func TestResultLogValueHasNoSampleText(t *testing.T) {
	secret := "Zanzibar-7431"
	judge := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			switch d {
			case guard.ChunkRelevance:
				for _, c := range req.Sample.Contexts {
					out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: 0.9})
				}
			case guard.Groundedness:
				out = append(out, guard.Estimate{Decision: d, P: 0.5, Evidence: []guard.Evidence{{Decision: d,
					Kind: guard.EvidenceUnsupported, Detail: `"` + secret + `" appears in no context`}}})
			default:
				out = append(out, guard.Abstain(d, "", `"`+secret+`" is not in the contexts`))
			}
		}
		return out, nil
	})
	fb := guard.EscalatorFunc(func(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range esc.Decisions {
			out = append(out, guard.Abstain(d, "", `fallback failed: quote "`+secret+`" not found`))
		}
		return out, nil
	})
	g := mustNew(t, guard.WithJudge(judge), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
	s := newSample(true, "c1", "c2")
	s.Answer = "It takes " + secret + " days."
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("judged", "result", res)
	out := buf.String()
	if strings.Contains(out, secret) || strings.Contains(out, "refund") || strings.Contains(out, "Refund") {
		t.Errorf("log line carries sample text:\n%s", out)
	}
	var line struct {
		Result struct {
			DecisionID string         `json:"decisionId"`
			Diagnosis  string         `json:"diagnosis"`
			Action     string         `json:"action"`
			Verdicts   map[string]any `json:"verdicts"`
			Fallback   map[string]any `json:"fallback"`
		} `json:"result"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r := line.Result
	if r.DecisionID != res.DecisionID || r.Diagnosis != string(res.Diagnosis) || r.Action != res.Action.String() {
		t.Errorf("logged %+v; want the result's decision ID, diagnosis and action", r)
	}
	if got := r.Verdicts["groundedness"]; got != "uncertain" {
		t.Errorf("groundedness verdict logged as %v", got)
	}
	if got := r.Verdicts["chunk_relevance"]; got == nil {
		t.Errorf("no chunk relevance in %v", r.Verdicts)
	}
	if r.Fallback == nil || !strings.Contains(r.Fallback["reason"].(string), "[withheld]") {
		t.Errorf("fallback logged as %v; want its reason with the quote withheld", r.Fallback)
	}
}

func TestWithholdQuotes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"no quotes", "no quotes"},
		{`"Acme" appears in no context`, `"[withheld]" appears in no context`},
		{`quote "a \"b\" c" not in "c1"`, `quote "[withheld]" not in "[withheld]"`},
		{"curly “text” here", `curly "[withheld]" here`},
		{`cut "short`, `cut "[withheld]"`},
	} {
		if got := guard.WithholdQuotes(tt.in); got != tt.want {
			t.Errorf("WithholdQuotes(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// A Result logs as a compact group, without the sample's text.
func ExampleResult_LogValue() {
	g, err := guard.New(guard.WithJudge(keywordJudge), guard.WithPolicy(guard.UniformPolicy(0.2, 0.8)),
		guard.WithClock(func() time.Time { return time.Unix(0, 0) }))
	if err != nil {
		panic(err)
	}
	res, _ := g.Evaluate(context.Background(), guard.Sample{
		Question: "How long do refunds take?",
		Contexts: []guard.Context{{ID: "policy#1", Text: "Refunds are processed within 5 business days."}},
		Answer:   "Refunds take 3 days.",
	})
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // a fixed output for the example
			}
			return a
		}}))
	logger.Info("answer judged", "result", res)
	// Output:
	// level=INFO msg="answer judged" result.decisionId=ragtriage.rag.without-reference result.diagnosis=GENERATOR_UNGROUNDED result.route=auto result.action=block result.confidence=0.9 result.verdicts.chunk_relevance.pass=1 result.verdicts.chunk_relevance.fail=0 result.verdicts.chunk_relevance.uncertain=0 result.verdicts.context_sufficiency=pass result.verdicts.context_conflict=pass result.verdicts.answer_relevance=pass result.verdicts.groundedness=fail result.verdicts.contradiction=pass result.reason="the answer makes claims the contexts do not support" result.latencyMs=0
}
