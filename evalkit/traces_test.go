package evalkit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTraceSourceCountsEveryLine(t *testing.T) {
	good, err := os.ReadFile("otlp/testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	data := append(append([]byte{}, good...), []byte("not json\n{\"resourceSpans\":[]}\n")...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src := NewTraceSource(nil, path)
	defer src.Close()
	var records, failed, withSample int
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case it.Err != nil:
			failed++
			if it.Pos.Line == 0 || it.Pos.File != "traces.jsonl" {
				t.Errorf("failed item without a position: %+v", it)
			}
		case it.Record == nil || it.ID == "":
			t.Errorf("item without a record: %+v", it)
		default:
			records++
			if it.Sample != nil {
				withSample++
			}
		}
	}
	st := src.Stats
	if records != st.Records || records == 0 {
		t.Errorf("%d records replayed, reader counted %d", records, st.Records)
	}
	if failed != 1 || st.BadLines != 1 {
		t.Errorf("%d failed items, %d bad lines; want 1 and 1", failed, st.BadLines)
	}
	if withSample != st.WithSample || withSample == 0 || withSample == records {
		t.Errorf("%d of %d records carry a sample (reader: %d); the fixture mixes both", withSample, records, st.WithSample)
	}
	in := src.Inputs()
	if len(in) != 1 || in[0].Kind != "traces" || in[0].Bad != 1 || in[0].SHA256 == "" || in[0].Bytes != int64(len(data)) {
		t.Errorf("inputs = %+v", in)
	}
}

func TestTraceSourceCloseMidFile(t *testing.T) {
	src := NewTraceSource(nil, "otlp/testdata/otlp-roundtrip.jsonl")
	if _, err := src.Next(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := NewTraceSource(nil, "testdata/missing.jsonl").Next(); err == nil {
		t.Error("a missing file gave no error")
	}
}

// A trace file holding the same batches twice replays each evaluation span
// once; the repeats are warnings with their line, not failed rows.
func TestTraceSourceRepeatedBatch(t *testing.T) {
	good, err := os.ReadFile("otlp/testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	if err := os.WriteFile(path, append(append([]byte{}, good...), good...), 0o644); err != nil {
		t.Fatal(err)
	}
	src := NewTraceSource(nil, path)
	defer src.Close()
	var records, failed int
	for {
		it, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if it.Err != nil {
			failed++
		} else {
			records++
		}
	}
	if records != 6 || failed != 0 {
		t.Errorf("%d records, %d failed; want the 6 evaluations once and no failure", records, failed)
	}
	ws := src.Warnings()
	if len(ws) != 6 || src.Stats.Repeated != 6 || src.Inputs()[0].Repeated != 6 {
		t.Fatalf("warnings %v, repeated %d (input %+v); want 6", ws, src.Stats.Repeated, src.Inputs()[0])
	}
	for _, w := range ws {
		if w.Pos.File != "traces.jsonl" || w.Pos.Line == 0 || !strings.Contains(w.Message, "span repeated") {
			t.Errorf("warning %s; want the file, the line and \"span repeated\"", w)
		}
	}
}
