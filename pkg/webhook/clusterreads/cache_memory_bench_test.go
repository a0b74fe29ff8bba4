package clusterreads

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	v1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/subscription"
)

// cachedObjects and junkBytes: 5,000 objects, each written with 150 KB
// under an annotation the webhook never reads (issue 26).
const (
	cachedObjects = 5000
	junkBytes     = 150_000
)

// BenchmarkCacheMemory is the heap the webhook's caches keep for objects
// carrying junk annotations, before (every eks.amazonaws.com/ annotation
// kept whole; bundles stored as decoded) and after (only what the mutators
// read, bounded). Run with -benchtime 1x; see docs/performance.md.
func BenchmarkCacheMemory(b *testing.B) {
	prefixed := func(a map[string]string) map[string]string {
		var out map[string]string
		for k, v := range a {
			if strings.HasPrefix(k, podidentityv1alpha1.AnnotationPrefix) {
				if out == nil {
					out = map[string]string{}
				}
				out[k] = v
			}
		}
		return out
	}
	junkServiceAccount := func(i int) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("team-%04d", i), Name: "builder",
			Annotations: map[string]string{
				podidentityv1alpha1.AnnotationPrefix + "pad": strings.Repeat("x", junkBytes),
				podidentityv1alpha1.RoleARNAnnotation:        "arn:aws:iam::111122223333:role/" + strings.Repeat("a", 3000),
			},
		}}
	}
	// Before, the store kept a map of the prefixed annotations; after, the
	// store as it is.
	for _, tc := range []struct {
		name  string
		store func() (add func(*corev1.ServiceAccount) error, kept any)
	}{{"serviceaccounts/before", func() (func(*corev1.ServiceAccount) error, any) {
		accounts := map[string]map[string]string{}
		return func(sa *corev1.ServiceAccount) error {
			accounts[sa.Namespace+"/"+sa.Name] = prefixed(sa.Annotations)
			return nil
		}, accounts
	}}, {"serviceaccounts/after", func() (func(*corev1.ServiceAccount) error, any) {
		store := newServiceAccountStore(podidentity.CachedAnnotations)
		return func(sa *corev1.ServiceAccount) error { return store.Add(sa) }, store
	}}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				add, store := tc.store()
				perObject := retained(b, func(i int) {
					if err := add(junkServiceAccount(i)); err != nil {
						b.Fatal(err)
					}
				})
				runtime.KeepAlive(store)
				b.ReportMetric(perObject, "B/object")
			}
		})
	}

	junkBundle := func(i int) *v1alpha1.ClusterBundle {
		cb := &v1alpha1.ClusterBundle{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("bundle-%04d", i), Generation: 1,
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", junkBytes)},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, Time: &metav1.Time{},
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(strings.Repeat("{}", 500))},
			}},
		}}
		return cb
	}
	for _, tc := range []struct {
		name      string
		transform func(any) (any, error)
	}{{"clusterbundles/before", func(o any) (any, error) { return o, nil }}, {"clusterbundles/after", subscription.CacheTransform}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				kept := make([]any, 0, cachedObjects)
				perObject := retained(b, func(i int) {
					o, err := tc.transform(junkBundle(i))
					if err != nil {
						b.Fatal(err)
					}
					kept = append(kept, o)
				})
				runtime.KeepAlive(kept)
				b.ReportMetric(perObject, "B/object")
			}
		})
	}
}

// retained adds cachedObjects objects and reports the live heap they leave
// behind, in MiB for all and bytes per object.
func retained(b *testing.B, add func(i int)) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range cachedObjects {
		add(i)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	b.ReportMetric(grown/(1<<20), "MiB")
	return grown / cachedObjects
}
