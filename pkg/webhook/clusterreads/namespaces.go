package clusterreads

import (
	"context"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	coreclient "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/pager"
)

// How the access grants check reads the namespaces an object lists: a
// GET each for a few (at most namespaceGetsInFlight at once), one list,
// read in pages, for more. Both read the API server's current state, never
// a cache: a namespace deleted a moment ago must count as gone.
const (
	namespaceGetsUpTo     = 16
	namespaceGetsInFlight = 8
	namespaceListPage     = 500
)

// LiveNamespaces reads namespaces from the API server when a ScopeInstance
// or Bind-mode APIAccessPolicy listing them is created or changed.
type LiveNamespaces struct {
	Client coreclient.NamespacesGetter
}

// Unusable implements grants.Namespaces.
func (n LiveNamespaces) Unusable(ctx context.Context, names []string) (missing, terminating []string, err error) {
	var found map[string]*corev1.Namespace
	if len(names) <= namespaceGetsUpTo {
		found, err = n.get(ctx, names)
	} else {
		found, err = n.list(ctx, names)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, name := range names {
		ns, ok := found[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case ns.DeletionTimestamp != nil:
			terminating = append(terminating, name)
		}
	}
	slices.Sort(missing)
	slices.Sort(terminating)
	return missing, terminating, nil
}

// get reads each namespace by name; those not found are left out.
func (n LiveNamespaces) get(ctx context.Context, names []string) (map[string]*corev1.Namespace, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		found    = map[string]*corev1.Namespace{}
		firstErr error
		wg       sync.WaitGroup
	)
	slots := make(chan struct{}, namespaceGetsInFlight)
	for _, name := range names {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			ns, err := n.Client.Namespaces().Get(ctx, name, metav1.GetOptions{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				if firstErr == nil {
					firstErr = err
					cancel()
				}
			default:
				found[name] = ns
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return found, nil
}

// list reads every namespace, a page at a time, keeping those named.
func (n LiveNamespaces) list(ctx context.Context, names []string) (map[string]*corev1.Namespace, error) {
	wanted := make(map[string]bool, len(names))
	for _, name := range names {
		wanted[name] = true
	}
	found := map[string]*corev1.Namespace{}
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return n.Client.Namespaces().List(ctx, opts)
	})
	p.PageSize = namespaceListPage
	err := p.EachListItem(ctx, metav1.ListOptions{}, func(obj runtime.Object) error {
		if ns, ok := obj.(*corev1.Namespace); ok && wanted[ns.Name] {
			found[ns.Name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns.Name, DeletionTimestamp: ns.DeletionTimestamp}}
		}
		return nil
	})
	return found, err
}
