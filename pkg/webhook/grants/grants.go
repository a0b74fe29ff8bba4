// Package grants decides whether a requester may create or change a
// ScopeTemplate, ScopeInstance or APIAccessPolicy: no one grants more than
// they hold. It computes the RBAC an object results in, expands it into
// single permissions and asks, as the requester, whether they hold each one
// where it would be granted (the rule Kubernetes applies to RoleBindings and
// ClusterRoles). An IAMRoleRequest grants no RBAC but has the operator write
// a ServiceAccount: its requester must be able to write it
// (rolerequests.go). It reaches the cluster only through the interfaces the
// server hands it.
package grants

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// Requester is who sent the admission request, as the API server
// authenticated them.
type Requester struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Permission is one thing RBAC can allow: a verb on a resource (its
// subresource and name optional) or on a non-resource URL. "*" is asked
// literally, so only a holder of the wildcard holds it.
type Permission struct {
	Verb        string
	Group       string
	Resource    string
	Subresource string
	Name        string
	// NonResourceURL, when set, makes the permission a non-resource one;
	// the resource fields are then empty.
	NonResourceURL string
}

// Authorizer answers whether the requester holds a permission in a
// namespace, or cluster-wide when namespace is "". The server asks the API
// server (SubjectAccessReview as the requester).
type Authorizer interface {
	Allowed(ctx context.Context, requester Requester, namespace string, p Permission) (bool, error)
}

// Templates finds a ScopeTemplate by name: nil without error when it does
// not exist.
type Templates interface {
	GetScopeTemplate(ctx context.Context, name string) (*scopesv1alpha1.ScopeTemplate, error)
}

// Instances finds the ScopeInstances that name a template: a change of
// its subjects is bound wherever they bind.
type Instances interface {
	ScopeInstancesNaming(ctx context.Context, template string) ([]scopesv1alpha1.ScopeInstance, error)
}

// grant is RBAC an object results in: rules held where it says.
type grant struct {
	rules []rbacv1.PolicyRule
	// namespaces the rules are granted in; none (nil or empty) means
	// cluster-wide.
	namespaces []string
	// unknowable, when set, says why what the object grants cannot be known
	// now (rules is then empty): only a requester who may bind any
	// ClusterRole may make it.
	unknowable string
	// writes marks rules the object does not grant but that its author
	// must hold to have the operator write what it writes: Kubernetes asks
	// whoever creates a RoleBinding for create on rolebindings there, as
	// well as for the rules (or bind).
	writes bool
}

// bindAnyClusterRole is what Kubernetes asks of whoever binds a role whose
// rules it cannot check against their own: RBAC's bind verb, here on every
// ClusterRole. Its holder may grant anything RBAC can.
var bindAnyClusterRole = Permission{Verb: "bind", Group: rbacv1.GroupName, Resource: "clusterroles"}

func clusterWide(rules []rbacv1.PolicyRule) grant { return grant{rules: rules} }

// bindingsIn is what writing RoleBindings in namespaces needs: create on
// rolebindings in each, or in every namespace when namespaces is empty
// (a selector that matches namespaces created later).
func bindingsIn(namespaces []string) grant {
	return grant{writes: true, namespaces: namespaces, rules: []rbacv1.PolicyRule{
		{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"rolebindings"}, Verbs: []string{"create"}}}}
}

// clusterBindings is what writing ClusterRoleBindings needs.
func clusterBindings() grant {
	return grant{writes: true, rules: []rbacv1.PolicyRule{
		{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterrolebindings"}, Verbs: []string{"create"}}}}
}

// readTemplate is what naming a ScopeTemplate needs: its rules and its
// existence are told only to a requester who may read it.
func readTemplate(name string) Permission {
	return Permission{Verb: "get", Group: scopesv1alpha1.GroupName, Resource: "scopetemplates", Name: name}
}
