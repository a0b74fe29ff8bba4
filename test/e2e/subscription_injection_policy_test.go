package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	operatorv1 "github.com/openshift/api/operator/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/clusterbundles"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// wantNotInjectedRefusal creates a pod asking for a bundle in ns and
// expects the injection policy, not the webhook, to refuse it.
func wantNotInjectedRefusal(t *testing.T, ns, annotation string) {
	t.Helper()
	_, err := env.kube.CoreV1().Pods(ns).Create(context.Background(), testPod(map[string]string{annotation: "anything"}), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) && !apierrors.IsInvalid(err) {
		t.Fatalf("a pod asking for a bundle the webhook never saw: want it refused, got %v", err)
	}
	for _, want := range []string{framework.InjectionPolicyName, "through annotation " + annotation, "namespace " + ns, "refused rather than started without"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
}

// A pod in a namespace the webhook configuration excludes is never seen by
// the webhook; asking for a bundle there is refused, not silently ignored.
func TestPodAskingForBundlesInAnExcludedNamespaceIsRefused(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns, err := env.kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "run-level-", Labels: map[string]string{"openshift.io/run-level": "1"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.kube.CoreV1().Namespaces().Delete(context.Background(), ns.Name, metav1.DeleteOptions{})
	})
	waitServiceAccount(t, ns.Name, "default")
	wantNotInjectedRefusal(t, ns.Name, v1alpha1.InjectBundleAnnotation)
	wantNotInjectedRefusal(t, ns.Name, v1alpha1.InjectClusterBundleAnnotation)

	// A pod that asks for nothing is admitted there as before.
	if _, err := env.kube.CoreV1().Pods(ns.Name).Create(context.Background(), testPod(nil), metav1.CreateOptions{}); err != nil {
		t.Fatalf("a pod asking for nothing: %v", err)
	}
}

// Without the MutatingWebhookConfiguration (deleted while Unmanaged here;
// also before it is first created, and while Removed) a pod asking for a
// bundle is refused, and admitted through the webhook once it is back.
func TestPodAskingForBundlesWithoutTheWebhookConfigurationIsRefused(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ns := testNamespace(t, "no-webhook-")
	setManagementState(t, operatorv1.Unmanaged)
	defer setManagementState(t, operatorv1.Managed)
	if err := env.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), framework.WebhookName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The API server's webhook and policy caches follow the deletion within
	// moments: until then the webhook itself may still answer.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "anything"}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), framework.InjectionPolicyName) {
			return fmt.Errorf("not refused by the policy yet: %v", err)
		}
		return nil
	})
	wantNotInjectedRefusal(t, ns, v1alpha1.InjectBundleAnnotation)

	// Back to Managed, the webhook answers again: its own refusal names the
	// missing bundle, the policy's does not.
	setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		_, err := env.kube.CoreV1().Pods(ns).Create(ctx, testPod(map[string]string{v1alpha1.InjectBundleAnnotation: "anything"}), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), `bundle "anything" requested by annotation`) {
			return fmt.Errorf("the webhook is not answering again yet: %v", err)
		}
		return nil
	})
}

// The operator may create ClusterRoles (RBAC cannot limit create by name),
// but the API server admits from it only the ClusterRole a ClusterBundle
// needs: labelled, controlled by that bundle, named after it, granting get
// on it and use of named shares. What it legitimately writes is covered by
// every ClusterBundle test.
func TestTheOperatorWritesOnlyTheClusterRolesItGenerates(t *testing.T) {
	dumpOnFailure(t)
	ctx := context.Background()
	source := testNamespace(t, "writes-source-")
	createSecret(t, source, "entitlement", "a.pem")
	cb := createClusterBundle(t, "e2e-writes-", nil, v1alpha1.ClusterBundleSpec{
		Entitlements: []v1alpha1.ClusterReference{{Namespace: source, Name: "entitlement"}},
	}, metav1.ConditionFalse)
	owner := []metav1.OwnerReference{{APIVersion: v1alpha1.SchemeGroupVersion.String(), Kind: "ClusterBundle", Name: cb.Name, UID: cb.UID, Controller: ptr.To(true)}}
	getBundle := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{v1alpha1.SchemeGroupVersion.Group}, Resources: []string{"clusterbundles"}, ResourceNames: []string{cb.Name}}
	label := map[string]string{clusterbundles.BundleLabel: cb.Name}
	operator := asServiceAccount(t, operatorNS, framework.OperatorName)
	for _, tc := range []struct {
		name string
		role *rbacv1.ClusterRole
	}{
		{"no label", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: clusterbundles.ClusterRoleName(cb.Name) + "-x"}, Rules: []rbacv1.PolicyRule{getBundle}}},
		{"not controlled by the bundle", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-unowned", Labels: label}, Rules: []rbacv1.PolicyRule{getBundle}}},
		{"another name", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e-renamed", Labels: label, OwnerReferences: owner}, Rules: []rbacv1.PolicyRule{getBundle}}},
		{"a wider rule", &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{GenerateName: "e2e-", Labels: label, OwnerReferences: owner}, Rules: []rbacv1.PolicyRule{
			getBundle, {Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}},
		}}},
	} {
		_, err := operator.RbacV1().ClusterRoles().Create(ctx, tc.role, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "workload-access-operator-writes") {
			t.Errorf("%s: want the operator-writes policy to refuse it, got %v", tc.name, err)
		}
	}
	// The role the operator generated for the bundle, with a wider rule.
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		role, err := env.kube.RbacV1().ClusterRoles().Get(ctx, clusterbundles.ClusterRoleName(cb.Name), metav1.GetOptions{})
		if err != nil {
			return err
		}
		role.Rules = append(role.Rules, rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}})
		_, err = operator.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "does more") {
			return fmt.Errorf("widening the generated role: want refused, got %v", err)
		}
		return nil
	})
}
