package scopes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	rbacclient "k8s.io/client-go/kubernetes/typed/rbac/v1"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	scopesv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/scopes/v1alpha1"
	scopesclient "github.com/openshift/cluster-workload-access-operator/pkg/generated/clientset/versioned/typed/scopes/v1alpha1"
	scopelisters "github.com/openshift/cluster-workload-access-operator/pkg/generated/listers/scopes/v1alpha1"
)

// TemplateControllerName owns the ScopeTemplateDegraded condition.
const TemplateControllerName = "ScopeTemplate"

// templates creates a template's ClusterRoles while an instance names it.
type templates struct {
	client    scopesclient.ScopeTemplatesGetter
	roles     rbacclient.ClusterRolesGetter
	roleCache rbaclisters.ClusterRoleLister
	// roleIndex finds a template's roles by label.
	roleIndex cache.Indexer
	// instanceIndex finds the instances naming a template.
	instanceIndex cache.Indexer
}

func (c *templates) sync(ctx context.Context, syncCtx factory.SyncContext, template *scopesv1alpha1.ScopeTemplate) error {
	recorder := syncCtx.Recorder()
	users, err := c.instancesNaming(template)
	if err != nil {
		return err
	}
	var wanted []*rbacv1.ClusterRole
	if users > 0 {
		wanted = desiredRoles(template)
	}
	// Each role is tried whatever happened to the others; what failed is
	// reported on RolesReady and retried with backoff.
	managed := map[string]bool{}
	failures := map[string]error{}
	var names, conflicts []string
	for _, role := range wanted {
		conflict, err := c.ensure(ctx, recorder, template, role)
		switch {
		case err != nil:
			failures[role.Name] = err
			managed[role.Name] = true // not written, still wanted
		case conflict:
			conflicts = append(conflicts, role.Name)
		default:
			managed[role.Name] = true
			names = append(names, role.Name)
		}
	}
	if err := c.deleteUnwanted(ctx, recorder, template, managed, users, failures); err != nil {
		return err
	}

	status := template.Status.DeepCopy()
	status.ObservedGeneration = template.Generation
	status.ClusterRoles = names
	setInUse(recorder, template, &status.Conditions, users)
	setConflict(recorder, template, &status.Conditions, conflicts)
	setRolesReady(recorder, template, &status.Conditions, users, names, conflicts, failures)
	if err := updateTemplateStatus(ctx, c.client, template, status); err != nil {
		return err
	}
	if len(failures) > 0 {
		// Retried with backoff; reconcileloop names the template in
		// ScopeTemplateDegraded.
		return fmt.Errorf("%d ClusterRole writes failed: %s", len(failures), failureMessage(failures))
	}
	return nil
}

// instancesNaming counts the instances, not being deleted, that name
// template and may bind it: not those whose spec was checked against an
// earlier template of that name. Its roles keep the earlier one's names,
// so bindings the instance controller has yet to remove would grant them.
func (c *templates) instancesNaming(template *scopesv1alpha1.ScopeTemplate) (int, error) {
	instances, err := ownedBy[*scopesv1alpha1.ScopeInstance](c.instanceIndex, template.Name)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, instance := range instances {
		if instance.DeletionTimestamp == nil && !checkedAgainstAnother(instance, template) {
			n++
		}
	}
	return n, nil
}

// checkedAgainstAnother says whether instance's current spec was bound
// against another template of that name (another UID).
func checkedAgainstAnother(instance *scopesv1alpha1.ScopeInstance, template *scopesv1alpha1.ScopeTemplate) bool {
	checked := instance.Status.Checked
	return checked != nil && checked.Generation == instance.Generation &&
		checked.ScopeTemplateUID != "" && checked.ScopeTemplateUID != template.UID
}

func desiredRoles(template *scopesv1alpha1.ScopeTemplate) []*rbacv1.ClusterRole {
	out := make([]*rbacv1.ClusterRole, 0, len(template.Spec.ClusterRoles))
	for _, entry := range template.Spec.ClusterRoles {
		out = append(out, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{
				Name:            ClusterRoleName(template.Name, entry.GenerateName),
				Labels:          map[string]string{scopesv1alpha1.ScopeTemplateLabel: template.Name},
				OwnerReferences: []metav1.OwnerReference{controllerRef("ScopeTemplate", template)},
			},
			Rules: entry.Rules,
		})
	}
	return out
}

// ensure creates desired or repairs it (rules, aggregation, label, owner);
// conflict is set, and nothing written, when a ClusterRole of that name is
// not controlled by template. It stays apart from the bindings'
// bindingKind.ensure because its semantics differ: a role is read live
// before it is created so that a foreign one is a Conflict, not a failure,
// and each write is made in line with its own Event, not handed to the
// workers and awaited as an unseen write.
func (c *templates) ensure(ctx context.Context, recorder events.Recorder, template *scopesv1alpha1.ScopeTemplate, desired *rbacv1.ClusterRole) (conflict bool, err error) {
	existing, err := c.roleCache.Get(desired.Name)
	if apierrors.IsNotFound(err) {
		// Not labelled as ours (or not cached yet): only a live read tells
		// a foreign role from none.
		existing, err = c.roles.ClusterRoles().Get(ctx, desired.Name, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsNotFound(err):
		if _, err := c.roles.ClusterRoles().Create(ctx, desired, metav1.CreateOptions{}); err != nil {
			return false, err
		}
		recorder.Eventf("ClusterRoleCreated", "Created ClusterRole %s for ScopeTemplate %s", desired.Name, template.Name)
		return false, nil
	case err != nil:
		return false, err
	case !controlledBy(existing, "ScopeTemplate", string(template.UID)):
		return true, nil
	}
	if roleInSync(existing, desired) {
		return false, nil
	}
	updated := existing.DeepCopy()
	updated.Rules, updated.AggregationRule = desired.Rules, nil
	updated.Labels = withLabel(updated.Labels, scopesv1alpha1.ScopeTemplateLabel, template.Name)
	updated.OwnerReferences = desired.OwnerReferences
	if _, err := c.roles.ClusterRoles().Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
		return false, err
	}
	recorder.Eventf("ClusterRoleUpdated", "Updated ClusterRole %s to the rules of ScopeTemplate %s", desired.Name, template.Name)
	return false, nil
}

func roleInSync(existing, desired *rbacv1.ClusterRole) bool {
	return equality.Semantic.DeepEqual(existing.Rules, desired.Rules) && existing.AggregationRule == nil &&
		existing.Labels[scopesv1alpha1.ScopeTemplateLabel] == desired.Labels[scopesv1alpha1.ScopeTemplateLabel] &&
		equality.Semantic.DeepEqual(existing.OwnerReferences, desired.OwnerReferences)
}

// withLabel returns labels with key set to value; others stay.
func withLabel(in map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	out[key] = value
	return out
}

// deleteUnwanted deletes template's roles not in keep: those of removed
// entries, and all of them once no instance names it. The UID
// precondition spares a role re-created meanwhile. A delete that fails is
// added to failures; the error is for failures to read the cache.
func (c *templates) deleteUnwanted(ctx context.Context, recorder events.Recorder, template *scopesv1alpha1.ScopeTemplate, keep map[string]bool, users int, failures map[string]error) error {
	existing, err := ownedBy[*rbacv1.ClusterRole](c.roleIndex, template.Name)
	if err != nil {
		return err
	}
	for _, role := range existing {
		if keep[role.Name] || !controlledBy(role, "ScopeTemplate", string(template.UID)) {
			continue
		}
		err := c.roles.ClusterRoles().Delete(ctx, role.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(role.UID))})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			failures[role.Name] = fmt.Errorf("deleting: %w", err)
			continue
		}
		why := "its entry was removed"
		if users == 0 {
			why = "no ScopeInstance names it"
		}
		recorder.Eventf("ClusterRoleDeleted", "Deleted ClusterRole %s of ScopeTemplate %s: %s", role.Name, template.Name, why)
	}
	return nil
}

func setInUse(recorder events.Recorder, template *scopesv1alpha1.ScopeTemplate, conditions *[]metav1.Condition, users int) {
	condition := metav1.Condition{Type: scopesv1alpha1.ConditionInUse, ObservedGeneration: template.Generation}
	if users > 0 {
		condition.Status, condition.Reason = metav1.ConditionTrue, scopesv1alpha1.ReasonInstancesName
		condition.Message = fmt.Sprintf("%d ScopeInstances name the template; its ClusterRoles exist", users)
		if users == 1 {
			condition.Message = "1 ScopeInstance names the template; its ClusterRoles exist"
		}
	} else {
		condition.Status, condition.Reason = metav1.ConditionFalse, scopesv1alpha1.ReasonNoInstances
		condition.Message = "no ScopeInstance names the template; it has no ClusterRoles"
	}
	if transitioned(conditions, condition) {
		recorder.Eventf("ScopeTemplate"+condition.Reason, "ScopeTemplate %s: %s", template.Name, condition.Message)
	}
}

func setConflict(recorder events.Recorder, template *scopesv1alpha1.ScopeTemplate, conditions *[]metav1.Condition, conflicts []string) {
	condition := metav1.Condition{Type: scopesv1alpha1.ConditionConflict, ObservedGeneration: template.Generation,
		Status: metav1.ConditionFalse, Reason: scopesv1alpha1.ReasonNoConflict}
	if len(conflicts) > 0 {
		condition.Status, condition.Reason = metav1.ConditionTrue, scopesv1alpha1.ReasonConflict
		condition.Message = fmt.Sprintf("ClusterRole %s already exists and is not controlled by ScopeTemplate %s; it is left untouched and not bound",
			strings.Join(conflicts, ", "), template.Name)
	}
	if transitioned(conditions, condition) && len(conflicts) > 0 {
		recorder.Warningf("ScopeTemplateConflict", "ScopeTemplate %s: %s", template.Name, condition.Message)
	}
}

// setRolesReady says whether every role the template needs exists as it
// says, and if not, why: a failed write first (with the API server's
// error), then a role another owner holds, then no instance needing any.
func setRolesReady(recorder events.Recorder, template *scopesv1alpha1.ScopeTemplate, conditions *[]metav1.Condition, users int, names, conflicts []string, failures map[string]error) {
	condition := metav1.Condition{Type: scopesv1alpha1.ConditionRolesReady, ObservedGeneration: template.Generation, Status: metav1.ConditionFalse}
	switch {
	case len(failures) > 0:
		condition.Reason = scopesv1alpha1.ReasonWriteFailed
		condition.Message = fmt.Sprintf("%d ClusterRole writes failed (retried with backoff): %s", len(failures), failureMessage(failures))
	case len(conflicts) > 0:
		condition.Reason = scopesv1alpha1.ReasonConflict
		condition.Message = fmt.Sprintf("ClusterRole %s is not controlled by the template and is not bound (see the Conflict condition)", named(conflicts))
	case users == 0:
		condition.Reason = scopesv1alpha1.ReasonNoInstances
		condition.Message = "no ScopeInstance names the template, so it needs no ClusterRoles"
	default:
		condition.Status, condition.Reason = metav1.ConditionTrue, scopesv1alpha1.ReasonRolesWritten
		condition.Message = fmt.Sprintf("ClusterRoles %s exist as the template says", named(names))
	}
	wasReady := meta.IsStatusConditionTrue(*conditions, scopesv1alpha1.ConditionRolesReady)
	if !transitioned(conditions, condition) {
		return
	}
	switch {
	case condition.Reason == scopesv1alpha1.ReasonWriteFailed:
		recorder.Warningf("ScopeTemplateWriteFailed", "ScopeTemplate %s: %s", template.Name, condition.Message)
	case condition.Status == metav1.ConditionTrue && !wasReady:
		recorder.Eventf("ScopeTemplateRolesReady", "ScopeTemplate %s: %s", template.Name, condition.Message)
	}
}

// transitioned sets condition and says whether its status, reason or
// message changed (the events worth emitting).
func transitioned(conditions *[]metav1.Condition, condition metav1.Condition) bool {
	old := meta.FindStatusCondition(*conditions, condition.Type)
	news := old == nil || old.Status != condition.Status || old.Reason != condition.Reason || old.Message != condition.Message
	meta.SetStatusCondition(conditions, condition)
	return news
}

// updateTemplateStatus writes only a status that changed. It stays apart
// from its twin updateInstanceStatus because the two generated types share
// no interface to their Status, so a shared form would need more accessors
// than the few lines it saves.
func updateTemplateStatus(ctx context.Context, client scopesclient.ScopeTemplatesGetter, template *scopesv1alpha1.ScopeTemplate, status *scopesv1alpha1.ScopeTemplateStatus) error {
	if equality.Semantic.DeepEqual(&template.Status, status) {
		return nil
	}
	updated := template.DeepCopy()
	updated.Status = *status
	_, err := client.ScopeTemplates().UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	return err
}

// templateOfInstance maps an instance event to the template it names, and
// to the one it named before: an update event carries only the new object,
// and a template an instance stopped naming must lose its roles. An
// instance the cache no longer holds (its delete event) is forgotten.
type templateOfInstance struct {
	instances scopelisters.ScopeInstanceLister
	lock      sync.Mutex
	last      map[string]string
}

func (t *templateOfInstance) keys(obj runtime.Object) []string {
	instance, ok := obj.(*scopesv1alpha1.ScopeInstance)
	if !ok {
		return nil
	}
	t.lock.Lock()
	defer t.lock.Unlock()
	if t.last == nil {
		t.last = map[string]string{}
	}
	keys := []string{instance.Spec.ScopeTemplateName}
	if previous, ok := t.last[instance.Name]; ok && previous != instance.Spec.ScopeTemplateName {
		keys = append(keys, previous)
	}
	if _, err := t.instances.Get(instance.Name); apierrors.IsNotFound(err) {
		delete(t.last, instance.Name)
	} else {
		t.last[instance.Name] = instance.Spec.ScopeTemplateName
	}
	return slices.Compact(keys)
}
