package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/singleflight"
	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// How a ServiceAccount missing from the cache is looked up. A pod created
// right after its ServiceAccount reaches the webhook before the watch event
// does (upstream's most reported bug: such pods start without
// credentials), so a miss asks the API server once. The lookups are shared
// between concurrent pods of one ServiceAccount and rate limited, so a burst
// of pods in a new namespace costs a few GETs, not one per pod.
const (
	// serviceAccountLookupTimeout bounds one live GET, well inside the
	// 3 s the API server gives the fail-open webhook.
	serviceAccountLookupTimeout = time.Second
	serviceAccountLookupRate    = 10
	serviceAccountLookupBurst   = 20
)

// ServiceAccountAnnotations is the server side of the pod identity
// mutator's view of ServiceAccounts: an informer cache that keeps, of each
// ServiceAccount, its name and the annotations under one prefix, and a
// bounded live lookup when the cache misses.
type ServiceAccountAnnotations struct {
	prefix  string
	lister  corev1listers.ServiceAccountLister
	synced  cache.InformerSynced
	client  kubernetes.Interface
	timeout time.Duration
	limiter *rate.Limiter
	group   singleflight.Group
	lookups *prometheus.CounterVec
}

// NewServiceAccountAnnotations watches every ServiceAccount through
// factory (which the caller starts), keeping only annotations that start
// with prefix: on a cluster with tens of thousands of ServiceAccounts the
// rest (secrets lists, other annotations, managed fields) would dominate
// the webhook's memory.
func NewServiceAccountAnnotations(factory informers.SharedInformerFactory, client kubernetes.Interface, prefix string) (*ServiceAccountAnnotations, error) {
	informer := factory.Core().V1().ServiceAccounts()
	if err := informer.Informer().SetTransform(keepAnnotations(prefix)); err != nil {
		return nil, err
	}
	return &ServiceAccountAnnotations{
		prefix:  prefix,
		lister:  informer.Lister(),
		synced:  informer.Informer().HasSynced,
		client:  client,
		timeout: serviceAccountLookupTimeout,
		limiter: rate.NewLimiter(serviceAccountLookupRate, serviceAccountLookupBurst),
		lookups: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace, Name: "serviceaccount_lookups_total",
			Help: "ServiceAccounts the pod identity injection looked up, by source (cache, or api after a cache miss) and result (found, not_found, error).",
		}, []string{"source", "result"}),
	}, nil
}

// HasSynced says whether the cache has listed every ServiceAccount.
func (s *ServiceAccountAnnotations) HasSynced() bool { return s.synced() }

// Collector is the lookup counter, for the server's registry.
func (s *ServiceAccountAnnotations) Collector() prometheus.Collector { return s.lookups }

// keepAnnotations strips a ServiceAccount down to what the mutator reads.
func keepAnnotations(prefix string) cache.TransformFunc {
	return func(obj any) (any, error) {
		sa, ok := obj.(*corev1.ServiceAccount)
		if !ok {
			return obj, nil // a tombstone: the store only needs its key
		}
		return strip(sa, prefix), nil
	}
}

func strip(sa *corev1.ServiceAccount, prefix string) *corev1.ServiceAccount {
	out := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
		Name: sa.Name, Namespace: sa.Namespace, UID: sa.UID, ResourceVersion: sa.ResourceVersion,
	}}
	for k, v := range sa.Annotations {
		if strings.HasPrefix(k, prefix) {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	return out
}

// Annotations returns the prefixed annotations of namespace/name, and
// whether it exists. A cache miss asks the API server, at most once at a
// time per ServiceAccount; err means neither could tell in time, and its
// text is safe to show to whoever creates the pod.
func (s *ServiceAccountAnnotations) Annotations(ctx context.Context, namespace, name string) (map[string]string, bool, error) {
	sa, err := s.lister.ServiceAccounts(namespace).Get(name)
	if err == nil {
		s.lookups.WithLabelValues("cache", "found").Inc()
		return sa.Annotations, true, nil
	}
	if !apierrors.IsNotFound(err) {
		s.lookups.WithLabelValues("cache", "error").Inc()
		return nil, false, err
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
		if res.Err != nil {
			s.lookups.WithLabelValues("api", "error").Inc()
			return nil, false, res.Err
		}
		sa, _ := res.Val.(*corev1.ServiceAccount)
		if sa == nil {
			s.lookups.WithLabelValues("api", "not_found").Inc()
			return nil, false, nil
		}
		s.lookups.WithLabelValues("api", "found").Inc()
		return sa.Annotations, true, nil
	case <-ctx.Done():
		s.lookups.WithLabelValues("api", "error").Inc()
		return nil, false, fmt.Errorf("looking up ServiceAccount %s: %w", key, ctx.Err())
	}
}

// get reads one ServiceAccount live, within the rate limit; nil when it
// does not exist.
func (s *ServiceAccountAnnotations) get(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	if err := s.limiter.Wait(ctx); err != nil {
		return nil, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet and too many lookups are waiting: %w", namespace, name, errRateLimited)
	}
	sa, err := s.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet, and reading it took longer than %s", namespace, name, s.timeout)
	case err != nil:
		return nil, fmt.Errorf("ServiceAccount %s/%s is not in the webhook's cache yet, and reading it failed: %v", namespace, name, apiErrorReason(err))
	}
	return strip(sa, s.prefix), nil
}

var errRateLimited = errors.New("rate limited")

// apiErrorReason is the API status reason, or the error text for transport
// errors; neither carries object contents.
func apiErrorReason(err error) string {
	if reason := apierrors.ReasonForError(err); reason != metav1.StatusReasonUnknown {
		return string(reason)
	}
	return err.Error()
}
