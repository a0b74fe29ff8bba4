package e2e

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	operatorv1 "github.com/openshift/api/operator/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// leaseName is library-go's leader-election lock, named after the operator.
const leaseName = framework.OperatorName + "-lock"

// replaceOperator stops the shared operator and starts a new process in its place.
func replaceOperator(t *testing.T, name string) *framework.Process {
	t.Helper()
	env.running.Stop()
	p, err := startOperator(name)
	if err != nil {
		t.Fatal(err)
	}
	env.running = p
	return p
}

func leaseHolder(ctx context.Context) (string, error) {
	lease, err := env.kube.CoordinationV1().Leases(operatorNS).Get(ctx, leaseName, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if lease.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *lease.Spec.HolderIdentity, nil
}

func waitLeader(t *testing.T, p *framework.Process) {
	t.Helper()
	framework.Eventually(t, time.Minute, func(context.Context) error {
		if p.Exited() {
			return fmt.Errorf("%s exited:\n%s", p.Name, p.Tail(30))
		}
		if !p.LogContains("Successfully acquired lease") {
			return fmt.Errorf("%s has not acquired the lease", p.Name)
		}
		return nil
	})
}

// A new operator process reconciling a settled cluster from scratch, and
// then idling, writes nothing but its lease and events: every controller
// compares with its cache before writing.
func TestResyncWithNothingChangedWritesNothing(t *testing.T) {
	dumpOnFailure(t)
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	expectClusterOperator(t, time.Minute, healthy, "")
	waitNamespacesGone(t)
	// Let in-flight status updates from earlier tests land.
	time.Sleep(3 * time.Second)

	since := time.Now()
	p := replaceOperator(t, "operator-idempotent")
	waitLeader(t, p)
	// Every controller runs its first full sync right after its caches sync.
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		for _, c := range []string{"StaticResources", "OperatorVersion", "StatusSyncer_workload-access", "ManagementState"} {
			if !strings.Contains(p.Log(), "Caches are synced for "+c) {
				return fmt.Errorf("%s has not started", c)
			}
		}
		return nil
	})
	time.Sleep(15 * time.Second)

	writes, err := operatorWrites(since)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range writes {
		t.Errorf("unexpected write: %s", w)
	}
	// And the check can fail: the same filter sees the writes a real change causes.
	if err := deleteWebhookServiceAccount(context.Background()); err != nil {
		t.Fatal(err)
	}
	expectOperatorCreated(t, since, "serviceaccounts", "")
}

// Two operator processes: one leads, the other waits; killing the leader
// (no chance to release the lease) hands over within the lease duration.
func TestLeaderElectionFailover(t *testing.T) {
	first := replaceOperator(t, "operator-leader-a")
	waitLeader(t, first)
	ctx := context.Background()
	holderA, err := leaseHolder(ctx)
	if err != nil || holderA == "" {
		t.Fatalf("lease holder %q: %v", holderA, err)
	}

	second, err := startOperator("operator-leader-b")
	if err != nil {
		t.Fatal(err)
	}
	// Whatever happens, the survivor serves the tests that follow; teardown stops it.
	defer func() { first.Kill(); env.running = second }()
	dumpOnFailure(t, first, second)
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !second.LogContains("Attempting to acquire leader lease") {
			return fmt.Errorf("second process has not tried for the lease yet")
		}
		return nil
	})
	framework.Consistently(t, 5*time.Second, func(ctx context.Context) error {
		if second.LogContains("Successfully acquired lease") {
			return fmt.Errorf("second process acquired the lease while the first holds it")
		}
		if holder, err := leaseHolder(ctx); err != nil || holder != holderA {
			return fmt.Errorf("lease holder changed to %q (%v)", holder, err)
		}
		return nil
	})

	first.Kill()
	waitLeader(t, second)
	holderB, err := leaseHolder(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if holderB == holderA || holderB == "" {
		t.Fatalf("lease holder after fail-over is %q (was %q)", holderB, holderA)
	}
	// The new leader does the work. The Service comes back with another
	// ClusterIP, so the webhook serving the old one stops first.
	stopWebhook()
	if err := env.kube.CoreV1().Services(operandNS).Delete(ctx, framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, operandObjectsPresent)
}

func TestUnmanagedLeavesTheOperandAlone(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	setManagementState(t, operatorv1.Unmanaged)
	defer setManagementState(t, operatorv1.Managed)

	expectClusterOperator(t, 30*time.Second, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable:   configv1.ConditionUnknown,
		configv1.OperatorProgressing: configv1.ConditionUnknown,
		configv1.OperatorDegraded:    configv1.ConditionUnknown,
	}, "Unmanaged")

	if err := deleteWebhookServiceAccount(ctx); err != nil {
		t.Fatal(err)
	}
	framework.Consistently(t, 5*time.Second, func(ctx context.Context) error {
		_, err := env.kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
		if err == nil {
			return fmt.Errorf("the operator restored the ServiceAccount while Unmanaged")
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})

	setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, 30*time.Second, operandObjectsPresent)
	expectClusterOperator(t, time.Minute, healthy, "")
}

func TestRemovedDeletesTheOperand(t *testing.T) {
	dumpOnFailure(t)
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	setManagementState(t, operatorv1.Removed)
	defer setManagementState(t, operatorv1.Managed)

	framework.Eventually(t, 2*time.Minute, func(ctx context.Context) error {
		// Everything the operator created goes; the namespace and the
		// operator's Role in it are the CVO's and stay.
		gone := map[string]func() error{
			"deployment": func() error {
				_, err := env.kube.AppsV1().Deployments(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
				return err
			},
			"service": func() error {
				_, err := env.kube.CoreV1().Services(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
				return err
			},
			"serviceaccount": func() error {
				_, err := env.kube.CoreV1().ServiceAccounts(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
				return err
			},
			"poddisruptionbudget": func() error {
				_, err := env.kube.PolicyV1().PodDisruptionBudgets(operandNS).Get(ctx, framework.WebhookName, metav1.GetOptions{})
				return err
			},
			"signer secret": func() error {
				_, err := env.kube.CoreV1().Secrets(operandNS).Get(ctx, framework.WebhookSignerSecret, metav1.GetOptions{})
				return err
			},
			"serving certificate secret": func() error {
				_, err := env.kube.CoreV1().Secrets(operandNS).Get(ctx, framework.WebhookServingSecret, metav1.GetOptions{})
				return err
			},
			"serving CA configmap": func() error {
				_, err := env.kube.CoreV1().ConfigMaps(operandNS).Get(ctx, framework.WebhookCAConfigMap, metav1.GetOptions{})
				return err
			},
			// The webhook configuration is cluster-scoped: it must go too, or
			// pods asking for an injection would fail against a missing Service.
			"mutatingwebhookconfiguration": func() error {
				_, err := env.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, framework.WebhookName, metav1.GetOptions{})
				return err
			},
		}
		for what, get := range gone {
			if err := get(); !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still exists (%v)", what, err)
			}
		}
		if _, err := env.kube.CoreV1().Namespaces().Get(ctx, operandNS, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("the CVO's operand namespace went too: %v", err)
		}
		return nil
	})
	co := expectClusterOperator(t, 30*time.Second, map[configv1.ClusterStatusConditionType]configv1.ConditionStatus{
		configv1.OperatorAvailable: configv1.ConditionTrue,
		configv1.OperatorDegraded:  configv1.ConditionFalse,
	}, "")
	for _, c := range co.Status.Conditions {
		if c.Type == configv1.OperatorAvailable && !strings.Contains(c.Message, "removed") {
			t.Errorf("Available does not say the operand was removed: %q", c.Message)
		}
	}
	// The ClusterOperator hides a failing controller for its 2 minute
	// inertia; the controllers' own conditions show it at once.
	wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(context.Background(), "cluster", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range wa.Status.Conditions {
		if strings.HasSuffix(c.Type, "Degraded") && c.Status == operatorv1.ConditionTrue {
			t.Errorf("after removal %s is True: %s", c.Type, c.Message)
		}
	}

	setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, time.Minute, operandObjectsPresent)
	expectClusterOperator(t, time.Minute, healthy, "")
}

func TestUnsupportedManagementStateIsReported(t *testing.T) {
	dumpOnFailure(t)
	setManagementState(t, "Force")
	defer setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		cond, err := operatorCondition(ctx, "ManagementStateDegraded")
		if err != nil {
			return err
		}
		if cond.Status != operatorv1.ConditionTrue || !strings.Contains(cond.Message, `"Force" is not supported`) {
			return fmt.Errorf("ManagementStateDegraded=%s: %s", cond.Status, cond.Message)
		}
		return nil
	})
}

// TraceAll is honoured, but stops one level short of client-go's body
// logging (klog verbosity 8), which would print the Secrets the operator
// reads and the tokens in its TokenReviews.
func TestOperatorLogLevelIsHonoured(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	// At Normal, client-go does not trace request bodies.
	if env.running.LogContains(`"Request Body"`) {
		t.Fatal("request traces logged before TraceAll was asked for")
	}
	patch := `{"spec":{"operatorLogLevel":"TraceAll"}}`
	if _, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(ctx, "cluster", "application/merge-patch+json", []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_, _ = env.operator.OperatorV1alpha1().WorkloadAccesses().Patch(context.Background(), "cluster", "application/merge-patch+json", []byte(`{"spec":{"operatorLogLevel":"Normal"}}`), metav1.PatchOptions{})
	}()
	framework.Eventually(t, 30*time.Second, func(context.Context) error {
		if !env.running.LogContains(`"TraceAll" (klog verbosity 7)`) {
			return fmt.Errorf("the operator did not report a log level change to TraceAll at verbosity 7")
		}
		return nil
	})
	// Make the operator read a Secret (the Bundle controller GETs it for its
	// key names) and write the Bundle's status.
	ns := testNamespace(t, "log-level-")
	key := "marker-" + rand.String(8) + ".pem"
	createSecret(t, ns, "entitlement", key)
	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx, &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: "traced"},
		Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "entitlement"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, "traced", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(b.Status.Entitlements) != 1 || !slices.Equal(b.Status.Entitlements[0].Keys, []string{key}) {
			return fmt.Errorf("entitlements %+v, want the key %s", b.Status.Entitlements, key)
		}
		return nil
	})
	log := env.running.Log()
	if data := base64.StdEncoding.EncodeToString([]byte("not a real key: " + key)); strings.Contains(log, data) {
		t.Errorf("the Secret's data is in the operator's log at TraceAll")
	}
	for _, body := range []string{`"Request Body"`, `"Response Body"`} {
		if strings.Contains(log, body) {
			t.Errorf("client-go logged a %s at TraceAll", body)
		}
	}
}
