package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
)

// The cascade flags share cascade.Config's convention: 0 is the default,
// -1 the named value beside it; the command's defaults are unchanged (no
// bound on waiting calls, a cache of 4096).
func TestCascadeFlagsConvention(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args                  []string
		wantWaiting, wantSize int // as the report records them
		wantMd                string
	}{
		{nil, 0, cascade.DefaultCacheSize, "no bound on calls waiting for a slot"},
		{[]string{"-fallback-waiting", "-1", "-fallback-cache", "0"}, 0, cascade.DefaultCacheSize, "cache of 4096 estimates"},
		{[]string{"-fallback-waiting", "0", "-fallback-cache", "-1"}, -1, 0, "no call waits for a slot"},
		{[]string{"-fallback-waiting", "3", "-fallback-cache", "10"}, 3, 10, "at most 3 waiting for a slot"},
	} {
		out, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.md")
		args := append([]string{"eval", "-dataset", fixtureFile, "-mode", "cascade", "-workers", "1", "-out", out, "-md", md}, tc.args...)
		if st, _, e := runCmd(t, args...); st != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, st, e)
		}
		s := readReportFile(t, out).Cascade.Settings
		if s == nil || s.MaxWaiting != tc.wantWaiting || s.CacheSize != tc.wantSize {
			t.Errorf("%v: settings %+v; want maxWaiting %d, cacheSize %d", tc.args, s, tc.wantWaiting, tc.wantSize)
		}
		text, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), tc.wantMd) {
			t.Errorf("%v: Markdown lacks %q", tc.args, tc.wantMd)
		}
	}
}
