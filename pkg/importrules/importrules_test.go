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
// "pkg/operator/bundles") to everything its files import.
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

// controllerOf is the controller a package belongs to, or "" for the
// starter, shared packages and anything outside pkg/operator.
func controllerOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "pkg/operator/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
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
		self := controllerOf(pkg)
		isShared := strings.HasPrefix(pkg, "pkg/operator/") && self == ""
		for imp := range g.reach(pkg) {
			local, internal := strings.CutPrefix(imp, module+"/")
			switch {
			case internal && controllerOf(local) != "" && controllerOf(local) != self && (self != "" || isShared):
				out = append(out, pkg+" imports controller "+local)
			case internal && strings.HasPrefix(pkg, "pkg/webhook") && strings.HasPrefix(local, "pkg/operator"):
				out = append(out, pkg+" (webhook) imports "+local)
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
	if _, ok := g["pkg/operator/bundles"]; !ok {
		t.Fatalf("read %d packages, none of them pkg/operator/bundles: wrong root?", len(g))
	}
	for _, v := range g.violations() {
		t.Error(v)
	}
}

// Each rule catches what it is for, including through a package in between.
func TestViolationsFindsEachBrokenRule(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	g := graph{
		"pkg/operator":                    {m("pkg/operator/bundles"), m("pkg/operator/clusterbundles")},
		"pkg/operator/bundles":            {m("pkg/operator/bundlereconcile"), m("pkg/operator/helper")},
		"pkg/operator/helper":             {m("pkg/operator/clusterbundles")},
		"pkg/operator/clusterbundles":     {m("pkg/operator/clusterbundles/sub")},
		"pkg/operator/clusterbundles/sub": nil,
		"pkg/operator/bundlereconcile":    {m("pkg/operator/webhookcerts")},
		"pkg/operator/webhookcerts":       nil,
		"pkg/webhook":                     {"k8s.io/client-go/kubernetes"},
		"pkg/webhook/subscription":        {m("pkg/webhook/subscription/util"), "k8s.io/client-go/listers/core/v1"},
		"pkg/webhook/subscription/util":   {m("pkg/operator/operatorclient"), "k8s.io/client-go/kubernetes/typed/authorization/v1"},
		"pkg/operator/operatorclient":     nil,
	}
	want := []string{
		"pkg/operator/bundlereconcile imports controller pkg/operator/webhookcerts",
		"pkg/operator/bundles imports controller pkg/operator/clusterbundles",
		"pkg/operator/bundles imports controller pkg/operator/clusterbundles/sub",
		"pkg/operator/bundles imports controller pkg/operator/helper",
		"pkg/operator/bundles imports controller pkg/operator/webhookcerts",
		"pkg/operator/helper imports controller pkg/operator/clusterbundles",
		"pkg/operator/helper imports controller pkg/operator/clusterbundles/sub",
		"pkg/webhook/subscription (mutator) imports client k8s.io/client-go/kubernetes/typed/authorization/v1",
		"pkg/webhook/subscription (webhook) imports pkg/operator/operatorclient",
		"pkg/webhook/subscription/util (mutator) imports client k8s.io/client-go/kubernetes/typed/authorization/v1",
		"pkg/webhook/subscription/util (webhook) imports pkg/operator/operatorclient",
	}
	if got := g.violations(); !slices.Equal(got, want) {
		t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
