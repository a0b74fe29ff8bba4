package scopes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
)

// defaultWorkers bounds the writes one instance has in flight: enough that
// thousands of namespaces converge in seconds, few enough that API
// Priority and Fairness, not the operator, sets the pace.
const defaultWorkers = 64

// write is one create, update or delete of a binding; where names it in a
// failure ("namespace/name", or the ClusterRoleBinding's name).
type write struct {
	where string
	do    func(ctx context.Context) error
}

// apply makes the instance's bindings match desired: creates, updates and
// deletes computed from the label-filtered caches, so a settled instance
// writes nothing. It returns the writes that failed, by binding; the error
// is for failures to read the caches.
func (c *instances) apply(ctx context.Context, recorder events.Recorder, instance *scopesv1alpha1.ScopeInstance, desired bindings) (map[string]error, error) {
	roleBindings, err := ownedBy[*rbacv1.RoleBinding](c.roleBindings, instance.Name)
	if err != nil {
		return nil, err
	}
	clusterRoleBindings, err := ownedBy[*rbacv1.ClusterRoleBinding](c.clusterRoleBindings, instance.Name)
	if err != nil {
		return nil, err
	}
	uid := string(instance.UID)
	// The workers take the RoleBindings' writes first, then the
	// ClusterRoleBindings'.
	writes := roleBindingKind.writes(c, uid, roleBindings, desired.roleBindings)
	writes = append(writes, clusterRoleBindingKind.writes(c, uid, clusterRoleBindings, desired.clusterRoleBindings)...)
	if len(writes) == 0 {
		return nil, nil
	}
	failures := c.run(ctx, writes)
	if done := len(writes) - len(failures); done > 0 {
		recorder.Eventf("ScopeInstanceBindingsWritten", "ScopeInstance %s: %d binding writes (creates, updates, deletes), %d failed", instance.Name, done, len(failures))
	}
	return failures, nil
}

// created, updated and deleted record a write the binding caches may not
// show yet (unseenWrites).
func (c *instances) created(obj metav1.Object) {
	c.unseen.created(obj.GetLabels()[scopesv1alpha1.ScopeInstanceLabel], obj, time.Now())
}

func (c *instances) updated(before, after metav1.Object) {
	c.unseen.updated(after.GetLabels()[scopesv1alpha1.ScopeInstanceLabel], before, after, time.Now())
}

func (c *instances) deleted(obj metav1.Object) {
	c.unseen.deleted(obj.GetLabels()[scopesv1alpha1.ScopeInstanceLabel], obj, time.Now())
}

// seen says whether the caches have caught up with w, or no longer need
// to: in a namespace gone or going, the binding goes too, so a create
// there that the cache never shows is nothing to wait for.
func (c *instances) seen(w written) bool {
	return w.seenIn(c.cachedBinding(w.namespace, w.name)) || !c.namespaceLive(w.namespace)
}

// cachedBinding is the binding the caches hold at namespace/name (a
// ClusterRoleBinding when namespace is empty), or nil.
func (c *instances) cachedBinding(namespace, name string) metav1.Object {
	in := c.clusterRoleBindings
	if namespace != "" {
		in = c.roleBindings
	}
	obj, exists, err := in.GetByKey(bindingKey(namespace, name))
	if err != nil || !exists {
		return nil
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return nil
	}
	return o
}

// namespaceLive says whether a binding there is worth deleting: in a
// namespace being deleted, or gone, the namespace controller does it.
// Cluster-wide (namespace "") it always is.
func (c *instances) namespaceLive(name string) bool {
	if name == "" {
		return true
	}
	ns, err := c.namespaces.Get(name)
	return err == nil && ns.DeletionTimestamp == nil
}

// run performs writes over a bounded pool of workers.
func (c *instances) run(ctx context.Context, writes []write) map[string]error {
	workers := c.workers
	if workers <= 0 {
		workers = defaultWorkers
	}
	var lock sync.Mutex
	failures := map[string]error{}
	next := make(chan write)
	var wg sync.WaitGroup
	for range min(workers, len(writes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range next {
				if err := w.do(ctx); err != nil {
					lock.Lock()
					failures[w.where] = err
					lock.Unlock()
				}
			}
		}()
	}
	for _, w := range writes {
		next <- w
	}
	close(next)
	wg.Wait()
	return failures
}

// bindingObject is a RoleBinding or a ClusterRoleBinding: the two are
// written alike (bindingKind), keyed by bindingKey.
type bindingObject[T any] interface {
	*rbacv1.RoleBinding | *rbacv1.ClusterRoleBinding
	metav1.Object
	DeepCopy() T
}

// bindingClient is the typed client of RoleBindings in one namespace, or of
// ClusterRoleBindings.
type bindingClient[T any] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// bindingKind is what the writes need of RoleBindings, or of
// ClusterRoleBindings: their kind (in failures), their client, and the
// RoleRef and Subjects the two types share without an interface to reach
// them.
type bindingKind[T bindingObject[T]] struct {
	kind     string
	client   func(kube kubernetes.Interface, namespace string) bindingClient[T]
	roleRef  func(T) rbacv1.RoleRef
	subjects func(T) *[]rbacv1.Subject
}

var roleBindingKind = bindingKind[*rbacv1.RoleBinding]{
	kind: "RoleBinding",
	client: func(kube kubernetes.Interface, namespace string) bindingClient[*rbacv1.RoleBinding] {
		return kube.RbacV1().RoleBindings(namespace)
	},
	roleRef:  func(b *rbacv1.RoleBinding) rbacv1.RoleRef { return b.RoleRef },
	subjects: func(b *rbacv1.RoleBinding) *[]rbacv1.Subject { return &b.Subjects },
}

var clusterRoleBindingKind = bindingKind[*rbacv1.ClusterRoleBinding]{
	kind: "ClusterRoleBinding",
	client: func(kube kubernetes.Interface, _ string) bindingClient[*rbacv1.ClusterRoleBinding] {
		return kube.RbacV1().ClusterRoleBindings()
	},
	roleRef:  func(b *rbacv1.ClusterRoleBinding) rbacv1.RoleRef { return b.RoleRef },
	subjects: func(b *rbacv1.ClusterRoleBinding) *[]rbacv1.Subject { return &b.Subjects },
}

// writes are those that turn the instance's bindings of this kind in the
// cache (owned) into desired (keyed by bindingKey): deletes of the
// unwanted, in cache order, then what ensure says of each desired one.
func (k bindingKind[T]) writes(c *instances, uid string, owned []T, desired map[string]T) []write {
	var writes []write
	existing := map[string]T{}
	foreign := map[string]bool{}
	for _, b := range owned {
		key := bindingKey(b.GetNamespace(), b.GetName())
		if !controlledBy(b, "ScopeInstance", uid) {
			// Labelled for the instance, not its: the cache says so, no
			// create need be refused to learn it.
			foreign[key] = true
			continue
		}
		existing[key] = b
		if desired[key] == nil && c.namespaceLive(b.GetNamespace()) {
			writes = append(writes, k.remove(c, b))
		}
	}
	for key, b := range desired {
		if foreign[key] {
			writes = append(writes, write{where: key, do: func(context.Context) error { return foreignBinding{kind: k.kind, where: key} }})
			continue
		}
		writes = append(writes, k.ensure(c, uid, b, existing[key])...)
	}
	return writes
}

// inSync says whether existing binds desired's role to its subjects, with
// its generator label and owner.
func (k bindingKind[T]) inSync(existing, desired T) bool {
	return k.roleRef(existing) == k.roleRef(desired) &&
		equality.Semantic.DeepEqual(*k.subjects(existing), *k.subjects(desired)) &&
		existing.GetLabels()[scopesv1alpha1.ScopeInstanceLabel] == desired.GetLabels()[scopesv1alpha1.ScopeInstanceLabel] &&
		equality.Semantic.DeepEqual(existing.GetOwnerReferences(), desired.GetOwnerReferences())
}

// ensure is the writes that turn existing (nil when the cache has none)
// into desired: none when in sync; a delete and a create when the roleRef
// differs, since roleRef is immutable.
func (k bindingKind[T]) ensure(c *instances, uid string, desired, existing T) []write {
	client := k.client(c.kube, desired.GetNamespace())
	where := bindingKey(desired.GetNamespace(), desired.GetName())
	create := write{where: where, do: func(ctx context.Context) error {
		made, err := client.Create(ctx, desired, metav1.CreateOptions{})
		if err == nil {
			c.created(made)
		}
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		// The cache lagged, or it is someone else's: read it to know.
		live, getErr := client.Get(ctx, desired.GetName(), metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if !controlledBy(live, "ScopeInstance", uid) {
			return foreignBinding{kind: k.kind, where: where}
		}
		if !k.inSync(live, desired) {
			return fmt.Errorf("%s %s was changed meanwhile; it is repaired on the next sync", k.kind, where)
		}
		return nil
	}}
	switch {
	case existing == nil:
		return []write{create}
	case k.roleRef(existing) != k.roleRef(desired):
		return []write{{where: where, do: func(ctx context.Context) error {
			if err := k.remove(c, existing).do(ctx); err != nil {
				return err
			}
			return create.do(ctx)
		}}}
	case k.inSync(existing, desired):
		return nil
	}
	return []write{{where: where, do: func(ctx context.Context) error {
		updated := existing.DeepCopy()
		*k.subjects(updated) = *k.subjects(desired)
		updated.SetOwnerReferences(desired.GetOwnerReferences())
		updated.SetLabels(withLabel(updated.GetLabels(), scopesv1alpha1.ScopeInstanceLabel, desired.GetLabels()[scopesv1alpha1.ScopeInstanceLabel]))
		after, err := client.Update(ctx, updated, metav1.UpdateOptions{})
		if err == nil {
			c.updated(existing, after)
		}
		return err
	}}}
}

// remove deletes b; the UID precondition spares a binding re-created
// meanwhile.
func (k bindingKind[T]) remove(c *instances, b T) write {
	return write{where: bindingKey(b.GetNamespace(), b.GetName()), do: func(ctx context.Context) error {
		err := k.client(c.kube, b.GetNamespace()).Delete(ctx, b.GetName(), metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(b.GetUID()))})
		if err == nil {
			c.deleted(b)
		}
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil // gone, or re-created meanwhile (the next sync judges it)
		}
		return err
	}}
}

// foreignBinding is a binding of a name the instance would write that it
// does not control: someone else's, none's, or one whose controller names
// a ScopeInstance of another API group. It is never changed, and it is a
// Conflict on the instance, not a failure: retrying cannot help, and
// whoever may create a binding of that name must not be able to make the
// operator Degraded.
type foreignBinding struct{ kind, where string }

func (e foreignBinding) Error() string {
	return fmt.Sprintf("%s %s exists and is not controlled by the ScopeInstance; it is left untouched", e.kind, e.where)
}

// foreignBindings takes the foreign bindings out of failures and returns
// where they are, sorted.
func foreignBindings(failures map[string]error) []string {
	var foreign []string
	for where, err := range failures {
		if errors.As(err, new(foreignBinding)) {
			foreign = append(foreign, where)
			delete(failures, where)
		}
	}
	slices.Sort(foreign)
	return foreign
}
