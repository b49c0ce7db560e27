package main

// calibrate -records: the embedded judges learn from the teacher's verdicts
// recorded beside their own (issue 20 item 3).

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/evalkit"
	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// recordsReport says what calibrate -records made of the records: where
// the labels came from, which rows certify the thresholds, and the promise
// the thresholds keep.
type recordsReport struct {
	// Teachers names the judges whose verdicts are the labels, with the
	// number of labels each gave.
	Teachers map[string]int `json:"teachers"`
	// Promise is what the thresholds keep, in words.
	Promise string `json:"promise"`
	// Selection says how the thresholds were chosen on the uniform draws.
	Selection string `json:"selection"`
	// Records counts the valid records read; BadLines the lines skipped.
	Records  int `json:"records"`
	BadLines int `json:"badLines"`
	// NoFeatures counts the records without "features" (skipped).
	NoFeatures int `json:"noFeatures"`
	// Drawn counts the records drawn for the teacher; UniformDraws those
	// that certify thresholds (explore draws, thinned to one inclusion
	// probability); Thinned the drawn records left out by the thinning.
	WithDraw     int     `json:"withDraw"`
	Drawn        int     `json:"drawn"`
	UniformDraws int     `json:"uniformDraws"`
	Thinned      int     `json:"thinned"`
	Inclusion    float64 `json:"inclusion,omitempty"`
	// NotUniform says why drawn rows do not certify, when they do not.
	NotUniform string `json:"notUniform,omitempty"`
	// FitOnlyFiles names the input files whose draws are not a uniform
	// sample (records that could not have been drawn): their rows fit the
	// models but never certify.
	FitOnlyFiles []string `json:"fitOnlyFiles,omitempty"`
	// TeacherLabels counts the labels from drawn rows' teacher verdicts;
	// FallbackLabels those from escalated rows' settled fallback verdicts
	// (fitted, never certifying); HumanLabels those joined by ID from
	// -dataset. The three add up to the labels fitted: a teacher or
	// fallback verdict that a human label replaces is counted in Replaced
	// only.
	TeacherLabels  int `json:"teacherLabels"`
	FallbackLabels int `json:"fallbackLabels"`
	HumanLabels    int `json:"humanLabels"`
	Replaced       int `json:"replacedByHuman"`
	// What gave no label: the teacher's abstentions, its verdicts between
	// the fallback thresholds, estimates read from the primary judge,
	// drawn rows the teacher refused or never answered, and escalated
	// rows' fallback verdicts set aside because that judge reads the
	// primary for what it has no label for.
	Abstentions      int `json:"teacherAbstentions"`
	Uncertain        int `json:"teacherUncertain"`
	FromPrimary      int `json:"fromPrimary"`
	Refused          int `json:"teacherRefused"`
	NotTaught        int `json:"drawnNotTaught"`
	FallbackDistrust int `json:"fallbackFromPrimaryJudge"`
	// TeacherAccuracy is the teacher's agreement with the human labels,
	// per decision, where both exist.
	TeacherAccuracy []teacherAccuracy `json:"teacherAccuracy,omitempty"`
}

// teacherAccuracy is the teacher's agreement with human labels on one
// decision, with its exact (Clopper–Pearson) two-sided interval.
type teacherAccuracy struct {
	Decision string  `json:"decision"`
	N        int     `json:"n"`
	Agree    int     `json:"agree"`
	Accuracy float64 `json:"accuracy"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
}

// recRow is one usable record: its features, the labels it gives and
// whether it certifies.
type recRow struct {
	pos     dataset.Position
	id      string
	file    string
	vecs    []guard.FeatureVector
	sample  *guard.Sample // the captured content, when there is one
	res     *guard.Result
	human   *dataset.Expected
	certify bool
}

// labelKey names one decision (and context) of a row.
type labelKey struct {
	d   guard.Decision
	ctx string
}

// readRecordSet reads the records and turns them into labelled examples:
// the teacher's verdicts on drawn rows, the fallback's settled verdicts on
// escalated rows, and the human labels joined by ID from -dataset, which
// replace them. Only uniform draws certify thresholds.
func readRecordSet(cf *calibrateFlags, base *lexical.Profile, stderr io.Writer) (*calibrationSet, error) {
	var labels *evalkit.Labels
	if len(cf.datasets) > 0 {
		var err error
		if labels, err = evalkit.ReadLabels(cf.datasets...); err != nil {
			return nil, err
		}
		for _, p := range labels.Problems {
			fmt.Fprintf(stderr, "ragtriage calibrate: %s: labels not used: %s\n", p.Pos, p.Reason)
		}
	}
	rr := &recordsReport{Teachers: map[string]int{}}
	set := &calibrationSet{ex: map[guard.Decision][]calExample{}, groups: newGroups(), recorded: rr}
	var rows []recRow
	other := map[string]int{}
	var firstOther, firstBare string
	seen := map[string]dataset.Position{}
	for _, path := range cf.records {
		// One source per file: a row's file decides whether its draws can
		// certify (see certifying), and two files may share a base name.
		src := evalkit.NewRecordSource(labels, path)
		for {
			it, err := src.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				src.Close()
				return nil, err
			}
			if it.Err != nil {
				rr.BadLines++
				fmt.Fprintf(stderr, "ragtriage calibrate: %s: skipped: %v\n", it.Pos, it.Err)
				continue
			}
			if first, dup := seen[it.ID]; dup {
				rr.BadLines++
				fmt.Fprintf(stderr, "ragtriage calibrate: %s: skipped: id %q repeated (first at %s): a draw counts once\n", it.Pos, it.ID, first)
				continue
			}
			seen[it.ID] = it.Pos
			rr.Records++
			res := &it.Record.Result
			switch {
			case res.Features == nil || len(res.Features.Vectors) == 0:
				rr.NoFeatures++
				if firstBare == "" {
					firstBare = it.Pos.String()
				}
				continue
			case res.Features.Version != base.FeaturesVersion:
				if other[res.Features.Version] == 0 && firstOther == "" {
					firstOther = it.Pos.String()
				}
				other[res.Features.Version]++
				continue
			}
			if msg := badVector(res.Features); msg != "" {
				rr.BadLines++
				rr.Records--
				fmt.Fprintf(stderr, "ragtriage calibrate: %s: skipped: %s\n", it.Pos, msg)
				continue
			}
			rows = append(rows, recRow{pos: it.Pos, id: it.ID, file: path, vecs: res.Features.Vectors, sample: it.Sample,
				res: res, human: it.Expected})
		}
		for _, w := range src.Warnings() {
			fmt.Fprintf(stderr, "ragtriage calibrate: %s: %s\n", w.Pos, w.Message)
		}
		for _, in := range src.Inputs() {
			set.data = append(set.data, lexical.DataFile{Path: in.Name, SHA256: in.SHA256, Rows: in.Lines - in.Bad})
			if in.Kind == "records" {
				set.read += in.Lines
			}
		}
		src.Close()
	}
	set.bad = rr.BadLines
	switch {
	case set.read == 0:
		return nil, fmt.Errorf("no records: %s; nothing to calibrate", holdNoRow(cf.records))
	case rr.Records == 0:
		return nil, fmt.Errorf("none of the %d lines is a valid record (listed above): nothing to calibrate", set.read)
	case len(other) > 0:
		var vs []string
		for v, n := range other {
			vs = append(vs, fmt.Sprintf("%q (%d records)", v, n))
		}
		sort.Strings(vs)
		return nil, fmt.Errorf("records hold features of another version: %s, the first at %s; this calibrate fits features %q (the profile's featuresVersion): the vectors mean other things, so they cannot be mixed. Record the traffic again with this version, or calibrate those records with the ragtriage version that wrote them",
			strings.Join(vs, ", "), firstOther, base.FeaturesVersion)
	case len(rows) == 0:
		return nil, fmt.Errorf("none of the %d records carries \"features\" (the first at %s): calibrate -records fits the embedded judges on the feature vectors recorded beside each result; they are written by this version's guard with the lexical judge (records written before, or by other judges, have none). Record the traffic again, or calibrate from labelled rows with -dataset", rr.Records, firstBare)
	case rr.NoFeatures > 0:
		fmt.Fprintf(stderr, "ragtriage calibrate: warning: %d of the %d records carry no \"features\" (the first at %s); they are skipped\n", rr.NoFeatures, rr.Records, firstBare)
	}
	set.certifying(rows, rr)
	set.labelRecords(rows, rr, cf.confidence)
	total := rr.TeacherLabels + rr.FallbackLabels + rr.HumanLabels
	if total == 0 {
		return nil, fmt.Errorf("no labels: the records give nothing to calibrate on. %s", rr.whyNoLabels())
	}
	cert := 0
	for _, es := range set.ex {
		for _, e := range es {
			if e.certify {
				cert++
			}
		}
	}
	if cert == 0 {
		why := rr.NotUniform
		if why == "" {
			why = fmt.Sprintf("none of the %d records was drawn for the teacher, or no drawn record gave a label", len(rows))
		}
		return nil, fmt.Errorf("no uniform draws: %s. The %d labels (teacher %d, escalations %d, human %d) can fit the models, but thresholds are certified only on answers drawn uniformly (the Clopper–Pearson bound needs rows the selection did not choose); record with draws, e.g. \"ragtriage eval ... -explore 0.2\" or the middleware's explore rate in shadow mode",
			why, total, rr.TeacherLabels, rr.FallbackLabels, rr.HumanLabels)
	}
	set.finishGroups(cf.folds)
	rr.Promise = rr.promise(cf)
	rr.Selection = fmt.Sprintf("one fixed sequence per side at %.0f%% confidence (the full δ: small regions cannot hold a teacher's own errors), started at the region the out-of-fold P predicts to certify the most rows; no side crosses P = 0.5; both read P alone, so the bound holds after the selection", 100*cf.confidence)
	return set, nil
}

// certifying marks the rows that certify thresholds: explore draws of the
// input files in which every record with a draw could have been drawn
// (inclusion > 0), thinned to the smallest inclusion probability so that
// they are one uniform sample of those files' traffic. A file with records
// that could not have been drawn (audit draws skip escalated answers) is
// not a uniform sample: its rows fit the models only, and the report names
// it (FitOnlyFiles). Recalibrating from a shadow (explore) file beside an
// enforce (audit) file therefore certifies on the shadow file's draws.
func (set *calibrationSet) certifying(rows []recRow, rr *recordsReport) {
	zeroIn := map[string]int{}
	withIn := map[string]int{}
	for i := range rows {
		d := rows[i].res.Draw
		if d == nil {
			continue
		}
		rr.WithDraw++
		withIn[rows[i].file]++
		if d.Drawn {
			rr.Drawn++
		}
		if d.Inclusion <= 0 {
			zeroIn[rows[i].file]++
		}
	}
	zero := 0
	for f, n := range zeroIn {
		zero += n
		rr.FitOnlyFiles = append(rr.FitOnlyFiles, fmt.Sprintf("%s (%d of its %d records with a draw could not have been drawn)", f, n, withIn[f]))
	}
	slices.Sort(rr.FitOnlyFiles)
	pmin := math.Inf(1)
	drawn := 0
	for i := range rows {
		d := rows[i].res.Draw
		if d == nil || zeroIn[rows[i].file] > 0 {
			continue
		}
		pmin = min(pmin, d.Inclusion)
		if d.Drawn {
			drawn++
		}
	}
	switch {
	case rr.WithDraw == 0:
		rr.NotUniform = fmt.Sprintf("none of the %d records has a \"draw\" (no teacher draws were configured)", len(rows))
		return
	case len(zeroIn) == len(withIn):
		rr.NotUniform = fmt.Sprintf("%d of the %d records with a draw could not have been drawn (inclusion 0: audit draws skip the answers the embedded judges escalated), so the drawn ones are not a uniform sample of the traffic; record with explore draws", zero, rr.WithDraw)
		return
	case drawn == 0:
		rr.NotUniform = fmt.Sprintf("none of the %d records with a draw in the files that can certify was drawn", rr.WithDraw-zero)
		return
	}
	rr.Inclusion = pmin
	for i := range rows {
		r := &rows[i]
		d := r.res.Draw
		if d == nil || !d.Drawn || zeroIn[r.file] > 0 {
			continue
		}
		// Keep a row drawn with probability q with probability pmin/q
		// (independently of the draw: another hash of the ID), so every
		// kept row had probability pmin.
		if d.Inclusion > pmin && thinDraw(r.id) >= pmin/d.Inclusion {
			rr.Thinned++
			continue
		}
		r.certify = true
		rr.UniformDraws++
	}
}

// thinDraw maps id to a uniform number in [0, 1), independent of the
// guard's draws.
func thinDraw(id string) float64 {
	h := sha256.Sum256([]byte("ragtriage calibrate thinning\x00" + id))
	return float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
}

// labelRecords adds each row's labelled feature vectors to set.
func (set *calibrationSet) labelRecords(rows []recRow, rr *recordsReport, confidence float64) {
	// A teacher that reads the primary judge for what it has no label for
	// (a simulated one) says so on drawn rows. Its verdicts on escalated
	// rows carry no such mark, so they are set aside.
	readsPrimary := map[string]bool{}
	for i := range rows {
		if t := rows[i].res.Teacher; t != nil && t.FromPrimary {
			readsPrimary[t.Judge] = true
		}
	}
	acc := map[guard.Decision]*teacherAccuracy{}
	for i := range rows {
		r := &rows[i]
		primary := primaryJudges(r.res)
		teach, name := set.teacherLabels(r, rr, primary, readsPrimary)
		drawnRow := r.res.Draw != nil && r.res.Draw.Drawn // teach holds teacher verdicts, else fallback ones
		fitOnly := !r.certify
		final := map[labelKey]bool{}
		for k, v := range teach {
			final[k] = v
		}
		for _, v := range r.vecs {
			k := labelKey{v.Decision, v.ContextID}
			h, ok := humanLabel(r.human, k)
			if !ok {
				continue
			}
			rr.HumanLabels++
			if t, had := teach[k]; had {
				// The human label replaces this verdict: it is counted
				// once, as a human label.
				rr.Replaced++
				if drawnRow {
					rr.TeacherLabels--
				} else {
					rr.FallbackLabels--
				}
				a := acc[k.d]
				if a == nil {
					a = &teacherAccuracy{Decision: k.d.String()}
					acc[k.d] = a
				}
				a.N++
				if t == h {
					a.Agree++
				}
			}
			final[k] = h
		}
		for k := range teach {
			if _, human := humanLabel(r.human, k); !human {
				rr.Teachers[name]++
			}
		}
		if len(final) == 0 {
			continue
		}
		set.addRecorded(r, final, !fitOnly)
	}
	for _, d := range guard.Decisions {
		if a := acc[d]; a != nil {
			a.Accuracy = float64(a.Agree) / float64(a.N)
			a.Lower = calibrate.ClopperPearsonLower(a.Agree, a.N, (1+confidence)/2)
			a.Upper = calibrate.ClopperPearsonUpper(a.Agree, a.N, (1+confidence)/2)
			rr.TeacherAccuracy = append(rr.TeacherAccuracy, *a)
		}
	}
}

// teacherLabels returns the labels a row's teacher gives, and the
// teacher's name: the teacher's verdicts on a drawn row, else the
// fallback's settled verdicts on an escalated row. An estimate read from
// the primary judge, an abstention and an uncertain verdict give none.
func (set *calibrationSet) teacherLabels(r *recRow, rr *recordsReport, primary map[string]bool, readsPrimary map[string]bool) (map[labelKey]bool, string) {
	out := map[labelKey]bool{}
	res := r.res
	if d := res.Draw; d != nil && d.Drawn {
		t := res.Teacher
		switch {
		case t == nil:
			rr.NotTaught++
			return out, ""
		case primary[t.Judge]:
			rr.FromPrimary += len(r.vecs)
			return out, t.Judge
		}
		tv := guard.Result{Verdicts: t.Verdicts}
		for _, v := range r.vecs {
			k := labelKey{v.Decision, v.ContextID}
			i := slices.IndexFunc(t.Estimates, func(e guard.Estimate) bool { return e.Decision == k.d && e.ContextID == k.ctx })
			switch {
			case i >= 0 && primary[t.Estimates[i].Judge], i < 0 && t.FromPrimary:
				rr.FromPrimary++
				continue
			case i >= 0 && t.Estimates[i].Abstained:
				if denied(t) && t.Estimates[i].Cause == t.Cause {
					rr.Refused++
				} else {
					rr.Abstentions++
				}
				continue
			case i < 0 && denied(t):
				rr.Refused++
				continue
			case i < 0 && t.Cause != "":
				rr.Abstentions++ // not answered
				continue
			}
			verdict := verdictOf(&tv, k)
			switch {
			case verdict == guard.Pass || verdict == guard.Fail:
			case i < 0:
				// No estimate of this decision and no verdict: the
				// teacher did not answer it (guard.Teach records no
				// estimate then), an abstention.
				rr.Abstentions++
				continue
			default:
				rr.Uncertain++
				continue
			}
			out[k] = k.d.PropositionVerdict(verdict) == guard.Pass
			rr.TeacherLabels++
		}
		return out, t.Judge
	}
	fb := res.Fallback
	if fb == nil || primary[fb.Judge] {
		return out, ""
	}
	for _, v := range r.vecs {
		k := labelKey{v.Decision, v.ContextID}
		if !slices.Contains(fb.Decisions, k.d) || (k.d == guard.ChunkRelevance && !slices.Contains(fb.Contexts, k.ctx)) {
			continue
		}
		verdict := verdictOf(res, k)
		if verdict != guard.Pass && verdict != guard.Fail {
			continue // unsettled: the escalation left it uncertain
		}
		if readsPrimary[fb.Judge] {
			rr.FallbackDistrust++
			continue
		}
		out[k] = k.d.PropositionVerdict(verdict) == guard.Pass
		rr.FallbackLabels++
	}
	return out, fb.Judge
}

// denied reports whether the teacher was refused or failed (Teacher.Cause
// says so; its own abstentions are no cause), so that what it left
// unanswered counts as refused or failed, not as abstained.
func denied(t *guard.Teacher) bool {
	return t.Refused() || t.Cause == guard.CauseFallbackFailed || t.Cause == guard.CauseJudgeFailed
}

// primaryJudges names the guard's own judges in a result: every judge it
// lists but the teacher and the fallback, and the lexical judge always.
func primaryJudges(res *guard.Result) map[string]bool {
	out := map[string]bool{lexical.Name: true}
	skip := map[string]bool{}
	if res.Teacher != nil {
		skip[res.Teacher.Judge] = true
	}
	if res.Fallback != nil {
		skip[res.Fallback.Judge] = true
	}
	for name := range res.Judges {
		if !skip[name] {
			out[name] = true
		}
	}
	return out
}

// verdictOf returns res's verdict on one decision (and context).
func verdictOf(res *guard.Result, k labelKey) guard.Verdict {
	if k.d == guard.ChunkRelevance {
		v, _ := res.Verdicts.Retrieval.ChunkRelevance.Get(k.ctx)
		return v
	}
	v, _ := res.Verdict(k.d)
	return v
}

// humanLabel returns a human label of one decision (and context).
func humanLabel(e *dataset.Expected, k labelKey) (bool, bool) {
	if k.d == guard.ChunkRelevance {
		return e.ChunkLabel(k.ctx)
	}
	return e.Label(k.d)
}

// addRecorded keeps a recorded row and one example per label. Rows are
// grouped by their captured texts when there are some, else by their
// chunk relevance vectors, which read the question and the contexts only
// (never the answer), so rows that share both share those vectors.
func (set *calibrationSet) addRecorded(r *recRow, labels map[labelKey]bool, certify bool) {
	var g int
	if r.sample != nil {
		g = set.groups.add(r.sample)
	} else {
		h := sha256.New()
		n := 0
		for _, v := range r.vecs {
			if v.Decision == guard.ChunkRelevance {
				fmt.Fprintf(h, "%s\x00%v\x00", v.ContextID, v.X)
				n++
			}
		}
		if n > 0 {
			g = set.groups.addKeys("v\x00" + string(h.Sum(nil)))
		} else {
			g = set.groups.addKeys()
		}
	}
	ri := len(set.rows)
	s := recordedSample(r)
	exp := &dataset.Expected{}
	ci := 0
	for _, v := range r.vecs {
		ctx := -1
		if v.Decision == guard.ChunkRelevance {
			ctx = ci
			ci++
		}
		y, ok := labels[labelKey{v.Decision, v.ContextID}]
		if !ok {
			continue
		}
		setLabel(exp, v.Decision, v.ContextID, y)
		set.ex[v.Decision] = append(set.ex[v.Decision], calExample{x: v.X, y: y, group: g, file: r.file, row: ri, ctx: ctx, certify: certify})
	}
	set.rows = append(set.rows, calRow{sample: s, exp: exp, file: r.file, certify: certify, vecs: r.vecs})
}

// recordedSample stands in for a record's sample in the pass-rule check:
// its context IDs are the recorded ones; its texts are placeholders, never
// judged (the check reads the out-of-fold P of the recorded vectors).
func recordedSample(r *recRow) *guard.Sample {
	s := &guard.Sample{ID: r.id, Question: "(recorded)", Answer: "(recorded)"}
	for _, v := range r.vecs {
		switch v.Decision {
		case guard.ChunkRelevance:
			s.Contexts = append(s.Contexts, guard.Context{ID: v.ContextID, Text: "(recorded)"})
		case guard.Correctness:
			ref := "(recorded)"
			s.Reference = &ref
		}
	}
	if len(s.Contexts) == 0 {
		s.Contexts = []guard.Context{{ID: "c1", Text: "(recorded)"}}
	}
	return s
}

// setLabel puts one decision label into e.
func setLabel(e *dataset.Expected, d guard.Decision, ctx string, y bool) {
	if d.Retrieval() && e.Retrieval == nil {
		e.Retrieval = &dataset.RetrievalLabels{}
	}
	if !d.Retrieval() && e.Generation == nil {
		e.Generation = &dataset.GenerationLabels{}
	}
	p := &y
	switch d {
	case guard.ChunkRelevance:
		if e.Retrieval.ChunkRelevance == nil {
			e.Retrieval.ChunkRelevance = map[string]bool{}
		}
		e.Retrieval.ChunkRelevance[ctx] = y
	case guard.ContextSufficiency:
		e.Retrieval.ContextSufficiency = p
	case guard.ContextConflict:
		e.Retrieval.ContextConflict = p
	case guard.AnswerRelevance:
		e.Generation.AnswerRelevance = p
	case guard.Groundedness:
		e.Generation.Groundedness = p
	case guard.Contradiction:
		e.Generation.Contradiction = p
	case guard.Correctness:
		e.Generation.Correctness = p
	}
}

// whyNoLabels says what the teacher gave instead of labels.
func (rr *recordsReport) whyNoLabels() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(rr.Abstentions, "teacher abstentions")
	add(rr.Uncertain, "teacher verdicts between the fallback policy's thresholds (uncertain)")
	add(rr.FromPrimary, "estimates read from the primary judge (never labels)")
	add(rr.Refused, "teacher estimates refused or failed (budget, breaker, concurrency, deadline, fallback_failed)")
	add(rr.NotTaught, "drawn records without a teacher answer")
	add(rr.FallbackDistrust, "escalation verdicts of a judge that reads the primary judge")
	if len(parts) == 0 {
		return fmt.Sprintf("Of the %d records with features, none was drawn for the teacher (%d with a draw) or escalated to the fallback, and no human label joined by ID", rr.Records-rr.NoFeatures, rr.WithDraw)
	}
	return fmt.Sprintf("The teacher gave, instead of verdicts: %s", strings.Join(parts, ", "))
}

// promise states what the thresholds keep.
func (rr *recordsReport) promise(cf *calibrateFlags) string {
	names := make([]string, 0, len(rr.Teachers))
	for n := range rr.Teachers {
		if n != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	who := strings.Join(names, ", ")
	if who == "" {
		who = "the human labels"
	}
	s := fmt.Sprintf("disagreement with %s ≤ %.3g at %.0f%% confidence in every auto-decided region (Clopper–Pearson, on %d uniform teacher draws)",
		who, cf.alpha, 100*cf.confidence, rr.UniformDraws)
	if rr.HumanLabels > 0 {
		s += "; human labels joined by ID replace the teacher's where given"
	}
	return s
}

// errNoRecordP marks a decision the pass-rule check has no P for.
var errNoRecordP = errors.New("no out-of-fold P for this recorded decision")

// recordedEstimates answers a pass-rule replay of a recorded row: the
// out-of-fold P of each labelled vector, an abstention for the rest.
func recordedEstimates(r *calRow, ri int, oof map[oofKey]float64) []guard.Estimate {
	var out []guard.Estimate
	ci := 0
	for _, v := range r.vecs {
		ctx := -1
		if v.Decision == guard.ChunkRelevance {
			ctx = ci
			ci++
		}
		e := guard.Estimate{Decision: v.Decision, ContextID: v.ContextID}
		if p, ok := oof[oofKey{ri, v.Decision, ctx}]; ok {
			e.P = p
		} else {
			e.Abstained, e.Reason = true, errNoRecordP.Error()
		}
		out = append(out, e)
	}
	return out
}

// recordedJudge replays recorded rows in the pass-rule check.
func recordedJudge(set *calibrationSet, cur *int, oof map[oofKey]float64) guard.Judge {
	return guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return recordedEstimates(&set.rows[*cur], *cur, oof), nil
	})
}

// printRecords prints where the labels came from and the promise.
func printRecords(w io.Writer, rr *recordsReport) {
	fmt.Fprintf(w, "promise: %s\n", rr.Promise)
	fmt.Fprintf(w, "selection: %s\n", rr.Selection)
	fmt.Fprintf(w, "records: %d read (%d bad lines skipped, %d without features); %d drawn for the teacher, %d uniform draws certify the thresholds",
		rr.Records, rr.BadLines, rr.NoFeatures, rr.Drawn, rr.UniformDraws)
	if rr.Thinned > 0 {
		fmt.Fprintf(w, " (%d thinned to inclusion %.3g)", rr.Thinned, rr.Inclusion)
	}
	fmt.Fprintf(w, "\nlabels: %d teacher verdicts on drawn rows, %d fallback verdicts on escalated rows (fitted, never certifying), %d human labels joined by ID",
		rr.TeacherLabels, rr.FallbackLabels, rr.HumanLabels)
	if rr.Replaced > 0 {
		fmt.Fprintf(w, " (%d of them in place of a teacher or fallback verdict)", rr.Replaced)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "no label: %d teacher abstentions, %d uncertain teacher verdicts, %d estimates from the primary judge, %d refused, %d drawn rows not taught, %d escalation verdicts of a judge that reads the primary\n",
		rr.Abstentions, rr.Uncertain, rr.FromPrimary, rr.Refused, rr.NotTaught, rr.FallbackDistrust)
	for _, a := range rr.TeacherAccuracy {
		fmt.Fprintf(w, "teacher accuracy on human labels: %s %d/%d = %.1f%% (exact interval %.1f%%–%.1f%%)\n",
			a.Decision, a.Agree, a.N, 100*a.Accuracy, 100*a.Lower, 100*a.Upper)
	}
	for _, f := range rr.FitOnlyFiles {
		fmt.Fprintf(w, "note: %s: not a uniform sample of its traffic (audit draws skip escalated answers); its rows fit the models, never certify\n", f)
	}
	if rr.NotUniform != "" {
		fmt.Fprintf(w, "note: %s\n", rr.NotUniform)
	}
}

// badVector says what is wrong with a vector of f, or "": a vector whose
// length is not its decision's feature count, or a repeated one.
func badVector(f *guard.Features) string {
	seen := map[labelKey]bool{}
	for i, v := range f.Vectors {
		if !v.Decision.Valid() {
			return fmt.Sprintf("result.features.vectors[%d]: no valid decision", i)
		}
		if n := len(lexical.FeatureNames(v.Decision)); len(v.X) != n {
			return fmt.Sprintf("result.features.vectors[%d] (%s): %d numbers, features %q have %d", i, v.Decision, len(v.X), f.Version, n)
		}
		k := labelKey{v.Decision, v.ContextID}
		if seen[k] {
			return fmt.Sprintf("result.features.vectors[%d] (%s %s): repeated", i, v.Decision, v.ContextID)
		}
		seen[k] = true
	}
	return ""
}
