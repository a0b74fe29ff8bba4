// Package bundlemetrics exposes, on the operator's /metrics, how many
// Bundles and ClusterBundles are Invalid and since when. It is not a
// controller: it reads the bundle informers' caches when Prometheus scrapes,
// so the numbers are never out of step with what the controllers wrote.
package bundlemetrics

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-base/metrics"
	"k8s.io/component-base/metrics/legacyregistry"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
)

var (
	invalidDesc = metrics.NewDesc("workload_access_bundles_invalid",
		"Bundles and ClusterBundles whose Invalid condition is True, by kind and reason.",
		[]string{"kind", "reason"}, nil, metrics.ALPHA, "")
	// A timestamp rather than a count with a `for` in the alert: a missed
	// scrape or a leader change does not restart the clock.
	invalidSinceDesc = metrics.NewDesc("workload_access_bundles_invalid_since_timestamp_seconds",
		"When the bundle of this kind and reason that has been Invalid longest became Invalid (Unix time of its condition's lastTransitionTime).",
		[]string{"kind", "reason"}, nil, metrics.ALPHA, "")
)

// Register adds the collector to the registry library-go's controllercmd
// serves on /metrics. The operator registers it once per process, on
// becoming leader, so only the leader reports.
func Register(bundles subscriptionlisters.BundleLister, clusterBundles subscriptionlisters.ClusterBundleLister) error {
	return legacyregistry.CustomRegister(newCollector(bundles, clusterBundles))
}

type collector struct {
	metrics.BaseStableCollector
	bundles        subscriptionlisters.BundleLister
	clusterBundles subscriptionlisters.ClusterBundleLister
}

func newCollector(bundles subscriptionlisters.BundleLister, clusterBundles subscriptionlisters.ClusterBundleLister) *collector {
	return &collector{bundles: bundles, clusterBundles: clusterBundles}
}

func (c *collector) DescribeWithStability(ch chan<- *metrics.Desc) {
	ch <- invalidDesc
	ch <- invalidSinceDesc
}

// tally is, per reason, how many bundles are Invalid and the earliest
// transition among them.
type tally map[string]*invalid

type invalid struct {
	count float64
	since metav1.Time
}

func (t tally) add(conditions []metav1.Condition) {
	cond := meta.FindStatusCondition(conditions, subscriptionv1alpha1.ConditionInvalid)
	if cond == nil || cond.Status != metav1.ConditionTrue {
		return
	}
	entry := t[cond.Reason]
	if entry == nil {
		entry = &invalid{since: cond.LastTransitionTime}
		t[cond.Reason] = entry
	}
	entry.count++
	if cond.LastTransitionTime.Before(&entry.since) {
		entry.since = cond.LastTransitionTime
	}
}

func (c *collector) CollectWithStability(ch chan<- metrics.Metric) {
	// The listers read the informers' indexers, which cannot fail.
	bundles, _ := c.bundles.List(labels.Everything())
	clusterBundles, _ := c.clusterBundles.List(labels.Everything())
	perKind := map[string]tally{"Bundle": {}, "ClusterBundle": {}}
	for _, b := range bundles {
		perKind["Bundle"].add(b.Status.Conditions)
	}
	for _, b := range clusterBundles {
		perKind["ClusterBundle"].add(b.Status.Conditions)
	}
	for kind, reasons := range perKind {
		for reason, entry := range reasons {
			ch <- metrics.NewLazyConstMetric(invalidDesc, metrics.GaugeValue, entry.count, kind, reason)
			if !entry.since.IsZero() {
				ch <- metrics.NewLazyConstMetric(invalidSinceDesc, metrics.GaugeValue, float64(entry.since.Unix()), kind, reason)
			}
		}
	}
}
