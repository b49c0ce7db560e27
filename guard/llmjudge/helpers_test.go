package llmjudge_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms/openai"
	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// setup starts a fake server answering with model and returns langchaingo's
// real OpenAI client pointed at it through a llmjudge.Transport. Both are
// shut down when the test ends.
func setup(t testing.TB, model fakeopenai.Model) (*fakeopenai.Server, *openai.LLM, *llmjudge.Transport) {
	t.Helper()
	srv := fakeopenai.New(model)
	base := &http.Transport{}
	tr := &llmjudge.Transport{Base: base, MaxRetries: 2, MaxRetryWait: time.Second}
	llm, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test-key"), openai.WithModel("judge-model"),
		openai.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		t.Fatalf("openai.New: %v", err)
	}
	t.Cleanup(func() {
		srv.Close()
		base.CloseIdleConnections()
	})
	return srv, llm, tr
}

func newJudge(t testing.TB, llm *openai.LLM, cfg llmjudge.Config) *llmjudge.Judge {
	t.Helper()
	cfg.Model = llm
	if cfg.Name == "" {
		cfg.Name = "judge-model"
	}
	j, err := llmjudge.New(cfg)
	if err != nil {
		t.Fatalf("llmjudge.New: %v", err)
	}
	return j
}

func refundSample() *guard.Sample {
	return &guard.Sample{
		ID:       "refund",
		Question: "How long do I have to return an item?",
		Contexts: []guard.Context{
			{ID: "c1", Text: "Returns policy: Refunds are accepted within 30 days of delivery, with the receipt."},
			{ID: "c2", Text: "Shipping takes three to five business days."},
		},
		Answer: "You can return an item for a refund within 30 days of delivery.",
	}
}

func request(s *guard.Sample, ds ...guard.Decision) guard.Request {
	return guard.Request{Sample: s, Decisions: ds}
}

// expiring is a caller's context whose deadline passes when the test says
// (expire), not when a timer fires. Its Deadline is 20 seconds away: far
// enough that nothing refuses the call for lack of time, and within the
// cascade's default CallTimeout (30s), so that a call it ends is the
// caller's, as with a real deadline. Once expired, Err is
// context.DeadlineExceeded, as if that deadline had come. A fake server that
// expires the context when a request arrives makes the deadline pass while
// the fallback is under way, however fast or slow the machine. Safe for
// concurrent use.
type expiring struct {
	context.Context // values only
	deadline        time.Time
	done            chan struct{}
	once            sync.Once
}

func newExpiring() *expiring {
	return &expiring{Context: context.Background(), deadline: time.Now().Add(20 * time.Second), done: make(chan struct{})}
}

func (c *expiring) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *expiring) Done() <-chan struct{}       { return c.done }

func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// expire makes the deadline pass; later calls do nothing.
func (c *expiring) expire() { c.once.Do(func() { close(c.done) }) }
