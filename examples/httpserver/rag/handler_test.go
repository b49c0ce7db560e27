package rag

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/examples/internal/demo"
)

func TestHandler(t *testing.T) {
	h, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	want := map[string]struct {
		code   int
		status string
	}{
		"pass":     {http.StatusOK, "pass"},
		"fail":     {http.StatusUnprocessableEntity, "fail"},
		"escalate": {http.StatusAccepted, "review"},
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
		w := want[c.Name]
		if resp.StatusCode != w.code || r.Status != w.status || r.Diagnosis == "" || r.ID != c.Name {
			t.Errorf("%s: %d %+v; want %d %s with a diagnosis", c.Name, resp.StatusCode, r, w.code, w.status)
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
