package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/internal/resultjson"
)

var judgeCommand = &command{
	name:    "judge",
	summary: "judge each line of a JSON Lines dataset",
	usage:   judgeUsage,
	run:     runJudge,
}

const judgeUsage = `Usage: ragtriage judge [-profile FILE] [-workers N] [-text-cache MIB] [-features] [FILE|-]

Flags may come before or after FILE; "--" ends them.

Judge reads JSON Lines in the dataset shape
  {"id":…,"question":…,"contexts":[{"id":…,"text":…}],"answer":…,"referenceAnswer":…}
from FILE, or from standard input when FILE is "-" or absent ("expected",
"source", "metadata" and "meta" are accepted but not used; a numeric id, of
the row or of a context, is read as its decimal text), and writes to
standard output one JSON line per non-blank input line, in input order:

  {"line":N,"id":"…","result":{…}}   the guard's result (id omitted when the row has none)
  {"line":N,"id":"…","error":"…"}    the line is bad (id only when it could be read)

N is the 1-based physical line number. A line is bad when it is not a valid
row (malformed JSON or UTF-8, a missing or mistyped field, duplicate context
ids), when the guard rejects the sample (NUL bytes, size limits), or when it is
longer than 16 MiB; the run goes on with the next line. Blank lines (only
spaces, tabs, CR) produce no output and are not counted in the summary, but
they do count in line numbers. A final line without a line feed is judged
like any other. A judge failure is not a bad line: the result is written and
lists the failure under "errors" (its decisions are uncertain).

Every line of a JSON array (pretty-printed or not) or of an object spread
over several lines is bad, for one reason that names the line the array or
object starts on:
  expected JSON Lines: one JSON object per line; this file looks like a JSON array (line 1)

Output is flushed whenever judge waits for more input, so it can sit in a
pipeline that streams lines one at a time.

Warnings go to standard error once the input is read: an unknown key, once
per key, at the first line that has it, with the key likely meant
  ragtriage judge: data.jsonl:3: unknown key "reference_answer" is ignored (first seen here, on 62 lines in all); did you mean "referenceAnswer"?
and a file that is not JSON Lines, once, with the count of its bad lines and
how to convert it. Then a summary:
  ragtriage judge: N lines, J judged, F failed
where N counts the non-blank lines and N = J + F. The exit status is 1 when
any line failed (or the input could not be read), 0 otherwise.

Judge runs with a garbage-collection target of 1000% (GOGC=1000) and a soft
memory limit of 28 MiB plus 4 MiB per worker plus the text cache, 44 MiB
with two workers and the default cache (GOMEMLIMIT), unless those
environment variables are set. On the HaluEval, SQuAD 2.0 and
HotpotQA dev rows repeated to 200,184 it peaks near 49 MB of RSS with two
workers and the default text cache (maximum resident set size,
/usr/bin/time -v), whatever the number of rows. A line of N bytes raises the limit by 32 × N for the rest of the
run, so that the collector does not thrash: a multi-megabyte row needs about
40 times its size in RSS.

Flags:
  -profile FILE  calibration profile of the lexical judges (default: the
                 embedded profile); its policy sets the thresholds
  -workers N     lines judged in parallel (default 0: one per CPU, as
                 GOMAXPROCS gives). Output order is kept whatever N is.
  -text-cache MIB
                 memory kept of the texts read more than once: contexts,
                 questions and references, never answers (default 8; 0:
                 none). A line that holds a text seen before copies its
                 tokens and quantities instead of reading it again.
                 Results are the same either way.
  -features      also write the lexical judges' raw feature vectors in each
                 result ("features": numbers only, the vectors profiles are
                 fitted on; off by default: about 60 numbers a line)
`

// Test hooks: the longest line accepted, the input buffer size, and a
// function told how many workers a run uses.
var (
	maxLineBytes   = dataset.MaxLineBytes
	readBufferSize = 64 << 10
	judgeStarting  = func(workers int) {}
)

// judgeGCPercent is the garbage collector's target while judge runs (see
// runJudge).
const judgeGCPercent = 1000

// judgeMemoryLimit and judgeMemPerWorker make the soft memory limit while
// judge runs (see runtime/debug.SetMemoryLimit), unless GOMEMLIMIT is set:
// judgeMemoryLimit plus judgeMemPerWorker per worker, 36 MiB with two, plus
// the text cache's budget (-text-cache), which runJudge adds. The guard's
// tables are about 9 MB of live heap, and a line's work a few hundred KB. Under GOGC=1000 alone the heap would grow to about 110 MB.
// A small heap is also a fast one: memory reused while it is still in the
// CPU's caches, and fewer pages to fault in. On 20,000 mixed rows the limit
// at 80 MiB cost 10-20% more CPU than at 32-40 MiB
// (testdata/bench/speed-2026-12-04.txt).
const (
	judgeMemoryLimit  = 28 << 20
	judgeMemPerWorker = 4 << 20
)

// judgeMemoryBase is the soft memory limit of a run with workers workers,
// before any line raises it.
func judgeMemoryBase(workers int) int64 {
	return judgeMemoryLimit + judgeMemPerWorker*int64(max(workers, 1))
}

// judgeMemPerLineByte is how much heap judging a line may need per byte of
// the line: a multi-megabyte row of a thousand contexts needs tens of
// times its size while it is judged.
const judgeMemPerLineByte = 32

// judgeMem is the run's adaptive memory limit; nil when GOMEMLIMIT is set.
var judgeMem *memLimit

// memLimit raises judge's soft memory limit to fit the largest line read
// so far: base (judgeMemoryBase) plus judgeMemPerLineByte times its size.
// Held at the base, a run of multi-megabyte rows would spend its time
// collecting garbage. The limit never comes down during a run. A nil
// *memLimit does nothing.
type memLimit struct{ base, limit int64 }

// fit raises the limit, if need be, for a line of size bytes. Only the
// reading goroutine calls it.
func (m *memLimit) fit(size int) {
	if m == nil {
		return
	}
	if want := m.base + judgeMemPerLineByte*int64(size); want > m.limit {
		m.limit = want
		debug.SetMemoryLimit(want)
	}
}

// jobsPerWorker and inFlightBytes bound the parallel pipeline (see
// judgeParallel). The writer keeps input order, so a line that takes long
// (a ten-paragraph row takes ten times a one-paragraph one) holds back the
// writing of every line after it: with 4 jobs a worker, as before, the
// other worker ran out of free jobs behind each such row and waited
// (testdata/bench/speed-2026-12-06.txt, section 5). With 32, it goes on
// with the lines after it. The bytes bound and keepBytes keep the memory
// of long lines near what it was with four jobs a worker: at most
// inFlightBytes of line text in flight (a longer line goes alone), and
// each idle job keeps at most keepBytes of buffers.
const (
	jobsPerWorker = 32
	inFlightBytes = 8 << 20
)

const (
	writeBufferSize = 64 << 10
	// keepBytes is the largest buffer a parallel job keeps for the next
	// line: with jobsPerWorker jobs, 4 MiB of idle buffers a worker at most.
	keepBytes = 64 << 10
)

func runJudge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("judge")
	profile := fs.String("profile", "", "calibration profile `FILE`")
	workers := fs.Int("workers", 0, "lines judged in parallel (0: one per CPU)")
	features := fs.Bool("features", false, "put the lexical judges' raw feature vectors in each result")
	cacheMiB := fs.Int("text-cache", lexical.DefaultTextCache>>20, "`MiB` kept of the texts read more than once (0: none)")
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return flagError(fs, judgeUsage, err, stderr)
	}
	if len(files) > 1 {
		fmt.Fprintf(stderr, "ragtriage judge: want at most one input file, got %d:", len(files))
		for _, f := range files {
			fmt.Fprintf(stderr, " %q", f)
		}
		fmt.Fprintln(stderr)
		return 2
	}
	if *workers < 0 {
		fmt.Fprintf(stderr, "ragtriage judge: -workers %d: want 0 or more\n", *workers)
		return 2
	}
	if *workers == 0 {
		*workers = runtime.GOMAXPROCS(0)
	}
	if *cacheMiB < 0 || *cacheMiB > 1<<20 {
		fmt.Fprintf(stderr, "ragtriage judge: -text-cache %d: want 0 to %d (MiB)\n", *cacheMiB, 1<<20)
		return 2
	}
	lexOpts := []lexical.Option{lexical.WithTextCache(int(min(int64(*cacheMiB)<<20, math.MaxInt)))}
	if !*features {
		lexOpts = append(lexOpts, lexical.WithoutFeatures())
	}
	if os.Getenv("GOGC") == "" {
		// Judging allocates a few kilobytes per line and keeps almost none
		// of it: a higher collection target (a heap of a few tens of
		// megabytes) means a tenth of the collections, about 10% of the
		// time on one core. The GOGC environment variable, when set, wins.
		defer debug.SetGCPercent(debug.SetGCPercent(judgeGCPercent))
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		base := judgeMemoryBase(*workers) + int64(*cacheMiB)<<20
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(base))
		judgeMem = &memLimit{base: base, limit: base}
		defer func() { judgeMem = nil }()
	}
	// The guard is built after the collector's settings: its tables are
	// most of the heap, and at the default target their allocation alone
	// runs two collections.
	g, err := newGuard(*profile, lexOpts...)
	if err != nil {
		fmt.Fprintf(stderr, "ragtriage judge: %v\n", err)
		return 1
	}
	in, name := stdin, "" // name "" is standard input
	if len(files) == 1 && files[0] != "-" {
		f, err := os.Open(files[0])
		if err != nil {
			fmt.Fprintf(stderr, "ragtriage judge: %v\n", inputError("", files[0], err))
			return 1
		}
		defer f.Close()
		in, name = f, files[0]
	}

	var check dataset.Checker
	judgeStarting(*workers)
	st, err := judgeStream(context.Background(), g, &check, name, in, stdout, *workers)
	for _, w := range check.Warnings() {
		where := fmt.Sprintf("line %d", w.Pos.Line)
		if name != "" {
			where = w.Pos.String()
		}
		fmt.Fprintf(stderr, "ragtriage judge: %s: %s\n", where, w.Message)
	}
	fmt.Fprintf(stderr, "ragtriage judge: %d lines, %d judged, %d failed\n", st.judged+st.failed, st.judged, st.failed)
	warnJudgeInput(stderr, name, st.judged+st.failed, st.failed)
	if err != nil {
		fmt.Fprintf(stderr, "ragtriage judge: %v\n", err)
		return 1
	}
	if st.failed > 0 {
		return 1
	}
	return 0
}

// parseInterspersed parses the flags of args wherever they are, before or
// after the positional arguments, which it returns in order. "--" ends the
// flags; "-" is a positional argument (standard input).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			// "--" ends the flags, unless it was a flag's value
			// ("-profile --"), which leaves the rest to parse.
			if consumed < 2 || !flagTakesValue(fs, args[consumed-2]) {
				return append(pos, rest...), nil
			}
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagTakesValue reports whether arg is a flag of fs given without "=" that
// takes the next argument as its value.
func flagTakesValue(fs *flag.FlagSet, arg string) bool {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok {
		return false
	}
	name = strings.TrimPrefix(name, "-")
	if name == "" || strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return false
	}
	return true
}

// newGuard returns the lexical guard, calibrated by the profile at path when
// path is not empty.
func newGuard(path string, opts ...lexical.Option) (*guard.Guard, error) {
	var p *lexical.Profile
	if path != "" {
		var err error
		if p, err = loadProfile("profile", path); err != nil {
			return nil, err
		}
	}
	j, err := lexical.New(p, opts...)
	if err != nil {
		return nil, err
	}
	return guard.New(guard.WithJudge(j), guard.WithPolicy(j.Policy()))
}

// judgeStats counts lines. judged + failed is every non-blank line read.
type judgeStats struct {
	judged, failed, blank int
}

// judgeStream judges every line of in and writes the output lines to out. It
// returns an error when in cannot be read or out cannot be written; bad lines
// are not errors (they are counted in stats). check sees every line (name is
// the file's, for the positions of its warnings). Memory use does not grow
// with the input: it is bounded by the longest line kept (maxLineBytes) and,
// with several workers, by the lines in flight (at most jobsPerWorker per
// worker, holding at most inFlightBytes of line text unless a single line is
// longer).
func judgeStream(ctx context.Context, g *guard.Guard, check *dataset.Checker, name string, in io.Reader, out io.Writer, workers int) (judgeStats, error) {
	lr := newLineReader(in, readBufferSize, maxLineBytes)
	w := bufio.NewWriterSize(out, writeBufferSize)
	jc := lineJudge{g: g, check: check, name: name, mem: judgeMem}
	var (
		st  judgeStats
		err error
	)
	if workers <= 1 {
		st, err = judgeSequential(ctx, jc, lr, w)
	} else {
		st, err = judgeParallel(ctx, jc, lr, w, workers)
	}
	if ferr := w.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing output: %w", ferr)
	}
	return st, err
}

var bom = []byte("\xef\xbb\xbf")

// isBlank reports whether line holds only JSON whitespace other than a line
// feed.
func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// lineJudge is what judging a line needs besides the line.
type lineJudge struct {
	g     *guard.Guard
	check *dataset.Checker
	name  string // the input file's name; "" for standard input
	mem   *memLimit
}

func (jc lineJudge) pos(lineNo int) dataset.Position {
	return dataset.Position{File: jc.name, Line: lineNo}
}

// shape shows a line to the checker, in input order, and returns why the
// line must not be parsed on its own, if it must not (it is part of a JSON
// array, …).
func (jc lineJudge) shape(lineNo int, line []byte, size int) error {
	if size > maxLineBytes {
		return nil
	}
	return jc.check.Line(jc.pos(lineNo), line)
}

// judgeSequential judges on the calling goroutine. Lines that fit the input
// buffer are parsed in place, without a copy.
func judgeSequential(ctx context.Context, jc lineJudge, lr *lineReader, w *bufio.Writer) (judgeStats, error) {
	var (
		st judgeStats
		o  = newOutBuf()
	)
	for {
		if lr.r.Buffered() == 0 {
			// About to wait for input: let what is judged so far out.
			if err := w.Flush(); err != nil {
				return st, fmt.Errorf("writing output: %w", err)
			}
		}
		line, size, err := lr.next()
		if err == io.EOF {
			return st, nil
		}
		if err != nil {
			return st, fmt.Errorf("reading input: %w", err)
		}
		jc.mem.fit(size)
		if lr.n == 1 {
			line = bytes.TrimPrefix(line, bom)
		}
		if size <= lr.max && isBlank(line) {
			st.blank++
			continue
		}
		if judgeLine(ctx, jc, o, lr.n, line, size, jc.shape(lr.n, line, size)) {
			st.judged++
		} else {
			st.failed++
		}
		if _, err := w.Write(o.Bytes()); err != nil {
			return st, fmt.Errorf("writing output: %w", err)
		}
	}
}

// job is one line in flight through the parallel pipeline. Jobs are reused.
type job struct {
	lineNo int
	size   int
	data   []byte // the line, copied out of the reader's buffer
	out    *outBuf
	ok     bool
	bad    error         // why the line is bad before it is parsed, if it is
	flush  bool          // a marker: flush the output, there is no line
	done   chan struct{} // receives once the line is judged
}

// judgeParallel reads on the calling goroutine, judges on workers goroutines,
// and writes in input order on one more goroutine. A fixed set of
// jobsPerWorker×workers jobs circulates: the reader takes a free job, hands
// it to the workers and, in the same order, to the writer, which waits for
// it to be done, writes it and frees it. So at most that many lines are in
// memory, holding at most inFlightBytes of text between them (a longer line
// goes alone), and a slow line holds the output back without letting the
// others pile up. All goroutines end before judgeParallel returns.
func judgeParallel(ctx context.Context, jc lineJudge, lr *lineReader, w *bufio.Writer, workers int) (judgeStats, error) {
	p := newPipeline(jobsPerWorker * workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range p.work {
				j.ok = judgeLine(ctx, jc, j.out, j.lineNo, j.data, j.size, j.bad)
				j.done <- struct{}{}
			}
		})
	}
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		p.writeInOrder(w)
	}()
	st, rerr := p.read(jc, lr)
	close(p.work)
	close(p.order)
	wg.Wait()
	<-writerDone
	st.judged, st.failed = p.judged, p.failed
	if p.werr != nil {
		return st, fmt.Errorf("writing output: %w", p.werr)
	}
	return st, rerr
}

// pipeline holds judgeParallel's channels. The writer goroutine owns
// judged, failed and werr until it ends; writeFailed tells the reader to
// stop.
type pipeline struct {
	free, work, order chan *job
	flushMarker       *job
	text              byteBudget // the line text of the jobs handed out and not yet written

	judged, failed int
	werr           error
	writeFailed    atomic.Bool
}

// byteBudget bounds the bytes held by the jobs in flight: acquire waits
// while the jobs hold bytes and n more would pass max. A job of more than
// max bytes waits for the others to be written and then goes alone.
type byteBudget struct {
	mu        sync.Mutex
	cond      sync.Cond
	used, max int
	onWait    func() // test hook: called, with mu held, before acquire waits
}

func (b *byteBudget) acquire(n int) {
	b.mu.Lock()
	for b.used > 0 && b.used+n > b.max {
		if b.onWait != nil {
			b.onWait()
		}
		b.cond.Wait()
	}
	b.used += n
	b.mu.Unlock()
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Signal() // only the reader waits
}

// newPipeline makes n free jobs and the channels they circulate on.
func newPipeline(n int) *pipeline {
	p := &pipeline{
		free:        make(chan *job, n),
		work:        make(chan *job, n),
		order:       make(chan *job, n+1), // +1: room for a flush marker
		flushMarker: &job{flush: true},
		text:        byteBudget{max: inFlightBytes},
	}
	p.text.cond.L = &p.text.mu
	for range n {
		p.free <- &job{out: newOutBuf(), done: make(chan struct{}, 1)}
	}
	return p
}

// writeInOrder writes each job once it is judged, in input order, flushes
// at each marker and frees the job. After a write error it writes nothing
// more but keeps freeing jobs, so the reader never blocks.
func (p *pipeline) writeInOrder(w *bufio.Writer) {
	fail := func(err error) {
		p.werr = err
		p.writeFailed.Store(true)
	}
	for j := range p.order {
		if j.flush {
			if p.werr == nil {
				if err := w.Flush(); err != nil {
					fail(err)
				}
			}
			continue
		}
		<-j.done
		if j.ok {
			p.judged++
		} else {
			p.failed++
		}
		if p.werr == nil {
			if _, err := w.Write(j.out.Bytes()); err != nil {
				fail(err)
			}
		}
		p.text.release(len(j.data)) // what the reader acquired for it
		// Do not keep a huge line's buffers in every job.
		if cap(j.data) > keepBytes {
			j.data = nil
		}
		if j.out.Cap() > keepBytes {
			j.out = newOutBuf()
		}
		p.free <- j
	}
}

// read hands each non-blank line to the workers and the writer, and a
// flush marker whenever the input has nothing buffered (so a line is
// answered before the reader waits for the next). It stops at the end of
// the input, at a read error, or once a write failed.
func (p *pipeline) read(jc lineJudge, lr *lineReader) (judgeStats, error) {
	var (
		st      judgeStats
		pending bool // lines handed out since the last flush marker
	)
	for !p.writeFailed.Load() {
		if pending && lr.r.Buffered() == 0 {
			p.order <- p.flushMarker
			pending = false
		}
		line, size, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return st, fmt.Errorf("reading input: %w", err)
		}
		jc.mem.fit(size)
		if lr.n == 1 {
			line = bytes.TrimPrefix(line, bom)
		}
		if size <= lr.max && isBlank(line) {
			st.blank++
			continue
		}
		j := <-p.free
		j.lineNo, j.size = lr.n, size
		j.bad = jc.shape(lr.n, line, size)
		j.data = append(j.data[:0], line...)
		p.text.acquire(len(j.data))
		p.work <- j
		p.order <- j
		pending = true
	}
	return st, nil
}

// judgeLine judges one input line and leaves exactly one output line, with
// its line feed, in o. It reports whether the line was judged (true) or bad
// (false). size is the line's length; a line over maxLineBytes arrives as nil.
// bad, when not nil, is why the line is bad before it is parsed (the
// checker's verdict, see lineJudge.shape).
func judgeLine(ctx context.Context, jc lineJudge, o *outBuf, lineNo int, line []byte, size int, bad error) bool {
	o.Reset()
	if size > maxLineBytes {
		o.errorLine(lineNo, "", fmt.Sprintf("line is %d bytes, over the limit of %d", size, maxLineBytes))
		return false
	}
	if bad != nil {
		o.errorLine(lineNo, "", bad.Error())
		return false
	}
	row, err := dataset.ParseRow(line)
	if err != nil {
		id := ""
		if re, ok := errors.AsType[*dataset.RowError](err); ok {
			id = re.ID
		}
		o.errorLine(lineNo, id, err.Error())
		return false
	}
	jc.check.Row(jc.pos(lineNo), &row)
	res, err := jc.g.Evaluate(ctx, row.Sample)
	if err != nil {
		// No result: the guard rejected the sample (guard.ErrInvalidSample).
		o.errorLine(lineNo, row.Sample.ID, err.Error())
		return false
	}
	// A judge that failed is listed in the result (errors, abstentions): write it.
	if err := o.resultLine(lineNo, row.Sample.ID, &res); err != nil {
		o.Reset()
		o.errorLine(lineNo, row.Sample.ID, "encoding the result: "+err.Error())
		return false
	}
	return true
}

// outBuf builds one output line. Results are written by resultjson.Append,
// which gives the bytes encoding/json would give, without its allocations
// (encoding/json costs `judge` about a quarter of its throughput).
type outBuf struct {
	b []byte
}

func newOutBuf() *outBuf { return &outBuf{b: make([]byte, 0, 4<<10)} }

func (o *outBuf) Reset()        { o.b = o.b[:0] }
func (o *outBuf) Bytes() []byte { return o.b }
func (o *outBuf) Cap() int      { return cap(o.b) }

// str appends s as a JSON string, escaped as encoding/json does with HTML
// escaping off. Plain ASCII is copied as is; anything else goes through
// encoding/json.
func (o *outBuf) str(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.Encode(s) // a string always encodes
			o.b = append(o.b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
			return
		}
	}
	o.b = append(o.b, '"')
	o.b = append(o.b, s...)
	o.b = append(o.b, '"')
}

func (o *outBuf) head(lineNo int, id string) {
	o.b = append(o.b, `{"line":`...)
	o.b = strconv.AppendInt(o.b, int64(lineNo), 10)
	if id != "" {
		o.b = append(o.b, `,"id":`...)
		o.str(id)
	}
}

func (o *outBuf) resultLine(lineNo int, id string, res *guard.Result) error {
	o.head(lineNo, id)
	o.b = append(o.b, `,"result":`...)
	var err error
	if o.b, err = resultjson.Append(o.b, res, false); err != nil {
		return err
	}
	o.b = append(o.b, "}\n"...)
	return nil
}

func (o *outBuf) errorLine(lineNo int, id, msg string) {
	o.head(lineNo, id)
	o.b = append(o.b, `,"error":`...)
	o.str(msg)
	o.b = append(o.b, "}\n"...)
}

// lineReader splits its input into lines without ever holding more than max
// bytes of one line (plus the bufio buffer).
type lineReader struct {
	r    *bufio.Reader
	max  int
	n    int    // lines returned so far, blank ones included
	long []byte // holds a line longer than r's buffer; reused
	err  error  // returned by the next call
}

func newLineReader(r io.Reader, bufSize, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, bufSize), max: max}
}

// next returns the next line without its line feed, and its length. A line
// longer than max is returned as nil, with its full length, after being read
// and discarded piece by piece. The line is valid until the next call. A
// final line without a line feed is returned before io.EOF. lr.n is the
// returned line's number.
func (lr *lineReader) next() (line []byte, size int, err error) {
	if lr.err != nil {
		return nil, 0, lr.err
	}
	frag, err := lr.r.ReadSlice('\n')
	switch err {
	case nil:
		lr.n++
		line = frag[:len(frag)-1]
		if len(line) > lr.max {
			return nil, len(line), nil
		}
		return line, len(line), nil
	case bufio.ErrBufferFull:
		// A long line: gather it below.
	case io.EOF:
		lr.err = io.EOF
		if len(frag) == 0 {
			return nil, 0, io.EOF
		}
		lr.n++
		if len(frag) > lr.max {
			return nil, len(frag), nil
		}
		return frag, len(frag), nil
	default:
		lr.err = err
		return nil, 0, err
	}

	lr.n++
	size = len(frag)
	keep := size <= lr.max
	lr.long = lr.long[:0]
	if keep {
		lr.long = append(lr.long, frag...)
	}
	for {
		frag, err = lr.r.ReadSlice('\n')
		k := len(frag)
		if err == nil {
			k-- // the line feed
		}
		size += k
		if keep && size > lr.max {
			keep = false
			lr.long = lr.long[:0]
		}
		if keep {
			lr.long = append(lr.long, frag[:k]...)
		}
		switch err {
		case nil:
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			lr.err = io.EOF
		default:
			lr.err = err
			return nil, 0, err
		}
		break
	}
	if !keep {
		return nil, size, nil
	}
	return lr.long, size, nil
}
