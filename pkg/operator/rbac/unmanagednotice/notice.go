package unmanagednotice

import (
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
)

// Event reasons on a ClusterExtension.
const (
	// ReasonUnmanaged: some of its CRDs are selected by no APIAccessPolicy
	// in Aggregate or Bind mode, so only cluster admins can use their APIs
	// until someone grants access.
	ReasonUnmanaged = "APIAccessUnmanaged"
	// ReasonManaged: all of them are, after some were not.
	ReasonManaged = "APIAccessManaged"
)

// maxNamed is how many CRDs an Event names before "and N more".
const maxNamed = 10

// Notice is what a ClusterExtension is told about access to the APIs of
// its CRDs: an empty reason when there is nothing to say (no CRDs).
// Policies in Unmanaged mode or with a selector that does not parse
// manage nothing: their CRDs count as unmanaged.
func Notice(crds []*apiextensionsv1.CustomResourceDefinition, policies []*apiaccessv1alpha1.APIAccessPolicy) (reason, message string) {
	if len(crds) == 0 {
		return "", ""
	}
	var unmanaged []string
	managers := map[string]bool{}
	for _, crd := range crds {
		by := managedBy(crd, policies)
		if len(by) == 0 {
			unmanaged = append(unmanaged, crd.Name)
		}
		for _, p := range by {
			managers[p] = true
		}
	}
	slices.Sort(unmanaged)
	if len(unmanaged) > 0 {
		return ReasonUnmanaged, fmt.Sprintf("access to the APIs of %d of its %d CRDs is not managed: no APIAccessPolicy in Aggregate or Bind mode "+
			"generates roles for %s; only cluster admins can use them until access is granted by hand or by an APIAccessPolicy (docs/apiaccess.md)",
			len(unmanaged), len(crds), named(unmanaged))
	}
	names := make([]string, 0, len(managers))
	for p := range managers {
		names = append(names, p)
	}
	slices.Sort(names)
	return ReasonManaged, fmt.Sprintf("access to the APIs of its %d CRDs is managed by APIAccessPolicy %s", len(crds), named(names))
}

// managedBy names the policies that manage crd: they select it (in
// Aggregate or Bind mode, with a selector that parses) and generated a role
// or a binding for it, as their status.managedObjects says. A policy whose
// roles for it are all Conflicts generates nothing, and manages nothing.
func managedBy(crd *apiextensionsv1.CustomResourceDefinition, policies []*apiaccessv1alpha1.APIAccessPolicy) []string {
	var out []string
	for _, p := range policies {
		if p.Spec.Mode != apiaccessv1alpha1.ModeAggregate && p.Spec.Mode != apiaccessv1alpha1.ModeBind {
			continue
		}
		selector, err := crdaccess.Selector(p.Spec.CRDs)
		selected := false
		switch {
		case err != nil:
			// Invalid: the policy generates nothing.
		case selector != nil:
			selected = selector.Matches(labels.Set(crd.Labels))
		default:
			selected = slices.Contains(p.Spec.CRDs.Names, crd.Name)
		}
		if selected && generatedFor(p, crd) {
			out = append(out, p.Name)
		}
	}
	return out
}

// generatedFor says whether p's status lists one of crd's roles, or a
// binding to one of them.
func generatedFor(p *apiaccessv1alpha1.APIAccessPolicy, crd *apiextensionsv1.CustomResourceDefinition) bool {
	roles := map[string]bool{}
	for _, r := range crdaccess.API(crd).Roles() {
		roles[r.Name] = true
	}
	bindings := map[string]bool{}
	for i := range p.Spec.Bindings {
		for role := range roles {
			bindings[crdaccess.BindingName(p.Name, i, role)] = true
		}
	}
	for _, m := range p.Status.ManagedObjects {
		if (m.Kind == "ClusterRole" && roles[m.Name]) || (m.Kind != "ClusterRole" && bindings[m.Name]) {
			return true
		}
	}
	return false
}

// named lists up to maxNamed items and counts the rest.
func named(items []string) string { return conditions.Named(items, maxNamed) }
