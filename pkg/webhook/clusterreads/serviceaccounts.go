package clusterreads

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// How a ServiceAccount missing from the cache is looked up. A pod created
// right after its ServiceAccount reaches the webhook before the watch event
// does (upstream's most reported bug: such pods start without
// credentials), so a miss asks the API server once. The lookups are shared
// between concurrent pods of one ServiceAccount and rate limited, so a burst
// of pods in a new namespace costs a few GETs, not one per pod; the
// budget is per namespace first (lookupbudget.go).
const (
	// serviceAccountLookupTimeout bounds one live GET, well inside the
	// 3 s the API server gives the fail-open webhook.
	serviceAccountLookupTimeout = time.Second
)

// ServiceAccountAnnotations is the server side of the pod identity
// mutator's view of ServiceAccounts: a cache of every ServiceAccount that
// keeps only whether it exists and what keep returns of its annotations,
// and a bounded live lookup when the cache misses, cut down the same way.
type ServiceAccountAnnotations struct {
	keep      KeepAnnotations
	store     *serviceAccountStore
	reflector *cache.Reflector
	client    kubernetes.Interface
	timeout   time.Duration
	budget    *lookupBudget
	group     singleflight.Group
	lookups   *prometheus.CounterVec
}

// KeepAnnotations is what a cache keeps of a ServiceAccount's annotations:
// only those its reader reads, each bounded, copied out of the decoded
// object; nil for none. Annotations are anyone's to write, and the cache
// holds every ServiceAccount in the cluster.
type KeepAnnotations func(map[string]string) *podidentity.RoleAnnotations

// NewServiceAccountAnnotations watches every ServiceAccount through client
// once Run is called. A cluster may have tens of thousands: an informer's
// store of stripped objects with a namespace index costs about 570 bytes
// each, this cache about 23 for one without a role (a hash,
// TestARolelessServiceAccountCostsAHash) and, for one with a role, its name
// and what keep returns (about 200); the webhook's memory target is set with
// 100,000 of them.
func NewServiceAccountAnnotations(client kubernetes.Interface, keep KeepAnnotations) *ServiceAccountAnnotations {
	store := newServiceAccountStore(keep)
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().ServiceAccounts(metav1.NamespaceAll).List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return client.CoreV1().ServiceAccounts(metav1.NamespaceAll).Watch(ctx, opts)
		},
	}, client)
	return &ServiceAccountAnnotations{
		keep:      keep,
		store:     store,
		reflector: cache.NewReflectorWithOptions(lw, &corev1.ServiceAccount{}, store, cache.ReflectorOptions{Name: "serviceaccount-annotations"}),
		client:    client,
		timeout:   serviceAccountLookupTimeout,
		budget:    newLookupBudget(),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "serviceaccount_lookups_total",
			Help: "ServiceAccounts the pod identity injection looked up, by source (cache, or api after a cache miss) and result (found, not_found, error, budget_spent: not read, the pod was admitted with a warning).",
		}, []string{"source", "result"}),
	}
}

// Run fills the cache and keeps it current until ctx ends.
func (s *ServiceAccountAnnotations) Run(ctx context.Context) { s.reflector.RunWithContext(ctx) }

// HasSynced says whether the cache has listed every ServiceAccount.
func (s *ServiceAccountAnnotations) HasSynced() bool { return s.store.hasSynced() }

// Collector is the lookup counter, for the server's registry.
func (s *ServiceAccountAnnotations) Collector() prometheus.Collector { return s.lookups }

// serviceAccountStore is the reflector's store. Most ServiceAccounts have
// no role: of those it keeps a 64-bit hash of namespace and name, seeded at
// random per process, in one set; the few with a role are kept by namespace,
// then name, with what keep returns. No name is kept for a role-less one, so
// it costs its 8-byte slot; at 100,000 ServiceAccounts that is megabytes of
// the webhook's 35 MiB (docs/performance.md).
//
// Two names with the same hash are as likely as 1 in 2^64 per pair, and a
// request cannot aim for one without the seed. What one would do is
// harmless: a ServiceAccount missing from the cache that hashed like a
// role-less one would read as role-less (the pod is admitted without
// credentials, as it would be after a live read that found no role), and
// deleting or giving a role to one of two ServiceAccounts with the same
// hash makes the other a cache miss, read live.
type serviceAccountStore struct {
	keep   KeepAnnotations
	seed   maphash.Seed
	mu     sync.RWMutex
	index  accountIndex
	synced bool
}

// accountIndex is every ServiceAccount: a role-less one's hash is in
// withoutRole, one with a role is in withRole.
type accountIndex struct {
	withRole    map[string]map[string]*podidentity.RoleAnnotations
	withoutRole map[uint64]struct{}
}

func newAccountIndex() accountIndex {
	return accountIndex{withRole: map[string]map[string]*podidentity.RoleAnnotations{}, withoutRole: map[uint64]struct{}{}}
}

func newServiceAccountStore(keep KeepAnnotations) *serviceAccountStore {
	return &serviceAccountStore{keep: keep, seed: maphash.MakeSeed(), index: newAccountIndex()}
}

// hash is namespace/name's key in withoutRole; neither can hold a '/'.
func (s *serviceAccountStore) hash(namespace, name string) uint64 {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(namespace)
	h.WriteByte('/')
	h.WriteString(name)
	return h.Sum64()
}

func (s *serviceAccountStore) get(namespace, name string) (*podidentity.RoleAnnotations, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if annotations, ok := s.index.withRole[namespace][name]; ok {
		return annotations, true
	}
	_, ok := s.index.withoutRole[s.hash(namespace, name)]
	return nil, ok
}

func (s *serviceAccountStore) hasSynced() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.synced
}

// put records namespace/name in a, replacing what was kept of it before.
func (s *serviceAccountStore) put(a accountIndex, namespace, name string, annotations *podidentity.RoleAnnotations) {
	if annotations == nil {
		s.forgetRole(a, namespace, name)
		a.withoutRole[s.hash(namespace, name)] = struct{}{}
		return
	}
	delete(a.withoutRole, s.hash(namespace, name))
	names := a.withRole[namespace]
	if names == nil {
		names = map[string]*podidentity.RoleAnnotations{}
		a.withRole[strings.Clone(namespace)] = names
	}
	if _, ok := names[name]; !ok {
		// Copied, as its namespace above: a name from the first sync lies
		// among tens of megabytes that are garbage once Replace returns,
		// and one kept string would pin its span of them
		// (TestAFirstSyncLeavesTheStorePacked).
		name = strings.Clone(name)
	}
	names[name] = annotations
}

// forgetRole drops namespace/name from withRole, and its namespace's map
// when that was the last.
func (s *serviceAccountStore) forgetRole(a accountIndex, namespace, name string) {
	names := a.withRole[namespace]
	delete(names, name)
	if names != nil && len(names) == 0 {
		delete(a.withRole, namespace)
	}
}

func (s *serviceAccountStore) Add(obj any) error { return s.Update(obj) }
func (s *serviceAccountStore) Update(obj any) error {
	namespace, name, annotations, err := s.entry(obj)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(s.index, namespace, name, annotations)
	return nil
}

func (s *serviceAccountStore) Delete(obj any) error {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return err
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetRole(s.index, namespace, name)
	delete(s.index.withoutRole, s.hash(namespace, name))
	return nil
}

// Replace swaps in a whole new listing: the first sync, or a relist after
// the watch fell too far behind.
func (s *serviceAccountStore) Replace(list []any, _ string) error {
	fresh := newAccountIndex()
	for _, obj := range list {
		namespace, name, annotations, err := s.entry(obj)
		if err != nil {
			return err
		}
		// Copied: keep ran while the listing streamed in, among what
		// is garbage once this returns (put's names, likewise).
		s.put(fresh, namespace, name, annotations.Clone())
	}
	s.mu.Lock()
	first := !s.synced
	s.index, s.synced = fresh, true
	s.mu.Unlock()
	if first {
		// The first listing decoded every ServiceAccount in the cluster:
		// two to three times the cache in garbage, which the runtime would
		// hand back to the OS only minutes later. Hand it back now.
		go debug.FreeOSMemory()
	}
	return nil
}

func (s *serviceAccountStore) Resync() error { return nil }

// Transformer cuts what a watch-list sync holds of each ServiceAccount
// until its listing is complete, and hands to Replace, down to what this
// store keeps: its names and what keep returns. With the sync's own key
// and map, that is about 170 bytes a ServiceAccount where a stripped
// object took about 530 (TestAFirstSyncLeavesTheStorePacked logs both): at
// 100,000 ServiceAccounts the stripped objects were the webhook's peak.
func (s *serviceAccountStore) Transformer() cache.TransformFunc {
	return func(obj any) (any, error) {
		if sa, ok := obj.(*corev1.ServiceAccount); ok {
			return &listedAccount{namespace: sa.Namespace, name: sa.Name, role: s.keep(sa.Annotations)}, nil
		}
		return obj, nil
	}
}

// listedAccount is what the watch-list sync holds of one ServiceAccount
// until Replace.
type listedAccount struct {
	namespace, name string
	role            *podidentity.RoleAnnotations
}

// GetObjectMeta names it, for a store's key function (meta.Accessor).
func (a *listedAccount) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Namespace: a.namespace, Name: a.name}
}

// entry is the namespace, name and what keep keeps of a ServiceAccount
// from a watch event, a list or the watch-list sync.
func (s *serviceAccountStore) entry(obj any) (namespace, name string, role *podidentity.RoleAnnotations, err error) {
	switch account := obj.(type) {
	case *corev1.ServiceAccount:
		return account.Namespace, account.Name, s.keep(account.Annotations), nil
	case *listedAccount:
		return account.namespace, account.name, account.role, nil
	}
	return "", "", nil, fmt.Errorf("expected a ServiceAccount, got %T", obj)
}

// Annotations returns what keep returned of the annotations of
// namespace/name, and
// whether it exists. A cache miss asks the API server, at most once at a
// time per ServiceAccount; err means neither could tell in time, and its
// text is safe to show to whoever creates the pod.
func (s *ServiceAccountAnnotations) Annotations(ctx context.Context, namespace, name string) (*podidentity.RoleAnnotations, bool, error) {
	if annotations, ok := s.store.get(namespace, name); ok {
		s.lookups.WithLabelValues("cache", "found").Inc()
		return annotations, true, nil
	}
	key := namespace + "/" + name
	ch := s.group.DoChan(key, func() (any, error) {
		// Detached from the first caller's context: its cancellation must not
		// fail the others waiting on the same lookup.
		lookupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
		defer cancel()
		return s.get(lookupCtx, namespace, name)
	})
	select {
	case res := <-ch:
		if errors.Is(res.Err, podidentity.ErrLookupBudgetSpent) {
			s.lookups.WithLabelValues("api", "budget_spent").Inc()
			return nil, false, res.Err
		}
		if res.Err != nil {
			s.lookups.WithLabelValues("api", "error").Inc()
			return nil, false, res.Err
		}
		found, _ := res.Val.(liveServiceAccount)
		if !found.exists {
			s.lookups.WithLabelValues("api", "not_found").Inc()
			return nil, false, nil
		}
		s.lookups.WithLabelValues("api", "found").Inc()
		return found.kept, true, nil
	case <-ctx.Done():
		s.lookups.WithLabelValues("api", "error").Inc()
		return nil, false, fmt.Errorf("looking up ServiceAccount %s: %w", key, ctx.Err())
	}
}

// liveServiceAccount is what a live read learnt: whether the ServiceAccount
// exists, and what keep keeps of it.
type liveServiceAccount struct {
	exists bool
	kept   *podidentity.RoleAnnotations
}

// get reads one ServiceAccount live, within the rate limit.
func (s *ServiceAccountAnnotations) get(ctx context.Context, namespace, name string) (liveServiceAccount, error) {
	if err := s.budget.wait(ctx, namespace); err != nil {
		return liveServiceAccount{}, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet, and %w", namespace, name, err)
	}
	sa, err := s.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return liveServiceAccount{}, nil
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return liveServiceAccount{}, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet, and reading it took longer than %s", namespace, name, s.timeout)
	case err != nil:
		return liveServiceAccount{}, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet, and reading it failed: %v", namespace, name, apiErrorReason(err))
	}
	return liveServiceAccount{exists: true, kept: s.keep(sa.Annotations)}, nil
}

// apiErrorReason is the API status reason, or the error text for transport
// errors; neither carries object contents.
func apiErrorReason(err error) string {
	if reason := apierrors.ReasonForError(err); reason != metav1.StatusReasonUnknown {
		return string(reason)
	}
	return err.Error()
}
