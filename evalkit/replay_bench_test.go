package evalkit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// cycleSource replays the fixture's rows over and over, each time with a new
// id, up to n items: a large dataset without a large file.
type cycleSource struct {
	lines [][]byte
	n, i  int
}

func (s *cycleSource) Next() (dataset.Item, error) {
	if s.i >= s.n {
		return dataset.Item{}, io.EOF
	}
	line := s.lines[s.i%len(s.lines)]
	row, err := dataset.ParseRow(line)
	pos := dataset.Position{File: "cycled", Line: s.i + 1}
	s.i++
	if err != nil {
		return dataset.Item{Pos: pos, Err: err}, nil
	}
	row.Sample.ID = fmt.Sprintf("%s#%d", row.Sample.ID, s.i)
	return dataset.Item{Pos: pos, ID: row.Sample.ID, Sample: &row.Sample, Expected: row.Expected}, nil
}

func (s *cycleSource) Inputs() []dataset.InputFile { return nil }
func (s *cycleSource) Close() error                { return nil }

// peakHeap samples the heap in use until stop is closed.
func peakHeap(stop <-chan struct{}, out *uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	var ms runtime.MemStats
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		runtime.ReadMemStats(&ms)
		*out = max(*out, ms.HeapInuse)
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// BenchmarkReplay100k replays 100,000 rows (the fixture cycled with new ids)
// through the lexical guard, alone and in a cascade with the simulated
// fallback, and reports rows/s, the peak heap in use, the process's peak
// resident set (getrusage), and the share of the run spent keeping metrics
// and computing the report.
//
//	go test -run '^$' -bench Replay100k -benchtime 1x ./evalkit
func BenchmarkReplay100k(b *testing.B) {
	data, err := os.ReadFile("../testdata/eval/fixture.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	judge, err := lexical.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	sim, err := evalkit.NewSimulatedJudge(evalkit.SimulatedConfig{ErrorRate: 0.05, Latency: 300 * time.Millisecond,
		InputTokens: 400, OutputTokens: 8, Seed: 1, Unlabeled: judge})
	if err != nil {
		b.Fatal(err)
	}
	const rows = 100_000
	for _, mode := range []report.Mode{report.ModePrimary, report.ModeCascade} {
		b.Run(string(mode), func(b *testing.B) {
			pol := judge.Policy()
			fb := pol
			for i := range b.N {
				_ = i
				m, err := evalkit.BuildMode(mode, evalkit.ModeConfig{Primary: judge, PrimaryPolicy: pol, Fallback: sim, FallbackPolicy: fb})
				if err != nil {
					b.Fatal(err)
				}
				g := m.Guard
				runtime.GC()
				var peak uint64
				var wg sync.WaitGroup
				stop := make(chan struct{})
				wg.Add(1)
				go peakHeap(stop, &peak, &wg)
				start := time.Now()
				rep, err := evalkit.Run(context.Background(), &cycleSource{lines: lines, n: rows},
					evalkit.Config{Mode: mode, Guard: g, PrimaryPolicy: &pol, FallbackPolicy: &fb})
				elapsed := time.Since(start)
				m.Close(context.Background())
				close(stop)
				wg.Wait()
				if err != nil {
					b.Fatal(err)
				}
				if rep.Input.RowsEvaluated != rows {
					b.Fatalf("%d rows evaluated; want %d", rep.Input.RowsEvaluated, rows)
				}
				var ru syscall.Rusage
				_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
				b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(ru.Maxrss)/1024, "max-RSS-MB")
				b.ReportMetric(100*rep.Reproduce.MetricsSeconds/elapsed.Seconds(), "metrics-%")
			}
		})
	}
}
