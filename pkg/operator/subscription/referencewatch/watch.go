// Package referencewatch wakes the bundle controllers when a Secret or
// ConfigMap one of their bundles references is created, changed or deleted,
// so that the key names in bundle status follow within a second rather than
// at the next sweep.
//
// It watches metadata only: the API server sends PartialObjectMetadata, never
// data, and of each object the cache keeps its namespace, name,
// resourceVersion and UID (see Strip), enough to notice a change and nothing
// to read: a few hundred bytes per object. The controllers still GET the objects their bundles reference to
// learn key names. There is no periodic resync: the bundle sweep is the
// safety net.
package referencewatch

import (
	"fmt"
	"sync"

	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/informerkit"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/reconcileloop"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

// IndexName is the index on a bundle informer from what a bundle references
// (IndexKey) to the bundle.
const IndexName = "subscription.openshift.io/references"

// IndexKey is how IndexName names a referenced object: "secret/<ns>/<name>"
// or "configmap/<ns>/<name>".
func IndexKey(ref bundlerefs.Ref) string {
	return string(ref.Kind) + "/" + ref.Namespace + "/" + ref.Name
}

// kinds are what bundles reference, in a fixed order.
var kinds = []bundlerefs.Kind{bundlerefs.Secret, bundlerefs.ConfigMap}

var resources = map[bundlerefs.Kind]schema.GroupVersionResource{
	bundlerefs.Secret:    {Version: "v1", Resource: "secrets"},
	bundlerefs.ConfigMap: {Version: "v1", Resource: "configmaps"},
}

// Watch is one metadata informer per kind, shared by every bundle controller.
type Watch struct {
	informers map[bundlerefs.Kind]cache.SharedIndexInformer
	start     sync.Once
}

// New returns the watch of every Secret and ConfigMap in the cluster. It
// lists and watches nothing until Start.
func New(client metadata.Interface) *Watch {
	w := &Watch{informers: map[bundlerefs.Kind]cache.SharedIndexInformer{}}
	for _, kind := range kinds {
		// No indexers (the factory's namespace index would cost memory per
		// object for nothing) and no resync.
		informer := metadatainformer.NewFilteredMetadataInformer(client, resources[kind], metav1.NamespaceAll, 0, cache.Indexers{}, nil).Informer()
		if err := informer.SetTransform(Strip); err != nil {
			panic(err) // only fails once started
		}
		w.informers[kind] = informer
	}
	return w
}

// Start runs the informers until stop closes; calls after the first do
// nothing.
func (w *Watch) Start(stop <-chan struct{}) {
	w.start.Do(func() {
		for _, kind := range kinds {
			go w.informers[kind].Run(stop)
		}
	})
}

// Strip is the informers' transform: of each object it keeps what tells one
// version from the next (namespace, name, resourceVersion, UID) and drops the
// rest (labels, annotations, owner references, managedFields) before it is
// cached. Annotations matter most: kubectl's last-applied-configuration holds
// an applied Secret's data. What it keeps is a Version, a quarter the size of
// an empty PartialObjectMetadata (whose ObjectMeta alone is 232 bytes).
// Anything else, a tombstone or what Strip already made, passes unchanged:
// a transform must be idempotent.
func Strip(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	return &Version{Namespace: m.Namespace, Name: m.Name, ResourceVersion: m.ResourceVersion, UID: m.UID}, nil
}

// Version is what the cache keeps of a Secret or ConfigMap. It is a
// runtime.Object whose metadata meta.Accessor can read, as informers,
// tombstones and library-go's event handlers expect.
type Version struct {
	Namespace, Name, ResourceVersion string
	UID                              types.UID
}

var (
	_ runtime.Object            = &Version{}
	_ metav1.ObjectMetaAccessor = &Version{}
)

// GetObjectMeta is the object's metadata, made on each call (events only,
// never stored).
func (v *Version) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Namespace: v.Namespace, Name: v.Name, ResourceVersion: v.ResourceVersion, UID: v.UID}
}

func (v *Version) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (v *Version) DeepCopyObject() runtime.Object {
	c := *v
	return &c
}

// Trigger is an informer of one kind of referenced object, and what its
// events wake: the queue keys of the bundles that reference the object.
type Trigger struct {
	Informer factory.Informer
	Keys     func(runtime.Object) []string
}

// References lists what a bundle (an object of the indexed informer)
// references; namespaces are resolved.
type References func(obj any) []bundlerefs.Ref

// For indexes the bundles of informer by what they reference, and returns
// one trigger per kind that maps a change to the bundles referencing it.
// Call it before informer starts.
func (w *Watch) For(informer cache.SharedIndexInformer, references References) ([]Trigger, error) {
	if err := informer.AddIndexers(cache.Indexers{IndexName: Index(references)}); err != nil {
		return nil, fmt.Errorf("indexing bundles by reference: %w", err)
	}
	triggers := make([]Trigger, 0, len(kinds))
	for _, kind := range kinds {
		triggers = append(triggers, Trigger{
			Informer: informerkit.ChangesOnly(w.informers[kind]),
			Keys:     BundlesOf(informer.GetIndexer(), kind),
		})
	}
	return triggers, nil
}

// Index is the IndexFunc of IndexName.
func Index(references References) cache.IndexFunc {
	return func(obj any) ([]string, error) {
		refs := references(obj)
		out := make([]string, 0, len(refs))
		for _, ref := range refs {
			out = append(out, IndexKey(ref))
		}
		return out, nil
	}
}

// BundlesOf maps an object of kind to the keys of the bundles in indexer
// that reference it: each is a queue key of its controller.
func BundlesOf(indexer cache.Indexer, kind bundlerefs.Kind) func(runtime.Object) []string {
	return func(obj runtime.Object) []string {
		o, err := meta.Accessor(obj)
		if err != nil {
			return nil
		}
		keys, err := indexer.IndexKeys(IndexName, IndexKey(bundlerefs.Ref{Kind: kind, Namespace: o.GetNamespace(), Name: o.GetName()}))
		if err != nil {
			return nil // only when the index is missing, which For rules out
		}
		return keys
	}
}

// Watched turns triggers into what a reconcile loop watches besides its own
// objects.
func Watched(triggers []Trigger) []reconcileloop.Watched {
	out := make([]reconcileloop.Watched, 0, len(triggers))
	for _, t := range triggers {
		out = append(out, reconcileloop.Watched{Informers: []factory.Informer{t.Informer}, Key: t.Keys})
	}
	return out
}
