package clusterreads

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

const testPrefix = "eks.amazonaws.com/"

func serviceAccount(namespace, name string, annotations map[string]string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Annotations: annotations,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Secrets: []corev1.ObjectReference{{Name: "token"}},
	}
}

// startedCache returns a synced cache over objects; the cache is not
// started when live is set, so every lookup is a cache miss.
func startedCache(t *testing.T, client *fake.Clientset, live bool) *ServiceAccountAnnotations {
	t.Helper()
	s := NewServiceAccountAnnotations(client, podidentity.CachedAnnotations)
	if !live {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go s.Run(ctx)
		if !cache.WaitForCacheSync(ctx.Done(), s.HasSynced) {
			t.Fatal("cache did not sync")
		}
	}
	return s
}

func TestCachedServiceAccountKeepsOnlyPrefixedAnnotations(t *testing.T) {
	client := fake.NewClientset(serviceAccount("app", "builder", map[string]string{
		testPrefix + "role-arn": "arn:aws:iam::123456789012:role/builder",
		"openshift.io/internal": "x",
	}))
	s := startedCache(t, client, false)
	client.ClearActions()

	kept, found, err := s.Annotations(context.Background(), "app", "builder")
	if err != nil || !found {
		t.Fatalf("found=%v err=%v", found, err)
	}
	if got := kept.Map(); len(got) != 1 || got[testPrefix+"role-arn"] != "arn:aws:iam::123456789012:role/builder" {
		t.Errorf("annotations %v", got)
	}
	if stored, ok := s.store.get("app", "builder"); !ok || len(stored.Map()) != 1 {
		t.Errorf("the cache keeps more than the mutator reads: %v", stored.Map())
	}
	if actions := client.Actions(); len(actions) != 0 {
		t.Errorf("a cache hit called the API server: %v", actions)
	}
	if v := testutil.ToFloat64(s.lookups.WithLabelValues("cache", "found")); v != 1 {
		t.Errorf("cache hits counted %v", v)
	}
}

// oversizeServiceAccount carries 150 KB under an annotation nothing reads,
// and a role ARN longer than IAM's 2,048 characters.
func oversizeServiceAccount(namespace, name string) *corev1.ServiceAccount {
	return serviceAccount(namespace, name, map[string]string{
		testPrefix + "pad":                                 strings.Repeat("x", 150_000),
		podidentityv1alpha1.RoleARNAnnotation:              "arn:aws:iam::123456789012:role/" + strings.Repeat("a", 3000-31),
		podidentityv1alpha1.AudienceAnnotation:             "sts.amazonaws.com",
		"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("y", 10_000),
	})
}

// Neither the cache nor a live lookup keeps an annotation the mutator does
// not read, or a value past what it reads of it.
func TestCachedServiceAccountHoldsOnlyBoundedReadAnnotations(t *testing.T) {
	check := func(t *testing.T, kept *podidentity.RoleAnnotations) {
		t.Helper()
		got := kept.Map()
		if len(got) != 2 || got[podidentityv1alpha1.AudienceAnnotation] != "sts.amazonaws.com" || len(got[podidentityv1alpha1.RoleARNAnnotation]) != 2049 {
			for k, v := range got {
				t.Errorf("kept %s: %d bytes", k, len(v))
			}
			t.Errorf("want the audience whole and the role ARN cut to 2049 bytes, nothing else")
		}
	}
	t.Run("cache", func(t *testing.T) {
		s := startedCache(t, fake.NewClientset(oversizeServiceAccount("app", "big")), false)
		stored, ok := s.store.get("app", "big")
		if !ok {
			t.Fatal("not cached")
		}
		check(t, stored)
	})
	t.Run("live lookup", func(t *testing.T) {
		s := startedCache(t, fake.NewClientset(oversizeServiceAccount("app", "big")), true)
		got, found, err := s.Annotations(context.Background(), "app", "big")
		if err != nil || !found {
			t.Fatalf("found=%v err=%v", found, err)
		}
		check(t, got)
	})
}

// The cache follows the watch: a ServiceAccount created, annotated,
// stripped of its role and deleted is seen each time without a live read,
// and one without annotations under the prefix is known to exist at no
// cost beyond its name.
func TestCacheFollowsChanges(t *testing.T) {
	client := fake.NewClientset(serviceAccount("app", "plain", map[string]string{"helm.sh/chart": "x"}))
	s := startedCache(t, client, false)
	ctx := context.Background()
	if got, found, err := s.Annotations(ctx, "app", "plain"); err != nil || !found || got != nil {
		t.Fatalf("plain: %v %v %v", got, found, err)
	}
	eventually := func(what string, ok func(map[string]string, bool) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			kept, found := s.store.get("app", "builder")
			got := kept.Map()
			if ok(got, found) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: cache holds %v (found %v)", what, got, found)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	sas := client.CoreV1().ServiceAccounts("app")
	sa, err := sas.Create(ctx, serviceAccount("app", "builder", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eventually("created", func(a map[string]string, found bool) bool { return found && a == nil })
	sa.Annotations = map[string]string{testPrefix + "role-arn": "arn:aws:iam::123456789012:role/builder", "other": "x"}
	if sa, err = sas.Update(ctx, sa, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("annotated", func(a map[string]string, found bool) bool { return len(a) == 1 && a[testPrefix+"role-arn"] != "" })
	sa.Annotations = map[string]string{"other": "x"}
	if _, err = sas.Update(ctx, sa, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("role removed", func(a map[string]string, found bool) bool { return found && a == nil })
	if err := sas.Delete(ctx, "builder", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("deleted", func(_ map[string]string, found bool) bool { return !found })
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" {
			t.Errorf("a live read: %v", a)
		}
	}
}

func TestCacheMissIsLookedUpLiveOnceForConcurrentPods(t *testing.T) {
	client := fake.NewClientset(serviceAccount("app", "new", map[string]string{testPrefix + "role-arn": "arn:aws:iam::123456789012:role/new", testPrefix + "audience": "sts"}))
	var gets atomic.Int32
	release := make(chan struct{})
	client.PrependReactor("get", "serviceaccounts", func(clienttesting.Action) (bool, runtime.Object, error) {
		gets.Add(1)
		<-release
		return false, nil, nil
	})
	s := startedCache(t, client, true)

	var wg sync.WaitGroup
	results := make([]*podidentity.RoleAnnotations, 10)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			annotations, found, err := s.Annotations(context.Background(), "app", "new")
			if err != nil || !found {
				t.Errorf("found=%v err=%v", found, err)
			}
			results[i] = annotations
		}()
	}
	// Let every caller join the one lookup before it answers.
	time.Sleep(50 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := gets.Load(); n != 1 {
		t.Errorf("%d live GETs for one ServiceAccount, want 1", n)
	}
	for _, r := range results {
		if r.Map()[testPrefix+"audience"] != "sts" {
			t.Errorf("annotations %v", r.Map())
		}
	}
}

func TestLiveLookupOfAMissingServiceAccount(t *testing.T) {
	s := startedCache(t, fake.NewClientset(), true)
	_, found, err := s.Annotations(context.Background(), "app", "gone")
	if err != nil || found {
		t.Errorf("found=%v err=%v, want not found and no error", found, err)
	}
	if v := testutil.ToFloat64(s.lookups.WithLabelValues("api", "not_found")); v != 1 {
		t.Errorf("not_found counted %v", v)
	}
}

func TestSlowLiveLookupIsAnErrorThatSaysSo(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("get", "serviceaccounts", func(a clienttesting.Action) (bool, runtime.Object, error) {
		time.Sleep(200 * time.Millisecond)
		return true, nil, context.DeadlineExceeded
	})
	s := startedCache(t, client, true)
	s.timeout = 50 * time.Millisecond
	_, found, err := s.Annotations(context.Background(), "app", "slow")
	if found || err == nil || !strings.Contains(err.Error(), "ServiceAccount app/slow is not in the webhook's cache yet, and reading it took longer than 50ms") {
		t.Errorf("found=%v err=%v", found, err)
	}
}

// TestLiveLookupBudgetIsPerNamespace: a burst of cache misses in one
// namespace spends that namespace's budget, not the cluster's, so a pod in
// another namespace is still looked up; what is not read is counted and
// reported as our budget, never as an API error.
func TestLiveLookupBudgetIsPerNamespace(t *testing.T) {
	client := fake.NewClientset(serviceAccount("quiet", "builder", map[string]string{testPrefix + "role-arn": "arn:aws:iam::123456789012:role/builder"}))
	s := startedCache(t, client, true)
	s.timeout = 20 * time.Millisecond
	var spent int
	for i := range 2 * clusterLookupBurst {
		_, _, err := s.Annotations(context.Background(), "burst", fmt.Sprintf("sa-%d", i))
		switch {
		case errors.Is(err, podidentity.ErrLookupBudgetSpent):
			spent++
			if !strings.Contains(err.Error(), "ServiceAccount burst/sa-") || !strings.Contains(err.Error(), "namespace burst's (2/s, burst 5) budget") {
				t.Errorf("message %q names neither the ServiceAccount nor the namespace's budget", err)
			}
		case err != nil:
			t.Fatalf("lookup %d: %v", i, err)
		}
	}
	if gets := len(client.Actions()); gets != namespaceLookupBurst || spent != 2*clusterLookupBurst-namespaceLookupBurst {
		t.Errorf("%d GETs and %d spent, want %d and %d", gets, spent, namespaceLookupBurst, 2*clusterLookupBurst-namespaceLookupBurst)
	}
	annotations, found, err := s.Annotations(context.Background(), "quiet", "builder")
	if err != nil || !found || annotations.RoleARN() == "" {
		t.Errorf("another namespace's lookup after the burst: found=%v err=%v %v", found, err, annotations)
	}
	if v := testutil.ToFloat64(s.lookups.WithLabelValues("api", "budget_spent")); v != float64(spent) {
		t.Errorf("budget_spent counted %v, want %d", v, spent)
	}
	if v := testutil.ToFloat64(s.lookups.WithLabelValues("api", "error")); v != 0 {
		t.Errorf("our own budget counted as %v API errors", v)
	}
}

// TestClusterBudgetStillBoundsEveryNamespace: many namespaces together
// cannot spend more than the cluster's budget.
func TestClusterBudgetStillBoundsEveryNamespace(t *testing.T) {
	client := fake.NewClientset()
	s := startedCache(t, client, true)
	s.timeout = 20 * time.Millisecond
	s.budget.cluster.SetLimit(0.001)
	var spent int
	for i := range 3 * clusterLookupBurst {
		_, _, err := s.Annotations(context.Background(), fmt.Sprintf("ns-%d", i), "builder")
		if errors.Is(err, podidentity.ErrLookupBudgetSpent) {
			spent++
			if !strings.Contains(err.Error(), "the cluster's") {
				t.Errorf("message %q does not name the cluster's budget", err)
			}
		}
	}
	if gets := len(client.Actions()); gets != clusterLookupBurst || spent != 2*clusterLookupBurst {
		t.Errorf("%d GETs and %d spent, want %d and %d", gets, spent, clusterLookupBurst, 2*clusterLookupBurst)
	}
}

// TestIdleNamespaceBudgetsAreDropped: the per-namespace buckets stay
// bounded; a full bucket is the same as a new one.
func TestIdleNamespaceBudgetsAreDropped(t *testing.T) {
	b := newLookupBudget()
	b.pruneAt = 4
	b.namespaceRate = 1000 // refill at once
	for i := range 10 {
		if err := b.wait(context.Background(), fmt.Sprintf("ns-%d", i)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	if n := b.tracked(); n > 4 {
		t.Errorf("%d namespaces tracked, want at most 4", n)
	}
}

// The store keeps ServiceAccounts without a role in a set and those with
// one in a map: a name moves between them as its role comes and goes, and
// is in neither once deleted or missing from a relist.
func TestStoreMovesServiceAccountsBetweenRoleAndNoRole(t *testing.T) {
	store := newServiceAccountStore(podidentity.CachedAnnotations)
	role := map[string]string{podidentityv1alpha1.RoleARNAnnotation: "arn:aws:iam::111122223333:role/builder"}
	want := func(step, name string, exists, hasRole bool) {
		t.Helper()
		got, ok := store.get("shop", name)
		if ok != exists || (got != nil) != hasRole {
			t.Errorf("%s: %s exists %v with role %v, want %v and %v", step, name, ok, got != nil, exists, hasRole)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(store.Add(serviceAccount("shop", "plain", nil)))
	must(store.Add(serviceAccount("shop", "builder", role)))
	want("add", "plain", true, false)
	want("add", "builder", true, true)
	want("add", "other", false, false)
	if _, ok := store.get("elsewhere", "plain"); ok {
		t.Error("shop/plain found in namespace elsewhere")
	}
	must(store.Update(serviceAccount("shop", "plain", role)))
	must(store.Update(serviceAccount("shop", "builder", nil)))
	want("update", "plain", true, true)
	want("update", "builder", true, false)
	must(store.Delete(serviceAccount("shop", "plain", role)))
	must(store.Delete(cache.DeletedFinalStateUnknown{Key: "shop/builder", Obj: serviceAccount("shop", "builder", nil)}))
	want("delete", "plain", false, false)
	want("delete", "builder", false, false)
	must(store.Add(serviceAccount("shop", "gone", role)))
	must(store.Replace([]any{serviceAccount("shop", "plain", nil), serviceAccount("shop", "builder", role)}, "2"))
	want("replace", "gone", false, false)
	want("replace", "plain", true, false)
	want("replace", "builder", true, true)
}

// A ServiceAccount without a role, nine in ten of them in a large cluster,
// costs the store a hash in a set: no name, no map per namespace.
// 100,000 of them, named as the API server's decode names them (a string
// each), must cost at most 32 bytes each (the set's 8-byte slot with its growth
// room); keeping their names in a set per namespace cost 51.5.
func TestARolelessServiceAccountCostsAHash(t *testing.T) {
	const namespaces, perNamespace = 1000, 100
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	list := make([]any, 0, namespaces*perNamespace)
	for n := range namespaces {
		for i := range perNamespace {
			list = append(list, serviceAccount(fmt.Sprintf("team-%04d", n), fmt.Sprintf("app-%05d", n*perNamespace+i), nil))
		}
	}
	store := newServiceAccountStore(podidentity.CachedAnnotations)
	if err := store.Replace(list, "1"); err != nil {
		t.Fatal(err)
	}
	list = nil // the decoded objects are the reflector's, gone after Replace
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	perAccount := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / (namespaces * perNamespace)
	if _, ok := store.get("team-0999", "app-99999"); !ok {
		t.Fatal("team-0999/app-99999 is not in the store")
	}
	goruntime.KeepAlive(store)
	if perAccount > 32 {
		t.Errorf("a role-less ServiceAccount keeps %.1f bytes in the store, want at most 32", perAccount)
	}
	t.Logf("%.1f bytes per role-less ServiceAccount", perAccount)
}

// A ServiceAccount with a role keeps its name and what CachedAnnotations
// keeps of its annotations, not the decoded object; the webhook's memory
// target counts on a few hundred bytes each.
func TestAServiceAccountWithARoleCostsAFewHundredBytes(t *testing.T) {
	const namespaces, perNamespace = 100, 100
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	list := make([]any, 0, namespaces*perNamespace)
	for n := range namespaces {
		for i := range perNamespace {
			list = append(list, serviceAccount(fmt.Sprintf("team-%04d", n), fmt.Sprintf("app-%05d", n*perNamespace+i), map[string]string{
				podidentityv1alpha1.RoleARNAnnotation:              fmt.Sprintf("arn:aws:iam::111122223333:role/workload-access/team-%04d-app-%05d", n, n*perNamespace+i),
				podidentityv1alpha1.AudienceAnnotation:             "sts.amazonaws.com",
				"meta.helm.sh/release-name":                        "checkout",
				"kubectl.kubernetes.io/last-applied-configuration": strings.Repeat("x", 600),
			}))
		}
	}
	store := newServiceAccountStore(podidentity.CachedAnnotations)
	if err := store.Replace(list, "1"); err != nil {
		t.Fatal(err)
	}
	list = nil
	goruntime.GC()
	goruntime.ReadMemStats(&after)
	perAccount := (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / (namespaces * perNamespace)
	if annotations, ok := store.get("team-0099", "app-09999"); !ok || annotations.RoleARN() == "" {
		t.Fatal("team-0099/app-09999 is not in the store with its role")
	}
	goruntime.KeepAlive(store)
	t.Logf("%.1f bytes per ServiceAccount with a role", perAccount)
	if perAccount > 320 {
		t.Errorf("a ServiceAccount with a role keeps %.1f bytes in the store, want at most 320", perAccount)
	}
}

// The watch sends every ServiceAccount again on a relist and each change of
// one (a token added, a label): an update that changes nothing the store
// keeps must not allocate, or 100,000 of them churn the heap.
func TestAnUnchangedRolelessUpdateAllocatesNothing(t *testing.T) {
	store := newServiceAccountStore(podidentity.CachedAnnotations)
	sa := serviceAccount("team-0001", "builder", map[string]string{"meta.helm.sh/release-name": "checkout"})
	if err := store.Update(sa); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if err := store.Update(sa); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("an unchanged role-less update allocates %.0f times, want none", allocs)
	}
}
