package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

const sampleFile = "../../testdata/cli/halueval-sample.jsonl"

// sampleLines returns the lines of the HaluEval sample (without line feeds).
func sampleLines(tb testing.TB) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(sampleFile)
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) < 2 {
		tb.Fatalf("%s: %d lines, want at least 2", sampleFile, len(lines))
	}
	return lines
}

// setLimits sets the test hooks for one test.
func setLimits(t *testing.T, maxLine, bufSize int) {
	t.Helper()
	oldMax, oldBuf := maxLineBytes, readBufferSize
	maxLineBytes, readBufferSize = maxLine, bufSize
	t.Cleanup(func() { maxLineBytes, readBufferSize = oldMax, oldBuf })
}

// outLine is one output line of judge, decoded.
type outLine struct {
	Line   *int            `json:"line"`
	ID     *string         `json:"id"`
	Error  *string         `json:"error"`
	Result json.RawMessage `json:"result"`
}

func decodeOutput(t *testing.T, out string) []outLine {
	t.Helper()
	if out != "" && !strings.HasSuffix(out, "\n") {
		t.Errorf("output does not end with a line feed: %q", out[max(0, len(out)-40):])
	}
	var lines []outLine
	for i, s := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if s == "" {
			continue
		}
		var o outLine
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			t.Fatalf("output line %d is not a judge line: %v\n%s", i+1, err, s)
		}
		lines = append(lines, o)
	}
	return lines
}

var summaryRE = regexp.MustCompile(`(?m)^ragtriage judge: (\d+) lines, (\d+) judged, (\d+) failed$`)

func parseSummary(t *testing.T, stderr string) (n, judged, failed int) {
	t.Helper()
	m := summaryRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary in stderr:\n%s", stderr)
	}
	n, _ = strconv.Atoi(m[1])
	judged, _ = strconv.Atoi(m[2])
	failed, _ = strconv.Atoi(m[3])
	return n, judged, failed
}

// want describes the expected output line for one input line.
type want struct {
	line  int
	id    string // "" when the output must carry no id
	err   string // a substring of the error; "" for a result
	noRef bool   // the result must not have correctness
}

func TestJudgeMixedInput(t *testing.T) {
	const limit = 4096
	setLimits(t, limit, 64) // a small buffer: long lines take many reads
	rows := sampleLines(t)
	withRef := string(rows[0]) // halueval-qa-0-right, with a referenceAnswer
	var r map[string]any
	if err := json.Unmarshal(rows[1], &r); err != nil {
		t.Fatal(err)
	}
	delete(r, "referenceAnswer")
	noRef, _ := json.Marshal(r) // halueval-qa-0-hallucinated, no reference
	long := `{"id":"too-long","question":"q?","contexts":[{"id":"c1","text":"` + strings.Repeat("lorem ipsum ", limit/10) + `"}],"answer":"a"}`
	fits := `{"id":"at-limit","question":"q?","contexts":[{"id":"c1","text":"x"}],"answer":"` // padded to exactly limit below
	fits += strings.Repeat("a", limit-len(fits)-len(`"}`)) + `"}`
	if len(fits) != limit {
		t.Fatalf("at-limit row is %d bytes", len(fits))
	}

	input := []string{
		withRef, // 1
		`{"id":"bad-json","question":"q?","contexts":[],"answer":`,                                                 // 2: malformed JSON
		`{"id":"no-question","contexts":[],"answer":"a"}`,                                                          // 3
		`{"id":"num-answer","question":"q?","contexts":[],"answer":42}`,                                            // 4
		`{"id":"ctx-object","question":"q?","contexts":{"id":"c1","text":"t"},"answer":"a"}`,                       // 5
		`{"id":"dup-ctx","question":"q?","contexts":[{"id":"c1","text":"a"},{"id":"c1","text":"b"}],"answer":"a"}`, // 6
		"{\"id\":\"bad-utf8\",\"question\":\"caf\xe9?\",\"contexts\":[],\"answer\":\"a\"}",                         // 7
		"   \t\r", // 8: blank
		long,      // 9: over the limit
		fits,      // 10: exactly at the limit
		`{"id":"nul","question":"q?","contexts":[],"answer":"a\u0000b"}` + "\r", // 11: guard rejects the NUL; CRLF
		"", // 12: blank
		`{"question":"What is the capital of France?","contexts":[{"id":"c1","text":"Paris is the capital of France."}],"answer":"Paris"}`, // 13: no id
		`{"id":7,"question":"q?","contexts":[],"answer":"a"}`,                                                                              // 14: numeric id
		string(noRef), // 15: final line, no line feed
	}
	in := strings.Join(input, "\n") // no final line feed
	wants := []want{
		{line: 1, id: "halueval-qa-0-right"},
		{line: 2, err: "malformed JSON"},
		{line: 3, id: "no-question", err: "question: missing"},
		{line: 4, id: "num-answer", err: "answer: want a string"},
		{line: 5, id: "ctx-object", err: "contexts: want a list"},
		{line: 6, id: "dup-ctx", err: "duplicate"},
		{line: 7, err: "invalid UTF-8"},
		{line: 9, err: fmt.Sprintf("line is %d bytes, over the limit of %d", len(long), limit)},
		{line: 10, id: "at-limit", noRef: true},
		{line: 11, id: "nul", err: "NUL byte"},
		{line: 13, noRef: true},
		{line: 14, id: "7", noRef: true},
		{line: 15, id: "halueval-qa-0-hallucinated", noRef: true},
	}

	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"judge", "-workers", strconv.Itoa(workers)}, strings.NewReader(in), &stdout, &stderr)
			if code != 1 {
				t.Errorf("exit status %d, want 1; stderr:\n%s", code, stderr.String())
			}
			got := decodeOutput(t, stdout.String())
			if len(got) != len(wants) {
				t.Fatalf("%d output lines, want %d:\n%s", len(got), len(wants), stdout.String())
			}
			nErr := 0
			for i, w := range wants {
				checkLine(t, got[i], w)
				if w.err != "" {
					nErr++
				}
			}
			n, judged, failed := parseSummary(t, stderr.String())
			if n != len(wants) || judged != len(wants)-nErr || failed != nErr || judged+failed != n {
				t.Errorf("summary %d lines, %d judged, %d failed; want %d, %d, %d", n, judged, failed, len(wants), len(wants)-nErr, nErr)
			}
		})
	}
}

func checkLine(t *testing.T, o outLine, w want) {
	t.Helper()
	if o.Line == nil || *o.Line != w.line {
		t.Errorf("output for line %d: line = %v", w.line, derefInt(o.Line))
	}
	switch {
	case w.id == "" && o.ID != nil:
		t.Errorf("line %d: id %q, want none", w.line, *o.ID)
	case w.id != "" && (o.ID == nil || *o.ID != w.id):
		t.Errorf("line %d: id %v, want %q", w.line, derefStr(o.ID), w.id)
	}
	if w.err != "" {
		if o.Error == nil || !strings.Contains(*o.Error, w.err) {
			t.Errorf("line %d: error %v, want one containing %q", w.line, derefStr(o.Error), w.err)
		}
		if o.Result != nil {
			t.Errorf("line %d: an error line has a result", w.line)
		}
		return
	}
	if o.Error != nil {
		t.Errorf("line %d: unexpected error %q", w.line, *o.Error)
		return
	}
	var res struct {
		Generation map[string]json.RawMessage `json:"generation"`
		Verdicts   struct {
			Generation map[string]json.RawMessage `json:"generation"`
		} `json:"verdicts"`
		Diagnosis       string `json:"diagnosis"`
		DecisionVariant string `json:"decisionVariant"`
	}
	if err := json.Unmarshal(o.Result, &res); err != nil {
		t.Fatalf("line %d: result: %v", w.line, err)
	}
	if res.Diagnosis == "" {
		t.Errorf("line %d: result without a diagnosis: %s", w.line, o.Result)
	}
	_, hasCorr := res.Generation["correctness"]
	_, hasCorrVerdict := res.Verdicts.Generation["correctness"]
	if hasCorr == w.noRef || hasCorrVerdict == w.noRef {
		t.Errorf("line %d: generation.correctness present = %v, verdict present = %v; want %v (variant %s)",
			w.line, hasCorr, hasCorrVerdict, !w.noRef, res.DecisionVariant)
	}
	if _, ok := res.Generation["groundedness"]; !ok {
		t.Errorf("line %d: no generation.groundedness", w.line)
	}
}

func derefInt(p *int) any {
	if p == nil {
		return "missing"
	}
	return *p
}

func derefStr(p *string) any {
	if p == nil {
		return "missing"
	}
	return strconv.Quote(*p)
}

func TestJudgeSampleFile(t *testing.T) {
	rows := sampleLines(t)
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"judge", "-workers", strconv.Itoa(workers), sampleFile}, nil, &stdout, &stderr)
			if code != 0 {
				t.Fatalf("exit status %d, want 0; stderr:\n%s", code, stderr.String())
			}
			got := decodeOutput(t, stdout.String())
			if len(got) != len(rows) {
				t.Fatalf("%d output lines, want %d", len(got), len(rows))
			}
			for i, row := range rows {
				var r struct{ ID string }
				if err := json.Unmarshal(row, &r); err != nil {
					t.Fatal(err)
				}
				checkLine(t, got[i], want{line: i + 1, id: r.ID})
			}
			if n, judged, failed := parseSummary(t, stderr.String()); n != len(rows) || judged != len(rows) || failed != 0 {
				t.Errorf("summary %d lines, %d judged, %d failed; want %d, %d, 0", n, judged, failed, len(rows), len(rows))
			}
		})
	}
}

// TestJudgeWorkersSameOutput checks that the parallel pipeline writes what
// the sequential loop writes, in the same order (latency aside).
func TestJudgeWorkersSameOutput(t *testing.T) {
	rows := sampleLines(t)
	var in bytes.Buffer
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		switch rng.IntN(10) {
		case 0:
			in.WriteString("{oops\n")
		case 1:
			in.WriteString("\n")
		default:
			in.Write(rows[i%len(rows)])
			in.WriteByte('\n')
		}
	}
	latency := regexp.MustCompile(`"latencyMs":[0-9.e+-]+`)
	outputs := map[int]string{}
	for _, workers := range []int{1, 2, 7} {
		var stdout, stderr bytes.Buffer
		run([]string{"judge", "-workers", strconv.Itoa(workers)}, bytes.NewReader(in.Bytes()), &stdout, &stderr)
		outputs[workers] = latency.ReplaceAllString(stdout.String(), `"latencyMs":0`)
	}
	for _, workers := range []int{2, 7} {
		if outputs[workers] != outputs[1] {
			t.Errorf("-workers %d output differs from -workers 1", workers)
		}
	}
}

// TestJudgeTextCacheSameOutput judges development rows that share
// contexts (SQuAD's questions share paragraphs), each three times, with the
// text cache off, at its default and tiny: the output is the same, and
// a negative size is refused.
func TestJudgeTextCacheSameOutput(t *testing.T) {
	data, err := os.ReadFile("../../data/dev/squad_v2.jsonl")
	if err != nil {
		t.Skip("no development data:", err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 120 {
		lines = lines[:120]
	}
	in := bytes.Repeat(bytes.Join(lines, nil), 3)
	latency := regexp.MustCompile(`"latencyMs":[0-9.e+-]+`)
	outputs := map[string]string{}
	for _, size := range []string{"0", "8", "1"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"judge", "-workers", "2", "-text-cache", size}, bytes.NewReader(in), &stdout, &stderr); code != 0 {
			t.Fatalf("-text-cache %s: exit %d: %s", size, code, stderr.String())
		}
		outputs[size] = latency.ReplaceAllString(stdout.String(), `"latencyMs":0`)
	}
	for _, size := range []string{"8", "1"} {
		if outputs[size] != outputs["0"] {
			t.Errorf("-text-cache %s output differs from -text-cache 0", size)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"judge", "-text-cache", "-1"}, bytes.NewReader(nil), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-text-cache -1") {
		t.Errorf("-text-cache -1: exit %d, stderr %q; want 2 and the flag named", code, stderr.String())
	}
}

// TestJudgeDefaultWorkers checks that judge without -workers uses one
// worker per CPU (GOMAXPROCS) and still writes in input order: what
// -workers 1 writes.
func TestJudgeDefaultWorkers(t *testing.T) {
	rows := sampleLines(t)
	var in bytes.Buffer
	for i := range 200 {
		if i%17 == 5 {
			in.WriteString("{oops\n")
			continue
		}
		in.Write(rows[i%len(rows)])
		in.WriteByte('\n')
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	used := -1
	defer func(f func(int)) { judgeStarting = f }(judgeStarting)
	judgeStarting = func(n int) { used = n }
	latency := regexp.MustCompile(`"latencyMs":[0-9.e+-]+`)
	out := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		run(append([]string{"judge"}, args...), bytes.NewReader(in.Bytes()), &stdout, &stderr)
		return latency.ReplaceAllString(stdout.String(), `"latencyMs":0`)
	}
	want := out("-workers", "1")
	got := out()
	if used != 3 {
		t.Errorf("judge without -workers used %d workers; want 3 (GOMAXPROCS)", used)
	}
	if got != want {
		t.Errorf("judge without -workers: output differs from -workers 1 (order or content)")
	}
}

// TestJudgeStreams checks that each output line is written before the next
// input line arrives: judge can sit in a pipeline fed one line at a time.
func TestJudgeStreams(t *testing.T) {
	rows := sampleLines(t)
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan int, 1)
			go func() {
				code := run([]string{"judge", "-workers", strconv.Itoa(workers)}, inR, outW, io.Discard)
				outW.Close()
				done <- code
			}()
			lines := make(chan string)
			go func() {
				sc := bufio.NewScanner(outR)
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
			}()
			for i := range 3 {
				if _, err := inW.Write(append(rows[i], '\n')); err != nil {
					t.Fatal(err)
				}
				// The next line is written only once this one's output is
				// read. A judge that held the output back would block here
				// (the pipes have no buffer), and go test's -timeout would
				// name this test; no clock decides it.
				l, ok := <-lines
				if !ok {
					t.Fatalf("output ended before line %d", i+1)
				}
				if !strings.HasPrefix(l, fmt.Sprintf(`{"line":%d,`, i+1)) {
					t.Errorf("output %d: %.60s", i+1, l)
				}
			}
			inW.Close()
			if _, ok := <-lines; ok {
				t.Error("extra output")
			}
			if code := <-done; code != 0 {
				t.Errorf("exit status %d", code)
			}
		})
	}
}

func TestJudgeEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n", "\n\r\n  \n"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"judge"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
			t.Errorf("judge on %q: exit status %d, want 0", in, code)
		}
		if stdout.Len() != 0 {
			t.Errorf("judge on %q wrote %q", in, stdout.String())
		}
		if n, j, f := parseSummary(t, stderr.String()); n != 0 || j != 0 || f != 0 {
			t.Errorf("judge on %q: summary %d, %d, %d", in, n, j, f)
		}
	}
}

func TestJudgeBOM(t *testing.T) {
	rows := sampleLines(t)
	var stdout, stderr bytes.Buffer
	in := "\xef\xbb\xbf" + string(rows[0]) + "\n"
	if code := run([]string{"judge"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Errorf("exit status %d, want 0; output %s", code, stdout.String())
	}
}

func TestJudgeUsage(t *testing.T) {
	dir := t.TempDir()
	badProfile := filepath.Join(dir, "profile.json")
	if err := os.WriteFile(badProfile, []byte(`{"version":`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{}, 2},
		{[]string{"nope"}, 2},
		{[]string{"help"}, 0},
		{[]string{"help", "judge"}, 0},
		{[]string{"help", "nope"}, 2},
		{[]string{"judge", "-h"}, 0},
		{[]string{"judge", "-bogus"}, 2},
		{[]string{"judge", "-workers", "-1"}, 2},
		{[]string{"judge", "a", "b"}, 2},
		{[]string{"judge", filepath.Join(dir, "missing.jsonl")}, 1},
		{[]string{"judge", "-profile", filepath.Join(dir, "missing.json")}, 1},
		{[]string{"judge", "-profile", badProfile}, 1},
		{[]string{"judge", "-"}, 0}, // empty stdin
		{[]string{"selftest", "extra"}, 2},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != tc.code {
			t.Errorf("run(%q) = %d, want %d; stderr:\n%s", tc.args, code, tc.code, stderr.String())
		}
	}
}

func TestJudgeProfileFlag(t *testing.T) {
	// The embedded profile, written out, must load and give the same output
	// as the default.
	data, err := json.Marshal(lexical.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	latency := regexp.MustCompile(`"latencyMs":[0-9.e+-]+`)
	var outs [2]string
	for i, args := range [][]string{{"judge", sampleFile}, {"judge", "-profile", path, sampleFile}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
		}
		outs[i] = latency.ReplaceAllString(stdout.String(), "")
	}
	if outs[0] != outs[1] {
		t.Error("-profile with the embedded profile changes the output")
	}
}

// TestLineReader compares the reader with a plain split on random input,
// across buffer sizes and limits.
func TestLineReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 300 {
		var in bytes.Buffer
		var lines []string
		for range rng.IntN(12) {
			n := rng.IntN(200)
			if rng.IntN(4) == 0 {
				n = 0
			}
			l := strings.Repeat(string(rune('a'+rng.IntN(26))), n)
			lines = append(lines, l)
			in.WriteString(l)
			in.WriteByte('\n')
		}
		if len(lines) > 0 && rng.IntN(2) == 0 {
			in.Truncate(in.Len() - 1) // no final line feed
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1] // an empty last "line" is no line
			}
		}
		bufSize := 16 + rng.IntN(100)
		limit := rng.IntN(250)
		lr := newLineReader(bytes.NewReader(in.Bytes()), bufSize, limit)
		for i, want := range lines {
			line, size, err := lr.next()
			if err != nil {
				t.Fatalf("iter %d line %d: %v", iter, i+1, err)
			}
			if lr.n != i+1 {
				t.Fatalf("iter %d: n = %d, want %d", iter, lr.n, i+1)
			}
			if size != len(want) {
				t.Fatalf("iter %d line %d: size %d, want %d", iter, i+1, size, len(want))
			}
			if len(want) > limit {
				if line != nil {
					t.Fatalf("iter %d line %d: over the limit but returned", iter, i+1)
				}
			} else if string(line) != want {
				t.Fatalf("iter %d line %d: %q, want %q", iter, i+1, line, want)
			}
			if cap(lr.long) > 2*limit+bufSize {
				t.Fatalf("iter %d: kept %d bytes for a limit of %d", iter, cap(lr.long), limit)
			}
		}
		if _, _, err := lr.next(); err != io.EOF {
			t.Fatalf("iter %d: after the last line: %v, want EOF", iter, err)
		}
	}
}

// TestJudgeHugeLine feeds a line far over the limit: it is reported, never
// held in memory, and the next line is judged.
func TestJudgeHugeLine(t *testing.T) {
	setLimits(t, 1000, 256)
	head := `{"id":"x","question":"`
	huge := func() io.Reader {
		return io.MultiReader(strings.NewReader(head), &repeatReader{b: []byte("x"), n: 10 << 20}, strings.NewReader("\"}\n"))
	}
	lr := newLineReader(huge(), readBufferSize, maxLineBytes)
	line, size, err := lr.next()
	if err != nil || line != nil || size != len(head)+10<<20+2 {
		t.Fatalf("next() = %d bytes, size %d, %v", len(line), size, err)
	}
	if cap(lr.long) > 2000 {
		t.Errorf("kept %d bytes", cap(lr.long))
	}

	good := `{"id":"y","question":"Who wrote Hamlet?","contexts":[{"id":"c1","text":"Hamlet is a tragedy by William Shakespeare."}],"answer":"William Shakespeare"}`
	var stdout, stderr bytes.Buffer
	code := run([]string{"judge"}, io.MultiReader(huge(), strings.NewReader(good)), &stdout, &stderr)
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	got := decodeOutput(t, stdout.String())
	if len(got) != 2 {
		t.Fatalf("%d output lines, want 2", len(got))
	}
	checkLine(t, got[0], want{line: 1, err: "over the limit of 1000"})
	checkLine(t, got[1], want{line: 2, id: "y", noRef: true})
}

// repeatReader yields b over and over, n bytes in all.
type repeatReader struct {
	b   []byte
	n   int
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:min(len(p), k+r.n)], r.b[r.off:])
		r.off = (r.off + c) % len(r.b)
		k += c
		r.n -= c
	}
	return k, nil
}

// BenchmarkJudgeCLI runs `ragtriage judge` end to end over b.N HaluEval rows
// (the sample, cycled), with output discarded. ns/op is per row.
func BenchmarkJudgeCLI(b *testing.B) {
	rows := sampleLines(b)
	var cycle []byte
	for _, r := range rows {
		cycle = append(append(cycle, r...), '\n')
	}
	for _, workers := range []int{1, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.SetBytes(int64(len(cycle) / len(rows))) // the mean row
			// Feed whole cycles: at least b.N rows.
			cycles := (b.N + len(rows) - 1) / len(rows)
			n := cycles * len(rows)
			in := &repeatReader{b: cycle, n: cycles * len(cycle)}
			b.ResetTimer()
			code := run([]string{"judge", "-workers", strconv.Itoa(workers)}, in, io.Discard, io.Discard)
			b.StopTimer()
			if code != 0 {
				b.Fatalf("exit status %d", code)
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkJudgeStages splits the per-row cost of judge: parsing, judging,
// encoding the result.
func BenchmarkJudgeStages(b *testing.B) {
	rows := sampleLines(b)
	g, err := newGuard("", lexical.WithoutFeatures()) // as judge runs without -features
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	parsed := make([]dataset.Row, len(rows))
	for i, r := range rows {
		if parsed[i], err = dataset.ParseRow(r); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("parse", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := dataset.ParseRow(rows[i%len(rows)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("evaluate", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := g.Evaluate(ctx, parsed[i%len(rows)].Sample); err != nil {
				b.Fatal(err)
			}
		}
	})
	o := newOutBuf()
	res, _ := g.Evaluate(ctx, parsed[0].Sample)
	b.Run("encode", func(b *testing.B) {
		for b.Loop() {
			o.Reset()
			if err := o.resultLine(1, "id", &res); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(len(o.Bytes())))
	})
}

// sampleRows returns the first n rows of the HaluEval sample, decoded.
func sampleRows(t *testing.T, n int) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, l := range sampleLines(t)[:n] {
		var r map[string]any
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noInternalNames fails when judge's output names a Go type.
func noInternalNames(t *testing.T, out string) {
	t.Helper()
	for _, w := range []string{"Go value", "Go struct", "evalkit.", "rawRow", "json: cannot"} {
		if strings.Contains(out, w) {
			t.Errorf("output names %q, an internal type:\n%.400s", w, out)
		}
	}
}

// TestJudgeJSONArray: a dataset written as a JSON array — pretty-printed or
// on one line — gives one output line per input line, each saying what is
// wrong and where the array starts, one warning on stderr that says it once
// and how to convert the file, and a summary that adds up.
func TestJudgeJSONArray(t *testing.T) {
	pretty, err := json.MarshalIndent(sampleRows(t, 3), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := writeTemp(t, "rows.json", append(pretty, '\n'))
	nLines := bytes.Count(pretty, []byte("\n")) + 1
	const msg = "expected JSON Lines: one JSON object per line; this file looks like a JSON array (line 1)"
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run([]string{"judge", "-workers", strconv.Itoa(workers), path}, nil, &stdout, &stderr)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			got := decodeOutput(t, stdout.String())
			if len(got) != nLines {
				t.Fatalf("%d output lines for %d input lines", len(got), nLines)
			}
			for i, o := range got {
				checkLine(t, o, want{line: i + 1, err: msg})
				if o.Error != nil && *o.Error != msg {
					t.Errorf("line %d: error %q; want %q", i+1, *o.Error, msg)
				}
			}
			if n, judged, failed := parseSummary(t, stderr.String()); n != nLines || judged != 0 || failed != nLines {
				t.Errorf("summary %d lines, %d judged, %d failed; want %d, 0, %d", n, judged, failed, nLines, nLines)
			}
			warn := fmt.Sprintf("ragtriage judge: %s:1: expected JSON Lines: one JSON object per line; this file looks like a JSON array (line 1): %d lines reported as bad; convert it with jq -c '.[]'\n", path, nLines)
			if c := strings.Count(stderr.String(), "expected JSON Lines"); c != 1 || !strings.Contains(stderr.String(), warn) {
				t.Errorf("stderr:\n%s\nwant the warning once:\n%s", stderr.String(), warn)
			}
			noInternalNames(t, stdout.String()+stderr.String())
		})
	}

	// On one line, from standard input.
	compact, _ := json.Marshal(sampleRows(t, 2))
	var stdout, stderr bytes.Buffer
	if code := run([]string{"judge"}, bytes.NewReader(compact), &stdout, &stderr); code != 1 {
		t.Errorf("one-line array: exit status %d, want 1", code)
	}
	got := decodeOutput(t, stdout.String())
	if len(got) != 1 || got[0].Error == nil || *got[0].Error != msg {
		t.Errorf("one-line array: output %s; want one line with error %q", stdout.String(), msg)
	}
	if !strings.Contains(stderr.String(), "ragtriage judge: line 1: expected JSON Lines") {
		t.Errorf("one-line array: stderr does not warn about line 1:\n%s", stderr.String())
	}
	noInternalNames(t, stdout.String()+stderr.String())
}

// TestJudgeUnknownKeys: a misspelled key is warned about once per key on
// stderr, with the first line that has it and the key meant; the rows are
// still judged (here without a reference: correctness is absent).
func TestJudgeUnknownKeys(t *testing.T) {
	var in bytes.Buffer
	for _, r := range sampleRows(t, 3) {
		r["reference_answer"] = r["referenceAnswer"]
		delete(r, "referenceAnswer")
		r["meta"] = map[string]any{"domain": "x"} // known: provenance
		b, _ := json.Marshal(r)
		in.Write(append(b, '\n'))
	}
	for _, tc := range []struct {
		args []string
		pos  string
	}{{[]string{"judge"}, "line 2"}, {[]string{"judge", "-workers", "2"}, "line 2"}, {[]string{"judge", "FILE"}, "FILE:2"}} {
		in := "\n" + in.String() // a blank first line: positions count it
		var stdin io.Reader = strings.NewReader(in)
		args := tc.args
		pos := tc.pos
		if args[len(args)-1] == "FILE" {
			path := writeTemp(t, "ref.jsonl", []byte(in))
			args = []string{"judge", path}
			pos = path + ":2"
			stdin = nil
		}
		var stdout, stderr bytes.Buffer
		if code := run(args, stdin, &stdout, &stderr); code != 0 {
			t.Errorf("%q: exit status %d, want 0; stderr:\n%s", args, code, stderr.String())
		}
		for i, o := range decodeOutput(t, stdout.String()) {
			checkLine(t, o, want{line: i + 2, id: *o.ID, noRef: true})
		}
		warn := "ragtriage judge: " + pos + `: unknown key "reference_answer" is ignored (first seen here, on 3 lines in all); did you mean "referenceAnswer"?` + "\n"
		if !strings.Contains(stderr.String(), warn) || strings.Count(stderr.String(), "unknown key") != 1 {
			t.Errorf("%q: stderr:\n%s\nwant once:\n%s", args, stderr.String(), warn)
		}
	}
}

// TestJudgeNumericContextIDs: numeric context ids are read as their decimal
// text, as a numeric row id is.
func TestJudgeNumericContextIDs(t *testing.T) {
	in := `{"id":1,"question":"What is the capital of France?","contexts":[{"id":1,"text":"Paris is the capital of France."},{"id":2,"text":"Lyon is a city in France."}],"answer":"Paris"}` + "\n"
	var stdout, stderr bytes.Buffer
	if code := run([]string{"judge"}, strings.NewReader(in), &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d, want 0; output %s", code, stdout.String())
	}
	got := decodeOutput(t, stdout.String())
	if len(got) != 1 {
		t.Fatalf("%d output lines", len(got))
	}
	checkLine(t, got[0], want{line: 1, id: "1", noRef: true})
	var res struct {
		Retrieval struct {
			ChunkRelevance map[string]any `json:"chunkRelevance"`
		} `json:"retrieval"`
	}
	json.Unmarshal(got[0].Result, &res)
	if _, ok := res.Retrieval.ChunkRelevance["1"]; !ok || len(res.Retrieval.ChunkRelevance) != 2 {
		t.Errorf("chunkRelevance %v; want contexts \"1\" and \"2\"", res.Retrieval.ChunkRelevance)
	}
}

// TestJudgeFlagsAfterFile: flags may follow the input file; "--" ends the
// flags; more than one input is refused with the inputs named.
func TestJudgeFlagsAfterFile(t *testing.T) {
	latency := regexp.MustCompile(`"latencyMs":[0-9.e+-]+`)
	var want string
	for i, args := range [][]string{
		{"judge", "-workers", "2", sampleFile},
		{"judge", sampleFile, "-workers", "2"},
		{"judge", sampleFile, "-workers=2", "-profile", ""},
		{"judge", "-workers", "2", "--", sampleFile},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			t.Errorf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
			continue
		}
		out := latency.ReplaceAllString(stdout.String(), "")
		if i == 0 {
			want = out
		} else if out != want {
			t.Errorf("run(%q): output differs from run(%q)", args, []string{"judge", "-workers", "2", sampleFile})
		}
	}
	rows := sampleLines(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"judge", "-", "-workers", "2"}, bytes.NewReader(append(rows[0], '\n')), &stdout, &stderr); code != 0 || len(decodeOutput(t, stdout.String())) != 1 {
		t.Errorf(`judge - -workers 2: exit %d, output %q; stderr %s`, code, stdout.String(), stderr.String())
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"judge", sampleFile, "-profile", filepath.Join(t.TempDir(), "missing.json")}, 1, "missing.json"},
		{[]string{"judge", sampleFile, "-bogus"}, 2, "unknown flag -bogus; run 'ragtriage help judge'"},
		{[]string{"judge", sampleFile, "-workers", "-1"}, 2, "-workers -1: want 0 or more"},
		{[]string{"judge", "a.jsonl", "-workers", "2", "b.jsonl"}, 2, `ragtriage judge: want at most one input file, got 2: "a.jsonl" "b.jsonl"`},
		{[]string{"judge", "--", "a.jsonl", "-workers"}, 2, `got 2: "a.jsonl" "-workers"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("run(%q) = %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}

// TestMemLimitFitsLargestLine: judge's soft memory limit rises to fit the
// largest line read so far (its base plus 32 bytes per byte of it), so that a
// multi-megabyte row does not make the collector thrash, and it never
// comes down during a run.
func TestMemLimitFitsLargestLine(t *testing.T) {
	base := judgeMemoryBase(2)
	if base != 36<<20 {
		t.Fatalf("base limit with two workers %d; want 36 MiB", base)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(base))
	m := &memLimit{base: base, limit: base}
	for _, tc := range []struct {
		size int
		want int64
	}{
		{4 << 10, base + 32*(4<<10)},
		{1 << 20, base + 32*(1<<20)},
		{8 << 20, base + 32*(8<<20)},
		{2 << 20, base + 32*(8<<20)},
	} {
		m.fit(tc.size)
		if got := debug.SetMemoryLimit(-1); got != tc.want || m.limit != tc.want {
			t.Errorf("after a %d-byte line: limit %d (kept %d); want %d", tc.size, got, m.limit, tc.want)
		}
	}
	var none *memLimit
	none.fit(64 << 20) // GOMEMLIMIT set: nothing to adapt
	if got := debug.SetMemoryLimit(-1); got != base+32*(8<<20) {
		t.Errorf("a nil memLimit changed the limit to %d", got)
	}
}

// TestByteBudget checks the pipeline's bound on the text in flight: a job
// that would pass it waits until enough is released, and a job larger than
// the bound goes once nothing else is held. The budget's wait hook tells
// when the acquiring goroutine waits, so nothing here sleeps.
func TestByteBudget(t *testing.T) {
	b := &byteBudget{max: 100}
	b.cond.L = &b.mu
	waiting := make(chan int, 8)
	b.onWait = func() { waiting <- b.used }
	b.acquire(60)
	b.acquire(40) // exactly the bound
	got := make(chan int, 2)
	go func() {
		b.acquire(10)
		got <- 10
		b.acquire(500) // over the bound: alone
		got <- 500
	}()
	select {
	case used := <-waiting:
		if used != 100 {
			t.Fatalf("waited with %d bytes held; want 100", used)
		}
	case n := <-got:
		t.Fatalf("acquired %d past the bound", n)
	}
	b.release(60)
	if n := <-got; n != 10 {
		t.Fatalf("got %d, want 10 once 60 bytes were released", n)
	}
	select {
	case used := <-waiting:
		if used != 50 {
			t.Fatalf("the long job waited with %d bytes held; want 50", used)
		}
	case n := <-got:
		t.Fatalf("a job over the bound (%d) went while others held bytes", n)
	}
	b.release(40)
	select {
	case n := <-got:
		t.Fatalf("a job over the bound (%d) went while others held bytes", n)
	default:
	}
	b.release(10)
	if n := <-got; n != 500 {
		t.Fatalf("got %d, want the long job once nothing is held", n)
	}
}
