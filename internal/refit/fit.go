package main

import (
	"encoding/json"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// example is one labeled feature vector.
type example struct {
	x     []float64
	y     bool
	group string   // rows sharing a group share a fold
	sets  []string // evaluation sets it is reported under
	w     float64  // weight in the fit
}

const (
	nFolds = 5
	l2     = 1.0
)

func fit(sets []dataset, profOut, reportOut string, alpha, confidence float64) error {
	j, err := lexical.New(&lexical.Profile{Version: "unfitted", FeaturesVersion: lexical.FeaturesVersion, Decisions: map[string]*lexical.DecisionModel{}})
	if err != nil {
		return err
	}
	by := map[string]*dataset{}
	for i := range sets {
		by[sets[i].name] = &sets[i]
	}
	ex := buildExamples(j, by)

	prof := &lexical.Profile{
		Version:         "dev-" + time.Now().UTC().Format("20060102"),
		FeaturesVersion: lexical.FeaturesVersion,
		Created:         time.Now().UTC().Format(time.RFC3339),
		RefitCommand:    "go run ./internal/refit -stage vocab -data ../shared/data/dev && go run ./internal/refit -stage fit -data ../shared/data/dev",
		Decisions:       map[string]*lexical.DecisionModel{},
	}
	for _, ds := range sets {
		prof.Data = append(prof.Data, ds.file)
	}
	rep := report{Alpha: alpha, Confidence: confidence, Folds: nFolds, Command: prof.RefitCommand, Data: prof.Data}
	for _, d := range guard.Decisions {
		es := ex[d]
		if len(es) == 0 {
			continue
		}
		m, dr, th, err := fitDecision(d, es, alpha, confidence)
		if err != nil {
			return fmt.Errorf("%v: %w", d, err)
		}
		m.Sources = sources[d]
		prof.Decisions[d.String()] = m
		prof.Policy.Set(d, th)
		rep.Decisions = append(rep.Decisions, dr)
	}
	rep.Baselines = baselines(by)
	if err := prof.Validate(); err != nil {
		return err
	}
	if err := writeJSON(profOut, prof); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(reportOut), 0o755); err != nil {
		return err
	}
	rep.Profile = prof.Version
	if err := writeJSON(reportOut+".json", rep); err != nil {
		return err
	}
	if err := os.WriteFile(reportOut+".md", []byte(rep.markdown()), 0o644); err != nil {
		return err
	}
	log.Printf("refit: wrote %s, %s.json, %s.md", profOut, reportOut, reportOut)
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// foldOf assigns a group to a fold by hash, so the assignment is stable.
func foldOf(group string) int { return calibrate.GroupFold(group, nFolds) }

type decisionReport struct {
	Decision  string                     `json:"decision"`
	Sources   []string                   `json:"sources"`
	N         int                        `json:"n"`
	Positives int                        `json:"positives"`
	CV        map[string]lexical.Quality `json:"cv"`
	Policy    guard.Thresholds           `json:"policy"`
	// Held-out policy check: thresholds chosen on four folds, applied to the
	// fifth, summed over the five.
	PolicyCheck map[string]policyCheck `json:"policyCheck"`
	Weights     map[string]float64     `json:"weights"`
}

type policyCheck struct {
	N            int     `json:"n"`
	AutoPass     int     `json:"autoPass"`
	AutoPassErr  int     `json:"autoPassErrors"`
	AutoFail     int     `json:"autoFail"`
	AutoFailErr  int     `json:"autoFailErrors"`
	Coverage     float64 `json:"coverage"`
	ErrorRate    float64 `json:"errorRate"`
	PassErrRate  float64 `json:"autoPassErrorRate"`
	FailErrRate  float64 `json:"autoFailErrorRate"`
	PolicyOnFull bool    `json:"-"`
}

func fitDecision(d guard.Decision, es []example, alpha, confidence float64) (*lexical.DecisionModel, decisionReport, guard.Thresholds, error) {
	names := lexical.FeatureNames(d)
	oof := make([]float64, len(es))
	fold := make([]int, len(es))
	for i, e := range es {
		fold[i] = foldOf(e.group)
	}
	for k := 0; k < nFolds; k++ {
		var xs [][]float64
		var ys []bool
		var ws []float64
		for i, e := range es {
			if fold[i] != k {
				xs = append(xs, e.x)
				ys = append(ys, e.y)
				ws = append(ws, e.w)
			}
		}
		m, err := fitStd(xs, ys, ws)
		if err != nil {
			return nil, decisionReport{}, guard.Thresholds{}, fmt.Errorf("fold %d: %w", k, err)
		}
		for i, e := range es {
			if fold[i] == k {
				oof[i] = m.Predict(e.x)
			}
		}
	}
	var xs [][]float64
	var ys []bool
	var ws []float64
	pos := 0
	for _, e := range es {
		xs = append(xs, e.x)
		ys = append(ys, e.y)
		ws = append(ws, e.w)
		if e.y {
			pos++
		}
	}
	full, err := fitStd(xs, ys, ws)
	if err != nil {
		return nil, decisionReport{}, guard.Thresholds{}, err
	}
	dm := &lexical.DecisionModel{Features: names, Model: full, Positives: pos, Negatives: len(es) - pos, CV: map[string]lexical.Quality{}}
	dr := decisionReport{Decision: d.String(), N: len(es), Positives: pos, CV: map[string]lexical.Quality{}, PolicyCheck: map[string]policyCheck{}, Weights: map[string]float64{}}
	for i, n := range names {
		dr.Weights[n] = full.Weights[i]
	}
	dr.Weights["(bias)"] = full.Bias
	// Quality per evaluation set and overall.
	setsSeen := map[string]bool{}
	for _, e := range es {
		for _, s := range e.sets {
			setsSeen[s] = true
		}
	}
	setsSeen["all"] = true
	for set := range setsSeen {
		var p []float64
		var y []bool
		for i, e := range es {
			if set == "all" || slices.Contains(e.sets, set) {
				p = append(p, oof[i])
				y = append(y, e.y)
			}
		}
		q := lexical.Quality{N: len(p), Brier: calibrate.Brier(p, y, nil), ECE: calibrate.ECE(p, y, nil, 10)}
		if a, err := calibrate.AUROC(p, y, nil); err == nil {
			q.AUROC = a
		} else {
			q.AUROC = math.NaN()
		}
		if math.IsNaN(q.AUROC) {
			q.AUROC = -1 // single class in this set: AUROC undefined
		}
		dm.CV[set] = q
		dr.CV[set] = q
	}
	// Shipped thresholds: chosen on all out-of-fold predictions.
	sel, err := calibrate.SelectThresholds(oof, ys, alpha, confidence)
	if err != nil {
		return nil, decisionReport{}, guard.Thresholds{}, err
	}
	th := guard.Thresholds{Fail: sel.Fail, Pass: sel.Pass}
	if !sel.HasFail {
		th.Fail = 0
	}
	if !sel.HasPass {
		th.Pass = 1
	}
	if th.Fail >= th.Pass {
		th = guard.Thresholds{Fail: 0, Pass: 1}
	}
	dr.Policy = th
	// Held-out check: choose on four folds' out-of-fold predictions, apply to
	// the fifth.
	checks := map[string]*policyCheck{}
	for k := 0; k < nFolds; k++ {
		var p []float64
		var y []bool
		for i, e := range es {
			if fold[i] != k {
				p = append(p, oof[i])
				y = append(y, e.y)
			}
		}
		s, err := calibrate.SelectThresholds(p, y, alpha, confidence)
		if err != nil {
			continue
		}
		t := guard.Thresholds{Fail: s.Fail, Pass: s.Pass}
		if !s.HasFail {
			t.Fail = 0
		}
		if !s.HasPass {
			t.Pass = 1
		}
		if t.Fail >= t.Pass {
			t = guard.Thresholds{Fail: 0, Pass: 1}
		}
		for i, e := range es {
			if fold[i] != k {
				continue
			}
			for _, set := range append([]string{"all"}, e.sets...) {
				c := checks[set]
				if c == nil {
					c = &policyCheck{}
					checks[set] = c
				}
				c.N++
				switch t.Verdict(oof[i]) {
				case guard.Pass:
					c.AutoPass++
					if !e.y {
						c.AutoPassErr++
					}
				case guard.Fail:
					c.AutoFail++
					if e.y {
						c.AutoFailErr++
					}
				}
			}
		}
	}
	for set, c := range checks {
		dec := c.AutoPass + c.AutoFail
		c.Coverage = float64(dec) / float64(c.N)
		if dec > 0 {
			c.ErrorRate = float64(c.AutoPassErr+c.AutoFailErr) / float64(dec)
		}
		if c.AutoPass > 0 {
			c.PassErrRate = float64(c.AutoPassErr) / float64(c.AutoPass)
		}
		if c.AutoFail > 0 {
			c.FailErrRate = float64(c.AutoFailErr) / float64(c.AutoFail)
		}
		dr.PolicyCheck[set] = *c
	}
	dr.Sources = sources[d]
	return dm, dr, th, nil
}

// fitStd fits a logistic model on standardized features and folds the
// standardization back into the weights (calibrate.FitStandardized, shared
// with `ragtriage calibrate`).
func fitStd(xs [][]float64, ys []bool, ws []float64) (calibrate.Logistic, error) {
	if len(xs) == 0 {
		return calibrate.Logistic{}, fmt.Errorf("no examples")
	}
	return calibrate.FitStandardized(xs, ys, ws, calibrate.LogisticConfig{L2: l2, MaxIter: 200})
}

func groupOf(id string) string {
	for _, suf := range []string{"-right", "-hallucinated", "-correct", "-incorrect", "-nogold"} {
		id = strings.TrimSuffix(id, suf)
	}
	return id
}
