// Package referencewatch wakes the bundle controllers when a Secret or
// ConfigMap one of their bundles references is created, changed or deleted,
// so that the key names in bundle status follow within a second rather than
// at the next sweep.
//
// It watches metadata only: the API server sends PartialObjectMetadata, never
// data, and of each object the cache keeps its namespace, name,
// resourceVersion and UID (see Strip and Version), enough to notice a change
// and nothing to read: about 150 bytes per object with the cache's map. The controllers still GET the objects their bundles reference to
// learn key names. There is no periodic resync: the bundle sweep is the
// safety net.
package referencewatch

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
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

// Version is what the cache keeps of a Secret or ConfigMap: its key and what
// tells one version of it from the next. The cache holds one per Secret in
// the cluster, so it is as small as that allows: one string for namespace and
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
// Call it before informer starts.
func (w *Watch) For(informer cache.SharedIndexInformer, references References) ([]Trigger, error) {
	if err := informer.AddIndexers(cache.Indexers{IndexName: Index(references)}); err != nil {
		return nil, fmt.Errorf("indexing bundles by reference: %w", err)
	}
	triggers := make([]Trigger, 0, len(kinds))
	for _, kind := range kinds {
		triggers = append(triggers, Trigger{
			Informer: changesOnly{w.informers[kind]},
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

// changesOnly is an informer whose handlers hear of real changes only.
type changesOnly struct {
	informer cache.SharedIndexInformer
}

func (c changesOnly) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return c.informer.AddEventHandler(changes{handler})
}

func (c changesOnly) HasSynced() bool { return c.informer.HasSynced() }

// changes passes on what can change a bundle's status: an object created or
// deleted, or an update that moved its resourceVersion. It drops the initial
// list (every bundle is synced when its controller starts anyway) and the
// updates a relist replays for unchanged objects.
type changes struct {
	next cache.ResourceEventHandler
}

func (c changes) OnAdd(obj any, isInInitialList bool) {
	if !isInInitialList {
		c.next.OnAdd(obj, false)
	}
}

func (c changes) OnUpdate(oldObj, newObj any) {
	if moved(oldObj, newObj) {
		c.next.OnUpdate(oldObj, newObj)
	}
}

func (c changes) OnDelete(obj any) { c.next.OnDelete(obj) }

// moved tells whether newObj is at another resourceVersion than oldObj;
// two Versions are compared as they are, without making their metadata (a
// relist replays every object in the cluster).
func moved(oldObj, newObj any) bool {
	o, oldOK := oldObj.(*Version)
	n, newOK := newObj.(*Version)
	if oldOK && newOK && o.odd == nil && n.odd == nil {
		return o.resourceVersion != n.resourceVersion
	}
	return resourceVersion(oldObj) != resourceVersion(newObj)
}

func resourceVersion(obj any) string {
	o, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return o.GetResourceVersion()
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
