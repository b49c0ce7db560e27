package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun runs the loop end to end on the shipped dev data, with the
// calibrate step through `go run` of the module's command, and checks what
// each step must show: records without text that teach, a profile that
// decides groundedness on its own, T decided at a low error against the true
// labels with the monitor quiet, and drifted traffic on which the monitor
// trips and keeps the share of wrong automatic verdicts below what the same
// profile gives without it.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the ragtriage command")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	cfg := defaultConfig() // its paths are the repository root's
	cfg.dir, cfg.stream = dir, filepath.Join("../..", cfg.stream)
	for i := range cfg.drift {
		cfg.drift[i] = filepath.Join("../..", cfg.drift[i])
	}
	sum, err := run(context.Background(), &out, cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	t.Log("\n" + text)
	if !strings.Contains(text, "a SIMULATION of an LLM fallback") {
		t.Error("the output does not name the teacher as a simulation")
	}
	if !strings.Contains(text, "promise: disagreement with cascade(simulated-fallback) ≤ 0.1") {
		t.Error("calibrate's promise does not name the simulated teacher")
	}

	// 1. Every row judged, drawn, taught and recorded, without text.
	if sum.shadowRows != 500 || sum.drawn != 500 || sum.taught != 500 || sum.records != 500 {
		t.Errorf("shadow: %d rows, %d drawn, %d taught, %d records; want 500 each", sum.shadowRows, sum.drawn, sum.taught, sum.records)
	}
	checkNoText(t, filepath.Join(dir, "R.jsonl"), filepath.Join(dir, "S.jsonl"))

	// 2. The profile decides something on its own (the shipped one does not).
	if !sum.profileDecides {
		t.Error("the calibrated profile decides nothing")
	}

	// 3. T: what the dev measurement's HaluEval row shows (73.6% at 0.3%).
	e := sum.enforce
	if e.labelled != 500 || float64(e.decided) < 0.6*float64(e.labelled) || float64(e.wrong) > 0.03*float64(e.decided) {
		t.Errorf("enforce on T: decided %d of %d, %d wrong; want ≥ 60%% decided at ≤ 3%% error", e.decided, e.labelled, e.wrong)
	}
	if e.audits == 0 || len(e.tripped) != 0 {
		t.Errorf("enforce on T: %d audits, %d trips; want audits and no trip on in-distribution traffic", e.audits, len(e.tripped))
	}

	// 4. Drift: the monitor trips, and fewer drifted rows get a wrong
	// automatic verdict than without it.
	d, u := sum.drift, sum.unmonitored
	if len(d.tripped) == 0 || d.firstTripAtRow == 0 || d.withheldByTrips == 0 {
		t.Errorf("drift: %d trips (first at row %d), %d withheld; want the monitor to trip and withhold", len(d.tripped), d.firstTripAtRow, d.withheldByTrips)
	}
	if d.labelled != u.labelled || d.labelled == 0 || d.wrong >= u.wrong {
		t.Errorf("drift: %d wrong of %d with the monitor, %d of %d without; want fewer with it", d.wrong, d.labelled, u.wrong, u.labelled)
	}
	if len(u.tripped) != 0 || u.withheldByTrips != 0 {
		t.Errorf("drift without a monitor: %d trips, %d withheld", len(u.tripped), u.withheldByTrips)
	}
}

// checkNoText fails when a record holds a question, context or answer text
// of the stream, or a sample.
func checkNoText(t *testing.T, records, stream string) {
	t.Helper()
	rb, err := os.ReadFile(records)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(stream)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n := 0
	for sc.Scan() && n < 50 {
		var row struct {
			Question string `json:"question"`
			Answer   string `json:"answer"`
			Contexts []struct {
				Text string `json:"text"`
			} `json:"contexts"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		for _, s := range append([]string{row.Question, row.Answer}, row.Contexts[0].Text) {
			if len(s) > 12 && bytes.Contains(rb, []byte(s)) {
				t.Fatalf("records hold user text %q", s)
			}
		}
		n++
	}
	if bytes.Contains(rb, []byte(`"sample"`)) {
		t.Error("records hold a sample")
	}
	if !bytes.Contains(rb, []byte(`"features"`)) || !bytes.Contains(rb, []byte(`"teacher"`)) {
		t.Error("records lack features or teacher verdicts")
	}
}
