package clusterbundles

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	operatorlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/operator/v1alpha1"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// aggregationDefault is the WorkloadAccess's
// spec.subscriptions.defaultAggregateToClusterRoles: the roles a ClusterBundle
// that names none is aggregated to (the enhancement's "aggregate the
// generated ClusterRole to edit by default").
type aggregationDefault struct {
	workloadAccesses operatorlisters.WorkloadAccessLister
	clusterBundles   subscriptionlisters.ClusterBundleLister

	lock sync.Mutex
	// seen is the default the last WorkloadAccess event carried; nil
	// before the first.
	seen *[]string
}

// roles is the default now; nil when unset or the WorkloadAccess is not
// there.
func (a *aggregationDefault) roles() []string {
	if a == nil || a.workloadAccesses == nil {
		return nil
	}
	wa, err := a.workloadAccesses.Get(operatorclient.ConfigName)
	if err != nil {
		return nil
	}
	return wa.Spec.Subscriptions.DefaultAggregateToClusterRoles
}

// changedKeys is every ClusterBundle that names no role of its own when the
// default changed, nothing otherwise: the WorkloadAccess's status is
// written by every controller, and those writes must not revisit bundles.
func (a *aggregationDefault) changedKeys(obj runtime.Object) []string {
	wa, ok := obj.(*operatorv1alpha1.WorkloadAccess)
	if !ok {
		return nil
	}
	roles := wa.Spec.Subscriptions.DefaultAggregateToClusterRoles
	a.lock.Lock()
	changed := a.seen == nil || !slices.Equal(*a.seen, roles)
	a.seen = &roles
	a.lock.Unlock()
	if !changed {
		return nil
	}
	bundles, err := a.clusterBundles.List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, b := range bundles {
		if len(b.Spec.AggregateToClusterRoles) == 0 {
			keys = append(keys, b.Name)
		}
	}
	return keys
}

// aggregateTo is what the bundle's role is aggregated to: its own roles if
// it names any, else the default.
func aggregateTo(own, fallback []string) []string {
	if len(own) > 0 {
		return own
	}
	return fallback
}
