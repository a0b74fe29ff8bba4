package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// generatorLabels mark what the operator generates for an object of ours;
// everything carrying one must reach must-gather.
var generatorLabels = []string{
	"subscription.openshift.io/cluster-bundle",
	"operators.coreos.com/scope-template",
	"operators.coreos.com/scope-instance",
	"apiaccess.openshift.io/policy",
}

// apiResource is what the emulated inspect needs to know of a resource.
type apiResource struct {
	gvr        schema.GroupVersionResource
	namespaced bool
}

// inspector gathers what `oc adm inspect clusteroperator/workload-access`
// gathers: the ClusterOperator, then each relatedObject — a named object;
// every object of a resource when no name is given (across all namespaces
// for a namespaced resource without a namespace); and everything listable
// in a related namespace.
type inspector struct {
	dynamic   dynamic.Interface
	resources map[schema.GroupResource]apiResource
	byKind    map[schema.GroupKind]apiResource
	gathered  map[string]bool
}

func newInspector(t *testing.T) *inspector {
	t.Helper()
	// oc adm inspect reads a few hundred lists; the default 5 QPS would make
	// this test wait on its own client.
	config := rest.CopyConfig(env.cp.Config)
	config.QPS, config.Burst = -1, 0
	disco := discovery.NewDiscoveryClientForConfigOrDie(config)
	lists, err := disco.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		t.Fatal(err)
	}
	in := &inspector{dynamic: dynamic.NewForConfigOrDie(config), resources: map[schema.GroupResource]apiResource{},
		byKind: map[schema.GroupKind]apiResource{}, gathered: map[string]bool{}}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !contains(r.Verbs, "list") {
				continue
			}
			res := apiResource{gvr: gv.WithResource(r.Name), namespaced: r.Namespaced}
			in.resources[res.gvr.GroupResource()] = res
			in.byKind[schema.GroupKind{Group: gv.Group, Kind: r.Kind}] = res
		}
	}
	return in
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func gatheredKey(gr schema.GroupResource, namespace, name string) string {
	return gr.String() + " " + namespace + "/" + name
}

func (in *inspector) add(gr schema.GroupResource, items []unstructured.Unstructured) {
	for _, item := range items {
		in.gathered[gatheredKey(gr, item.GetNamespace(), item.GetName())] = true
	}
}

// gather follows one relatedObject.
func (in *inspector) gather(ctx context.Context, group, resource, namespace, name string) error {
	if group == "" && resource == "namespaces" && name != "" {
		in.gathered[gatheredKey(schema.GroupResource{Resource: "namespaces"}, "", name)] = true
		for gr, r := range in.resources {
			if !r.namespaced {
				continue
			}
			list, err := in.dynamic.Resource(r.gvr).Namespace(name).List(ctx, metav1.ListOptions{})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) && !apierrors.IsMethodNotSupported(err) {
				return fmt.Errorf("listing %s in %s: %w", gr, name, err)
			}
			if err == nil {
				in.add(gr, list.Items)
			}
		}
		return nil
	}
	r, ok := in.resources[schema.GroupResource{Group: group, Resource: resource}]
	if !ok {
		return nil // not served here (the API of an absent capability)
	}
	client := in.dynamic.Resource(r.gvr).Namespace(namespace)
	if name != "" {
		obj, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		in.add(r.gvr.GroupResource(), []unstructured.Unstructured{*obj})
		return nil
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	in.add(r.gvr.GroupResource(), list.Items)
	return nil
}

// loadObjects reads every object of the YAML files matching pattern.
func loadObjects(t *testing.T, pattern string) []*unstructured.Unstructured {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s: %v", pattern, err)
	}
	var out []*unstructured.Unstructured
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		decoder := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			obj := &unstructured.Unstructured{}
			if err := decoder.Decode(&obj.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatalf("%s: %v", file, err)
			}
			if len(obj.Object) > 0 {
				out = append(out, obj)
			}
		}
	}
	return out
}

// What a support case needs reaches must-gather through the ClusterOperator's
// relatedObjects: every object the payload ships and the operator applies,
// every object of every kind the payload's CRDs define, and everything the
// operator generates. The lists are derived, not written here, so a kind
// or manifest added without its relatedObject fails this test.
func TestMustGatherCollectsEverythingASupportCaseNeeds(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	// Something of each kind, so the lists below are not empty: a Bundle,
	// a ClusterBundle with its share and ClusterRole.
	ns := testNamespace(t, "must-gather-")
	createSecret(t, ns, "ent", "a.pem")
	createBundle(t, ns, "rhel", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent")}, metav1.ConditionFalse)
	createClusterBundle(t, "e2e-must-gather-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: ns, Name: "ent"}},
	}, metav1.ConditionFalse)

	co, err := env.config.ConfigV1().ClusterOperators().Get(ctx, clusterOperator, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := newInspector(t)
	in.gathered[gatheredKey(schema.GroupResource{Group: "config.openshift.io", Resource: "clusteroperators"}, "", clusterOperator)] = true
	related := map[schema.GroupResource]bool{}
	for _, ref := range co.Status.RelatedObjects {
		related[schema.GroupResource{Group: ref.Group, Resource: ref.Resource}] = true
		if err := in.gather(ctx, ref.Group, ref.Resource, ref.Namespace, ref.Name); err != nil {
			t.Fatalf("gathering %+v: %v", ref, err)
		}
	}

	var missing []string
	want := func(what string, gr schema.GroupResource, namespace, name string) {
		if !in.gathered[gatheredKey(gr, namespace, name)] {
			missing = append(missing, fmt.Sprintf("%s %s", what, gatheredKey(gr, namespace, name)))
		}
	}
	// 1. What the payload ships and the operator applies, where it exists.
	shipped := append(env.payload.Objects, loadObjects(t, "../../bindata/operand/*.yaml")...)
	for _, obj := range shipped {
		gk := obj.GroupVersionKind().GroupKind()
		r, ok := in.byKind[gk]
		if !ok {
			continue // an absent capability's kind
		}
		if _, err := in.dynamic.Resource(r.gvr).Namespace(obj.GetNamespace()).Get(ctx, obj.GetName(), metav1.GetOptions{}); apierrors.IsNotFound(err) {
			continue // not applied in this configuration (e.g. pod identity's webhook)
		}
		want("shipped", r.gvr.GroupResource(), obj.GetNamespace(), obj.GetName())
	}
	// 2. Every kind the payload's CRDs define: named in relatedObjects, and
	// every object of it gathered.
	for _, obj := range env.payload.Objects {
		if obj.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(obj.Object, "spec", "group")
		plural, _, _ := unstructured.NestedString(obj.Object, "spec", "names", "plural")
		gr := schema.GroupResource{Group: group, Resource: plural}
		if !related[gr] {
			missing = append(missing, fmt.Sprintf("kind %s: no relatedObject names it", gr))
		}
		r, ok := in.resources[gr]
		if !ok {
			t.Fatalf("the payload's CRD %s is not served", gr)
		}
		list, err := in.dynamic.Resource(r.gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range list.Items {
			want("custom resource", gr, item.GetNamespace(), item.GetName())
		}
	}
	// 3. Everything the operator generates.
	generated := 0
	for _, gr := range []schema.GroupResource{
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"},
		{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		{Group: "sharedresource.openshift.io", Resource: "sharedsecrets"},
		{Group: "sharedresource.openshift.io", Resource: "sharedconfigmaps"},
	} {
		for _, label := range generatorLabels {
			list, err := in.dynamic.Resource(in.resources[gr].gvr).List(ctx, metav1.ListOptions{LabelSelector: label})
			if err != nil {
				t.Fatal(err)
			}
			for _, item := range list.Items {
				generated++
				want("generated", gr, item.GetNamespace(), item.GetName())
			}
		}
	}
	if generated < 2 {
		t.Errorf("found %d generated objects, want at least the ClusterBundle's share and ClusterRole", generated)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("must-gather (relatedObjects of clusteroperator/%s) misses %d objects:\n%s", clusterOperator, len(missing), strings.Join(missing, "\n"))
	}
}
