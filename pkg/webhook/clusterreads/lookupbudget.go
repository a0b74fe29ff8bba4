package clusterreads

import (
	"context"
	"fmt"
	"sync"
	"time"

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
	// namespaceBudgetsPruneAt is how many namespaces' buckets are kept.
	// When it is reached the idle ones (full again) are dropped: an idle
	// bucket is the same as a new one, so dropping it forgets nothing. A
	// bucket is kept only once a lookup was charged to it, which the
	// cluster's bucket allows about 10 times a second, and a charged
	// bucket is full again within 2.5 s, so the cap is not reached by
	// buckets in use; if it were, a namespace past it is held to the
	// cluster's budget alone.
	namespaceBudgetsPruneAt = 1024
)

// lookupBudget hands out live lookups, per namespace and cluster-wide.
type lookupBudget struct {
	cluster        *rate.Limiter
	namespaceRate  rate.Limit
	namespaceBurst int
	pruneAt        int
	// mu serialises every reservation on the buckets, so that one withdrawn
	// at once is restored in full (it is the latest).
	mu         sync.Mutex
	namespaces map[string]*rate.Limiter
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

// wait takes one lookup from namespace's bucket and one from the
// cluster's, waiting for them only as long as ctx allows. The namespace
// is asked first, so a namespace that spent its own budget spends none of
// the cluster's; it is charged only when the cluster grants the lookup
// too, so a lookup the cluster refuses costs the namespace nothing, and a
// namespace no granted lookup named (a made-up one in a forged review)
// leaves no bucket behind.
func (b *lookupBudget) wait(ctx context.Context, namespace string) error {
	r, err := b.reserve(ctx, namespace)
	if err != nil || r.delay == 0 {
		return err
	}
	timer := time.NewTimer(r.delay)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		// As rate.Limiter.Wait does: tokens reserved for later go back,
		// so others may use them sooner. (The deadline was checked at
		// reservation: only a caller that gives up gets here.)
		r.withdraw()
		if r.clusterSlower {
			return b.clusterSpent()
		}
		return b.namespaceSpent(namespace)
	}
}

// reservation is a token of both buckets, usable after delay;
// clusterSlower says the cluster's bucket is the one delay waits for.
type reservation struct {
	delay         time.Duration
	clusterSlower bool
	withdraw      func()
}

// reserve takes a token from both buckets, or from neither.
func (b *lookupBudget) reserve(ctx context.Context, namespace string) (reservation, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	limit := rate.InfDuration
	if deadline, ok := ctx.Deadline(); ok {
		limit = deadline.Sub(now)
	}
	bucket, tracked := b.namespaces[namespace]
	if !tracked {
		bucket = rate.NewLimiter(b.namespaceRate, b.namespaceBurst)
	}
	own := bucket.ReserveN(now, 1)
	if !own.OK() || own.DelayFrom(now) > limit {
		own.CancelAt(now)
		return reservation{}, b.namespaceSpent(namespace)
	}
	shared := b.cluster.ReserveN(now, 1)
	if !shared.OK() || shared.DelayFrom(now) > limit {
		// Both reservations are the latest on their buckets (mu), so both
		// are restored in full.
		shared.CancelAt(now)
		own.CancelAt(now)
		return reservation{}, b.clusterSpent()
	}
	if !tracked {
		b.track(namespace, bucket, now)
	}
	r := reservation{delay: own.DelayFrom(now), withdraw: func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		shared.Cancel()
		own.Cancel()
	}}
	if d := shared.DelayFrom(now); d > r.delay {
		r.delay, r.clusterSlower = d, true
	}
	return r, nil
}

func (b *lookupBudget) namespaceSpent(namespace string) errBudgetSpent {
	return errBudgetSpent{scope: fmt.Sprintf("namespace %s's (%v/s, burst %d)", namespace, float64(b.namespaceRate), b.namespaceBurst)}
}

func (b *lookupBudget) clusterSpent() errBudgetSpent {
	return errBudgetSpent{scope: fmt.Sprintf("the cluster's (%v/s, burst %d)", float64(b.cluster.Limit()), b.cluster.Burst())}
}

// track keeps namespace's bucket, dropping the idle ones first when
// pruneAt are kept; when none is idle, the bucket is not kept. Called with
// mu held.
func (b *lookupBudget) track(namespace string, bucket *rate.Limiter, now time.Time) {
	if len(b.namespaces) >= b.pruneAt {
		b.pruneIdle(now)
	}
	if len(b.namespaces) < b.pruneAt {
		b.namespaces[namespace] = bucket
	}
}

// pruneIdle drops the buckets that are full again. Called with mu held.
func (b *lookupBudget) pruneIdle(now time.Time) {
	for namespace, l := range b.namespaces {
		if l.TokensAt(now) >= float64(b.namespaceBurst) {
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
