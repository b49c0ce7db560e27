package lexical

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
)

// Profile is a versioned calibration of the lexical judges: for each decision
// a logistic model over that decision's raw features (see FeatureNames), the
// data it was fitted on, its cross-validated quality, and the thresholds of
// the shipped policy. Raw features become probabilities only through it.
type Profile struct {
	// Version identifies this calibration; it is recorded with every result.
	Version string `json:"version"`
	// FeaturesVersion must equal the judges' FeaturesVersion: a profile fitted
	// on other features cannot be used.
	FeaturesVersion string `json:"featuresVersion"`
	// Created is when the profile was fitted (RFC 3339).
	Created string `json:"created,omitempty"`
	// RefitCommand reproduces the profile.
	RefitCommand string `json:"refitCommand"`
	// Data names every file the profile was fitted on.
	Data []DataFile `json:"data"`
	// Decisions holds one model per decision the profile calibrates.
	Decisions map[string]*DecisionModel `json:"decisions"`
	// Policy holds the shipped thresholds, chosen on cross-validated
	// predictions (see each model's Selection).
	Policy guard.Policy `json:"policy"`
	// Alpha is the error rate the thresholds promise (`ragtriage calibrate
	// -alpha`): the promise a promise monitor (guard.PromiseMonitor) tests
	// in production. 0 in profiles written before it was recorded; the
	// shipped profile was fitted at ShippedAlpha.
	Alpha float64 `json:"alpha,omitempty"`
}

// ShippedAlpha is the alpha the shipped profile was fitted at
// (internal/refit's default).
const ShippedAlpha = 0.05

// PromiseAlpha is the alpha the profile's thresholds promise: Alpha, or
// ShippedAlpha for a profile that does not record it.
func (p *Profile) PromiseAlpha() float64 {
	if p.Alpha > 0 {
		return p.Alpha
	}
	return ShippedAlpha
}

// DataFile names a labeled file a profile was fitted on.
type DataFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
}

// DecisionModel is the calibration of one decision.
type DecisionModel struct {
	Features []string           `json:"features"`
	Model    calibrate.Logistic `json:"model"`
	// Sources says which labels the model was fitted on (and which are
	// synthetic, where a decision has no real labels).
	Sources []string `json:"sources"`
	// Positives and Negatives count the training labels.
	Positives int `json:"positives"`
	Negatives int `json:"negatives"`
	// CV reports out-of-fold quality of the model, per evaluation set.
	CV map[string]Quality `json:"cv,omitempty"`
	// SoftFloor and SoftCeiling make confidence follow evidence: when none of
	// the decision's hard features (see Feature.Hard) is present, P is
	// raised to at least SoftFloor and lowered to at most SoftCeiling (0:
	// none), so that a soft mismatch (other wording) stays uncertain rather
	// than crossing the policy's fail side (groundedness) or pass side
	// (contradiction). Refit sets them just inside the shipped thresholds.
	SoftFloor   float64 `json:"softFloor,omitempty"`
	SoftCeiling float64 `json:"softCeiling,omitempty"`
}

// Quality is a model's out-of-fold quality on one labeled set.
type Quality struct {
	N     int     `json:"n"`
	AUROC float64 `json:"auroc"`
	Brier float64 `json:"brier"`
	ECE   float64 `json:"ece"`
}

//go:embed profile.json
var defaultProfileJSON []byte

// DefaultProfile returns the embedded profile, fitted on the development
// data (see its Data and RefitCommand fields).
func DefaultProfile() *Profile {
	p, err := ParseProfile(defaultProfileJSON)
	if err != nil {
		panic("lexical: embedded profile: " + err.Error())
	}
	return p
}

// LoadProfile reads a profile from a JSON file.
func LoadProfile(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("lexical: profile %s: %w", path, err)
	}
	p, err := ParseProfile(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseProfile decodes and validates a profile.
func ParseProfile(b []byte) (*Profile, error) {
	var p Profile
	if err := json.Unmarshal(b, &p); err != nil {
		if what := notAProfile(b); what != "" {
			return nil, fmt.Errorf("lexical: profile: %s", what)
		}
		return nil, fmt.Errorf("lexical: profile: %w", err)
	}
	if p.Version == "" {
		if what := notAProfile(b); what != "" {
			return nil, fmt.Errorf("lexical: profile: %s", what)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// notAProfile says what a file that does not decode as a profile is, when
// its first JSON value tells: an eval report, a calibration report, a
// record or a dataset row. It returns "" otherwise.
func notAProfile(b []byte) string {
	var head struct {
		Schema   string          `json:"schema"`
		Record   string          `json:"recordVersion"`
		Alpha    json.RawMessage `json:"alpha"`
		PassRule json.RawMessage `json:"passRule"`
		Question json.RawMessage `json:"question"`
		Answer   json.RawMessage `json:"answer"`
	}
	if json.NewDecoder(bytes.NewReader(b)).Decode(&head) != nil {
		return ""
	}
	const give = "give the profile that ragtriage calibrate -out wrote"
	switch {
	case strings.HasPrefix(head.Schema, "ragtriage.report/"):
		return fmt.Sprintf("this file is an eval report, not a profile (schema %q): %s", head.Schema, give)
	case strings.HasPrefix(head.Record, "ragtriage.record/"):
		return fmt.Sprintf("this file holds records, not a profile (%q): %s", head.Record, give)
	case head.Alpha != nil && head.PassRule != nil:
		return "this file is a calibration report (ragtriage calibrate -report), not a profile: " + give
	case head.Question != nil && head.Answer != nil:
		return "this file holds dataset rows, not a profile: " + give
	}
	return ""
}

// Validate checks that the profile fits these judges: the features version,
// every model's feature names and finite weights, and the policy.
func (p *Profile) Validate() error {
	if p.Version == "" {
		return fmt.Errorf("lexical: profile: no version")
	}
	if p.FeaturesVersion != FeaturesVersion {
		return fmt.Errorf("lexical: profile %s was fitted on features %q but these judges compute %q: "+
			"refit it on your labelled data with this version (`ragtriage calibrate -dataset FILE -out profile.json`), "+
			"or load it with the ragtriage version it was made with", p.Version, p.FeaturesVersion, FeaturesVersion)
	}
	for name, m := range p.Decisions {
		d, err := guard.ParseDecision(name)
		if err != nil {
			return fmt.Errorf("lexical: profile %s: %w", p.Version, err)
		}
		if m == nil {
			return fmt.Errorf("lexical: profile %s: %s: no model", p.Version, name)
		}
		if want := FeatureNames(d); !slices.Equal(m.Features, want) {
			return fmt.Errorf("lexical: profile %s: %s: features %v, want %v", p.Version, name, m.Features, want)
		}
		if len(m.Model.Weights) != len(m.Features) {
			return fmt.Errorf("lexical: profile %s: %s: %d weights for %d features", p.Version, name, len(m.Model.Weights), len(m.Features))
		}
		for i, w := range append(slices.Clone(m.Model.Weights), m.Model.Bias) {
			if math.IsNaN(w) || math.IsInf(w, 0) {
				return fmt.Errorf("lexical: profile %s: %s: weight %d is %v", p.Version, name, i, w)
			}
		}
	}
	if err := p.Policy.Validate(); err != nil {
		return fmt.Errorf("lexical: profile %s: %w", p.Version, err)
	}
	if p.Alpha != 0 && !(p.Alpha > 0 && p.Alpha < 1) {
		return fmt.Errorf("lexical: profile %s: alpha %v: want the promise's error rate, in (0, 1)", p.Version, p.Alpha)
	}
	return nil
}

// FeaturesVersion names the feature definitions of this package. It changes
// whenever a feature's meaning changes; profiles record it.
const FeaturesVersion = "lexical-features/3"

// FeatureNames lists the raw features of a decision's model, in order. The
// slice is the caller's.
func FeatureNames(d guard.Decision) []string {
	fs := decisionFeatures(d)
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// FeatureSigns lists the declared direction of each raw feature of a
// decision's model (see Feature), in the order of FeatureNames: what
// calibrate.LogisticConfig.Signs takes. The slice is the caller's.
func FeatureSigns(d guard.Decision) []int {
	fs := decisionFeatures(d)
	out := make([]int, len(fs))
	for i, f := range fs {
		out[i] = f.Sign
	}
	return out
}

// DecisionFeatures lists the raw features of a decision's model, in order.
// The slice is the caller's: modifying it changes nothing in the judges.
func DecisionFeatures(d guard.Decision) []Feature { return slices.Clone(decisionFeatures(d)) }

// decisionFeatures is DecisionFeatures without the copy, for the judges.
func decisionFeatures(d guard.Decision) []Feature {
	switch d {
	case guard.ChunkRelevance:
		return chunkFeatures
	case guard.ContextSufficiency:
		return suffFeatures
	case guard.ContextConflict:
		return conflictFeatures
	case guard.AnswerRelevance:
		return relevFeatures
	case guard.Groundedness:
		return groundFeatures
	case guard.Contradiction:
		return contraFeatures
	case guard.Correctness:
		return correctFeatures
	}
	return nil
}
