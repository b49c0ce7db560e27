// Package rag is the example server's handler, importable so that tests
// (and a load test) can build it without starting a server.
package rag

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/tmc/langchaingo/chains"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
)

// Request is the body of POST /ask.
type Request struct {
	Question string `json:"question"`
	// ID optionally names the request in traces and records.
	ID string `json:"id,omitempty"`
}

// Response is the body of every answer. Answer is empty unless the guard
// passed it.
type Response struct {
	ID         string  `json:"id"`
	Answer     string  `json:"answer,omitempty"`
	Status     string  `json:"status"` // "pass", "fail", "review"
	Diagnosis  string  `json:"diagnosis,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Error      string  `json:"error,omitempty"`
}

// Handler answers questions through a wrapped RetrievalQA chain. Safe for
// concurrent use.
type Handler struct {
	chain chains.Chain
}

// NewHandler builds the handler with the demo knowledge base, the scripted
// LLM and the embedded judges; opts are added to the middleware's (a
// tracer provider, a sink, ...).
func NewHandler(opts ...middleware.Option) (*Handler, error) {
	g, err := demo.NewGuard()
	if err != nil {
		return nil, err
	}
	qa := chains.NewRetrievalQAFromLLM(&demo.ScriptedLLM{}, demo.Retriever{K: 1})
	all := append([]middleware.Option{middleware.WithGuard(g, middleware.Gate{Block: middleware.ReturnError, Review: middleware.ReturnError})}, opts...)
	c, err := middleware.New(qa, all...)
	if err != nil {
		return nil, err
	}
	return &Handler{chain: c}, nil
}

const maxBody = 64 << 10

// ServeHTTP answers POST /ask.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		write(w, http.StatusMethodNotAllowed, Response{Status: "error", Error: "use POST"})
		return
	}
	var req Request
	dec := json.NewDecoder(io.LimitReader(r.Body, maxBody))
	if err := dec.Decode(&req); err != nil || req.Question == "" {
		write(w, http.StatusBadRequest, Response{Status: "error", Error: `want a JSON body {"question": "..."}`})
		return
	}
	ctx, out := middleware.WithOutcome(r.Context())
	if req.ID != "" {
		ctx = middleware.WithCallInfo(ctx, middleware.CallInfo{ID: req.ID})
	}
	answer, err := chains.Run(ctx, h.chain, req.Question)
	resp := Response{ID: out.ID}
	if out.Evaluated {
		resp.Diagnosis, resp.Reason, resp.Confidence = string(out.Result.Diagnosis), out.Result.Reason, out.Result.Confidence
	}
	var gate *middleware.GateError
	switch {
	case errors.As(err, &gate) && gate.Action == guard.Block:
		resp.Status = "fail"
		write(w, http.StatusUnprocessableEntity, resp)
	case errors.As(err, &gate):
		resp.Status = "review"
		if gate.Err != nil {
			resp.Error = gate.Err.Error()
		}
		write(w, http.StatusAccepted, resp)
	case err != nil:
		resp.Status, resp.Error = "error", err.Error()
		write(w, http.StatusBadGateway, resp)
	default:
		resp.Status, resp.Answer = "pass", answer
		write(w, http.StatusOK, resp)
	}
}

func write(w http.ResponseWriter, code int, v Response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
