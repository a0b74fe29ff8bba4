// Package informerkit is how a controller of this operator builds, starts
// and listens to its informers:
//   - Resync: the safety-net relist of every informer the operator builds;
//     controllers react to events, not to it;
//   - StartOnRun: a controller's own informers (no other controller reads
//     them) are built in its New and started when it runs; informers that
//     several controllers read are built and started by the starter
//     (pkg/operator);
//   - UpdatesWhen, ChangesOnly: an informer whose handlers hear only the
//     updates that matter, so a status write or a relist wakes nothing;
//   - LabelKey, EveryKey: the queue keys an event maps to;
//   - ByName: an informer factory of the objects of one name, which RBAC
//     can grant by resourceNames;
//   - SlimNamespace: the transform of the cluster-wide Namespace cache
//     the starter shares (name, UID and times); SlimNamespaceWithLabels,
//     with labels, of the ScopeInstance controller's own;
//   - WithoutManagedFields: the transform of the bundle informers and of
//     the informers of what bundles generate.
package informerkit
