package v1alpha1

import (
	rbacv1 "k8s.io/api/rbac/v1"
)

// The generated roles are part of this API's contract: the operator creates
// them and the admission check asks whether a requester holds what they
// grant, so both read them from here.

// Aggregation labels the built-in admin, edit and view ClusterRoles select.
const (
	AggregateToAdminLabel = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEditLabel  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToViewLabel  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// Verbs of the generated roles. Edit holds the read verbs too: in Bind mode
// nothing aggregates view into it, and a user who may update an object but
// not get it cannot edit it with any client. In Aggregate mode the extra
// verbs change nothing (the built-in edit role aggregates view).
var (
	AdminVerbs = []string{rbacv1.VerbAll}
	EditVerbs  = []string{"create", "update", "patch", "delete", "get", "list", "watch"}
	ViewVerbs  = []string{"get", "list", "watch"}
)

// CRDAPI is what the generated roles need to know of a CRD.
type CRDAPI struct {
	// Name is the CRD's name, <plural>.<group>.
	Name string
	// Group, Kind and Plural are spec.group, spec.names.kind and spec.names.plural.
	Group, Kind, Plural string
}

// GeneratedRole is one generated ClusterRole: its name, rules, and the
// aggregation label it carries in Aggregate mode.
type GeneratedRole struct {
	Name           string
	Rules          []rbacv1.PolicyRule
	AggregateLabel string
}

// Role suffixes, appended to <kind>.<group>.
const (
	AdminSuffix   = "-admin"
	EditSuffix    = "-edit"
	ViewSuffix    = "-view"
	CRDViewSuffix = "-view-crdview"
)

// RoleBaseName is <kind>.<group>, the prefix of every role generated for the CRD.
func (c CRDAPI) RoleBaseName() string {
	return c.Kind + "." + c.Group
}

// Roles are the four ClusterRoles generated for the CRD, in the order
// admin, edit, view, crdview. Rules name the plural resource, as RBAC
// requires (the design's resources: [<KIND>] would match nothing).
func (c CRDAPI) Roles() []GeneratedRole {
	on := func(verbs []string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{c.Group}, Resources: []string{c.Plural}, Verbs: verbs}}
	}
	base := c.RoleBaseName()
	return []GeneratedRole{
		{Name: base + AdminSuffix, Rules: on(AdminVerbs), AggregateLabel: AggregateToAdminLabel},
		{Name: base + EditSuffix, Rules: on(EditVerbs), AggregateLabel: AggregateToEditLabel},
		{Name: base + ViewSuffix, Rules: on(ViewVerbs), AggregateLabel: AggregateToViewLabel},
		{Name: base + CRDViewSuffix, AggregateLabel: AggregateToViewLabel, Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"},
			ResourceNames: []string{c.Name}, Verbs: []string{"get"},
		}}},
	}
}

// RoleFor is the generated role a binding of the given role grants on the
// CRD's resources (crdview is granted with View, cluster-wide).
func (c CRDAPI) RoleFor(role AccessRole) GeneratedRole {
	roles := c.Roles()
	switch role {
	case RoleAdmin:
		return roles[0]
	case RoleEdit:
		return roles[1]
	default:
		return roles[2]
	}
}
