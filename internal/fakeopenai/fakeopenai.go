// Package fakeopenai is an in-process, OpenAI-compatible chat-completions
// server for tests (a simulation of a model server, not a model). It speaks
// real HTTP through net/http/httptest, so clients under test — langchaingo's
// OpenAI client among them — run unmodified. A test scripts the replies with
// a Model function and injects faults: HTTP errors with Retry-After, slow or
// hanging responses, truncated and non-JSON bodies, servers that ignore or
// reject logprobs.
//
//	srv := fakeopenai.New(func(r fakeopenai.Request) fakeopenai.Reply {
//		return fakeopenai.YesNo(0.9, "Yes")
//	})
//	defer srv.Close()
//	llm, _ := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test"), openai.WithModel("m"))
package fakeopenai

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Message is one chat message of a request.
type Message struct {
	Role    string
	Content string
}

// Request is a chat-completion request as the server decoded it.
type Request struct {
	Model       string
	Messages    []Message
	N           int // 1 when absent
	Temperature *float64
	MaxTokens   int // max_completion_tokens, or max_tokens
	Logprobs    bool
	TopLogprobs int
	Stream      bool
	// Raw is the decoded JSON body; Header the HTTP headers.
	Raw    map[string]any
	Header http.Header
}

// Text returns every message's content joined by newlines.
func (r Request) Text() string {
	var b strings.Builder
	for i, m := range r.Messages {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.Content)
	}
	return b.String()
}

// Role returns the joined content of the messages with the given role.
func (r Request) Role(role string) string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == role {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// TokenProb is one candidate token with its probability.
type TokenProb struct {
	Token string
	P     float64
}

// Reply is what the server answers to one request.
type Reply struct {
	// Choices are the texts of the choices. A request for n choices gets
	// Choices[i % len(Choices)] as choice i. Empty means one empty choice.
	Choices []string
	// First, when set, is the distribution of every choice's first token,
	// sent as its top_logprobs when the request asks for logprobs (the
	// first token's own logprob is read from it). The first token is the
	// choice's first word.
	First []TokenProb
	// PromptTokens and CompletionTokens go in usage; zero means an estimate
	// (bytes/4 of the prompt, words of the choices).
	PromptTokens, CompletionTokens int

	// Status, when not 0 or 200, answers with that status and an OpenAI
	// error body carrying Message.
	Status  int
	Message string
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter string
	// Delay waits before answering (the wait ends early when the client
	// goes away).
	Delay time.Duration
	// Hang never answers: the handler returns only when the client goes
	// away or the server is closed.
	Hang bool
	// Body, when set, is sent as is with status 200 (or Status) instead of
	// a JSON completion: for non-JSON bodies.
	Body string
	// Truncate declares the full length of the body but sends only its
	// first half, then closes the connection.
	Truncate bool
	// NoLogprobs leaves logprobs out even when the request asks for them
	// (like a server that does not support them).
	NoLogprobs bool
	// IgnoreN answers one choice whatever n the request asks for (like
	// servers that do not support n).
	IgnoreN bool
}

// YesNo returns a reply whose first token is "Yes" with probability pYes
// and "No" otherwise, with the given choice texts.
func YesNo(pYes float64, choices ...string) Reply {
	return Reply{Choices: choices, First: []TokenProb{{Token: "Yes", P: pYes}, {Token: "No", P: 1 - pYes}}}
}

// Model decides the reply to a request. It may be called concurrently.
type Model func(Request) Reply

// Server is the fake server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give a client, ending in /v1.
	URL string

	srv     *httptest.Server
	model   atomic.Pointer[Model]
	mu      sync.Mutex
	reqs    []Request
	count   atomic.Int64
	release chan struct{}
	once    sync.Once
}

// New starts a server answering with model.
func New(model Model) *Server {
	s := &Server{release: make(chan struct{})}
	s.SetModel(model)
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = s.srv.URL + "/v1"
	return s
}

// SetModel replaces the model (faults can be switched on and off mid-test).
func (s *Server) SetModel(m Model) {
	if m == nil {
		panic("fakeopenai: nil model")
	}
	s.model.Store(&m)
}

// Requests returns the chat requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Count returns how many chat requests were received.
func (s *Server) Count() int { return int(s.count.Load()) }

// Close releases hanging handlers and shuts the server down, waiting for
// every handler to return.
func (s *Server) Close() {
	s.once.Do(func() { close(s.release) })
	s.srv.CloseClientConnections()
	s.srv.Close()
}

type errBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, err := decode(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, "fakeopenai: "+err.Error(), "")
		return
	}
	req.Header = r.Header.Clone()
	s.count.Add(1)
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()

	rep := (*s.model.Load())(req)
	if rep.Hang {
		select {
		case <-r.Context().Done():
		case <-s.release:
		}
		return
	}
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.release:
			return
		}
	}
	if rep.RetryAfter != "" {
		w.Header().Set("Retry-After", rep.RetryAfter)
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	if rep.Body != "" {
		writeRaw(w, status, []byte(rep.Body), rep.Truncate)
		return
	}
	if status != http.StatusOK {
		msg := rep.Message
		if msg == "" {
			msg = http.StatusText(status)
		}
		writeError(w, status, msg, rep.RetryAfter)
		return
	}
	if rep.IgnoreN {
		req.N = 1
	}
	if req.Stream {
		s.stream(w, req, rep)
		return
	}
	body, _ := json.Marshal(completion(req, rep))
	writeRaw(w, status, body, rep.Truncate)
}

func writeRaw(w http.ResponseWriter, status int, body []byte, truncate bool) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if truncate {
		w.Write(body[:len(body)/2])
		// Returning with fewer bytes than declared makes net/http close
		// the connection: the client reads an unexpected EOF.
		return
	}
	w.Write(body)
}

func writeError(w http.ResponseWriter, status int, msg, _ string) {
	var e errBody
	e.Error.Message, e.Error.Type = msg, "fake_error"
	b, _ := json.Marshal(e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func decode(raw []byte) (Request, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return Request{}, fmt.Errorf("body is not JSON: %w", err)
	}
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		N                   int      `json:"n"`
		Temperature         *float64 `json:"temperature"`
		MaxTokens           int      `json:"max_tokens"`
		MaxCompletionTokens int      `json:"max_completion_tokens"`
		Logprobs            bool     `json:"logprobs"`
		TopLogprobs         int      `json:"top_logprobs"`
		Stream              bool     `json:"stream"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		return Request{}, fmt.Errorf("bad request body: %w", err)
	}
	r := Request{Model: body.Model, N: body.N, Temperature: body.Temperature, MaxTokens: body.MaxCompletionTokens,
		Logprobs: body.Logprobs, TopLogprobs: body.TopLogprobs, Stream: body.Stream, Raw: m}
	if r.MaxTokens == 0 {
		r.MaxTokens = body.MaxTokens
	}
	if r.N <= 0 {
		r.N = 1
	}
	for _, msg := range body.Messages {
		r.Messages = append(r.Messages, Message{Role: msg.Role, Content: contentText(msg.Content)})
	}
	return r, nil
}

// contentText reads a message content: a string, or a list of parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

type logprob struct {
	Token       string    `json:"token"`
	Logprob     float64   `json:"logprob"`
	TopLogprobs []logprob `json:"top_logprobs"`
}

type choice struct {
	Index        int    `json:"index"`
	Message      any    `json:"message,omitempty"`
	Delta        any    `json:"delta,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Logprobs     any    `json:"logprobs"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func choiceText(rep Reply, i int) string {
	if len(rep.Choices) == 0 {
		return ""
	}
	return rep.Choices[i%len(rep.Choices)]
}

// tokens splits text into the server's "tokens": words with their leading
// space.
func tokens(text string) []string {
	var out []string
	start := 0
	for i := 1; i <= len(text); i++ {
		if i == len(text) || text[i] == ' ' || text[i] == '\n' {
			if i > start {
				out = append(out, text[start:i])
			}
			start = i
		}
	}
	return out
}

func ln(p float64) float64 {
	if p <= 0 {
		return -9999
	}
	return math.Log(p)
}

func logprobsFor(req Request, rep Reply, text string) any {
	if !req.Logprobs || rep.NoLogprobs {
		return nil
	}
	toks := tokens(text)
	content := make([]logprob, 0, len(toks))
	for k, tok := range toks {
		lp := logprob{Token: tok, Logprob: -0.01, TopLogprobs: []logprob{}}
		if k == 0 && len(rep.First) > 0 {
			lp.Logprob = -9999
			n := req.TopLogprobs
			for j, c := range rep.First {
				if strings.TrimSpace(c.Token) == strings.TrimSpace(tok) {
					lp.Logprob = ln(c.P)
				}
				if j < n {
					lp.TopLogprobs = append(lp.TopLogprobs, logprob{Token: c.Token, Logprob: ln(c.P)})
				}
			}
		} else if k < len(toks) && req.TopLogprobs > 0 {
			lp.TopLogprobs = append(lp.TopLogprobs, logprob{Token: tok, Logprob: -0.01})
		}
		content = append(content, lp)
	}
	return map[string]any{"content": content}
}

func (r Reply) usage(req Request) usage {
	u := usage{PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}
	if u.PromptTokens == 0 {
		u.PromptTokens = len(req.Text())/4 + 1
	}
	if u.CompletionTokens == 0 {
		for i := 0; i < req.N; i++ {
			u.CompletionTokens += len(tokens(choiceText(r, i)))
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u
}

func completion(req Request, rep Reply) map[string]any {
	choices := make([]choice, req.N)
	for i := range choices {
		text := choiceText(rep, i)
		choices[i] = choice{Index: i, FinishReason: "stop",
			Message:  map[string]any{"role": "assistant", "content": text},
			Logprobs: logprobsFor(req, rep, text)}
	}
	return map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": choices, "usage": rep.usage(req),
	}
}

// stream answers with server-sent events, one chunk per token of the first
// choice, then a usage chunk and [DONE].
func (s *Server) stream(w http.ResponseWriter, req Request, rep Reply) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	for _, tok := range tokens(choiceText(rep, 0)) {
		send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []choice{{Index: 0, Delta: map[string]any{"content": tok}}}})
	}
	send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": req.Model,
		"choices": []choice{{Index: 0, Delta: map[string]any{}, FinishReason: "stop"}}})
	send(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": req.Model,
		"choices": []choice{}, "usage": rep.usage(req)})
	fmt.Fprint(w, "data: [DONE]\n\n")
}
