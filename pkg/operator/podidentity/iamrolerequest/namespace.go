package iamrolerequest

import (
	"context"
	"fmt"
	"time"

	"github.com/openshift/library-go/pkg/controller/factory"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// A role trusts a ServiceAccount by namespace and name, so whoever holds the
// namespace holds the role. The operator ties a request to one namespace
// instance, by UID (status.namespaceUID): the one that existed when the
// request was made, or one an admin confirmed later with the annotation
// podidentity.openshift.io/confirmed-namespace-uid, which a namespace's
// creator cannot set. Before the pin nothing is made; once the pinned
// namespace is deleted or replaced, the role is deleted.

// verdict is what the namespace means for the request's role.
type verdict struct {
	// pin is the namespace UID the role may trust: the request's pin, or the
	// namespace's UID when it is pinned (or re-pinned) now.
	pin string
	// reason is empty when the role may be made and linked; else one of the
	// namespace reasons, message says why and what to do, and what is why in
	// a few words, for an Event.
	reason, message, what string
}

func (v verdict) trusted() bool { return v.reason == "" }

// revokes says whether the reason is about a namespace the role trusted.
func revokes(reason string) bool {
	return reason == podidentityv1alpha1.ReasonNamespaceDeleted || reason == podidentityv1alpha1.ReasonNamespaceReplaced
}

// judge decides, from the request and its namespace as listed now (nil when
// absent), whether the role may trust that namespace. A namespace created in
// the same second as the request counts as older: creation timestamps are
// whole seconds.
func judge(request *podidentityv1alpha1.IAMRoleRequest, ns *corev1.Namespace) verdict {
	pinned := request.Status.NamespaceUID
	confirmed := request.Annotations[podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation]
	live := ns != nil && ns.DeletionTimestamp == nil
	if live && ns.UID != "" {
		uid := string(ns.UID)
		if uid == pinned || uid == confirmed || (pinned == "" && !ns.CreationTimestamp.After(request.CreationTimestamp.Time)) {
			return verdict{pin: uid}
		}
	}
	ref := request.Spec.Storage.ServiceAccount
	sa := ref.Namespace + "/" + ref.Name
	confirm := "only if it is the namespace this role is meant for, confirm it: " + confirmCommand(request)
	v := verdict{pin: pinned}
	switch {
	case pinned == "" && !live:
		v.reason = podidentityv1alpha1.ReasonNamespaceMissing
		v.what = fmt.Sprintf("namespace %s %s", ref.Namespace, absence(ns))
		v.message = fmt.Sprintf("%s, so no IAM role is made and ServiceAccount %s is neither created nor annotated: "+
			"the role would trust whoever creates the namespace (any user may, with OpenShift's self-provisioner). "+
			"Once it exists, and %s. The operator checks again every minute", v.what, sa, confirm)
	case pinned == "":
		v.reason = podidentityv1alpha1.ReasonNamespaceNotConfirmed
		v.what = fmt.Sprintf("namespace %s (UID %s) was created after the request and no admin confirmed it", ref.Namespace, ns.UID)
		v.message = fmt.Sprintf("namespace %s (UID %s) was created at %s, after this request (%s): whoever created it controls its ServiceAccounts, and any user may create namespaces, "+
			"so no IAM role is made and ServiceAccount %s is neither created nor annotated. Only if it is the namespace this role is meant for, confirm it: %s",
			ref.Namespace, ns.UID, stamp(ns.CreationTimestamp), stamp(request.CreationTimestamp), sa, confirmCommand(request))
	case !live:
		v.reason = podidentityv1alpha1.ReasonNamespaceDeleted
		v.what = fmt.Sprintf("namespace %s (UID %s), which the role trusted, %s", ref.Namespace, pinned, deletedOrGoing(ns))
		v.message = fmt.Sprintf("%s: the request's IAM role is deleted and none is made, so that whoever creates a namespace of that name does not get it. "+
			"To have the role again, create the namespace and, %s; or delete this request. The operator checks again every minute", v.what, confirm)
	default:
		v.reason = podidentityv1alpha1.ReasonNamespaceReplaced
		v.what = fmt.Sprintf("namespace %s is another namespace now (UID %s), not the one the role trusted (UID %s)", ref.Namespace, ns.UID, pinned)
		v.message = fmt.Sprintf("namespace %s is another namespace now (UID %s, created at %s), not the one the role trusted (UID %s): "+
			"the request's IAM role is deleted and none is made, and ServiceAccount %s is neither created nor annotated. "+
			"Only if the new namespace is the one this role is meant for, confirm it: %s; or delete this request",
			ref.Namespace, ns.UID, stamp(ns.CreationTimestamp), pinned, sa, confirmCommand(request))
	}
	return v
}

// confirmCommand is the admin's command that confirms the namespace as it
// is when they run it.
func confirmCommand(request *podidentityv1alpha1.IAMRoleRequest) string {
	return fmt.Sprintf("`oc annotate --overwrite iamrolerequest %s %s=$(oc get namespace %s -o jsonpath='{.metadata.uid}')`",
		request.Name, podidentityv1alpha1.ConfirmedNamespaceUIDAnnotation, request.Spec.Storage.ServiceAccount.Namespace)
}

func absence(ns *corev1.Namespace) string {
	if ns != nil {
		return "is being deleted"
	}
	return "does not exist"
}

func deletedOrGoing(ns *corev1.Namespace) string {
	if ns != nil {
		return "is being deleted"
	}
	return "was deleted"
}

func stamp(t metav1.Time) string { return t.UTC().Format(time.RFC3339) }

// namespaceNamed lists the namespace by name (nil when absent): the operator
// may list and watch namespaces, not get them.
func (c *controller) namespaceNamed(ctx context.Context, name string) (*corev1.Namespace, error) {
	list, err := c.namespaces.Namespaces().List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		if list.Items[i].Name == name {
			return &list.Items[i], nil
		}
	}
	return nil, nil
}

// withhold reports a request whose namespace the role may not trust: it makes
// no role and writes no ServiceAccount, and deletes a role the request may
// hold (one made for a namespace since deleted or replaced, or before the pin
// existed, on an upgrade), with finalize's deletion: only a role whose
// request-uid tag is this request's. The request keeps its finalizer. A
// Warning Event says when a role is deleted, or a trusted namespace goes.
func (c *controller) withhold(ctx context.Context, syncCtx factory.SyncContext, request *podidentityv1alpha1.IAMRoleRequest, status *podidentityv1alpha1.IAMRoleRequestStatus, v verdict) error {
	previous := meta.FindStatusCondition(request.Status.Conditions, podidentityv1alpha1.ConditionProvisioned)
	revokedBefore := previous != nil && revokes(previous.Reason) && status.RoleARN == ""
	message := v.message
	var deleted string
	var f *awscall.Failure
	if (status.RoleARN != "" || status.NamespaceUID != "") && !revokedBefore {
		if deleted, f = c.revoke(ctx, request); f != nil {
			message += ". Deleting the role failed, and is retried: " + f.Message
		} else {
			status.RoleARN = ""
		}
	}
	for _, conditionType := range []string{podidentityv1alpha1.ConditionProvisioned, podidentityv1alpha1.ConditionServiceAccountLinked} {
		setCondition(status, request.Generation, metav1.Condition{Type: conditionType, Status: metav1.ConditionFalse, Reason: v.reason, Message: message})
	}
	entered := previous == nil || previous.Reason != v.reason
	switch {
	case deleted != "":
		c.events.Eventf(request, corev1.EventTypeWarning, v.reason, "Deleted IAM role %s: %s (see the Provisioned condition)", deleted, v.what)
	case entered && f != nil:
		c.events.Eventf(request, corev1.EventTypeWarning, v.reason, "Deleting the IAM role failed, and is retried: %s (see the Provisioned condition)", v.what)
	case entered && revokes(v.reason):
		c.events.Eventf(request, corev1.EventTypeWarning, v.reason, "No IAM role until an admin confirms a namespace: %s (see the Provisioned condition)", v.what)
	}
	if err := c.writeStatus(ctx, request, status); err != nil {
		return err
	}
	if f != nil {
		// Retried with backoff (see retry); a failure that is not (pod
		// identity turned off with a role standing) is looked at again with
		// the namespace.
		if !f.Retry {
			syncCtx.Queue().AddAfter(request.Name, waitingRecheck)
		}
		return unrevoked(request, f)
	}
	syncCtx.Queue().AddAfter(request.Name, waitingRecheck)
	return nil
}

// revoke deletes the request's role, returning its ARN when it deleted one.
// A request that never got a role and cannot reach IAM (pod identity off,
// no credentials) has nothing to delete, as in finalize.
func (c *controller) revoke(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) (string, *awscall.Failure) {
	deleted, f := c.deleteRole(ctx, request)
	if f != nil && request.Status.RoleARN == "" && (f.Reason == podidentityv1alpha1.ReasonPlatformNotSupported || f.Reason == podidentityv1alpha1.ReasonCredentialsMissing) {
		return "", nil
	}
	return deleted, f
}
