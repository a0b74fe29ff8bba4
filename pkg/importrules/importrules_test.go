package importrules

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/openshift/cluster-workload-access-operator"

// graph maps a module package (its path below the module root, e.g.
// "pkg/operator/subscription/bundles") to everything its files import.
type graph map[string][]string

// readGraph parses the imports of every Go file under root/cmd and root/pkg.
func readGraph(t *testing.T, root string) graph {
	t.Helper()
	g := graph{}
	fset := token.NewFileSet()
	for _, top := range []string{"cmd", "pkg"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			file, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			dir, _ := filepath.Rel(root, filepath.Dir(path))
			dir = filepath.ToSlash(dir)
			g[dir] = append(g[dir], []string{}...)
			for _, imp := range file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				g[dir] = append(g[dir], p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// reach is every import pkg makes, directly or through module packages.
func (g graph) reach(pkg string) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		for _, imp := range g[p] {
			if seen[imp] {
				continue
			}
			seen[imp] = true
			if local, ok := strings.CutPrefix(imp, module+"/"); ok {
				visit(local)
			}
		}
	}
	visit(pkg)
	return seen
}

// areaOf is the area of pkg/operator a package lies in ("subscription",
// "frame", ...), or "" for the starter and anything outside pkg/operator.
func areaOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "pkg/operator/")
	if !ok {
		return ""
	}
	area, _, _ := strings.Cut(rest, "/")
	return area
}

func isCapability(area string) bool {
	_, ok := Capabilities[area]
	return ok
}

// controllerOf is the controller a package belongs to ("rbac/scopes"), or
// "" for the starter, an area's root, shared packages and anything outside
// pkg/operator.
func controllerOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "pkg/operator/")
	if !ok {
		return ""
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 {
		return ""
	}
	name := parts[0] + "/" + parts[1]
	if _, shared := Shared[name]; shared {
		return ""
	}
	return name
}

func isMutator(pkg string) bool {
	return strings.HasPrefix(pkg, "pkg/webhook/") && !slices.Contains(ServerPackages, pkg)
}

func isClientImport(imp string) bool {
	for _, c := range ClientImports {
		if imp == c || strings.HasPrefix(imp, c+"/") {
			return true
		}
	}
	return false
}

// violations lists every broken rule of g, one line each.
func (g graph) violations() []string {
	var out []string
	for pkg := range g {
		area := areaOf(pkg)
		if area != "" && area != Frame && !isCapability(area) {
			out = append(out, pkg+" lies in no area of pkg/operator")
		}
		self := controllerOf(pkg)
		for imp := range g.reach(pkg) {
			local, internal := strings.CutPrefix(imp, module+"/")
			if !internal {
				if isMutator(pkg) && isClientImport(imp) {
					out = append(out, pkg+" (mutator) imports client "+imp)
				}
				continue
			}
			other := areaOf(local)
			switch {
			case strings.HasPrefix(pkg, "pkg/webhook") && strings.HasPrefix(local, "pkg/operator"):
				out = append(out, pkg+" (webhook) imports "+local)
			case area == Frame && isCapability(other):
				out = append(out, pkg+" (frame) imports capability "+local)
			case isCapability(area) && isCapability(other) && other != area && local != "pkg/operator/"+other:
				out = append(out, pkg+" imports "+local+", below the "+other+" contract")
			case area != "" && controllerOf(local) != "" && controllerOf(local) != self:
				out = append(out, pkg+" imports controller "+local)
			case isMutator(pkg) && isClientImport(imp):
				out = append(out, pkg+" (mutator) imports client "+imp)
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestTheModuleKeepsItsImportRules(t *testing.T) {
	g := readGraph(t, filepath.Join("..", ".."))
	if _, ok := g["pkg/operator/subscription/bundles"]; !ok {
		t.Fatalf("read %d packages, none of them pkg/operator/subscription/bundles: wrong root?", len(g))
	}
	for _, v := range g.violations() {
		t.Error(v)
	}
}

// Each rule catches what it is for, including through a package in between.
func TestViolationsFindsEachBrokenRule(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	g := graph{
		// The starter may import anything.
		"pkg/operator": {m("pkg/operator/subscription/bundles"), m("pkg/operator/rbac/scopes")},
		// A controller through a helper of its own area reaches another controller.
		"pkg/operator/subscription/bundles":            {m("pkg/operator/frame/reconcileloop"), m("pkg/operator/subscription/helper")},
		"pkg/operator/subscription/helper":             {m("pkg/operator/subscription/clusterbundles")},
		"pkg/operator/subscription/clusterbundles":     {m("pkg/operator/subscription/clusterbundles/sub")},
		"pkg/operator/subscription/clusterbundles/sub": nil,
		// The frame reaches into a capability.
		"pkg/operator/frame/reconcileloop":         {m("pkg/operator/subscription/referencewatch")},
		"pkg/operator/subscription/referencewatch": nil,
		// A capability through another's contract is fine; below it is not.
		"pkg/operator/admission/webhookdeployment": {m("pkg/operator/podidentity")},
		"pkg/operator/podidentity":                 nil,
		"pkg/operator/admission/webhookcabundle":   {m("pkg/operator/podidentity/issuer")},
		"pkg/operator/podidentity/issuer":          nil,
		// A folder outside every area.
		"pkg/operator/misc": nil,
		// The webhook reaches the operator and a client.
		"pkg/webhook":                       {"k8s.io/client-go/kubernetes"},
		"pkg/webhook/subscription":          {m("pkg/webhook/subscription/util"), "k8s.io/client-go/listers/core/v1"},
		"pkg/webhook/subscription/util":     {m("pkg/operator/frame/operatorclient"), "k8s.io/client-go/kubernetes/typed/authorization/v1"},
		"pkg/operator/frame/operatorclient": nil,
	}
	want := []string{
		"pkg/operator/admission/webhookcabundle imports pkg/operator/podidentity/issuer, below the podidentity contract",
		"pkg/operator/frame/reconcileloop (frame) imports capability pkg/operator/subscription/referencewatch",
		"pkg/operator/misc lies in no area of pkg/operator",
		"pkg/operator/subscription/bundles imports controller pkg/operator/subscription/clusterbundles",
		"pkg/operator/subscription/bundles imports controller pkg/operator/subscription/clusterbundles/sub",
		"pkg/operator/subscription/bundles imports controller pkg/operator/subscription/helper",
		"pkg/operator/subscription/helper imports controller pkg/operator/subscription/clusterbundles",
		"pkg/operator/subscription/helper imports controller pkg/operator/subscription/clusterbundles/sub",
		"pkg/webhook/subscription (mutator) imports client k8s.io/client-go/kubernetes/typed/authorization/v1",
		"pkg/webhook/subscription (webhook) imports pkg/operator/frame/operatorclient",
		"pkg/webhook/subscription/util (mutator) imports client k8s.io/client-go/kubernetes/typed/authorization/v1",
		"pkg/webhook/subscription/util (webhook) imports pkg/operator/frame/operatorclient",
	}
	if got := g.violations(); !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
