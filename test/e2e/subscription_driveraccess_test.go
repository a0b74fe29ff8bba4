package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// driverReadRole is what an admin grants the Shared Resource CSI driver in a
// ClusterBundle's source namespace; the operator runs with the default
// driver service account.
const driverReadRole = "e2e-shared-resource-driver-read"

var driver = clusterbundles.DefaultDriverServiceAccount

func createDriverReadRole(ctx context.Context) error {
	_, err := env.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: driverReadRole},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list", "watch"},
		}},
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// grantDriverRead binds driverReadRole to the driver's service account in ns.
func grantDriverRead(t *testing.T, ns string) {
	t.Helper()
	if _, err := env.kube.RbacV1().RoleBindings(ns).Create(context.Background(), &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "shared-resource-driver-read"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: driverReadRole},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: driver.Namespace, Name: driver.Name}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// A ClusterBundle over a Secret the Shared Resource CSI driver may not read
// is Invalid and refuses pods at admission (rather than leaving them in
// ContainerCreating); the RoleBinding an admin then creates is noticed
// without touching the bundle.
func TestClusterBundleTheDriverCannotReadIsInvalidUntilGranted(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	source := namespaceWithoutDriverAccess(t, "driver-denied-")
	createSecret(t, source, "etc-pki-entitlement", "d.pem")
	cb := createClusterBundle(t, "e2e-driver-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "etc-pki-entitlement"}},
	}, metav1.ConditionTrue)
	message := fmt.Sprintf("the Shared Resource CSI driver's service account openshift-builds/csi-driver-shared-resource may not get secret %s/etc-pki-entitlement, "+
		"so pods could not mount them: grant it get, list and watch on them with a Role and a RoleBinding in namespace %s", source, source)
	if err := invalidIs(metav1.ConditionTrue, v1alpha1.ReasonDriverCannotRead, message)(cb.Status.Conditions); err != nil {
		t.Fatal(err)
	}
	if len(cb.Status.Shares) != 0 || cb.Status.ClusterRole != "" {
		t.Errorf("a bundle the driver cannot read got shares or a role: %+v", cb.Status)
	}
	_, err := env.kube.CoreV1().Pods("default").Create(ctx, testPod(map[string]string{v1alpha1.InjectClusterBundleAnnotation: cb.Name}),
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if want := deniedPrefix + fmt.Sprintf("cluster bundle %q is invalid (DriverCannotRead): %s", cb.Name, message); err == nil || err.Error() != want {
		t.Errorf("pod asking for it: %v\nwant %s", err, want)
	}

	// The controller does not watch RBAC: it looks again 15 s after the
	// bundle turned Invalid, backing off to 5 minutes.
	invalidSince := meta.FindStatusCondition(cb.Status.Conditions, v1alpha1.ConditionInvalid).LastTransitionTime.Time
	grantDriverRead(t, source)
	granted := time.Now()
	framework.Eventually(t, 45*time.Second, func(ctx context.Context) error {
		got, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, cb.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		return invalidIs(metav1.ConditionFalse, v1alpha1.ReasonValid, "")(got.Status.Conditions)
	})
	t.Logf("valid %v after the RoleBinding was created (the bundle had been Invalid for %v)",
		time.Since(granted).Round(100*time.Millisecond), granted.Sub(invalidSince).Round(100*time.Millisecond))
}
