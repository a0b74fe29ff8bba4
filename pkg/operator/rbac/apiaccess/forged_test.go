package apiaccess

import (
	"context"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// A role labelled for the policy whose controller names its kind and UID in
// another API group (the operator-writes policy lets a cluster admin set
// that) is not the policy's: a Conflict that says so, never written, never
// bound.
func TestAForgedControllerIsAConflict(t *testing.T) {
	admin := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "admin"}
	p := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(admin)}})
	forged := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-admin", Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: "p"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "evil.example/v1", Kind: "APIAccessPolicy", Name: "p", UID: p.UID, Controller: ptr.To(true)}}},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}}}
	if ours(p, forged) {
		t.Fatal("a controller reference of another API group is taken for the policy's")
	}
	c := newCluster(p, []*apiextensionsv1.CustomResourceDefinition{widgets}, forged)
	for _, w := range c.sync(t) {
		if strings.Contains(w, "Widget.example.com-admin") {
			t.Errorf("wrote a role that is not ours: %s", w)
		}
	}
	if got := c.role(t, "Widget.example.com-admin"); got.Rules[0].Resources[0] != "secrets" || got.OwnerReferences[0].APIVersion != "evil.example/v1" {
		t.Errorf("the role with a forged controller was changed: %+v", got)
	}
	cond := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict)
	if cond.Status != metav1.ConditionTrue || !strings.Contains(cond.Message, "ClusterRole Widget.example.com-admin") ||
		!strings.Contains(cond.Message, "controlled by an APIAccessPolicy of another API group (evil.example/v1), not the operator's") {
		t.Errorf("Conflict %+v", cond)
	}
	if crbs, _ := c.kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{}); slices.ContainsFunc(crbs.Items, func(b rbacv1.ClusterRoleBinding) bool {
		return b.RoleRef.Name == "Widget.example.com-admin"
	}) {
		t.Errorf("a role that is not ours was bound: %v", crbs.Items)
	}
}
