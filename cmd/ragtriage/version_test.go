package main

import (
	"bytes"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard/lexical"
)

// TestVersion: "version", "-version" and "--version" print the module
// version ("(devel)" in the repository), the embedded profile's and the
// features' versions and the Go version.
func TestVersion(t *testing.T) {
	want := []string{
		"ragtriage (devel)\n",
		"profile:  " + lexical.DefaultProfile().Version + "\n",
		"features: " + lexical.FeaturesVersion + "\n",
		"go:       " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
	}
	for _, args := range [][]string{{"version"}, {"-version"}, {"--version"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, nil, &stdout, &stderr); code != 0 {
			t.Errorf("run(%q) = %d; stderr:\n%s", args, code, stderr.String())
		}
		for _, w := range want {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("run(%q) output\n%s\nlacks %q", args, stdout.String(), w)
			}
		}
		if !strings.HasPrefix(stdout.String(), "ragtriage ") {
			t.Errorf("run(%q) output does not start with the version:\n%s", args, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"version", "extra"}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unexpected argument "extra"`) {
		t.Errorf("version extra: exit %d, stderr %q; want 2 and the argument named", code, stderr.String())
	}
	stdout.Reset()
	run([]string{"help"}, nil, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "\tversion ") || !strings.Contains(stdout.String(), "--version") {
		t.Errorf("help does not list version:\n%s", stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"help", "version"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "Usage: ragtriage version") {
		t.Errorf("help version: exit %d, output %q", code, stdout.String())
	}
}

// TestVersionBuildInfo: a released build prints its module version and the
// VCS revision, time and modified flag when the build info has them; no
// build info at all still prints the embedded versions.
func TestVersionBuildInfo(t *testing.T) {
	old := readBuildInfo
	t.Cleanup(func() { readBuildInfo = old })
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want []string
		not  []string
	}{
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/ragtriage/ragtriage", Version: "v1.2.3"}}, true,
			[]string{"ragtriage v1.2.3\n", "module:   github.com/ragtriage/ragtriage v1.2.3\n"}, []string{"revision"}},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/ragtriage/ragtriage", Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-29T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}, true,
			[]string{"ragtriage (devel)\n", "revision: 0123456789abcdef0123456789abcdef01234567 (2026-11-29T10:00:00Z, modified)\n"}, nil},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/ragtriage/ragtriage"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}}, true,
			[]string{"ragtriage (devel)\n", "revision: abc\n"}, []string{"modified"}},
		{nil, false, []string{"ragtriage (unknown)\n", "module:   github.com/ragtriage/ragtriage (unknown)\n", "features: " + lexical.FeaturesVersion + "\n"}, []string{"revision"}},
	} {
		readBuildInfo = func() (*debug.BuildInfo, bool) { return tc.bi, tc.ok }
		var stdout, stderr bytes.Buffer
		if code := run([]string{"version"}, nil, &stdout, &stderr); code != 0 {
			t.Errorf("exit status %d", code)
		}
		out := stdout.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("build info %s: output\n%s\nlacks %q", fmt.Sprint(tc.bi), out, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out, w) {
				t.Errorf("build info %s: output\n%s\nhas %q", fmt.Sprint(tc.bi), out, w)
			}
		}
	}
}
