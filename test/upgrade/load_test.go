package upgrade

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

const (
	loadBundle  = "load"
	loadRoleARN = "arn:aws:iam::123456789012:role/upgrade-load"
	// loadInterval is one pod creation every 150 ms, of each kind in turn.
	loadInterval = 150 * time.Millisecond
	// nowhere is the node the load's pods are bound to: no such node, so
	// neither the scheduler nor kwok spends the 2 cores on them; admission,
	// which is what is measured, is the same.
	nowhere = "upgrade-nowhere"
)

// testNamespace creates a namespace the Shared Resource CSI driver may
// read, deleted after t.
func testNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ctx := context.Background()
	ns, err := env.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	grantDriverRead(t, ns.Name)
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.kube.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
		return err
	})
	return ns.Name
}

// grantDriverRead lets the Shared Resource CSI driver read ns's Secrets
// and ConfigMaps, as every bundle source must.
func grantDriverRead(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	const role = "upgrade-shared-resource-driver-read"
	_, err := env.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		Rules: []rbacv1.PolicyRule{{
			APIGroups: []string{""}, Resources: []string{"secrets", "configmaps"}, Verbs: []string{"get", "list", "watch"},
		}},
	}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	driver := clusterbundles.DefaultDriverServiceAccount
	if _, err := env.kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "shared-resource-driver-read"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: driver.Namespace, Name: driver.Name}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func testPod(annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "app-", Annotations: annotations},
		Spec: corev1.PodSpec{NodeName: nowhere, Containers: []corev1.Container{{
			Name: "app", Image: "registry.invalid/upgrade/app:1",
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr.To(false), RunAsNonRoot: ptr.To(true),
				Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
		}}},
	}
}

// startLoad makes a namespace with a Bundle and a ServiceAccount with a
// role, and starts the pod load of three kinds there: plain pods, pods
// asking for the Bundle (the fail-closed webhook), pods of the role's
// ServiceAccount (credentials injected), one every loadInterval. A
// requested pod created without its injection counts as wrong.
func startLoad(t *testing.T, prefix string) (string, *framework.PodLoad) {
	t.Helper()
	return startLoadBursts(t, prefix, loadInterval, 1)
}

// startLoadBursts is startLoad creating burst pods at once every interval.
func startLoadBursts(t *testing.T, prefix string, interval time.Duration, burst int) (string, *framework.PodLoad) {
	t.Helper()
	ctx := context.Background()
	ns := testNamespace(t, prefix)
	if _, err := env.kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "entitlement"},
		Data:       map[string][]byte{"load.pem": []byte("not a real key")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Create(ctx, &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Name: loadBundle},
		Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: []subscriptionv1alpha1.LocalReference{{Name: "entitlement"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: "reader", Annotations: map[string]string{podidentityv1alpha1.RoleARNAnnotation: loadRoleARN}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Until the Bundle is validated and the webhooks have seen it (and the
	// ServiceAccount), a requested pod is refused for a reason that is not
	// the scenario's.
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		b, err := env.operator.SubscriptionV1alpha1().Bundles(ns).Get(ctx, loadBundle, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(b.Status.Conditions, subscriptionv1alpha1.ConditionInvalid); c == nil || c.Status != metav1.ConditionFalse {
			return fmt.Errorf("bundle %s/%s is not validated: %+v", ns, loadBundle, b.Status.Conditions)
		}
		for _, kind := range loadKinds(ns) {
			pod, err := env.kube.CoreV1().Pods(ns).Create(ctx, kind.Pod(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				return fmt.Errorf("a %s pod: %w", kind.Name, err)
			}
			if kind.Check != nil {
				if err := kind.Check(pod); err != nil {
					return err
				}
			}
		}
		return nil
	})
	load := framework.StartPodLoadBursts(env.cp.Config, interval, burst, loadKinds(ns)...)
	t.Cleanup(load.Stop)
	return ns, load
}

func loadKinds(ns string) []framework.PodKind {
	return []framework.PodKind{
		{Name: "plain", Namespace: ns, Pod: func() *corev1.Pod { return testPod(nil) }},
		{Name: "bundle", Namespace: ns,
			Pod: func() *corev1.Pod {
				return testPod(map[string]string{subscriptionv1alpha1.InjectBundleAnnotation: loadBundle})
			},
			Check: func(p *corev1.Pod) error {
				if !strings.Contains(p.Annotations[subscriptionv1alpha1.BundleGenerationsAnnotation], loadBundle) {
					return fmt.Errorf("pod %s has no record of bundle %s: %v", p.Name, loadBundle, p.Annotations)
				}
				return nil
			}},
		{Name: "role", Namespace: ns,
			Pod: func() *corev1.Pod {
				p := testPod(nil)
				p.Spec.ServiceAccountName = "reader"
				return p
			},
			Check: func(p *corev1.Pod) error {
				for _, e := range p.Spec.Containers[0].Env {
					if e.Name == "AWS_ROLE_ARN" && e.Value == loadRoleARN {
						return nil
					}
				}
				return fmt.Errorf("pod %s has no AWS_ROLE_ARN %s", p.Name, loadRoleARN)
			}},
	}
}

// requestedRefusals are the refused pods that asked for an injection: the
// ones the fail-closed webhook answers for.
func requestedRefusals(f framework.PodLoadFigures) []framework.PodRefusal {
	var out []framework.PodRefusal
	for _, r := range f.Refused {
		if r.Kind != "plain" {
			out = append(out, r)
		}
	}
	return out
}
