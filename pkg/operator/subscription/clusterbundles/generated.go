package clusterbundles

import (
	"context"

	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"

	subscriptionv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/subscription/v1alpha1"
)

// object is what every generated kind is: a pointer to an API object.
type object interface {
	comparable
	metav1.Object
}

// lister is the informer's view of one generated kind (label-filtered).
type lister[T object] interface {
	Get(name string) (T, error)
	List(selector labels.Selector) ([]T, error)
}

// client is the typed client of one generated kind.
type client[T object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// generated is one kind the controller generates for ClusterBundles
// (SharedSecret, SharedConfigMap, ClusterRole): SharedSecrets and
// SharedConfigMaps are handled by the same code, and so is the role.
type generated[T object] struct {
	kind string
	// events records on the ClusterBundle what was done for it.
	events record.EventRecorder
	lister lister[T]
	client client[T]
	// content copies what the controller decides (spec, rules) from desired
	// into a copy of existing, and says whether that changed anything.
	content func(existing, desired T) (T, bool)
}

// planned is one desired object and what exists of it.
type planned[T object] struct {
	desired  T
	existing T // zero when absent
}

// find looks up the existing object of desired's name. The informers see
// only labelled objects, so one not in the cache is looked up live before
// it is called absent. conflict is set when it belongs to someone else.
func (g generated[T]) find(ctx context.Context, bundle *subscriptionv1alpha1.ClusterBundle, desired T) (p planned[T], conflict bool, err error) {
	var zero T
	existing, err := g.get(ctx, desired.GetName())
	if apierrors.IsNotFound(err) {
		return planned[T]{desired: desired}, false, nil
	}
	if err != nil {
		return planned[T]{}, false, err
	}
	if existing == zero {
		return planned[T]{desired: desired}, false, nil
	}
	return planned[T]{desired: desired, existing: existing}, !ownedBy(existing, bundle), nil
}

// get reads an object from the cache, or live when the cache lacks it (an
// object whose label was removed is not in the cache).
func (g generated[T]) get(ctx context.Context, name string) (T, error) {
	obj, err := g.lister.Get(name)
	if apierrors.IsNotFound(err) {
		return g.client.Get(ctx, name, metav1.GetOptions{})
	}
	return obj, err
}

// ensure creates or updates p's object so that it matches p.desired; an
// object already in sync is not written.
func (g generated[T]) ensure(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, p planned[T]) error {
	var zero T
	if p.existing == zero {
		if _, err := g.client.Create(ctx, p.desired, metav1.CreateOptions{}); err != nil {
			return err
		}
		recorder.Eventf(g.kind+"Created", "Created %s %s for ClusterBundle %s", g.kind, p.desired.GetName(), bundle.Name)
		g.events.Eventf(bundle, corev1.EventTypeNormal, g.kind+"Created", "Created %s %s", g.kind, p.desired.GetName())
		return nil
	}
	updated, changed := g.content(p.existing, p.desired)
	if !changed && metaInSync(p.existing, p.desired) {
		return nil
	}
	syncMeta(updated, p.desired)
	if _, err := g.client.Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return err
	}
	recorder.Eventf(g.kind+"Updated", "Updated %s %s for ClusterBundle %s", g.kind, p.desired.GetName(), bundle.Name)
	return nil
}

// deleteUnwanted deletes this bundle's objects whose names wanted lacks. The
// UID precondition spares one re-created meanwhile.
func (g generated[T]) deleteUnwanted(ctx context.Context, recorder events.Recorder, bundle *subscriptionv1alpha1.ClusterBundle, wanted map[string]bool) error {
	existing, err := g.lister.List(labels.SelectorFromSet(labels.Set{BundleLabel: bundle.Name}))
	if err != nil {
		return err
	}
	for _, obj := range existing {
		if wanted[obj.GetName()] || !ownedBy(obj, bundle) {
			continue
		}
		err := g.client.Delete(ctx, obj.GetName(), metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(obj.GetUID()))})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return err
		}
		recorder.Eventf(g.kind+"Deleted", "Deleted %s %s: ClusterBundle %s no longer references it", g.kind, obj.GetName(), bundle.Name)
		g.events.Eventf(bundle, corev1.EventTypeNormal, g.kind+"Deleted", "Deleted %s %s: the spec no longer references it", g.kind, obj.GetName())
	}
	return nil
}

// metaInSync says whether existing carries desired's labels and owner.
// Labels others added stay, except aggregation labels, which are ours.
func metaInSync(existing, desired metav1.Object) bool {
	return equality.Semantic.DeepEqual(existing.GetLabels(), withLabels(existing.GetLabels(), desired.GetLabels())) &&
		equality.Semantic.DeepEqual(existing.GetOwnerReferences(), desired.GetOwnerReferences())
}

// syncMeta gives existing desired's labels and owner.
func syncMeta(existing, desired metav1.Object) {
	existing.SetLabels(withLabels(existing.GetLabels(), desired.GetLabels()))
	existing.SetOwnerReferences(desired.GetOwnerReferences())
}
