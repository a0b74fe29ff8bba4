// Package referencewatch wakes the bundle controllers when a Secret or
// ConfigMap one of their bundles references is created, changed or deleted,
// so that the key names in bundle status follow within a second rather than
// at the next sweep.
//
// It watches metadata only: the API server sends PartialObjectMetadata, never
// data. Of the objects some bundle references, and of those only, it keeps
// the namespace, name, resourceVersion and UID (see Strip and Version),
// enough to notice a change and nothing to read; an object nothing
// references costs nothing once its event is handled (see store). The
// controllers still GET the objects their bundles reference to learn key
// names. There is no periodic resync: the bundle sweep is the safety net.
package referencewatch

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/tools/cache"

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

// Watch is one metadata reflector per kind, shared by every bundle
// controller, each writing to a store that keeps only what bundles
// reference (see store).
type Watch struct {
	stores     map[bundlerefs.Kind]*store
	reflectors map[bundlerefs.Kind]*cache.Reflector

	lock sync.Mutex
	// bundlesSynced are the bundle informers whose indexes the stores
	// read: the reflectors list only once those are in, so that the
	// initial list keeps the Versions of what bundles reference.
	bundlesSynced []cache.InformerSynced
	start         sync.Once
}

// New returns the watch of the Secrets and ConfigMaps bundles reference. It
// lists and watches nothing until Start.
func New(client metadata.Interface) *Watch {
	w := &Watch{stores: map[bundlerefs.Kind]*store{}, reflectors: map[bundlerefs.Kind]*cache.Reflector{}}
	for _, kind := range kinds {
		w.stores[kind] = newStore(kind)
		// No resync: the bundle sweep is the safety net.
		w.reflectors[kind] = cache.NewReflectorWithOptions(listWatch(client, resources[kind]), &metav1.PartialObjectMetadata{}, w.stores[kind],
			cache.ReflectorOptions{Name: "referencewatch " + string(kind) + "s"})
	}
	return w
}

// listWatch lists and watches the metadata of every object of resource, as
// client-go's metadata informer does.
func listWatch(client metadata.Interface, resource schema.GroupVersionResource) cache.ListerWatcher {
	objects := client.Resource(resource).Namespace(metav1.NamespaceAll)
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			return objects.List(ctx, options)
		},
		WatchFuncWithContext: func(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
			return objects.Watch(ctx, options)
		},
	}, client)
}

// Start runs the reflectors until stop closes, once the bundle informers
// passed to For have synced; calls after the first do nothing.
func (w *Watch) Start(stop <-chan struct{}) {
	w.start.Do(func() {
		w.lock.Lock()
		bundlesSynced := slices.Clone(w.bundlesSynced)
		w.lock.Unlock()
		go func() {
			if !cache.WaitForCacheSync(stop, bundlesSynced...) {
				return
			}
			for _, kind := range kinds {
				go w.reflectors[kind].Run(stop)
			}
		}()
	})
}

// Strip is the stores' transform: of each object it keeps what tells one
// version from the next (namespace, name, resourceVersion, UID) and drops the
// rest (labels, annotations, owner references, managedFields) before it is
// kept. Annotations matter most: kubectl's last-applied-configuration holds
// an applied Secret's data. What it keeps is a Version, 48 bytes and one
// string, where an empty PartialObjectMetadata's ObjectMeta alone is 232.
// Anything else, a tombstone or what Strip already made, passes unchanged:
// a transform must be idempotent.
func Strip(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	return NewVersion(m.Namespace, m.Name, m.ResourceVersion, m.UID), nil
}

// Version is what a store keeps of a referenced Secret or ConfigMap: its key
// and what tells one version of it from the next. A relist streamed by watch
// (WatchListClient) holds one per object of the kind until the list is in,
// so it is as small as that allows: one string for namespace and
// name (the separate strings a decode allocates are dropped), the
// resourceVersion as the number the API server makes of it, and the UID as
// its 16 bytes, so that a Secret deleted and made again under its name is
// told apart by UID. A resourceVersion or UID in any other form is kept as
// it came (odd), so nothing is lost. It is a runtime.Object whose metadata
// meta.Accessor can read, as informers, tombstones and library-go's event
// handlers expect.
type Version struct {
	key             string // "<namespace>/<name>"
	resourceVersion uint64
	uid             [16]byte
	odd             *rawVersion
}

// rawVersion is a resourceVersion and UID that did not read as a number and
// a UUID.
type rawVersion struct {
	resourceVersion string
	uid             types.UID
}

// NewVersion is the Version of the object namespace/name at resourceVersion
// with uid.
func NewVersion(namespace, name, resourceVersion string, uid types.UID) *Version {
	v := &Version{key: namespace + "/" + name}
	rv, rvOK := decimal(resourceVersion)
	id, idOK := uuidBytes(string(uid))
	if rvOK && idOK {
		v.resourceVersion, v.uid = rv, id
	} else {
		v.odd = &rawVersion{resourceVersion: resourceVersion, uid: uid}
	}
	return v
}

// decimal reads s as a uint64 written without sign or leading zeros, the
// form it would be written back in.
func decimal(s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || strconv.FormatUint(n, 10) != s {
		return 0, false
	}
	return n, true
}

// uuidBytes reads s as a UUID in the lower-case 8-4-4-4-12 form the API
// server writes, the form uuidText writes back.
func uuidBytes(s string) ([16]byte, bool) {
	var id [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	digits := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	if _, err := hex.Decode(id[:], []byte(digits)); err != nil || hex.EncodeToString(id[:]) != digits {
		return id, false // not hex, or upper case
	}
	return id, true
}

// uuidText writes id in the 8-4-4-4-12 form.
func uuidText(id [16]byte) string {
	h := hex.EncodeToString(id[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Namespace is the object's namespace.
func (v *Version) Namespace() string {
	namespace, _, _ := strings.Cut(v.key, "/")
	return namespace
}

// Name is the object's name.
func (v *Version) Name() string {
	_, name, _ := strings.Cut(v.key, "/")
	return name
}

// ResourceVersion is the object's resourceVersion as the API server wrote it.
func (v *Version) ResourceVersion() string {
	if v.odd != nil {
		return v.odd.resourceVersion
	}
	return strconv.FormatUint(v.resourceVersion, 10)
}

// UID is the object's UID as the API server wrote it.
func (v *Version) UID() types.UID {
	if v.odd != nil {
		return v.odd.uid
	}
	return types.UID(uuidText(v.uid))
}

var (
	_ runtime.Object            = &Version{}
	_ metav1.ObjectMetaAccessor = &Version{}
)

// GetObjectMeta is the object's metadata, made on each call (events and
// cache keys only, never stored).
func (v *Version) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Namespace: v.Namespace(), Name: v.Name(), ResourceVersion: v.ResourceVersion(), UID: v.UID()}
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
// Call it before informer and the watch start.
func (w *Watch) For(informer cache.SharedIndexInformer, references References) ([]Trigger, error) {
	if err := informer.AddIndexers(cache.Indexers{IndexName: Index(references)}); err != nil {
		return nil, fmt.Errorf("indexing bundles by reference: %w", err)
	}
	w.lock.Lock()
	w.bundlesSynced = append(w.bundlesSynced, informer.HasSynced)
	w.lock.Unlock()
	triggers := make([]Trigger, 0, len(kinds))
	for _, kind := range kinds {
		s := w.stores[kind]
		r := &referrer{indexer: informer.GetIndexer()}
		s.lock.Lock()
		s.referrers = append(s.referrers, r)
		s.lock.Unlock()
		triggers = append(triggers, Trigger{
			Informer: referrerInformer{store: s, referrer: r},
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

// moved tells whether n is another version than o: another resourceVersion,
// or another UID (the object deleted and made again under its name).
func moved(o, n *Version) bool {
	if o.odd == nil && n.odd == nil {
		return o.resourceVersion != n.resourceVersion || o.uid != n.uid
	}
	return o.ResourceVersion() != n.ResourceVersion() || o.UID() != n.UID()
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
