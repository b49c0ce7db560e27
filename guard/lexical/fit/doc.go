// Package fit fits the lexical judges' profile from labelled feature
// vectors. For each decision it fits the logistic model, predicts every
// example out of fold and chooses the thresholds on those predictions, with
// the promise checked on every labelled source. It also checks the
// thresholds on held-out folds and chooses the pass rule.
//
// Both "ragtriage calibrate" and internal/refit fit through this package.
// It takes plain inputs (feature vectors, labels, sources, folds), not data
// rows, so a fit can start from recorded features as well as from text.
//
//	exs := []fit.Example{{X: x0, Y: true, Source: 0, Fold: 0}, …}
//	f, err := fit.Decision(guard.Groundedness, exs, fit.Settings{Alpha: 0.05, Confidence: 0.95, Folds: 5})
//	if err != nil { … }
//	prof.Decisions[guard.Groundedness.String()] = f.DecisionModel(-1)
//	prof.Policy.Set(guard.Groundedness, f.Selection.Thresholds)
package fit
