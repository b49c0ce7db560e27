// Command httpserver serves a small RAG endpoint with the guard inline:
//
//	go run ./examples/httpserver -addr 127.0.0.1:8080
//	curl -s 127.0.0.1:8080/ask -d '{"question":"What is the capital of France?"}'
//
// POST /ask {"question": "..."} answers 200 {"answer", "diagnosis", ...} when
// the guard passes the answer, 422 with the diagnosis when it fails it, and
// 202 with the diagnosis when it cannot verify it (JUDGE_UNCERTAIN: the
// answer is withheld for review, and the body says what the fallback judge
// could not settle). The guard is the embedded judges under their shipped,
// calibrated policy, escalating what they leave uncertain through package
// cascade to the LLM judge of package guard/llmjudge.
//
// The retriever is an in-memory keyword search, the generator is a scripted
// LLM (a simulation that returns canned answers), and the fallback judge's
// model is a scripted stand-in for an LLM (a simulation that replies to the
// judge's prompts from a small script); no network or API key is needed.
// The demo's other three questions (a wrong number the fallback fails: 422;
// an answer the fallback cannot settle: 202; a retrieval miss the fallback
// fails: 422):
//
//	curl -s 127.0.0.1:8080/ask -d '{"question":"How long do I have to ask for a refund?"}'
//	curl -s 127.0.0.1:8080/ask -d '{"question":"How long does standard shipping take?"}'
//	curl -s 127.0.0.1:8080/ask -d '{"question":"Who painted the Mona Lisa and where does it hang?"}'
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ragtriage/ragtriage/examples/internal/demo"

	"github.com/ragtriage/ragtriage/examples/httpserver/rag"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	if err := serve(*addr); err != nil {
		log.Fatal(err)
	}
}

// serve runs the server until SIGINT or SIGTERM, then shuts it down and
// closes the handler's guard.
func serve(addr string) error {
	h, err := rag.NewHandler()
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/ask", h)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Print("generator: scripted LLM (offline simulation: canned answers)")
	log.Print(demo.StandInLabel)
	log.Printf("listening on http://%s/ask", addr)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	select {
	case err := <-errc:
		_ = h.Close(context.Background())
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if cerr := h.Close(sctx); err == nil {
		err = cerr
	}
	log.Print("stopped")
	return err
}
