package clusterreads

import (
	"fmt"
	goruntime "runtime"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// The first sync streams every ServiceAccount into the reflector's
// temporary store (through Transformer) and hands the whole list to
// Replace, so everything the store keeps is allocated while tens of
// megabytes of stripped objects are live around it. A kept string that
// points into one of those objects pins its 8 KB span once they are
// garbage: with 101,017 ServiceAccounts as test/scale creates them, the
// heap's in-use spans stayed 6.9-7.6 MiB above its live bytes, which the
// webhook's working set pays twice once admissions grow the heap to its GC
// goal (docs/performance.md). put copies the names it keeps, so they pack
// into spans of their own.
func TestAFirstSyncLeavesTheStorePacked(t *testing.T) {
	const serviceAccounts, perNamespace = 101017, 100
	store := newServiceAccountStore(podidentity.CachedAnnotations)
	before := heapSpans()
	// As the reflector's watch-list sync does it (reflector.go, watchList).
	streamed := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.WithTransformer(store.Transformer()))
	for i := range serviceAccounts {
		if err := streamed.Add(chartServiceAccount(i, serviceAccounts/perNamespace)); err != nil {
			t.Fatal(err)
		}
	}
	syncing := heapSpans()
	if err := store.Replace(streamed.List(), "1"); err != nil {
		t.Fatal(err)
	}
	streamed = nil
	after := heapSpans()
	if _, ok := store.get("team-0000", "app-00000"); !ok {
		t.Fatal("team-0000/app-00000 is not in the store")
	}
	goruntime.KeepAlive(store)

	live, inUse := after.live-before.live, after.inUse-before.inUse
	t.Logf("%d ServiceAccounts: the sync held %.1f MiB until Replace; then %.1f MiB live, in spans of %.1f MiB (%.2f×)",
		serviceAccounts, mib(syncing.live-before.live), mib(live), mib(inUse), inUse/live)
	// Packed, the spans are 1.2-1.5× the live bytes (a span's unused tail,
	// the maps' growth room); names pointing into the stripped objects
	// made them 2.2×.
	if inUse > 1.7*live {
		t.Errorf("after the first sync the store's %.1f MiB live take spans of %.1f MiB (%.2f×, want at most 1.7×): something kept points into the objects of the sync", mib(live), mib(inUse), inUse/live)
	}
}

type heapReading struct{ live, inUse float64 }

// heapSpans is the heap's live bytes and its in-use spans after two
// collections (the second sweeps what the first found dead).
func heapSpans() heapReading {
	goruntime.GC()
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return heapReading{live: float64(m.HeapAlloc), inUse: float64(m.HeapInuse)}
}

func mib(n float64) float64 { return n / (1 << 20) }

// chartServiceAccount is the i-th ServiceAccount as test/scale's webhook
// memory benchmark creates it, as a decode leaves it: Helm's labels and
// annotations, OpenShift's pull secret, on every third kubectl's
// last-applied configuration, on every tenth a role.
func chartServiceAccount(i, namespaces int) *corev1.ServiceAccount {
	namespace := fmt.Sprintf("team-%04d", i%namespaces)
	name := fmt.Sprintf("app-%05d", i)
	release := fmt.Sprintf("release-%03d", i%37)
	pullSecret := fmt.Sprintf("%s-dockercfg-%05x", name, (i*7919)%0xfffff)
	sa := &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: namespace, UID: types.UID(fmt.Sprintf("7c0f6a2e-5b1d-4e8a-9f3c-%012d", i)),
			ResourceVersion: fmt.Sprint(1000 + i),
			Labels: map[string]string{
				"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release,
				"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "service-1.8.3",
			},
			Annotations: map[string]string{
				"meta.helm.sh/release-name":                      release,
				"meta.helm.sh/release-namespace":                 namespace,
				"openshift.io/internal-registry-pull-secret-ref": pullSecret,
			},
		},
		Secrets:          []corev1.ObjectReference{{Name: pullSecret}},
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: pullSecret}},
	}
	if i%3 == 0 {
		sa.Annotations["kubectl.kubernetes.io/last-applied-configuration"] = fmt.Sprintf(
			`{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"annotations":{"meta.helm.sh/release-name":%q},"name":%q,"namespace":%q}}`+"\n",
			release, name, namespace)
	}
	if i%10 == 0 {
		sa.Annotations[podidentityv1alpha1.RoleARNAnnotation] = fmt.Sprintf("arn:aws:iam::111122223333:role/%s-%s", namespace, name)
		sa.Annotations[podidentityv1alpha1.AudienceAnnotation] = "sts.amazonaws.com"
	}
	return sa
}
