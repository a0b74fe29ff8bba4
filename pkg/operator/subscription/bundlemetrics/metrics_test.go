package bundlemetrics

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-base/metrics/testutil"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
)

func invalidSince(reason string, unix int64) []metav1.Condition {
	return []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionTrue, Reason: reason,
		LastTransitionTime: metav1.NewTime(time.Unix(unix, 0))}}
}

func TestCollectorCountsInvalidBundlesAndTheOldest(t *testing.T) {
	bundles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	clusterBundles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	add := func(indexer cache.Indexer, obj any) {
		if err := indexer.Add(obj); err != nil {
			t.Fatal(err)
		}
	}
	bundle := func(ns, name string, conds []metav1.Condition) *subscriptionv1alpha1.Bundle {
		return &subscriptionv1alpha1.Bundle{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Status: subscriptionv1alpha1.BundleStatus{Conditions: conds}}
	}
	add(bundles, bundle("a", "missing-new", invalidSince("MissingReference", 2000)))
	add(bundles, bundle("b", "missing-old", invalidSince("MissingReference", 1000)))
	add(bundles, bundle("a", "overlap", invalidSince("OverlappingKeys", 1500)))
	add(bundles, bundle("a", "valid", []metav1.Condition{{Type: subscriptionv1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: "Valid"}}))
	add(bundles, bundle("a", "new", nil))
	add(clusterBundles, &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Status: subscriptionv1alpha1.ClusterBundleStatus{Conditions: invalidSince("SharedResourceUnavailable", 3000)}})

	c := newCollector(subscriptionlisters.NewBundleLister(bundles), subscriptionlisters.NewClusterBundleLister(clusterBundles))
	want := `
# HELP workload_access_bundles_invalid [ALPHA] Bundles and ClusterBundles whose Invalid condition is True, by kind and reason.
# TYPE workload_access_bundles_invalid gauge
workload_access_bundles_invalid{kind="Bundle",reason="MissingReference"} 2
workload_access_bundles_invalid{kind="Bundle",reason="OverlappingKeys"} 1
workload_access_bundles_invalid{kind="ClusterBundle",reason="SharedResourceUnavailable"} 1
# HELP workload_access_bundles_invalid_since_timestamp_seconds [ALPHA] When the bundle of this kind and reason that has been Invalid longest became Invalid (Unix time of its condition's lastTransitionTime).
# TYPE workload_access_bundles_invalid_since_timestamp_seconds gauge
workload_access_bundles_invalid_since_timestamp_seconds{kind="Bundle",reason="MissingReference"} 1000
workload_access_bundles_invalid_since_timestamp_seconds{kind="Bundle",reason="OverlappingKeys"} 1500
workload_access_bundles_invalid_since_timestamp_seconds{kind="ClusterBundle",reason="SharedResourceUnavailable"} 3000
`
	if err := testutil.CustomCollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}

// No Invalid bundle, no series: the alerts need no zero to compare with.
func TestCollectorReportsNothingWhenAllAreValid(t *testing.T) {
	empty := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	c := newCollector(subscriptionlisters.NewBundleLister(empty), subscriptionlisters.NewClusterBundleLister(empty))
	if err := testutil.CustomCollectAndCompare(c, strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
}
