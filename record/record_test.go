package record_test

import (
	"encoding/json"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// Marshal writes the current version when the record has none, and the
// line reads back with the answer-speaking verdicts as written.
func TestMarshalVersion(t *testing.T) {
	r := record.Record{ID: "a"}
	r.Result.Set(guard.ContextConflict, guard.KnownProb(0.05), guard.Pass)
	b, err := record.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if b[len(b)-1] != '\n' {
		t.Errorf("Marshal = %q; want a trailing newline", b)
	}
	var got record.Record
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Version != record.Version {
		t.Errorf("version %q; want %q", got.Version, record.Version)
	}
	if v, _ := got.Result.Verdict(guard.ContextConflict); v != guard.Pass {
		t.Errorf("context_conflict verdict %v; want pass, as written", v)
	}
}
