package evalkit

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/render"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
)

// TestNoLabelsIsNull: accuracies over zero labelled rows are null, never 0.
func TestNoLabelsIsNull(t *testing.T) {
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, `{"id":"r%d","question":"q%d?","contexts":[{"id":"c1","text":"t"}],"answer":"a"}`+"\n", i, i)
	}
	path := writeFile(t, "u.jsonl", b.String())
	rep := runCascade(t, path, 1, unsurePrimary, cascade.Config{}, nil)
	d := rep.Diagnosis
	switch {
	case d.Accuracy != nil || d.SuccessfulAccuracy != nil || d.OverallAccuracy != nil || d.SuccessRate != nil:
		t.Errorf("diagnosis accuracies %v %v %v %v; want null", d.Accuracy, d.SuccessfulAccuracy, d.OverallAccuracy, d.SuccessRate)
	case rep.Cascade.EndToEndAccuracy != nil:
		t.Errorf("end-to-end accuracy %v; want null", *rep.Cascade.EndToEndAccuracy)
	case rep.Input.PerFile[0].Accuracy != nil:
		t.Errorf("per-file accuracy %v; want null", *rep.Input.PerFile[0].Accuracy)
	}
	if d.Selective.AURC != nil {
		t.Errorf("diagnosis AURC %v over no row; want null", *d.Selective.AURC)
	}
	for _, dr := range rep.Decisions.All() {
		if dr.Accuracy != nil || dr.Brier != nil || dr.ECE != nil || dr.AURC != nil || dr.AUROC != nil {
			t.Errorf("%s: accuracy %v, Brier %v, ECE %v, AURC %v over %d items; want null", dr.Decision, dr.Accuracy, dr.Brier, dr.ECE, dr.AURC, dr.N)
		}
	}
	md := render.Markdown(rep)
	if !strings.Contains(md, "| 0 | 0 | 0 | n/a | n/a | n/a | n/a | n/a |") {
		t.Errorf("Markdown diagnosis row is not n/a:\n%s", md)
	}
	if h := render.HTML(rep); !strings.Contains(h, "diagnosis accuracy<b>n/a</b>") || !strings.Contains(h, "end-to-end accuracy<b>n/a</b>") {
		t.Error("HTML: accuracies are not n/a")
	}
	// With labels they are numbers, 0 included.
	rep = runCascade(t, cascadeRows(t, 4, 4), 1, unsurePrimary, cascade.Config{}, nil)
	if rep.Diagnosis.Accuracy == nil || rep.Cascade.EndToEndAccuracy == nil || rep.Input.PerFile[0].Accuracy == nil {
		t.Errorf("labelled rows: accuracies %v %v %v", rep.Diagnosis.Accuracy, rep.Cascade.EndToEndAccuracy, rep.Input.PerFile[0].Accuracy)
	}
}

// httpJudge is a fallback judge that asks an HTTP server (through client)
// about every request and answers 0.9 when it replies 200.
type httpJudge struct {
	client *http.Client
	url    string
}

func (h httpJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(req.Sample.Question))
	if err != nil {
		return nil, err
	}
	resp, err := h.client.Do(r)
	if err != nil {
		// Like langchaingo: the transport error is not in the message.
		return nil, fmt.Errorf("network error: failed to reach API server")
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("API returned unexpected status code: %d", resp.StatusCode)
	}
	var out []guard.Estimate
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for _, c := range req.Sample.Contexts {
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: 0.9})
			}
			continue
		}
		out = append(out, guard.Estimate{Decision: d, P: 0.9})
	}
	return out, nil
}

func (h httpJudge) Describe() guard.JudgeInfo { return guard.JudgeInfo{Name: "http-judge"} }

// TestFallbackErrors: the fallback's failed calls are counted, those that
// got no HTTP response (MeteredTransport) apart, and the first errors are
// quoted with the transport's own message.
func TestFallbackErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	client := &http.Client{Transport: MeteredTransport(http.DefaultTransport)}
	path := cascadeRows(t, 12, 12)

	rep := runCascade(t, path, 2, httpJudge{client, closed}, cascade.Config{BreakerFailures: 1000}, nil)
	fe := rep.FallbackErrors
	switch {
	case fe == nil:
		t.Fatal("no fallbackErrors block")
	case fe.Calls == 0 || fe.Failed != fe.Calls || fe.Transport != fe.Calls || fe.Estimates != 0 || fe.FailedRate == nil || *fe.FailedRate != 1:
		t.Errorf("unreachable fallback: %+v", *fe)
	case len(fe.Errors) == 0 || len(fe.Errors) > report.MaxListedFallbackErrors || !strings.Contains(fe.Errors[0], "connection refused") || !strings.Contains(fe.Errors[0], "network error"):
		t.Errorf("errors %q; want the judge's error with the transport's", fe.Errors)
	case fe.Calls != rep.Cascade.Runtime.FallbackCalls:
		t.Errorf("%d calls counted; the cascade made %d", fe.Calls, rep.Cascade.Runtime.FallbackCalls)
	}
	probs := report.CheckFallbackErrors(rep, 0.05)
	if len(probs) != 2 || !strings.Contains(probs[0], "transport") || !strings.Contains(probs[1], "more than the 5.0% allowed") {
		t.Errorf("problems %q; want the transport failure and the share", probs)
	}
	if md := render.Markdown(rep); !strings.Contains(md, fmt.Sprintf("Fallback calls: %d made, %d failed (%d with no HTTP response)", fe.Calls, fe.Failed, fe.Transport)) {
		t.Errorf("Markdown lacks the fallback errors line:\n%s", md)
	}

	// A server that answers: no failure; a 500: failures, not transport.
	srv := httpTestServer(t, 200)
	rep = runCascade(t, path, 2, httpJudge{client, srv}, cascade.Config{}, nil)
	if fe := rep.FallbackErrors; fe == nil || fe.Calls == 0 || fe.Failed != 0 || fe.Estimates == 0 || len(fe.Errors) != 0 || len(report.CheckFallbackErrors(rep, 0)) != 0 {
		t.Errorf("healthy fallback: %+v", fe)
	}
	srv = httpTestServer(t, 500)
	rep = runCascade(t, path, 2, httpJudge{client, srv}, cascade.Config{BreakerFailures: 1000}, nil)
	if fe := rep.FallbackErrors; fe == nil || fe.Failed == 0 || fe.Transport != 0 || !strings.Contains(fe.Errors[0], "500") {
		t.Errorf("failing server: %+v", fe)
	} else if probs := report.CheckFallbackErrors(rep, 0.05); len(probs) != 1 || strings.Contains(probs[0], "transport") {
		t.Errorf("failing server: problems %q; want the share only", probs)
	}
	// Primary mode has no fallback: no block.
	pol := uncertainPolicy()
	m, err := BuildMode(report.ModePrimary, ModeConfig{Primary: unsurePrimary, PrimaryPolicy: pol})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Mode: report.ModePrimary, PrimaryPolicy: &pol}
	m.Configure(&cfg)
	src := dataset.NewFileSource(path)
	defer src.Close()
	if rep, err := Run(context.Background(), src, cfg); err != nil || rep.FallbackErrors != nil {
		t.Errorf("primary mode: fallbackErrors %+v, %v", rep.FallbackErrors, err)
	}
}

func httpTestServer(t *testing.T, status int) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/"
}

// TestNondeterminismNote: a cascade replay with more than one worker says
// why its figures may vary between runs; with one it says nothing.
func TestNondeterminismNote(t *testing.T) {
	path := cascadeRows(t, 6, 3)
	sim, err := NewSimulatedJudge(SimulatedConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if r := runCascade(t, path, 1, sim, cascade.Config{}, nil); r.Reproduce.Nondeterminism != "" {
		t.Errorf("one worker: %q", r.Reproduce.Nondeterminism)
	}
	if r := runCascade(t, path, 3, sim, cascade.Config{}, nil); !strings.Contains(r.Reproduce.Nondeterminism, "-workers 1") {
		t.Errorf("three workers: %q", r.Reproduce.Nondeterminism)
	}
}

// TestLabelledRowsHoldALabel: a row counts as labelled only when it holds a
// label a report can use. An empty "expected":{} (what export writes), a
// misplaced label, an unknown key or an unknown diagnosis is not one.
func TestLabelledRowsHoldALabel(t *testing.T) {
	row := `{"id":"r%d","question":"q%d?","contexts":[{"id":"c1","text":"t"}],"answer":"a","expected":%s}` + "\n"
	var b strings.Builder
	for i, e := range []string{`{}`, `{"groundedness":true}`, `{"generation":{"faithful":true}}`,
		`{"diagnosis":"PASSED"}`, `{"retrieval":{"chunkRelevance":{"c1":null}}}`,
		`{"generation":{"groundedness":true}}`, `{"diagnosis":"PASS"}`} {
		fmt.Fprintf(&b, row, i, i, e)
	}
	rep := runCascade(t, writeFile(t, "l.jsonl", b.String()), 1, unsurePrimary, cascade.Config{}, nil)
	if got := rep.Input.RowsLabeled; got != 2 {
		t.Errorf("rowsLabeled %d; want 2 (the groundedness and the PASS rows)", got)
	}
}
