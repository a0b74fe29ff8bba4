// Package olmscopes brings operators installed the OLM v0 way over to
// scopes, for the namespaces an admin opts in (WorkloadAccess
// spec.olmScopes): for each ClusterServiceVersion (operators.coreos.com/
// v1alpha1), a ScopeTemplate from its spec.install.spec.permissions and a
// ScopeInstance binding it in its OperatorGroup's (operators.coreos.com/v1)
// target namespaces, and another pair, bound cluster-wide, from its
// clusterPermissions. What it generates carries the CSV's UID; an upgrade
// (spec.replaces) takes it over, and it goes with the CSV; while the CSV's
// OperatorGroup is not whole (none, two, a selector not resolved) it stays
// as it is, as OLM's RBAC does, and WorkloadAccess
// OLMScopesFollowOperatorGroups says so. A target namespace deleted and
// re-created is bound again (the instance's spec written again) only once
// the CSV's ServiceAccount holds its rules there, as OLM's copy of its
// Roles grants them. An admin's
// narrowing of a generated ScopeInstance is kept, and one narrowed to no
// namespace is withdrawn, never bound cluster-wide. OLM's own RBAC is
// never read or written. The generator writes as its own ServiceAccount
// (olm-scope-generator), so the access-grants check judges it like anyone
// else, and first asks whether the CSV's ServiceAccounts already hold,
// bound to them by name, what it would grant wherever it would newly bind
// it (OLM gave it them): a CSV written by hand, which OLM gave nothing,
// gets nothing. docs/scopes.md has the mapping.
package olmscopes
