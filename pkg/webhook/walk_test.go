package webhook

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// The walks of docs/admission.md ("One admission's walk"): the files an
// admission passes through, in order.
var (
	podWalk    = []string{"middleware.go", "intake.go", "handler.go", "reviewdecode.go", "mutatorchain.go", "responseencode.go", "response.go"}
	grantsWalk = []string{"middleware.go", "intake.go", "accessgrants.go", "responseencode.go", "response.go"}
)

// TestOneAdmissionEntersEachFileOnce holds the package to that walk: a
// function in one of its files calls only functions of its own file or of
// the files after it, so following an admission never leads back to a file
// it has left.
func TestOneAdmissionEntersEachFileOnce(t *testing.T) {
	declared, calls := packageCalls(t)
	for name, walk := range map[string][]string{"pod": podWalk, "access grants": grantsWalk} {
		for _, c := range calls {
			from := slices.Index(walk, c.file)
			files := declared[c.callee]
			if from < 0 || len(files) != 1 {
				continue // outside the walk, or a name declared in several files
			}
			if to := slices.Index(walk, files[0]); to >= 0 && to < from {
				t.Errorf("%s walk: %s (%s) calls %s, back in %s", name, c.caller, c.file, c.callee, files[0])
			}
		}
	}
}

type call struct{ file, caller, callee string }

// packageCalls reads the package's own files: the files each function or
// method name is declared in, and every call of such a name.
func packageCalls(t *testing.T) (map[string][]string, []call) {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	declared := map[string][]string{}
	parsed := map[string]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && !slices.Contains(declared[fn.Name.Name], name) {
				declared[fn.Name.Name] = append(declared[fn.Name.Name], name)
			}
		}
	}
	for _, file := range podWalk {
		if parsed[file] == nil {
			t.Fatalf("%s, on the walk, is not in the package", file)
		}
	}
	var calls []call
	for name, f := range parsed {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					switch callee := c.Fun.(type) {
					case *ast.Ident:
						calls = append(calls, call{name, fn.Name.Name, callee.Name})
					case *ast.SelectorExpr:
						calls = append(calls, call{name, fn.Name.Name, callee.Sel.Name})
					}
				}
				return true
			})
		}
	}
	if len(calls) == 0 {
		t.Fatal("no calls found: wrong directory?")
	}
	return declared, calls
}
