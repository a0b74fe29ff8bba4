package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// docsDir holds the pages whose YAML examples an admin pastes.
const docsDir = "../../docs"

// yamlFence matches a ```yaml block of a Markdown page, indented or not,
// with its info string: "yaml" is an example to apply, "yaml fragment" a
// block that is not a whole object (docs/development.md).
var yamlFence = regexp.MustCompile("(?ms)^( *)```(yaml[^\n]*)\n(.*?)^ *```")

// fragmentInfo marks a YAML block that is not a whole object: it is not
// applied.
const fragmentInfo = "yaml fragment"

// docExample is one object of a ```yaml block: where it is, and the page's
// prose since the block before.
type docExample struct {
	path string
	line int // of the object's first line
	obj  *unstructured.Unstructured
	// before is the text between the previous fenced block and this one.
	before string
}

func (e docExample) String() string { return fmt.Sprintf("%s:%d", e.path, e.line) }

// docExamples decodes every object of the page's ```yaml blocks (split at
// ---), in order; an object without a kind is decoded as it is, for the
// caller to judge. Fragments are left out.
func docExamples(t *testing.T, path string) []docExample {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	var out []docExample
	previousEnd := 0
	for _, m := range yamlFence.FindAllStringSubmatchIndex(text, -1) {
		indent, info, body := text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]]
		before := text[previousEnd:m[0]]
		if i := strings.LastIndex(before, "```"); i >= 0 {
			before = before[i+3:]
		}
		previousEnd = m[1]
		if info == fragmentInfo {
			continue
		}
		if info != "yaml" {
			t.Errorf("%s:%d: a block fenced ```%s: write ```yaml for an object to apply, ```%s for one that is not", path,
				strings.Count(text[:m[0]], "\n")+1, info, fragmentInfo)
			continue
		}
		line := strings.Count(text[:m[6]], "\n") + 1
		var doc []string
		docLine := line
		flush := func() {
			if strings.TrimSpace(strings.Join(doc, "")) == "" {
				return
			}
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(strings.Join(doc, "\n")), &obj.Object); err != nil {
				t.Fatalf("%s:%d: a yaml block does not parse: %v", path, docLine, err)
			}
			out = append(out, docExample{path: path, line: docLine, obj: obj, before: before})
		}
		for i, l := range strings.Split(body, "\n") {
			l = strings.TrimPrefix(l, indent)
			if strings.TrimSpace(l) == "---" {
				flush()
				doc, docLine = nil, line+i+1
				continue
			}
			doc = append(doc, l)
		}
		flush()
	}
	return out
}

// docObjects decodes each object of the page's YAML blocks that has a kind.
func docObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, e := range docExamples(t, path) {
		if e.obj.GetKind() != "" {
			out = append(out, e.obj)
		}
	}
	return out
}

// namespacesOf are the namespaces an example needs to exist: its own, and
// those a ScopeInstance or a Bind-mode APIAccessPolicy lists (the
// access-grants check refuses one that does not exist).
func namespacesOf(obj *unstructured.Unstructured) []string {
	var out []string
	if ns := obj.GetNamespace(); ns != "" {
		out = append(out, ns)
	}
	listed, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "namespaces")
	out = append(out, listed...)
	bindings, _, _ := unstructured.NestedSlice(obj.Object, "spec", "bindings")
	for _, b := range bindings {
		if b, ok := b.(map[string]any); ok {
			listed, _, _ := unstructured.NestedStringSlice(b, "namespaces")
			out = append(out, listed...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Every YAML example of docs/ is what an admin pastes: each is applied as
// written (server-side apply, unknown fields refused) against the real API
// server, the access-grants webhook included, and a refusal names the page
// and line. The namespaces an example needs are named in the text just
// before it, and the test creates them first. aws-roles.md's examples are
// applied by TestAWSRolesDocExamplesAreAccepted.
func TestDocsYAMLExamplesAreAccepted(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check judges the examples, as it would an admin's
	ctx := context.Background()
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(env.cp.Config)))
	client := dynamic.NewForConfigOrDie(env.cp.Config)
	pages, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	runbooks, _ := filepath.Glob(filepath.Join(docsDir, "runbooks", "*.md"))
	pages = append(pages, runbooks...)
	applied := 0
	for _, page := range pages {
		if filepath.Base(page) == "aws-roles.md" {
			continue
		}
		for _, e := range docExamples(t, page) {
			if e.obj.GetAPIVersion() == "" || e.obj.GetKind() == "" || e.obj.GetName() == "" {
				t.Errorf("%s: a ```yaml block's object has no apiVersion, kind or name: make it whole, or fence it ```%s", e, fragmentInfo)
				continue
			}
			for _, ns := range namespacesOf(e.obj) {
				if !strings.Contains(e.before, "`"+ns+"`") {
					t.Errorf("%s: %s %s needs namespace %s; say so in the text just before it (`%s`)", e, e.obj.GetKind(), e.obj.GetName(), ns, ns)
				}
				ensureDocNamespace(t, ns)
			}
			gvk := e.obj.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err != nil {
				t.Errorf("%s: %s is not served: %v", e, gvk, err)
				continue
			}
			resource := client.Resource(mapping.Resource).Namespace(e.obj.GetNamespace())
			body, err := e.obj.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			_, err = resource.Patch(ctx, e.obj.GetName(), types.ApplyPatchType, body,
				metav1.PatchOptions{FieldManager: "docs-example", FieldValidation: "Strict", Force: new(true)})
			if err != nil {
				t.Errorf("%s: %s %s is refused: %v", e, e.obj.GetKind(), e.obj.GetName(), err)
				continue
			}
			applied++
			name := e.obj.GetName()
			t.Cleanup(func() {
				if err := resource.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					t.Logf("deleting %s %s: %v", gvk.Kind, name, err)
				}
			})
		}
	}
	t.Logf("%d examples applied", applied)
	if applied == 0 {
		t.Error("no YAML example found in docs/")
	}
}

// ensureDocNamespace creates namespace for an example unless it exists,
// and deletes it after t.
func ensureDocNamespace(t *testing.T, name string) {
	t.Helper()
	_, err := env.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.kube.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{}) })
}
