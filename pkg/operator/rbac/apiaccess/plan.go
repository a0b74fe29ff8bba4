package apiaccess

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/crdaccess"
)

// Parallel is how many requests one policy's sync has in flight at most:
// enough that the API server, not the operator, limits how fast 1,200 roles
// are written (docs/performance.md), few enough not to crowd its other
// clients (its priority and fairness limits the operator's flow anyway).
const Parallel = 32

// planned is one desired object and what exists of it (zero when absent).
type planned[T object] struct {
	desired  T
	existing T
}

// plan is every object a policy needs, what exists of each, and what the
// controller found in the way.
type plan struct {
	roles           []planned[*rbacv1.ClusterRole]
	clusterBindings []planned[*rbacv1.ClusterRoleBinding]
	bindings        []planned[*rbacv1.RoleBinding]
	// conflicts name objects of names the policy would use that are not
	// its own; bundleRoles the bundle-provided roles it binds;
	// notAggregated those of them lacking their aggregation label.
	conflicts, bundleRoles, notAggregated []string
	// missingNamespaces are RoleBindings not created: no such namespace.
	missingNamespaces []string
	// checked pins the namespaces bound in; replaced are those deleted and
	// re-created, or created, since the spec was checked, not bound in.
	checked  *apiaccessv1alpha1.CheckedNamespaces
	replaced []string
	// awaiting are generated roles someone deleted, whose names are left to
	// the bundle's roles for HandoverWindow; recreated those whose window
	// ran out, created again.
	awaiting  []apiaccessv1alpha1.AwaitedRole
	recreated []string
}

// roleFinding is what exists of one generated role's name.
type roleFinding struct {
	crd      *apiextensionsv1.CustomResourceDefinition
	desired  *rbacv1.ClusterRole
	label    string // aggregation label
	existing *rbacv1.ClusterRole
	// owner names who holds a name that is not ours: "" when ours or absent.
	owner  string
	bundle bool
}

// plan finds, for every selected CRD, what exists of its roles and, in Bind
// mode, of the bindings to them. Roles that are neither ours nor the
// bundle's are not bound: a binding would grant whatever such a role holds.
func (c *controller) plan(ctx context.Context, policy *apiaccessv1alpha1.APIAccessPolicy, crds []*apiextensionsv1.CustomResourceDefinition) (*plan, error) {
	p := &plan{}
	crds = p.oneCRDPerRoleName(crds)
	var findings []*roleFinding
	for _, crd := range crds {
		for _, role := range crdaccess.API(crd).Roles() {
			findings = append(findings, &roleFinding{crd: crd, desired: desiredRole(policy, role), label: role.AggregateLabel})
		}
	}
	if err := parallel(ctx, findings, func(ctx context.Context, f *roleFinding) error {
		return c.findRole(ctx, policy, f)
	}); err != nil {
		return nil, err
	}
	usable := map[string]bool{}
	for _, f := range findings {
		switch {
		case f.bundle && policy.Spec.Mode == apiaccessv1alpha1.ModeBind && !grantsNoMore(f.existing, f.desired.Rules):
			// Its subjects would get more than the admission check asked
			// the policy's author to hold.
			p.conflicts = append(p.conflicts, fmt.Sprintf("ClusterRole %s (the bundle's, granting more than the generated role would)", f.desired.Name))
		case f.bundle:
			usable[f.desired.Name] = true
			p.bundleRoles = append(p.bundleRoles, f.desired.Name)
			if policy.Spec.Mode == apiaccessv1alpha1.ModeAggregate && f.existing.Labels[f.label] != "true" {
				p.notAggregated = append(p.notAggregated, fmt.Sprintf("ClusterRole %s lacks %s=true", f.desired.Name, f.label))
			}
		case f.owner != "":
			p.conflicts = append(p.conflicts, fmt.Sprintf("ClusterRole %s (%s)", f.desired.Name, f.owner))
		default:
			usable[f.desired.Name] = true
			switch h, since := c.handoverOf(policy, f); h {
			case await:
				// Its bindings stay: they grant the bundle's role once it comes.
				p.awaiting = append(p.awaiting, apiaccessv1alpha1.AwaitedRole{Name: f.desired.Name, Since: metav1.NewTime(since)})
				continue
			case recreate:
				p.recreated = append(p.recreated, f.desired.Name)
			}
			p.roles = append(p.roles, planned[*rbacv1.ClusterRole]{desired: f.desired, existing: f.existing})
		}
	}
	if policy.Spec.Mode != apiaccessv1alpha1.ModeBind {
		return p, nil
	}
	var clusterBindings []*rbacv1.ClusterRoleBinding
	var bindings []*rbacv1.RoleBinding
	for i := range policy.Spec.Bindings {
		for _, crd := range crds {
			cb, b := bindingsFor(policy, i, crdaccess.API(crd), usable)
			clusterBindings, bindings = append(clusterBindings, cb...), append(bindings, b...)
		}
	}
	var err error
	p.checked = checkedFor(policy, c.now())
	if bindings, p.replaced, p.missingNamespaces, err = inCheckedNamespaces(c.namespaces, p.checked, bindings); err != nil {
		return nil, err
	}
	if len(p.checked.Namespaces) == 0 && !listsNamespaces(policy) {
		p.checked = nil
	}
	if p.clusterBindings, err = findAll(ctx, c.clusterBindings, policy, clusterBindings, &p.conflicts); err != nil {
		return nil, err
	}
	if p.bindings, err = findAll(ctx, c.bindings, policy, bindings, &p.conflicts); err != nil {
		return nil, err
	}
	return p, nil
}

// findRole looks up what holds f's name: the cache first, which has only
// labelled objects, then the API server.
func (c *controller) findRole(ctx context.Context, policy *apiaccessv1alpha1.APIAccessPolicy, f *roleFinding) error {
	existing, err := lookup(ctx, c.roles, policy, "", f.desired.Name)
	if err == nil && existing == nil && madeBefore(policy, f.desired.Name) {
		// Gone from caches that may trail the create that made it: only
		// the API server can say it was deleted (see handoverOf).
		if existing, err = c.roles.get(ctx, "", f.desired.Name); apierrors.IsNotFound(err) {
			existing, err = nil, nil
		}
	}
	if err != nil || existing == nil {
		return err
	}
	f.existing = existing
	switch {
	case ours(policy, existing):
	case existing.Labels[apiaccessv1alpha1.PolicyLabel] == "" && bundleProvided(f.crd, existing):
		f.bundle = true
	default:
		f.owner = claim(policy, existing)
	}
	return nil
}

// lookup returns the object of a name, nil when there is none: from the
// cache when it is the policy's, from the API server otherwise (an object
// not labelled for the policy, or one the cache has yet to see). A kind
// with a cache of every name asks the API server only for names that
// exist: a new policy's 1,200 roles cost no reads.
func lookup[T object](ctx context.Context, k kind[T], policy *apiaccessv1alpha1.APIAccessPolicy, namespace, name string) (T, error) {
	var zero T
	cached, err := k.cached(namespace, name)
	if err == nil && ours(policy, cached) {
		return cached, nil
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return zero, err
	}
	if k.exists != nil {
		exists, err := k.exists(namespace, name)
		if err != nil || !exists {
			return zero, err
		}
	}
	live, err := k.get(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		return zero, nil
	}
	return live, err
}

// findAll looks up every desired binding; those held by someone else are
// added to conflicts and left out.
func findAll[T object](ctx context.Context, k kind[T], policy *apiaccessv1alpha1.APIAccessPolicy, desired []T, conflicts *[]string) ([]planned[T], error) {
	found := make([]planned[T], len(desired))
	indexes := make([]int, len(desired))
	for i := range indexes {
		indexes[i] = i
	}
	err := parallel(ctx, indexes, func(ctx context.Context, i int) error {
		existing, err := lookup(ctx, k, policy, desired[i].GetNamespace(), desired[i].GetName())
		found[i] = planned[T]{desired: desired[i], existing: existing}
		return err
	})
	if err != nil {
		return nil, err
	}
	var zero T
	out := found[:0]
	for _, f := range found {
		if f.existing != zero && !ours(policy, f.existing) {
			*conflicts = append(*conflicts, fmt.Sprintf("%s %s (%s)", k.name, qualified(f.desired), claim(policy, f.existing)))
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

func qualified(obj interface {
	GetNamespace() string
	GetName() string
}) string {
	if obj.GetNamespace() == "" {
		return obj.GetName()
	}
	return obj.GetNamespace() + "/" + obj.GetName()
}

// parallel runs f on every item, at most Parallel at a time, and returns
// the first error.
func parallel[X any](ctx context.Context, items []X, f func(context.Context, X) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	slots := make(chan struct{}, Parallel)
	for _, item := range items {
		if ctx.Err() != nil {
			break
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := f(ctx, item); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	return first
}

// writes counts what a sync wrote, for its event, and names the objects
// it could not create because their namespace does not exist, and those
// the API server refused to write.
type writes struct {
	created, updated, deleted atomic.Int32

	lock    sync.Mutex
	missing map[string]bool
	// failed are the writes refused, by object ("Kind namespace/name"),
	// with why; absent those of them that do not exist as the policy's.
	failed map[string]string
	absent map[string]bool
	// deleteRefused says a delete was refused.
	deleteRefused atomic.Bool
}

// fail records that obj of kind k was not written. absent says it does
// not exist as the policy's (a create refused), so it is not listed as
// managed.
func (w *writes) fail(k, obj string, why error, absent bool) {
	w.lock.Lock()
	defer w.lock.Unlock()
	if w.failed == nil {
		w.failed, w.absent = map[string]string{}, map[string]bool{}
	}
	w.failed[k+" "+obj] = why.Error()
	if absent {
		w.absent[k+" "+obj] = true
	}
}

// failures name each refused write and why, sorted.
func (w *writes) failures() []string {
	out := make([]string, 0, len(w.failed))
	for obj, why := range w.failed {
		out = append(out, obj+": "+why)
	}
	slices.Sort(out)
	return out
}

// notWritten says whether obj of kind k was not written as the policy's.
func (w *writes) notWritten(k, obj string) bool {
	w.lock.Lock()
	defer w.lock.Unlock()
	return w.absent[k+" "+obj]
}

func (w *writes) noNamespace(name string) {
	w.lock.Lock()
	defer w.lock.Unlock()
	if w.missing == nil {
		w.missing = map[string]bool{}
	}
	w.missing[name] = true
}

func (w *writes) String() string {
	return fmt.Sprintf("created %d, updated %d, deleted %d", w.created.Load(), w.updated.Load(), w.deleted.Load())
}

func (w *writes) any() bool { return w.created.Load()+w.updated.Load()+w.deleted.Load() > 0 }

// ensureAll creates or updates every planned object; one in sync is not
// written. A write the API server refuses is recorded in w, and the others
// are still written: one refused binding takes no one else's access away.
func ensureAll[T object](ctx context.Context, k kind[T], policy *apiaccessv1alpha1.APIAccessPolicy, items []planned[T], w *writes) error {
	return parallel(ctx, items, func(ctx context.Context, p planned[T]) error {
		var zero T
		existing := p.existing
		if existing == zero {
			err := k.create(ctx, p.desired)
			switch {
			case err == nil:
				w.created.Add(1)
				return nil
			case apierrors.IsNotFound(err) && p.desired.GetNamespace() != "":
				// The namespace does not exist (yet): the policy does not
				// create namespaces; a later sync binds in it.
				w.noNamespace(qualified(p.desired))
				return nil
			case !apierrors.IsAlreadyExists(err):
				w.fail(k.name, qualified(p.desired), fmt.Errorf("creating: %w", err), true)
				return nil
			}
			// The caches had yet to see it (this policy's own, written by
			// the sync before), or it was created meanwhile: judge it live.
			if existing, err = k.get(ctx, p.desired.GetNamespace(), p.desired.GetName()); err != nil {
				w.fail(k.name, qualified(p.desired), fmt.Errorf("reading after the create found it: %w", err), true)
				return nil
			}
			if !ours(policy, existing) {
				w.fail(k.name, qualified(p.desired), errors.New("created meanwhile by someone else; it is left untouched and the next sync reports it"), true)
				return nil
			}
		}
		updated, changed := k.content(existing, p.desired)
		// Labels are exactly ours: any other could aggregate the role
		// somewhere (the admission policy refuses them too).
		labels := p.desired.GetLabels()
		if !changed && equality.Semantic.DeepEqual(labels, existing.GetLabels()) && ownerInSync(policy, existing) {
			return nil
		}
		updated.SetLabels(labels)
		updated.SetOwnerReferences(p.desired.GetOwnerReferences())
		if err := k.update(ctx, updated); err != nil {
			w.fail(k.name, qualified(p.desired), fmt.Errorf("updating: %w", err), false)
			return nil
		}
		w.updated.Add(1)
		return nil
	})
}

// deleteUnwanted deletes the policy's objects that plan no longer wants:
// those labelled for it and controlled by it.
// The UID precondition spares one re-created meanwhile. A delete the API
// server refuses is recorded in w; the error is for a cache that cannot
// be read.
func deleteUnwanted[T object](ctx context.Context, k kind[T], policy *apiaccessv1alpha1.APIAccessPolicy, wanted []planned[T], w *writes) error {
	keep := map[string]bool{}
	for _, p := range wanted {
		keep[qualified(p.desired)] = true
	}
	existing, err := k.owned(policy.Name)
	if err != nil {
		return err
	}
	var unwanted []T
	for _, obj := range existing {
		// The label only says where to look: what this policy does not
		// control is never deleted, whoever labelled it.
		if !keep[qualified(obj)] && ours(policy, obj) {
			unwanted = append(unwanted, obj)
		}
	}
	return parallel(ctx, unwanted, func(ctx context.Context, obj T) error {
		err := k.delete(ctx, obj.GetNamespace(), obj.GetName(), obj.GetUID())
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil // gone, or re-created by someone else
		}
		if err != nil {
			w.fail(k.name, qualified(obj), fmt.Errorf("deleting: %w", err), false)
			w.deleteRefused.Store(true)
			return nil
		}
		w.deleted.Add(1)
		return nil
	})
}

// apply writes the plan: roles, then bindings to them, then removes
// bindings and roles no longer wanted (bindings first, so none is left
// naming a role that is gone). A nil plan removes everything. Writes the
// API server refuses are recorded in the writes returned, and everything
// else is written; the error is for caches that cannot be read.
func (c *controller) apply(ctx context.Context, policy *apiaccessv1alpha1.APIAccessPolicy, p *plan) (*writes, error) {
	if p == nil {
		p = &plan{}
	}
	w := &writes{}
	if err := ensureAll(ctx, c.roles, policy, p.roles, w); err != nil {
		return w, err
	}
	if err := ensureAll(ctx, c.clusterBindings, policy, heldBack(c.clusterBindings, p.clusterBindings, w), w); err != nil {
		return w, err
	}
	if err := ensureAll(ctx, c.bindings, policy, heldBack(c.bindings, p.bindings, w), w); err != nil {
		return w, err
	}
	if err := deleteUnwanted(ctx, c.bindings, policy, p.bindings, w); err != nil {
		return w, err
	}
	if err := deleteUnwanted(ctx, c.clusterBindings, policy, p.clusterBindings, w); err != nil {
		return w, err
	}
	if w.deleteRefused.Load() {
		// A binding that could not be deleted may name one of these
		// roles: they go on a later sync, after it.
		return w, nil
	}
	return w, deleteUnwanted(ctx, c.roles, policy, p.roles, w)
}

// heldBack leaves out of items the bindings to a role that was not
// written, recording them as not written: the name may hold someone
// else's role now (one created meanwhile), and a binding would grant
// whatever it holds. One that exists stays as it is.
func heldBack[T object](k kind[T], items []planned[T], w *writes) []planned[T] {
	var zero T
	return slices.DeleteFunc(slices.Clone(items), func(p planned[T]) bool {
		role := roleRefOf(p.desired).Name
		if !w.notWritten("ClusterRole", role) {
			return false
		}
		w.fail(k.name, qualified(p.desired), fmt.Errorf("held back: the ClusterRole it binds, %s, was not written", role), p.existing == zero)
		return true
	})
}

// roleRefOf is the role a generated binding names.
func roleRefOf(obj metav1.Object) rbacv1.RoleRef {
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		return b.RoleRef
	case *rbacv1.ClusterRoleBinding:
		return b.RoleRef
	}
	return rbacv1.RoleRef{}
}

// oneCRDPerRoleName keeps one CRD of those whose roles would have the same
// names (one kind in one group: the API server serves one of them and
// refuses the others' names), preferring the one it serves, and records
// the others as conflicts.
func (p *plan) oneCRDPerRoleName(crds []*apiextensionsv1.CustomResourceDefinition) []*apiextensionsv1.CustomResourceDefinition {
	kept := map[string]string{}
	for _, served := range []bool{true, false} {
		for _, crd := range crds {
			if namesAccepted(crd) != served {
				continue
			}
			base := crdaccess.API(crd).RoleBaseName()
			if _, taken := kept[base]; !taken {
				kept[base] = crd.Name
			}
		}
	}
	out := crds[:0:0]
	for _, crd := range crds {
		if first := kept[crdaccess.API(crd).RoleBaseName()]; first != crd.Name {
			p.conflicts = append(p.conflicts, fmt.Sprintf("CustomResourceDefinition %s (kind %s in group %s, as %s: its roles would have the same names)",
				crd.Name, crd.Spec.Names.Kind, crd.Spec.Group, first))
			continue
		}
		out = append(out, crd)
	}
	return out
}

// namesAccepted says whether the API server accepted the CRD's kind.
func namesAccepted(crd *apiextensionsv1.CustomResourceDefinition) bool {
	return crd.Status.AcceptedNames.Kind == crd.Spec.Names.Kind
}

// grantsNoMore says whether binding role grants no more than rules do:
// each of its rules within one of them, literally. A role that aggregates
// others holds whatever they hold, now or later.
func grantsNoMore(role *rbacv1.ClusterRole, rules []rbacv1.PolicyRule) bool {
	if role.AggregationRule != nil {
		return false
	}
	for _, r := range role.Rules {
		if !slices.ContainsFunc(rules, func(g rbacv1.PolicyRule) bool { return ruleWithin(r, g) }) {
			return false
		}
	}
	return true
}

func ruleWithin(r, g rbacv1.PolicyRule) bool {
	if len(r.Verbs) == 0 {
		return true // grants nothing
	}
	if !subset(r.NonResourceURLs, g.NonResourceURLs) {
		return false
	}
	names := len(g.ResourceNames) == 0 || (len(r.ResourceNames) > 0 && subset(r.ResourceNames, g.ResourceNames))
	return subset(r.APIGroups, g.APIGroups) && subset(r.Resources, g.Resources) && names &&
		(slices.Contains(g.Verbs, rbacv1.VerbAll) || subset(r.Verbs, g.Verbs))
}

// subset says whether every one of xs is in of, literally ("*" only in "*").
func subset(xs, of []string) bool {
	for _, x := range xs {
		if !slices.Contains(of, x) {
			return false
		}
	}
	return true
}
