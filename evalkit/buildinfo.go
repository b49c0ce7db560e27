package evalkit

import (
	"runtime"
	"runtime/debug"
	"sort"
)

// buildModules returns the Go version and the main module and dependency
// versions the binary was built with (path@version), from the build info.
func buildModules() (string, []string) {
	out := []string{}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return runtime.Version(), out
	}
	if bi.Main.Path != "" {
		out = append(out, bi.Main.Path+"@"+bi.Main.Version)
	}
	var deps []string
	for _, d := range bi.Deps {
		v := d.Version
		if d.Replace != nil {
			v += " => " + d.Replace.Path + "@" + d.Replace.Version
		}
		deps = append(deps, d.Path+"@"+v)
	}
	sort.Strings(deps)
	return bi.GoVersion, append(out, deps...)
}
