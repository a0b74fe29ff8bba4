package e2e

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
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
