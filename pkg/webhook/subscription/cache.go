package subscription

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

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

// AlwaysInjectIndex holds the bundles labelled always-inject, under their
// namespace ("" for a ClusterBundle): what a pod's admission offers it,
// found without reading the bundles that are not.
const AlwaysInjectIndex = "always-inject"

// Indexers are the indexes New needs on the Bundle and ClusterBundle
// caches; add them to the informers before they start.
func Indexers() cache.Indexers {
	return cache.Indexers{AlwaysInjectIndex: alwaysInjectIndex}
}

// NewBundleCache and NewClusterBundleCache are caches with Indexers, for
// a mutator over objects added by hand.
func NewBundleCache() cache.Indexer {
	indexers := Indexers()
	indexers[cache.NamespaceIndex] = cache.MetaNamespaceIndexFunc
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, indexers)
}

func NewClusterBundleCache() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, Indexers())
}

func alwaysInjectIndex(obj any) ([]string, error) {
	o, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if o.GetLabels()[subscriptionv1alpha1.AlwaysInjectLabel] != "true" {
		return nil, nil
	}
	return []string{o.GetNamespace()}, nil
}
