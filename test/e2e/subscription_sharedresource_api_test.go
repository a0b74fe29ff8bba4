package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/controlplane"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

var shareCRDs = []string{"sharedsecrets.sharedresource.openshift.io", "sharedconfigmaps.sharedresource.openshift.io"}

func shareCRDFiles(t *testing.T) []string {
	t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range framework.OpenShiftCRDs(root) {
		if strings.Contains(f, "sharedresource/") {
			files = append(files, f)
		}
	}
	if len(files) != 2 {
		t.Fatalf("want the two sharedresource CRD files, got %v", files)
	}
	return files
}

// On a cluster without the Shared Resource CSI driver's API the operator
// runs, marks ClusterBundles Invalid with the reason, and once the API is
// installed exits so that its Deployment restarts it with the full
// controller (here the test restarts it, as the kubelet would).
func TestClusterBundlesWithoutTheSharedResourceAPI(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	crds := apiextensionsclient.NewForConfigOrDie(env.cp.Config).ApiextensionsV1().CustomResourceDefinitions()
	files := shareCRDFiles(t)
	t.Cleanup(func() {
		// Whatever happened, the rest of the suite gets the API and an operator.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := controlplane.InstallCRDs(ctx, env.cp.Config, files); err != nil {
			t.Errorf("reinstalling the sharedresource CRDs: %v", err)
		}
		if env.running.Exited() {
			replaceOperator(t, "operator-after-shares")
		}
	})

	for _, name := range shareCRDs {
		if err := crds.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		for _, name := range shareCRDs {
			if _, err := crds.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("CRD %s still exists (%v)", name, err)
			}
		}
		return nil
	})
	p := replaceOperator(t, "operator-no-shares")
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !p.LogContains("the sharedresource.openshift.io API is not served") {
			return fmt.Errorf("the operator did not notice the missing API")
		}
		return nil
	})

	source := testNamespace(t, "no-shares-")
	createSecret(t, source, "entitlement", "e.pem")
	cb := createClusterBundle(t, "e2e-no-shares-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "entitlement"}},
	}, metav1.ConditionTrue)
	c := meta.FindStatusCondition(cb.Status.Conditions, v1alpha1.ConditionInvalid)
	wantMessage := "the Shared Resource CSI driver API (sharedresource.openshift.io/v1alpha1 SharedSecret, SharedConfigMap) is not installed on this cluster; ClusterBundles cannot be shared until it is"
	if c.Reason != v1alpha1.ReasonSharedResourceUnavailable || c.Message != wantMessage {
		t.Errorf("Invalid = %s: %s", c.Reason, c.Message)
	}
	if !p.Exited() && operatorDegraded(t) != "" {
		t.Errorf("a missing optional API must not degrade the operator: %s", operatorDegraded(t))
	}

	// The API arrives: the operator exits to restart with the full controller.
	if err := controlplane.InstallCRDs(ctx, env.cp.Config, files); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Done():
	case <-time.After(2 * time.Minute):
		t.Fatal("the operator did not restart itself after the API appeared")
	}
	if !p.LogContains("the sharedresource.openshift.io API appeared") {
		t.Errorf("the operator exited without saying why:\n%s", p.Tail(20))
	}
	replaceOperator(t, "operator-with-shares")
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		got, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Get(ctx, cb.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ConditionInvalid)
		if c == nil || c.Status != metav1.ConditionFalse || len(got.Status.Shares) != 1 {
			return fmt.Errorf("not yet valid with its share: %+v", got.Status)
		}
		return nil
	})
}

// operatorDegraded is the message of any True *Degraded condition on the
// WorkloadAccess, or "".
func operatorDegraded(t *testing.T) string {
	t.Helper()
	wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(context.Background(), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range wa.Status.Conditions {
		if strings.HasSuffix(c.Type, "Degraded") && c.Status == "True" {
			return c.Type + ": " + c.Message
		}
	}
	return ""
}
