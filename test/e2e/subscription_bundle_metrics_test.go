package e2e

import (
	"context"
	"crypto/tls"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// The operator's /metrics (library-go's controllercmd, Prometheus' token)
// counts Invalid bundles by kind and reason, and says since when the oldest
// has been Invalid. The test control plane has no service CA, so the
// operator serves controllercmd's self-signed pair here: the TLS trust of
// this endpoint is checked by TestServiceMonitorsPointAtServingEndpoints.
func TestOperatorMetricsCountInvalidBundles(t *testing.T) {
	dumpOnFailure(t, env.running)
	ctx := context.Background()
	token, err := framework.PrometheusToken(ctx, env.kube)
	if err != nil {
		t.Fatal(err)
	}
	const count = `workload_access_bundles_invalid{kind="Bundle",reason="MissingReference"}`
	const since = `workload_access_bundles_invalid_since_timestamp_seconds{kind="Bundle",reason="MissingReference"}`
	insecure := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // self-signed without a service CA; see above
	ns := testNamespace(t, "metrics-invalid-")
	// Other tests' Bundles may still be going with their namespaces: the
	// series must equal what the API holds at the time, ours included.
	missing := func(ctx context.Context) (int, bool, error) {
		all, err := env.operator.SubscriptionV1alpha1().Bundles("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, false, err
		}
		n, ours := 0, false
		for _, b := range all.Items {
			if c := meta.FindStatusCondition(b.Status.Conditions, subscriptionv1alpha1.ConditionInvalid); c != nil &&
				c.Status == metav1.ConditionTrue && c.Reason == subscriptionv1alpha1.ReasonMissingReference {
				n++
				ours = ours || b.Namespace == ns && b.Name == "missing"
			}
		}
		return n, ours, nil
	}
	matches := func(ctx context.Context, wantOurs bool) error {
		body := scrape(t, env.running.Listen, insecure, token)
		n, ours, err := missing(ctx)
		if err != nil {
			return err
		}
		if ours != wantOurs {
			return fmt.Errorf("the bundle %s/missing counted as MissingReference in the API: %v, want %v", ns, ours, wantOurs)
		}
		if v, _ := seriesValue(body, count); v != float64(n) {
			return fmt.Errorf("%s = %v, the API holds %d such Bundles", count, v, n)
		}
		if n == 0 {
			return nil
		}
		if v, ok := seriesValue(body, since); !ok || v <= 0 || v > float64(time.Now().Unix()) {
			return fmt.Errorf("%s = %v (present %v), want a past time", since, v, ok)
		}
		return nil
	}

	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx, &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "missing"},
		Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "absent"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return matches(ctx, true) })
	if err := env.operator.SubscriptionV1alpha1().Bundles(ns).Delete(ctx, "missing", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, time.Minute, func(ctx context.Context) error { return matches(ctx, false) })
}
