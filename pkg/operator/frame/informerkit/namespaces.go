package informerkit

import (
	corev1 "k8s.io/api/core/v1"
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
