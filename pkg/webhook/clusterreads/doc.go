// Package clusterreads holds what the webhook reads from the cluster on
// behalf of the mutators and the access grants check: they declare what
// they need as interfaces and reach no client themselves (see
// pkg/importrules); pkg/cmd/webhook builds these over its clients and hands
// them in.
//
//   - access.go: SubjectAccessReviewer, whether a pod's ServiceAccount may
//     use a ClusterBundle (the subscription mutator), answers cached briefly.
//   - serviceaccounts.go, lookupbudget.go: ServiceAccountAnnotations, a
//     cache of every ServiceAccount's annotations with a rate-limited live
//     lookup on a miss (the pod identity mutator).
//   - accessgrants.go, namespaces.go: GrantsAuthorizer, LiveScopeTemplates
//     and LiveNamespaces, the access grants check's live reads.
package clusterreads

// metricsNamespace is the server's (pkg/webhook): the lookup counter is
// served on its /metrics with the server's own series.
const metricsNamespace = "workload_access_webhook"
