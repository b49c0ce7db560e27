package ragtriage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// The import graph of DESIGN §2, checked with `go list -deps`: for each
// library package, the module's own packages and the third-party modules it
// may import directly, and what it must not reach even indirectly.
// Commands, examples and internal packages may import anything.

const module = "github.com/ragtriage/ragtriage"

type importRule struct {
	// own lists the module's packages (relative paths, "" for the root; a
	// trailing "/..." takes the subtree) the package may import directly.
	own []string
	// ext lists the third-party packages it may import directly (a
	// trailing "/..." takes the subtree).
	ext []string
	// never lists import path prefixes that must not be among its
	// dependencies, direct or not.
	never []string
}

var (
	langchaingo = "github.com/tmc/langchaingo"
	evalkit     = module + "/evalkit"
	// otelAPI is OpenTelemetry's API (not its SDK).
	otelAPI = []string{"go.opentelemetry.io/otel", "go.opentelemetry.io/otel/attribute", "go.opentelemetry.io/otel/metric", "go.opentelemetry.io/otel/metric/..."}
)

// importRules maps a package (relative path) to its rule. A library package
// without a rule fails the test: a new package states where it belongs. A
// rule for a package that does not exist (yet) is not an error.
var importRules = map[string]importRule{
	"guard":                              {never: []string{langchaingo, evalkit}},
	"guard/guardtest":                    {own: []string{"guard"}},
	"guard/lexical":                      {own: []string{"guard", "calibrate", "guard/lexical/internal/..."}},
	"guard/lexical/internal/...":         {own: []string{"guard/lexical/internal/..."}},
	"guard/lexical/fit":                  {own: []string{"guard", "guard/lexical", "calibrate"}, never: []string{langchaingo, evalkit}},
	"guard/llmjudge":                     {own: []string{"guard"}, ext: []string{langchaingo + "/...", "golang.org/x/sync/..."}, never: []string{evalkit}},
	"calibrate":                          {},
	"record":                             {own: []string{"guard"}},
	"otelkeys":                           {},
	"cascade":                            {own: []string{"guard"}, ext: append([]string{"github.com/sony/gobreaker/v2", "github.com/hashicorp/golang-lru/v2"}, otelAPI...), never: []string{langchaingo, evalkit, "github.com/redis/"}},
	"cascade/redisstore":                 {own: []string{"cascade", "guard"}, ext: []string{"github.com/redis/go-redis/v9", "github.com/redis/go-redis/v9/..."}, never: []string{langchaingo, evalkit}},
	"":                                   {own: []string{"guard", "guard/lexical", "cascade"}, never: []string{langchaingo, evalkit}},
	"middleware":                         {own: []string{"guard", "record", "otelkeys"}, ext: append([]string{langchaingo + "/...", "go.opentelemetry.io/otel/codes", "go.opentelemetry.io/otel/trace", "go.opentelemetry.io/otel/trace/..."}, otelAPI...), never: []string{evalkit, module + "/cascade"}},
	"evalkit":                            {own: []string{"guard", "cascade", "calibrate", "record", "evalkit/..."}, never: []string{langchaingo}},
	"evalkit/...":                        {own: []string{"guard", "cascade", "calibrate", "record", "otelkeys", "evalkit/..."}, never: []string{langchaingo}},
	"guard/lexical/internal/wordnet/gen": {}, // the table's generator: a command
}

type listed struct {
	ImportPath string
	Name       string
	Imports    []string
	Deps       []string
}

// TestImportGraph runs under -short too: it is one `go list` call, which
// lists only the fields it reads (well under a second).
func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Name,Imports,Deps", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	n := 0
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if p.Name == "main" || strings.HasPrefix(rel, "cmd/") || strings.HasPrefix(rel, "examples/") || strings.HasPrefix(rel, "internal/") {
			continue
		}
		rule, ok := ruleFor(rel)
		if !ok {
			t.Errorf("%s: no rule in importRules (DESIGN §2): say what it may import", p.ImportPath)
			continue
		}
		n++
		for _, imp := range p.Imports {
			if !allowed(rule, imp) {
				t.Errorf("%s imports %s, which DESIGN §2 does not allow it", p.ImportPath, imp)
			}
		}
		for _, dep := range p.Deps {
			for _, bad := range rule.never {
				if dep == bad || strings.HasPrefix(dep, strings.TrimSuffix(bad, "/")+"/") {
					t.Errorf("%s depends on %s (through its imports), which DESIGN §2 forbids", p.ImportPath, dep)
				}
			}
		}
	}
	if n < 15 {
		t.Errorf("checked %d packages; the module has more", n)
	}
}

// ruleFor finds the rule of a package: its own, else the nearest "/..."
// rule above it.
func ruleFor(rel string) (importRule, bool) {
	if r, ok := importRules[rel]; ok {
		return r, true
	}
	for dir := rel; dir != ""; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			break
		}
		dir = dir[:i]
		if r, ok := importRules[dir+"/..."]; ok {
			return r, true
		}
	}
	return importRule{}, false
}

func allowed(rule importRule, imp string) bool {
	if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
		return true // the standard library
	}
	if rel, ok := strings.CutPrefix(imp, module); ok {
		rel = strings.TrimPrefix(rel, "/")
		for _, o := range rule.own {
			if sub, ok := strings.CutSuffix(o, "/..."); ok {
				if rel == sub || strings.HasPrefix(rel, sub+"/") {
					return true
				}
			} else if rel == o {
				return true
			}
		}
		return false
	}
	for _, e := range rule.ext {
		if sub, ok := strings.CutSuffix(e, "/..."); ok {
			if imp == sub || strings.HasPrefix(imp, sub+"/") {
				return true
			}
		} else if imp == e {
			return true
		}
	}
	return false
}
