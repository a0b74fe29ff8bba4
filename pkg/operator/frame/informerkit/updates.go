package informerkit

import (
	"github.com/openshift/library-go/pkg/controller/factory"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// UpdatesWhen is informer whose handlers hear of every add and delete, and
// of the updates changed says matter.
func UpdatesWhen(informer factory.Informer, changed func(oldObj, newObj any) bool) factory.Informer {
	return &filtered{Informer: informer, changed: changed}
}

// ChangesOnly is informer whose handlers hear of real changes only: an
// object created or deleted, or an update that moved its resourceVersion.
// The initial list is dropped (every object is synced when its controller
// starts anyway), and so are the updates a relist replays for unchanged
// objects.
func ChangesOnly(informer factory.Informer) factory.Informer {
	return &filtered{Informer: informer, changed: resourceVersionChanged, skipInitialList: true}
}

// filtered is a pointer: library-go's factory keeps the informers it is
// given in a set, and a struct holding a func cannot be hashed.
type filtered struct {
	factory.Informer
	changed         func(oldObj, newObj any) bool
	skipInitialList bool
}

func (f *filtered) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return f.Informer.AddEventHandler(filteredHandler{next: handler, changed: f.changed, skipInitialList: f.skipInitialList})
}

type filteredHandler struct {
	next            cache.ResourceEventHandler
	changed         func(oldObj, newObj any) bool
	skipInitialList bool
}

func (h filteredHandler) OnAdd(obj any, isInInitialList bool) {
	if !h.skipInitialList || !isInInitialList {
		h.next.OnAdd(obj, isInInitialList)
	}
}

func (h filteredHandler) OnUpdate(oldObj, newObj any) {
	if h.changed(oldObj, newObj) {
		h.next.OnUpdate(oldObj, newObj)
	}
}

func (h filteredHandler) OnDelete(obj any) { h.next.OnDelete(obj) }

func resourceVersionChanged(oldObj, newObj any) bool {
	return resourceVersion(oldObj) != resourceVersion(newObj)
}

func resourceVersion(obj any) string {
	o, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return o.GetResourceVersion()
}
