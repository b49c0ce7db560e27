package llmjudge_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

func judgeOne(t *testing.T, j guard.Judge, s *guard.Sample, d guard.Decision) guard.Estimate {
	t.Helper()
	out, err := j.Judge(context.Background(), request(s, d))
	if err != nil {
		t.Fatalf("Judge(%v): %v", d, err)
	}
	if len(out) != 1 {
		t.Fatalf("Judge(%v) = %d estimates; want 1", d, len(out))
	}
	return out[0]
}

func TestLogprobs(t *testing.T) {
	srv, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.YesNo(0.9, "Yes") })
	j := newJudge(t, llm, llmjudge.Config{})
	e := judgeOne(t, j, refundSample(), guard.AnswerRelevance)
	if e.Abstained || math.Abs(e.P-0.9) > 1e-9 {
		t.Fatalf("estimate = %+v; want P 0.9", e)
	}
	if e.Usage.Calls != 1 || e.Usage.InputTokens == 0 || e.Usage.OutputTokens == 0 || e.Latency <= 0 {
		t.Errorf("usage %+v latency %v; want one call with tokens and a latency", e.Usage, e.Latency)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests; want 1", len(reqs))
	}
	r := reqs[0]
	if !r.Logprobs || r.TopLogprobs != 5 || r.Temperature == nil || *r.Temperature != 0 || r.MaxTokens != 8 {
		t.Errorf("request = logprobs %v top %d temperature %v max %d; want true 5 0 8", r.Logprobs, r.TopLogprobs, r.Temperature, r.MaxTokens)
	}
	// A No-leaning distribution and tokens with spaces and case.
	srv.SetModel(func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Choices: []string{"No"}, First: []fakeopenai.TokenProb{{Token: "No", P: 0.6}, {Token: " no", P: 0.1}, {Token: "Yes", P: 0.2}, {Token: "Maybe", P: 0.1}}}
	})
	e = judgeOne(t, j, refundSample(), guard.Contradiction)
	if want := 0.2 / 0.9; e.Abstained || math.Abs(e.P-want) > 1e-9 {
		t.Errorf("estimate = %+v; want P %v", e, want)
	}
}

func TestGroundednessFailClosed(t *testing.T) {
	s := refundSample()
	cases := []struct {
		name   string
		reply  string
		pYes   float64
		wantP  float64 // -1: abstain
		reason string
	}{
		{"verified", "Yes\nQUOTE [c1]: \"Refunds are accepted within 30 days of delivery\"", 0.95, 0.95, ""},
		{"verified with typography", "Yes\nQUOTE [c1]: refunds are  accepted within 30 days … with the receipt.", 0.9, 0.9, ""},
		{"fabricated", "Yes\nQUOTE [c1]: Refunds are accepted within 90 days of delivery", 0.97, -1, "not in context"},
		{"wrong context", "Yes\nQUOTE [c2]: Refunds are accepted within 30 days of delivery", 0.97, -1, "not in context"},
		{"unknown context", "Yes\nQUOTE [c9]: Refunds are accepted within 30 days", 0.97, -1, "not in the sample"},
		{"no quote", "Yes", 0.97, -1, "quotes nothing"},
		{"too short", "Yes\nQUOTE [c1]: within", 0.97, -1, "not in context"},
		{"one bad of two", "Yes\nQUOTE [c1]: Refunds are accepted within 30 days\nQUOTE [c2]: Shipping is free of charge", 0.97, -1, "not in context"},
		{"says no", "No", 0.1, 0.1, ""},
		{"refusal", "I'm sorry, I can't judge that.", 0.01, -1, "unparsable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, llm, _ := setup(t, func(r fakeopenai.Request) fakeopenai.Reply {
				rep := fakeopenai.YesNo(tc.pYes, tc.reply)
				if tc.name == "refusal" {
					rep.First = []fakeopenai.TokenProb{{Token: "I'm", P: 0.95}, {Token: "Yes", P: 0.03}, {Token: "No", P: 0.02}}
				}
				return rep
			})
			e := judgeOne(t, newJudge(t, llm, llmjudge.Config{}), s, guard.Groundedness)
			if tc.wantP < 0 {
				if !e.Abstained || !strings.Contains(e.Reason, tc.reason) {
					t.Errorf("estimate = %+v; want an abstention mentioning %q", e, tc.reason)
				}
				return
			}
			if e.Abstained || math.Abs(e.P-tc.wantP) > 1e-9 {
				t.Fatalf("estimate = %+v; want P %v", e, tc.wantP)
			}
			for _, ev := range e.Evidence {
				q := ev.Quote
				src := s.Contexts[0].Text
				if q.ContextID != "c1" || src[q.Start:q.End] != q.Text {
					t.Errorf("evidence quote %+v does not select its text", q)
				}
			}
			if tc.wantP > 0.5 && len(e.Evidence) == 0 {
				t.Errorf("a grounded estimate without evidence")
			}
		})
	}
}

func TestSampling(t *testing.T) {
	cases := []struct {
		name    string
		choices []string
		ignoreN bool
		wantP   float64 // -1 abstain
		reason  string
	}{
		{"agree", []string{"Yes", "Yes", "yes.", "**Yes**", "No"}, false, 0.8, ""},
		{"unanimous no", []string{"No"}, false, 0, ""},
		{"disagree", []string{"Yes", "No", "Yes", "No", "Yes"}, false, -1, "disagree"},
		{"refusals", []string{"I cannot help with that.", "Sorry.", "Yes", "As an AI", "No"}, false, -1, "unparsable"},
		{"server ignores n", []string{"Yes"}, true, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var i atomic.Int64
			srv, llm, _ := setup(t, func(r fakeopenai.Request) fakeopenai.Reply {
				rep := fakeopenai.Reply{Choices: tc.choices, NoLogprobs: true, IgnoreN: tc.ignoreN}
				if tc.ignoreN {
					rep.Choices = []string{tc.choices[int(i.Add(1)-1)%len(tc.choices)]}
				}
				return rep
			})
			j := newJudge(t, llm, llmjudge.Config{})
			e := judgeOne(t, j, refundSample(), guard.AnswerRelevance)
			if tc.wantP < 0 {
				if !e.Abstained || !strings.Contains(e.Reason, tc.reason) {
					t.Errorf("estimate = %+v; want abstention with %q", e, tc.reason)
				}
			} else if e.Abstained || math.Abs(e.P-tc.wantP) > 1e-9 {
				t.Errorf("estimate = %+v; want P %v", e, tc.wantP)
			}
			reqs := srv.Requests()
			// The first request asks for logprobs and gets none; then the
			// judge samples.
			if !reqs[0].Logprobs {
				t.Errorf("first request did not ask for logprobs")
			}
			last := reqs[len(reqs)-1]
			if last.Logprobs || last.Temperature == nil || *last.Temperature != 1 {
				t.Errorf("sampling request: logprobs %v temperature %v", last.Logprobs, last.Temperature)
			}
			wantCalls := 2
			if tc.ignoreN {
				wantCalls = 6
			}
			if len(reqs) != wantCalls || e.Usage.Calls != wantCalls {
				t.Errorf("%d requests, usage %+v; want %d calls", len(reqs), e.Usage, wantCalls)
			}
			// Now the judge knows: the next estimate goes straight to samples.
			judgeOne(t, j, refundSample(), guard.AnswerRelevance)
			if n := len(srv.Requests()); n != 2*wantCalls-1 {
				t.Errorf("second estimate made %d requests; want %d", n-wantCalls, wantCalls-1)
			}
		})
	}
}

func TestGroundednessSamples(t *testing.T) {
	good := "Yes\nQUOTE [c1]: Refunds are accepted within 30 days of delivery"
	bad := "Yes\nQUOTE [c1]: Refunds are accepted within 60 days of delivery"
	cases := []struct {
		name    string
		choices []string
		wantP   float64 // -1: abstain
	}{
		{"verified", []string{good}, 1},
		{"some unverified", []string{good, good, good, bad, bad}, -1},
		{"all unverified", []string{bad}, -1},
		{"no quotes", []string{"Yes"}, -1},
		{"mostly no", []string{"No", "No", "No", "No", bad}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply {
				return fakeopenai.Reply{Choices: tc.choices, NoLogprobs: true}
			})
			e := judgeOne(t, newJudge(t, llm, llmjudge.Config{Mode: llmjudge.SamplesOnly}), refundSample(), guard.Groundedness)
			if tc.wantP < 0 {
				if !e.Abstained || !strings.Contains(e.Reason, "unverified evidence") {
					t.Errorf("estimate = %+v; want an abstention for unverified evidence", e)
				}
			} else if e.Abstained || e.P != tc.wantP {
				t.Errorf("estimate = %+v; want P %v", e, tc.wantP)
			}
		})
	}
}

func TestLogprobsRejected(t *testing.T) {
	srv, llm, tr := setup(t, func(r fakeopenai.Request) fakeopenai.Reply {
		if r.Logprobs {
			return fakeopenai.Reply{Status: http.StatusBadRequest, Message: "logprobs is not supported for this model"}
		}
		return fakeopenai.Reply{Choices: []string{"Yes"}}
	})
	j := newJudge(t, llm, llmjudge.Config{})
	e := judgeOne(t, j, refundSample(), guard.AnswerRelevance)
	if e.Abstained || e.P != 1 {
		t.Errorf("estimate = %+v; want P 1 from samples", e)
	}
	if !tr.LogprobsDisabled() {
		t.Errorf("transport still asks for logprobs")
	}
	if reqs := srv.Requests(); len(reqs) != 3 || reqs[1].Logprobs {
		t.Errorf("requests: %d; want the rejected one, its plain retry, then the samples", len(reqs))
	}
}

func TestLogprobsOnly(t *testing.T) {
	_, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Choices: []string{"Yes"}, NoLogprobs: true}
	})
	e := judgeOne(t, newJudge(t, llm, llmjudge.Config{Mode: llmjudge.LogprobsOnly}), refundSample(), guard.AnswerRelevance)
	if !e.Abstained || !strings.Contains(e.Reason, "no log-probabilities") {
		t.Errorf("estimate = %+v", e)
	}
}

func TestRetryAfter(t *testing.T) {
	var n atomic.Int64
	srv, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply {
		if n.Add(1) == 1 {
			return fakeopenai.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0.05", Message: "rate limit exceeded"}
		}
		return fakeopenai.YesNo(0.8, "Yes")
	})
	j := newJudge(t, llm, llmjudge.Config{})
	e := judgeOne(t, j, refundSample(), guard.AnswerRelevance)
	if e.Abstained || math.Abs(e.P-0.8) > 1e-9 || e.Usage.Retries != 1 {
		t.Errorf("estimate = %+v; want P 0.8 after one retry", e)
	}
	if srv.Count() != 2 {
		t.Errorf("%d requests; want 2", srv.Count())
	}
	// A Retry-After longer than the transport waits: the error surfaces.
	srv.SetModel(func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Status: http.StatusTooManyRequests, RetryAfter: "30", Message: "rate limit exceeded"}
	})
	// One request, no retry: the transport did not wait for the 30s.
	n0 := srv.Count()
	_, err := j.Judge(context.Background(), request(refundSample(), guard.AnswerRelevance))
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("err = %v; want the 429", err)
	}
	if n := srv.Count() - n0; n != 1 {
		t.Errorf("%d requests; want 1 (no retry after a Retry-After of 30s)", n)
	}
}

func TestPassThrough(t *testing.T) {
	srv, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.YesNo(0.9, "Yes it is") })
	// A normal call: no side channel, no logprobs asked.
	resp, err := llm.GenerateContent(context.Background(), []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")})
	if err != nil || resp.Choices[0].Content != "Yes it is" {
		t.Fatalf("plain call: %v %+v", err, resp)
	}
	// A streaming call with a side channel: passed through, streamed.
	ctx, lp := llmjudge.WithLogprobs(context.Background(), 5)
	var got strings.Builder
	resp, err = llm.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")},
		llms.WithStreamingFunc(func(_ context.Context, chunk []byte) error { got.Write(chunk); return nil }))
	if err != nil || got.String() != "Yes it is" || resp.Choices[0].Content != "Yes it is" {
		t.Fatalf("streaming call: %v, streamed %q", err, got.String())
	}
	reqs := srv.Requests()
	if reqs[0].Logprobs || reqs[1].Logprobs || !reqs[1].Stream {
		t.Errorf("requests: plain logprobs=%v, stream logprobs=%v stream=%v; want false, false, true", reqs[0].Logprobs, reqs[1].Logprobs, reqs[1].Stream)
	}
	if lp.Requested || lp.Choices != nil {
		t.Errorf("side channel of a stream = %+v; want untouched", lp)
	}
}

func TestErrorsAndCancellation(t *testing.T) {
	// The deadline passes while the request is at the (hung) server.
	ctx := newExpiring()
	srv, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply {
		ctx.expire()
		return fakeopenai.Reply{Hang: true}
	})
	j := newJudge(t, llm, llmjudge.Config{})
	_, err := j.Judge(ctx, request(refundSample(), guard.AnswerRelevance, guard.Groundedness))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v; want it to wrap DeadlineExceeded", err)
	}
	for _, rep := range []fakeopenai.Reply{
		{Status: 500, Message: "internal error"},
		{Body: "<html>bad gateway</html>"},
		{Choices: []string{"Yes"}, Truncate: true},
	} {
		srv.SetModel(func(fakeopenai.Request) fakeopenai.Reply { return rep })
		if _, err := j.Judge(context.Background(), request(refundSample(), guard.AnswerRelevance)); err == nil {
			t.Errorf("reply %+v: no error", rep)
		}
	}
}

// scripted is an in-process llms.Model (no HTTP) for the conformance kit,
// which makes thousands of calls: it answers "Yes" to everything and honours
// the context.
type scripted struct{}

func (scripted) GenerateContent(ctx context.Context, _ []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var o llms.CallOptions
	for _, f := range opts {
		f(&o)
	}
	resp := &llms.ContentResponse{}
	for i := 0; i < max(1, o.N); i++ {
		resp.Choices = append(resp.Choices, &llms.ContentChoice{Content: "Yes", GenerationInfo: map[string]any{"PromptTokens": 10, "CompletionTokens": 1}})
	}
	return resp, nil
}

func (m scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func TestConformance(t *testing.T) {
	j, err := llmjudge.New(llmjudge.Config{Model: scripted{}, Name: "scripted"})
	if err != nil {
		t.Fatal(err)
	}
	guardtest.TestJudge(t, func() guard.Judge { return j })
}

func TestNewOpenAI(t *testing.T) {
	srv := fakeopenai.New(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.YesNo(0.7, "Yes") })
	defer srv.Close()
	if _, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{BaseURL: srv.URL, Model: "m"}); !errors.Is(err, llmjudge.ErrNoAPIKey) {
		t.Errorf("no key: err = %v; want ErrNoAPIKey", err)
	}
	for _, c := range []llmjudge.OpenAIConfig{
		{BaseURL: "ftp://x", Model: "m", APIKey: "k"},
		{BaseURL: "localhost:8080", Model: "m", APIKey: "k"},
		{BaseURL: srv.URL, APIKey: "k"},
	} {
		if _, err := llmjudge.NewOpenAI(c); err == nil {
			t.Errorf("NewOpenAI(%+v) succeeded", c)
		}
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests made by constructors; want none", srv.Count())
	}
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	j, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{BaseURL: srv.URL, Model: "m", APIKey: "k", LegacyMaxTokens: true, Base: base})
	if err != nil {
		t.Fatal(err)
	}
	e := judgeOne(t, j, refundSample(), guard.AnswerRelevance)
	if e.Abstained || math.Abs(e.P-0.7) > 1e-9 {
		t.Errorf("estimate = %+v", e)
	}
	r := srv.Requests()[0]
	if r.Header.Get("Authorization") != "Bearer k" || r.Model != "m" || r.Raw["max_tokens"] == nil || r.Raw["max_completion_tokens"] != nil {
		t.Errorf("request: auth %q model %q body %v", r.Header.Get("Authorization"), r.Model, r.Raw)
	}
	if d := j.Describe(); d.Name != "llmjudge/m" || d.Version != llmjudge.PromptVersion {
		t.Errorf("Describe = %+v", d)
	}
}

func TestClaimExtractor(t *testing.T) {
	reply := "- Refunds are accepted within 30 days.\n- A receipt is needed.\n- A receipt is needed."
	srv, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Choices: []string{reply}} })
	x, err := llmjudge.NewClaimExtractor(llm, 0)
	if err != nil {
		t.Fatal(err)
	}
	var _ guard.ClaimExtractor = x
	claims, err := x.ExtractClaims(context.Background(), refundSample())
	if err != nil || strings.Join(claims, "|") != "Refunds are accepted within 30 days.|A receipt is needed." {
		t.Errorf("claims = %q, %v", claims, err)
	}
	sys := srv.Requests()[0].Role("system")
	if strings.Contains(sys, "30 days of delivery") || !strings.Contains(srv.Requests()[0].Role("user"), "30 days of delivery") {
		t.Errorf("the answer must be in the user message only")
	}
	for _, tc := range []struct {
		reply string
		n     int
		err   error
	}{
		{"NONE", 0, nil},
		{"1. Paris is the capital.\n2) It is in France.", 2, nil},
		{"The answer says Paris.", 0, llmjudge.ErrUnparsableClaims},
	} {
		srv.SetModel(func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Choices: []string{tc.reply}} })
		claims, err := x.ExtractClaims(context.Background(), refundSample())
		if len(claims) != tc.n || !errors.Is(err, tc.err) {
			t.Errorf("reply %q: claims %q err %v; want %d claims, err %v", tc.reply, claims, err, tc.n, tc.err)
		}
	}
}

// hashEmbed is a deterministic bag-of-words embedding for tests: each word
// adds 1 to the dimension its FNV hash picks.
func hashEmbed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		for _, w := range strings.Fields(strings.ToLower(t)) {
			h := uint32(2166136261)
			for k := 0; k < len(w); k++ {
				h = (h ^ uint32(w[k])) * 16777619
			}
			v[h%64]++
		}
		out[i] = v
	}
	return out, nil
}

func TestEmbeddingJudge(t *testing.T) {
	emb, err := embeddings.NewEmbedder(embeddings.EmbedderClientFunc(hashEmbed))
	if err != nil {
		t.Fatal(err)
	}
	j, err := llmjudge.NewEmbedding(llmjudge.EmbeddingConfig{Embedder: emb, Floor: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	s := &guard.Sample{Question: "refund window for returned items", Contexts: []guard.Context{
		{ID: "on", Text: "refund window for returned items is 30 days"},
		{ID: "off", Text: "zebras graze quietly at dawn"},
	}, Answer: "30 days"}
	out, err := j.Judge(context.Background(), request(s, guard.ChunkRelevance, guard.Groundedness))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]guard.Estimate{}
	for _, e := range out {
		got[e.Decision.String()+"/"+e.ContextID] = e
	}
	if e := got["chunk_relevance/off"]; e.Abstained || e.P != 0 || len(e.Evidence) != 1 {
		t.Errorf("off-topic chunk = %+v; want ruled out with evidence", e)
	}
	if e := got["chunk_relevance/on"]; !e.Abstained {
		t.Errorf("on-topic chunk = %+v; want an abstention (the floor only rules out)", e)
	}
	if e := got["groundedness/"]; !e.Abstained {
		t.Errorf("groundedness = %+v; want an abstention", e)
	}
	cal, _ := llmjudge.NewEmbedding(llmjudge.EmbeddingConfig{Embedder: emb, Floor: 0.3, Calibrate: func(s float64) float64 { return (s + 1) / 2 }})
	out, _ = cal.Judge(context.Background(), request(s, guard.ChunkRelevance))
	if out[0].Abstained || out[0].P <= out[1].P {
		t.Errorf("calibrated = %+v", out)
	}
	for _, c := range []llmjudge.EmbeddingConfig{{}, {Embedder: emb, Floor: 2}, {Embedder: emb, Floor: 0.2, BelowFloor: -1}} {
		if _, err := llmjudge.NewEmbedding(c); err == nil {
			t.Errorf("NewEmbedding(%+v) succeeded", c)
		}
	}
}

func TestConfigValidation(t *testing.T) {
	_, llm, _ := setup(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.YesNo(0.5, "Yes") })
	for _, c := range []llmjudge.Config{
		{},
		{Model: llm, MaxDisagreement: 0.5},
		{Model: llm, Samples: 3, MinValidSamples: 4},
		{Model: llm, Mode: 9},
		{Model: llm, MinYesNoMass: math.NaN()},
	} {
		if _, err := llmjudge.New(c); err == nil {
			t.Errorf("New(%+v) succeeded", c)
		}
	}
}
