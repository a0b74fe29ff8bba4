package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/scopes"
	"github.com/openshift/cluster-workload-access-operator/test/framework"
)

// A controller reference with a generator's kind and UID but another API
// group ({apiVersion: evil.example/v1, kind: ScopeInstance, uid: <the
// instance's>}) is not the generator's: the operator-writes policy lets a
// cluster admin set one, since it claims nothing the operator trusts. So
// the operator neither adopts nor changes such an object, reports it as a
// Conflict on the owner, and is not Degraded by it; and nobody may turn the
// reference into one of the real group afterwards.
func TestForgedControllerReferencesAreNotOurs(t *testing.T) {
	dumpOnFailure(t)
	ensureWebhook(t) // the access-grants check admits what this test creates
	ctx := context.Background()
	ns := testNamespace(t, "forged-owner-")
	name := "e2e-forged-" + rand.String(5)

	// Unmanaged meanwhile, so the forged objects are there before the
	// operator first looks; their owners' UIDs are known by then.
	setManagementState(t, operatorv1.Unmanaged)
	defer setManagementState(t, operatorv1.Managed)
	subjects := []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: scopeSA, Namespace: ns}}
	template, err := env.operator.ScopesV1alpha1().ScopeTemplates().Create(ctx, &scopesv1alpha1.ScopeTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: scopesv1alpha1.ScopeTemplateSpec{ClusterRoles: []scopesv1alpha1.ClusterRoleTemplate{
			{GenerateName: "reader-", Subjects: subjects, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}}},
			{GenerateName: "forged-", Subjects: subjects, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}},
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = env.operator.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	instance := scopeInstance(t, name, scopesv1alpha1.ScopeInstanceSpec{Namespaces: []string{ns}})
	forgedOwner := func(kind, owner string, uid string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "evil.example/v1", Kind: kind, Name: owner, UID: types.UID(uid), Controller: ptr.To(true)}}
	}

	// The template's second role, labelled for it, with the forged
	// reference; and the instance's binding of the first role, with its.
	role, err := env.kube.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: scopes.ClusterRoleName(name, "forged-"), Labels: map[string]string{scopesv1alpha1.ScopeTemplateLabel: name},
			OwnerReferences: forgedOwner("ScopeTemplate", name, string(template.UID))},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a cluster admin's ClusterRole controlled by a ScopeTemplate of another group: %v", err)
	}
	t.Cleanup(func() {
		_ = env.kube.RbacV1().ClusterRoles().Delete(context.Background(), role.Name, metav1.DeleteOptions{})
	})
	readerRole := scopes.ClusterRoleName(name, "reader-")
	binding, err := env.kube.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: scopes.BindingName(readerRole, instance.Name), OwnerReferences: forgedOwner("ScopeInstance", instance.Name, string(instance.UID))},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: readerRole},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "e2e-stranger"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a cluster admin's RoleBinding controlled by a ScopeInstance of another group: %v", err)
	}

	// Turning either reference into the real group's is setting one.
	moved := role.DeepCopy()
	moved.OwnerReferences[0].APIVersion = scopesv1alpha1.SchemeGroupVersion.String()
	_, err = env.kube.RbacV1().ClusterRoles().Update(ctx, moved, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	wantRefused(t, "a cluster admin moving a forged reference to the real group", err, "no one else may set or add such a controller reference")
	movedBinding := binding.DeepCopy()
	movedBinding.OwnerReferences[0].APIVersion = scopesv1alpha1.SchemeGroupVersion.String()
	_, err = env.kube.RbacV1().RoleBindings(ns).Update(ctx, movedBinding, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	wantRefused(t, "a cluster admin moving a forged reference to the real group", err, "no one else may set or add such a controller reference")

	setManagementState(t, operatorv1.Managed)
	framework.Eventually(t, time.Minute, func(ctx context.Context) error {
		got, err := env.operator.ScopesV1alpha1().ScopeTemplates().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(got.Status.Conditions, scopesv1alpha1.ConditionConflict); c == nil || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, role.Name) {
			return fmt.Errorf("the template's Conflict is %+v, want True naming %s", c, role.Name)
		}
		return nil
	})
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionFalse, scopesv1alpha1.ReasonConflict, ns+"/"+binding.Name)
	framework.Consistently(t, 5*time.Second, func(ctx context.Context) error {
		got, err := env.kube.RbacV1().ClusterRoles().Get(ctx, role.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got.ResourceVersion != role.ResourceVersion {
			return fmt.Errorf("the role with a forged controller was written (adopted): %+v", got)
		}
		gotBinding, err := env.kube.RbacV1().RoleBindings(ns).Get(ctx, binding.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if gotBinding.ResourceVersion != binding.ResourceVersion {
			return fmt.Errorf("the binding with a forged controller was written (adopted): %+v", gotBinding)
		}
		wa, err := env.operator.OperatorV1alpha1().WorkloadAccesses().Get(ctx, "cluster", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range wa.Status.Conditions {
			if (c.Type == scopes.TemplateControllerName+"Degraded" || c.Type == scopes.InstanceControllerName+"Degraded") && c.Status == operatorv1.ConditionTrue {
				return fmt.Errorf("%s: %s", c.Type, c.Message)
			}
		}
		return nil
	})

	// Both gone, the template makes its own role, which wakes the
	// instance: it binds both roles where the forged binding was.
	if err := env.kube.RbacV1().RoleBindings(ns).Delete(ctx, binding.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := env.kube.RbacV1().ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expectInstanceCondition(t, instance.Name, scopesv1alpha1.ConditionBound, metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound, "bound in 1 namespaces")
}
