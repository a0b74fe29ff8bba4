// Package reconcileloop is the loop every controller of this operator's own
// resources runs: Bundle and ClusterBundle (subscription), ScopeTemplate,
// ScopeInstance and APIAccessPolicy (rbac). Those controllers differ only in
// what they do for one object:
//   - one queue key per object (cache.MetaNamespaceKeyFunc: "namespace/name"
//     or "name");
//   - a sweep of every object when the management state changes or every
//     SweepInterval, the safety net behind the watches of what the objects
//     reference or generate, never on each write of the operator CR's status;
//   - nothing at all while not Managed;
//   - an object deleted, or being deleted, is left to the garbage collector;
//   - <Name>Degraded naming every object that fails to sync (Failures).
//
// To add such a controller, copy pkg/operator/subscription/bundles: a
// Source, a Reconcile, and New.
package reconcileloop

import (
	"context"
	"time"

	operatorv1 "github.com/openshift/api/operator/v1"
	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	"github.com/openshift/library-go/pkg/operator/v1helpers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/managementsync"
)

// resync revisits every object (through the default key and Sweeps).
const resync = 10 * time.Minute

// Source is how the loop reads one kind of object from its informer.
type Source[T metav1.Object] struct {
	// Kind names the objects in conditions and events: "ClusterBundle", "ScopeInstance".
	Kind     string
	Informer factory.Informer
	// Get returns the object of a queue key, or a NotFound error.
	Get  func(key string) (T, error)
	List func() ([]T, error)
}

// Reconcile syncs one object that exists and is not being deleted, while the
// operator is Managed. An error retries the object with backoff and counts
// toward <Name>Degraded.
type Reconcile[T metav1.Object] func(ctx context.Context, syncCtx factory.SyncContext, object T) error

// Watched are informers of other objects that concern the loop's own (what was
// generated for them, what they reference); Key maps such an object to the
// queue keys of the objects it concerns.
type Watched struct {
	Informers []factory.Informer
	Key       func(runtime.Object) []string
}

// Loop is the sync of one controller built on this loop: build it with New.
type Loop[T metav1.Object] struct {
	name           string
	source         Source[T]
	reconcile      Reconcile[T]
	operatorClient v1helpers.OperatorClient
	sweeps         Sweeps
	failures       *Failures
}

// NewLoop returns the sync of controller name; New wraps it in a controller.
func NewLoop[T metav1.Object](name string, source Source[T], reconcile Reconcile[T], operatorClient v1helpers.OperatorClient) *Loop[T] {
	return &Loop[T]{
		name:           name,
		source:         source,
		reconcile:      reconcile,
		operatorClient: operatorClient,
		failures:       NewFailures(name, source.Kind, operatorClient),
	}
}

// New returns controller name: the loop over source, reconciling each object.
func New[T metav1.Object](name string, source Source[T], watched []Watched, reconcile Reconcile[T], operatorClient v1helpers.OperatorClient, recorder events.Recorder, componentSuffix string) factory.Controller {
	loop := NewLoop(name, source, reconcile, operatorClient)
	f := factory.New().
		WithInformersQueueKeysFunc(queueKey, source.Informer).
		// The default key: a change of management state, and the periodic
		// resync, revisit every object (see Sweeps).
		WithInformers(operatorClient.Informer()).
		WithSync(loop.Sync).
		ResyncEvery(resync)
	for _, w := range watched {
		f = f.WithInformersQueueKeysFunc(w.Key, w.Informers...)
	}
	return f.ToController(name, recorder.WithComponentSuffix(componentSuffix))
}

func queueKey(obj runtime.Object) []string {
	key, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil
	}
	return []string{key}
}

// Sync handles one queue key and records how it ended in <Name>Degraded.
func (l *Loop[T]) Sync(ctx context.Context, syncCtx factory.SyncContext) error {
	return l.failures.Record(ctx, syncCtx.QueueKey(), l.sync(ctx, syncCtx))
}

func (l *Loop[T]) sync(ctx context.Context, syncCtx factory.SyncContext) error {
	state, err := managementsync.Get(l.operatorClient)
	if err != nil {
		return err
	}
	if syncCtx.QueueKey() == factory.DefaultQueueKey {
		return l.sweep(ctx, syncCtx, state)
	}
	if state != operatorv1.Managed {
		return nil
	}
	object, err := l.source.Get(syncCtx.QueueKey())
	if apierrors.IsNotFound(err) {
		// Owner references let the garbage collector delete what was generated.
		return nil
	}
	if err != nil {
		return err
	}
	if object.GetDeletionTimestamp() != nil {
		return nil
	}
	err = l.reconcile(ctx, syncCtx, object)
	if apierrors.IsNotFound(err) {
		if _, getErr := l.source.Get(syncCtx.QueueKey()); apierrors.IsNotFound(getErr) {
			// Deleted while it synced (its status update found nothing): not
			// a failure, and the garbage collector has the rest.
			return nil
		}
	}
	return err
}

// sweep queues every object, at most once per SweepInterval or change of
// management state.
func (l *Loop[T]) sweep(ctx context.Context, syncCtx factory.SyncContext, state operatorv1.ManagementState) error {
	if !l.sweeps.Due(state) {
		return nil
	}
	if state != operatorv1.Managed {
		// Failures of objects no longer managed are no longer ours.
		l.sweeps.Done(state)
		return l.failures.Clear(ctx)
	}
	all, err := l.source.List()
	if err != nil {
		return err
	}
	for _, object := range all {
		if key, err := cache.MetaNamespaceKeyFunc(object); err == nil {
			syncCtx.Queue().Add(key)
		}
	}
	l.sweeps.Done(state)
	return nil
}
