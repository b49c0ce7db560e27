package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/record"
)

// teachOpts shapes hand-written records (the issue 20 JSON contract): each
// labelled row of a dataset becomes a record with the lexical judge's
// feature vectors and, when drawn, a teacher's groundedness verdict.
type teachOpts struct {
	explore   float64 // draw rate (kind explore); 0: no draw block
	audit     bool    // kind audit, escalated rows get inclusion 0
	errRate   float64 // the teacher's share of wrong verdicts
	seed      uint64
	abstain   bool // the teacher abstains on everything
	primary   bool // the teacher's estimates are read from the primary judge
	escalated func(i int) bool
	// escVerdict, when set, gives an escalated row's fallback verdict
	// (true: grounded); else it is the label.
	escVerdict func(i int, y bool) bool
	noFeatures bool
	// noContradiction: the teacher also says "no contradiction" on every
	// row (one class).
	noContradiction bool
	version         string // features version (default lexical.FeaturesVersion)
	teacher         string
}

const simTeacher = "simulated (a SIMULATION)"

// writeTeachRecords writes the records of the groundedness-labelled rows
// of data and returns their path and the rows' true labels by ID.
func writeTeachRecords(t *testing.T, data string, o teachOpts) (string, map[string]bool) {
	t.Helper()
	j, err := lexical.New(lexical.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	if o.teacher == "" {
		o.teacher = simTeacher
	}
	if o.version == "" {
		o.version = lexical.FeaturesVersion
	}
	src := dataset.NewFileSource(data)
	defer src.Close()
	rng := rand.New(rand.NewPCG(o.seed, 7))
	truth := map[string]bool{}
	var b strings.Builder
	for i := 0; ; i++ {
		it, err := src.Next()
		if err != nil {
			break
		}
		if it.Err != nil {
			continue
		}
		y, ok := it.Expected.Label(guard.Groundedness)
		if !ok {
			continue
		}
		truth[it.ID] = y
		f := j.Features(it.Sample)
		res, err := g.Evaluate(context.Background(), *it.Sample)
		if err != nil {
			t.Fatal(err)
		}
		// The guard's own vectors (every decision, chunk relevance per
		// context); they must be the judge's Features.
		if res.Features == nil || !slices.Equal(res.Features.Vector(guard.Groundedness, ""), f.Groundedness) {
			t.Fatalf("%s: the guard's features %+v are not the judge's", it.ID, res.Features)
		}
		res.Features.Version = o.version
		if o.noFeatures {
			res.Features = nil
		}
		esc := o.escalated != nil && o.escalated(i)
		if esc {
			v := y
			if o.escVerdict != nil {
				v = o.escVerdict(i, y)
			}
			res.Verdicts.Generation.Groundedness = verdictFor(v)
			res.Fallback = &guard.FallbackInfo{Judge: o.teacher, Decisions: []guard.Decision{guard.Groundedness}, Settled: 1}
			res.Judges[o.teacher] = ""
		}
		if o.explore > 0 {
			d := &guard.Draw{Kind: guard.DrawExplore, Rate: o.explore, Seed: o.seed, Inclusion: o.explore}
			if o.audit {
				d.Kind = guard.DrawAudit
				if esc {
					d.Inclusion = 0
				}
			}
			d.Drawn = d.Inclusion > 0 && rng.Float64() < d.Inclusion
			res.Draw = d
			if d.Drawn {
				res.Teacher = teacherOf(o, y, rng)
			}
		}
		rec := record.Record{ID: it.ID, Result: res}
		line, err := record.Marshal(&rec)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
	}
	p := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, truth
}

func verdictFor(grounded bool) guard.Verdict {
	if grounded {
		return guard.Pass
	}
	return guard.Fail
}

// teacherOf is a drawn row's teacher answer: the label, wrong at errRate.
func teacherOf(o teachOpts, y bool, rng *rand.Rand) *guard.Teacher {
	t := &guard.Teacher{Judge: o.teacher}
	est := guard.Estimate{Decision: guard.Groundedness, Judge: o.teacher}
	v := y
	if rng.Float64() < o.errRate {
		v = !v
	}
	switch {
	case o.abstain:
		est.Abstained, est.Cause, est.Reason = true, guard.CauseFallbackAbstained, "no label"
		t.Cause = guard.CauseFallbackAbstained
		t.Verdicts.Generation.Groundedness = guard.Uncertain
	case o.primary:
		est.Judge, est.P = lexical.Name, 0.9
		t.FromPrimary = true
		// A verdict that a careless teacher might still fill in: calibrate
		// must not take it as a label.
		t.Verdicts.Generation.Groundedness = verdictFor(v)
	default:
		est.P = 0.05
		if v {
			est.P = 0.95
		}
		t.Verdicts.Generation.Groundedness = verdictFor(v)
	}
	t.Estimates = []guard.Estimate{est}
	if o.noContradiction {
		t.Estimates = append(t.Estimates, guard.Estimate{Decision: guard.Contradiction, Judge: o.teacher, P: 0.02})
		t.Verdicts.Generation.Contradiction = guard.Pass
	}
	return t
}

func readCalReport(t *testing.T, path string) calibrationReport {
	t.Helper()
	var r calibrationReport
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

const beginDev = "../../data/dev/begin_wow_groundedness.jsonl"

// The teacher's verdicts are the labels, the promise names the teacher,
// and the profile loads.
func TestCalibrateRecordsLearnsFromTeacher(t *testing.T) {
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, errRate: 0.05, seed: 3})
	dir := t.TempDir()
	prof, rep := filepath.Join(dir, "p.json"), filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", recs, "-alpha", "0.10", "-out", prof, "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	t.Log(out)
	r := readCalReport(t, rep)
	rr := r.Records
	if rr == nil || rr.TeacherLabels != 311 || rr.UniformDraws != 311 || rr.Teachers[simTeacher] != 311 {
		t.Fatalf("records report %+v", rr)
	}
	want := "disagreement with " + simTeacher + " ≤ 0.1"
	if !strings.Contains(out, "promise: "+want) || !strings.Contains(rr.Promise, want) {
		t.Errorf("the promise does not name the teacher:\n%s", out)
	}
	p, err := lexical.LoadProfile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if src := p.Decisions["groundedness"].Sources; len(src) == 0 || !strings.Contains(src[0], want) {
		t.Errorf("profile sources %q", src)
	}
	if d := r.Decisions[0]; d.Decision != "groundedness" || d.N != 311 {
		t.Errorf("decision %+v", d)
	}
}

// Human labels joined by ID replace the teacher's, and the report gives the
// teacher's accuracy on them with its exact interval.
func TestCalibrateRecordsHumanLabelsOverride(t *testing.T) {
	// A teacher wrong on 30% of the rows.
	recs, truth := writeTeachRecords(t, beginDev, teachOpts{explore: 1, errRate: 0.3, seed: 5})
	dir := t.TempDir()
	prof, rep := filepath.Join(dir, "p.json"), filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", recs, "-dataset", beginDev, "-alpha", "0.10", "-out", prof, "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	rr := readCalReport(t, rep).Records
	if rr.HumanLabels != len(truth) || len(rr.TeacherAccuracy) != 1 {
		t.Fatalf("human labels %d of %d; accuracy %+v", rr.HumanLabels, len(truth), rr.TeacherAccuracy)
	}
	a := rr.TeacherAccuracy[0]
	if a.N != len(truth) || a.Accuracy < 0.6 || a.Accuracy > 0.8 || !(a.Lower < a.Accuracy && a.Accuracy < a.Upper) {
		t.Errorf("teacher accuracy %+v, want about 70%% with an interval around it", a)
	}
	if !strings.Contains(out, "teacher accuracy on human labels: groundedness") {
		t.Errorf("summary:\n%s", out)
	}
	// The fit is on the human labels: the same as calibrating the rows
	// themselves, which a 30%-wrong teacher's labels would not give.
	if rr.Teachers[simTeacher] != 0 {
		t.Errorf("teacher labels counted although every one was replaced: %v", rr.Teachers)
	}
	withTeacher := filepath.Join(dir, "t.json")
	runCmd(t, "calibrate", "-records", recs, "-alpha", "0.10", "-out", filepath.Join(dir, "p2.json"), "-report", withTeacher, "-allow-undecided")
	h, tt := readCalReport(t, rep).Decisions[0], readCalReport(t, withTeacher).Decisions[0]
	if h.Positives != countTrue(truth) || tt.Positives == h.Positives {
		t.Errorf("positives: with human labels %d (want %d), teacher only %d", h.Positives, countTrue(truth), tt.Positives)
	}
}

func countTrue(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// Escalated rows' fallback verdicts fit the models but never certify the
// thresholds: here they are all wrong in the direction that would buy
// coverage, and the thresholds must not follow them.
func TestCalibrateRecordsEscalatedRowsDoNotCertify(t *testing.T) {
	// Every odd row escalated, not drawn (audit draws skip escalated rows,
	// so only explore draws on even rows are uniform... use explore with
	// the escalated rows undrawn: inclusion 0 marks them).
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 0.5, errRate: 0, seed: 9,
		escalated:  func(i int) bool { return i%2 == 1 },
		escVerdict: func(int, bool) bool { return true }})
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", recs, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	t.Log(out)
	r := readCalReport(t, rep)
	rr, d := r.Records, r.Decisions[0]
	if rr.FallbackLabels == 0 || d.Certifying == 0 || d.Certifying != rr.TeacherLabels {
		t.Fatalf("fallback labels %d, certifying %d, teacher labels %d", rr.FallbackLabels, d.Certifying, rr.TeacherLabels)
	}
	// Escalated drawn rows are labelled by the teacher; undrawn escalated
	// rows by the fallback, fitted only.
	if d.N != rr.TeacherLabels+rr.FallbackLabels {
		t.Errorf("n %d, want %d + %d", d.N, rr.TeacherLabels, rr.FallbackLabels)
	}
	// The regions are counted on the uniform draws only.
	if got := d.AutoPass.Count + d.AutoFail.Count; got > d.Certifying {
		t.Errorf("%d auto-decided examples in the selection, more than the %d that certify", got, d.Certifying)
	}
	if d.HeldOut.N != d.Certifying {
		t.Errorf("held-out check on %d examples, want the %d uniform draws", d.HeldOut.N, d.Certifying)
	}
}

// A teacher estimate read from the primary judge is never a label, even
// with a verdict filled in.
func TestCalibrateRecordsFromPrimaryIsNoLabel(t *testing.T) {
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, primary: true, seed: 1})
	st, _, e := runCmd(t, "calibrate", "-records", recs, "-out", filepath.Join(t.TempDir(), "p.json"))
	if st != 1 || !strings.Contains(e, "no labels") || !strings.Contains(e, "1866 estimates read from the primary judge (never labels)") {
		t.Errorf("exit %d:\n%s", st, e)
	}
}

// Each bad input says what is wrong and exits 1.
func TestCalibrateRecordsBadInput(t *testing.T) {
	cases := []struct {
		name string
		o    teachOpts
		want string
	}{
		{"no features", teachOpts{explore: 1, noFeatures: true}, `none of the 311 records carries "features" (the first at records.jsonl:1)`},
		{"other version", teachOpts{explore: 1, version: "lexical-features/1"}, `records hold features of another version: "lexical-features/1" (311 records), the first at records.jsonl:1; this calibrate fits features "` + lexical.FeaturesVersion + `"`},
		{"no draws", teachOpts{escalated: func(int) bool { return true }}, "no uniform draws: none of the 311 records has a \"draw\""},
		{"audit only", teachOpts{explore: 0.5, audit: true, escalated: func(i int) bool { return i%3 == 0 }}, "could not have been drawn (inclusion 0"},
		{"abstains", teachOpts{explore: 1, abstain: true}, "no labels: the records give nothing to calibrate on. The teacher gave, instead of verdicts: 1866 teacher abstentions"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recs, _ := writeTeachRecords(t, beginDev, c.o)
			out := filepath.Join(t.TempDir(), "p.json")
			st, so, e := runCmd(t, "calibrate", "-records", recs, "-out", out)
			if st != 1 || !strings.Contains(e, c.want) {
				t.Errorf("exit %d; want 1 and %q:\n%s", st, c.want, e)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a profile was written:\n%s", so)
			}
		})
	}
}

// Mixed record versions: a version 1 line and a malformed one are refused
// by line number; the valid lines are read.
func TestCalibrateRecordsMixedVersionsLineByLine(t *testing.T) {
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, errRate: 0.05, seed: 3})
	b, _ := os.ReadFile(recs)
	lines := strings.SplitAfter(string(b), "\n")
	v1 := strings.Replace(lines[1], record.Version, "ragtriage.record/1", 1)
	v9 := strings.Replace(lines[2], record.Version, "ragtriage.record/9", 1)
	short := strings.Replace(lines[3], `"x":[`, `"x":[0.5,`, 1) // one number too many
	dup := lines[4]
	mixed := lines[0] + v1 + v9 + "{not json\n" + short + dup + strings.Join(lines[4:], "")
	os.WriteFile(recs, []byte(mixed), 0o644)
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, _, e := runCmd(t, "calibrate", "-records", recs, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	for _, w := range []string{`records.jsonl:2: skipped: recordVersion: "ragtriage.record/1"`, `records.jsonl:3: skipped: recordVersion: "ragtriage.record/9", this reader knows`, "records.jsonl:4: skipped: malformed record", "records.jsonl:5: skipped: result.features.vectors[0] (chunk_relevance): ", "records.jsonl:7: skipped: id"} {
		if !strings.Contains(e, w) {
			t.Errorf("stderr lacks %q:\n%s", w, e)
		}
	}
	rr := readCalReport(t, rep).Records
	if rr.BadLines != 5 || rr.Records != 308 || rr.TeacherLabels != 308 {
		t.Errorf("bad %d, records %d, labels %d", rr.BadLines, rr.Records, rr.TeacherLabels)
	}
}

// Unequal inclusion probabilities are thinned to the smallest, so the rows
// that certify are one uniform sample.
func TestCalibrateRecordsThinsToOneInclusion(t *testing.T) {
	a, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, seed: 3})
	bb, _ := writeTeachRecords(t, "../../data/dev/halueval.jsonl", teachOpts{explore: 0.5, seed: 4})
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, _, e := runCmd(t, "calibrate", "-records", a+","+bb, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	rr := readCalReport(t, rep).Records
	// About half of the 311 rows drawn at inclusion 1 stay.
	if rr.Inclusion != 0.5 || rr.Thinned < 120 || rr.Thinned > 190 || rr.UniformDraws != rr.Drawn-rr.Thinned {
		t.Errorf("inclusion %v, thinned %d, uniform %d of %d drawn", rr.Inclusion, rr.Thinned, rr.UniformDraws, rr.Drawn)
	}
	_ = fmt.Sprint
}

// NLI-style records (no question, one premise per few rows, no text in the
// records) calibrate without refusing: the chunk relevance vectors that
// every row shares do not group them.
func TestCalibrateRecordsNLINoRefusal(t *testing.T) {
	recs, _ := writeTeachRecords(t, "../../data/dev/nli_snli.jsonl", teachOpts{explore: 1, errRate: 0.05, seed: 2})
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", recs, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 || strings.Contains(e, "single class") {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	r := readCalReport(t, rep)
	if len(r.GroupingIgnored) == 0 || !strings.Contains(r.GroupingIgnored[0], "chunk relevance vectors") {
		t.Errorf("grouping ignored %q", r.GroupingIgnored)
	}
	if d := r.Decisions[0]; d.Groups < d.N/2 {
		t.Errorf("%d groups for %d rows", d.Groups, d.N)
	}
}

// The loop through the real commands: eval's explore draws, then
// calibrate -records. Escalated rows that were not drawn give fallback
// labels that fit only; a simulated teacher that reads the primary judge
// gives no label from it, on drawn and escalated rows alike.
func TestCalibrateRecordsFromEval(t *testing.T) {
	for _, unl := range []string{"abstain", "primary"} {
		dir := t.TempDir()
		R, rep := filepath.Join(dir, "R.jsonl"), filepath.Join(dir, "r.json")
		st, _, e := runCmd(t, "eval", "-dataset", beginDev, "-mode", "cascade", "-fallback", "simulated", "-sim-error-rate", "0.05",
			"-sim-unlabeled", unl, "-explore", "0.5", "-records-out", R, "-out", filepath.Join(dir, "shadow.json"))
		if st != 0 {
			t.Fatalf("eval: exit %d:\n%s", st, e)
		}
		st, out, e := runCmd(t, "calibrate", "-records", R, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
		if st != 0 {
			t.Fatalf("%s: calibrate: exit %d:\n%s\n%s", unl, st, out, e)
		}
		r := readCalReport(t, rep)
		rr, d := r.Records, r.Decisions[0]
		if d.Decision != "groundedness" || rr.UniformDraws == 0 || rr.UniformDraws != rr.Drawn {
			t.Fatalf("%s: %+v / %+v", unl, d, rr)
		}
		switch unl {
		case "abstain":
			if rr.FallbackLabels == 0 || d.Certifying != rr.UniformDraws || d.N <= d.Certifying || d.HeldOut.N != d.Certifying {
				t.Errorf("abstain: fallback labels %d, n %d, certifying %d, uniform draws %d, held-out n %d",
					rr.FallbackLabels, d.N, d.Certifying, rr.UniformDraws, d.HeldOut.N)
			}
		case "primary":
			if rr.FromPrimary == 0 || rr.FallbackDistrust == 0 || rr.FallbackLabels != 0 || d.N != rr.UniformDraws {
				t.Errorf("primary: from primary %d, escalations set aside %d, fallback labels %d, n %d", rr.FromPrimary, rr.FallbackDistrust, rr.FallbackLabels, d.N)
			}
		}
	}
}

// A teacher labels every decision it is asked; with the default decisions
// one it labels with a single class keeps the base profile's model, with a
// note, instead of refusing the run. Named in -decisions, it is refused.
func TestCalibrateRecordsLeavesOutUnfitDecisions(t *testing.T) {
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, errRate: 0.05, seed: 3, noContradiction: true})
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", recs, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 || !strings.Contains(e, "note: not refitting contradiction: all 311 labels are false") {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	if r := readCalReport(t, rep); len(r.Decisions) != 1 || !slices.Contains(r.Kept, "contradiction") {
		t.Errorf("decisions %d, kept %v", len(r.Decisions), r.Kept)
	}
	st, _, e = runCmd(t, "calibrate", "-records", recs, "-decisions", "groundedness,contradiction", "-out", filepath.Join(dir, "p2.json"))
	if st != 1 || !strings.Contains(e, "refusing: contradiction: all 311 labels are false") {
		t.Errorf("named: exit %d:\n%s", st, e)
	}
}

// The label counts add up to the labels fitted: a human label that
// replaces a teacher verdict is counted once, as a human label, and the
// replaced verdicts are counted apart.
func TestCalibrateRecordsLabelCountsAddUp(t *testing.T) {
	recs, truth := writeTeachRecords(t, beginDev, teachOpts{explore: 1, errRate: 0.1, seed: 9})
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", recs, "-dataset", beginDev, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	r := readCalReport(t, rep)
	rr := r.Records
	fitted := 0
	for _, d := range r.Decisions {
		fitted += d.N
	}
	if got := rr.TeacherLabels + rr.FallbackLabels + rr.HumanLabels; got != fitted {
		t.Errorf("labels: teacher %d + fallback %d + human %d = %d; %d fitted", rr.TeacherLabels, rr.FallbackLabels, rr.HumanLabels, got, fitted)
	}
	if rr.HumanLabels != len(truth) || rr.Replaced != len(truth) || rr.TeacherLabels != 0 {
		t.Errorf("human %d (want %d), replaced %d (want %d), teacher %d (want 0)", rr.HumanLabels, len(truth), rr.Replaced, len(truth), rr.TeacherLabels)
	}
}

// A teacher that abstains everywhere, recorded as guard.Teach records it:
// its own abstentions are no Teacher.Cause, and a decision it gave no
// estimate for is absent from its estimates. Every one is an abstention,
// never an "uncertain verdict".
func TestCalibrateRecordsAbstainingTeacherAsTeachRecordsIt(t *testing.T) {
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, abstain: true})
	rewriteTeachers(t, recs, func(tc *guard.Teacher) {
		tc.Cause = "" // as guard.Teach writes a teacher's own abstentions
	})
	out := filepath.Join(t.TempDir(), "p.json")
	st, _, e := runCmd(t, "calibrate", "-records", recs, "-out", out)
	want := "no labels: the records give nothing to calibrate on. The teacher gave, instead of verdicts: 1866 teacher abstentions"
	if st != 1 || !strings.Contains(e, want) || strings.Contains(e, "uncertain") {
		t.Errorf("exit %d; want 1 and %q:\n%s", st, want, e)
	}
}

// A teacher that failed on every draw (a misconfigured LLM judge: cause
// fallback_failed, no estimates, as guard.Teach records it) is counted as
// failed, not as a teacher that abstained.
func TestCalibrateRecordsFailingTeacher(t *testing.T) {
	recs, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, abstain: true})
	rewriteTeachers(t, recs, func(tc *guard.Teacher) {
		tc.Cause, tc.Reason, tc.Estimates = guard.CauseFallbackFailed, "fallback failed: 401", nil
	})
	out := filepath.Join(t.TempDir(), "p.json")
	st, _, e := runCmd(t, "calibrate", "-records", recs, "-out", out)
	want := "The teacher gave, instead of verdicts: 1866 teacher estimates refused or failed"
	if st != 1 || !strings.Contains(e, want) || strings.Contains(e, "abstentions") {
		t.Errorf("exit %d; want 1 and %q:\n%s", st, want, e)
	}
}

// rewriteTeachers applies f to the teacher of every record in the file.
func rewriteTeachers(t *testing.T, recs string, f func(*guard.Teacher)) {
	t.Helper()
	data, err := os.ReadFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r record.Record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if tc := r.Result.Teacher; tc != nil {
			f(tc)
		}
		out, err := record.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(out)
	}
	if err := os.WriteFile(recs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRecordsSelectionSettings: -records runs one sequence per side from
// the predicted start with the sides kept apart at ½; -dataset keeps the
// fractional starts of internal/refit and neither setting, so its profiles
// (and their versions) are what they were.
func TestRecordsSelectionSettings(t *testing.T) {
	rec := (&calibrateFlags{records: []string{"r.jsonl"}, alpha: 0.1, confidence: 0.95, folds: 5}).settings()
	if !rec.PredictedStart || !rec.SidesOfHalf || len(rec.Starts) != 0 {
		t.Errorf("-records settings %+v; want the predicted start alone, sides of ½", rec)
	}
	ds := (&calibrateFlags{datasets: []string{"d.jsonl"}, alpha: 0.1, confidence: 0.95, folds: 5}).settings()
	if ds.PredictedStart || ds.SidesOfHalf || !slices.Equal(ds.Starts, []float64{0, 0.03, 0.1, 0.3}) {
		t.Errorf("-dataset settings %+v; want the fractional starts 0, 0.03, 0.1, 0.3 and nothing else", ds)
	}
}

// A shadow (explore) file beside an enforce (audit-only) file: the audit
// file's draws are not a uniform sample, so its rows fit the models only
// and the explore file's draws certify (it used to refuse the whole run).
func TestCalibrateRecordsAuditFileBesideExploreFile(t *testing.T) {
	explore, _ := writeTeachRecords(t, beginDev, teachOpts{explore: 1, seed: 3})
	audit, _ := writeTeachRecords(t, "../../data/dev/wice_groundedness.jsonl", teachOpts{explore: 0.5, audit: true, escalated: func(i int) bool { return i%3 == 0 }, seed: 4})
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	st, out, e := runCmd(t, "calibrate", "-records", explore+","+audit, "-alpha", "0.10", "-out", filepath.Join(dir, "p.json"), "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s\n%s", st, out, e)
	}
	rr := readCalReport(t, rep).Records
	if rr.NotUniform != "" || len(rr.FitOnlyFiles) != 1 || !strings.Contains(rr.FitOnlyFiles[0], audit) {
		t.Errorf("notUniform %q, fit-only files %q; want the audit file only", rr.NotUniform, rr.FitOnlyFiles)
	}
	if rr.UniformDraws != 311 || rr.Inclusion != 1 {
		t.Errorf("%d uniform draws at inclusion %v; want the explore file's 311 at 1", rr.UniformDraws, rr.Inclusion)
	}
	if !strings.Contains(out, "never certify") {
		t.Errorf("the summary does not name the fit-only file:\n%s", out)
	}
}
