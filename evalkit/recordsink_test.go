package evalkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

func TestRecordWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			rec := &record.Record{ID: fmt.Sprint("r", i), Result: guard.Result{Diagnosis: guard.PassDiagnosis, Evidence: []guard.Evidence{}}}
			if err := w.WriteRecord(context.Background(), rec); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n, f := w.Counts(); n != 50 || f != 0 {
		t.Fatalf("counts %d, %d; want 50, 0", n, f)
	}
	seen := map[string]bool{}
	for i, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		var r record.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if r.Version != record.Version {
			t.Errorf("line %d: version %q", i+1, r.Version)
		}
		seen[r.ID] = true
	}
	if len(seen) != 50 {
		t.Errorf("%d distinct records; want 50", len(seen))
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write(p []byte) (int, error) { return 0, f.err }

func TestRecordWriterFailures(t *testing.T) {
	boom := errors.New("disk full")
	w := record.NewWriter(failingWriter{boom})
	if err := w.WriteRecord(context.Background(), &record.Record{ID: "x"}); !errors.Is(err, boom) {
		t.Errorf("err = %v; want %v", err, boom)
	}
	if err := w.WriteRecord(context.Background(), nil); err == nil {
		t.Error("nil record accepted")
	}
	var buf bytes.Buffer
	ok := record.NewWriter(&buf)
	ok.Close()
	if err := ok.WriteRecord(context.Background(), &record.Record{ID: "y"}); !errors.Is(err, record.ErrWriterClosed) {
		t.Errorf("after Close: %v", err)
	}
	if n, f := w.Counts(); n != 0 || f != 2 {
		t.Errorf("counts %d, %d; want 0, 2", n, f)
	}
}
