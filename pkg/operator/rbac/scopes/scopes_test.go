package scopes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopesfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	scopelisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
)

// fixture runs both syncs over fake clients, with caches rebuilt from the
// fake clients' contents before each sync (as settled informers would be).
type fixture struct {
	t        *testing.T
	kube     *kubefake.Clientset
	scopes   *scopesfake.Clientset
	recorder events.InMemoryRecorder
	// unseen is shared by every sync, as the controller's is; lagging
	// keeps the binding caches from delivering what they list.
	unseen  *unseenWrites
	lagging bool
}

func newFixture(t *testing.T, objects ...runtime.Object) *fixture {
	var kubeObjs, scopeObjs []runtime.Object
	for _, o := range objects {
		switch o.(type) {
		case *scopesv1alpha1.ScopeTemplate, *scopesv1alpha1.ScopeInstance:
			scopeObjs = append(scopeObjs, o)
		default:
			kubeObjs = append(kubeObjs, o)
		}
	}
	return &fixture{t: t, kube: kubefake.NewSimpleClientset(kubeObjs...), scopes: scopesfake.NewSimpleClientset(scopeObjs...),
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}), unseen: newUnseenWrites()}
}

func (f *fixture) indexer(objs []any, label string) cache.Indexer {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{byOwner: labelIndex(label), cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, o := range objs {
		if err := idx.Add(o); err != nil {
			f.t.Fatal(err)
		}
	}
	return idx
}

// cached are the listed items a cache holds: those keep accepts.
func cached[T any](items []T, keep func(metav1.Object) bool) []any {
	var out []any
	for i := range items {
		if o := any(&items[i]).(metav1.Object); keep(o) {
			out = append(out, o)
		}
	}
	return out
}

func (f *fixture) caches() (roles, rbs, crbs, namespaces, templates, instances cache.Indexer) {
	ctx := context.Background()
	all := func(metav1.Object) bool { return true }
	// labelled is what an informer filtered by label lists; the binding
	// caches list nothing while lagging.
	labelled := func(label string, lagging bool) func(metav1.Object) bool {
		return func(o metav1.Object) bool { return o.GetLabels()[label] != "" && !lagging }
	}
	roleList, _ := f.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{})
	roles = f.indexer(cached(roleList.Items, labelled(scopesv1alpha1.ScopeTemplateLabel, false)), scopesv1alpha1.ScopeTemplateLabel)
	rbList, _ := f.kube.RbacV1().RoleBindings("").List(ctx, metav1.ListOptions{})
	rbs = f.indexer(cached(rbList.Items, labelled(scopesv1alpha1.ScopeInstanceLabel, f.lagging)), scopesv1alpha1.ScopeInstanceLabel)
	crbList, _ := f.kube.RbacV1().ClusterRoleBindings().List(ctx, metav1.ListOptions{})
	crbs = f.indexer(cached(crbList.Items, labelled(scopesv1alpha1.ScopeInstanceLabel, f.lagging)), scopesv1alpha1.ScopeInstanceLabel)
	nsList, _ := f.kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	namespaces = f.indexer(cached(nsList.Items, all), "")
	templateList, _ := f.scopes.ScopesV1alpha1().ScopeTemplates().List(ctx, metav1.ListOptions{})
	templates = f.indexer(cached(templateList.Items, all), "")
	instances = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{byOwner: func(obj any) ([]string, error) {
		return []string{obj.(*scopesv1alpha1.ScopeInstance).Spec.ScopeTemplateName}, nil
	}})
	l, _ := f.scopes.ScopesV1alpha1().ScopeInstances().List(ctx, metav1.ListOptions{})
	for i := range l.Items {
		_ = instances.Add(&l.Items[i])
	}
	return
}

// writes counts the mutating calls both fake clients saw since the last call.
func (f *fixture) writes() []string {
	var out []string
	for _, c := range [][]clienttesting.Action{f.kube.Actions(), f.scopes.Actions()} {
		for _, a := range c {
			if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
				out = append(out, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
			}
		}
	}
	f.kube.ClearActions()
	f.scopes.ClearActions()
	return out
}

func (f *fixture) syncTemplate(name string) {
	f.t.Helper()
	if err := f.trySyncTemplate(name); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) trySyncTemplate(name string) error {
	f.t.Helper()
	roles, _, _, _, templateCache, instanceCache := f.caches()
	tc := &templates{
		client: f.scopes.ScopesV1alpha1(), roles: f.kube.RbacV1(),
		roleCache: rbaclisters.NewClusterRoleLister(roles), roleIndex: roles, instanceIndex: instanceCache,
	}
	template, err := scopelisters.NewScopeTemplateLister(templateCache).Get(name)
	if err != nil {
		f.t.Fatal(err)
	}
	return tc.sync(context.Background(), factory.NewSyncContext("test", f.recorder), template)
}

func (f *fixture) instanceController() (*instances, cache.Indexer) {
	roles, rbs, crbs, namespaces, templateCache, instanceCache := f.caches()
	return &instances{
		client: f.scopes.ScopesV1alpha1(), kube: f.kube,
		templates: scopelisters.NewScopeTemplateLister(templateCache), roles: rbaclisters.NewClusterRoleLister(roles),
		namespaces: corelisters.NewNamespaceLister(namespaces), clusterRoleBindings: crbs, roleBindings: rbs, workers: 4,
		unseen: f.unseen,
	}, instanceCache
}

func (f *fixture) syncInstance(name string) error {
	f.t.Helper()
	ic, instanceCache := f.instanceController()
	instance, err := scopelisters.NewScopeInstanceLister(instanceCache).Get(name)
	if err != nil {
		f.t.Fatal(err)
	}
	return ic.sync(context.Background(), factory.NewSyncContext("test", f.recorder), instance)
}

// pending is how many of the instance's writes its caches do not show now.
func (f *fixture) pending(instance string) int {
	ic, _ := f.instanceController()
	return f.unseen.pending(instance, time.Now(), ic.seen)
}

func newTemplate(name string, generateNames ...string) *scopesv1alpha1.ScopeTemplate {
	t := &scopesv1alpha1.ScopeTemplate{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "template-uid", Generation: 1}}
	for _, g := range generateNames {
		t.Spec.ClusterRoles = append(t.Spec.ClusterRoles, scopesv1alpha1.ClusterRoleTemplate{
			GenerateName: g,
			Rules:        []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
			Subjects:     []scopesv1alpha1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "op"}},
		})
	}
	return t
}

func newInstance(name, template string, namespaces []string, selector map[string]string) *scopesv1alpha1.ScopeInstance {
	i := &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("instance-uid-" + name), Generation: 1},
		Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: template, Namespaces: namespaces}}
	if selector != nil {
		i.Spec.NamespaceSelector = &metav1.LabelSelector{MatchLabels: selector}
	}
	return i
}

func newNamespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func condition(t *testing.T, conditions []metav1.Condition, conditionType string) metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(conditions, conditionType)
	if c == nil {
		t.Fatalf("no %s condition in %+v", conditionType, conditions)
	}
	return *c
}

func TestNamesAreStableAndDistinct(t *testing.T) {
	a, b := ClusterRoleName("a", "reader-"), ClusterRoleName("b", "reader-")
	if a != ClusterRoleName("a", "reader-") || a == b || !strings.HasPrefix(a, "reader-") || len(a) != len("reader-")+suffixLength {
		t.Errorf("role names %q %q", a, b)
	}
	if BindingName(a, "i1") == BindingName(a, "i2") || !strings.HasPrefix(BindingName(a, "i1"), a+"-") {
		t.Errorf("binding names %q %q", BindingName(a, "i1"), BindingName(a, "i2"))
	}
}

func TestTemplateRolesExistOnlyWhileAnInstanceNamesIt(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-", "writer-"))
	f.syncTemplate("t")
	if w := f.writes(); len(w) != 1 || w[0] != "update scopetemplates/status" {
		t.Fatalf("without instances: writes %v", w)
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeTemplates().Get(context.Background(), "t", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionInUse); c.Status != metav1.ConditionFalse {
		t.Errorf("InUse %+v", c)
	}

	_, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Create(context.Background(), newInstance("i", "t", nil, nil), metav1.CreateOptions{})
	f.writes()
	f.syncTemplate("t")
	roles, _ := f.kube.RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{})
	if len(roles.Items) != 2 {
		t.Fatalf("roles %+v", roles.Items)
	}
	for _, r := range roles.Items {
		if r.Labels[scopesv1alpha1.ScopeTemplateLabel] != "t" || !controlledBy(&r, "ScopeTemplate", "template-uid") || r.AggregationRule != nil {
			t.Errorf("role %+v", r)
		}
	}
	f.writes()
	f.syncTemplate("t")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a settled template wrote %v", w)
	}

	// Drift is repaired.
	drifted := roles.Items[0].DeepCopy()
	drifted.Rules[0].Verbs = []string{"*"}
	_, _ = f.kube.RbacV1().ClusterRoles().Update(context.Background(), drifted, metav1.UpdateOptions{})
	f.writes()
	f.syncTemplate("t")
	if w := f.writes(); len(w) != 1 || w[0] != "update clusterroles/" {
		t.Errorf("drift repair wrote %v", w)
	}

	// A removed entry loses its role; no instance, no roles.
	tmpl, _ := f.scopes.ScopesV1alpha1().ScopeTemplates().Get(context.Background(), "t", metav1.GetOptions{})
	tmpl.Spec.ClusterRoles = tmpl.Spec.ClusterRoles[:1]
	_, _ = f.scopes.ScopesV1alpha1().ScopeTemplates().Update(context.Background(), tmpl, metav1.UpdateOptions{})
	f.syncTemplate("t")
	if roles, _ := f.kube.RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{}); len(roles.Items) != 1 || roles.Items[0].Name != ClusterRoleName("t", "reader-") {
		t.Errorf("after removing an entry: %+v", roles.Items)
	}
	_ = f.scopes.ScopesV1alpha1().ScopeInstances().Delete(context.Background(), "i", metav1.DeleteOptions{})
	f.syncTemplate("t")
	if roles, _ := f.kube.RbacV1().ClusterRoles().List(context.Background(), metav1.ListOptions{}); len(roles.Items) != 0 {
		t.Errorf("without instances: %+v", roles.Items)
	}
}

func TestTemplateLeavesAForeignRoleAlone(t *testing.T) {
	t.Run("someone else's", func(t *testing.T) {
		testTemplateLeavesAForeignRoleAlone(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName("t", "reader-")}})
	})
	// Labelled for the template and controlled by its kind and UID, but in
	// another API group (the operator-writes policy lets a cluster admin
	// set that): someone else's too, never adopted.
	t.Run("a forged controller", func(t *testing.T) {
		testTemplateLeavesAForeignRoleAlone(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ClusterRoleName("t", "reader-"),
			Labels:          map[string]string{scopesv1alpha1.ScopeTemplateLabel: "t"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "evil.example/v1", Kind: "ScopeTemplate", Name: "t", UID: "template-uid", Controller: ptr.To(true)}}},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}}}})
	})
}

func testTemplateLeavesAForeignRoleAlone(t *testing.T, foreign *rbacv1.ClusterRole) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", nil, nil), foreign)
	f.syncTemplate("t")
	if w := f.writes(); len(w) != 1 || w[0] != "update scopetemplates/status" {
		t.Errorf("writes %v", w)
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeTemplates().Get(context.Background(), "t", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionConflict); c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, foreign.Name) {
		t.Errorf("Conflict %+v", c)
	}
	if len(got.Status.ClusterRoles) != 0 {
		t.Errorf("status lists %v", got.Status.ClusterRoles)
	}
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	crbs, _ := f.kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{})
	if len(crbs.Items) != 0 {
		t.Errorf("bound a foreign role: %+v", crbs.Items)
	}
}

func TestInstanceBindsListedAndSelectedNamespaces(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", []string{"listed", "missing"}, map[string]string{"team": "a"}),
		newNamespace("listed", nil), newNamespace("selected", map[string]string{"team": "a"}), newNamespace("other", nil))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	rbs, _ := f.kube.RbacV1().RoleBindings("").List(context.Background(), metav1.ListOptions{})
	got := map[string]rbacv1.RoleBinding{}
	for _, rb := range rbs.Items {
		got[rb.Namespace] = rb
	}
	if len(got) != 2 || got["listed"].Name == "" || got["selected"].Name == "" {
		t.Fatalf("RoleBindings %+v", rbs.Items)
	}
	if s := got["listed"].Subjects[0]; s.Namespace != "listed" {
		t.Errorf("a ServiceAccount subject without namespace gets the binding's: %+v", s)
	}
	status, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(context.Background(), "i", metav1.GetOptions{})
	if c := condition(t, status.Status.Conditions, scopesv1alpha1.ConditionBound); c.Reason != scopesv1alpha1.ReasonNamespacesNotFound || !strings.Contains(c.Message, "missing") {
		t.Errorf("Bound %+v", c)
	}
	if status.Status.NamespaceCount != 2 || status.Status.ObservedGeneration != 1 {
		t.Errorf("status %+v", status.Status)
	}
	f.writes()
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a settled instance wrote %v", w)
	}

	// Unlabelled: its binding goes. Namespaced to cluster-wide: all go.
	_, _ = f.kube.CoreV1().Namespaces().Update(context.Background(), newNamespace("selected", nil), metav1.UpdateOptions{})
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if rbs, _ := f.kube.RbacV1().RoleBindings("selected").List(context.Background(), metav1.ListOptions{}); len(rbs.Items) != 0 {
		t.Errorf("unlabelled namespace keeps %+v", rbs.Items)
	}
	i, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(context.Background(), "i", metav1.GetOptions{})
	i.Spec.Namespaces, i.Spec.NamespaceSelector = nil, nil
	_, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Update(context.Background(), i, metav1.UpdateOptions{})
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	rbs, _ = f.kube.RbacV1().RoleBindings("").List(context.Background(), metav1.ListOptions{})
	crbs, _ := f.kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{})
	if len(rbs.Items) != 0 || len(crbs.Items) != 1 || crbs.Items[0].RoleRef.Name != ClusterRoleName("t", "reader-") {
		t.Errorf("cluster-wide: RoleBindings %d, ClusterRoleBindings %+v", len(rbs.Items), crbs.Items)
	}
}

func TestInstanceWithoutTemplateRemovesItsBindings(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", nil, nil))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	_ = f.scopes.ScopesV1alpha1().ScopeTemplates().Delete(context.Background(), "t", metav1.DeleteOptions{})
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if crbs, _ := f.kube.RbacV1().ClusterRoleBindings().List(context.Background(), metav1.ListOptions{}); len(crbs.Items) != 0 {
		t.Errorf("bindings of a missing template stay: %+v", crbs.Items)
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(context.Background(), "i", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionInvalid); c.Status != metav1.ConditionTrue || c.Reason != scopesv1alpha1.ReasonScopeTemplateNotFound {
		t.Errorf("Invalid %+v", c)
	}
}

func TestFailureMessageNamesAFewAndCountsTheRest(t *testing.T) {
	failures := map[string]error{}
	for _, ns := range []string{"a", "b", "c", "d", "e"} {
		failures[ns+"/rb"] = errString("forbidden")
	}
	if got, want := failureMessage(failures), "a/rb: forbidden; b/rb: forbidden; c/rb: forbidden; and 2 more"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// A sync whose caches have yet to deliver the bindings the sync before it
// wrote waits for them instead of writing them again; once delivered, the
// instance is settled and writes nothing.
func TestAnInstanceWaitsForItsOwnWritesToBeSeen(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", []string{"a", "b"}, nil), newNamespace("a", nil), newNamespace("b", nil))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	f.writes()
	f.lagging = true
	if n := f.pending("i"); n != 2 {
		t.Fatalf("%d writes missing from lagging caches, want the 2 RoleBindings", n)
	}
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a sync behind its own writes wrote %v", w)
	}
	f.lagging = false
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 0 || f.pending("i") != 0 {
		t.Errorf("once delivered: wrote %v, %d still awaited", w, f.pending("i"))
	}
}

// A binding created in a namespace deleted before the caches showed it is
// nothing to wait for: the namespace takes it along.
func TestAnInstanceDoesNotWaitForBindingsInNamespacesGone(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", []string{"a", "b"}, nil), newNamespace("a", nil), newNamespace("b", nil))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	f.lagging = true
	if err := f.kube.CoreV1().Namespaces().Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := f.pending("i"); n != 1 {
		t.Errorf("%d writes awaited, want only the RoleBinding in namespace b", n)
	}
}

// A write is seen once the cache shows it, whichever came first: a watch
// event can beat the write's own response.
func TestUnseenWritesAreJudgedFromTheCache(t *testing.T) {
	now := time.Now()
	binding := func(ns, name, uid, rv string) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid), ResourceVersion: rv}}
	}
	cached := map[string]metav1.Object{}
	lookup := func(w written) bool { return w.seenIn(cached[bindingKey(w.namespace, w.name)]) }

	u := newUnseenWrites()
	cached["a/rb"] = binding("a", "rb", "new", "10")
	u.created("i", binding("a", "rb", "new", "10"), now)
	if n := u.pending("i", now, lookup); n != 0 {
		t.Errorf("a create the cache showed before it was recorded is pending (%d)", n)
	}

	cached["b/rb"] = binding("b", "rb", "old", "5")
	u.created("i", binding("b", "rb", "new", "11"), now)
	u.updated("i", binding("c", "rb", "u", "7"), binding("c", "rb", "u", "12"), now)
	cached["c/rb"] = binding("c", "rb", "u", "7")
	u.deleted("i", binding("d", "rb", "gone", "8"), now)
	cached["d/rb"] = binding("d", "rb", "gone", "8")
	if n := u.pending("i", now, lookup); n != 3 {
		t.Errorf("pending %d, want 3: a cache holding a former binding, the version before an update, and a deleted binding", n)
	}
	cached["b/rb"] = binding("b", "rb", "new", "11")
	cached["c/rb"] = binding("c", "rb", "u", "13") // updated again since
	delete(cached, "d/rb")
	if n := u.pending("i", now, lookup); n != 0 || len(u.byInstance) != 0 {
		t.Errorf("pending %d once the cache caught up (%v)", n, u.byInstance)
	}

	u.created("i", binding("", "crb", "x", "1"), now.Add(-unseenWait-time.Second))
	u.created("other", binding("e", "rb", "y", "2"), now.Add(-unseenWait-time.Second))
	if n := u.pending("i", now, lookup); n != 0 || len(u.byInstance) != 0 {
		t.Errorf("pending %d, want 0 and nothing kept (%v): writes older than %s are presumed lost, a deleted instance's too", n, u.byInstance, unseenWait)
	}
}

// An instance that changes template wakes both; a deleted one is forgotten.
func TestTemplateOfInstance(t *testing.T) {
	cached := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	mapper := &templateOfInstance{instances: scopelisters.NewScopeInstanceLister(cached)}
	instance := func(template string) *scopesv1alpha1.ScopeInstance {
		return &scopesv1alpha1.ScopeInstance{ObjectMeta: metav1.ObjectMeta{Name: "i"}, Spec: scopesv1alpha1.ScopeInstanceSpec{ScopeTemplateName: template}}
	}
	step := func(obj *scopesv1alpha1.ScopeInstance, inCache bool, want ...string) {
		t.Helper()
		if inCache {
			_ = cached.Update(obj)
		} else {
			_ = cached.Delete(obj)
		}
		if got := mapper.keys(obj); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("keys = %v, want %v", got, want)
		}
	}
	step(instance("a"), true, "a")
	step(instance("a"), true, "a")
	step(instance("b"), true, "b", "a")
	step(instance("b"), false, "b")
	if len(mapper.last) != 0 {
		t.Errorf("a deleted instance is still remembered: %v", mapper.last)
	}
	step(instance("c"), true, "c")
}

// A binding someone deleted before the caches showed its creation is no
// write to wait for: once the caches see it deleted, the next sync puts it
// back instead of waiting unseenWait.
func TestABindingDeletedUnseenIsRecreatedAtOnce(t *testing.T) {
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", []string{"a"}, nil), newNamespace("a", nil))
	// The API server gives every object a UID; the fake does not.
	f.kube.PrependReactor("create", "rolebindings", func(action clienttesting.Action) (bool, runtime.Object, error) {
		action.(clienttesting.CreateAction).GetObject().(metav1.Object).SetUID(types.UID(fmt.Sprintf("uid-%d", time.Now().UnixNano())))
		return false, nil, nil
	})
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	f.writes()
	f.lagging = true
	list, err := f.kube.RbacV1().RoleBindings("a").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("RoleBindings in a: %v, %v", list, err)
	}
	created := list.Items[0]
	if err := f.kube.RbacV1().RoleBindings("a").Delete(context.Background(), created.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.writes()
	f.unseen.sawDeleted("another-binding", time.Now())
	if n := f.pending("i"); n != 1 || created.UID == "" {
		t.Fatalf("pending %d before the deletion is seen (uid %q), want 1", n, created.UID)
	}
	f.unseen.sawDeleted(created.UID, time.Now())
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 1 || !strings.HasPrefix(w[0], "create rolebindings") {
		t.Errorf("after the deletion was seen the sync wrote %v, want the RoleBinding created again", w)
	}
}

// Deletions are remembered only as long as a write may wait.
func TestSeenDeletionsArePruned(t *testing.T) {
	now := time.Now()
	u := newUnseenWrites()
	u.sawDeleted("old", now)
	nothing := func(written) bool { return false }
	u.pending("i", now.Add(unseenWait+2*unseenRecheck), nothing)
	if len(u.gone) != 0 {
		t.Errorf("deletions older than %s kept: %v", unseenWait, u.gone)
	}
}

// Both kinds of binding go through the same writes: created, left alone
// once settled, their subjects repaired by an update and their roleRef by a
// delete and a create, a create the caches missed taken as done, deleted
// with the instance's template, and one of that name someone else made left
// alone; every write is one the next sync waits for.
func TestBindingWritesOfBothKinds(t *testing.T) {
	for _, tc := range []struct {
		kind, resource string
		namespaces     []string
		where          func(name string) string
	}{
		{"RoleBinding", "rolebindings", []string{"a"}, func(name string) string { return "a/" + name }},
		{"ClusterRoleBinding", "clusterrolebindings", nil, func(name string) string { return name }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", tc.namespaces, nil), newNamespace("a", nil))
			name := BindingName(ClusterRoleName("t", "reader-"), "i")
			key := tc.where(name)
			namespace := ""
			if len(tc.namespaces) > 0 {
				namespace = tc.namespaces[0]
			}
			get := func() (rbacv1.RoleRef, []rbacv1.Subject, metav1.Object) {
				t.Helper()
				if namespace != "" {
					rb, err := f.kube.RbacV1().RoleBindings(namespace).Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					return rb.RoleRef, rb.Subjects, rb
				}
				crb, err := f.kube.RbacV1().ClusterRoleBindings().Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return crb.RoleRef, crb.Subjects, crb
			}
			// change rewrites the binding as someone else would.
			change := func(roleRef string, subjects []rbacv1.Subject) {
				t.Helper()
				_, _, obj := get()
				var err error
				switch b := obj.(type) {
				case *rbacv1.RoleBinding:
					b.RoleRef.Name, b.Subjects = roleRef, subjects
					_, err = f.kube.RbacV1().RoleBindings(namespace).Update(ctx, b, metav1.UpdateOptions{})
				case *rbacv1.ClusterRoleBinding:
					b.RoleRef.Name, b.Subjects = roleRef, subjects
					_, err = f.kube.RbacV1().ClusterRoleBindings().Update(ctx, b, metav1.UpdateOptions{})
				}
				if err != nil {
					t.Fatal(err)
				}
				f.writes()
			}
			sync := func(want ...string) {
				t.Helper()
				if err := f.syncInstance("i"); err != nil {
					t.Fatal(err)
				}
				if w := f.writes(); strings.Join(w, ",") != strings.Join(want, ",") {
					t.Errorf("wrote %v, want %v", w, want)
				}
			}
			recorded := func(deleted bool) {
				t.Helper()
				if w, ok := f.unseen.byInstance["i"][key]; !ok || w.deleted != deleted {
					t.Errorf("unseen write of %s: %+v (recorded %v), want deleted %v", key, w, ok, deleted)
				}
			}
			write := func(verb string) string { return verb + " " + tc.resource + "/" }
			roleName := ClusterRoleName("t", "reader-")

			f.syncTemplate("t")
			f.writes()
			sync(write("create"), "update scopeinstances/status")
			recorded(false)
			sync()

			change(roleName, []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "someone"}})
			f.unseen = newUnseenWrites()
			sync(write("update"))
			recorded(false)
			if _, subjects, _ := get(); len(subjects) != 1 || subjects[0].Kind != rbacv1.ServiceAccountKind {
				t.Errorf("subjects not repaired: %+v", subjects)
			}

			change("other", nil)
			f.unseen = newUnseenWrites()
			sync(write("delete"), write("create"))
			recorded(false)
			if all := f.recorder.Events(); all[len(all)-1].Reason != "ScopeInstanceBindingsWritten" ||
				all[len(all)-1].Message != "ScopeInstance i: 1 binding writes (creates, updates, deletes), 0 failed" {
				t.Errorf("last event %s: %s", all[len(all)-1].Reason, all[len(all)-1].Message)
			}
			if roleRef, _, _ := get(); roleRef.Name != roleName {
				t.Errorf("roleRef not repaired: %+v", roleRef)
			}

			// Caches that lag the binding: the refused create reads it
			// and finds it the instance's, in sync.
			f.unseen = newUnseenWrites()
			f.lagging = true
			sync(write("create"))
			f.lagging = false

			_ = f.scopes.ScopesV1alpha1().ScopeTemplates().Delete(ctx, "t", metav1.DeleteOptions{})
			f.writes()
			sync(write("delete"), "update scopeinstances/status")
			recorded(true)

			// Someone else's binding of that name.
			_, _ = f.scopes.ScopesV1alpha1().ScopeTemplates().Create(ctx, newTemplate("t", "reader-"), metav1.CreateOptions{})
			foreign := metav1.ObjectMeta{Name: name, Namespace: namespace}
			roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "foreign"}
			var err error
			if namespace != "" {
				_, err = f.kube.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: foreign, RoleRef: roleRef}, metav1.CreateOptions{})
			} else {
				_, err = f.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: foreign, RoleRef: roleRef}, metav1.CreateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			f.writes()
			// A Conflict on the instance, not a failure: retrying cannot
			// help, and whoever may create a binding of that name must not
			// make the operator Degraded.
			if err := f.syncInstance("i"); err != nil {
				t.Errorf("sync over a foreign binding: %v, want none (a Conflict)", err)
			}
			if got, _, _ := get(); got.Name != "foreign" {
				t.Errorf("foreign binding changed: %+v", got)
			}
			conflict := func(what string) {
				t.Helper()
				got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
				if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); c.Reason != scopesv1alpha1.ReasonConflict ||
					!strings.HasPrefix(c.Message, "bindings "+key+" exist and are not controlled by this ScopeInstance") {
					t.Errorf("%s: Bound %+v", what, c)
				}
			}
			conflict("a foreign binding")

			// A binding labelled for the instance, of its role, whose
			// controller names the instance's kind and UID in another API
			// group (the operator-writes policy lets a cluster admin set
			// that): not the instance's, so not adopted, not changed.
			instance, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
			forged := metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{scopesv1alpha1.ScopeInstanceLabel: "i"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "evil.example/v1", Kind: "ScopeInstance", Name: "i", UID: instance.UID, Controller: ptr.To(true)}}}
			ours := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: roleName}
			strangers := []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "stranger"}}
			if namespace != "" {
				_ = f.kube.RbacV1().RoleBindings(namespace).Delete(ctx, name, metav1.DeleteOptions{})
				_, err = f.kube.RbacV1().RoleBindings(namespace).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: forged, RoleRef: ours, Subjects: strangers}, metav1.CreateOptions{})
			} else {
				_ = f.kube.RbacV1().ClusterRoleBindings().Delete(ctx, name, metav1.DeleteOptions{})
				_, err = f.kube.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: forged, RoleRef: ours, Subjects: strangers}, metav1.CreateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			f.writes()
			f.unseen = newUnseenWrites()
			if err := f.syncInstance("i"); err != nil {
				t.Errorf("sync over a binding with a forged controller: %v, want none (a Conflict)", err)
			}
			if w := f.writes(); slices.ContainsFunc(w, func(w string) bool { return strings.Contains(w, tc.resource) }) {
				t.Errorf("wrote %v over a binding with a forged controller", w)
			}
			if _, subjects, obj := get(); !slices.Equal(subjects, strangers) || obj.GetOwnerReferences()[0].APIVersion != "evil.example/v1" {
				t.Errorf("the binding with a forged controller was adopted: %+v %+v", subjects, obj.GetOwnerReferences())
			}
			conflict("a binding with a forged controller")
		})
	}
}

// Both controllers read their objects through source, and map what they
// generate back to its owner through informerkit.LabelKey.
func TestSourceAndOwnerKeysOfBothKinds(t *testing.T) {
	f := newFixture(t, newTemplate("t"), newInstance("i", "t", nil, nil))
	_, _, _, _, templateCache, instanceCache := f.caches()
	templateSource := source("ScopeTemplate", nil, scopelisters.NewScopeTemplateLister(templateCache))
	instanceSource := source("ScopeInstance", nil, scopelisters.NewScopeInstanceLister(instanceCache))
	if got, err := templateSource.Get("t"); err != nil || got.Name != "t" || templateSource.Kind != "ScopeTemplate" {
		t.Errorf("template source: %v, %v", got, err)
	}
	if all, err := instanceSource.List(); err != nil || len(all) != 1 || all[0].Name != "i" || instanceSource.Kind != "ScopeInstance" {
		t.Errorf("instance source: %v, %v", all, err)
	}
	if _, err := instanceSource.Get("none"); err == nil {
		t.Error("instance source found an instance that does not exist")
	}

	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{scopesv1alpha1.ScopeTemplateLabel: "t"}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{scopesv1alpha1.ScopeInstanceLabel: "i"}}}
	for _, tc := range []struct {
		label string
		obj   runtime.Object
		want  string
	}{
		{scopesv1alpha1.ScopeTemplateLabel, role, "t"},
		{scopesv1alpha1.ScopeInstanceLabel, binding, "i"},
		{scopesv1alpha1.ScopeTemplateLabel, binding, ""},
		{scopesv1alpha1.ScopeInstanceLabel, &rbacv1.ClusterRoleBinding{}, ""},
	} {
		if got := informerkit.LabelKey(tc.label)(tc.obj); strings.Join(got, ",") != tc.want || (tc.want == "" && got != nil) {
			t.Errorf("LabelKey(%s) of %T = %#v, want %q", tc.label, tc.obj, got, tc.want)
		}
	}
}

// The access-grants check judged the template and the namespaces that
// existed when the spec was written. One deleted and re-created by someone
// else (another UID, perhaps wider rules, perhaps another team) is not
// bound until the spec is written again, and the instance says so.
func TestAReplacedTemplateOrNamespaceIsNotBoundUntilTheSpecIsWrittenAgain(t *testing.T) {
	ctx := context.Background()
	ns := func(name, uid string) *corev1.Namespace {
		n := newNamespace(name, nil)
		n.UID = types.UID(uid)
		return n
	}
	f := newFixture(t, newTemplate("t", "reader-"), newInstance("i", "t", []string{"a", "b"}, nil), ns("a", "a-1"), ns("b", "b-1"))
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	got, _ := f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := got.Status.Checked; c == nil || c.Generation != 1 || c.ScopeTemplateUID != "template-uid" ||
		len(c.Namespaces) != 2 || c.Namespaces[0] != (scopesv1alpha1.NamespaceUID{Name: "a", UID: "a-1"}) {
		t.Errorf("checked %+v", c)
	}
	bindingsIn := func(namespace string) int {
		rbs, _ := f.kube.RbacV1().RoleBindings(namespace).List(ctx, metav1.ListOptions{})
		return len(rbs.Items)
	}

	// Namespace b is deleted (its bindings with it) and re-created.
	_ = f.kube.CoreV1().Namespaces().Delete(ctx, "b", metav1.DeleteOptions{})
	_ = f.kube.RbacV1().RoleBindings("b").Delete(ctx, BindingName(ClusterRoleName("t", "reader-"), "i"), metav1.DeleteOptions{})
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	_, _ = f.kube.CoreV1().Namespaces().Create(ctx, ns("b", "b-2"), metav1.CreateOptions{})
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if bindingsIn("b") != 0 || bindingsIn("a") != 1 {
		t.Errorf("bound in the re-created namespace: a %d, b %d", bindingsIn("a"), bindingsIn("b"))
	}
	got, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); c.Status != metav1.ConditionFalse ||
		c.Reason != scopesv1alpha1.ReasonNamespacesReplaced || !strings.Contains(c.Message, "namespaces b were deleted and re-created") ||
		!strings.Contains(c.Message, "written again") {
		t.Errorf("Bound %+v", c)
	}
	f.writes()
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if w := f.writes(); len(w) != 0 {
		t.Errorf("a settled instance wrote %v", w)
	}

	// The template is deleted and re-created with wider rules.
	_ = f.scopes.ScopesV1alpha1().ScopeTemplates().Delete(ctx, "t", metav1.DeleteOptions{})
	_ = f.kube.RbacV1().ClusterRoles().Delete(ctx, ClusterRoleName("t", "reader-"), metav1.DeleteOptions{}) // the garbage collector
	wider := newTemplate("t", "reader-")
	wider.UID = "template-uid-2"
	wider.Spec.ClusterRoles[0].Rules[0].Resources = []string{"secrets"}
	_, _ = f.scopes.ScopesV1alpha1().ScopeTemplates().Create(ctx, wider, metav1.CreateOptions{})
	f.syncTemplate("t")
	if roles, _ := f.kube.RbacV1().ClusterRoles().List(ctx, metav1.ListOptions{}); len(roles.Items) != 0 {
		t.Errorf("the re-created template got roles while its only instance was checked against the earlier one: %+v", roles.Items)
	}
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if bindingsIn("a") != 0 {
		t.Errorf("bindings to the re-created template's roles: %d in a", bindingsIn("a"))
	}
	got, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionInvalid); c.Status != metav1.ConditionTrue ||
		c.Reason != scopesv1alpha1.ReasonScopeTemplateReplaced || !strings.Contains(c.Message, "template-uid-2") || !strings.Contains(c.Message, "written again") {
		t.Errorf("Invalid %+v", c)
	}

	// The spec written again (a new generation, checked at admission):
	// the new template and both namespaces as they are now are bound.
	got.Generation = 2
	_, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Update(ctx, got, metav1.UpdateOptions{})
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	f.syncTemplate("t")
	if err := f.syncInstance("i"); err != nil {
		t.Fatal(err)
	}
	if bindingsIn("a") != 1 || bindingsIn("b") != 1 {
		t.Errorf("after the spec was written again: a %d, b %d", bindingsIn("a"), bindingsIn("b"))
	}
	got, _ = f.scopes.ScopesV1alpha1().ScopeInstances().Get(ctx, "i", metav1.GetOptions{})
	if c := got.Status.Checked; c == nil || c.Generation != 2 || c.ScopeTemplateUID != "template-uid-2" || c.Namespaces[1].UID != "b-2" {
		t.Errorf("checked %+v", c)
	}
	if c := condition(t, got.Status.Conditions, scopesv1alpha1.ConditionBound); c.Status != metav1.ConditionTrue {
		t.Errorf("Bound %+v", c)
	}
}
