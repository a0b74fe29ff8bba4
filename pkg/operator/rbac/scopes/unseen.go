package scopes

import (
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// unseenWait bounds how long an instance waits for its caches to show
// what its last sync wrote: past it, the write is presumed lost (or undone
// unseen) and the next sync judges from the caches as they are.
const unseenWait = 30 * time.Second

// unseenRecheck is how soon an instance that waits looks again.
const unseenRecheck = time.Second

// unseenWrites remembers, per instance, the bindings its syncs wrote that
// the binding caches may not show yet. A sync that acted on caches lagging
// its own writes would write them all again: after 5,000 creates the watch
// trails by hundreds, and each would be a refused create and a read. The
// next sync waits for them instead.
//
// Whether a write is seen is read from the caches when asked, never from
// informer events: a watch event can arrive before the write's response.
type unseenWrites struct {
	mu         sync.Mutex
	byInstance map[string]map[string]written
	// gone are the bindings the caches saw deleted, by UID, and when: a
	// write of one is past even if the cache never showed it (someone
	// deleted it right after the write), so nothing waits for it.
	gone      map[types.UID]time.Time
	lastPrune time.Time
}

// written is one write and how the cache looks once it has it.
type written struct {
	namespace, name string
	uid             types.UID
	// version is the resourceVersion the write made, and before the one it
	// replaced: a cache holding neither is past the write.
	version, before string
	deleted         bool
	at              time.Time
}

// seenIn says whether a cache holding obj (nil for none at that name) has
// caught up with the write.
func (w written) seenIn(obj metav1.Object) bool {
	if w.deleted {
		return obj == nil || obj.GetUID() != w.uid
	}
	return obj != nil && obj.GetUID() == w.uid &&
		(obj.GetResourceVersion() == w.version || obj.GetResourceVersion() != w.before)
}

func newUnseenWrites() *unseenWrites {
	return &unseenWrites{byInstance: map[string]map[string]written{}, gone: map[types.UID]time.Time{}}
}

// sawDeleted records a binding the caches saw deleted.
func (u *unseenWrites) sawDeleted(uid types.UID, now time.Time) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.gone[uid] = now
}

// created, updated and deleted record a successful write of a binding of
// instance; updated is given the object as the cache held it before.
func (u *unseenWrites) created(instance string, obj metav1.Object, now time.Time) {
	u.record(instance, written{namespace: obj.GetNamespace(), name: obj.GetName(), uid: obj.GetUID(), version: obj.GetResourceVersion(), at: now})
}

func (u *unseenWrites) updated(instance string, before, after metav1.Object, now time.Time) {
	u.record(instance, written{namespace: after.GetNamespace(), name: after.GetName(), uid: before.GetUID(),
		version: after.GetResourceVersion(), before: before.GetResourceVersion(), at: now})
}

func (u *unseenWrites) deleted(instance string, obj metav1.Object, now time.Time) {
	u.record(instance, written{namespace: obj.GetNamespace(), name: obj.GetName(), uid: obj.GetUID(), deleted: true, at: now})
}

func (u *unseenWrites) record(instance string, w written) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.byInstance[instance] == nil {
		u.byInstance[instance] = map[string]written{}
	}
	u.byInstance[instance][bindingKey(w.namespace, w.name)] = w
}

// pending counts instance's writes that are not seen yet (as the caller's
// caches tell) and younger than unseenWait at now. It forgets the rest, and
// every instance whose writes are all that old (an instance deleted
// meanwhile syncs no more).
func (u *unseenWrites) pending(instance string, now time.Time, seen func(written) bool) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	for key, w := range u.byInstance[instance] {
		_, gone := u.gone[w.uid]
		if now.Sub(w.at) > unseenWait || gone || seen(w) {
			delete(u.byInstance[instance], key)
		}
	}
	// A deletion matters only to writes younger than unseenWait.
	if now.Sub(u.lastPrune) > unseenRecheck {
		u.lastPrune = now
		for uid, at := range u.gone {
			if now.Sub(at) > unseenWait {
				delete(u.gone, uid)
			}
		}
	}
	n := len(u.byInstance[instance])
	for name, writes := range u.byInstance {
		if len(writes) == 0 || name != instance && allOlder(writes, now.Add(-unseenWait)) {
			delete(u.byInstance, name)
		}
	}
	return n
}

func allOlder(writes map[string]written, than time.Time) bool {
	for _, w := range writes {
		if !w.at.Before(than) {
			return false
		}
	}
	return true
}

// bindingKey names a binding as failures and unseen writes do.
func bindingKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
