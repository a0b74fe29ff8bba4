package scopes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// An instance written before the CRD refused an empty namespaceSelector
// (what a plain label map becomes when a client drops unknown fields)
// binds nothing, and says how to write a selector, rather than binding in
// every namespace.
func TestAnEmptySelectorBindsNothing(t *testing.T) {
	ctx := context.Background()
	instance := newInstance("i", "t", nil, nil)
	instance.Spec.NamespaceSelector = &metav1.LabelSelector{}
	f := newFixture(t, newTemplate("t", "reader-"), instance, newNamespace("a", nil), newNamespace("b", map[string]string{"team": "x"}))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if rbs, _ := f.kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{}); len(rbs.Items) != 0 {
		t.Errorf("an empty selector bound in %d namespaces", len(rbs.Items))
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionInvalid); c.Status != metav1.ConditionTrue ||
		c.Reason != scopesv1alpha1.ReasonInvalidNamespaceSelector || !strings.Contains(c.Message, "would select every namespace") ||
		!strings.Contains(c.Message, "matchLabels: {team: a}") {
		t.Errorf("Invalid %+v", c)
	}
}

// The access-grants check refuses a listed namespace that does not exist,
// but a namespace may be deleted after admission and created again, by
// anyone who may create namespaces, before the operator first syncs the
// spec (or while it is down). A listed namespace created after the spec
// was written is not the one the check judged: it is not pinned, not bound
// in, and reported, however long after it is first seen. When the spec was
// written is taken once per generation, so a later label does not move it.
func TestANamespaceCreatedAfterTheSpecWasWrittenIsNotBound(t *testing.T) {
	ctx := context.Background()
	written := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.Time{Time: written.Add(d)} }
	namespace := func(name string, created time.Duration) *corev1.Namespace {
		ns := newNamespace(name, nil)
		ns.UID, ns.CreationTimestamp = types.UID(name+"-uid"), at(created)
		return ns
	}
	instance := newInstance("i", "t", []string{"early", "late", "gone"}, nil)
	instance.CreationTimestamp = at(-time.Hour)
	instance.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: written}}}
	// late is another "late" than the one admitted: created 10 s after the
	// spec was written, before the operator's first sync.
	f := newFixture(t, newTemplate("t", "reader-"), instance, namespace("early", -2*time.Hour), namespace("late", 10*time.Second))
	f.syncTemplate("t")
	sync := func() *scopesv1alpha1.ScopeInstance { t.Helper(); return f.syncedInstance(t, "i") }
	boundIn := f.bindingNamespaces

	got := sync()
	if c := got.Status.Checked; c == nil || c.SpecWrittenAt == nil || !c.SpecWrittenAt.Time.Equal(written) ||
		len(c.Namespaces) != 1 || c.Namespaces[0].Name != "early" {
		t.Errorf("checked %+v, want the write time and only early pinned", c)
	}
	if ns := boundIn(); len(ns) != 1 || ns[0] != "early" {
		t.Errorf("bound in %v, want early only", ns)
	}
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); c.Reason != scopesv1alpha1.ReasonNamespacesReplaced ||
		!strings.Contains(c.Message, "namespaces late were deleted and re-created (or first created) after this spec was written") {
		t.Errorf("Bound %+v", c)
	}

	// Someone labels the instance an hour later: its managed fields move,
	// the pin's time does not. gone is created then too.
	got.Labels = map[string]string{"team": "a"}
	got.ManagedFields = append(got.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl-label", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: written.Add(time.Hour)}})
	_, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Update(ctx, got, metav1.UpdateOptions{})
	_, _ = f.kube.CoreV1().Namespaces().Create(ctx, namespace("gone", 30*time.Minute), metav1.CreateOptions{})
	f.writes()
	got = sync()
	if ns := boundIn(); len(ns) != 1 {
		t.Errorf("after a label: bound in %v, want early only", ns)
	}
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); !strings.Contains(c.Message, "namespaces gone, late") {
		t.Errorf("Bound %+v", c)
	}
	if w := f.writes(); len(w) != 1 || w[0] != "update scopeinstances/status" {
		t.Errorf("writes %v, want the status once (gone reported)", w)
	}

	// The spec written again (a new generation, judged with both
	// namespaces existing): all three are bound.
	got.Generation = 2
	got.ManagedFields = append(got.ManagedFields, metav1.ManagedFieldsEntry{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, Time: &metav1.Time{Time: written.Add(2 * time.Hour)}})
	_, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Update(ctx, got, metav1.UpdateOptions{})
	got = sync()
	if ns := boundIn(); len(ns) != 3 {
		t.Errorf("after the spec was written again: bound in %v, want all three", ns)
	}
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); c.Status != metav1.ConditionTrue {
		t.Errorf("Bound %+v", c)
	}
}

// An instance checked before the operator took when its spec was written
// (status.checked of its generation without specWrittenAt) gets it from
// its own times, and is held to it from then on.
func TestACheckedInstanceFromBeforeGetsItsWriteTime(t *testing.T) {
	ctx := context.Background()
	created := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	instance := newInstance("i", "t", []string{"a", "b"}, nil)
	instance.CreationTimestamp = metav1.Time{Time: created}
	instance.Status.Checked = &scopesv1alpha1.CheckedScope{Generation: 1, ScopeTemplateUID: "template-uid",
		Namespaces: []scopesv1alpha1.NamespaceUID{{Name: "a", UID: "a-uid"}}}
	a, b := newNamespace("a", nil), newNamespace("b", nil)
	a.UID, a.CreationTimestamp = "a-uid", metav1.Time{Time: created.Add(-time.Hour)}
	// b did not exist when the instance was written; an operator before
	// issue 33 would pin it as it appeared.
	b.UID, b.CreationTimestamp = "b-uid", metav1.Time{Time: created.Add(time.Hour)}
	f := newFixture(t, newTemplate("t", "reader-"), instance, a, b)
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := got.Status.Checked; c.SpecWrittenAt == nil || !c.SpecWrittenAt.Time.Equal(created) || len(c.Namespaces) != 1 {
		t.Errorf("checked %+v", c)
	}
	name := BindingName(ClusterRoleName("t", "reader-"), "i")
	if _, err := f.kube.RbacV1().RoleBindings("b").Get(ctx, name, metav1.GetOptions{}); err == nil {
		t.Error("bound in a namespace created after the instance was written")
	}
	if _, err := f.kube.RbacV1().RoleBindings("a").Get(ctx, name, metav1.GetOptions{}); err != nil {
		t.Errorf("not bound in a: %v", err)
	}
}

// A listed namespace is the one the check judged, whatever else the
// instance says: beside a selector it is pinned by UID as without one, and
// a namespace of its name made later, by anyone, is not bound, with or
// without the selector's labels. What the selector matches is bound as it
// comes: the selector trusts whoever may create or label namespaces.
func TestAListedNamespaceIsPinnedBesideASelector(t *testing.T) {
	ctx := context.Background()
	written := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	team := map[string]string{"team": "a"}
	namespace := func(name, uid string, labels map[string]string, created time.Duration) *corev1.Namespace {
		ns := newNamespace(name, labels)
		ns.UID, ns.CreationTimestamp = types.UID(uid), metav1.Time{Time: written.Add(created)}
		return ns
	}
	instance := newInstance("i", "t", []string{"team-a-dev"}, team)
	instance.CreationTimestamp = metav1.Time{Time: written}
	f := newFixture(t, newTemplate("t", "reader-"), instance, namespace("team-a-dev", "dev-1", nil, -time.Hour), namespace("team-a-qa", "qa-1", team, -time.Hour))
	f.syncTemplate("t")
	sync := func() *scopesv1alpha1.ScopeInstance { t.Helper(); return f.syncedInstance(t, "i") }
	boundIn := f.bindingNamespaces
	got := sync()
	if ns := boundIn(); !slices.Equal(ns, []string{"team-a-dev", "team-a-qa"}) {
		t.Fatalf("bound in %v, want team-a-dev (listed) and team-a-qa (selected)", ns)
	}
	if c := got.Status.Checked; c == nil || len(c.Namespaces) != 1 || c.Namespaces[0] != (scopesv1alpha1.NamespaceUID{Name: "team-a-dev", UID: "dev-1"}) {
		t.Errorf("checked %+v, want the listed namespace pinned", c)
	}

	for _, labels := range []map[string]string{nil, team} {
		// Deleted, and made again by a user who may create namespaces.
		_ = f.kube.CoreV1().Namespaces().Delete(ctx, "team-a-dev", metav1.DeleteOptions{})
		_ = f.kube.RbacV1().RoleBindings("team-a-dev").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_, _ = f.kube.CoreV1().Namespaces().Create(ctx, namespace("team-a-dev", fmt.Sprintf("dev-%d", 2+len(labels)), labels, time.Hour), metav1.CreateOptions{})
		got = sync()
		if ns := boundIn(); !slices.Equal(ns, []string{"team-a-qa"}) {
			t.Errorf("re-created with labels %v: bound in %v, want team-a-qa only", labels, ns)
		}
		if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); c.Reason != scopesv1alpha1.ReasonNamespacesReplaced {
			t.Errorf("re-created with labels %v: Bound %+v, want NamespacesReplaced", labels, c)
		}
	}
}

// syncedInstance syncs the instance and returns it as stored after.
func (f *fixture) syncedInstance(t *testing.T, name string) *scopesv1alpha1.ScopeInstance {
	t.Helper()
	if err := f.syncInstance(name); err != nil {
		t.Fatal(err)
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(context.Background(), name, metav1.GetOptions{})
	return got
}

// bindingNamespaces are the namespaces of every RoleBinding, sorted.
func (f *fixture) bindingNamespaces() []string {
	rbs, _ := f.kube.RbacV1().RoleBindings("").List(context.Background(), metav1.ListOptions{})
	var out []string
	for _, rb := range rbs.Items {
		out = append(out, rb.Namespace)
	}
	slices.Sort(out)
	return out
}
