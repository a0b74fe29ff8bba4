package scopes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopesclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/scopes/v1alpha1"
	scopelisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/scopes/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/rbacsubjects"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/rbac/specwritten"
)

// InstanceControllerName owns the ScopeInstanceDegraded condition.
const InstanceControllerName = "ScopeInstance"

// instances binds a template's roles where an instance says.
type instances struct {
	client     scopesclient.ScopeInstancesGetter
	kube       kubernetes.Interface
	templates  scopelisters.ScopeTemplateLister
	roles      rbaclisters.ClusterRoleLister
	namespaces corelisters.NamespaceLister
	// clusterRoleBindings and roleBindings find an instance's bindings by label.
	clusterRoleBindings cache.Indexer
	roleBindings        cache.Indexer
	workers             int
	// unseen holds the writes the binding caches may not show yet.
	unseen *unseenWrites
}

// scope is where an instance's roles are bound.
type scope struct {
	cluster bool
	// namespaces are those that exist and are not being deleted, sorted.
	namespaces []string
	// missing are listed namespaces that do not exist (yet): their creation
	// wakes the instance.
	missing []string
	// replaced are listed namespaces that are not the ones the spec was
	// checked against (deleted and re-created since, or created after the
	// spec was written): not bound until it is written again.
	replaced []string
}

func (c *instances) sync(ctx context.Context, syncCtx factory.SyncContext, instance *scopesv1alpha1.ScopeInstance) error {
	if c.unseen.pending(instance.Name, time.Now(), c.seen) > 0 {
		// The caches trail the last sync's writes: judged from them now,
		// those writes would be made again.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), unseenRecheck)
		return nil
	}
	recorder := syncCtx.Recorder()
	status := instance.Status.DeepCopy()
	status.ObservedGeneration = instance.Generation

	// What this generation of the spec was first bound against: the
	// access-grants check judged it when the spec was written.
	if status.Checked == nil || status.Checked.Generation != instance.Generation {
		status.Checked = &scopesv1alpha1.CheckedScope{Generation: instance.Generation}
	}
	if status.Checked.SpecWrittenAt == nil {
		// Taken once per generation: a later metadata write moves the
		// object's own times.
		status.Checked.SpecWrittenAt = specwritten.At(instance, time.Now())
	}
	template, err := c.templates.Get(instance.Spec.ScopeTemplateName)
	if apierrors.IsNotFound(err) {
		return c.invalid(ctx, recorder, instance, status, scopesv1alpha1.ReasonScopeTemplateNotFound,
			fmt.Sprintf("ScopeTemplate %s does not exist; nothing is bound until it does", instance.Spec.ScopeTemplateName))
	}
	if err != nil {
		return err
	}
	switch pinned := status.Checked.ScopeTemplateUID; {
	case pinned == "":
		status.Checked.ScopeTemplateUID = template.UID
	case pinned != template.UID:
		return c.invalid(ctx, recorder, instance, status, scopesv1alpha1.ReasonScopeTemplateReplaced, fmt.Sprintf(
			"ScopeTemplate %s was deleted and re-created (UID %s) after this spec was checked against it (UID %s); nothing is bound "+
				"until the spec is written again, which has the access-grants check judge the new template: delete and re-create the ScopeInstance, or change its spec",
			template.Name, template.UID, pinned))
	}
	where, err := c.scope(instance, status.Checked)
	if err != nil {
		return c.invalid(ctx, recorder, instance, status, scopesv1alpha1.ReasonInvalidNamespaceSelector,
			fmt.Sprintf("spec.namespaceSelector: %v; nothing is bound", err))
	}
	entries, pending := c.readyRoles(template)
	desired := desiredBindings(instance, entries, where)
	failures, err := c.apply(ctx, recorder, instance, desired)
	if err != nil {
		return err
	}

	foreign := foreignBindings(failures)
	setValid(recorder, instance, &status.Conditions)
	status.NamespaceCount = int32(len(where.namespaces))
	setBound(recorder, instance, &status.Conditions, where, failures, foreign, pending, rolesTrouble(template))
	if err := updateInstanceStatus(ctx, c.client, instance, status); err != nil {
		return err
	}
	if len(failures) > 0 {
		// Retried with backoff; reconcileloop names the instance in
		// ScopeInstanceDegraded. Foreign bindings are not: the resync, or
		// an event of a labelled one, looks again.
		return fmt.Errorf("%d bindings failed: %s", len(failures), failureMessage(failures))
	}
	return nil
}

// invalid removes every binding of instance and says why.
func (c *instances) invalid(ctx context.Context, recorder events.Recorder, instance *scopesv1alpha1.ScopeInstance, status *scopesv1alpha1.ScopeInstanceStatus, reason, message string) error {
	failures, err := c.apply(ctx, recorder, instance, bindings{})
	if err != nil {
		return err
	}
	if len(failures) > 0 {
		return fmt.Errorf("removing the bindings of ScopeInstance %s: %s", instance.Name, failureMessage(failures))
	}
	status.NamespaceCount = 0
	condition := metav1.Condition{Type: scopesv1alpha1.ConditionInvalid, Status: metav1.ConditionTrue, Reason: reason, Message: message, ObservedGeneration: instance.Generation}
	if transitioned(&status.Conditions, condition) {
		recorder.Warningf("ScopeInstanceInvalid", "ScopeInstance %s is invalid (%s): %s", instance.Name, reason, message)
	}
	transitioned(&status.Conditions, metav1.Condition{Type: scopesv1alpha1.ConditionBound, Status: metav1.ConditionFalse, Reason: reason,
		Message: "nothing is bound: see the Invalid condition", ObservedGeneration: instance.Generation})
	return updateInstanceStatus(ctx, c.client, instance, status)
}

// scope resolves the instance's namespaces from the Namespace cache. A
// listed namespace is bound in only as first seen for this generation of
// the spec, and only if it was created before the spec was written (the
// check refuses a listed namespace that does not exist): checked pins its
// UID then, and one of another UID, or created later, is replaced. That
// holds with a selector beside the list too: the list names the namespaces
// the check judged, so a replaced one is not bound even when the selector
// matches it. What the selector matches is not pinned: it trusts whoever
// may create or label a namespace with its labels, today and later
// (docs/scopes.md), so a pin would refuse a re-created namespace while
// admitting any new one of another name.
func (c *instances) scope(instance *scopesv1alpha1.ScopeInstance, checked *scopesv1alpha1.CheckedScope) (scope, error) {
	if len(instance.Spec.Namespaces) == 0 && instance.Spec.NamespaceSelector == nil {
		checked.Namespaces = nil
		return scope{cluster: true}, nil
	}
	selected := map[string]bool{}
	notListed := map[string]bool{} // listed, and not to be bound whatever the selector says
	var missing, replaced []string
	for _, name := range instance.Spec.Namespaces {
		ns, err := c.namespaces.Get(name)
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, name)
			notListed[name] = true
		case err != nil:
			return scope{}, err
		case ns.DeletionTimestamp != nil:
			notListed[name] = true
		case !pinNamespace(checked, ns):
			replaced = append(replaced, name)
			notListed[name] = true
		default:
			selected[name] = true
		}
	}
	if instance.Spec.NamespaceSelector != nil {
		if selectsEverything(instance.Spec.NamespaceSelector) {
			return scope{}, errEmptySelector
		}
		selector, err := metav1.LabelSelectorAsSelector(instance.Spec.NamespaceSelector)
		if err != nil {
			return scope{}, err
		}
		matching, err := c.namespaces.List(selector)
		if err != nil {
			return scope{}, err
		}
		for _, ns := range matching {
			if ns.DeletionTimestamp == nil && !notListed[ns.Name] {
				selected[ns.Name] = true
			}
		}
	}
	out := scope{missing: missing, replaced: replaced, namespaces: make([]string, 0, len(selected))}
	for name := range selected {
		out.namespaces = append(out.namespaces, name)
	}
	sort.Strings(out.namespaces)
	sort.Strings(out.missing)
	sort.Strings(out.replaced)
	return out, nil
}

// errEmptySelector is an instance's empty namespaceSelector, which the CRD
// refuses since issue 33 but an instance written before may hold: it would
// select every namespace, and is what a plain label map becomes when a
// client that only warns on unknown fields drops its keys.
var errEmptySelector = errors.New("it is empty ({}), which would select every namespace: a plain map such as {team: a} " +
	"becomes that when a client drops its unknown keys; write it as matchLabels: {team: a} or matchExpressions, " +
	"or leave out both namespaces and namespaceSelector to bind cluster-wide")

// selectsEverything says whether s has neither labels nor expressions.
func selectsEverything(s *metav1.LabelSelector) bool {
	return len(s.MatchLabels) == 0 && len(s.MatchExpressions) == 0
}

// pinNamespace says whether ns is the namespace checked pinned under its
// name, pinning it when none is and it was created before the spec was
// written (kept sorted by name, so a resync writes nothing).
func pinNamespace(checked *scopesv1alpha1.CheckedScope, ns *corev1.Namespace) bool {
	i, found := slices.BinarySearchFunc(checked.Namespaces, ns.Name, func(p scopesv1alpha1.NamespaceUID, name string) int {
		return strings.Compare(p.Name, name)
	})
	if found {
		return checked.Namespaces[i].UID == ns.UID
	}
	if !specwritten.Existed(ns, checked.SpecWrittenAt) {
		return false
	}
	checked.Namespaces = slices.Insert(checked.Namespaces, i, scopesv1alpha1.NamespaceUID{Name: ns.Name, UID: ns.UID})
	return true
}

// readyRoles are the template's entries whose ClusterRole exists and is
// controlled by the template: a role of that name that is someone else's
// is never bound. pending names the others.
func (c *instances) readyRoles(template *scopesv1alpha1.ScopeTemplate) (ready []boundRole, pending []string) {
	for _, entry := range template.Spec.ClusterRoles {
		name := ClusterRoleName(template.Name, entry.GenerateName)
		role, err := c.roles.Get(name)
		if err != nil || !controlledBy(role, "ScopeTemplate", string(template.UID)) {
			pending = append(pending, name)
			continue
		}
		ready = append(ready, boundRole{name: name, subjects: rbacsubjects.Defaulted(rbacSubjects(entry.Subjects))})
	}
	return ready, pending
}

// rolesTrouble is what template reports about roles it could not write
// (WriteFailed, with the API server's error) or may not (Conflict), for
// the instance's ClusterRolesNotReady message: the instance learns it from
// the template's status, as any reader would. Empty while the template's
// status speaks of an earlier generation, or of nothing wrong.
func rolesTrouble(template *scopesv1alpha1.ScopeTemplate) string {
	c := meta.FindStatusCondition(template.Status.Conditions, scopesv1alpha1.ConditionRolesReady)
	if c == nil || c.Status != metav1.ConditionFalse || c.ObservedGeneration != template.Generation ||
		(c.Reason != scopesv1alpha1.ReasonWriteFailed && c.Reason != scopesv1alpha1.ReasonConflict) {
		return ""
	}
	return c.Reason + ": " + c.Message
}

// rbacSubjects are a template entry's subjects as a binding holds them.
func rbacSubjects(in []scopesv1alpha1.Subject) []rbacv1.Subject {
	out := make([]rbacv1.Subject, len(in))
	for i, s := range in {
		out[i] = rbacv1.Subject{Kind: s.Kind, APIGroup: s.APIGroup, Name: s.Name, Namespace: s.Namespace}
	}
	return out
}

type boundRole struct {
	name     string
	subjects []rbacv1.Subject
}

// bindings are the RoleBindings and ClusterRoleBindings of one instance,
// keyed by namespace/name ("" namespace for ClusterRoleBindings).
type bindings struct {
	roleBindings        map[string]*rbacv1.RoleBinding
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
}

func desiredBindings(instance *scopesv1alpha1.ScopeInstance, roles []boundRole, where scope) bindings {
	out := bindings{roleBindings: map[string]*rbacv1.RoleBinding{}, clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{}}
	objectMeta := func(name, namespace string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: namespace,
			Labels:          map[string]string{scopesv1alpha1.ScopeInstanceLabel: instance.Name},
			OwnerReferences: []metav1.OwnerReference{controllerRef("ScopeInstance", instance)}}
	}
	for _, role := range roles {
		name := BindingName(role.name, instance.Name)
		roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.name}
		if where.cluster {
			out.clusterRoleBindings[name] = &rbacv1.ClusterRoleBinding{ObjectMeta: objectMeta(name, ""), RoleRef: roleRef, Subjects: role.subjects}
			continue
		}
		for _, ns := range where.namespaces {
			out.roleBindings[ns+"/"+name] = &rbacv1.RoleBinding{ObjectMeta: objectMeta(name, ns), RoleRef: roleRef, Subjects: inNamespace(role.subjects, ns)}
		}
	}
	return out
}

// inNamespace gives a ServiceAccount subject without a namespace the
// binding's: a template can name "the operator's ServiceAccount, wherever
// it is bound".
func inNamespace(subjects []rbacv1.Subject, namespace string) []rbacv1.Subject {
	out := make([]rbacv1.Subject, len(subjects))
	for i, s := range subjects {
		if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == "" {
			s.Namespace = namespace
		}
		out[i] = s
	}
	return out
}

func setValid(recorder events.Recorder, instance *scopesv1alpha1.ScopeInstance, conditions *[]metav1.Condition) {
	condition := metav1.Condition{Type: scopesv1alpha1.ConditionInvalid, Status: metav1.ConditionFalse, Reason: scopesv1alpha1.ReasonValid, ObservedGeneration: instance.Generation}
	wasInvalid := meta.IsStatusConditionTrue(*conditions, scopesv1alpha1.ConditionInvalid)
	if transitioned(conditions, condition) && wasInvalid {
		recorder.Eventf("ScopeInstanceValid", "ScopeInstance %s is valid again", instance.Name)
	}
}

// setBound reports whether every role is bound everywhere it should be.
// The first that applies wins: failures, then foreign bindings, then
// missing namespaces, then roles the template has not (or cannot) create,
// quoting templateSays: the template's own account of why (rolesTrouble).
func setBound(recorder events.Recorder, instance *scopesv1alpha1.ScopeInstance, conditions *[]metav1.Condition, where scope, failures map[string]error, foreign, pending []string, templateSays string) {
	condition := metav1.Condition{Type: scopesv1alpha1.ConditionBound, ObservedGeneration: instance.Generation, Status: metav1.ConditionFalse}
	switch {
	case len(failures) > 0:
		condition.Reason = scopesv1alpha1.ReasonBindingFailed
		condition.Message = fmt.Sprintf("%d bindings failed: %s", len(failures), failureMessage(failures))
	case len(foreign) > 0:
		condition.Reason = scopesv1alpha1.ReasonConflict
		condition.Message = fmt.Sprintf("bindings %s exist and are not controlled by this ScopeInstance (made by someone else, or "+
			"controlled by another owner, a ScopeInstance of another API group included): they are left untouched and the instance "+
			"binds nothing in their place; delete them, and the instance binds there at its next sync (within 10 minutes), "+
			"or re-create the instance under another name", named(foreign))
	case len(where.replaced) > 0:
		condition.Reason = scopesv1alpha1.ReasonNamespacesReplaced
		condition.Message = fmt.Sprintf("namespaces %s were deleted and re-created (or first created) after this spec was written; nothing is bound there "+
			"until the spec is written again, which has the access-grants check judge them anew: delete and re-create the ScopeInstance, or change its spec",
			named(where.replaced))
	case len(where.missing) > 0:
		condition.Reason = scopesv1alpha1.ReasonNamespacesNotFound
		condition.Message = fmt.Sprintf("listed namespaces do not exist: %s; one created now is not bound until the spec is written again "+
			"(the access-grants check refuses a namespace that does not exist: whoever created it would get the bindings): "+
			"create it, then delete and re-create the ScopeInstance, or change its spec", named(where.missing))
	case len(pending) > 0:
		condition.Reason = scopesv1alpha1.ReasonClusterRolesNotReady
		condition.Message = fmt.Sprintf("ClusterRoles %s of ScopeTemplate %s do not exist or are not controlled by it",
			strings.Join(pending, ", "), instance.Spec.ScopeTemplateName)
		if templateSays != "" {
			condition.Message += "; the template's RolesReady condition says " + templateSays
		} else {
			condition.Message += " (see the template's RolesReady and Conflict conditions)"
		}
	default:
		condition.Status, condition.Reason = metav1.ConditionTrue, scopesv1alpha1.ReasonAllBound
		condition.Message = fmt.Sprintf("bound in %d namespaces", len(where.namespaces))
		if where.cluster {
			condition.Message = "bound cluster-wide"
		}
	}
	if transitioned(conditions, condition) {
		if condition.Status == metav1.ConditionTrue {
			recorder.Eventf("ScopeInstanceBound", "ScopeInstance %s: %s", instance.Name, condition.Message)
		} else {
			recorder.Warningf("ScopeInstance"+condition.Reason, "ScopeInstance %s: %s", instance.Name, condition.Message)
		}
	}
}

// updateInstanceStatus writes only a status that changed.
func updateInstanceStatus(ctx context.Context, client scopesclient.ScopeInstancesGetter, instance *scopesv1alpha1.ScopeInstance, status *scopesv1alpha1.ScopeInstanceStatus) error {
	if equality.Semantic.DeepEqual(&instance.Status, status) {
		return nil
	}
	updated := instance.DeepCopy()
	updated.Status = *status
	_, err := client.ScopeInstances().UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	return err
}

// instancesOfTemplate maps a template, or one of its roles, to the
// instances naming it.
func instancesOfTemplate(index cache.Indexer) func(runtime.Object) []string {
	return func(obj runtime.Object) []string {
		o, ok := obj.(metav1.Object)
		if !ok {
			return nil
		}
		template := o.GetName()
		if _, isRole := obj.(*rbacv1.ClusterRole); isRole {
			template = o.GetLabels()[scopesv1alpha1.ScopeTemplateLabel]
		}
		instances, err := ownedBy[*scopesv1alpha1.ScopeInstance](index, template)
		if err != nil {
			return nil
		}
		keys := make([]string, 0, len(instances))
		for _, instance := range instances {
			keys = append(keys, instance.Name)
		}
		return keys
	}
}

// instancesOfNamespace maps a namespace event to the instances it may
// concern: those listing it and those with a selector (its old labels are
// not known, so any selector may have matched).
func instancesOfNamespace(lister scopelisters.ScopeInstanceLister) func(runtime.Object) []string {
	return func(obj runtime.Object) []string {
		ns, ok := obj.(*corev1.Namespace)
		if !ok {
			return nil
		}
		all, err := lister.List(labels.Everything())
		if err != nil {
			return nil
		}
		var keys []string
		for _, instance := range all {
			if instance.Spec.NamespaceSelector != nil || contains(instance.Spec.Namespaces, ns.Name) {
				keys = append(keys, instance.Name)
			}
		}
		return keys
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
