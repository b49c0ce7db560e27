package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// loadSources reads every labelled file refit fits on.
func loadSources(t *testing.T) []labelled {
	t.Helper()
	var sets []labelled
	for _, f := range sourceFiles {
		ds, err := load(filepath.Join("../../data", f.path), f.name)
		if err != nil {
			t.Fatal(err)
		}
		ds.file.Path = f.path
		sets = append(sets, ds)
	}
	return sets
}

// The refit reproduces the shipped vocabulary, profile and quality report
// byte for byte, fitting through package fit: the in-process form of
// "go run ./internal/refit -stage vocab -check && … -stage fit -check".
func TestRefitReproducesShippedFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("refits every decision on the shipped data (about 10 s); runs without -short")
	}
	if raceEnabled {
		t.Skip("about 10 s without the race detector, minutes with it; .ci/run checks the same with go run ./internal/refit -check")
	}
	sets := loadSources(t)
	out := map[string][]byte{}
	var err error
	if out["../../guard/lexical/vocab.txt"], err = vocab(sets); err != nil {
		t.Fatal(err)
	}
	if err := fitProfile(sets, settings{alpha: 0.05, confidence: 0.95}, "../../guard/lexical/profile.json", "../../testdata/quality/dev-report", out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 4 {
		t.Errorf("refit wrote %d files; want 4 (vocabulary, profile, report .json and .md)", len(out))
	}
	for p, b := range out {
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, b) {
			t.Errorf("%s differs from what refit computes", p)
		}
	}
}
