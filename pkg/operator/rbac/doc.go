// Package rbac is RBAC for operator APIs, the operator's half: ScopeTemplates
// and ScopeInstances (operators.coreos.com/v1alpha1), which bind a
// template's ClusterRoles in listed, selected or all namespaces, and
// APIAccessPolicies (apiaccess.openshift.io/v1alpha1), which give users
// admin, edit and view on the APIs of selected CRDs in Aggregate, Bind or
// Unmanaged mode. The webhook's half, the attenuation check that refuses an
// object granting more than its author holds, is pkg/webhook/grants.
//
// Controllers, one package each:
//   - scopes: the ScopeTemplate and ScopeInstance controllers;
//   - apiaccess: the APIAccessPolicy controller;
//   - unmanagednotice: APIAccessUnmanagedNotice, an Event on each OLM v1
//     ClusterExtension whose APIs no APIAccessPolicy manages;
//   - olmscopes: the opt-in generator of ScopeTemplates and ScopeInstances
//     from OLM v0 ClusterServiceVersions and their OperatorGroups.
//
// What they share:
//   - rbacsubjects: binding subjects with the API server's defaults, so a
//     resync compares equal and writes nothing;
//   - crdaccess: the CRD informer, the CRDs a policy selects, what a role
//     needs of a CRD and the names of a policy's bindings;
//   - specwritten: whether a namespace existed when an object's spec was
//     written.
//
// This package holds no code: nothing outside rbac imports below it.
package rbac
