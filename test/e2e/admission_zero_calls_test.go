package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/admission/webhookcabundle"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

func setPodIdentityMode(t *testing.T, mode operatorv1alpha1.PodIdentityMode) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"podIdentity":{"mode":%q}}}`, mode)
	if _, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(context.Background(), "cluster", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// webhookNames are the webhooks of the MutatingWebhookConfiguration.
func webhookNames(ctx context.Context) ([]string, error) {
	mwc, err := env.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, w := range mwc.Webhooks {
		names = append(names, w.Name)
	}
	return names, nil
}

// podCreationCalls is how many admission reviews creating one pod that asks
// for nothing sends the webhook.
func podCreationCalls(ctx context.Context, w *framework.WebhookProcess, ns string) (float64, error) {
	before, err := w.Metric(ctx, admittedSeries)
	if err != nil {
		return 0, err
	}
	if _, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(nil), metav1.CreateOptions{}); err != nil {
		return 0, err
	}
	after, err := w.Metric(ctx, admittedSeries)
	return after - before, err
}

// Pods that can get nothing never reach the webhook: without pod identity
// and without an always-inject bundle, the fail-open webhook every pod
// that asks for nothing goes through is not in the configuration. An
// always-inject bundle brings it back within seconds (for all but platform
// pods), and takes it away again when it goes. Run last: it turns pod identity off for a while.
func TestPodsThatCanGetNothingCostNoWebhookCall(t *testing.T) {
	dumpOnFailure(t)
	w := ensureWebhook(t)
	ctx := context.Background()
	always := labels.SelectorFromSet(labels.Set{v1alpha1.AlwaysInjectLabel: "true"}).String()
	// An earlier test's always-inject bundles go with its namespace, which
	// the API server deletes in the background: wait for them, then
	// insist.
	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		cbs, err := env.operator.SubscriptionV1alpha1().ClusterBundles().List(ctx, metav1.ListOptions{LabelSelector: always})
		if err != nil || len(cbs.Items) > 0 {
			return fmt.Errorf("an earlier test left always-inject ClusterBundles (%v): this test needs none", err)
		}
		bs, err := env.operator.SubscriptionV1alpha1().Bundles("").List(ctx, metav1.ListOptions{LabelSelector: always})
		if err != nil || len(bs.Items) > 0 {
			return fmt.Errorf("an earlier test left %d always-inject Bundles (%v): this test needs none", len(bs.Items), err)
		}
		return nil
	})
	ns := testNamespace(t, "zero-calls-")

	setPodIdentityMode(t, operatorv1alpha1.PodIdentityDisabled)
	defer setPodIdentityMode(t, operatorv1alpha1.PodIdentityEnabled)
	requestedOnly := []string{"requested.workload-access.openshift.io"}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		names, err := webhookNames(ctx)
		if err != nil || !slices.Equal(names, requestedOnly) {
			return fmt.Errorf("webhooks %v (%v), want %v", names, err, requestedOnly)
		}
		return nil
	})
	// The API server picks the configuration up within moments.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		if calls, err := podCreationCalls(ctx, w, ns); err != nil || calls != 0 {
			return fmt.Errorf("creating a pod that asks for nothing called the webhook %v times (%v)", calls, err)
		}
		return nil
	})
	for range 3 {
		if calls, err := podCreationCalls(ctx, w, ns); err != nil || calls != 0 {
			t.Fatalf("creating a pod that asks for nothing called the webhook %v times (%v)", calls, err)
		}
	}

	cb, err := env.operator.SubscriptionV1alpha1().ClusterBundles().Create(ctx, &v1alpha1.ClusterBundle{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-zero-calls-", Labels: map[string]string{v1alpha1.AlwaysInjectLabel: "true"}},
		Spec:       v1alpha1.ClusterBundleSpec{Entitlements: []v1alpha1.ClusterReference{{Namespace: ns, Name: "missing"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		names, err := webhookNames(ctx)
		if err != nil || !slices.Contains(names, webhookcabundle.OpportunisticWebhook) {
			return fmt.Errorf("webhooks %v (%v): want the fail-open webhook back", names, err)
		}
		return nil
	})
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		if calls, err := podCreationCalls(ctx, w, ns); err != nil || calls != 1 {
			return fmt.Errorf("creating a pod with an always-inject bundle around called the webhook %v times (%v), want 1", calls, err)
		}
		return nil
	})
	// Automatic injection never reaches platform pods: while pod identity
	// is off, the fail-open webhook's matchConditions do not even send them.
	platform := testNamespace(t, "openshift-zero-calls-")
	for range 2 {
		if calls, err := podCreationCalls(ctx, w, platform); err != nil || calls != 0 {
			t.Fatalf("creating a pod in %s with an always-inject bundle around called the webhook %v times (%v), want 0", platform, calls, err)
		}
	}

	if err := env.operator.SubscriptionV1alpha1().ClusterBundles().Delete(ctx, cb.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		names, err := webhookNames(ctx)
		if err != nil || !slices.Equal(names, requestedOnly) {
			return fmt.Errorf("webhooks %v (%v), want %v once the bundle is gone", names, err, requestedOnly)
		}
		return nil
	})
}
