//go:build ignore

// featauc ranks a dataset's rows of two or more contexts (as the refit
// takes them) by each context-conflict feature on its own, no model and no
// folds, and prints each feature's AUROC against the rows' contextConflict
// labels (calibrate.AUROC: ties count half), with how many positive and
// negative rows have the feature above 0. It reads the dataset for the
// labels and `ragtriage judge -features` output on it for the features; the
// feature names come from the profile.
//
//	go run ./cmd/ragtriage judge -features data/natural/natural.jsonl > /tmp/f.jsonl
//	go run testdata/bench/conflict-variants/featauc.go -data data/natural/natural.jsonl -features /tmp/f.jsonl
//
// run.sh runs it on the natural set and on Factcheck-GPT.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/ragtriage/ragtriage/calibrate"
)

func main() {
	data := flag.String("data", "", "the dataset (JSONL with expected.retrieval.contextConflict)")
	features := flag.String("features", "", "ragtriage judge -features output on it")
	profile := flag.String("profile", "guard/lexical/profile.json", "the profile, for the feature names")
	flag.Parse()
	if *data == "" || *features == "" {
		fmt.Fprintln(os.Stderr, "featauc: -data and -features are both needed")
		os.Exit(2)
	}
	if err := run(*data, *features, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "featauc:", err)
		os.Exit(1)
	}
}

func run(dataPath, featPath, profPath string) error {
	names, err := featureNames(profPath)
	if err != nil {
		return err
	}
	labels := map[string]bool{}
	single := 0 // labelled rows with fewer than two contexts
	err = eachLine(dataPath, func(n int, line []byte) error {
		var r struct {
			ID       string            `json:"id"`
			Contexts []json.RawMessage `json:"contexts"`
			Expected struct {
				Retrieval struct {
					ContextConflict *bool `json:"contextConflict"`
				} `json:"retrieval"`
			} `json:"expected"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("%s:%d: %v", dataPath, n, err)
		}
		switch {
		case r.Expected.Retrieval.ContextConflict == nil:
		case len(r.Contexts) < 2:
			single++ // as the refit: one context cannot conflict
		default:
			labels[r.ID] = *r.Expected.Retrieval.ContextConflict
		}
		return nil
	})
	if err != nil {
		return err
	}
	var pos, neg [][]float64
	seen := map[string]int{} // feature lines by id: the line each labelled row was read from
	err = eachLine(featPath, func(n int, line []byte) error {
		var r struct {
			ID     string `json:"id"`
			Result *struct {
				Features struct {
					Vectors []struct {
						Decision string    `json:"decision"`
						X        []float64 `json:"x"`
					} `json:"vectors"`
				} `json:"features"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("%s:%d: %v", featPath, n, err)
		}
		y, ok := labels[r.ID]
		if !ok {
			return nil
		}
		if at, dup := seen[r.ID]; dup {
			return fmt.Errorf("%s:%d: id %q again (line %d)", featPath, n, r.ID, at)
		}
		seen[r.ID] = n
		if r.Result == nil {
			return fmt.Errorf("%s:%d: %q has no result", featPath, n, r.ID)
		}
		for _, v := range r.Result.Features.Vectors {
			if v.Decision != "context_conflict" {
				continue
			}
			if len(v.X) != len(names) {
				return fmt.Errorf("%s:%d: %d conflict features, the profile names %d", featPath, n, len(v.X), len(names))
			}
			if y {
				pos = append(pos, v.X)
			} else {
				neg = append(neg, v.X)
			}
			return nil
		}
		return fmt.Errorf("%s:%d: %q has no context_conflict vector", featPath, n, r.ID)
	})
	if err != nil {
		return err
	}
	if missing := len(labels) - len(seen); missing > 0 {
		return fmt.Errorf("%d labelled rows of two or more contexts are not in %s", missing, featPath)
	}
	if len(pos) == 0 || len(neg) == 0 {
		return fmt.Errorf("%d positive and %d negative rows: nothing to rank", len(pos), len(neg))
	}
	fmt.Printf("%d positive, %d negative rows; %d labelled rows with fewer than two contexts left out, as the refit does\n",
		len(pos), len(neg), single)
	ys := make([]bool, 0, len(pos)+len(neg))
	for range pos {
		ys = append(ys, true)
	}
	for range neg {
		ys = append(ys, false)
	}
	rows := append(append([][]float64(nil), pos...), neg...)
	score := make([]float64, len(rows))
	for i, name := range names {
		for k, x := range rows {
			score[k] = x[i]
		}
		auc, err := calibrate.AUROC(score, ys, nil)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		fmt.Printf("%-28s AUROC %.3f   above 0: %d of %d positive, %d of %d negative\n",
			name, auc, above0(pos, i), len(pos), above0(neg, i), len(neg))
	}
	return nil
}

func above0(rows [][]float64, i int) int {
	n := 0
	for _, x := range rows {
		if x[i] > 0 {
			n++
		}
	}
	return n
}

func featureNames(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p struct {
		Decisions map[string]struct {
			Features []string `json:"features"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	names := p.Decisions["context_conflict"].Features
	if len(names) == 0 {
		return nil, fmt.Errorf("%s: no context_conflict features", path)
	}
	return names, nil
}

func eachLine(path string, fn func(n int, line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := fn(n, sc.Bytes()); err != nil {
			return err
		}
	}
	return sc.Err()
}
