package referencewatch

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

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

// secretStore is a Secret store read by the index of bundles, with r told of
// what it passes on.
func secretStore(t *testing.T, bundles ...*subscriptionv1alpha1.ClusterBundle) (*store, cache.Indexer, *recorder) {
	t.Helper()
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{IndexName: Index(references)})
	for _, b := range bundles {
		if err := indexer.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	s := newStore(bundlerefs.Secret)
	r := &recorder{}
	ref := &referrer{indexer: indexer}
	s.referrers = append(s.referrers, ref)
	if _, err := (referrerInformer{store: s, referrer: ref}).AddEventHandler(r); err != nil {
		t.Fatal(err)
	}
	return s, indexer, r
}

// secret is Secret config/name at resourceVersion, as the reflector
// reports it; its UID is "uid-<name>".
func secret(name, resourceVersion string) *metav1.PartialObjectMetadata {
	return object("Secret", "config", name, resourceVersion)
}

func held(s *store) map[string]string {
	s.lock.Lock()
	defer s.lock.Unlock()
	out := map[string]string{}
	for key, v := range s.held {
		out[key] = v.ResourceVersion() + " " + string(v.UID())
	}
	return out
}

func expectHeld(t *testing.T, s *store, want map[string]string) {
	t.Helper()
	got := held(s)
	if len(got) != len(want) {
		t.Errorf("holds %v, want %v", got, want)
		return
	}
	for key, v := range want {
		if got[key] != v {
			t.Errorf("holds %v, want %v", got, want)
			return
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTheStoreKeepsAndReportsOnlyReferencedObjects(t *testing.T) {
	s, _, r := secretStore(t, clusterBundle("rhel", []string{"config/ent", "config/later"}))
	informer := referrerInformer{store: s}
	if informer.HasSynced() {
		t.Fatal("synced before the first list")
	}

	// The initial list keeps what is referenced and tells nobody.
	must(t, s.Replace([]any{secret("ent", "1"), secret("unrelated", "1")}, "1"))
	r.expect(t, "the initial list")
	expectHeld(t, s, map[string]string{"config/ent": "1 uid-ent"})
	if !informer.HasSynced() {
		t.Error("not synced after the first list")
	}

	must(t, s.Add(secret("another", "2")))
	must(t, s.Update(secret("unrelated", "3")))
	r.expect(t, "unreferenced Secrets created and changed")
	must(t, s.Update(secret("ent", "1")))
	r.expect(t, "an update that moved nothing")

	must(t, s.Update(secret("ent", "4")))
	r.expect(t, "a referenced Secret changed", "update ent 4")
	must(t, s.Add(secret("later", "5")))
	r.expect(t, "a referenced Secret created", "add later 5")
	expectHeld(t, s, map[string]string{"config/ent": "4 uid-ent", "config/later": "5 uid-later"})

	must(t, s.Delete(secret("unrelated", "3")))
	r.expect(t, "an unreferenced Secret deleted")
	must(t, s.Delete(cache.DeletedFinalStateUnknown{Key: "config/later", Obj: secret("later", "5")}))
	r.expect(t, "a referenced Secret deleted", "delete later 5")
	expectHeld(t, s, map[string]string{"config/ent": "4 uid-ent"})
}

// A Secret deleted and made again under its name is another Secret, even at
// a resourceVersion the store has seen (a restored etcd backup).
func TestASecretMadeAgainUnderItsNameIsAChange(t *testing.T) {
	s, _, r := secretStore(t, clusterBundle("rhel", []string{"config/ent"}))
	must(t, s.Replace([]any{secret("ent", "1")}, "1"))
	again := secret("ent", "1")
	again.UID = "uid-ent-2"
	must(t, s.Update(again))
	r.expect(t, "the same name under another UID", "update ent 1")
	expectHeld(t, s, map[string]string{"config/ent": "1 uid-ent-2"})

	// On a relist too.
	must(t, s.Replace([]any{secret("ent", "1")}, "2"))
	r.expect(t, "a relist with the first UID back", "update ent 1")
}

// A relist after the watch broke tells the bundles what changed meanwhile,
// and nothing else.
func TestARelistReportsWhatTheWatchMissed(t *testing.T) {
	s, _, r := secretStore(t,
		clusterBundle("rhel", []string{"config/changed", "config/unchanged", "config/deleted", "config/created", "config/never"}))
	must(t, s.Replace([]any{secret("changed", "1"), secret("unchanged", "1"), secret("deleted", "1"), secret("unrelated", "1")}, "1"))
	r.expect(t, "the initial list")

	must(t, s.Replace([]any{secret("changed", "2"), secret("unchanged", "1"), secret("created", "2"), secret("unrelated", "2")}, "2"))
	r.expect(t, "the relist",
		"update changed 2", "add created 2", "delete deleted 1",
		// config/never is referenced and was never seen: it may have been
		// made and deleted while the watch was down.
		"delete never ")
	expectHeld(t, s, map[string]string{"config/changed": "2 uid-changed", "config/unchanged": "1 uid-unchanged", "config/created": "2 uid-created"})

	must(t, s.Replace([]any{secret("changed", "2"), secret("unchanged", "1"), secret("created", "2"), secret("unrelated", "2")}, "3"))
	// Referenced and missing, the bundles of config/deleted and
	// config/never are told at every relist: they are Invalid until the
	// Secrets exist, and retry anyway.
	r.expect(t, "a relist with nothing changed", "delete deleted ", "delete never ")
}

// A bundle that starts to reference a Secret the store never held (it
// existed before): the store does not hold it until its next event, which
// tells the bundle, whether it comes from the watch or from a relist, and a
// delete of it is told whether or not it was held.
func TestAReferenceAddedLaterIsFollowed(t *testing.T) {
	s, indexer, r := secretStore(t, clusterBundle("rhel", []string{"config/ent"}))
	must(t, s.Replace([]any{secret("ent", "1"), secret("old", "1"), secret("older", "1")}, "1"))
	expectHeld(t, s, map[string]string{"config/ent": "1 uid-ent"})

	must(t, indexer.Add(clusterBundle("driver", []string{"config/old", "config/older"})))
	must(t, s.Update(secret("old", "2")))
	r.expect(t, "a Secret referenced later changed", "add old 2")
	must(t, s.Replace([]any{secret("ent", "1"), secret("old", "2")}, "2"))
	r.expect(t, "a relist without the Secret referenced later", "delete older ")
	expectHeld(t, s, map[string]string{"config/ent": "1 uid-ent", "config/old": "2 uid-old"})

	must(t, indexer.Add(clusterBundle("third", []string{"config/third"})))
	must(t, s.Add(secret("third", "3")))
	r.expect(t, "a Secret referenced later created", "add third 3")
	must(t, indexer.Delete(clusterBundle("third", nil)))
	must(t, indexer.Add(clusterBundle("fourth", []string{"config/fourth"})))
	must(t, s.Delete(secret("fourth", "3")))
	r.expect(t, "a Secret referenced later, never held, deleted", "delete fourth 3")
}

// A Secret no bundle references any more is forgotten at its next event or
// relist, and tells nobody.
func TestAnObjectNoLongerReferencedIsDropped(t *testing.T) {
	s, indexer, r := secretStore(t, clusterBundle("rhel", []string{"config/ent", "config/repo"}))
	must(t, s.Replace([]any{secret("ent", "1"), secret("repo", "1")}, "1"))
	must(t, indexer.Update(clusterBundle("rhel", nil)))
	must(t, s.Update(secret("ent", "2")))
	r.expect(t, "an unreferenced Secret changed")
	expectHeld(t, s, map[string]string{"config/repo": "1 uid-repo"})
	must(t, s.Replace([]any{secret("ent", "2")}, "2"))
	r.expect(t, "a relist without the unreferenced Secret")
	expectHeld(t, s, map[string]string{})
}

// A list streamed by watch (WatchListClient) is kept by the reflector in a
// store with the Transformer until Replace: Versions, not whole metadata.
func TestAStreamedListKeepsVersions(t *testing.T) {
	s, _, r := secretStore(t, clusterBundle("rhel", []string{"config/ent"}))
	temporary := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.WithTransformer(s.Transformer()))
	for _, o := range []*metav1.PartialObjectMetadata{secret("ent", "1"), secret("unrelated", "1")} {
		must(t, temporary.Add(o))
	}
	for _, obj := range temporary.List() {
		if _, ok := obj.(*Version); !ok {
			t.Fatalf("the streamed list keeps %T", obj)
		}
	}
	must(t, s.Replace(temporary.List(), "1"))
	r.expect(t, "the initial list")
	expectHeld(t, s, map[string]string{"config/ent": "1 uid-ent"})
}

// The watch's memory grows with the Secrets bundles reference, not with the
// Secrets in the cluster: 20,000 Secrets nobody references cost a few bytes
// each, counting the reflector and the watch (an informer caching every one
// as a Version cost about 155).
func TestUnreferencedSecretsCostNothing(t *testing.T) {
	const n = 20000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	scheme := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(scheme)
	objects := make([]k8sruntime.Object, 0, n+1)
	for i := range n {
		o := object("Secret", "tenant-"+strconv.Itoa(i%100), "app-"+strconv.Itoa(i), strconv.Itoa(1000000+i))
		o.UID = types.UID("0b6f8a2e-3c1d-4e5f-9a7b-" + strconv.Itoa(100000000000+i))
		objects = append(objects, o)
	}
	objects = append(objects, object("Secret", "config", "ent", "1"))
	client := metadatafake.NewSimpleMetadataClient(scheme, objects...)
	subs := subscriptionfake.NewSimpleClientset(clusterBundle("rhel", []string{"config/ent"}))
	bundleInformers := subscriptioninformers.NewSharedInformerFactory(subs, 0)
	bundles := bundleInformers.Subscription().V1alpha1().ClusterBundles().Informer()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := New(client)
	triggers, err := w.For(bundles, references)
	if err != nil {
		t.Fatal(err)
	}
	bundleInformers.Start(ctx.Done())
	w.Start(ctx.Done())
	synced := []cache.InformerSynced{bundles.HasSynced}
	for _, trigger := range triggers {
		synced = append(synced, trigger.Informer.HasSynced)
	}
	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	if !cache.WaitForCacheSync(waitCtx.Done(), synced...) {
		t.Fatal("the watch did not sync")
	}
	time.Sleep(100 * time.Millisecond) // the watches open after the list
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(w)
	runtime.KeepAlive(client)
	perSecret := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / n
	t.Logf("bytes per unreferenced Secret, with the watch and the bundle informer: %.1f", perSecret)
	if perSecret > 20 {
		t.Errorf("an unreferenced Secret costs %.0f bytes", perSecret)
	}
}
