package webhook

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/time/rate"

	"github.com/openshift/cluster-workload-access-operator/pkg/webhook/podidentity"
)

// The live ServiceAccount lookups a cache miss may cost. The cluster-wide
// bucket protects the API server; the per-namespace one in front of it
// keeps one namespace's burst from spending what every other namespace's
// pods need. A namespace's share is a fifth of the cluster's rate.
const (
	clusterLookupRate    = 10
	clusterLookupBurst   = 20
	namespaceLookupRate  = 2
	namespaceLookupBurst = 5
	// namespaceBudgetsPruneAt is how many namespaces' buckets are kept
	// before the idle ones (full again) are dropped: an idle bucket is the
	// same as a new one, so dropping it forgets nothing.
	namespaceBudgetsPruneAt = 1024
)

// lookupBudget hands out live lookups, per namespace and cluster-wide.
type lookupBudget struct {
	cluster        *rate.Limiter
	namespaceRate  rate.Limit
	namespaceBurst int
	pruneAt        int
	mu             sync.Mutex
	namespaces     map[string]*rate.Limiter
}

func newLookupBudget() *lookupBudget {
	return &lookupBudget{
		cluster:        rate.NewLimiter(clusterLookupRate, clusterLookupBurst),
		namespaceRate:  namespaceLookupRate,
		namespaceBurst: namespaceLookupBurst,
		pruneAt:        namespaceBudgetsPruneAt,
		namespaces:     map[string]*rate.Limiter{},
	}
}

// errBudgetSpent says a lookup was not made because a budget would not
// refill before the lookup's deadline.
type errBudgetSpent struct{ scope string }

func (e errBudgetSpent) Error() string {
	return e.scope + " budget of live ServiceAccount lookups is spent"
}

// Unwrap lets the mutator tell our own limit from the API server's answer.
func (e errBudgetSpent) Unwrap() error { return podidentity.ErrLookupBudgetSpent }

// wait takes one lookup from namespace's bucket and then the cluster's,
// waiting for a token only as long as ctx allows.
func (b *lookupBudget) wait(ctx context.Context, namespace string) error {
	if err := b.namespace(namespace).Wait(ctx); err != nil {
		return errBudgetSpent{scope: fmt.Sprintf("namespace %s's (%v/s, burst %d)", namespace, float64(b.namespaceRate), b.namespaceBurst)}
	}
	if err := b.cluster.Wait(ctx); err != nil {
		return errBudgetSpent{scope: fmt.Sprintf("the cluster's (%v/s, burst %d)", float64(b.cluster.Limit()), b.cluster.Burst())}
	}
	return nil
}

func (b *lookupBudget) namespace(namespace string) *rate.Limiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	if l, ok := b.namespaces[namespace]; ok {
		return l
	}
	if len(b.namespaces) >= b.pruneAt {
		b.pruneIdle()
	}
	l := rate.NewLimiter(b.namespaceRate, b.namespaceBurst)
	b.namespaces[namespace] = l
	return l
}

// pruneIdle drops the buckets that are full again. Called with mu held.
func (b *lookupBudget) pruneIdle() {
	for namespace, l := range b.namespaces {
		if l.Tokens() >= float64(b.namespaceBurst) {
			delete(b.namespaces, namespace)
		}
	}
}

// tracked is how many namespaces' buckets are held, for tests.
func (b *lookupBudget) tracked() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.namespaces)
}
