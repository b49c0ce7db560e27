package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeCommand matches a "go run ./cmd/ragtriage …" command of the README,
// up to its closing backquote, its comment or the end of the line, and the
// "exit N" written after it on the same line or the next.
var (
	readmeCommand = regexp.MustCompile("go run \\./cmd/ragtriage ([^`#\\n]+)")
	readmeExit    = regexp.MustCompile(`\bexit (\d)\b`)
)

// TestReadmeCommands runs every "go run ./cmd/ragtriage …" command of the
// README in process, in order, from the repository's root (input paths are
// read from there, outputs go to one temporary directory, where a later
// command reads them: the loop's records and profile), and checks that it
// exits with the status the README states beside it.
func TestReadmeCommands(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	found := 0
	for i, line := range lines {
		for _, m := range readmeCommand.FindAllStringSubmatch(line, -1) {
			found++
			args := readmeArgs(dir, strings.Fields(m[1]))
			after := line[strings.Index(line, m[0])+len(m[0]):]
			if i+1 < len(lines) {
				after += "\n" + lines[i+1]
			}
			want := readmeExit.FindStringSubmatch(after)
			if want == nil {
				t.Errorf("README.md:%d: %q: no exit status written beside it", i+1, m[0])
				continue
			}
			var o, e strings.Builder
			st := run(args, strings.NewReader(""), &o, &e)
			if w, _ := strconv.Atoi(want[1]); st != w {
				t.Errorf("README.md:%d: %q exits %d; the README says %d:\n%s", i+1, m[0], st, w, e.String())
			}
		}
	}
	if found < 5 {
		t.Fatalf("%d commands found in the README; want the judge and calibrate examples and the loop's three", found)
	}
}

// readmeArgs makes a README command's arguments runnable from this
// directory: the values of output flags go to dir, paths that exist at the
// repository's root are read from there, and the others from dir when an
// earlier command wrote them there.
func readmeArgs(dir string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case i > 0 && readmeOutputFlags[args[i-1]]:
			out[i] = filepath.Join(dir, filepath.Base(a))
		case !readmePath(i, a):
			out[i] = a
		case fileExists(filepath.Join("../..", a)):
			out[i] = filepath.Join("../..", a)
		case fileExists(filepath.Join(dir, a)):
			out[i] = filepath.Join(dir, a)
		default:
			out[i] = a
		}
	}
	return out
}

// readmePath reports whether the i-th argument a may be a file's path: not
// the subcommand nor a flag, and with a slash or a dot in it ("cascade" is a
// mode, and a directory at the root).
func readmePath(i int, a string) bool {
	return i > 0 && !strings.HasPrefix(a, "-") && strings.ContainsAny(a, "/.")
}

// readmeOutputFlags are the flags whose value is a file a command writes.
var readmeOutputFlags = map[string]bool{"-out": true, "-md": true, "-html": true, "-report": true, "-records-out": true}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
