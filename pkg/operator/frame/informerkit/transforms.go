package informerkit

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SlimNamespace is the transform of the cluster-wide Namespace cache the
// starter shares: name, UID, creation and deletion, a few hundred bytes
// each, without labels, annotations or managed fields. It is what pinning
// a namespace by UID (APIAccessPolicy) and hearing that it came, went or
// started terminating (IAMRoleRequest) read.
func SlimNamespace(obj any) (any, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return obj, nil // a tombstone: only its key is read
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns.Name, UID: ns.UID, ResourceVersion: ns.ResourceVersion,
		CreationTimestamp: ns.CreationTimestamp, DeletionTimestamp: ns.DeletionTimestamp,
	}}, nil
}

// SlimNamespaceWithLabels is SlimNamespace with the namespace's labels:
// what selecting namespaces by label (a ScopeInstance's selector) needs,
// about 300 bytes a namespace instead of kilobytes of managedFields and
// annotations.
func SlimNamespaceWithLabels(obj any) (any, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return obj, nil // a tombstone: only its key is read
	}
	slim, _ := SlimNamespace(ns)
	slim.(*corev1.Namespace).Labels = ns.Labels
	return slim, nil
}

// WithoutManagedFields is the transform of the Bundle and ClusterBundle
// informers and of the informers of what bundles generate: it drops an
// object's managedFields before it is cached. No controller reads them
// there, and they are a quarter of a cached object: at 5,000
// ClusterBundles, megabytes of the operator's memory
// (docs/performance.md). An update the controllers send from a cached copy
// carries no managedFields, which the API server reads as "unchanged", so
// none are lost. Anything without metadata, such as a tombstone, passes
// unchanged; so does what was already dropped.
func WithoutManagedFields(obj any) (any, error) {
	if o, err := meta.Accessor(obj); err == nil && o.GetManagedFields() != nil {
		o.SetManagedFields(nil)
	}
	return obj, nil
}
