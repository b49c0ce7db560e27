package ragtriage_test

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocSnippetsAreExamples keeps every Go snippet of the README and of
// docs/*.md compiling: each ```go block must be a verbatim run of lines of
// an Example function's body (less one level of indentation) somewhere in
// this module, so that go vet and go test build it, and run it when the
// Example has an Output comment. A snippet that drifts from its Example, or
// one that quotes no Example, fails here with its file and line.
func TestDocSnippetsAreExamples(t *testing.T) {
	bodies := exampleBodies(t)
	if len(bodies) < 10 {
		t.Fatalf("found only %d Example functions; is the walk broken?", len(bodies))
	}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range append([]string{"README.md"}, docs...) {
		for _, s := range goSnippets(t, path) {
			n++
			if !quotesAnExample(s.lines, bodies) {
				t.Errorf("%s:%d: this Go snippet is not a verbatim part of any Example function's body: "+
					"write it as one (an Example in the package it shows), then quote it here", path, s.line)
			}
		}
	}
	if n == 0 {
		t.Fatal("no ```go snippet found in README.md or docs/*.md")
	}
}

type snippet struct {
	line  int // of the opening fence
	lines []string
}

// goSnippets returns the ```go blocks of a Markdown file.
func goSnippets(t *testing.T, path string) []snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out []snippet
		cur *snippet
		no  int
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		no++
		line := strings.TrimRight(sc.Text(), " \t")
		switch {
		case cur == nil && line == "```go":
			cur = &snippet{line: no}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s:%d: unclosed ```go block", path, cur.line)
	}
	return out
}

// exampleBodies returns the body of every Example function in the module's
// test files, one line per element, less one tab of indentation.
func exampleBodies(t *testing.T) [][]string {
	t.Helper()
	var out [][]string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Example") || fn.Body == nil ||
				fn.Type.Params.NumFields() != 0 {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset+1 : fset.Position(fn.Body.Rbrace).Offset])
			var lines []string
			for _, l := range strings.Split(body, "\n") {
				lines = append(lines, strings.TrimRight(strings.TrimPrefix(l, "\t"), " \t"))
			}
			out = append(out, lines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// quotesAnExample reports whether lines appear, in a row, in one of bodies.
func quotesAnExample(lines []string, bodies [][]string) bool {
	if len(lines) == 0 {
		return false
	}
	for _, b := range bodies {
	next:
		for i := 0; i+len(lines) <= len(b); i++ {
			for k, l := range lines {
				if b[i+k] != l {
					continue next
				}
			}
			return true
		}
	}
	return false
}
