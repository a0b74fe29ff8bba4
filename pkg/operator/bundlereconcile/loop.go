// Package bundlereconcile is the loop every bundle controller runs, so that
// Bundle and ClusterBundle controllers differ only in what they do for one
// bundle:
//   - one queue key per bundle (cache.MetaNamespaceKeyFunc: "namespace/name"
//     or "name");
//   - a sweep of every bundle when the management state changes or every
//     SweepInterval, the safety net behind the watches of what bundles
//     reference, never on each write of the operator CR's status;
//   - nothing at all while not Managed;
//   - a deleted bundle, or one being deleted, is left to the garbage
//     collector;
//   - <Name>Degraded naming every bundle that fails to sync (Failures);
//   - the Invalid condition and its event (SetValid, MarkInvalid).
//
// To add a bundle controller, copy pkg/operator/bundles: a Source, a
// Reconcile, and New.
package bundlereconcile

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

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/managementstate"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/referencewatch"
)

// resync revisits every bundle (through the default key and Sweeps).
const resync = 10 * time.Minute

// Source is how the loop reads one kind of bundle from its informer.
type Source[T metav1.Object] struct {
	// Kind names the bundles in conditions and events: "Bundle", "ClusterBundle".
	Kind     string
	Informer factory.Informer
	// Get returns the bundle of a queue key, or a NotFound error.
	Get  func(key string) (T, error)
	List func() ([]T, error)
}

// Reconcile syncs one bundle that exists and is not being deleted, while the
// operator is Managed. An error retries the bundle with backoff and counts
// toward <Name>Degraded.
type Reconcile[T metav1.Object] func(ctx context.Context, syncCtx factory.SyncContext, bundle T) error

// Watched are informers of other objects that concern bundles (what was
// generated for them, what they reference); Key maps such an object to the
// queue keys of its bundles.
type Watched struct {
	Informers []factory.Informer
	Key       func(runtime.Object) []string
}

// Triggered watches what bundles reference.
func Triggered(triggers []referencewatch.Trigger) []Watched {
	out := make([]Watched, 0, len(triggers))
	for _, t := range triggers {
		out = append(out, Watched{Informers: []factory.Informer{t.Informer}, Key: t.Keys})
	}
	return out
}

// Loop is a bundle controller's sync: build it with New.
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

// New returns controller name: the loop over source, reconciling each bundle.
func New[T metav1.Object](name string, source Source[T], watched []Watched, reconcile Reconcile[T], operatorClient v1helpers.OperatorClient, recorder events.Recorder, componentSuffix string) factory.Controller {
	loop := NewLoop(name, source, reconcile, operatorClient)
	f := factory.New().
		WithInformersQueueKeysFunc(queueKey, source.Informer).
		// The default key: a change of management state, and the periodic
		// resync, revisit every bundle (see Sweeps).
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
	state, err := managementstate.Get(l.operatorClient)
	if err != nil {
		return err
	}
	if syncCtx.QueueKey() == factory.DefaultQueueKey {
		return l.sweep(ctx, syncCtx, state)
	}
	if state != operatorv1.Managed {
		return nil
	}
	bundle, err := l.source.Get(syncCtx.QueueKey())
	if apierrors.IsNotFound(err) {
		// Owner references let the garbage collector delete what was generated.
		return nil
	}
	if err != nil {
		return err
	}
	if bundle.GetDeletionTimestamp() != nil {
		return nil
	}
	err = l.reconcile(ctx, syncCtx, bundle)
	if apierrors.IsNotFound(err) {
		if _, getErr := l.source.Get(syncCtx.QueueKey()); apierrors.IsNotFound(getErr) {
			// Deleted while it synced (its status update found nothing): not
			// a failure, and the garbage collector has the rest.
			return nil
		}
	}
	return err
}

// sweep queues every bundle, at most once per SweepInterval or change of
// management state.
func (l *Loop[T]) sweep(ctx context.Context, syncCtx factory.SyncContext, state operatorv1.ManagementState) error {
	if !l.sweeps.Due(state) {
		return nil
	}
	if state != operatorv1.Managed {
		// Failures of bundles no longer managed are no longer ours.
		l.sweeps.Done(state)
		return l.failures.Clear(ctx)
	}
	all, err := l.source.List()
	if err != nil {
		return err
	}
	for _, bundle := range all {
		if key, err := cache.MetaNamespaceKeyFunc(bundle); err == nil {
			syncCtx.Queue().Add(key)
		}
	}
	l.sweeps.Done(state)
	return nil
}
