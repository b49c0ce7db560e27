// Command httpserver serves a small RAG endpoint with the guard inline:
//
//	go run ./examples/httpserver -addr 127.0.0.1:8080
//	curl -s 127.0.0.1:8080/ask -d '{"question":"What is the capital of France?"}'
//
// POST /ask {"question": "..."} answers 200 {"answer", "diagnosis", ...} when
// the guard passes the answer, 422 with the diagnosis when it fails it, and
// 202 with the diagnosis when it escalates it (the answer is held for
// review). The retriever is an in-memory keyword search and the LLM is
// scripted (a simulation); no network or API key is needed.
package main

import (
	"flag"
	"log"
	"net/http"
	"time"

	"github.com/ragtriage/ragtriage/examples/httpserver/rag"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	h, err := rag.NewHandler()
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/ask", h)
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Printf("listening on http://%s/ask", *addr)
	log.Fatal(srv.ListenAndServe())
}
