package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
)

var exportCommand = &command{
	name:    "export",
	summary: "write recorded requests as dataset rows to label",
	usage:   exportUsage,
	run:     runExport,
}

const exportUsage = `Usage: ragtriage export (-records FILE | -traces FILE) [-uncertain] [-out rows.jsonl]

Export writes the recorded requests that carry their content (the record's
"sample": the middleware records it with middleware.WithContent) as dataset
rows to label, one JSON line each, in the shape eval and calibrate read:

  {"id":…,"question":…,"contexts":[{"id":…,"text":…}],"answer":…,
   "referenceAnswer":…,"expected":{},"meta":{…}}

"expected" is empty: fill in the labels (docs/labels.md, or "ragtriage help
labels", says what each one means), then calibrate on the file
("ragtriage calibrate -dataset rows.jsonl -out profile.json") or join it to
the records by id ("ragtriage eval -records FILE -dataset rows.jsonl").
"meta" says where the row came from and what the guard decided (file, line,
diagnosis, action, reason); eval and calibrate do not read it.

Records without content cannot be labelled: they are counted and named on
standard error, never written. A record whose id was written already is
not written again (eval joins labels by id): the repeats are counted and the
first named. The summary's counts add up: records read = written + not
uncertain (with -uncertain) + without content + repeated ids + bad lines.

Flags:
  -records FILE  record files written by the middleware's sink (repeatable,
                 or a comma-separated list)
  -traces FILE   OTLP JSON from the Collector's file exporter, instead
  -uncertain     only the records whose diagnosis is JUDGE_UNCERTAIN: the
                 guard could not decide (whatever action the degrade rule
                 then took: review, or block under fail_closed)
  -out FILE      where to write the rows (default: standard output)

Exit status: 0 when every record was read (records without content are a
warning, unless no record had any); 1 when a line was bad, the input holds no
record, or no record carried content; 2 on a usage error.
`

// exportRow is one dataset row written for labelling.
type exportRow struct {
	ID        string            `json:"id"`
	Question  string            `json:"question"`
	Contexts  []exportContext   `json:"contexts"`
	Answer    string            `json:"answer"`
	Reference *string           `json:"referenceAnswer,omitempty"`
	Metadata  map[string]any    `json:"metadata,omitempty"`
	Expected  struct{}          `json:"expected"`
	Meta      map[string]string `json:"meta"`
}

type exportContext struct {
	ID       string         `json:"id"`
	Text     string         `json:"text"`
	Score    *float64       `json:"score,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// exportCounts counts what export did with each record line. read is
// written + notSelected + noContent + repeated + bad.
type exportCounts struct {
	read, written, notSelected, noContent, repeated, bad int
	firstNoContent                                       string            // where the first one is
	firstRepeat                                          string            // where the first repeated id is, and which
	ids                                                  map[string]string // the ids written, to where
}

// exportFlags are export's parsed flags.
type exportFlags struct {
	records, traces listFlag
	uncertain       bool
	out             string
}

func runExport(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f, code := parseExportFlags(args, stderr)
	if f == nil {
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "ragtriage export: %v\n", err)
		return 1
	}
	if err := checkInputs("records", f.records); err != nil {
		return fail(err)
	}
	if err := checkInputs("traces", f.traces); err != nil {
		return fail(err)
	}
	var src dataset.Source
	if len(f.records) > 0 {
		src = evalkit.NewRecordSource(nil, f.records...)
	} else {
		src = evalkit.NewTraceSource(nil, f.traces...)
	}
	defer src.Close()
	w, closeOut, err := exportOutput(f.out, stdout)
	if err != nil {
		return fail(err)
	}
	n, err := exportRows(src, f.uncertain, w, stderr)
	if ws, ok := src.(interface{ Warnings() []dataset.Warning }); ok {
		for _, wn := range ws.Warnings() {
			fmt.Fprintf(stderr, "ragtriage export: %s: warning: %s\n", wn.Pos, wn.Message)
		}
	}
	if cerr := closeOut(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(err)
	}
	return reportExport(&n, f, stderr)
}

// parseExportFlags parses and checks export's flags. On a usage error or
// -help it returns nil and the exit status.
func parseExportFlags(args []string, stderr io.Writer) (*exportFlags, int) {
	fs := newFlagSet("export")
	f := &exportFlags{}
	fs.Var(&f.records, "records", "record `FILE`")
	fs.Var(&f.traces, "traces", "OTLP JSON `FILE`")
	fs.BoolVar(&f.uncertain, "uncertain", false, "only JUDGE_UNCERTAIN records")
	fs.StringVar(&f.out, "out", "", "rows `FILE` to write")
	if err := fs.Parse(args); err != nil {
		return nil, flagError(fs, exportUsage, err, stderr)
	}
	usage := func(msg string) (*exportFlags, int) {
		fmt.Fprintf(stderr, "ragtriage export: %s; run 'ragtriage help export'\n", msg)
		return nil, 2
	}
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Sprintf("unexpected argument %q (inputs are given with -records or -traces)", fs.Arg(0)))
	case len(f.records) == 0 && len(f.traces) == 0:
		return usage("-records or -traces is required")
	case len(f.records) > 0 && len(f.traces) > 0:
		return usage("-records and -traces cannot be combined")
	}
	return f, 0
}

// exportOutput opens where the rows go: the file out, or stdout when out
// is empty. The close func flushes and closes it.
func exportOutput(out string, stdout io.Writer) (io.Writer, func() error, error) {
	if out == "" {
		bw := bufio.NewWriter(stdout)
		return bw, bw.Flush, nil
	}
	fh, err := os.Create(out)
	if err != nil {
		return nil, nil, inputError("out", out, err)
	}
	bw := bufio.NewWriter(fh)
	return bw, func() error {
		err := bw.Flush()
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// exportRows writes a row for each record with content (each uncertain one
// with -uncertain) and counts the rest. Bad lines are listed on stderr.
func exportRows(src dataset.Source, uncertain bool, w io.Writer, stderr io.Writer) (exportCounts, error) {
	var n exportCounts
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		it, err := src.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n.read++
		switch {
		case it.Err != nil:
			n.bad++
			fmt.Fprintf(stderr, "ragtriage export: %s: skipped: %v\n", it.Pos, it.Err)
		case uncertain && (it.Record == nil || it.Record.Result.Diagnosis != guard.JudgeUncertain):
			n.notSelected++
		case it.Sample == nil:
			n.noContent++
			if n.firstNoContent == "" {
				n.firstNoContent = it.Pos.String()
			}
		case n.repeat(&it):
		default:
			if err := enc.Encode(newExportRow(&it)); err != nil {
				return n, err
			}
			n.written++
		}
	}
}

// repeat reports whether the id of it was written already: eval joins
// labels by id and would ignore a later row's. It counts the repeat and
// notes the first; otherwise it notes the id.
func (n *exportCounts) repeat(it *dataset.Item) bool {
	if n.ids == nil {
		n.ids = map[string]string{}
	}
	if first, dup := n.ids[it.ID]; dup {
		n.repeated++
		if n.firstRepeat == "" {
			n.firstRepeat = fmt.Sprintf("%s, id %q first at %s", it.Pos, it.ID, first)
		}
		return true
	}
	n.ids[it.ID] = it.Pos.String()
	return false
}

// newExportRow is the dataset row of a record with content, with an empty
// "expected" and a "meta" that says where it came from.
func newExportRow(it *dataset.Item) *exportRow {
	s := it.Sample
	row := &exportRow{ID: it.ID, Question: s.Question, Answer: s.Answer, Reference: s.Reference, Metadata: s.Metadata,
		Contexts: make([]exportContext, len(s.Contexts)),
		Meta:     map[string]string{"file": it.Pos.File, "line": fmt.Sprint(it.Pos.Line)}}
	for i, c := range s.Contexts {
		row.Contexts[i] = exportContext{ID: c.ID, Text: c.Text, Score: c.Score, Metadata: c.Metadata}
	}
	if r := it.Record; r != nil {
		row.Meta["diagnosis"], row.Meta["action"], row.Meta["reason"] = string(r.Result.Diagnosis), r.Result.Action.String(), r.Result.Reason
		if !r.Time.IsZero() {
			row.Meta["time"] = r.Time.UTC().Format("2006-01-02T15:04:05Z07:00")
		}
	}
	return row
}

// reportExport prints the counts and returns the exit status.
func reportExport(n *exportCounts, f *exportFlags, stderr io.Writer) int {
	inputs := append(append([]string{}, f.records...), f.traces...)
	if n.read == 0 {
		fmt.Fprintf(stderr, "ragtriage export: no rows: %s: nothing to export\n", holdNoRow(inputs))
		return 1
	}
	where := "standard output"
	if f.out != "" {
		where = f.out
	}
	msg := fmt.Sprintf("ragtriage export: %d records read: %d written to %s", n.read, n.written, where)
	if f.uncertain {
		msg += fmt.Sprintf(", %d not uncertain (diagnosis other than JUDGE_UNCERTAIN)", n.notSelected)
	}
	if n.repeated > 0 {
		msg += fmt.Sprintf(", %d repeated ids", n.repeated)
	}
	fmt.Fprintf(stderr, "%s, %d without content, %d bad lines\n", msg, n.noContent, n.bad)
	if n.repeated > 0 {
		fmt.Fprintf(stderr, "ragtriage export: warning: %d records repeat an id already written (the first at %s): they were not written; eval joins labels by id and would use the first row's only\n",
			n.repeated, n.firstRepeat)
	}
	if n.noContent > 0 {
		fmt.Fprintf(stderr, "ragtriage export: warning: %d records carry no content (the first at %s): they cannot be labelled and were not written; record content with middleware.WithContent\n",
			n.noContent, n.firstNoContent)
	}
	switch {
	case n.bad == n.read:
		for _, p := range f.records {
			if looksLikeDataset(p) {
				fmt.Fprintf(stderr, "ragtriage export: %s holds dataset rows, not records: it is already in the dataset shape; label it as it is (docs/labels.md)\n", p)
			}
		}
		return 1
	case n.bad > 0:
		return 1
	case n.written == 0 && n.noContent > 0:
		fmt.Fprintln(stderr, "ragtriage export: no record carried content: nothing to label")
		return 1
	}
	return 0
}

// looksLikeDataset reports whether the first line of the file at path is a
// dataset row.
func looksLikeDataset(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, dataset.MaxLineBytes)
	if !sc.Scan() {
		return false
	}
	_, err = dataset.ParseRow(sc.Bytes())
	return err == nil
}
