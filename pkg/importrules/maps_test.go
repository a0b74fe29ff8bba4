package importrules

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// operatorPackage is a package under pkg/operator/<area>/ as the maps see it.
type operatorPackage struct {
	area, name string // "admission", "webhookcabundle"
	// controllers are the values of its *ControllerName constants.
	controllers []string
}

func (p operatorPackage) path() string { return p.area + "/" + p.name }

// readOperatorPackages finds every package below an area of pkg/operator,
// with the controller names it declares.
func readOperatorPackages(t *testing.T, root string) []operatorPackage {
	t.Helper()
	var out []operatorPackage
	base := filepath.Join(root, "pkg", "operator")
	fset := token.NewFileSet()
	err := filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(base, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) < 2 {
			return nil // pkg/operator itself, or an area's root
		}
		p := operatorPackage{area: parts[0], name: strings.Join(parts[1:], "/")}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				return err
			}
			p.controllers = append(p.controllers, controllerNames(file)...)
		}
		if len(files) > 0 {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// controllerNames are the string values of a file's top-level constants
// named ControllerName or ending in ControllerName.
func controllerNames(file *ast.File) []string {
	var out []string
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasSuffix(name.Name, "ControllerName") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// mapProblems is what the maps get wrong about pkgs: each area's doc.go
// (areaDocs, by area) must list each of its packages as "//   - <name>:",
// and the architecture table (one row per package, "| `<area>/<name>` |
// <controllers> | ...") must name each package, each of its controllers in
// bold, and no package that does not exist. A controller's name, lower
// case, contains its package's name (without a plural s), so that a
// condition greps to its package.
func mapProblems(pkgs []operatorPackage, areaDocs map[string]string, architecture string) []string {
	var problems []string
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z]+(?:/[a-z]+)+)` \\|(.*)$").FindAllStringSubmatch(architecture, -1) {
		rows[m[1]] = m[2]
	}
	known := map[string]bool{}
	for _, p := range pkgs {
		known[p.path()] = true
		doc, ok := areaDocs[p.area]
		switch {
		case !ok:
			problems = append(problems, "pkg/operator/"+p.area+" has no doc.go listing its packages")
		case !strings.Contains(doc, "//   - "+p.name+":"):
			problems = append(problems, "pkg/operator/"+p.area+"/doc.go does not list "+p.name+` ("//   - `+p.name+`: ...")`)
		}
		row, ok := rows[p.path()]
		if !ok {
			problems = append(problems, "docs/architecture.md's package table has no row for `"+p.path()+"`")
		}
		for _, c := range p.controllers {
			if ok && !strings.Contains(row, "**"+c+"**") {
				problems = append(problems, "docs/architecture.md's row for `"+p.path()+"` does not name its controller **"+c+"**")
			}
			if !strings.Contains(strings.ToLower(c), strings.TrimSuffix(filepath.Base(p.name), "s")) {
				problems = append(problems, "controller "+c+" lives in pkg/operator/"+p.path()+", a package its name does not lead to: name one after the other")
			}
		}
	}
	for path := range rows {
		if !known[path] {
			problems = append(problems, "docs/architecture.md's package table names `"+path+"`, which does not exist")
		}
	}
	for area, doc := range areaDocs {
		for _, m := range regexp.MustCompile(`(?m)^//   - ([a-z]+):`).FindAllStringSubmatch(doc, -1) {
			if !known[area+"/"+m[1]] {
				problems = append(problems, "pkg/operator/"+area+"/doc.go lists "+m[1]+", which does not exist")
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// sharedListProblems finds where docs/architecture.md's list of the shared
// packages ("(shared: `a/b`, ...)") and importrules.Shared disagree.
func sharedListProblems(architecture string, shared map[string]string) []string {
	m := regexp.MustCompile(`\(shared: ([^)]*)\)`).FindStringSubmatch(architecture)
	if m == nil {
		return []string{"docs/architecture.md has no \"(shared: ...)\" list of the shared packages"}
	}
	listed := map[string]bool{}
	var problems []string
	for _, p := range regexp.MustCompile("`([a-z]+/[a-z]+)`").FindAllStringSubmatch(m[1], -1) {
		listed[p[1]] = true
		if _, ok := shared[p[1]]; !ok {
			problems = append(problems, "docs/architecture.md lists `"+p[1]+"` as shared; importrules.Shared does not")
		}
	}
	for p := range shared {
		if !listed[p] {
			problems = append(problems, "importrules.Shared has "+p+"; docs/architecture.md's shared list does not")
		}
	}
	slices.Sort(problems)
	return problems
}

// A newcomer finds a controller's package from its name and from the maps;
// the next package added without its line on them fails here.
func TestEveryPackageIsOnTheMaps(t *testing.T) {
	root := filepath.Join("..", "..")
	pkgs := readOperatorPackages(t, root)
	if len(pkgs) < 30 {
		t.Fatalf("found %d packages under pkg/operator: is the walk broken?", len(pkgs))
	}
	docs := map[string]string{}
	for _, p := range pkgs {
		if b, err := os.ReadFile(filepath.Join(root, "pkg", "operator", p.area, "doc.go")); err == nil {
			docs[p.area] = string(b)
		}
	}
	architecture, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range mapProblems(pkgs, docs, string(architecture)) {
		t.Error(problem)
	}
	for _, problem := range sharedListProblems(string(architecture), Shared) {
		t.Error(problem)
	}
}

// mapProblems finds each way a map goes stale.
func TestMapProblemsFindsEachStaleMap(t *testing.T) {
	docs := map[string]string{"admission": "//   - webhookcabundle: WebhookCABundle;\n"}
	table := "| `admission/webhookcabundle` | **WebhookCABundle** | the caBundle |\n"
	good := []operatorPackage{{area: "admission", name: "webhookcabundle", controllers: []string{"WebhookCABundle"}}}
	if got := mapProblems(good, docs, table); len(got) != 0 {
		t.Fatalf("a correct map: %v", got)
	}
	for _, tc := range []struct {
		name  string
		pkgs  []operatorPackage
		table string
		want  string
	}{
		{"a new package on neither map", append(slices.Clone(good), operatorPackage{area: "admission", name: "webhookextra"}), table,
			"doc.go does not list webhookextra"},
		{"a new package only in doc.go", append(slices.Clone(good), operatorPackage{area: "admission", name: "webhookextra"}), table,
			"no row for `admission/webhookextra`"},
		{"a package of an area without doc.go", append(slices.Clone(good), operatorPackage{area: "newarea", name: "thing"}), table,
			"pkg/operator/newarea has no doc.go"},
		{"a controller the table does not name", []operatorPackage{{area: "admission", name: "webhookcabundle", controllers: []string{"WebhookCABundle", "WebhookCABundleWatch"}}}, table,
			"does not name its controller **WebhookCABundleWatch**"},
		{"a controller named for something else", []operatorPackage{{area: "admission", name: "webhookcabundle", controllers: []string{"WebhookConfiguration"}}},
			"| `admission/webhookcabundle` | **WebhookConfiguration** | |\n", "controller WebhookConfiguration lives in pkg/operator/admission/webhookcabundle"},
		{"a row for a package that is gone", good, table + "| `admission/webhookcerts` | **WebhookCertRotation** | |\n",
			"names `admission/webhookcerts`, which does not exist"},
		{"a doc.go line for a package that is gone", good[:0:0], "",
			"admission/doc.go lists webhookcabundle, which does not exist"},
	} {
		got := strings.Join(mapProblems(tc.pkgs, docs, tc.table), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q do not say %q", tc.name, got, tc.want)
		}
	}
	shared := map[string]string{"frame/conditions": "", "frame/topology": ""}
	if got := sharedListProblems("controllers share (shared: `frame/conditions`, `frame/topology`).", shared); len(got) != 0 {
		t.Errorf("a correct shared list: %v", got)
	}
	for text, want := range map[string]string{
		"(shared: `frame/conditions`).":                                 "importrules.Shared has frame/topology",
		"(shared: `frame/conditions`, `frame/topology`, `frame/gone`).": "lists `frame/gone` as shared",
		"no list": "has no \"(shared: ...)\" list",
	} {
		if got := strings.Join(sharedListProblems(text, shared), "\n"); !strings.Contains(got, want) {
			t.Errorf("%q: problems %q do not say %q", text, got, want)
		}
	}
}
