package informerkit

import (
	"context"
	"slices"
	"testing"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// recorder is a handler that notes what reached it.
type recorder struct{ got []string }

func (r *recorder) OnAdd(obj any, _ bool) { r.got = append(r.got, "add "+resourceVersion(obj)) }
func (r *recorder) OnUpdate(_, obj any)   { r.got = append(r.got, "update "+resourceVersion(obj)) }
func (r *recorder) OnDelete(obj any)      { r.got = append(r.got, "delete") }
func (r *recorder) take() (out []string)  { out, r.got = r.got, nil; return out }
func (r *recorder) expect(t *testing.T, want ...string) {
	t.Helper()
	if got := r.take(); !slices.Equal(got, want) {
		t.Errorf("passed on %q, want %q", got, want)
	}
}

// informer hands the handler it was given back to the test.
type informer struct{ handler cache.ResourceEventHandler }

func (i *informer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	i.handler = h
	return nil, nil
}
func (i *informer) HasSynced() bool { return true }

// handlerOf is the handler wrapped hands its informer for r.
func handlerOf(t *testing.T, wrapped factory.Informer) (cache.ResourceEventHandler, *recorder) {
	t.Helper()
	var inner informer
	f := *wrapped.(*filtered)
	f.Informer = &inner
	r := &recorder{}
	if _, err := f.AddEventHandler(r); err != nil {
		t.Fatal(err)
	}
	return inner.handler, r
}

func secret(resourceVersion string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: resourceVersion}}
}

func TestChangesOnlyPassesRealChanges(t *testing.T) {
	h, r := handlerOf(t, ChangesOnly(nil))
	h.OnAdd(secret("1"), true)
	r.expect(t) // the initial list: every object is synced at start anyway
	h.OnAdd(secret("2"), false)
	r.expect(t, "add 2")
	h.OnUpdate(secret("2"), secret("2"))
	r.expect(t) // a relist replaying an unchanged object
	h.OnUpdate(secret("2"), secret("3"))
	r.expect(t, "update 3")
	h.OnDelete(secret("3"))
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: secret("3")})
	r.expect(t, "delete", "delete")
}

func TestUpdatesWhenPassesEveryAddAndDelete(t *testing.T) {
	odd := func(_, newObj any) bool { return resourceVersion(newObj) == "3" }
	h, r := handlerOf(t, UpdatesWhen(nil, odd))
	h.OnAdd(secret("1"), true)
	h.OnAdd(secret("2"), false)
	r.expect(t, "add 1", "add 2")
	h.OnUpdate(secret("1"), secret("2"))
	r.expect(t)
	h.OnUpdate(secret("2"), secret("3"))
	r.expect(t, "update 3")
	h.OnDelete(secret("3"))
	r.expect(t, "delete")
}

type fakeController struct {
	factory.Controller
	ran *bool
}

func (f fakeController) Run(context.Context, int) { *f.ran = true }

func TestStartOnRunStartsBeforeTheControllerRuns(t *testing.T) {
	var ran bool
	var order []string
	start := func(name string) func(<-chan struct{}) {
		return func(<-chan struct{}) {
			if ran {
				t.Errorf("%s started after the controller ran", name)
			}
			order = append(order, name)
		}
	}
	StartOnRun(fakeController{ran: &ran}, start("kube"), start("shares")).Run(context.Background(), 1)
	if !ran || !slices.Equal(order, []string{"kube", "shares"}) {
		t.Errorf("ran %v, started %q", ran, order)
	}
}

func TestLabelKeyIsTheOwnerItNames(t *testing.T) {
	const label = "example.com/owner"
	for _, tc := range []struct {
		obj  runtime.Object
		want []string
	}{
		{&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{label: "p"}}}, []string{"p"}},
		{&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"other": "p"}}}, nil},
		{&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{label: ""}}}, nil},
	} {
		if got := LabelKey(label)(tc.obj); !slices.Equal(got, tc.want) || (tc.want == nil && got != nil) {
			t.Errorf("LabelKey of %v = %#v, want %#v", tc.obj.(metav1.Object).GetLabels(), got, tc.want)
		}
	}
}

func TestEveryKeyIsEveryObjectsKey(t *testing.T) {
	list := func(labels.Selector) ([]*corev1.ConfigMap, error) {
		return []*corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}}, {ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}}, nil
	}
	if got := EveryKey(list)(&corev1.Namespace{}); !slices.Equal(got, []string{"cluster", "ns/a"}) {
		t.Errorf("EveryKey = %q", got)
	}
}

func TestSlimNamespaceKeepsNameUIDAndTimesOnly(t *testing.T) {
	now := metav1.Now()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "u", ResourceVersion: "7", CreationTimestamp: now, DeletionTimestamp: &now,
		Labels: map[string]string{"x": "y"}, Annotations: map[string]string{"a": "b"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes"}}}
	slim, err := SlimNamespace(ns)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "u", ResourceVersion: "7", CreationTimestamp: now, DeletionTimestamp: &now}}
	if got := slim.(*corev1.Namespace); got.String() != want.String() {
		t.Errorf("SlimNamespace kept %v, want %v", got, want)
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "apps"}
	if other, _ := SlimNamespace(tombstone); other != tombstone {
		t.Errorf("a tombstone was changed: %+v", other)
	}
}

func TestSlimNamespaceWithLabelsKeepsTheLabelsToo(t *testing.T) {
	now := metav1.Now()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "u", ResourceVersion: "7", CreationTimestamp: now,
		Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"a": "b"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	slim, err := SlimNamespaceWithLabels(ns)
	if err != nil {
		t.Fatal(err)
	}
	want := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "apps", UID: "u", ResourceVersion: "7", CreationTimestamp: now, Labels: map[string]string{"team": "a"}}}
	if got := slim.(*corev1.Namespace); got.String() != want.String() {
		t.Errorf("SlimNamespaceWithLabels kept %v, want %v", got, want)
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "apps"}
	if other, _ := SlimNamespaceWithLabels(tombstone); other != tombstone {
		t.Errorf("a tombstone was changed: %+v", other)
	}
}

// ByName's informers ask for one name, by field selector.
func TestByNameListsOneName(t *testing.T) {
	kube := kubefake.NewClientset()
	var selectors []string
	kube.PrependReactor("list", "secrets", func(action clienttesting.Action) (bool, runtime.Object, error) {
		list := action.(clienttesting.ListActionImpl)
		selectors = append(selectors, list.GetNamespace()+" "+list.GetListRestrictions().Fields.String())
		return false, nil, nil
	})
	factory := ByName(kube, "ops", "creds")
	factory.Core().V1().Secrets().Informer()
	stop := make(chan struct{})
	defer close(stop)
	factory.Start(stop)
	factory.WaitForCacheSync(stop)
	if !slices.Equal(selectors, []string{"ops metadata.name=creds"}) {
		t.Errorf("listed with %q", selectors)
	}
}

// WithoutManagedFields drops managedFields and nothing else, is
// idempotent, as informers require, and lets through what has no metadata.
func TestWithoutManagedFieldsDropsThemOnly(t *testing.T) {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "r", Labels: map[string]string{"l": "v"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	once, _ := WithoutManagedFields(role)
	twice, _ := WithoutManagedFields(once)
	if got := twice.(*rbacv1.ClusterRole); got.ManagedFields != nil || got.Name != "r" || got.Labels["l"] != "v" {
		t.Errorf("twice: %+v", got)
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "r", Obj: role}
	if got, err := WithoutManagedFields(tombstone); err != nil || got != tombstone {
		t.Errorf("a tombstone came out as %+v, %v", got, err)
	}
}

// library-go's factory keeps its informers in a set: a wrapper must be
// hashable, and each gets its handler.
func TestFactoryTakesTheWrappers(t *testing.T) {
	updates, changes := &informer{}, &informer{}
	factory.New().
		WithInformersQueueKeysFunc(func(runtime.Object) []string { return nil },
			UpdatesWhen(updates, func(_, _ any) bool { return true }), ChangesOnly(changes)).
		WithSync(func(context.Context, factory.SyncContext) error { return nil }).
		ToController("test", events.NewInMemoryRecorder("test", clock.RealClock{}))
	if updates.handler == nil || changes.handler == nil {
		t.Error("a wrapped informer got no handler")
	}
}
