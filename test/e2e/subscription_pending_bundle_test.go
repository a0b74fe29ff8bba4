package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// A bundle edited while the operator is Unmanaged is not injected from its
// old status, and the refusal says why and who can fix it; back to Managed,
// the edit is validated and pods get it.
func TestBundleEditedWhileUnmanagedIsRefusedWithTheReason(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns := testNamespace(t, "pending-")
	ctx := context.Background()
	createSecret(t, ns, "ent-a", "1.pem")
	createSecret(t, ns, "ent-b", "2.pem")
	b := createBundle(t, ns, "rhel", nil, v1alpha1.BundleSpec{Entitlements: localRefs("ent-a")}, metav1.ConditionFalse)

	setManagementState(t, operatorv1.Unmanaged)
	defer setManagementState(t, operatorv1.Managed)
	b.Spec.Entitlements = localRefs("ent-a", "ent-b")
	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Update(ctx, b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	request := map[string]string{v1alpha1.InjectBundleAnnotation: "rhel"}
	want := `bundle "rhel" in namespace "` + ns + `" has not been validated by the operator since it changed (generation 2, status describes 1), ` +
		"and the operator validates no bundles while workloadaccess/cluster spec.managementState is Unmanaged: ask a cluster admin to set it to Managed"
	// The webhook learns the management state from its informer: poll.
	framework.Eventually(t, 15*time.Second, func(ctx context.Context) error {
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(request), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil {
			return fmt.Errorf("the pod was admitted from the bundle's previous status")
		}
		if !strings.Contains(err.Error(), want) {
			return fmt.Errorf("refusal %q does not contain %q", err, want)
		}
		return nil
	})

	setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		p, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(request), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			return err
		}
		v := podVolume(p, "subscription-entitlements")
		if v == nil || v.Projected == nil || len(v.Projected.Sources) != 2 {
			return fmt.Errorf("want both Secrets projected, got volume %+v", v)
		}
		return nil
	})
}
