package subscription

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// CacheTransform strips a Bundle or ClusterBundle down to what the mutator
// reads before an informer stores it: annotations go (it reads none on a
// bundle; anyone who may edit one may write up to 256 KiB there), and
// managedFields shrink to the one time specChanged reads, the newest write
// to the main resource, without field sets or managers. Other objects pass
// as they are.
func CacheTransform(obj any) (any, error) {
	var meta *metav1.ObjectMeta
	switch o := obj.(type) {
	case *subscriptionv1alpha1.Bundle:
		meta = &o.ObjectMeta
	case *subscriptionv1alpha1.ClusterBundle:
		meta = &o.ObjectMeta
	default:
		return obj, nil
	}
	meta.Annotations = nil
	changed := specChanged(meta)
	meta.ManagedFields = nil
	if changed.After(meta.CreationTimestamp.Time) {
		meta.ManagedFields = []metav1.ManagedFieldsEntry{{Time: &metav1.Time{Time: changed}}}
	}
	return obj, nil
}
