package apiaccess

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	"github.com/openshift/library-go/pkg/operator/events"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	apiaccessv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/apiaccess/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

// MissingNamespaceRetry is when a policy binding in a namespace that does
// not exist looks again.
const MissingNamespaceRetry = time.Minute

// maxNamed is how many names a condition message lists before "and N more".
const maxNamed = 20

// MaxManagedObjects caps status.managedObjects, so that a policy binding
// hundreds of CRDs in hundreds of namespaces keeps its status within the
// API server's object size; RBACManaged says when the list is cut.
const MaxManagedObjects = 5000

func (c *controller) syncPolicy(ctx context.Context, syncCtx factory.SyncContext, policy *apiaccessv1alpha1.APIAccessPolicy) error {
	crds, invalid, err := c.selected(policy)
	if err != nil {
		return err
	}
	var p *plan
	start := time.Now()
	if invalid == "" && policy.Spec.Mode != apiaccessv1alpha1.ModeUnmanaged {
		if p, err = c.plan(ctx, policy, crds); err != nil {
			return err
		}
	}
	plannedAt := time.Now()
	// An invalid or Unmanaged policy generates nothing, and what it
	// generated before is removed.
	w, err := c.apply(ctx, policy, p)
	if w.any() {
		syncCtx.Recorder().Eventf("APIAccessPolicyApplied", "APIAccessPolicy %s (%s mode, %d CRDs): %s roles and bindings",
			policy.Name, policy.Spec.Mode, len(crds), w)
		klog.Infof("APIAccessPolicy %s: planned in %s, %s in %s", policy.Name, plannedAt.Sub(start).Round(time.Millisecond),
			w, time.Since(plannedAt).Round(time.Millisecond))
	}
	if err != nil {
		return err
	}
	if len(w.missing) > 0 {
		// Namespaces are not watched: look again for them later.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), MissingNamespaceRetry)
		p.bindings = slices.DeleteFunc(p.bindings, func(b planned[*rbacv1.RoleBinding]) bool { return w.missing[qualified(b.desired)] })
		// Beside those the plan left out: their namespace was not in the cache.
		missing := append(p.missingNamespaces, slices.Collect(maps.Keys(w.missing))...)
		slices.Sort(missing)
		p.missingNamespaces = slices.Compact(missing)
	}
	failures := w.failures()
	if p != nil && len(failures) > 0 {
		// What was not created is not the policy's to list.
		p.roles = slices.DeleteFunc(p.roles, func(r planned[*rbacv1.ClusterRole]) bool { return w.notWritten("ClusterRole", qualified(r.desired)) })
		p.clusterBindings = slices.DeleteFunc(p.clusterBindings, func(b planned[*rbacv1.ClusterRoleBinding]) bool {
			return w.notWritten("ClusterRoleBinding", qualified(b.desired))
		})
		p.bindings = slices.DeleteFunc(p.bindings, func(b planned[*rbacv1.RoleBinding]) bool { return w.notWritten("RoleBinding", qualified(b.desired)) })
	}
	status := desiredStatus(policy, crds, invalid, p, failures)
	recordTransitions(syncCtx.Recorder(), policy, policy.Status.Conditions, status.Conditions)
	recordHandovers(syncCtx.Recorder(), policy, p)
	if err := c.updateStatus(ctx, policy, status); err != nil {
		return err
	}
	if p != nil && len(p.awaiting) > 0 {
		// Nothing else wakes the policy when a window runs out.
		syncCtx.Queue().AddAfter(syncCtx.QueueKey(), awaitedUntil(p.awaiting).Sub(c.now())+time.Second)
	}
	if len(failures) > 0 {
		// The queue retries the policy with backoff.
		return fmt.Errorf("APIAccessPolicy %s: %d writes refused: %s", policy.Name, len(failures), strings.Join(failures, "; "))
	}
	return nil
}

// recordHandovers says, once each, that a deleted generated role's name is
// left to the bundle, and that one whose window ran out was created again.
func recordHandovers(recorder events.Recorder, policy *apiaccessv1alpha1.APIAccessPolicy, p *plan) {
	if p == nil {
		return
	}
	if names := newlyAwaited(policy.Status.AwaitingBundleRoles, p.awaiting); len(names) > 0 {
		recorder.Eventf("APIAccessPolicyAwaitsBundleRoles", "APIAccessPolicy %s: generated ClusterRoles %s were deleted; their names are left "+
			"to the ClusterExtension's own roles for %s (an upgrade that brings them), then created again if none has come",
			policy.Name, joined(names), HandoverWindow)
	}
	if len(p.recreated) > 0 {
		recorder.Warningf("APIAccessPolicyRecreatedRoles", "APIAccessPolicy %s: no ClusterExtension role took the names of deleted "+
			"generated ClusterRoles %s within %s; they are created again", policy.Name, joined(p.recreated), HandoverWindow)
	}
}

// desiredStatus is the status a sync that applied p reports; failures are
// the writes the API server refused.
func desiredStatus(policy *apiaccessv1alpha1.APIAccessPolicy, crds []*apiextensionsv1.CustomResourceDefinition, invalid string, p *plan, failures []string) *apiaccessv1alpha1.APIAccessPolicyStatus {
	status := policy.Status.DeepCopy()
	status.ObservedGeneration = policy.Generation
	status.CRDCount = int32(len(crds))
	if p == nil {
		p = &plan{}
	}
	objects := managedObjects(p)
	truncated := len(objects) > MaxManagedObjects
	if truncated {
		objects = objects[:MaxManagedObjects]
	}
	status.ManagedObjects = objects
	status.Checked = p.checked
	status.AwaitingBundleRoles = slices.SortedFunc(slices.Values(p.awaiting), func(a, b apiaccessv1alpha1.AwaitedRole) int {
		return strings.Compare(a.Name, b.Name)
	})
	if len(status.AwaitingBundleRoles) == 0 {
		status.AwaitingBundleRoles = nil
	}
	set := func(conditionType string, s metav1.ConditionStatus, reason, message string) {
		meta.SetStatusCondition(&status.Conditions, metav1.Condition{Type: conditionType, Status: s, Reason: reason,
			Message: message, ObservedGeneration: policy.Generation})
	}
	if invalid != "" {
		set(apiaccessv1alpha1.ConditionInvalid, metav1.ConditionTrue, apiaccessv1alpha1.ReasonInvalidSelector, invalid+"; nothing is generated")
	} else {
		set(apiaccessv1alpha1.ConditionInvalid, metav1.ConditionFalse, apiaccessv1alpha1.ReasonValid, "")
	}
	if len(p.conflicts) > 0 {
		set(apiaccessv1alpha1.ConditionConflict, metav1.ConditionTrue, apiaccessv1alpha1.ReasonNotOurs,
			"left untouched, and not bound: "+named(p.conflicts))
	} else {
		set(apiaccessv1alpha1.ConditionConflict, metav1.ConditionFalse, apiaccessv1alpha1.ReasonNoConflict, "")
	}
	if len(p.notAggregated) > 0 {
		set(apiaccessv1alpha1.ConditionNotAggregated, metav1.ConditionTrue, apiaccessv1alpha1.ReasonMissingLabel,
			"roles the bundle provides are used as they are; add the label to aggregate them: "+named(p.notAggregated))
	} else {
		meta.RemoveStatusCondition(&status.Conditions, apiaccessv1alpha1.ConditionNotAggregated)
	}
	switch {
	case invalid != "":
		set(apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonInvalidSelector,
			"the policy is invalid: access to the selected CRDs is not granted")
	case policy.Spec.Mode == apiaccessv1alpha1.ModeUnmanaged:
		set(apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonUnmanaged, unmanagedMessage(crds))
	default:
		message := fmt.Sprintf("%s mode: %d CRDs, %d roles and bindings generated", policy.Spec.Mode, len(crds), len(objects))
		if len(p.bundleRoles) > 0 {
			message += fmt.Sprintf("; %d roles the bundles provide are used: %s", len(p.bundleRoles), named(p.bundleRoles))
		}
		if len(p.awaiting) > 0 {
			message += "; " + awaitingMessage(p.awaiting)
		}
		if len(p.missingNamespaces) > 0 {
			message += fmt.Sprintf("; %d RoleBindings are not created, their namespace does not exist: %s (one created now is not bound in until the spec "+
				"is written again: the access-grants check refuses a namespace that does not exist, whoever created it would get the bindings)",
				len(p.missingNamespaces), named(p.missingNamespaces))
		}
		if truncated {
			message += fmt.Sprintf("; status.managedObjects lists the first %d (list them all with -l %s=%s)",
				MaxManagedObjects, apiaccessv1alpha1.PolicyLabel, policy.Name)
		}
		if len(p.replaced) > 0 {
			set(apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonNamespacesReplaced, fmt.Sprintf(
				"namespaces %s were deleted and re-created (or first created) after this spec was written; nothing is bound there until the spec is written again, "+
					"which has the access-grants check judge them anew: change the spec, or delete and re-create the policy; %s",
				named(p.replaced), message))
			break
		}
		set(apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionTrue, apiaccessv1alpha1.ReasonManaged, message)
	}
	if len(failures) > 0 {
		// Said first: what the policy grants is not what the cluster holds.
		managed := meta.FindStatusCondition(status.Conditions, apiaccessv1alpha1.ConditionRBACManaged)
		set(apiaccessv1alpha1.ConditionRBACManaged, metav1.ConditionFalse, apiaccessv1alpha1.ReasonWriteFailed, fmt.Sprintf(
			"the API server refused %d writes, retried with backoff; everything else is written: %s; %s", len(failures), named(failures), managed.Message))
	}
	return status
}

func unmanagedMessage(crds []*apiextensionsv1.CustomResourceDefinition) string {
	if len(crds) == 0 {
		return "Unmanaged mode: nothing is generated; the policy selects no CRD"
	}
	names := make([]string, 0, len(crds))
	for _, crd := range crds {
		names = append(names, crd.Name)
	}
	return fmt.Sprintf("Unmanaged mode: nothing is generated; access to the APIs of these %d CRDs is the cluster admin's to grant: %s",
		len(crds), named(names))
}

// managedObjects are the policy's roles and bindings, sorted by kind,
// namespace and name.
func managedObjects(p *plan) []apiaccessv1alpha1.ManagedObject {
	var out []apiaccessv1alpha1.ManagedObject
	for _, r := range p.roles {
		out = append(out, apiaccessv1alpha1.ManagedObject{Kind: "ClusterRole", Name: r.desired.Name})
	}
	for _, b := range p.clusterBindings {
		out = append(out, apiaccessv1alpha1.ManagedObject{Kind: "ClusterRoleBinding", Name: b.desired.Name})
	}
	for _, b := range p.bindings {
		out = append(out, apiaccessv1alpha1.ManagedObject{Kind: "RoleBinding", Namespace: b.desired.Namespace, Name: b.desired.Name})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// named lists up to maxNamed items and counts the rest.
func named(items []string) string { return conditions.Named(items, maxNamed) }

// recordTransitions emits an event for each condition whose status or
// reason changed: a warning when it turned abnormal.
func recordTransitions(recorder events.Recorder, policy *apiaccessv1alpha1.APIAccessPolicy, old, updated []metav1.Condition) {
	for _, c := range updated {
		before := meta.FindStatusCondition(old, c.Type)
		if before != nil && before.Status == c.Status && before.Reason == c.Reason {
			continue
		}
		abnormal := c.Status == metav1.ConditionTrue
		if c.Type == apiaccessv1alpha1.ConditionRBACManaged {
			abnormal = c.Status == metav1.ConditionFalse
		}
		if abnormal {
			recorder.Warningf("APIAccessPolicy"+c.Type, "APIAccessPolicy %s: %s=%s (%s): %s", policy.Name, c.Type, c.Status, c.Reason, c.Message)
		} else if before != nil {
			recorder.Eventf("APIAccessPolicy"+c.Type, "APIAccessPolicy %s: %s=%s (%s)", policy.Name, c.Type, c.Status, c.Reason)
		}
	}
}

// updateStatus writes only a status that changed: a resync of a settled
// policy costs reads, not writes.
func (c *controller) updateStatus(ctx context.Context, policy *apiaccessv1alpha1.APIAccessPolicy, status *apiaccessv1alpha1.APIAccessPolicyStatus) error {
	if equality.Semantic.DeepEqual(&policy.Status, status) {
		return nil
	}
	updated := policy.DeepCopy()
	updated.Status = *status
	_, err := c.policyClient.APIAccessPolicies().UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	return err
}
