// Package rag is the example server's handler, importable so that tests
// (and a load test) can build it without starting a server.
//
// The guard runs inline: the embedded judges under their shipped,
// calibrated policy, escalating what they leave uncertain through package
// cascade to the LLM judge of package guard/llmjudge, whose model is a
// scripted stand-in for an LLM (a simulation, see demo.ScriptedStandInLLM).
// The generator is a scripted LLM (a simulation too).
//
// Status codes:
//
//   - 200, status "pass": the guard passed the answer (on its own or once
//     the fallback settled what it could not); the answer is in the body.
//   - 422, status "fail": the guard found a confident failure; the body
//     holds the diagnosis (GENERATOR_UNGROUNDED, RETRIEVAL_MISS, …) and no
//     answer.
//   - 202, status "review": the guard could not verify the answer
//     (JUDGE_UNCERTAIN: neither the embedded judges nor the fallback could
//     settle it); the answer is withheld for review under the fail-closed
//     rule, and the body says what stayed unsettled and why.
//   - 400 for a bad request, 502 when the chain itself failed.
package rag

import (
	"context"
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
	Status     string  `json:"status"` // "pass", "fail", "review", "error"
	Diagnosis  string  `json:"diagnosis,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	// Route is "auto" when the embedded judges decided alone, "fallback"
	// when the fallback judge was asked.
	Route string `json:"route,omitempty"`
	// Fallback says what the fallback judge settled, when it was asked.
	Fallback *Fallback `json:"fallback,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Fallback summarizes guard.Result.Fallback.
type Fallback struct {
	Judge     string   `json:"judge"`
	Decisions []string `json:"decisions"`
	Settled   int      `json:"settled"`
	Unsettled int      `json:"unsettled"`
	// Reason says why some decisions stayed unsettled; Cause names it
	// (guard.Cause: "budget", "deadline", "fallback_uncertain", …) for
	// clients that act on it.
	Reason string `json:"reason,omitempty"`
	Cause  string `json:"cause,omitempty"`
}

// Handler answers questions through a wrapped RetrievalQA chain. Safe for
// concurrent use.
type Handler struct {
	chain *middleware.Chain
	guard *demo.Guard
}

// NewHandler builds the handler with the demo knowledge base, the scripted
// LLM and the demo guard (demo.NewGuard: the embedded judges escalating to
// the LLM judge over the scripted stand-in); opts are added to the
// middleware's (a tracer provider, a sink, ...). Close writes the records
// still queued for the sink and releases the guard's cascade.
func NewHandler(opts ...middleware.Option) (*Handler, error) {
	g, _, err := demo.NewGuard()
	if err != nil {
		return nil, err
	}
	qa := chains.NewRetrievalQAFromLLM(&demo.ScriptedLLM{}, demo.Retriever{K: 1})
	all := append([]middleware.Option{middleware.WithGuard(g, middleware.Gate{Block: middleware.ReturnError, Review: middleware.ReturnError})}, opts...)
	c, err := middleware.New(qa, all...)
	if err != nil {
		_ = g.Close(context.Background())
		return nil, err
	}
	return &Handler{chain: c, guard: g}, nil
}

// Close writes the records still queued for the sink (Chain.Shutdown: a
// *middleware.ShutdownError says what was dropped or lost) and ends the
// guard's cascade, waiting until ctx ends for fallback calls under way.
// Requests after Close cannot be settled by the fallback, and their records
// are dropped.
func (h *Handler) Close(ctx context.Context) error {
	return errors.Join(h.chain.Shutdown(ctx), h.guard.Close(ctx))
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
		r := &out.Result
		resp.Diagnosis, resp.Reason, resp.Confidence, resp.Route = string(r.Diagnosis), r.Reason, r.Confidence, r.Route.String()
		if fb := r.Fallback; fb != nil {
			resp.Fallback = &Fallback{Judge: fb.Judge, Settled: fb.Settled, Unsettled: fb.Unsettled, Reason: fb.Reason, Cause: string(fb.Cause)}
			for _, d := range fb.Decisions {
				resp.Fallback.Decisions = append(resp.Fallback.Decisions, d.String())
			}
		}
	}
	var gate *middleware.GateError
	switch {
	case errors.As(err, &gate) && gate.Action == guard.Block && (gate.Result == nil || gate.Result.Diagnosis != guard.JudgeUncertain):
		// A confident failure. (JUDGE_UNCERTAIN blocked by the fail-closed
		// rule is not a failure of the answer: it is held for review.)
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
