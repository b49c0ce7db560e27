package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// newFlagSet returns a command's flag set that prints nothing itself:
// flagError words what went wrong, on one line.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagError handles an error of fs.Parse and returns the exit status. For
// -h or -help it prints the command's help and returns 0. Otherwise it
// prints one line, with the flag likely meant and the help command, and
// returns 2.
func flagError(fs *flag.FlagSet, usage string, err error, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, usage)
		return 0
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		msg = fmt.Sprintf("unknown flag -%s", name)
		if meant := suggestFlag(fs, name); meant != "" {
			msg += fmt.Sprintf(" (did you mean -%s?)", meant)
		}
	}
	fmt.Fprintf(stderr, "ragtriage %s: %s; run 'ragtriage help %s'\n", fs.Name(), msg, fs.Name())
	return 2
}

// suggestFlag returns the flag of fs closest to name: one edit away (a
// letter added, dropped, changed or two swapped), two for names of five
// letters or more, or a name that starts with it. "" when none is close.
func suggestFlag(fs *flag.FlagSet, name string) string {
	best, bestD := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(strings.ToLower(name), f.Name)
		if strings.HasPrefix(f.Name, name) && len(name) >= 2 {
			d = min(d, 1)
		}
		limit := 1
		if len(f.Name) >= 5 {
			limit = 2
		}
		if d <= limit && d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of adjacent bytes.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// inputError words an error opening an input file given by a flag ("-dataset
// x.jsonl: no such file or directory"), without Go's "open" prefix.
func inputError(flagName, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if flagName == "" {
		return fmt.Errorf("%s: %w", path, err)
	}
	return fmt.Errorf("-%s %s: %w", flagName, path, err)
}

// loadProfile reads the profile a flag names. Its errors name the flag and
// the file, and say what the file is when it is not a profile.
func loadProfile(flagName, path string) (*lexical.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, inputError(flagName, path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil, inputError(flagName, path, err)
	}
	p, err := lexical.ParseProfile(b)
	if err != nil {
		return nil, fmt.Errorf("-%s %s: %w", flagName, path, err)
	}
	return p, nil
}

// csvHint returns a file-level hint when the file at path looks like CSV or
// TSV rather than JSON Lines, or "". A file looks like CSV when its first
// non-blank line is a row of comma- or tab-separated fields, not a JSON
// value. A UTF-8 byte-order mark before the first line is skipped, as the
// readers skip it.
func csvHint(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, bom)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] == '{' || line[0] == '[' {
			return ""
		}
		sep, kind := ",", "CSV"
		if bytes.Count(line, []byte("\t")) > bytes.Count(line, []byte(",")) {
			sep, kind = "\t", "TSV"
		}
		if !bytes.Contains(line, []byte(sep)) {
			return ""
		}
		head := string(line)
		if len(head) > 60 {
			head = head[:57] + "..."
		}
		return fmt.Sprintf("expected JSON Lines: one JSON object per line; this file looks like %s (line %d: %q): "+
			"write each row as one JSON object in the dataset shape (docs/labels.md)", kind, n, head)
	}
	return ""
}

// warnJudgeInput warns, after judge's summary, about an input with no rows
// and about a file of bad lines that looks like CSV.
func warnJudgeInput(stderr io.Writer, name string, lines, failed int) {
	what := "standard input"
	if name != "" {
		what = name
	}
	if lines == 0 {
		fmt.Fprintf(stderr, "ragtriage judge: warning: no rows: %s holds no JSON Lines row\n", what)
	}
	if failed > 0 && name != "" {
		if h := csvHint(name); h != "" {
			fmt.Fprintf(stderr, "ragtriage judge: %s: %s\n", name, h)
		}
	}
}

// printCSVHints prints csvHint's hint for each input file that had bad
// lines and looks like CSV or TSV. files are the inputs as read (their
// names are base names); a file with no bad line gets no hint.
func printCSVHints(stderr io.Writer, cmd string, files []dataset.InputFile, lists ...[]string) {
	bad := map[string]int{}
	for _, in := range files {
		bad[in.Name] += in.Bad
	}
	for _, paths := range lists {
		for _, p := range paths {
			if bad[filepath.Base(p)] == 0 {
				continue
			}
			if h := csvHint(p); h != "" {
				fmt.Fprintf(stderr, "ragtriage %s: %s: %s\n", cmd, p, h)
			}
		}
	}
}

// noRows is eval's error for inputs that hold no row at all: there is
// nothing to evaluate, so no report is written.
func noRows(f *evalFlags) error {
	files := f.datasets
	if len(f.records) > 0 || len(f.traces) > 0 {
		files = append(append([]string{}, f.records...), f.traces...)
	}
	return fmt.Errorf("no rows: %s: nothing to evaluate, no report written", holdNoRow(files))
}

// holdNoRow says that the files hold no row, in a sentence.
func holdNoRow(files []string) string {
	if len(files) == 1 {
		return files[0] + " holds no JSON Lines row"
	}
	return strings.Join(files, ", ") + " hold no JSON Lines row"
}
