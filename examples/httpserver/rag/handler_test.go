package rag

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
)

func TestHandler(t *testing.T) {
	h, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h)
	defer srv.Close()
	want := map[string]struct {
		code      int
		status    string
		diagnosis string
		route     string
		unsettled int // -1: the fallback was not asked
	}{
		"pass":     {http.StatusOK, "pass", "PASS", "fallback", 0},
		"fail":     {http.StatusUnprocessableEntity, "fail", "GENERATOR_UNGROUNDED", "fallback", 0},
		"escalate": {http.StatusAccepted, "review", "JUDGE_UNCERTAIN", "fallback", 1},
		"miss":     {http.StatusUnprocessableEntity, "fail", "RETRIEVAL_MISS", "fallback", 0},
	}
	if len(demo.Cases) != len(want) {
		t.Fatalf("%d demo cases; want %d", len(demo.Cases), len(want))
	}
	for _, c := range demo.Cases {
		body, _ := json.Marshal(Request{Question: c.Question, ID: c.Name})
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		var r Response
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		w, ok := want[c.Name]
		if !ok {
			t.Fatalf("unknown case %q", c.Name)
		}
		if resp.StatusCode != w.code || r.Status != w.status || r.Diagnosis != w.diagnosis || r.Route != w.route || r.ID != c.Name {
			t.Errorf("%s: %d %+v; want %d %s %s route %s", c.Name, resp.StatusCode, r, w.code, w.status, w.diagnosis, w.route)
		}
		switch {
		case w.unsettled < 0 && r.Fallback != nil:
			t.Errorf("%s: fallback %+v; want none", c.Name, r.Fallback)
		case w.unsettled >= 0 && (r.Fallback == nil || r.Fallback.Unsettled != w.unsettled || r.Fallback.Settled == 0):
			t.Errorf("%s: fallback %+v; want some settled, %d unsettled", c.Name, r.Fallback, w.unsettled)
		case w.unsettled > 0 && r.Fallback.Reason == "":
			t.Errorf("%s: fallback %+v; want the reason it stayed unsettled", c.Name, r.Fallback)
		}
		if (r.Answer != "") != (c.Name == "pass") {
			t.Errorf("%s: answer %q leaked or missing", c.Name, r.Answer)
		}
	}
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad body: %d; want 400", resp.StatusCode)
	}
}

// TestHandlerConcurrent sends the four questions from many goroutines at
// once: each must keep its status code (the cascade collapses identical
// fallback calls and caches what it settled, so concurrency changes no
// outcome).
func TestHandlerConcurrent(t *testing.T) {
	h, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	want := map[string]int{"pass": http.StatusOK, "fail": http.StatusUnprocessableEntity, "escalate": http.StatusAccepted,
		"miss": http.StatusUnprocessableEntity}
	const perCase = 32
	var wg sync.WaitGroup
	errs := make(chan string, perCase*len(demo.Cases))
	for _, c := range demo.Cases {
		body, _ := json.Marshal(Request{Question: c.Question})
		for range perCase {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ask", bytes.NewReader(body)))
				if rec.Code != want[c.Name] {
					errs <- fmt.Sprintf("%s: %d %s; want %d", c.Name, rec.Code, rec.Body, want[c.Name])
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
