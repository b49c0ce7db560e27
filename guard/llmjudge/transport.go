package llmjudge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// TokenLogprob is one generated token with its log-probability and the most
// likely alternatives at its position.
type TokenLogprob struct {
	Token   string         `json:"token"`
	Logprob float64        `json:"logprob"`
	Top     []TokenLogprob `json:"top_logprobs,omitempty"`
}

// Logprobs is the per-request side channel between a judge and the
// Transport: the judge puts one in the request's context with WithLogprobs,
// the Transport asks the server for log-probabilities and fills it from the
// response. A Logprobs belongs to one request (and its retries); read it
// after the call returned.
type Logprobs struct {
	// Top is how many alternatives per token to ask for (top_logprobs).
	// Zero asks for none: the Transport then only records Retries.
	Top int
	// Choices holds, per choice index, the tokens of that choice. Nil when
	// the server returned no logprobs.
	Choices [][]TokenLogprob
	// Requested says the request was sent with logprobs on.
	Requested bool
	// Rejected says the server refused a request with logprobs (HTTP 400),
	// and the Transport sent it again without them.
	Rejected bool
	// Retries counts requests sent again after a 429 or 503 with
	// Retry-After.
	Retries int
}

type logprobsKey struct{}

// WithLogprobs returns a context under which a chat-completion request sent
// through a Transport asks for log-probabilities with top alternatives per
// token (0 to 20; OpenAI allows at most 20, some servers fewer), and the
// Logprobs the response fills.
func WithLogprobs(ctx context.Context, top int) (context.Context, *Logprobs) {
	lp := &Logprobs{Top: max(0, min(top, 20))}
	return context.WithValue(ctx, logprobsKey{}, lp), lp
}

func logprobsFrom(ctx context.Context) *Logprobs {
	lp, _ := ctx.Value(logprobsKey{}).(*Logprobs)
	return lp
}

// Transport is an http.RoundTripper for langchaingo's OpenAI client
// (openai.WithHTTPClient(&http.Client{Transport: t})). langchaingo v0.1.14
// neither asks for nor returns token log-probabilities; for a chat
// completion whose context carries a Logprobs (WithLogprobs), Transport adds
// "logprobs":true and "top_logprobs" to the request body and reads
// choices[].logprobs.content from the response into it, handing the body
// back to the client unchanged.
//
// Other requests are passed through unchanged: embeddings, requests without
// a Logprobs, and streaming requests ("stream":true), whose server-sent
// events it does not read. For every chat completion it also honours
// Retry-After on 429 and 503 responses, up to MaxRetries times and only when
// the wait is at most MaxRetryWait and ends before the request's deadline.
// When a server answers 400 to a request with logprobs, Transport sends it
// again without them and stops asking that server for logprobs.
//
// The zero Transport is ready to use (no retries). A Transport is safe for
// concurrent use; it must not be copied after first use.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// MaxRetries is how many times a 429/503 with Retry-After is retried.
	MaxRetries int
	// MaxRetryWait is the longest Retry-After honoured; 0 means 2s.
	MaxRetryWait time.Duration
	// MaxResponseBytes bounds the response bodies read for logprobs; 0
	// means 16 MiB.
	MaxResponseBytes int64

	noLogprobs atomic.Bool
}

// LogprobsDisabled reports whether the server refused logprobs and the
// transport stopped asking for them.
func (t *Transport) LogprobsDisabled() bool { return t.noLogprobs.Load() }

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return http.DefaultTransport
}

// ErrResponseTooLarge is returned when a response body exceeds
// MaxResponseBytes.
var ErrResponseTooLarge = errors.New("llmjudge: response body too large")

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") || req.Body == nil {
		return t.base().RoundTrip(req)
	}
	raw, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("llmjudge: reading request body: %w", err)
	}
	lp := logprobsFrom(req.Context())
	body := raw
	asked := false
	if lp != nil && lp.Top > 0 && !t.noLogprobs.Load() {
		if b, ok := addLogprobs(raw, lp.Top); ok {
			body, asked = b, true
			lp.Requested = true
		}
	}
	maxWait := t.MaxRetryWait
	if maxWait <= 0 {
		maxWait = 2 * time.Second
	}
	for attempt := 0; ; attempt++ {
		resp, err := t.base().RoundTrip(withBody(req, body))
		if err != nil {
			return nil, err
		}
		switch {
		case asked && resp.StatusCode == http.StatusBadRequest:
			// The server may not know logprobs: try once without.
			drain(resp)
			body, asked = raw, false
			lp.Rejected, lp.Requested = true, false
			resp, err = t.base().RoundTrip(withBody(req, body))
			if err != nil {
				return nil, err
			}
			if resp.StatusCode == http.StatusOK {
				t.noLogprobs.Store(true)
			}
			if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
				return resp, nil
			}
			fallthrough
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
			wait, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now())
			if !ok || attempt >= t.MaxRetries || wait > maxWait {
				return resp, nil
			}
			if dl, has := req.Context().Deadline(); has && time.Until(dl) <= wait {
				return resp, nil
			}
			drain(resp)
			if lp != nil {
				lp.Retries++
			}
			timer := time.NewTimer(wait)
			select {
			case <-timer.C:
			case <-req.Context().Done():
				timer.Stop()
				return nil, req.Context().Err()
			}
			continue
		}
		if !asked || resp.StatusCode != http.StatusOK {
			return resp, nil
		}
		return t.readLogprobs(resp, lp)
	}
}

// readLogprobs reads the body, fills lp, and gives the client the body back.
func (t *Transport) readLogprobs(resp *http.Response, lp *Logprobs) (*http.Response, error) {
	limit := t.MaxResponseBytes
	if limit <= 0 {
		limit = 16 << 20
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("llmjudge: reading response body: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, ErrResponseTooLarge
	}
	lp.Choices = parseLogprobs(b)
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Del("Content-Length")
	return resp, nil
}

// addLogprobs sets logprobs and top_logprobs in a JSON request body, unless
// it asks for a stream or is not a JSON object.
func addLogprobs(raw []byte, top int) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	if s, ok := m["stream"]; ok && string(s) == "true" {
		return nil, false
	}
	m["logprobs"] = json.RawMessage("true")
	m["top_logprobs"] = json.RawMessage(strconv.Itoa(top))
	b, err := json.Marshal(m)
	if err != nil {
		return nil, false
	}
	return b, true
}

// parseLogprobs reads choices[].logprobs.content; nil when the body has
// none (or is not JSON: the client reports that error itself).
func parseLogprobs(b []byte) [][]TokenLogprob {
	var r struct {
		Choices []struct {
			Index    int `json:"index"`
			Logprobs *struct {
				Content []TokenLogprob `json:"content"`
			} `json:"logprobs"`
		} `json:"choices"`
	}
	if json.Unmarshal(b, &r) != nil {
		return nil
	}
	var out [][]TokenLogprob
	for k, c := range r.Choices {
		if c.Logprobs == nil || len(c.Logprobs.Content) == 0 {
			continue
		}
		i := c.Index
		if i < 0 || i > 1024 {
			i = k
		}
		for len(out) <= i {
			out = append(out, nil)
		}
		out[i] = c.Logprobs.Content
	}
	return out
}

func withBody(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || s > 1e6 {
			return 0, false
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
