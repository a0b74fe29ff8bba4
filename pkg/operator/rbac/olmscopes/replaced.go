package olmscopes

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// ReasonNamespaceReplaced is the CSV's Event while a namespace its
// ScopeInstance lists was deleted and re-created, and the scope is not
// bound there again: its ServiceAccount does not hold there what the CSV
// asks for (OLM has not granted it again), or the instance cannot be
// written again without changing what it says.
const ReasonNamespaceReplaced = "ScopeNotBoundInReplacedNamespace"

// ReboundAnnotation (ScopeInstance) records the re-created namespaces the
// generator last wrote the spec again for, as name=UID pairs: a write
// whose annotation changes moves the generator's managed-fields time,
// which the scopes controller reads as when the spec was written (a
// reordered list alone changes no field, so it would not); and the same
// namespaces are never written again for, should the scopes controller
// still not bind them.
const ReboundAnnotation = "olmscopes.workload-access.openshift.io/rebound"

// replacedNamespaces are the namespaces of want, listed by the generated
// instance old too, that the scopes controller does not bind in because
// they are not the namespace the spec was checked against: deleted and
// re-created since (another UID pinned), or created after the spec was
// written (none pinned), by name with their UIDs now. Only once the
// controller has judged old's current generation; a namespace missing or
// being deleted has nothing to bind.
func replacedNamespaces(namespaces corelisters.NamespaceLister, old *scopesv1alpha1.ScopeInstance, want []string) []scopesv1alpha1.NamespaceUID {
	if old == nil || namespaces == nil || old.Status.Checked == nil || old.Status.Checked.Generation != old.Generation {
		return nil
	}
	pinned := map[string]types.UID{}
	for _, p := range old.Status.Checked.Namespaces {
		pinned[p.Name] = p.UID
	}
	var out []scopesv1alpha1.NamespaceUID
	for _, name := range sortedUnique(slices.Clone(want)) {
		if !slices.Contains(old.Spec.Namespaces, name) {
			continue // added: asked as newly bound
		}
		ns, err := namespaces.Get(name)
		if err != nil || ns.DeletionTimestamp != nil {
			continue
		}
		if uid, ok := pinned[name]; !ok || uid != ns.UID {
			out = append(out, scopesv1alpha1.NamespaceUID{Name: name, UID: ns.UID})
		}
	}
	return out
}

// reboundRecord is ReboundAnnotation's value for replaced.
func reboundRecord(replaced []scopesv1alpha1.NamespaceUID) string {
	pairs := make([]string, 0, len(replaced))
	for _, r := range replaced {
		pairs = append(pairs, r.Name+"="+string(r.UID))
	}
	return strings.Join(pairs, ",")
}

func namesOf(replaced []scopesv1alpha1.NamespaceUID) []string {
	names := make([]string, 0, len(replaced))
	for _, r := range replaced {
		names = append(names, r.Name)
	}
	return names
}

// rotated is namespaces with its first moved last: the same set, so the
// same grant, in another order, which the API server stores as a new
// generation of the spec. That has the access-grants check judge the
// write again, and the scopes controller pin every listed namespace as it
// is now. nil when the list has fewer than two namespaces.
func rotated(namespaces []string) []string {
	if len(namespaces) < 2 {
		return nil
	}
	return append(slices.Clone(namespaces[1:]), namespaces[0])
}

// quoteNamespaces is "namespace a" or "namespaces a, b".
func quoteNamespaces(names []string) string {
	if len(names) == 1 {
		return "namespace " + names[0]
	}
	return "namespaces " + strings.Join(names, ", ")
}

// replacedWaiting is the Event message while the CSV's ServiceAccount does
// not hold its rules in a re-created namespace.
func replacedWaiting(instance string, replaced []string, missing string) string {
	return fmt.Sprintf(
		"ScopeInstance %s is not bound in %s, deleted and re-created since its spec was written (its Bound condition says NamespacesReplaced): "+
			"the generator binds it there again once the ClusterServiceVersion's ServiceAccount holds there, bound to it by name, what it carries, "+
			"as OLM grants it when its OperatorGroup controller copies the operator's Roles and RoleBindings into a target namespace. "+
			"A namespace of the same name is not proof enough: whoever re-created it may not be whom the scope was for. Now %s. "+
			"Nothing of this ClusterServiceVersion's scope changes meanwhile; retried every minute (docs/scopes.md, \"What follows what\")",
		instance, quoteNamespaces(replaced), missing)
}
