package subscription

import (
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/mutation/mutationtest"
)

func TestRefusalOfAnUnvalidatedBundleSaysWhy(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(ago time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(-ago)); return &t }
	edited := func(name string, ago time.Duration) *v1alpha1.Bundle {
		b := bundle(name, 3, nil, []v1alpha1.ResolvedReference{ref("secret", ns, "ent", "", "1.pem")}, nil)
		b.Status.ObservedGeneration = 2
		b.CreationTimestamp = *at(time.Hour)
		b.ManagedFields = []metav1.ManagedFieldsEntry{
			{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, Time: at(ago)},
			// The operator's own status writes are not changes of the spec.
			{Manager: "operator", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", Time: at(time.Second)},
		}
		return b
	}
	created := bundle("new", 1, nil, nil, nil)
	created.Status = v1alpha1.BundleStatus{}
	created.CreationTimestamp = *at(2 * time.Minute)

	for _, tc := range []struct {
		name, bundle string
		state        operatorv1.ManagementState
		known        bool
		want         string
	}{
		{"just edited", "fresh", operatorv1.Managed, true,
			`bundle "fresh" in namespace "shop" has not been validated by the operator yet (changed 4s ago; generation 3, status describes 2); retry in a few seconds`},
		{"operator state not known yet", "fresh", "", false,
			`bundle "fresh" in namespace "shop" has not been validated by the operator yet (changed 4s ago; generation 3, status describes 2); retry in a few seconds`},
		{"edited long ago", "old", operatorv1.Managed, true,
			`bundle "old" in namespace "shop" has not been validated by the operator since it changed 10m0s ago (generation 3, status describes 2): ` +
				"the operator may be down or failing; check `oc get clusteroperator workload-access` and the operator's logs, then retry"},
		{"created and never validated", "new", operatorv1.Managed, true,
			`bundle "new" in namespace "shop" has not been validated by the operator since it changed 2m0s ago (generation 1, status describes 0): ` +
				"the operator may be down or failing; check `oc get clusteroperator workload-access` and the operator's logs, then retry"},
		{"operator unmanaged", "fresh", operatorv1.Unmanaged, true,
			`bundle "fresh" in namespace "shop" has not been validated by the operator since it changed (generation 3, status describes 2), ` +
				"and the operator validates no bundles while workloadaccess/cluster spec.managementState is Unmanaged: ask a cluster admin to set it to Managed"},
		{"operator removed", "old", operatorv1.Removed, true,
			`bundle "old" in namespace "shop" has not been validated by the operator since it changed (generation 3, status describes 2), ` +
				"and the operator validates no bundles while workloadaccess/cluster spec.managementState is Removed: ask a cluster admin to set it to Managed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMutator(t, []any{edited("fresh", 4*time.Second+300*time.Millisecond), edited("old", 10*time.Minute), created}, nil).
				WithOperatorState(func() (operatorv1.ManagementState, bool) { return tc.state, tc.known })
			m.now = func() time.Time { return now }
			_, result := mutationtest.Admit(t, m, ns, pod(map[string]string{v1alpha1.InjectBundleAnnotation: tc.bundle}))
			if result.Denied == nil {
				t.Fatalf("want a refusal, got %+v", result)
			}
			if result.Denied.Reason != reasonBundleNotReady || result.Denied.Message != tc.want {
				t.Errorf("refusal = %s: %s\nwant      %s: %s", result.Denied.Reason, result.Denied.Message, reasonBundleNotReady, tc.want)
			}
		})
	}
}
