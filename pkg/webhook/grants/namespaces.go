package grants

import (
	"context"
	"fmt"
	"strings"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// Namespaces reads namespaces as they are now, live.
type Namespaces interface {
	// Unusable returns, of names, those that do not exist and those being
	// deleted, each sorted.
	Unusable(ctx context.Context, names []string) (missing, terminating []string, err error)
}

// listsNamespaces is a kind that binds in namespaces it lists by name.
type listsNamespaces interface {
	// listedNamespaces are the namespaces it names, without repeats.
	listedNamespaces() []string
}

// A ScopeInstance's spec.namespaces, with or without a selector.
func (o *scopeInstance) listedNamespaces() []string { return distinct(o.Spec.Namespaces) }

// A Bind-mode policy's bindings' namespaces; other modes bind nothing.
func (o *apiAccessPolicy) listedNamespaces() []string {
	if o.Spec.Mode != apiaccessv1alpha1.ModeBind {
		return nil
	}
	var all []string
	for _, b := range o.Spec.Bindings {
		all = append(all, b.Namespaces...)
	}
	return distinct(all)
}

// maxNamespacesNamed is how many namespaces of each kind a refusal names.
const maxNamespacesNamed = 10

// checkNamespaces refuses an object that lists a namespace that does not
// exist or is being deleted, as Kubernetes refuses a RoleBinding in a
// missing namespace. The permission check judged the namespaces that exist
// now; one created later is created by whoever gets there first, who then
// controls its ServiceAccounts (a subject without a namespace means the
// ServiceAccount of that name in each bound namespace), so the binding
// would go to them. It runs after the permission check: only a requester
// who holds everything the object grants there learns whether a namespace
// exists, as with a RoleBinding.
func (c *Checker) checkNamespaces(ctx context.Context, what string, obj object, r Requester) (Decision, bool) {
	lists, ok := obj.(listsNamespaces)
	if !ok {
		return Decision{}, true
	}
	names := lists.listedNamespaces()
	if len(names) == 0 {
		return Decision{}, true
	}
	if c.Namespaces == nil {
		return failed(what, r, fmt.Errorf("the check has no way to read namespaces"), 0), false
	}
	missing, terminating, err := c.Namespaces.Unusable(ctx, names)
	if err != nil {
		return failed(what, r, fmt.Errorf("reading the listed namespaces: %w", err), 0), false
	}
	if len(missing)+len(terminating) == 0 {
		return Decision{}, true
	}
	return Decision{Reason: NamespacesNotFound, Message: unusableNamespaces(what, missing, terminating)}, false
}

// unusableNamespaces says which listed namespaces cannot be bound in, why,
// and what to do.
func unusableNamespaces(what string, missing, terminating []string) string {
	var which []string
	switch len(missing) {
	case 0:
	case 1:
		which = append(which, fmt.Sprintf("namespace %q, which does not exist", missing[0]))
	default:
		which = append(which, fmt.Sprintf("%d namespaces that do not exist: %s", len(missing), quotedNames(missing)))
	}
	switch len(terminating) {
	case 0:
	case 1:
		which = append(which, fmt.Sprintf("namespace %q, which is being deleted", terminating[0]))
	default:
		which = append(which, fmt.Sprintf("%d namespaces being deleted: %s", len(terminating), quotedNames(terminating)))
	}
	var next string
	switch {
	case len(terminating) == 0:
		next = fmt.Sprintf("create %s first (oc create namespace %s), then apply again", itOrThemNamespaces(missing), missing[0])
	case len(missing) == 0:
		gone := "it is"
		if len(terminating) > 1 {
			gone = "they are"
		}
		next = fmt.Sprintf("wait until %s gone, create %s again (oc create namespace %s), then apply again", gone, itOrThemNamespaces(terminating), terminating[0])
	default:
		next = fmt.Sprintf("create the missing ones first (oc create namespace %s), wait until those being deleted are gone and create them again, then apply again", missing[0])
	}
	return fmt.Sprintf("%s lists %s: a listed namespace is bound for whoever creates it, so list only namespaces that exist; %s",
		what, strings.Join(which, ", and "), next)
}

func itOrThemNamespaces(names []string) string {
	if len(names) == 1 {
		return "it"
	}
	return "them"
}

// quotedNames names up to maxNamespacesNamed names and counts the rest.
func quotedNames(names []string) string {
	shown := make([]string, 0, min(len(names), maxNamespacesNamed))
	for _, n := range names[:min(len(names), maxNamespacesNamed)] {
		shown = append(shown, fmt.Sprintf("%q", n))
	}
	s := strings.Join(shown, ", ")
	if len(names) > maxNamespacesNamed {
		s += fmt.Sprintf(" and %d more", len(names)-maxNamespacesNamed)
	}
	return s
}
