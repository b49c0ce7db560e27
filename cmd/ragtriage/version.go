package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/ragtriage/ragtriage/guard/lexical"
)

var versionCommand = &command{
	name:    "version",
	summary: "print the versions of ragtriage, its embedded profile and Go",
	usage:   versionUsage,
	run:     runVersion,
}

const versionUsage = `Usage: ragtriage version   (or ragtriage -version, ragtriage --version)

Version prints what a result depends on besides its input:

  ragtriage VERSION    the module version; "(devel)" when built in the repository
  module:   PATH VERSION
  profile:  the embedded calibration profile's version (judge -profile FILE
            replaces the profile; its version is in every result)
  features: the lexical feature definitions' version
  go:       the Go version and platform it was built with
  revision: the VCS revision, its time, and "modified" when the working tree
            had uncommitted changes (only when the build recorded them)
`

// modulePath is the module's path, for builds without build information.
const modulePath = "github.com/ragtriage/ragtriage"

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("version")
	if err := fs.Parse(args); err != nil {
		return flagError(fs, versionUsage, err, stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ragtriage version: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	path, version, revision := modulePath, "(unknown)", ""
	if bi, ok := readBuildInfo(); ok && bi != nil {
		version = bi.Main.Version
		if version == "" {
			version = "(devel)" // go run, go test
		}
		if bi.Main.Path != "" {
			path = bi.Main.Path
		}
		revision = vcsRevision(bi.Settings)
	}
	fmt.Fprintf(stdout, "ragtriage %s\n", version)
	fmt.Fprintf(stdout, "module:   %s %s\n", path, version)
	fmt.Fprintf(stdout, "profile:  %s\n", lexical.DefaultProfile().Version)
	fmt.Fprintf(stdout, "features: %s\n", lexical.FeaturesVersion)
	fmt.Fprintf(stdout, "go:       %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if revision != "" {
		fmt.Fprintf(stdout, "revision: %s\n", revision)
	}
	return 0
}

// vcsRevision describes the VCS revision the build recorded: "REV (TIME,
// modified)", or "" when there is none.
func vcsRevision(settings []debug.BuildSetting) string {
	var rev, when string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return ""
	}
	var notes []string
	if when != "" {
		notes = append(notes, when)
	}
	if modified {
		notes = append(notes, "modified")
	}
	if len(notes) > 0 {
		rev += " (" + strings.Join(notes, ", ") + ")"
	}
	return rev
}
