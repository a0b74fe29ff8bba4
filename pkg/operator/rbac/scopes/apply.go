package scopes

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/openshift/library-go/pkg/operator/events"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
	var writes []write
	existingRB := map[string]*rbacv1.RoleBinding{}
	for _, rb := range roleBindings {
		if !controlledBy(rb, "ScopeInstance", uid) {
			continue
		}
		key := rb.Namespace + "/" + rb.Name
		existingRB[key] = rb
		if desired.roleBindings[key] == nil && c.namespaceLive(rb.Namespace) {
			writes = append(writes, c.deleteRoleBinding(rb))
		}
	}
	for key, rb := range desired.roleBindings {
		writes = append(writes, c.ensureRoleBinding(uid, rb, existingRB[key])...)
	}
	existingCRB := map[string]*rbacv1.ClusterRoleBinding{}
	for _, crb := range clusterRoleBindings {
		if !controlledBy(crb, "ScopeInstance", uid) {
			continue
		}
		existingCRB[crb.Name] = crb
		if desired.clusterRoleBindings[crb.Name] == nil {
			writes = append(writes, c.deleteClusterRoleBinding(crb))
		}
	}
	for name, crb := range desired.clusterRoleBindings {
		writes = append(writes, c.ensureClusterRoleBinding(uid, crb, existingCRB[name])...)
	}
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
	return w.seenIn(c.cachedBinding(w.namespace, w.name)) || (w.namespace != "" && !c.namespaceLive(w.namespace))
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
func (c *instances) namespaceLive(name string) bool {
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

func bindingInSync(existing, desired metav1.Object, existingSubjects, desiredSubjects []rbacv1.Subject) bool {
	return equality.Semantic.DeepEqual(existingSubjects, desiredSubjects) &&
		existing.GetLabels()[scopesv1alpha1.ScopeInstanceLabel] == desired.GetLabels()[scopesv1alpha1.ScopeInstanceLabel] &&
		equality.Semantic.DeepEqual(existing.GetOwnerReferences(), desired.GetOwnerReferences())
}

// ensureRoleBinding is the writes that turn existing (nil when the cache
// has none) into desired: none when in sync; a delete and a create when
// the roleRef differs, since roleRef is immutable.
func (c *instances) ensureRoleBinding(uid string, desired, existing *rbacv1.RoleBinding) []write {
	client := c.kube.RbacV1().RoleBindings(desired.Namespace)
	where := desired.Namespace + "/" + desired.Name
	create := write{where: where, do: func(ctx context.Context) error {
		made, err := client.Create(ctx, desired, metav1.CreateOptions{})
		if err == nil {
			c.created(made)
		}
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		// The cache lagged, or it is someone else's: read it to know.
		live, getErr := client.Get(ctx, desired.Name, metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if !controlledBy(live, "ScopeInstance", uid) {
			return fmt.Errorf("RoleBinding %s exists and is not controlled by the ScopeInstance; it is left untouched", where)
		}
		if live.RoleRef != desired.RoleRef || !bindingInSync(live, desired, live.Subjects, desired.Subjects) {
			return fmt.Errorf("RoleBinding %s was changed meanwhile; it is repaired on the next sync", where)
		}
		return nil
	}}
	switch {
	case existing == nil:
		return []write{create}
	case existing.RoleRef != desired.RoleRef:
		return []write{{where: where, do: func(ctx context.Context) error {
			if err := c.deleteRoleBinding(existing).do(ctx); err != nil {
				return err
			}
			return create.do(ctx)
		}}}
	case bindingInSync(existing, desired, existing.Subjects, desired.Subjects):
		return nil
	}
	return []write{{where: where, do: func(ctx context.Context) error {
		updated := existing.DeepCopy()
		updated.Subjects, updated.OwnerReferences = desired.Subjects, desired.OwnerReferences
		updated.Labels = withLabel(updated.Labels, scopesv1alpha1.ScopeInstanceLabel, desired.Labels[scopesv1alpha1.ScopeInstanceLabel])
		after, err := client.Update(ctx, updated, metav1.UpdateOptions{})
		if err == nil {
			c.updated(existing, after)
		}
		return err
	}}}
}

func (c *instances) deleteRoleBinding(rb *rbacv1.RoleBinding) write {
	return write{where: rb.Namespace + "/" + rb.Name, do: func(ctx context.Context) error {
		err := c.kube.RbacV1().RoleBindings(rb.Namespace).Delete(ctx, rb.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(rb.UID))})
		if err == nil {
			c.deleted(rb)
		}
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil // gone, or re-created meanwhile (the next sync judges it)
		}
		return err
	}}
}

func (c *instances) ensureClusterRoleBinding(uid string, desired, existing *rbacv1.ClusterRoleBinding) []write {
	client := c.kube.RbacV1().ClusterRoleBindings()
	create := write{where: desired.Name, do: func(ctx context.Context) error {
		made, err := client.Create(ctx, desired, metav1.CreateOptions{})
		if err == nil {
			c.created(made)
		}
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
		live, getErr := client.Get(ctx, desired.Name, metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if !controlledBy(live, "ScopeInstance", uid) {
			return fmt.Errorf("ClusterRoleBinding %s exists and is not controlled by the ScopeInstance; it is left untouched", desired.Name)
		}
		if live.RoleRef != desired.RoleRef || !bindingInSync(live, desired, live.Subjects, desired.Subjects) {
			return fmt.Errorf("ClusterRoleBinding %s was changed meanwhile; it is repaired on the next sync", desired.Name)
		}
		return nil
	}}
	switch {
	case existing == nil:
		return []write{create}
	case existing.RoleRef != desired.RoleRef:
		return []write{{where: desired.Name, do: func(ctx context.Context) error {
			if err := c.deleteClusterRoleBinding(existing).do(ctx); err != nil {
				return err
			}
			return create.do(ctx)
		}}}
	case bindingInSync(existing, desired, existing.Subjects, desired.Subjects):
		return nil
	}
	return []write{{where: desired.Name, do: func(ctx context.Context) error {
		updated := existing.DeepCopy()
		updated.Subjects, updated.OwnerReferences = desired.Subjects, desired.OwnerReferences
		updated.Labels = withLabel(updated.Labels, scopesv1alpha1.ScopeInstanceLabel, desired.Labels[scopesv1alpha1.ScopeInstanceLabel])
		after, err := client.Update(ctx, updated, metav1.UpdateOptions{})
		if err == nil {
			c.updated(existing, after)
		}
		return err
	}}}
}

func (c *instances) deleteClusterRoleBinding(crb *rbacv1.ClusterRoleBinding) write {
	return write{where: crb.Name, do: func(ctx context.Context) error {
		err := c.kube.RbacV1().ClusterRoleBindings().Delete(ctx, crb.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(crb.UID))})
		if err == nil {
			c.deleted(crb)
		}
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil
		}
		return err
	}}
}
