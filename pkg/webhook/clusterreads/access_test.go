package clusterreads

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	"k8s.io/client-go/kubernetes/fake"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	clienttesting "k8s.io/client-go/testing"
)

// The review must carry the pod's namespace, or RoleBindings (for example
// to edit) would not count; the e2e tests show both outcomes on a real
// API server.
func TestSubjectAccessReviewAsksInThePodsNamespace(t *testing.T) {
	client := fake.NewClientset()
	var asked *authorizationv1.SubjectAccessReview
	client.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		asked = action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		out := asked.DeepCopy()
		out.Status.Allowed = asked.Spec.ResourceAttributes.Name == "cluster"
		return true, out, nil
	})
	r := NewSubjectAccessReviewer(client.AuthorizationV1().SubjectAccessReviews())
	allowed, err := r.MayGetClusterBundle(context.Background(), "shop", "builder", "cluster")
	if err != nil || !allowed {
		t.Fatalf("allowed=%v err=%v", allowed, err)
	}
	spec := asked.Spec
	if spec.User != "system:serviceaccount:shop:builder" ||
		len(spec.Groups) != 3 || spec.Groups[0] != "system:serviceaccounts" || spec.Groups[1] != "system:serviceaccounts:shop" {
		t.Errorf("subject = %s %v", spec.User, spec.Groups)
	}
	a := spec.ResourceAttributes
	if a.Namespace != "shop" || a.Verb != "get" || a.Group != "subscription.openshift.io" || a.Resource != "clusterbundles" || a.Name != "cluster" {
		t.Errorf("attributes = %+v", a)
	}
	if allowed, _ := r.MayGetClusterBundle(context.Background(), "shop", "builder", "other"); allowed {
		t.Error("a denied review must say so")
	}
}

// stubReviews answers SubjectAccessReviews through answer, counting them.
type stubReviews struct {
	authorizationclient.SubjectAccessReviewInterface
	asked  atomic.Int32
	answer func(ctx context.Context, spec authorizationv1.SubjectAccessReviewSpec) (bool, error)
}

func (s *stubReviews) Create(ctx context.Context, review *authorizationv1.SubjectAccessReview, _ metav1.CreateOptions) (*authorizationv1.SubjectAccessReview, error) {
	s.asked.Add(1)
	allowed, err := s.answer(ctx, review.Spec)
	if err != nil {
		return nil, err
	}
	out := review.DeepCopy()
	out.Status.Allowed = allowed
	return out, nil
}

// allowBundle allows the bundle named "allowed" and errors for "flaky".
func allowBundle(_ context.Context, spec authorizationv1.SubjectAccessReviewSpec) (bool, error) {
	if spec.ResourceAttributes.Name == "flaky" {
		return false, errors.New("the server is currently unable to handle the request")
	}
	return spec.ResourceAttributes.Name == "allowed", nil
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestAccessReviewCache(t *testing.T) {
	ctx := context.Background()
	stub := &stubReviews{answer: allowBundle}
	clock := &fakeClock{now: time.Unix(1_000_000, 0)}
	r := newSubjectAccessReviewer(stub, utilcache.NewLRUExpireCacheWithClock(accessCacheSize, clock))
	// ask checks the answer and how many reviews the API server has seen.
	ask := func(step, namespace, sa, bundle string, wantAllowed bool, wantAsked int32) {
		t.Helper()
		allowed, err := r.MayGetClusterBundle(ctx, namespace, sa, bundle)
		if err != nil || allowed != wantAllowed {
			t.Fatalf("%s: allowed=%v err=%v, want %v", step, allowed, err, wantAllowed)
		}
		if got := stub.asked.Load(); got != wantAsked {
			t.Fatalf("%s: %d reviews sent, want %d", step, got, wantAsked)
		}
	}

	ask("allow, miss", "shop", "builder", "allowed", true, 1)
	ask("allow, hit", "shop", "builder", "allowed", true, 1)
	ask("deny, miss", "shop", "builder", "denied", false, 2)
	ask("deny, hit", "shop", "builder", "denied", false, 2)
	ask("another service account is another question", "shop", "default", "allowed", true, 3)
	ask("another namespace is another question", "bank", "builder", "allowed", true, 4)

	clock.step(accessDenyTTL + time.Second)
	ask("a denial expires first", "shop", "builder", "denied", false, 5)
	ask("an allowance lasts longer", "shop", "builder", "allowed", true, 5)
	clock.step(accessAllowTTL)
	ask("then it expires too", "shop", "builder", "allowed", true, 6)

	for i := range 2 {
		if _, err := r.MayGetClusterBundle(ctx, "shop", "builder", "flaky"); err == nil {
			t.Fatal("a failed review must return its error")
		}
		if got := stub.asked.Load(); got != int32(7+i) {
			t.Fatalf("errors must not be cached: %d reviews sent after %d failures", got, i+1)
		}
	}
}

func TestAccessReviewCacheIsBounded(t *testing.T) {
	stub := &stubReviews{answer: allowBundle}
	r := newSubjectAccessReviewer(stub, utilcache.NewLRUExpireCache(2))
	for _, sa := range []string{"a", "b", "c", "a"} {
		if _, err := r.MayGetClusterBundle(context.Background(), "shop", sa, "allowed"); err != nil {
			t.Fatal(err)
		}
	}
	if got := stub.asked.Load(); got != 4 {
		t.Fatalf("%d reviews sent, want 4: the oldest answer must have made room", got)
	}
}

// Pods created together ask the same question together: one review answers
// them all.
func TestConcurrentIdenticalAccessReviewsShareOne(t *testing.T) {
	release := make(chan struct{})
	stub := &stubReviews{answer: func(ctx context.Context, spec authorizationv1.SubjectAccessReviewSpec) (bool, error) {
		<-release
		return allowBundle(ctx, spec)
	}}
	r := NewSubjectAccessReviewer(stub)
	const callers = 20
	results := make(chan error, callers)
	for range callers {
		go func() {
			allowed, err := r.MayGetClusterBundle(context.Background(), "shop", "builder", "allowed")
			if err == nil && !allowed {
				err = errors.New("denied")
			}
			results <- err
		}()
	}
	// Wait until the one review is out and every caller is waiting on it.
	deadline := time.Now().Add(5 * time.Second)
	for stub.asked.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	close(release)
	for range callers {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	if got := stub.asked.Load(); got != 1 {
		t.Fatalf("%d reviews sent for %d identical concurrent questions, want 1", got, callers)
	}
}

// A review the API server does not answer in time fails with an error that
// says so and wraps context.DeadlineExceeded, which the subscription mutator
// turns into a refusal saying the check timed out. It is not cached.
func TestAccessReviewDeadline(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(context.Context, authorizationv1.SubjectAccessReviewSpec) (bool, error)
	}{{
		name: "no answer",
		answer: func(ctx context.Context, _ authorizationv1.SubjectAccessReviewSpec) (bool, error) {
			<-ctx.Done()
			return false, fmt.Errorf("Post \"https://api/apis/authorization.k8s.io/v1/subjectaccessreviews\": %w", ctx.Err())
		},
	}, {
		name: "client-side rate limiter would wait past the deadline",
		answer: func(ctx context.Context, _ authorizationv1.SubjectAccessReviewSpec) (bool, error) {
			return false, fmt.Errorf("client rate limiter Wait returned an error: %w", errors.New("rate: Wait(n=1) would exceed context deadline"))
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var deadline time.Duration
			stub := &stubReviews{answer: func(ctx context.Context, spec authorizationv1.SubjectAccessReviewSpec) (bool, error) {
				d, ok := ctx.Deadline()
				if !ok {
					return false, errors.New("the review has no deadline")
				}
				deadline = time.Until(d)
				return tc.answer(ctx, spec)
			}}
			r := NewSubjectAccessReviewer(stub)
			r.timeout = 100 * time.Millisecond
			start := time.Now()
			_, err := r.MayGetClusterBundle(context.Background(), "shop", "builder", "allowed")
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("the review took %v with a %v deadline", took, r.timeout)
			}
			if deadline <= 0 || deadline > r.timeout {
				t.Errorf("the review's deadline was %v away, want at most %v", deadline, r.timeout)
			}
			if !errors.Is(err, context.DeadlineExceeded) || err.Error() != "the API server did not answer the SubjectAccessReview within 100ms" {
				t.Fatalf("err = %v, want a timeout", err)
			}
			_, _ = r.MayGetClusterBundle(context.Background(), "shop", "builder", "allowed")
			if got := stub.asked.Load(); got != 2 {
				t.Errorf("a timed-out review must not be cached: %d reviews sent", got)
			}
		})
	}
}

// The production deadline leaves room inside both webhooks' timeouts
// (timeoutSeconds 5 and 3 in bindata/operand/webhook-mutatingwebhookconfiguration.yaml).
func TestAccessReviewDeadlineIsInsideTheWebhookTimeout(t *testing.T) {
	r := NewSubjectAccessReviewer(&stubReviews{})
	if r.timeout <= 0 || r.timeout > 2*time.Second {
		t.Errorf("review timeout %v, want at most 2s", r.timeout)
	}
	if r.denyTTL > r.allowTTL || r.allowTTL > 30*time.Second || r.denyTTL < time.Second {
		t.Errorf("cache TTLs allow %v, deny %v", r.allowTTL, r.denyTTL)
	}
}

// A caller that gives up (the API server closed the connection) returns at
// once; the review goes on for the cache.
func TestAccessReviewCallerThatGivesUp(t *testing.T) {
	release := make(chan struct{})
	stub := &stubReviews{answer: func(ctx context.Context, spec authorizationv1.SubjectAccessReviewSpec) (bool, error) {
		<-release
		return allowBundle(ctx, spec)
	}}
	r := NewSubjectAccessReviewer(stub)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.MayGetClusterBundle(ctx, "shop", "builder", "allowed"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := r.answers.Get(accessQuestion{"shop", "builder", "allowed"}); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the abandoned review's answer was never cached")
		}
		time.Sleep(time.Millisecond)
	}
	if allowed, err := r.MayGetClusterBundle(context.Background(), "shop", "builder", "allowed"); err != nil || !allowed || stub.asked.Load() != 1 {
		t.Fatalf("allowed=%v err=%v asked=%d", allowed, err, stub.asked.Load())
	}
}
