package apiaccess

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
)

// The access-grants check refuses a listed namespace that does not exist;
// one deleted after admission and created again before the operator first
// binds in it (or while no CRD is selected yet) was created after the spec
// was written: not the one the check judged, so not pinned and not bound
// in, and the policy says so. When the spec was written is kept from the
// first sync, even while nothing is bound yet.
func TestANamespaceCreatedAfterThePolicyWasWrittenIsNotBoundIn(t *testing.T) {
	ctx := context.Background()
	written := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	ns := func(name string, created time.Duration) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid"), CreationTimestamp: metav1.Time{Time: written.Add(created)}}}
	}
	alice := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	p := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(alice)}, Namespaces: []string{"early", "late"}})
	p.CreationTimestamp = metav1.Time{Time: written}
	c := newCluster(p, nil, ns("early", -time.Hour), ns("late", 10*time.Second))

	// No CRD yet: nothing to bind, but the write time is kept.
	c.sync(t)
	if checked := c.status(t).Checked; checked == nil || checked.SpecWrittenAt == nil || !checked.SpecWrittenAt.Time.Equal(written) || len(checked.Namespaces) != 0 {
		t.Fatalf("checked %+v, want the write time and no pin", checked)
	}
	c.crds = []*apiextensionsv1.CustomResourceDefinition{widgets}
	writes := c.sync(t)
	const binding = "p-0-Widget.example.com-edit"
	if !slices.Contains(writes, "create rolebindings "+binding) {
		t.Errorf("not bound in early: %v", writes)
	}
	if _, err := c.kube.RbacV1().RoleBindings("late").Get(ctx, binding, metav1.GetOptions{}); err == nil {
		t.Error("bound in a namespace created after the policy was written")
	}
	if checked := c.status(t).Checked; len(checked.Namespaces) != 1 || checked.Namespaces[0].Name != "early" {
		t.Errorf("pinned %+v, want early only", checked.Namespaces)
	}
	cond := condition(t, c.status(t), apiaccessv1alpha1.ConditionRBACManaged)
	if cond.Status != metav1.ConditionFalse || cond.Reason != apiaccessv1alpha1.ReasonNamespacesReplaced ||
		!strings.Contains(cond.Message, "namespaces late were deleted and re-created (or first created) after this spec was written") {
		t.Errorf("RBACManaged %+v", cond)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}
}

// A namespace the cache has not shown yet may exist already, re-created by
// someone else: a RoleBinding created in it by name would bind there
// unjudged. So a listed namespace missing from the cache is not bound in,
// and the policy says so, until the cache shows it and it is judged.
func TestANamespaceMissingFromTheCacheIsNotBoundIn(t *testing.T) {
	ctx := context.Background()
	written := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	listed := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "listed", UID: "listed-uid", CreationTimestamp: metav1.Time{Time: written.Add(-time.Hour)}}}
	alice := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	p := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(alice)}, Namespaces: []string{"listed"}})
	p.CreationTimestamp = metav1.Time{Time: written}
	c := newCluster(p, []*apiextensionsv1.CustomResourceDefinition{widgets}, listed)
	c.unseenNamespaces = []string{"listed"}

	const binding = "p-0-Widget.example.com-edit"
	if writes := c.sync(t); slices.Contains(writes, "create rolebindings "+binding) {
		t.Fatalf("bound in a namespace the cache does not hold: %v", writes)
	}
	if _, err := c.kube.RbacV1().RoleBindings("listed").Get(ctx, binding, metav1.GetOptions{}); err == nil {
		t.Fatal("a RoleBinding exists in a namespace the cache does not hold")
	}
	cond := condition(t, c.status(t), apiaccessv1alpha1.ConditionRBACManaged)
	if !strings.Contains(cond.Message, "1 RoleBindings are not created, their namespace does not exist: listed/"+binding) {
		t.Errorf("RBACManaged %+v, want it to name the RoleBinding not created", cond)
	}
	if checked := c.status(t).Checked; checked == nil || len(checked.Namespaces) != 0 {
		t.Errorf("pinned %+v, want nothing pinned", checked)
	}

	c.unseenNamespaces = nil
	if writes := c.sync(t); !slices.Contains(writes, "create rolebindings "+binding) {
		t.Errorf("once the cache holds it, not bound: %v", writes)
	}
}
