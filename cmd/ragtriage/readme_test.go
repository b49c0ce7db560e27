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
// README in process, from the repository's root (input paths are read from
// there, outputs go to a temporary directory), and checks that it exits with
// the status the README states beside it.
func TestReadmeCommands(t *testing.T) {
	fixedClock(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	found := 0
	for i, line := range lines {
		for _, m := range readmeCommand.FindAllStringSubmatch(line, -1) {
			found++
			args := readmeArgs(t, strings.Fields(m[1]))
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
	if found < 2 {
		t.Fatalf("%d commands found in the README; want the judge and calibrate examples", found)
	}
}

// readmeArgs makes a README command's arguments runnable from this
// directory: the values of output flags go to a temporary directory, and
// paths that exist at the repository's root are read from there.
func readmeArgs(t *testing.T, args []string) []string {
	dir := t.TempDir()
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case i > 0 && (args[i-1] == "-out" || args[i-1] == "-md" || args[i-1] == "-html" || args[i-1] == "-report"):
			out[i] = filepath.Join(dir, filepath.Base(a))
		case i > 0 && !strings.HasPrefix(a, "-") && fileExists(filepath.Join("../..", a)):
			out[i] = filepath.Join("../..", a)
		default:
			out[i] = a
		}
	}
	return out
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
