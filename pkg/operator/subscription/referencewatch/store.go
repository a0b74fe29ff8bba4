package referencewatch

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/subscription/bundlerefs"
)

// store is what a reflector of one kind (Secrets or ConfigMaps) writes to.
// It is not a cache of the cluster: it keeps the Version of only the objects
// some bundle references, and turns what the reflector reports into the
// wakeups of the bundles that reference them. An informer could not do this:
// its FIFO drops the delete of an object its store never held, and a relist
// reports as deleted only what the store held, so an informer must hold
// every object of the kind to notice every delete.
//
// Whether a key is referenced is asked of the bundle informers' IndexName
// index at each event, so a bundle that starts to reference an object is
// woken by the object's next event without telling the store.
//
// The reflector calls it from one goroutine; handlers are added, and
// HasSynced read, from others.
type store struct {
	kind bundlerefs.Kind

	lock sync.Mutex
	// held is the last Version seen of each referenced key (namespace/name)
	// since it was referenced; nothing else is kept.
	held      map[string]*Version
	referrers []*referrer
	// synced is closed by the first Replace, the initial list.
	synced     chan struct{}
	syncedOnce sync.Once
}

func newStore(kind bundlerefs.Kind) *store {
	return &store{kind: kind, held: map[string]*Version{}, synced: make(chan struct{})}
}

// referrer is one bundle informer's index, and the handlers its controller
// registered to be told of the changes of the objects its bundles
// reference.
type referrer struct {
	indexer  cache.Indexer
	handlers []cache.ResourceEventHandler
}

// references tells whether a bundle of r references key.
func (r *referrer) references(kind bundlerefs.Kind, key string) bool {
	bundles, err := r.indexer.IndexKeys(IndexName, string(kind)+"/"+key)
	return err == nil && len(bundles) > 0
}

// change is what handlers are told: added (old nil), updated, or deleted
// (deleted set; obj the last Version known, or only the key's).
type change struct {
	to       []*referrer
	old, obj *Version
	deleted  bool
}

var (
	_ cache.ReflectorStore    = &store{}
	_ cache.TransformingStore = &store{}
)

// Transformer is applied by the reflector to what it collects before a
// Replace when it lists by watch (WatchListClient): Versions, not whole
// metadata, are kept while the list streams in.
func (s *store) Transformer() cache.TransformFunc { return Strip }

// Add is an object created, or listed by a watch that starts.
func (s *store) Add(obj any) error { return s.seen(obj) }

// Update is an object changed.
func (s *store) Update(obj any) error { return s.seen(obj) }

// seen keeps the Version of a referenced object and tells its bundles when
// it is new to the store or moved; an unreferenced object is forgotten.
func (s *store) seen(obj any) error {
	key, err := keyOf(obj)
	if err != nil {
		return err
	}
	s.lock.Lock()
	to := s.referrersOfLocked(key)
	old := s.held[key]
	var c change
	if len(to) == 0 {
		delete(s.held, key)
	} else {
		v := versionOf(obj)
		s.held[key] = v
		if old == nil || moved(old, v) {
			c = change{to: to, old: old, obj: v}
		}
	}
	s.lock.Unlock()
	s.tell(c)
	return nil
}

// Delete is an object deleted: its bundles are told whether or not the
// store held it (it holds nothing of a Secret referenced only after its
// last change).
func (s *store) Delete(obj any) error {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	key, err := keyOf(obj)
	if err != nil {
		return err
	}
	s.lock.Lock()
	delete(s.held, key)
	c := change{to: s.referrersOfLocked(key), obj: versionOf(obj), deleted: true}
	s.lock.Unlock()
	s.tell(c)
	return nil
}

// Replace is a list: the first tells nobody (every bundle is synced when its
// controller starts); a later one (a relist after the watch broke) tells the
// bundles of every referenced object that is new to the store or moved, and
// of every referenced or held object the list no longer has, deleted while
// no watch was open. An object referenced only after its last change is not
// held, so a relist finds it new, or finds it missing: either way its
// bundles are told. Unchanged objects tell nobody.
func (s *store) Replace(list []any, _ string) error {
	s.lock.Lock()
	initial := !s.isSynced()
	held := make(map[string]*Version, len(s.held))
	var changes []change
	for _, obj := range list {
		key, err := keyOf(obj)
		if err != nil {
			continue // keyOf fails only for what the reflector never lists
		}
		to := s.referrersOfLocked(key)
		if len(to) == 0 {
			continue
		}
		v := versionOf(obj)
		held[key] = v
		if old := s.held[key]; !initial && (old == nil || moved(old, v)) {
			changes = append(changes, change{to: to, old: old, obj: v})
		}
	}
	if !initial {
		gone := map[string]bool{}
		for key, old := range s.held {
			if _, ok := held[key]; !ok {
				gone[key] = true
				changes = append(changes, change{to: s.referrersOfLocked(key), obj: old, deleted: true})
			}
		}
		for _, r := range s.referrers {
			for _, value := range r.indexer.ListIndexFuncValues(IndexName) {
				kind, key, ok := splitIndexKey(value)
				if !ok || kind != s.kind || gone[key] {
					continue
				}
				if _, ok := held[key]; ok {
					continue
				}
				gone[key] = true
				namespace, name, _ := cache.SplitMetaNamespaceKey(key)
				changes = append(changes, change{to: s.referrersOfLocked(key), obj: NewVersion(namespace, name, "", ""), deleted: true})
			}
		}
	}
	s.held = held
	s.lock.Unlock()
	s.syncedOnce.Do(func() { close(s.synced) })
	for _, c := range changes {
		s.tell(c)
	}
	return nil
}

// Resync does nothing: the reflector runs without a resync period.
func (s *store) Resync() error { return nil }

// referrersOfLocked are the referrers some of whose bundles reference key.
func (s *store) referrersOfLocked(key string) []*referrer {
	var out []*referrer
	for _, r := range s.referrers {
		if r.references(s.kind, key) {
			out = append(out, r)
		}
	}
	return out
}

// tell passes c to the handlers of its referrers. It runs outside the lock:
// the handlers of library-go's controllers only add queue keys, but a
// handler added meanwhile must not wait on a slow one.
func (s *store) tell(c change) {
	if len(c.to) == 0 {
		return
	}
	s.lock.Lock()
	var handlers []cache.ResourceEventHandler
	for _, r := range c.to {
		handlers = append(handlers, r.handlers...)
	}
	s.lock.Unlock()
	for _, h := range handlers {
		switch {
		case c.deleted:
			h.OnDelete(c.obj)
		case c.old == nil:
			h.OnAdd(c.obj, false)
		default:
			h.OnUpdate(c.old, c.obj)
		}
	}
}

func (s *store) isSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

// heldCount is how many Versions the store keeps.
func (s *store) heldCount() int {
	s.lock.Lock()
	defer s.lock.Unlock()
	return len(s.held)
}

// keyOf is the namespace/name of a PartialObjectMetadata or Version without
// making a Version: most objects the reflector reports are referenced by
// nothing and cost no more than this.
func keyOf(obj any) (string, error) {
	switch o := obj.(type) {
	case *Version:
		return o.key, nil
	case *metav1.PartialObjectMetadata:
		return o.Namespace + "/" + o.Name, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", err
	}
	return m.GetNamespace() + "/" + m.GetName(), nil
}

// versionOf is the Version of what keyOf read a key from.
func versionOf(obj any) *Version {
	if v, ok := obj.(*Version); ok {
		return v
	}
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		return NewVersion(m.Namespace, m.Name, m.ResourceVersion, m.UID)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return &Version{}
	}
	return NewVersion(m.GetNamespace(), m.GetName(), m.GetResourceVersion(), m.GetUID())
}

// splitIndexKey reads an IndexKey back into its kind and namespace/name.
func splitIndexKey(value string) (bundlerefs.Kind, string, bool) {
	for _, kind := range kinds {
		prefix := string(kind) + "/"
		if len(value) > len(prefix) && value[:len(prefix)] == prefix {
			return kind, value[len(prefix):], true
		}
	}
	return "", "", false
}

// referrerInformer is what a controller watches for the objects of one kind
// its bundles reference: a factory.Informer whose handlers the store tells
// of changes, synced once the kind's first list is in.
type referrerInformer struct {
	store    *store
	referrer *referrer
}

func (i referrerInformer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	i.store.lock.Lock()
	defer i.store.lock.Unlock()
	i.referrer.handlers = append(i.referrer.handlers, handler)
	return registration{i.store}, nil
}

func (i referrerInformer) HasSynced() bool { return i.store.isSynced() }

// registration reports synced with the store: the store tells handlers as it
// goes, so nothing is pending once the first list is in.
type registration struct{ store *store }

func (r registration) HasSynced() bool                     { return r.store.isSynced() }
func (r registration) HasSyncedChecker() cache.DoneChecker { return r }
func (r registration) Name() string                        { return "referencewatch " + string(r.store.kind) + "s" }
func (r registration) Done() <-chan struct{}               { return r.store.synced }
