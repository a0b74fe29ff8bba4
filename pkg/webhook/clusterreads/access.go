package clusterreads

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// How access reviews are bounded and cached. A ReplicaSet scaling up asks
// the same question for every pod, so answers are kept briefly: a grant
// just removed still admits pods for up to accessAllowTTL (the Shared
// Resource CSI driver checks again when it mounts), a grant just added is
// seen within accessDenyTTL. Errors are never kept.
const (
	// accessReviewTimeout is well inside the 3 s and 5 s the API server gives
	// the whole admission, so a slow review becomes a refusal that says so,
	// not the API server's timeout.
	accessReviewTimeout = 2 * time.Second
	accessAllowTTL      = 30 * time.Second
	accessDenyTTL       = 10 * time.Second
	// accessCacheSize bounds the cache (least recently used out first); an
	// entry is a few hundred bytes.
	accessCacheSize = 4096
)

// SubjectAccessReviewer is the server side of the subscription mutator's
// AccessReviewer: mutators reach no client themselves. It asks the API
// server, caches the answer briefly, and sends one review for concurrent
// identical questions. The review carries the pod's namespace so
// RoleBindings count (for example to edit, into which a bundle's
// ClusterRole aggregates), as the Shared Resource CSI driver's own check of
// `use` does.
type SubjectAccessReviewer struct {
	client            authorizationclient.SubjectAccessReviewInterface
	timeout           time.Duration
	allowTTL, denyTTL time.Duration
	answers           *utilcache.LRUExpireCache

	mu      sync.Mutex
	pending map[accessQuestion]*accessReview
}

// accessQuestion is what a review asks, and the cache key.
type accessQuestion struct{ namespace, serviceAccount, bundle string }

// accessReview is one review in flight; done closes once allowed and err
// are set.
type accessReview struct {
	done    chan struct{}
	allowed bool
	err     error
}

// NewSubjectAccessReviewer returns a reviewer that asks through client.
func NewSubjectAccessReviewer(client authorizationclient.SubjectAccessReviewInterface) *SubjectAccessReviewer {
	return newSubjectAccessReviewer(client, utilcache.NewLRUExpireCache(accessCacheSize))
}

func newSubjectAccessReviewer(client authorizationclient.SubjectAccessReviewInterface, answers *utilcache.LRUExpireCache) *SubjectAccessReviewer {
	return &SubjectAccessReviewer{
		client: client, timeout: accessReviewTimeout, allowTTL: accessAllowTTL, denyTTL: accessDenyTTL,
		answers: answers, pending: map[accessQuestion]*accessReview{},
	}
}

// MayGetClusterBundle implements subscription.AccessReviewer. A review that
// gets no answer in time fails with an error that wraps
// context.DeadlineExceeded, so the mutator can say the check timed out.
func (r *SubjectAccessReviewer) MayGetClusterBundle(ctx context.Context, namespace, serviceAccount, bundle string) (bool, error) {
	q := accessQuestion{namespace: namespace, serviceAccount: serviceAccount, bundle: bundle}
	if allowed, ok := r.answers.Get(q); ok {
		return allowed.(bool), nil
	}
	start := time.Now()
	r.mu.Lock()
	review, asking := r.pending[q]
	if !asking {
		// The answer may have landed since the look-up above.
		if allowed, ok := r.answers.Get(q); ok {
			r.mu.Unlock()
			return allowed.(bool), nil
		}
		review = &accessReview{done: make(chan struct{})}
		r.pending[q] = review
		// The review runs on its own: it outlives a caller that gives up,
		// for the others waiting on it and for the cache.
		go r.ask(context.WithoutCancel(ctx), q, review)
	}
	r.mu.Unlock()

	select {
	case <-review.done:
		return review.allowed, review.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			// The caller's deadline, which may be shorter than the review's.
			return false, accessReviewTimedOut{after: time.Since(start).Round(time.Millisecond)}
		}
		return false, ctx.Err()
	}
}

// ask sends one SubjectAccessReview, caches its answer and wakes everyone
// waiting on it.
func (r *SubjectAccessReviewer) ask(ctx context.Context, q accessQuestion, review *accessReview) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	allowed, err := r.create(ctx, q)
	switch {
	case err == nil:
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded),
		// client-go's rate limiter refuses at once a wait that would outlast
		// the deadline.
		strings.Contains(err.Error(), "would exceed context deadline"):
		err = accessReviewTimedOut{after: r.timeout}
	}

	r.mu.Lock()
	if err == nil {
		ttl := r.denyTTL
		if allowed {
			ttl = r.allowTTL
		}
		r.answers.Add(q, allowed, ttl)
	}
	delete(r.pending, q)
	r.mu.Unlock()
	review.allowed, review.err = allowed, err
	close(review.done)
}

func (r *SubjectAccessReviewer) create(ctx context.Context, q accessQuestion) (allowed bool, err error) {
	// ask runs on a goroutine of its own, where a panic would end the process.
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the SubjectAccessReview failed: %v", v)
		}
	}()
	review, err := r.client.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   fmt.Sprintf("system:serviceaccount:%s:%s", q.namespace, q.serviceAccount),
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + q.namespace, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: q.namespace,
			Verb:      "get",
			Group:     subscriptionv1alpha1.GroupName,
			Resource:  "clusterbundles",
			Name:      q.bundle,
		},
	}}, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return review.Status.Allowed, nil
}

// accessReviewTimedOut is a review that got no answer in time. It wraps
// context.DeadlineExceeded, which mutators test for: they cannot import
// this package.
type accessReviewTimedOut struct{ after time.Duration }

func (e accessReviewTimedOut) Error() string {
	return fmt.Sprintf("the API server did not answer the SubjectAccessReview within %v", e.after)
}

func (e accessReviewTimedOut) Unwrap() error { return context.DeadlineExceeded }
