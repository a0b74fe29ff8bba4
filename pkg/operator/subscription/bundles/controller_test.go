package bundles

import (
	"context"
	"reflect"
	"testing"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	subscriptionlisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

type keyedContext struct {
	factory.SyncContext
	key string
}

func (k keyedContext) QueueKey() string { return k.key }

type fixture struct {
	t        *testing.T
	kube     *kubefake.Clientset
	subs     *subscriptionfake.Clientset
	recorder events.InMemoryRecorder
	// objectEvents are the Events recorded on Bundles.
	objectEvents *record.FakeRecorder
	// spec is the operator's; tests change its management state.
	spec *operatorv1.OperatorSpec
	// bundles is the informer's cache, refilled from subs before each sync.
	bundles cache.Indexer
	loop    *reconcileloop.Loop[*subscriptionv1alpha1.Bundle]
}

func newFixture(t *testing.T, bundle *subscriptionv1alpha1.Bundle, objects ...runtime.Object) *fixture {
	f := &fixture{
		t:        t,
		kube:     kubefake.NewClientset(objects...),
		subs:     subscriptionfake.NewSimpleClientset(bundle),
		recorder: events.NewInMemoryRecorder("test", clock.RealClock{}),

		objectEvents: record.NewFakeRecorder(100),
	}
	f.spec = &operatorv1.OperatorSpec{ManagementState: operatorv1.Managed}
	operatorClient := v1helpers.NewFakeOperatorClient(f.spec, &operatorv1.OperatorStatus{}, nil)
	f.bundles = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	c := &controller{bundleClient: f.subs.SubscriptionV1alpha1(), events: f.objectEvents, reader: bundlerefs.Reader{Kube: f.kube}}
	f.loop = reconcileloop.NewLoop(ControllerName, source(nil, subscriptionlisters.NewBundleLister(f.bundles)), c.syncBundle, operatorClient)
	return f
}

func (f *fixture) sync(key string) {
	f.t.Helper()
	list, err := f.subs.SubscriptionV1alpha1().Bundles("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	items := make([]any, 0, len(list.Items))
	for i := range list.Items {
		items = append(items, &list.Items[i])
	}
	if err := f.bundles.Replace(items, ""); err != nil {
		f.t.Fatal(err)
	}
	f.kube.ClearActions()
	f.subs.ClearActions()
	if err := f.loop.Sync(context.Background(), keyedContext{factory.NewSyncContext("test", f.recorder), key}); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) writes() []string {
	var out []string
	for _, a := range append(f.kube.Actions(), f.subs.Actions()...) {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	return out
}

func (f *fixture) status() subscriptionv1alpha1.BundleStatus {
	b, err := f.subs.SubscriptionV1alpha1().Bundles("ns").Get(context.Background(), "rhel", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return b.Status
}

func (f *fixture) invalid() *metav1.Condition {
	f.t.Helper()
	cond := meta.FindStatusCondition(f.status().Conditions, subscriptionv1alpha1.ConditionInvalid)
	if cond == nil {
		f.t.Fatalf("no Invalid condition in %+v", f.status())
	}
	return cond
}

func bundle(entitlements []subscriptionv1alpha1.LocalReference, yum ...subscriptionv1alpha1.LocalReference) *subscriptionv1alpha1.Bundle {
	return &subscriptionv1alpha1.Bundle{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rhel", Generation: 3},
		Spec:       subscriptionv1alpha1.BundleSpec{Entitlements: entitlements, YumRepositories: yum},
	}
}

func local(namespace, name string) subscriptionv1alpha1.LocalReference {
	return subscriptionv1alpha1.LocalReference{Namespace: namespace, Name: name}
}

func secret(name string, keys ...string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string][]byte{}}
	for _, k := range keys {
		s.Data[k] = []byte("value")
	}
	return s
}

func TestValidBundleReportsKeys(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "repos"},
		Data: map[string]string{"redhat.repo": "[x]"}, BinaryData: map[string][]byte{"other.repo": nil}}
	f := newFixture(t, bundle([]subscriptionv1alpha1.LocalReference{local("", "a"), local("ns", "b")}, local("", "repos")),
		secret("a", "a.pem", "a-key.pem"), secret("b", "b.pem"), cm)
	f.sync("ns/rhel")

	if got, want := f.writes(), []string{"update bundles/status"}; !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
	status := f.status()
	if cond := f.invalid(); cond.Status != metav1.ConditionFalse || cond.Reason != subscriptionv1alpha1.ReasonValid || cond.ObservedGeneration != 3 {
		t.Errorf("Invalid %+v", cond)
	}
	want := subscriptionv1alpha1.BundleStatus{
		ObservedGeneration: 3,
		Conditions:         status.Conditions,
		Entitlements: []subscriptionv1alpha1.ResolvedReference{
			{Namespace: "ns", Name: "a", Keys: []string{"a-key.pem", "a.pem"}},
			{Namespace: "ns", Name: "b", Keys: []string{"b.pem"}},
		},
		YumRepositories: []subscriptionv1alpha1.ResolvedReference{{Namespace: "ns", Name: "repos", Keys: []string{"other.repo", "redhat.repo"}}},
	}
	if !reflect.DeepEqual(status, want) {
		t.Errorf("status\n%+v\nwant\n%+v", status, want)
	}

	f.sync("ns/rhel")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("an unchanged resync wrote %v", w)
	}
}

func TestInvalidBundles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bundle  *subscriptionv1alpha1.Bundle
		objects []runtime.Object
		reason  string
		message string
	}{{
		name:    "cross-namespace",
		bundle:  bundle([]subscriptionv1alpha1.LocalReference{local("other", "x"), local("", "a")}, local("elsewhere", "repos")),
		objects: []runtime.Object{secret("a", "a.pem")},
		reason:  subscriptionv1alpha1.ReasonCrossNamespace,
		message: "entitlement secret other/x is not in the bundle's namespace ns: projected volumes cannot read other namespaces; use a ClusterBundle; " +
			"yum repository configmap elsewhere/repos is not in the bundle's namespace ns: projected volumes cannot read other namespaces; use a ClusterBundle",
	}, {
		name:    "duplicate",
		bundle:  bundle([]subscriptionv1alpha1.LocalReference{local("", "a"), local("ns", "a")}),
		objects: []runtime.Object{secret("a", "a.pem")},
		reason:  subscriptionv1alpha1.ReasonDuplicateReference,
		message: "entitlement secret ns/a is listed more than once",
	}, {
		name:    "missing",
		bundle:  bundle([]subscriptionv1alpha1.LocalReference{local("", "etc-pki-entitlement"), local("", "a")}, local("", "satellite")),
		objects: []runtime.Object{secret("a", "a.pem")},
		reason:  subscriptionv1alpha1.ReasonMissingReference,
		message: "secret ns/etc-pki-entitlement not found; configmap ns/satellite not found",
	}, {
		name:    "overlap",
		bundle:  bundle([]subscriptionv1alpha1.LocalReference{local("", "x"), local("", "y")}),
		objects: []runtime.Object{secret("x", "k.pem", "x.pem"), secret("y", "k.pem", "x.pem")},
		reason:  subscriptionv1alpha1.ReasonOverlappingKeys,
		message: `key "k.pem" is in both secret ns/x and secret ns/y; key "x.pem" is in both secret ns/x and secret ns/y`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.bundle, tc.objects...)
			f.sync("ns/rhel")
			cond := f.invalid()
			if cond.Status != metav1.ConditionTrue || cond.Reason != tc.reason || cond.Message != tc.message {
				t.Errorf("Invalid %s %s %q, want %s %q", cond.Status, cond.Reason, cond.Message, tc.reason, tc.message)
			}
			if status := f.status(); status.ObservedGeneration != 3 || len(status.Entitlements) != 0 {
				t.Errorf("status %+v", status)
			}
			if events := f.recorder.Events(); len(events) != 1 || events[0].Reason != "BundleInvalid" {
				t.Errorf("events %v", events)
			}
			f.sync("ns/rhel")
			if w := f.writes(); len(w) != 0 {
				t.Errorf("an unchanged resync wrote %v", w)
			}
		})
	}
}

func TestNotManagedOrAbsentDoesNothing(t *testing.T) {
	f := newFixture(t, bundle([]subscriptionv1alpha1.LocalReference{local("", "a")}), secret("a", "a.pem"))
	f.sync("ns/gone")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("wrote %v for an absent bundle", w)
	}
	f.spec.ManagementState = operatorv1.Unmanaged
	f.sync("ns/rhel")
	if w := f.writes(); len(w) != 0 {
		t.Errorf("Unmanaged wrote %v", w)
	}
}

// The default key fires on every write of the operator CR's status; only a
// change of management state or a stale last sweep revisits every bundle.
func TestDefaultKeySweepsOnlyWhenDue(t *testing.T) {
	f := newFixture(t, bundle([]subscriptionv1alpha1.LocalReference{local("", "a")}), secret("a", "a.pem"))
	f.sync("ns/rhel") // fills the lister
	syncCtx := factory.NewSyncContext("test", f.recorder)
	sweep := func() int {
		t.Helper()
		before := syncCtx.Queue().Len()
		if err := f.loop.Sync(context.Background(), keyedContext{syncCtx, factory.DefaultQueueKey}); err != nil {
			t.Fatal(err)
		}
		added := syncCtx.Queue().Len() - before
		for syncCtx.Queue().Len() > 0 {
			key, _ := syncCtx.Queue().Get()
			syncCtx.Queue().Done(key)
		}
		return added
	}
	if n := sweep(); n != 1 {
		t.Errorf("the first sweep enqueued %d bundles, want 1", n)
	}
	if n := sweep(); n != 0 {
		t.Errorf("a second sweep right away enqueued %d bundles, want 0", n)
	}
	f.spec.ManagementState = operatorv1.Unmanaged
	if n := sweep(); n != 0 {
		t.Errorf("Unmanaged enqueued %d bundles", n)
	}
	f.spec.ManagementState = operatorv1.Managed
	if n := sweep(); n != 1 {
		t.Errorf("back to Managed enqueued %d bundles, want 1", n)
	}
}

// The reference index names what the controller reads: namespaces
// resolved to the bundle's, Secrets and ConfigMaps apart.
func TestReferencesAreWhatTheControllerReads(t *testing.T) {
	b := bundle([]subscriptionv1alpha1.LocalReference{local("", "a"), local("ns", "b"), local("", "a"), local("other", "x")}, local("", "repos"))
	want := []bundlerefs.Ref{
		{Kind: bundlerefs.Secret, Namespace: "ns", Name: "a"},
		{Kind: bundlerefs.Secret, Namespace: "ns", Name: "b"},
		{Kind: bundlerefs.ConfigMap, Namespace: "ns", Name: "repos"},
	}
	if got := References(b); !reflect.DeepEqual(got, want) {
		t.Errorf("references %v, want %v", got, want)
	}
	if got := References(&subscriptionv1alpha1.ClusterBundle{}); got != nil {
		t.Errorf("references of another type %v", got)
	}
}
