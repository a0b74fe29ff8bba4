package referencewatch

import (
	"context"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	subscriptionfake "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/fake"
	subscriptioninformers "github.com/openshift/cluster-workload-access-operator/pkg/generated/informers/externalversions"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

func object(kind, namespace, name, resourceVersion string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kind},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name, ResourceVersion: resourceVersion, UID: types.UID("uid-" + name),
			Labels:            map[string]string{"app.kubernetes.io/name": name},
			Annotations:       map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"data":{"k.pem":"c2VjcmV0"}}`},
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "o"}},
			Finalizers:        []string{"example.com/keep"},
			ManagedFields:     []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
			CreationTimestamp: metav1.NewTime(time.Now()),
			Generation:        7,
		},
	}
}

func TestStripKeepsOnlyWhatTellsVersionsApart(t *testing.T) {
	got, err := Strip(object("Secret", "ns", "ent", "42"))
	if err != nil {
		t.Fatal(err)
	}
	want := NewVersion("ns", "ent", "42", "uid-ent")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("stripped:\n%+v\nwant\n%+v", got, want)
	}
	// A transform may see an object twice.
	again, _ := Strip(got)
	if !reflect.DeepEqual(again, want) {
		t.Errorf("stripped twice: %+v", again)
	}
	tombstone := cache.DeletedFinalStateUnknown{Key: "ns/ent"}
	if other, _ := Strip(tombstone); other != tombstone {
		t.Errorf("a tombstone was changed: %+v", other)
	}
}

// A Version keeps one string, the key, and reads back what it was made of;
// a resourceVersion or UID the API server would not write is kept as it came.
func TestAVersionKeepsTheKeyResourceVersionAndUID(t *testing.T) {
	const uid = "0b6f8a2e-3c1d-4e5f-9a7b-0123456789ab"
	for _, tc := range []struct {
		name, resourceVersion string
		uid                   types.UID
		compact               bool
	}{
		{"as the API server writes them", "1234567", uid, true},
		{"a resourceVersion past 32 bits", "18446744073709551615", uid, true},
		{"a resourceVersion with a leading zero", "0123", uid, false},
		{"a resourceVersion that is no number", "abc", uid, false},
		{"an empty resourceVersion and UID", "", "", false},
		{"an upper-case UID", "5", "0B6F8A2E-3C1D-4E5F-9A7B-0123456789AB", false},
		{"a UID that is no UUID", "5", "uid-ent", false},
		{"a UID with a misplaced dash", "5", "0b6f8a2e3-c1d-4e5f-9a7b-0123456789ab", false},
	} {
		v := NewVersion("tenant-7", "pull-secret", tc.resourceVersion, tc.uid)
		if v.key != "tenant-7/pull-secret" || (v.odd == nil) != tc.compact {
			t.Errorf("%s: kept key %q, compact %v, want compact %v", tc.name, v.key, v.odd == nil, tc.compact)
		}
		m, err := meta.Accessor(v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if m.GetNamespace() != "tenant-7" || m.GetName() != "pull-secret" || m.GetResourceVersion() != tc.resourceVersion || m.GetUID() != tc.uid {
			t.Errorf("%s: reads back %s/%s %q %q", tc.name, m.GetNamespace(), m.GetName(), m.GetResourceVersion(), m.GetUID())
		}
		if key, _ := cache.MetaNamespaceKeyFunc(v); key != "tenant-7/pull-secret" {
			t.Errorf("%s: cache key %q", tc.name, key)
		}
		if c := v.DeepCopyObject(); !reflect.DeepEqual(c, v) {
			t.Errorf("%s: copy %+v", tc.name, c)
		}
	}

	// What the cache compares: a moved resourceVersion is a change; a UID
	// is what tells a Secret made again under its name from the one deleted.
	base := NewVersion("ns", "ent", "41", uid)
	for what, other := range map[string]*Version{
		"resourceVersion": NewVersion("ns", "ent", "42", uid),
		"UID":             NewVersion("ns", "ent", "41", "0b6f8a2e-3c1d-4e5f-9a7b-0123456789ac"),
	} {
		if reflect.DeepEqual(base, other) {
			t.Errorf("another %s reads as the same version", what)
		}
	}
	if base.UID() == NewVersion("ns", "ent", "41", "0b6f8a2e-3c1d-4e5f-9a7b-0123456789ac").UID() {
		t.Error("two UIDs one byte apart read back the same")
	}
	odd := NewVersion("ns", "ent", "041", "uid-ent")
	for _, tc := range []struct {
		name     string
		from, to *Version
		moved    bool
	}{
		{"the same version", base, NewVersion("ns", "ent", "41", uid), false},
		{"another resourceVersion", base, NewVersion("ns", "ent", "42", uid), true},
		{"another UID", base, NewVersion("ns", "ent", "41", "0b6f8a2e-3c1d-4e5f-9a7b-0123456789ac"), true},
		{"the same odd version", odd, NewVersion("ns", "ent", "041", "uid-ent"), false},
		{"an odd UID", odd, NewVersion("ns", "ent", "041", "uid-ent-2"), true},
		{"from odd to compact", odd, base, true},
	} {
		if got := moved(tc.from, tc.to); got != tc.moved {
			t.Errorf("%s: moved %v, want %v", tc.name, got, tc.moved)
		}
	}
}

// recorder is a handler that notes what reached it.
type recorder struct {
	lock sync.Mutex
	got  []string
}

func (r *recorder) note(what string, obj any) {
	r.lock.Lock()
	defer r.lock.Unlock()
	v := obj.(*Version)
	r.got = append(r.got, what+" "+v.Name()+" "+v.ResourceVersion())
}
func (r *recorder) OnAdd(obj any, _ bool) { r.note("add", obj) }
func (r *recorder) OnUpdate(_, obj any)   { r.note("update", obj) }
func (r *recorder) OnDelete(obj any)      { r.note("delete", obj) }
func (r *recorder) take() (out []string) {
	r.lock.Lock()
	defer r.lock.Unlock()
	out, r.got = r.got, nil
	return out
}
func (r *recorder) expect(t *testing.T, when string, want ...string) {
	t.Helper()
	got := r.take()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: told %q, want %q", when, got, want)
	}
}

// references of a ClusterBundle, as the clusterbundles controller lists them.
func references(obj any) []bundlerefs.Ref {
	cb, ok := obj.(*subscriptionv1alpha1.ClusterBundle)
	if !ok {
		return nil
	}
	var out []bundlerefs.Ref
	for _, r := range cb.Spec.Entitlements {
		out = append(out, bundlerefs.Ref{Kind: bundlerefs.Secret, Namespace: r.Namespace, Name: r.Name})
	}
	for _, r := range cb.Spec.YumRepositories {
		out = append(out, bundlerefs.Ref{Kind: bundlerefs.ConfigMap, Namespace: r.Namespace, Name: r.Name})
	}
	return out
}

func clusterBundle(name string, entitlements []string, yum ...string) *subscriptionv1alpha1.ClusterBundle {
	cb := &subscriptionv1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, e := range entitlements {
		ns, n, _ := strings.Cut(e, "/")
		cb.Spec.Entitlements = append(cb.Spec.Entitlements, subscriptionv1alpha1.ClusterReference{Namespace: ns, Name: n})
	}
	for _, y := range yum {
		ns, n, _ := strings.Cut(y, "/")
		cb.Spec.YumRepositories = append(cb.Spec.YumRepositories, subscriptionv1alpha1.ClusterReference{Namespace: ns, Name: n})
	}
	return cb
}

func TestAnObjectMapsToTheBundlesThatReferenceIt(t *testing.T) {
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{IndexName: Index(references)})
	for _, cb := range []*subscriptionv1alpha1.ClusterBundle{
		clusterBundle("rhel", []string{"config/ent"}, "config/ent"),
		clusterBundle("driver", []string{"config/ent", "config/driver"}),
		clusterBundle("other", []string{"tenant/ent"}),
	} {
		if err := indexer.Add(cb); err != nil {
			t.Fatal(err)
		}
	}
	secrets, configMaps := BundlesOf(indexer, bundlerefs.Secret), BundlesOf(indexer, bundlerefs.ConfigMap)
	for _, tc := range []struct {
		name string
		keys func(k8sruntime.Object) []string
		obj  k8sruntime.Object
		want []string
	}{
		{"a Secret two bundles reference", secrets, object("", "config", "ent", "1"), []string{"driver", "rhel"}},
		{"a Secret one bundle references", secrets, object("", "config", "driver", "1"), []string{"driver"}},
		{"a ConfigMap named like a referenced Secret", configMaps, object("", "config", "ent", "1"), []string{"rhel"}},
		{"the same name in another namespace", secrets, object("", "tenant", "ent", "1"), []string{"other"}},
		{"nothing references it", secrets, object("", "config", "unrelated", "1"), nil},
	} {
		got := tc.keys(tc.obj)
		slices.Sort(got)
		if len(got) != len(tc.want) || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}

	// The index follows the bundle's spec.
	if err := indexer.Update(clusterBundle("driver", []string{"config/driver"})); err != nil {
		t.Fatal(err)
	}
	if got := secrets(object("", "config", "ent", "2")); !slices.Equal(got, []string{"rhel"}) {
		t.Errorf("after driver stopped referencing config/ent: %q", got)
	}
}

// The whole path on fakes: a metadata informer over a fake API, the
// ClusterBundle informer with the index, and a handler that enqueues what
// Keys returns, as library-go's controller does.
func TestChangesWakeTheBundlesThatReferenceThem(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scheme := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(scheme)
	client := metadatafake.NewSimpleMetadataClient(scheme,
		object("Secret", "config", "ent", "1"), object("Secret", "config", "unrelated", "1"))
	subs := subscriptionfake.NewSimpleClientset(clusterBundle("rhel", []string{"config/ent", "config/later"}, "config/repos"))
	bundleInformers := subscriptioninformers.NewSharedInformerFactory(subs, 0)
	bundles := bundleInformers.Subscription().V1alpha1().ClusterBundles().Informer()

	w := New(client)
	triggers, err := w.For(bundles, references)
	if err != nil {
		t.Fatal(err)
	}
	queue := make(chan string, 100)
	for _, trigger := range triggers {
		enqueue := func(obj any) {
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			for _, key := range trigger.Keys(obj.(k8sruntime.Object)) {
				queue <- key
			}
		}
		if _, err := trigger.Informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    enqueue,
			UpdateFunc: func(_, obj any) { enqueue(obj) },
			DeleteFunc: enqueue,
		}); err != nil {
			t.Fatal(err)
		}
	}
	bundleInformers.Start(ctx.Done())
	w.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), bundles.HasSynced, triggers[0].Informer.HasSynced, triggers[1].Informer.HasSynced) {
		t.Fatal("caches did not sync")
	}
	if len(queue) != 0 {
		t.Fatalf("the initial list woke %d bundles", len(queue))
	}
	woken := func(what string, change func() error) {
		t.Helper()
		if err := change(); err != nil {
			t.Fatal(err)
		}
		select {
		case key := <-queue:
			if key != "rhel" {
				t.Errorf("%s woke %q", what, key)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s woke nothing", what)
		}
	}
	secrets := client.Resource(resources[bundlerefs.Secret])
	configMaps := client.Resource(resources[bundlerefs.ConfigMap])
	update := func(kind, name, resourceVersion string) func() error {
		return func() error {
			_, err := client.Resource(resources[bundlerefs.Kind(strings.ToLower(kind))]).Namespace("config").(metadatafake.MetadataClient).
				UpdateFake(object(kind, "config", name, resourceVersion), metav1.UpdateOptions{})
			return err
		}
	}
	create := func(kind, name string) func() error {
		return func() error {
			_, err := client.Resource(resources[bundlerefs.Kind(strings.ToLower(kind))]).Namespace("config").(metadatafake.MetadataClient).
				CreateFake(object(kind, "config", name, "1"), metav1.CreateOptions{})
			return err
		}
	}

	// Events of objects nobody references, or updates that moved no
	// resourceVersion, wake nothing: the next event that does is the first
	// the queue sees.
	for _, quiet := range []func() error{create("Secret", "another"), update("Secret", "unrelated", "2"), update("Secret", "ent", "1")} {
		if err := quiet(); err != nil {
			t.Fatal(err)
		}
	}
	woken("a referenced Secret whose keys changed", update("Secret", "ent", "2"))
	woken("a missing Secret created", create("Secret", "later"))
	woken("a referenced Secret deleted", func() error { return secrets.Namespace("config").Delete(ctx, "ent", metav1.DeleteOptions{}) })
	woken("a referenced ConfigMap created", create("ConfigMap", "repos"))
	woken("a referenced ConfigMap deleted", func() error { return configMaps.Namespace("config").Delete(ctx, "repos", metav1.DeleteOptions{}) })
	if len(queue) != 0 {
		t.Errorf("%d more wakeups than changes", len(queue))
	}

	// What the store keeps is the Version of referenced objects only:
	// config/later (config/ent was deleted, "unrelated" and "another" are
	// referenced by nothing).
	s := w.stores[bundlerefs.Secret]
	s.lock.Lock()
	defer s.lock.Unlock()
	if v := s.held["config/later"]; len(s.held) != 1 || v == nil || v.UID() != "uid-later" || v.ResourceVersion() != "1" {
		t.Errorf("holds %v", s.held)
	}
}

// A store of 20,000 stripped objects costs under 180 bytes each with its map
// and keys (238 when a Version kept four strings; a stripped
// PartialObjectMetadata: 464); unstripped, with the labels and annotations
// they arrive with, several times that. That is what the watch keeps of each
// referenced object, and what a list streamed by watch keeps of every object
// until it is in (Transformer).
func TestTheCacheHoldsAFewHundredBytesPerObject(t *testing.T) {
	const n = 20000
	// decoded is object i as the informer receives it: fresh strings, as
	// a decode makes them.
	decoded := func(i int) *metav1.PartialObjectMetadata {
		o := object("", "tenant-"+strconv.Itoa(i%100), "app-"+strconv.Itoa(i), strconv.Itoa(1000000+i))
		o.UID = types.UID("0b6f8a2e-3c1d-4e5f-9a7b-" + strconv.Itoa(100000000000+i))
		o.Annotations["kubectl.kubernetes.io/last-applied-configuration"] += strconv.Itoa(i)
		return o
	}
	perObject := func(transform cache.TransformFunc) float64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		store := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{})
		for i := range n {
			obj, _ := transform(decoded(i))
			if err := store.Add(obj); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(store)
		return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	}
	stripped := perObject(Strip)
	whole := perObject(func(obj any) (any, error) { return obj, nil })
	t.Logf("bytes per cached object: %.0f stripped, %.0f whole", stripped, whole)
	if stripped > 180 || stripped*3 > whole {
		t.Errorf("a stripped object costs %.0f bytes in the cache (whole: %.0f)", stripped, whole)
	}
}
