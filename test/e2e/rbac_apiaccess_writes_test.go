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
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// A Bind-mode subject the API server would refuse in a binding is refused
// in the policy, with the CRD's message, when the policy is written.
func TestAPIAccessSubjectsAreValidatedAsBindingsAre(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	policies := env.operator.APIAccessV1alpha1().APIAccessPolicies()
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	try := func(role apiaccessv1alpha1.AccessRole, namespaces []string, subject apiaccessv1alpha1.Subject) error {
		_, err := policies.Create(ctx, &apiaccessv1alpha1.APIAccessPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "e2e-subjects-" + rand.String(5)},
			Spec: apiaccessv1alpha1.APIAccessPolicySpec{
				CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.subjects.example.com"}},
				Mode: apiaccessv1alpha1.ModeBind,
				Bindings: []apiaccessv1alpha1.AccessBinding{{Role: role, Namespaces: namespaces,
					Subjects: []apiaccessv1alpha1.Subject{subject}}},
			},
		}, dry)
		return err
	}
	const saNamespace = "a ServiceAccount subject needs its namespace in a binding without namespaces"
	const apiGroup = "apiGroup is rbac.authorization.k8s.io (or empty) for a User or Group and empty for a ServiceAccount"
	refused := []struct {
		what       string
		role       apiaccessv1alpha1.AccessRole
		namespaces []string
		subject    apiaccessv1alpha1.Subject
		message    string
	}{
		{"a ServiceAccount without a namespace, cluster-wide", apiaccessv1alpha1.RoleEdit, nil,
			apiaccessv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "app"}, saNamespace},
		{"a ServiceAccount without a namespace in a View binding (its crdview ClusterRoleBinding)", apiaccessv1alpha1.RoleView, []string{"default"},
			apiaccessv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "app"}, saNamespace},
		{"a kind RBAC does not know", apiaccessv1alpha1.RoleEdit, []string{"default"},
			apiaccessv1alpha1.Subject{Kind: "Robot", Name: "r2"}, `Unsupported value: "Robot"`},
		{"a User of another API group", apiaccessv1alpha1.RoleEdit, []string{"default"},
			apiaccessv1alpha1.Subject{Kind: rbacv1.UserKind, APIGroup: "example.com", Name: "alice"}, apiGroup},
		{"a ServiceAccount with RBAC's API group", apiaccessv1alpha1.RoleEdit, []string{"default"},
			apiaccessv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, APIGroup: rbacv1.GroupName, Name: "app", Namespace: "default"}, apiGroup},
		{"a ServiceAccount name that is not one", apiaccessv1alpha1.RoleEdit, []string{"default"},
			apiaccessv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "App_1", Namespace: "default"}, "a ServiceAccount subject's name must be a valid ServiceAccount name"},
	}
	for _, c := range refused {
		err := try(c.role, c.namespaces, c.subject)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.message) {
			t.Errorf("%s: %v, want Invalid saying %q", c.what, err, c.message)
		}
	}
	accepted := []struct {
		what       string
		role       apiaccessv1alpha1.AccessRole
		namespaces []string
		subject    apiaccessv1alpha1.Subject
	}{
		{"a ServiceAccount without a namespace in an Edit binding with namespaces (each namespace's)", apiaccessv1alpha1.RoleEdit, []string{"default"},
			apiaccessv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "app"}},
		{"a User without apiGroup (the API server's default)", apiaccessv1alpha1.RoleView, nil, apiaccessv1alpha1.Subject{Kind: rbacv1.UserKind, Name: "alice"}},
		{"a Group with RBAC's API group", apiaccessv1alpha1.RoleAdmin, nil, apiaccessv1alpha1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "team"}},
		{"a ServiceAccount with its namespace, cluster-wide", apiaccessv1alpha1.RoleView, nil,
			apiaccessv1alpha1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "app", Namespace: "default"}},
	}
	for _, c := range accepted {
		if err := try(c.role, c.namespaces, c.subject); err != nil {
			t.Errorf("%s: %v", c.what, err)
		}
	}
}

// A binding the API server refuses (here a quota on RoleBindings in one
// namespace, as an admin may set) is named on the policy, and every other
// role and binding is written; once the quota goes, so does the condition.
func TestAPIAccessARefusedBindingIsNamedAndTheOthersAreWritten(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t)
	ctx := context.Background()
	suffix := strings.ToLower(rand.String(5))
	crd := createWidgetCRD(t, "refused"+suffix)
	open, quoted := namespaceWithoutDriverAccess(t, "e2e-open-"), namespaceWithoutDriverAccess(t, "e2e-quoted-")
	noBindings(t, quoted)

	name := "e2e-refused-" + suffix
	createPolicy(t, name, apiaccessv1alpha1.APIAccessPolicySpec{
		CRDs: apiaccessv1alpha1.CRDSelection{Names: []string{crd.Name}},
		Mode: apiaccessv1alpha1.ModeBind,
		Bindings: []apiaccessv1alpha1.AccessBinding{
			{Role: apiaccessv1alpha1.RoleEdit, Namespaces: []string{open, quoted},
				Subjects: []apiaccessv1alpha1.Subject{{Kind: rbacv1.UserKind, Name: "e2e-refused-editor"}}},
			{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{{Kind: rbacv1.GroupKind, Name: "e2e-refused-viewers"}}},
		},
	})
	editBinding := name + "-0-Widget." + crd.Spec.Group + "-edit"
	refusedOne := "RoleBinding " + quoted + "/" + editBinding + ": creating: "
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		if err := conditionIs(p, apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonWriteFailed); err != nil {
			return err
		}
		if c := meta.FindStatusCondition(p.Status.Conditions, apiaccessv1alpha1.ConditionRBACManaged); !strings.Contains(c.Message, refusedOne) ||
			!strings.Contains(c.Message, "exceeded quota") {
			return fmt.Errorf("RBACManaged says %q, want it to name %q and quote the API server", c.Message, refusedOne)
		}
		return nil
	})
	if _, err := env.kube.RbacV1().RoleBindings(open).Get(ctx, editBinding, metav1.GetOptions{}); err != nil {
		t.Errorf("the binding in the other namespace: %v", err)
	}
	for _, binding := range []string{name + "-1-Widget." + crd.Spec.Group + "-view", name + "-1-Widget." + crd.Spec.Group + "-view-crdview"} {
		if _, err := env.kube.RbacV1().ClusterRoleBindings().Get(ctx, binding, metav1.GetOptions{}); err != nil {
			t.Errorf("the View entry's ClusterRoleBinding: %v", err)
		}
	}

	if err := env.kube.CoreV1().ResourceQuotas(quoted).Delete(ctx, "no-bindings", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitPolicy(t, name, func(p *apiaccessv1alpha1.APIAccessPolicy) error {
		return conditionIs(p, apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionTrue, apiaccessv1alpha1.ReasonManaged)
	})
	if _, err := env.kube.RbacV1().RoleBindings(quoted).Get(ctx, editBinding, metav1.GetOptions{}); err != nil {
		t.Errorf("the binding once the quota is gone: %v", err)
	}
	t.Logf("written %s after the quota went (the sync's retries back off)", time.Since(start).Round(time.Second))
}

// noBindings sets a quota of no RoleBindings in namespace, with the usage
// the quota controller would record (this control plane runs none), so
// that the API server refuses every RoleBinding created there.
func noBindings(t *testing.T, namespace string) {
	t.Helper()
	ctx := context.Background()
	const counted = corev1.ResourceName("count/rolebindings.rbac.authorization.k8s.io")
	zero := corev1.ResourceList{counted: resource.MustParse("0")}
	quota, err := env.kube.CoreV1().ResourceQuotas(namespace).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "no-bindings"}, Spec: corev1.ResourceQuotaSpec{Hard: zero}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	quota.Status = corev1.ResourceQuotaStatus{Hard: zero, Used: zero}
	if _, err := env.kube.CoreV1().ResourceQuotas(namespace).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 30*time.Second, func(ctx context.Context) error {
		_, err := env.kube.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "e2e-probe"},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if !apierrors.IsForbidden(err) {
			return fmt.Errorf("a RoleBinding in %s: %v, want Forbidden by the quota", namespace, err)
		}
		return nil
	})
}
