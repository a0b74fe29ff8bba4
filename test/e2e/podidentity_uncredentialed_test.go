package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// Pods admitted while the webhook is down (the fail-open webhook, failure
// policy Ignore, lets them in unchanged) run without the credentials their
// ServiceAccount grants: the operator finds each running one, records one
// PodIdentityNotInjected Event on it that names the role and the command
// that creates it again, and counts them by namespace on its /metrics. A
// pod created again with the webhook back is injected and not counted.
func TestPodsWithoutTheirCredentialsAreFoundAndSaid(t *testing.T) {
	dumpOnFailure(t, env.running)
	ctx := context.Background()
	ensureWebhook(t)
	stopWebhook()
	ns := testNamespace(t, "uncredentialed-")
	createServiceAccount(t, ns, "reader", map[string]string{podidentityv1alpha1.RoleARNAnnotation: e2eRoleARN})
	pods := env.kube.CoreV1().Pods(ns)
	create := func() *corev1.Pod {
		t.Helper()
		p := testPod(nil)
		p.Spec.ServiceAccountName = "reader"
		created, err := pods.Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return created
	}
	first := create()
	for _, v := range first.Spec.Volumes {
		if v.Name == podidentity.VolumeName {
			t.Fatalf("the pod was injected: the webhook was not skipped")
		}
	}

	token, err := framework.PrometheusToken(ctx, env.kube)
	if err != nil {
		t.Fatal(err)
	}
	insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // self-signed without a service CA (TestOperatorMetricsCountInvalidBundles)
	series := fmt.Sprintf(`workload_access_pod_identity_uncredentialed_pods{pod_namespace=%q}`, ns)
	counts := func(want float64) func(context.Context) error {
		return func(context.Context) error {
			v, ok := seriesValue(scrape(t, env.running.Listen, insecure, token), series)
			if want == 0 && ok || want != 0 && v != want {
				return fmt.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
			}
			return nil
		}
	}
	eventsOn := func(ctx context.Context, pod string) ([]corev1.Event, error) {
		list, err := env.kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.AndSelectors(
			fields.OneTermEqualSelector("involvedObject.name", pod), fields.OneTermEqualSelector("reason", "PodIdentityNotInjected")).String()})
		if err != nil {
			return nil, err
		}
		return list.Items, nil
	}
	said := func(pod string) func(context.Context) error {
		return func(ctx context.Context) error {
			events, err := eventsOn(ctx, pod)
			if err != nil || len(events) == 0 {
				return fmt.Errorf("no PodIdentityNotInjected Event on pod %s (%v)", pod, err)
			}
			e := events[0]
			restart := fmt.Sprintf("oc delete pod %s -n %s", pod, ns)
			if len(events) != 1 || e.Count > 1 || e.Type != corev1.EventTypeWarning || !strings.Contains(e.Message, e2eRoleARN) ||
				!strings.Contains(e.Message, ns+"/reader") || !strings.Contains(e.Message, `container "app"`) || !strings.Contains(e.Message, restart) {
				return fmt.Errorf("want one Warning Event naming the role, the ServiceAccount, the container and %q; got %d, first %s x%d: %s",
					restart, len(events), e.Type, e.Count, e.Message)
			}
			return nil
		}
	}
	framework.Eventually(t, 2*time.Minute, said(first.Name))
	framework.Eventually(t, time.Minute, counts(1))

	// Synced again (its update), the pod gets no second Event. The second
	// pod's Event comes after that sync: one worker takes keys in order.
	if _, err := pods.Patch(ctx, first.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	second := create()
	framework.Eventually(t, time.Minute, said(second.Name))
	framework.Eventually(t, time.Minute, counts(2))
	if err := said(first.Name)(ctx); err != nil {
		t.Errorf("after the pod's update: %v", err)
	}

	// As the Event says: deleted and created again, now with the webhook.
	for _, p := range []*corev1.Pod{first, second} {
		if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ensureWebhook(t)
	again := create()
	if len(again.Spec.Volumes) == 0 || again.Spec.Volumes[0].Name != podidentity.VolumeName {
		t.Fatalf("the pod created with the webhook up has volumes %v", again.Spec.Volumes)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		if p, err := pods.Get(ctx, again.Name, metav1.GetOptions{}); err != nil || p.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("pod %s not running yet (%v)", again.Name, err)
		}
		return nil
	})
	framework.Eventually(t, time.Minute, counts(0))
	if events, err := eventsOn(ctx, again.Name); err != nil || len(events) != 0 {
		t.Errorf("the injected pod has Events %v (%v)", events, err)
	}
}
