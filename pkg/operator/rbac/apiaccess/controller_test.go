package apiaccess

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	rbacv1listers "k8s.io/client-go/listers/rbac/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	fakeclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	apiaccesslisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
)

func crd(plural, group, kind string, labels map[string]string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group, Labels: labels},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural}},
	}
}

func ownedByExtension(name string) map[string]string {
	return map[string]string{apiaccessv1alpha1.OLMOwnerKindLabel: apiaccessv1alpha1.OLMOwnerKindClusterExtension, apiaccessv1alpha1.OLMOwnerNameLabel: name}
}

func policy(mode apiaccessv1alpha1.AccessMode, crds apiaccessv1alpha1.CRDSelection, bindings ...apiaccessv1alpha1.AccessBinding) *apiaccessv1alpha1.APIAccessPolicy {
	return &apiaccessv1alpha1.APIAccessPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "p", UID: types.UID("uid-p"), Generation: 1},
		Spec:       apiaccessv1alpha1.APIAccessPolicySpec{CRDs: crds, Mode: mode, Bindings: bindings},
	}
}

// cluster is the fake API server's state between syncs; each sync builds
// the controller from it as the informers would see it.
type cluster struct {
	kube    *kubefake.Clientset
	client  *fakeclient.Clientset
	crds    []*apiextensionsv1.CustomResourceDefinition
	policy  *apiaccessv1alpha1.APIAccessPolicy
	events  []string
	changes []string
	// unseen leaves the caches empty, as informers that have yet to see
	// what the API server holds.
	unseen bool
	// roleReads are the ClusterRoles the last sync read from the API server.
	roleReads []string
	// staleRoles are in the caches in place of what the API server holds,
	// as informers that have yet to see a deletion.
	staleRoles []*rbacv1.ClusterRole
	// now is the controller's clock; nil is the real one.
	now func() time.Time
	// unseenNamespaces are left out of the Namespace cache, as an informer
	// that has yet to see their creation.
	unseenNamespaces []string
}

// namespaces are existing namespaces of those names, for newCluster.
func namespaces(names ...string) []runtime.Object {
	out := make([]runtime.Object, len(names))
	for i, name := range names {
		out[i] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name + "-uid")}}
	}
	return out
}

func newCluster(p *apiaccessv1alpha1.APIAccessPolicy, crds []*apiextensionsv1.CustomResourceDefinition, objects ...runtime.Object) *cluster {
	return &cluster{kube: kubefake.NewClientset(objects...), client: fakeclient.NewSimpleClientset(p), crds: crds, policy: p}
}

// sync runs one sync of the policy against the cluster as it is now and
// returns the write actions it made.
func (c *cluster) sync(t *testing.T) []string {
	t.Helper()
	writes, err := c.trySync(t)
	if err != nil {
		t.Fatal(err)
	}
	return writes
}

// trySync is sync, returning the sync's error.
func (c *cluster) trySync(t *testing.T) ([]string, error) {
	t.Helper()
	ctx := context.Background()
	c.kube.ClearActions()
	c.client.ClearActions()
	crdIndexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, crd := range c.crds {
		stripped, _ := crdaccess.StripCRD(crd)
		_ = crdIndexer.Add(stripped)
	}
	labelled := func(obj metav1.Object) bool { return obj.GetLabels()[apiaccessv1alpha1.PolicyLabel] != "" }
	roles := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	clusterBindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	bindings := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	rl, _ := c.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	roleNames := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for i := range rl.Items {
		if c.unseen {
			break
		}
		_ = roleNames.Add(&rl.Items[i])
		if labelled(&rl.Items[i]) {
			_ = roles.Add(&rl.Items[i])
		}
	}
	for _, r := range c.staleRoles {
		_ = roleNames.Add(r)
		_ = roles.Add(r)
	}
	cbl, _ := c.kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	for i := range cbl.Items {
		if !c.unseen && labelled(&cbl.Items[i]) {
			_ = clusterBindings.Add(&cbl.Items[i])
		}
	}
	bl, _ := c.kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	for i := range bl.Items {
		if !c.unseen && labelled(&bl.Items[i]) {
			_ = bindings.Add(&bl.Items[i])
		}
	}
	policy, err := c.client.APIAccessV1alpha1().APIAccessPolicies().Get(ctx, c.policy.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policy.Spec = c.policy.Spec
	namespaces := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	nsl, _ := c.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	for i := range nsl.Items {
		if slices.Contains(c.unseenNamespaces, nsl.Items[i].Name) {
			continue
		}
		slim, _ := informerkit.SlimNamespace(&nsl.Items[i])
		_ = namespaces.Add(slim)
	}
	ctrl := newGenerator(c.client.APIAccessV1alpha1(), c.kube, crdLister{crdIndexer},
		rbacv1listers.NewClusterRoleLister(roles), roleNames, rbacv1listers.NewClusterRoleBindingLister(clusterBindings), rbacv1listers.NewRoleBindingLister(bindings))
	ctrl.namespaces = corelisters.NewNamespaceLister(namespaces)
	if c.now != nil {
		ctrl.now = c.now
	}
	recorder := events.NewInMemoryRecorder("test", clock.RealClock{})
	syncErr := ctrl.syncPolicy(ctx, factory.NewSyncContext("test", recorder), policy)
	for _, e := range recorder.Events() {
		c.events = append(c.events, e.Reason+": "+e.Message)
	}
	var writes []string
	c.roleReads = nil
	for _, a := range append(c.kube.Actions(), c.client.Actions()...) {
		switch a.GetVerb() {
		case "get":
			if a.GetResource().Resource == "clusterroles" {
				c.roleReads = append(c.roleReads, a.(clienttesting.GetAction).GetName())
			}
			continue
		case "list", "watch":
			continue
		}
		what := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			what += "/" + a.GetSubresource()
		}
		switch a := a.(type) {
		case clienttesting.CreateAction:
			what += " " + a.GetObject().(metav1.Object).GetName()
		case clienttesting.UpdateAction:
			what += " " + a.GetObject().(metav1.Object).GetName()
		case clienttesting.DeleteAction:
			what += " " + a.GetName()
		}
		writes = append(writes, what)
	}
	return writes, syncErr
}

func (c *cluster) status(t *testing.T) apiaccessv1alpha1.APIAccessPolicyStatus {
	t.Helper()
	p, err := c.client.APIAccessV1alpha1().APIAccessPolicies().Get(context.Background(), c.policy.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Status
}

func (c *cluster) role(t *testing.T, name string) *rbacv1.ClusterRole {
	t.Helper()
	r, err := c.kube.RbacV1().ClusterRoles().Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (c *cluster) roleNames(t *testing.T) []string {
	t.Helper()
	list, _ := c.kube.RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{LabelSelector: apiaccessv1alpha1.PolicyLabel})
	var out []string
	for _, r := range list.Items {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

func condition(t *testing.T, status apiaccessv1alpha1.APIAccessPolicyStatus, conditionType string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(status.Conditions, conditionType)
	if c == nil {
		t.Fatalf("no %s condition in %+v", conditionType, status.Conditions)
	}
	return *c
}

var widgets = crd("widgets", "example.com", "Widget", ownedByExtension("ext"))

func TestAggregateGeneratesTheFourRolesWithAggregationLabelsAndASecondSyncWritesNothing(t *testing.T) {
	gadgets := crd("gadgets", "example.com", "Gadget", nil)
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets, gadgets})
	writes := c.sync(t)
	if got := len(writes); got != 5 { // four roles and the status
		t.Errorf("first sync: want 4 creates and a status update, got %v", writes)
	}
	want := []string{"Widget.example.com-admin", "Widget.example.com-edit", "Widget.example.com-view", "Widget.example.com-view-crdview"}
	if got := c.roleNames(t); !slices.Equal(got, want) {
		t.Errorf("roles %v, want %v (gadgets is not the extension's)", got, want)
	}
	admin := c.role(t, "Widget.example.com-admin")
	if admin.Labels[apiaccessv1alpha1.AggregateToAdminLabel] != "true" || admin.Labels[apiaccessv1alpha1.PolicyLabel] != "p" {
		t.Errorf("admin role labels %v", admin.Labels)
	}
	if len(admin.OwnerReferences) != 1 || admin.OwnerReferences[0].UID != "uid-p" || !*admin.OwnerReferences[0].Controller {
		t.Errorf("admin role owner %v", admin.OwnerReferences)
	}
	if crdview := c.role(t, "Widget.example.com-view-crdview"); crdview.Labels[apiaccessv1alpha1.AggregateToViewLabel] != "true" ||
		!slices.Equal(crdview.Rules[0].ResourceNames, []string{"widgets.example.com"}) {
		t.Errorf("crdview role %+v", crdview)
	}
	status := c.status(t)
	if status.CRDCount != 1 || len(status.ManagedObjects) != 4 || status.ObservedGeneration != 1 {
		t.Errorf("status %+v", status)
	}
	if got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged); got.Status != metav1.ConditionTrue {
		t.Errorf("RBACManaged %+v", got)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}
}

func TestBindGrantsTheRolesPerNamespaceOrClusterWideAndCRDViewWithView(t *testing.T) {
	alice := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	bob := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "bob"}
	p := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com", "absent.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(alice)}, Namespaces: []string{"a", "b"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(bob)}})
	c := newCluster(p, []*apiextensionsv1.CustomResourceDefinition{widgets}, namespaces("a", "b")...)
	c.sync(t)
	if admin := c.role(t, "Widget.example.com-admin"); admin.Labels[apiaccessv1alpha1.AggregateToAdminLabel] != "" {
		t.Errorf("Bind mode: no aggregation label, got %v", admin.Labels)
	}
	for _, ns := range []string{"a", "b"} {
		rb, err := c.kube.RbacV1().RoleBindings(ns).Get(context.Background(), "p-0-Widget.example.com-edit", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rb.RoleRef.Name != "Widget.example.com-edit" || !slices.Equal(rb.Subjects, []rbacv1.Subject{alice}) {
			t.Errorf("RoleBinding in %s: %+v", ns, rb)
		}
	}
	for _, name := range []string{"p-1-Widget.example.com-view", "p-1-Widget.example.com-view-crdview"} {
		crb, err := c.kube.RbacV1().ClusterRoleBindings().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(crb.Subjects, []rbacv1.Subject{bob}) {
			t.Errorf("%s subjects %v", name, crb.Subjects)
		}
	}
	if got := len(c.status(t).ManagedObjects); got != 8 {
		t.Errorf("managedObjects: want 4 roles, 2 RoleBindings, 2 ClusterRoleBindings, got %d", got)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}

	// Dropping namespace b removes its binding only.
	c.policy.Spec.Bindings[0].Namespaces = []string{"a"}
	writes := c.sync(t)
	if !slices.Contains(writes, "delete rolebindings p-0-Widget.example.com-edit") || len(writes) != 2 {
		t.Errorf("want the binding in b deleted and the status updated, got %v", writes)
	}
}

func TestModeSwitchesLeaveNothingBehind(t *testing.T) {
	viewer := rbacv1.Subject{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "viewers"}
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets})
	c.sync(t)

	c.policy.Spec.Mode = apiaccessv1alpha1.ModeBind
	c.policy.Spec.Bindings = []apiaccessv1alpha1.AccessBinding{{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(viewer)}}}
	c.sync(t)
	for _, name := range c.roleNames(t) {
		for _, l := range []string{apiaccessv1alpha1.AggregateToAdminLabel, apiaccessv1alpha1.AggregateToEditLabel, apiaccessv1alpha1.AggregateToViewLabel} {
			if _, ok := c.role(t, name).Labels[l]; ok {
				t.Errorf("Aggregate->Bind: %s still has %s", name, l)
			}
		}
	}

	c.policy.Spec.Mode, c.policy.Spec.Bindings = apiaccessv1alpha1.ModeUnmanaged, nil
	c.sync(t)
	if names := c.roleNames(t); len(names) != 0 {
		t.Errorf("Unmanaged: roles left %v", names)
	}
	if crbs, _ := c.kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{}); len(crbs.Items) != 0 {
		t.Errorf("Unmanaged: bindings left %v", crbs.Items)
	}
	status := c.status(t)
	got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged)
	if got.Status != metav1.ConditionFalse || got.Reason != apiaccessv1alpha1.ReasonUnmanaged || !strings.Contains(got.Message, "widgets.example.com") {
		t.Errorf("Unmanaged condition %+v", got)
	}
	if len(status.ManagedObjects) != 0 || status.CRDCount != 1 {
		t.Errorf("Unmanaged status %+v", status)
	}
	if !slices.ContainsFunc(c.events, func(e string) bool {
		return strings.HasPrefix(e, "APIAccessPolicyRBACManaged: ") && strings.Contains(e, "Unmanaged")
	}) {
		t.Errorf("no event for the switch to Unmanaged: %v", c.events)
	}

	// The CRD going away takes its roles with it.
	c.policy.Spec.Mode = apiaccessv1alpha1.ModeAggregate
	c.sync(t)
	c.crds = nil
	c.sync(t)
	if names := c.roleNames(t); len(names) != 0 {
		t.Errorf("CRD deleted: roles left %v", names)
	}
}

func TestAForeignObjectIsAConflictAndNeverOverwritten(t *testing.T) {
	foreign := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-admin"},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}}}
	other := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-view", Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: "first"}}}
	admin := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "admin"}
	c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(admin)}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets}, foreign, other)
	writes := c.sync(t)
	for _, w := range writes {
		if strings.Contains(w, "Widget.example.com-admin") || strings.Contains(w, "Widget.example.com-view ") {
			t.Errorf("wrote a name that is not ours: %s", w)
		}
	}
	if got := c.role(t, "Widget.example.com-admin"); got.Labels != nil || got.Rules[0].Resources[0] != "secrets" {
		t.Errorf("the foreign role was changed: %+v", got)
	}
	cond := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict)
	if cond.Status != metav1.ConditionTrue || !strings.Contains(cond.Message, "ClusterRole Widget.example.com-admin") ||
		!strings.Contains(cond.Message, "APIAccessPolicy first") {
		t.Errorf("Conflict %+v", cond)
	}
	if got := c.roleNames(t); !slices.Equal(got, []string{"Widget.example.com-edit", "Widget.example.com-view", "Widget.example.com-view-crdview"}) {
		t.Errorf("the rest is applied: roles %v", got)
	}
	if crbs, _ := c.kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{}); len(crbs.Items) != 0 {
		t.Errorf("a role that is not ours must not be bound: %v", crbs.Items)
	}
	if !slices.ContainsFunc(c.events, func(e string) bool { return strings.HasPrefix(e, "APIAccessPolicyConflict: ") }) {
		t.Errorf("no Conflict event: %v", c.events)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}
}

// The policy label proves nothing: anyone who may create a ClusterRole can
// squat a generated name with it, and anyone who may label a binding can
// put it there. Only an object the policy controls (its UID) is written or
// deleted; a squatted name is a Conflict and is never bound.
func TestALabelIsNoOwnership(t *testing.T) {
	editor := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "editor"}
	narrow := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}}
	squatted := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-admin",
		Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: "p"}}, Rules: narrow}
	// A binding labelled for the policy, of a name it no longer wants, and
	// one controlled by an earlier policy of the same name (another UID).
	planted := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "team-binding",
		Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: "p"}},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"}}
	earlier := planted.DeepCopy()
	earlier.Name = "p-9-Widget.example.com-edit"
	earlier.OwnerReferences = ownerRef(&apiaccessv1alpha1.APIAccessPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", UID: "uid-earlier"}})
	c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleAdmin, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(editor)}, Namespaces: []string{"a"}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets}, squatted, planted, earlier)
	writes := c.sync(t)
	for _, w := range writes {
		if strings.Contains(w, "Widget.example.com-admin") || strings.Contains(w, "team-binding") || strings.Contains(w, earlier.Name) {
			t.Errorf("wrote an object the policy does not control: %s", w)
		}
	}
	if got := c.role(t, squatted.Name); !equalRules(got.Rules, narrow) || len(got.OwnerReferences) != 0 {
		t.Errorf("the squatted role was changed: %+v", got)
	}
	for _, name := range []string{planted.Name, earlier.Name} {
		if _, err := c.kube.RbacV1().RoleBindings("a").Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			t.Errorf("binding %s: %v", name, err)
		}
	}
	if _, err := c.kube.RbacV1().RoleBindings("a").Get(context.Background(), "p-0-Widget.example.com-admin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the squatted role is bound: %v", err)
	}
	cond := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict)
	if cond.Status != metav1.ConditionTrue || !strings.Contains(cond.Message, "ClusterRole Widget.example.com-admin (labelled for this policy but not created by it)") {
		t.Errorf("Conflict %+v", cond)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}
}

func equalRules(a, b []rbacv1.PolicyRule) bool {
	return slices.EqualFunc(a, b, func(x, y rbacv1.PolicyRule) bool {
		return slices.Equal(x.Verbs, y.Verbs) && slices.Equal(x.APIGroups, y.APIGroups) && slices.Equal(x.Resources, y.Resources)
	})
}

func TestARoleTheBundleProvidesIsUsedNotDuplicated(t *testing.T) {
	bundleRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-edit", Labels: ownedByExtension("ext")},
		Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}},
			{Verbs: []string{"create", "update"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, ResourceNames: []string{"w1"}},
		}}
	editor := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "editor"}
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets}, append(namespaces("team"), bundleRole)...)
	c.sync(t)
	if got := c.role(t, "Widget.example.com-edit"); got.Labels[apiaccessv1alpha1.PolicyLabel] != "" {
		t.Errorf("the bundle's role was edited: %v", got.Labels)
	}
	status := c.status(t)
	if len(status.ManagedObjects) != 3 {
		t.Errorf("the bundle's role is not the policy's to manage: %v", status.ManagedObjects)
	}
	if got := condition(t, status, apiaccessv1alpha1.ConditionNotAggregated); got.Status != metav1.ConditionTrue || !strings.Contains(got.Message, "Widget.example.com-edit") {
		t.Errorf("NotAggregated %+v", got)
	}
	if got := condition(t, status, apiaccessv1alpha1.ConditionConflict); got.Status != metav1.ConditionFalse {
		t.Errorf("a bundle's role is no conflict: %+v", got)
	}

	c.policy.Spec.Mode = apiaccessv1alpha1.ModeBind
	c.policy.Spec.Bindings = []apiaccessv1alpha1.AccessBinding{{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(editor)}, Namespaces: []string{"team"}}}
	c.sync(t)
	rb, err := c.kube.RbacV1().RoleBindings("team").Get(context.Background(), "p-0-Widget.example.com-edit", metav1.GetOptions{})
	if err != nil || rb.RoleRef.Name != "Widget.example.com-edit" {
		t.Errorf("the bundle's role is bound: %+v %v", rb, err)
	}
	if meta.FindStatusCondition(c.status(t).Conditions, apiaccessv1alpha1.ConditionNotAggregated) != nil {
		t.Errorf("NotAggregated concerns Aggregate mode only")
	}

	// A bundle role granting more than the generated role would is not
	// bound: the admission check asked the policy's author to hold only
	// the generated rules.
	for _, wider := range []rbacv1.PolicyRule{
		{Verbs: []string{"*"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}},
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}},
		{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets/status"}},
	} {
		role := c.role(t, "Widget.example.com-edit")
		role.Rules = append(bundleRole.DeepCopy().Rules, wider)
		if _, err := c.kube.RbacV1().ClusterRoles().Update(context.Background(), role, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.sync(t)
		if _, err := c.kube.RbacV1().RoleBindings("team").Get(context.Background(), "p-0-Widget.example.com-edit", metav1.GetOptions{}); err == nil {
			t.Errorf("with %v, the bundle's role is still bound", wider)
		}
		if got := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict); got.Status != metav1.ConditionTrue ||
			!strings.Contains(got.Message, "ClusterRole Widget.example.com-edit (the bundle's, granting more than the generated role would)") {
			t.Errorf("with %v: Conflict %+v", wider, got)
		}
	}
}

// An upgrade that brings the bundle's own role after the policy generated
// one of that name (the reverse order of the test above): OLM v1 does not
// adopt an object it did not create, so the generated role goes first
// (docs/apiaccess.md "Troubleshooting"), and the bundle's takes its name.
// The policy hands the name over: it binds the bundle's role through the
// same binding, neither edits nor deletes it (nor writes anything while
// its caches still hold the generated role), and re-creates nothing.
func TestAnUpgradeThatBringsTheBundlesRoleTakesTheGeneratedRolesPlace(t *testing.T) {
	editor := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "editor"}
	c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(editor)}, Namespaces: []string{"team"}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", UID: "uid-team"}})
	c.sync(t)
	const name = "Widget.example.com-edit"
	generated := c.role(t, name)
	generated.UID = "uid-generated"
	binding, err := c.kube.RbacV1().RoleBindings("team").Get(context.Background(), "p-0-"+name, metav1.GetOptions{})
	if err != nil || binding.RoleRef.Name != name {
		t.Fatalf("the generated role is not bound: %+v %v", binding, err)
	}

	// The upgrade: the generated role is gone, the bundle's is there.
	if err := c.kube.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	bundleRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid-bundle", Labels: ownedByExtension("ext")},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "watch", "create"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}}}
	if _, err := c.kube.RbacV1().ClusterRoles().Create(context.Background(), bundleRole, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.staleRoles = []*rbacv1.ClusterRole{generated}
	writes, err := c.trySync(t)
	if err != nil {
		t.Fatalf("a sync whose caches still hold the generated role: %v", err)
	}
	for _, w := range writes {
		if strings.Contains(w, name) {
			t.Errorf("a sync whose caches still hold the generated role wrote %q", w)
		}
	}
	c.staleRoles = nil
	for range 2 {
		for _, w := range c.sync(t) {
			if strings.Contains(w, name) {
				t.Errorf("wrote %q", w)
			}
		}
	}
	got := c.role(t, name)
	if got.UID != "uid-bundle" || got.Labels[apiaccessv1alpha1.PolicyLabel] != "" || len(got.OwnerReferences) != 0 ||
		!equality.Semantic.DeepEqual(got.Rules, bundleRole.Rules) {
		t.Errorf("the bundle's role was replaced or edited: %+v", got)
	}
	after, err := c.kube.RbacV1().RoleBindings("team").Get(context.Background(), "p-0-"+name, metav1.GetOptions{})
	if err != nil || after.RoleRef.Name != name || after.ResourceVersion != binding.ResourceVersion {
		t.Errorf("the binding should name the bundle's role, untouched: %+v %v", after, err)
	}
	status := c.status(t)
	for _, m := range status.ManagedObjects {
		if m.Name == name && m.Kind == "ClusterRole" {
			t.Errorf("the bundle's role is listed as managed: %v", status.ManagedObjects)
		}
	}
	if got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged); got.Status != metav1.ConditionTrue ||
		!strings.Contains(got.Message, "roles the bundles provide are used: "+name) {
		t.Errorf("RBACManaged %+v", got)
	}
}

// Two CRDs of one kind in one group would share role names: the one the
// API server serves gets them, the other is a conflict, and resyncs write
// nothing.
func TestCRDsOfOneKindShareNoRoles(t *testing.T) {
	served := widgets.DeepCopy()
	served.Name, served.Spec.Names.Plural = "zwidgets.example.com", "zwidgets"
	served.Status.AcceptedNames.Kind = served.Spec.Names.Kind
	refused := widgets.DeepCopy() // widgets.example.com, kind Widget, names not accepted
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{refused, served})
	c.sync(t)
	admin := c.role(t, "Widget.example.com-admin")
	if got := admin.Rules[0].Resources; len(got) != 1 || got[0] != "zwidgets" {
		t.Errorf("the admin role names %v, want the served CRD's zwidgets", got)
	}
	if got := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict); got.Status != metav1.ConditionTrue ||
		!strings.Contains(got.Message, "CustomResourceDefinition widgets.example.com (kind Widget in group example.com, as zwidgets.example.com") {
		t.Errorf("Conflict %+v", got)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}
}

func TestAnInvalidSelectorGeneratesNothing(t *testing.T) {
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets})
	c.sync(t)
	c.policy.Spec.CRDs = apiaccessv1alpha1.CRDSelection{Selector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Bogus"}}}}
	c.sync(t)
	if names := c.roleNames(t); len(names) != 0 {
		t.Errorf("invalid: roles left %v", names)
	}
	if got := condition(t, c.status(t), apiaccessv1alpha1.ConditionInvalid); got.Status != metav1.ConditionTrue || got.Reason != apiaccessv1alpha1.ReasonInvalidSelector {
		t.Errorf("Invalid %+v", got)
	}
}

func TestABindingInANamespaceThatDoesNotExistWaitsForIt(t *testing.T) {
	editor := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "editor"}
	c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(editor)}, Namespaces: []string{"here", "gone"}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets}, namespaces("here", "gone")...)
	// gone is in the cache, but deleted since: the create finds it missing.
	c.kube.PrependReactor("create", "rolebindings", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() == "gone" {
			return true, nil, apierrors.NewNotFound(corev1.Resource("namespaces"), "gone")
		}
		return false, nil, nil
	})
	c.sync(t)
	status := c.status(t)
	if got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged); got.Status != metav1.ConditionTrue || !strings.Contains(got.Message, "gone/p-0-Widget.example.com-edit") {
		t.Errorf("RBACManaged %+v", got)
	}
	for _, m := range status.ManagedObjects {
		if m.Namespace == "gone" {
			t.Errorf("a binding that was not created is listed: %+v", m)
		}
	}
	if _, err := c.kube.RbacV1().RoleBindings("here").Get(context.Background(), "p-0-Widget.example.com-edit", metav1.GetOptions{}); err != nil {
		t.Errorf("the other namespace's binding: %v", err)
	}
}

// The cache of every role's name spares a new policy one read per role:
// only a name in use is read, to judge whose it is.
func TestOnlyRoleNamesInUseAreRead(t *testing.T) {
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-view"}})
	c.sync(t)
	if !slices.Equal(c.roleReads, []string{"Widget.example.com-view"}) {
		t.Errorf("read %v, want only the role someone else holds", c.roleReads)
	}
	if got := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict); got.Status != metav1.ConditionTrue ||
		!strings.Contains(got.Message, "Widget.example.com-view") {
		t.Errorf("Conflict %+v", got)
	}
}

// A sync whose caches have yet to see the roles the sync before created
// finds them at create, reads them, and writes nothing more; one that finds
// a stranger's role there refuses to touch it.
func TestCachesThatLagNeitherFailNorOverwrite(t *testing.T) {
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets})
	c.sync(t)
	c.unseen = true
	writes, err := c.trySync(t)
	if err != nil {
		t.Fatalf("a sync behind its caches failed: %v", err)
	}
	for _, w := range writes {
		if !strings.HasPrefix(w, "create clusterroles ") { // refused: they exist
			t.Errorf("a sync behind its caches wrote %q", w)
		}
	}
	if len(c.roleReads) != 4 {
		t.Errorf("read %v, want the four roles it found at create", c.roleReads)
	}

	stranger := c.role(t, "Widget.example.com-edit")
	stranger.Labels, stranger.OwnerReferences = nil, nil
	if _, err := c.kube.RbacV1().ClusterRoles().Update(context.Background(), stranger, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	writes, err = c.trySync(t)
	// A role the policy made before is read from the API server when the
	// caches lack it (it may have been deleted: handoverOf), so the
	// stranger's is found then and is a Conflict; otherwise at create.
	if err != nil {
		if !strings.Contains(err.Error(), "Widget.example.com-edit") || !strings.Contains(err.Error(), "left untouched") {
			t.Errorf("a stranger's role found at create: err %v, want it named and left untouched", err)
		}
	} else if got := condition(t, c.status(t), apiaccessv1alpha1.ConditionConflict); got.Status != metav1.ConditionTrue ||
		!strings.Contains(got.Message, "ClusterRole Widget.example.com-edit") {
		t.Errorf("a stranger's role found by its read: Conflict %+v, want it named", got)
	}
	for _, w := range writes {
		if strings.HasPrefix(w, "update clusterroles Widget.example.com-edit") {
			t.Errorf("the stranger's role was written: %v", writes)
		}
	}
}

func TestForeignRolesUnderGeneratedNamesWakeEveryPolicy(t *testing.T) {
	policies := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = policies.Add(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}}))
	key := foreignGeneratedName(apiaccesslisters.NewAPIAccessPolicyLister(policies))
	for name, want := range map[string]bool{
		"Widget.example.com-admin":        true,
		"Widget.example.com-view-crdview": true,
		"admin":                           false, // the kube-controller-manager rewrites it with every aggregated role
		"system:aggregate-to-edit":        false,
	} {
		keys := key(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name}})
		if got := len(keys) == 1 && keys[0] == "p"; got != want {
			t.Errorf("%s woke %v", name, keys)
		}
	}
	ours := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "Widget.example.com-admin", Labels: map[string]string{apiaccessv1alpha1.PolicyLabel: "p"}}}
	if keys := key(ours); keys != nil {
		t.Errorf("a policy's own role woke %v: its own informer does that", keys)
	}
}

func TestRuleWithin(t *testing.T) {
	widgetsEdit := rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get", "update"}}
	health := rbacv1.PolicyRule{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}
	for _, tc := range []struct {
		name string
		r, g rbacv1.PolicyRule
		want bool
	}{
		{"the same", widgetsEdit, widgetsEdit, true},
		{"fewer verbs", rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}, widgetsEdit, true},
		{"named objects of an unnamed rule", rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, ResourceNames: []string{"w"}, Verbs: []string{"get"}}, widgetsEdit, true},
		{"no verbs grants nothing", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}}, widgetsEdit, true},
		{"another verb", rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"delete"}}, widgetsEdit, false},
		{"a wildcard verb", rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"*"}}, widgetsEdit, false},
		{"a subresource", rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets/status"}, Verbs: []string{"get"}}, widgetsEdit, false},
		{"a wildcard group", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}, widgetsEdit, false},
		{"all objects of a named rule", widgetsEdit, rbacv1.PolicyRule{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, ResourceNames: []string{"w"}, Verbs: []string{"*"}}, false},
		{"a URL against resources", health, widgetsEdit, false},
		{"another URL", rbacv1.PolicyRule{NonResourceURLs: []string{"/*"}, Verbs: []string{"get"}}, health, false},
		{"the same URL", health, health, true},
	} {
		if got := ruleWithin(tc.r, tc.g); got != tc.want {
			t.Errorf("%s: ruleWithin = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The access-grants check judged the namespaces a Bind-mode policy binds in
// as they were when the spec was written: one deleted and re-created since
// (another UID, perhaps another team's) is not bound in until the spec is
// written again, and the policy says so.
func TestAReplacedNamespaceIsNotBoundInUntilTheSpecIsWrittenAgain(t *testing.T) {
	ctx := context.Background()
	ns := func(name, uid string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid)}}
	}
	alice := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	p := policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(alice)}, Namespaces: []string{"a", "b"}})
	c := newCluster(p, []*apiextensionsv1.CustomResourceDefinition{widgets}, ns("a", "a-1"), ns("b", "b-1"))
	c.sync(t)
	const binding = "p-0-Widget.example.com-edit"
	if checked := c.status(t).Checked; checked == nil || checked.Generation != 1 || len(checked.Namespaces) != 2 || checked.Namespaces[1].UID != "b-1" {
		t.Errorf("checked %+v", checked)
	}
	// b is deleted, its bindings with it, and re-created.
	_ = c.kube.CoreV1().Namespaces().Delete(ctx, "b", metav1.DeleteOptions{})
	_ = c.kube.RbacV1().RoleBindings("b").Delete(ctx, binding, metav1.DeleteOptions{})
	_, _ = c.kube.CoreV1().Namespaces().Create(ctx, ns("b", "b-2"), metav1.CreateOptions{})
	writes := c.sync(t)
	if slices.Contains(writes, "create rolebindings "+binding) {
		t.Errorf("bound in the re-created namespace: %v", writes)
	}
	if _, err := c.kube.RbacV1().RoleBindings("a").Get(ctx, binding, metav1.GetOptions{}); err != nil {
		t.Errorf("the binding in a: %v", err)
	}
	cond := condition(t, c.status(t), apiaccessv1alpha1.ConditionRBACManaged)
	if cond.Status != metav1.ConditionFalse || cond.Reason != apiaccessv1alpha1.ReasonNamespacesReplaced ||
		!strings.Contains(cond.Message, "namespaces b were deleted and re-created") || !strings.Contains(cond.Message, "written again") {
		t.Errorf("RBACManaged %+v", cond)
	}
	if writes := c.sync(t); len(writes) != 0 {
		t.Errorf("a resync with nothing changed wrote %v", writes)
	}
	// The spec written again (a new generation, checked at admission).
	c.policy.Generation = 2
	stored, _ := c.client.APIAccessV1alpha1().APIAccessPolicies().Get(ctx, "p", metav1.GetOptions{})
	stored.Generation = 2
	_, _ = c.client.APIAccessV1alpha1().APIAccessPolicies().Update(ctx, stored, metav1.UpdateOptions{})
	if writes := c.sync(t); !slices.Contains(writes, "create rolebindings "+binding) {
		t.Errorf("not bound in b after the spec was written again: %v", writes)
	}
	if checked := c.status(t).Checked; checked == nil || checked.Generation != 2 || checked.Namespaces[1].UID != "b-2" {
		t.Errorf("checked %+v", checked)
	}
}

// An upgrade that brings the bundle's own role of a generated role's name
// stops on the generated one; the admin deletes it to make room, and OLM
// retries on its own backoff, minutes later. The policy leaves the name to
// the bundle for HandoverWindow, then creates its role again, once.
func TestADeletedGeneratedRoleIsLeftToTheBundleForTheHandoverWindow(t *testing.T) {
	editor := rbacv1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "editor"}
	const name = "Widget.example.com-edit"
	deleted := func(t *testing.T) (*cluster, *time.Time) {
		now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
		c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"},
			apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{apiaccessv1alpha1.Subject(editor)}, Namespaces: []string{"team"}}),
			[]*apiextensionsv1.CustomResourceDefinition{widgets}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team", UID: "uid-team"}})
		c.now = func() time.Time { return now }
		c.sync(t)
		if err := c.kube.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		writes := c.sync(t)
		if slices.Contains(writes, "create clusterroles "+name) {
			t.Fatalf("the deleted role was created again at once: %v", writes)
		}
		status := c.status(t)
		if len(status.AwaitingBundleRoles) != 1 || status.AwaitingBundleRoles[0].Name != name || !status.AwaitingBundleRoles[0].Since.Time.Equal(now) {
			t.Fatalf("awaitingBundleRoles %+v", status.AwaitingBundleRoles)
		}
		if got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged); got.Status != metav1.ConditionTrue ||
			!strings.Contains(got.Message, "left to the ClusterExtension's own roles until 2026-11-28T09:20:00Z") {
			t.Errorf("RBACManaged %+v", got)
		}
		if _, err := c.kube.RbacV1().RoleBindings("team").Get(context.Background(), "p-0-"+name, metav1.GetOptions{}); err != nil {
			t.Errorf("the binding should stay for the bundle's role: %v", err)
		}
		return c, &now
	}

	t.Run("the bundle's role comes within the window", func(t *testing.T) {
		c, now := deleted(t)
		*now = now.Add(10 * time.Minute)
		if writes := c.sync(t); len(writes) != 0 {
			t.Errorf("a resync inside the window wrote %v", writes)
		}
		bundleRole := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "uid-bundle", Labels: ownedByExtension("ext")},
			Rules: []rbacv1.PolicyRule{{Verbs: []string{"get", "list", "watch", "create"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}}}
		if _, err := c.kube.RbacV1().ClusterRoles().Create(context.Background(), bundleRole, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c.sync(t)
		*now = now.Add(time.Hour)
		if writes := c.sync(t); len(writes) != 0 {
			t.Errorf("a resync with the bundle's role wrote %v", writes)
		}
		if got := c.role(t, name); got.UID != "uid-bundle" {
			t.Errorf("the bundle's role was replaced: %+v", got)
		}
		status := c.status(t)
		if len(status.AwaitingBundleRoles) != 0 {
			t.Errorf("still awaiting %+v", status.AwaitingBundleRoles)
		}
		if got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged); !strings.Contains(got.Message, "roles the bundles provide are used: "+name) {
			t.Errorf("RBACManaged %+v", got)
		}
		if n := countPrefix(c.events, "APIAccessPolicyAwaitsBundleRoles"); n != 1 {
			t.Errorf("%d APIAccessPolicyAwaitsBundleRoles events, want 1: %v", n, c.events)
		}
	})

	t.Run("no bundle's role comes", func(t *testing.T) {
		c, now := deleted(t)
		*now = now.Add(HandoverWindow - time.Second)
		if writes := c.sync(t); len(writes) != 0 {
			t.Errorf("a resync a second before the window ends wrote %v", writes)
		}
		*now = now.Add(time.Second)
		if writes := c.sync(t); !slices.Contains(writes, "create clusterroles "+name) {
			t.Fatalf("the role was not created again when the window ended: %v", writes)
		}
		if writes := c.sync(t); len(writes) != 0 {
			t.Errorf("a resync after the role came back wrote %v", writes)
		}
		if got := c.status(t).AwaitingBundleRoles; len(got) != 0 {
			t.Errorf("still awaiting %+v", got)
		}
		if n := countPrefix(c.events, "APIAccessPolicyRecreatedRoles"); n != 1 {
			t.Errorf("%d APIAccessPolicyRecreatedRoles events, want 1: %v", n, c.events)
		}
	})

	t.Run("a role of a CRD no ClusterExtension owns is created again at once", func(t *testing.T) {
		gadgets := crd("gadgets", "example.com", "Gadget", nil)
		c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{Names: []string{gadgets.Name}}),
			[]*apiextensionsv1.CustomResourceDefinition{gadgets})
		c.sync(t)
		if err := c.kube.RbacV1().ClusterRoles().Delete(context.Background(), "Gadget.example.com-edit", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if writes := c.sync(t); !slices.Contains(writes, "create clusterroles Gadget.example.com-edit") {
			t.Errorf("not created again: %v", writes)
		}
	})
}

func countPrefix(events []string, prefix string) int {
	n := 0
	for _, e := range events {
		if strings.HasPrefix(e, prefix) {
			n++
		}
	}
	return n
}

// A binding the API server refuses to write (a quota, an admission
// policy) is named on the policy, and every other role and binding is
// still written; once the API server accepts it, the condition clears.
func TestARefusedBindingIsNamedAndTheOthersAreWritten(t *testing.T) {
	alice := apiaccessv1alpha1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{alice}, Namespaces: []string{"a", "b", "c"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleView, Subjects: []apiaccessv1alpha1.Subject{alice}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets}, namespaces("a", "b", "c")...)
	refuse := true
	c.kube.PrependReactor("create", "rolebindings", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if refuse && a.GetNamespace() == "b" {
			return true, nil, apierrors.NewForbidden(rbacv1.Resource("rolebindings"), "p-0-Widget.example.com-edit", errors.New("exceeded quota: no-bindings"))
		}
		return false, nil, nil
	})
	if _, err := c.trySync(t); err == nil || !strings.Contains(err.Error(), "b/p-0-Widget.example.com-edit") {
		t.Errorf("sync error %v, want the refused binding named, for the queue to retry", err)
	}
	status := c.status(t)
	got := condition(t, status, apiaccessv1alpha1.ConditionRBACManaged)
	if got.Status != metav1.ConditionFalse || got.Reason != apiaccessv1alpha1.ReasonWriteFailed ||
		!strings.Contains(got.Message, "RoleBinding b/p-0-Widget.example.com-edit: creating: ") || !strings.Contains(got.Message, "exceeded quota: no-bindings") {
		t.Errorf("RBACManaged %+v, want False, WriteFailed, naming the binding and quoting the API server", got)
	}
	for _, ns := range []string{"a", "c"} {
		if _, err := c.kube.RbacV1().RoleBindings(ns).Get(context.Background(), "p-0-Widget.example.com-edit", metav1.GetOptions{}); err != nil {
			t.Errorf("the binding in %s: %v", ns, err)
		}
	}
	for _, name := range []string{"p-1-Widget.example.com-view", "p-1-Widget.example.com-view-crdview"} {
		if _, err := c.kube.RbacV1().ClusterRoleBindings().Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			t.Errorf("ClusterRoleBinding %s: %v", name, err)
		}
	}
	for _, m := range status.ManagedObjects {
		if m.Namespace == "b" {
			t.Errorf("a binding that was not created is listed: %+v", m)
		}
	}
	if n := len(status.ManagedObjects); n != 8 { // 4 roles, 2 RoleBindings, 2 ClusterRoleBindings
		t.Errorf("managedObjects %v, want 8", status.ManagedObjects)
	}
	if countPrefix(c.events, "APIAccessPolicyRBACManaged") != 1 {
		t.Errorf("events %v, want one warning for the refused write", c.events)
	}

	refuse = false
	c.sync(t)
	if got := condition(t, c.status(t), apiaccessv1alpha1.ConditionRBACManaged); got.Status != metav1.ConditionTrue || got.Reason != apiaccessv1alpha1.ReasonManaged {
		t.Errorf("once accepted: RBACManaged %+v, want True, Managed", got)
	}
	if _, err := c.kube.RbacV1().RoleBindings("b").Get(context.Background(), "p-0-Widget.example.com-edit", metav1.GetOptions{}); err != nil {
		t.Errorf("the binding in b, once accepted: %v", err)
	}
}

// A role the API server refuses to create is not bound: the name may hold
// someone else's role by the time a binding names it. The other CRD's
// roles and bindings are written.
func TestABindingToARoleNotWrittenIsHeldBack(t *testing.T) {
	gadgets := crd("gadgets", "example.com", "Gadget", nil)
	alice := apiaccessv1alpha1.Subject{Kind: "User", APIGroup: rbacv1.GroupName, Name: "alice"}
	c := newCluster(policy(apiaccessv1alpha1.ModeBind, apiaccessv1alpha1.CRDSelection{Names: []string{"widgets.example.com", "gadgets.example.com"}},
		apiaccessv1alpha1.AccessBinding{Role: apiaccessv1alpha1.RoleEdit, Subjects: []apiaccessv1alpha1.Subject{alice}}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets, gadgets})
	c.kube.PrependReactor("create", "clusterroles", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.CreateAction).GetObject().(metav1.Object).GetName() == "Widget.example.com-edit" {
			return true, nil, apierrors.NewInternalError(errors.New("etcd is unhappy"))
		}
		return false, nil, nil
	})
	writes, err := c.trySync(t)
	if err == nil {
		t.Error("a refused write: want an error, for the queue to retry")
	}
	if slices.Contains(writes, "create clusterrolebindings p-0-Widget.example.com-edit") {
		t.Errorf("a binding to a role that was not written was created: %v", writes)
	}
	if !slices.Contains(writes, "create clusterrolebindings p-0-Gadget.example.com-edit") {
		t.Errorf("the other CRD's binding was not written: %v", writes)
	}
	got := condition(t, c.status(t), apiaccessv1alpha1.ConditionRBACManaged)
	for _, want := range []string{"ClusterRole Widget.example.com-edit: creating: ", "ClusterRoleBinding p-0-Widget.example.com-edit: held back"} {
		if got.Reason != apiaccessv1alpha1.ReasonWriteFailed || !strings.Contains(got.Message, want) {
			t.Errorf("RBACManaged %+v, want WriteFailed naming %q", got, want)
		}
	}
}

// A generated role carries the policy label and, in Aggregate mode, its
// aggregation label, and no other: one added by hand is removed (docs/apiaccess.md).
func TestALabelAddedToAGeneratedRoleIsRemoved(t *testing.T) {
	c := newCluster(policy(apiaccessv1alpha1.ModeAggregate, apiaccessv1alpha1.CRDSelection{ClusterExtension: "ext"}),
		[]*apiextensionsv1.CustomResourceDefinition{widgets})
	c.sync(t)
	role := c.role(t, "Widget.example.com-view")
	want := map[string]string{apiaccessv1alpha1.PolicyLabel: "p", apiaccessv1alpha1.AggregateToViewLabel: "true"}
	if !equality.Semantic.DeepEqual(role.Labels, want) {
		t.Errorf("labels %v, want %v", role.Labels, want)
	}
	role.Labels["rbac.authorization.k8s.io/aggregate-to-cluster-reader"] = "true"
	if _, err := c.kube.RbacV1().ClusterRoles().Update(context.Background(), role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.sync(t)
	if got := c.role(t, "Widget.example.com-view").Labels; !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("labels after a sync %v, want %v", got, want)
	}
}
