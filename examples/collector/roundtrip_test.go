package collector

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/ragtriage/ragtriage/evalkit/otlp"
	"github.com/ragtriage/ragtriage/examples/internal/demo"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
	"github.com/ragtriage/ragtriage/record"
)

// TestRoundTrip sends the spans of two wrapped chains (one capturing
// content, one not) through a real Collector and checks that the records
// otlp.Read rebuilds from the file match what the record sink wrote.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "traces.jsonl")
	col, err := Start(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpoint(col.Endpoint), otlptracehttp.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "roundtrip"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))

	// The examples' guard: the embedded judges escalating to the LLM judge
	// over the scripted stand-in (a simulation), so the spans carry both
	// routes and a fallback record.
	g, _, err := demo.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close(ctx)
	var buf bytes.Buffer
	sink := record.NewWriter(&buf)
	gate := middleware.Gate{Block: middleware.AnnotateOnly, Review: middleware.AnnotateOnly}
	qa := chains.NewRetrievalQAFromLLM(&demo.ScriptedLLM{}, demo.Retriever{K: 2})
	withContent := middleware.Wrap(qa, middleware.WithGuard(g, gate), middleware.WithTracerProvider(tp),
		middleware.WithSink(sink), middleware.WithContent(middleware.NoRedaction))
	without := middleware.Wrap(qa, middleware.WithGuard(g, gate), middleware.WithTracerProvider(tp), middleware.WithSink(sink))
	for i, c := range demo.Cases {
		for j, chain := range []chains.Chain{withContent, without} {
			cctx := middleware.WithCallInfo(ctx, middleware.CallInfo{ID: c.Name + []string{"-content", "-bare"}[j]})
			if i == 1 {
				cctx = middleware.WithReference(cctx, "Within 30 days of purchase.")
			}
			if _, err := chains.Run(cctx, chain, c.Question); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The chains write their records on a goroutine of their own:
	// Shutdown writes what is still queued.
	for _, chain := range []chains.Chain{withContent, without} {
		if err := chain.(*middleware.Chain).Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := col.Shutdown(); err != nil {
		t.Fatal(err)
	}

	want := map[string]record.Record{}
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var r record.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		want[r.ID] = r
	}
	if len(want) != 2*len(demo.Cases) {
		t.Fatalf("sink wrote %d records; want %d", len(want), 2*len(demo.Cases))
	}
	// Under the shipped profile the embedded judges decide nothing on their
	// own, so every case goes through the fallback, the retrieval miss too.
	escalated := 0
	for _, r := range want {
		if r.Result.Route == guard.Fallback && r.Result.Fallback != nil {
			escalated++
		}
	}
	if escalated != 2*len(demo.Cases) {
		t.Fatalf("%d records went through the fallback; want all %d", escalated, 2*len(demo.Cases))
	}
	if dst := os.Getenv("RAGTRIAGE_OTLP_FIXTURE"); dst != "" {
		// Regenerates evalkit/otlp/testdata/otlp-roundtrip.jsonl.
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]record.Record{}
	st, err := otlp.Read(f, func(line int, r record.Record) error {
		got[r.ID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.BadLines != 0 || st.BadSpans != 0 || st.Incomplete != 0 || st.Records != len(want) || st.WithSample != len(demo.Cases) {
		t.Fatalf("otlp.Read stats = %+v; want %d records, %d with samples, no problems", st, len(want), len(demo.Cases))
	}
	if st.Spans != 4*len(want) {
		t.Errorf("%d spans in the file; want %d (chain, retrieval, chat, evaluation per call)", st.Spans, 4*len(want))
	}
	withKinds := 0
	for id, w := range want {
		if len(w.EvidenceKinds) > 0 && w.Sample == nil {
			withKinds++
		}
		g, ok := got[id]
		if !ok {
			t.Errorf("no record %s in the trace file", id)
			continue
		}
		if !g.Time.Equal(w.Time) || g.TraceID != w.TraceID || g.SpanID != w.SpanID || g.Version != w.Version {
			t.Errorf("%s: header %v %s %s; want %v %s %s", id, g.Time, g.TraceID, g.SpanID, w.Time, w.TraceID, w.SpanID)
		}
		if !reflect.DeepEqual(g.Sample, w.Sample) {
			t.Errorf("%s: sample\n got %+v\nwant %+v", id, g.Sample, w.Sample)
		}
		if !slices.Equal(g.EvidenceKinds, w.EvidenceKinds) {
			t.Errorf("%s: evidence kinds %q; want %q", id, g.EvidenceKinds, w.EvidenceKinds)
		}
		if !reflect.DeepEqual(g.Legs, w.Legs) {
			t.Errorf("%s: legs %+v; want %+v", id, g.Legs, w.Legs)
		}
		// Evidence and citations hold user text and never go on spans;
		// neither do the feature vectors (records carry them, spans do not:
		// docs/telemetry.md), so the records must have them and the spans not.
		if w.Result.Features == nil || g.Result.Features != nil {
			t.Errorf("%s: features in the record %v, read back from spans %v; want in the record only", id, w.Result.Features != nil, g.Result.Features != nil)
		}
		w.Result.Evidence, w.Result.Citations, w.Result.Claims = []guard.Evidence{}, nil, nil
		w.Result.Features = nil
		gj, _ := json.Marshal(g.Result)
		wj, _ := json.Marshal(w.Result)
		if !bytes.Equal(gj, wj) {
			t.Errorf("%s: result\n got %s\nwant %s", id, gj, wj)
		}
	}
	if withKinds == 0 {
		t.Errorf("no record without content has evidence kinds: the comparison above checked nothing")
	}
}
