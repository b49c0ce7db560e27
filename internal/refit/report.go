package main

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

type report struct {
	Profile    string             `json:"profile"`
	Command    string             `json:"command"`
	Folds      int                `json:"folds"`
	Alpha      float64            `json:"alpha"`
	Confidence float64            `json:"confidence"`
	Data       []lexical.DataFile `json:"data"`
	Decisions  []decisionReport   `json:"decisions"`
	Baselines  []baseline         `json:"baselines"`
}

type baseline struct {
	Name  string  `json:"name"`
	Set   string  `json:"set"`
	AUROC float64 `json:"auroc"`
}

func (r *report) markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Lexical judges: quality on the development data\n\n")
	fmt.Fprintf(&b, "Profile `%s`. Every figure is out-of-fold: %d-fold cross-validation, grouped so that rows sharing a question or a passage never straddle folds. ", r.Profile, r.Folds)
	fmt.Fprintf(&b, "The policy check chooses thresholds on four folds (error ≤ %.2f at %.0f%% Clopper–Pearson confidence in each auto-decided region) and applies them to the fifth.\n\n", r.Alpha, 100*r.Confidence)
	fmt.Fprintf(&b, "Reproduce: `%s`\n\n", r.Command)
	fmt.Fprintf(&b, "## Quality per decision and set\n\n| decision | set | n | AUROC | Brier | ECE |\n|---|---|---:|---:|---:|---:|\n")
	for _, d := range r.Decisions {
		for _, set := range sortedKeys(d.CV) {
			q := d.CV[set]
			au := fmt.Sprintf("%.3f", q.AUROC)
			if q.AUROC < 0 {
				au = "n/a (one class)"
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %.3f | %.3f |\n", d.Decision, set, q.N, au, q.Brier, q.ECE)
		}
	}
	fmt.Fprintf(&b, "\n## Shipped policy and its held-out check\n\n| decision | fail ≤ | pass ≥ | set | coverage | auto-pass (errors) | auto-fail (errors) | error rate |\n|---|---:|---:|---|---:|---:|---:|---:|\n")
	for _, d := range r.Decisions {
		for _, set := range sortedKeys(d.PolicyCheck) {
			c := d.PolicyCheck[set]
			fmt.Fprintf(&b, "| %s | %.3f | %.3f | %s | %.1f%% | %d (%d) | %d (%d) | %.1f%% |\n", d.Decision, d.Policy.Fail, d.Policy.Pass, set,
				100*c.Coverage, c.AutoPass, c.AutoPassErr, c.AutoFail, c.AutoFailErr, 100*c.ErrorRate)
		}
	}
	fmt.Fprintf(&b, "\n## Plain baselines on the same rows\n\n| baseline | set | AUROC |\n|---|---|---:|\n")
	for _, bl := range r.Baselines {
		fmt.Fprintf(&b, "| %s | %s | %.3f |\n", bl.Name, bl.Set, bl.AUROC)
	}
	fmt.Fprintf(&b, "\n## Where the labels come from\n\n")
	for _, d := range r.Decisions {
		fmt.Fprintf(&b, "- **%s** (%d labels, %d positive): %s\n", d.Decision, d.N, d.Positives, strings.Join(d.Sources, "; "))
	}
	fmt.Fprintf(&b, "\n## Data\n\n| file | rows | SHA-256 |\n|---|---:|---|\n")
	for _, f := range r.Data {
		fmt.Fprintf(&b, "| %s | %d | `%s` |\n", f.Path, f.Rows, f.SHA256)
	}
	return b.String()
}

func sortedKeys[T any](m map[string]T) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

func words(s string) []string { return wordRE.FindAllString(strings.ToLower(s), -1) }

// baselines computes the plain signals the issue quotes for scale.
func baselines(by map[string]*dataset) []baseline {
	var out []baseline
	// Answer tokens found in the context (HaluEval groundedness).
	{
		var p []float64
		var y []bool
		for _, r := range by["halueval"].rows {
			v, ok := r.Expected.Label(guard.Groundedness)
			if !ok {
				continue
			}
			ctx := map[string]bool{}
			for _, c := range r.Sample.Contexts {
				for _, w := range words(c.Text) {
					ctx[w] = true
				}
			}
			aw := words(r.Sample.Answer)
			n := 0
			for _, w := range aw {
				if ctx[w] {
					n++
				}
			}
			f := 1.0
			if len(aw) > 0 {
				f = float64(n) / float64(len(aw))
			}
			p = append(p, f)
			y = append(y, v)
		}
		out = append(out, baseline{"answer tokens found in the context", "halueval groundedness", auroc(p, y)})
	}
	// Jaccard with the reference (TruthfulQA correctness).
	{
		var p []float64
		var y []bool
		for _, r := range by["truthfulqa"].rows {
			v, ok := r.Expected.Label(guard.Correctness)
			if !ok || r.Sample.Reference == nil {
				continue
			}
			a, b := set(words(r.Sample.Answer)), set(words(*r.Sample.Reference))
			inter := 0
			for w := range a {
				if b[w] {
					inter++
				}
			}
			union := len(a) + len(b) - inter
			j := 0.0
			if union > 0 {
				j = float64(inter) / float64(union)
			}
			p = append(p, j)
			y = append(y, v)
		}
		out = append(out, baseline{"Jaccard of answer and reference words", "truthfulqa correctness", auroc(p, y)})
	}
	// Question-word overlap per paragraph (HotpotQA chunk relevance), and
	// best-sentence question coverage (SQuAD sufficiency).
	{
		var p []float64
		var y []bool
		for _, r := range by["hotpotqa"].rows {
			q := set(words(r.Sample.Question))
			for _, c := range r.Sample.Contexts {
				v, ok := r.Expected.ChunkLabel(c.ID)
				if !ok {
					continue
				}
				cw := set(words(c.Text))
				n := 0
				for w := range q {
					if cw[w] {
						n++
					}
				}
				p = append(p, float64(n)/math.Max(1, float64(len(q))))
				y = append(y, v)
			}
		}
		out = append(out, baseline{"share of question words in the paragraph", "hotpotqa chunk relevance", auroc(p, y)})
	}
	{
		var p []float64
		var y []bool
		for _, r := range by["squad_v2"].rows {
			v, ok := r.Expected.Label(guard.ContextSufficiency)
			if !ok {
				continue
			}
			q := set(words(r.Sample.Question))
			best := 0.0
			for _, c := range r.Sample.Contexts {
				for _, s := range splitSentences(c.Text) {
					sw := set(words(s))
					n := 0
					for w := range q {
						if sw[w] {
							n++
						}
					}
					best = math.Max(best, float64(n)/math.Max(1, float64(len(q))))
				}
			}
			p = append(p, best)
			y = append(y, v)
		}
		out = append(out, baseline{"best-sentence share of question words", "squad_v2 sufficiency", auroc(p, y)})
	}
	return out
}

func set(ws []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range ws {
		m[w] = true
	}
	return m
}

func auroc(p []float64, y []bool) float64 {
	a, err := calibrate.AUROC(p, y, nil)
	if err != nil {
		return math.NaN()
	}
	return a
}
