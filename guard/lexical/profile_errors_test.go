package lexical

import (
	"strings"
	"testing"
)

// TestParseProfileSaysWhatTheFileIs: a file that is not a profile is named
// for what it is (an eval report, a calibration report, records, dataset
// rows), not with the JSON decoder's words.
func TestParseProfileSaysWhatTheFileIs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"schema":"ragtriage.report/1","mode":"primary","decisions":{"retrieval":[],"generation":[]}}`, "this file is an eval report, not a profile"},
		{`{"profile":"calibrated-x","alpha":0.05,"decisions":[],"passRule":"all"}`, "this file is a calibration report (ragtriage calibrate -report), not a profile"},
		{`{"recordVersion":"ragtriage.record/2","id":"a","result":{}}` + "\n" + `{"recordVersion":"ragtriage.record/2","id":"b"}`, "this file holds records, not a profile"},
		{`{"question":"q","contexts":[],"answer":"a"}`, "this file holds dataset rows, not a profile"},
	} {
		_, err := ParseProfile([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "cannot unmarshal") {
			t.Errorf("ParseProfile(%.40q) = %v; want %q", tc.in, err, tc.want)
		}
	}
	// A broken profile keeps the decoder's reason.
	if _, err := ParseProfile([]byte(`{"version":`)); err == nil || !strings.Contains(err.Error(), "lexical: profile: ") {
		t.Errorf("ParseProfile(broken) = %v", err)
	}
}
