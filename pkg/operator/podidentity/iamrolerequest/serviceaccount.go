package iamrolerequest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// link makes the ServiceAccount name the role: created with an owner
// reference to the request when absent, annotated when present, never
// overwritten when it names another role. The error is for retrying; the
// condition says what happened.
//
// The namespace was judged before the IAM calls, which can take minutes: a
// write is made only to the namespace instance pinned (pin, its UID). So
// the namespace is read again right before a write; the annotation is a
// patch with the UID and resourceVersion of the ServiceAccount read, which
// the API server refuses if that account was replaced since (as it is with
// its namespace); and a create, which no precondition can tie to a
// namespace instance, is followed by another read of the namespace and
// undone (its annotations removed, with the created account's UID and
// resourceVersion as precondition) if the namespace was replaced in
// between. A replaced namespace returns an error: the sync runs again at
// once, judges the namespace, and revokes the role.
func (c *controller) link(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest, ref podidentityv1alpha1.ServiceAccountStorage, sa *corev1.ServiceAccount, arn, pin string) (metav1.Condition, error) {
	name := ref.Namespace + "/" + ref.Name
	linked := func(status metav1.ConditionStatus, reason, message string) metav1.Condition {
		return metav1.Condition{Type: podidentityv1alpha1.ConditionServiceAccountLinked, Status: status, Reason: reason, Message: message}
	}
	if arn == "" {
		return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, "the role is not provisioned; see the Provisioned condition"), nil
	}
	uid := string(request.UID)
	done := linked(metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked, fmt.Sprintf("ServiceAccount %s has %s=%s", name, podidentityv1alpha1.RoleARNAnnotation, arn))

	replaced := func(change string) (metav1.Condition, error) {
		message := fmt.Sprintf("namespace %s %s; ServiceAccount %s is not linked, and the namespace is judged again", ref.Namespace, change, name)
		return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceReplaced, message), errors.New(message)
	}
	if writesAccount(sa, arn, uid) {
		// The namespace must still be the one judged.
		if change, err := c.namespaceChange(ctx, ref.Namespace, pin); err != nil {
			return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, fmt.Sprintf("reading namespace %s before writing ServiceAccount %s: %v", ref.Namespace, name, err)), err
		} else if change != "" {
			return replaced(change + " since it was judged")
		}
	}

	if sa == nil {
		created := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
			Namespace: ref.Namespace, Name: ref.Name,
			Annotations: map[string]string{podidentityv1alpha1.RoleARNAnnotation: arn, podidentityv1alpha1.LinkedByAnnotation: uid},
			// Garbage collected with the request.
			OwnerReferences: []metav1.OwnerReference{{APIVersion: podidentityv1alpha1.SchemeGroupVersion.String(), Kind: "IAMRoleRequest", Name: request.Name, UID: request.UID}},
		}}
		made, err := c.serviceAccounts.ServiceAccounts(ref.Namespace).Create(ctx, created, metav1.CreateOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceMissing, fmt.Sprintf(
				"namespace %s does not exist: create it, and the operator creates ServiceAccount %s in it (it checks again every minute)", ref.Namespace, name)), nil
		case err != nil:
			// Retried with the request's own backoff, not the queue's 5 ms:
			// each pass reads the role from IAM again.
			message := fmt.Sprintf("creating ServiceAccount %s failed: %v", name, err)
			return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, message),
				&awscall.Failure{Reason: podidentityv1alpha1.ReasonWaitingForRole, Message: message + "; retrying with backoff", Retry: true}
		}
		if change, err := c.namespaceChange(ctx, ref.Namespace, pin); change != "" || err != nil {
			// Created, perhaps in another namespace instance: take the link
			// back from that account (the operator deletes no ServiceAccount;
			// the garbage collector removes it with the request).
			if undoErr := c.annotate(ctx, made, map[string]*string{podidentityv1alpha1.RoleARNAnnotation: nil, podidentityv1alpha1.LinkedByAnnotation: nil}); undoErr != nil {
				return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonNamespaceReplaced, fmt.Sprintf(
					"namespace %s may have been replaced while ServiceAccount %s was created, and removing the link from it failed: %v", ref.Namespace, name, undoErr)), undoErr
			}
			if err != nil {
				return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, fmt.Sprintf(
					"reading namespace %s after creating ServiceAccount %s failed, so the link was taken back: %v", ref.Namespace, name, err)), err
			}
			return replaced(change + " while ServiceAccount " + name + " was created; the link was taken back from it")
		}
		c.events.Eventf(request, corev1.EventTypeNormal, "ServiceAccountCreated", "Created ServiceAccount %s with %s=%s", name, podidentityv1alpha1.RoleARNAnnotation, arn)
		return done, nil
	}

	current, linkedBy := sa.Annotations[podidentityv1alpha1.RoleARNAnnotation], sa.Annotations[podidentityv1alpha1.LinkedByAnnotation]
	switch {
	case current == arn && (linkedBy == uid || linkedBy == ""):
		// Already linked, by this request or by hand.
		return done, nil
	case current != "" && linkedBy != uid:
		return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonConflict, fmt.Sprintf(
			"ServiceAccount %s already names role %.300q in %s, not %s; the operator never overwrites it: remove the annotation to link the account to this role, or make the request for another ServiceAccount",
			name, current, podidentityv1alpha1.RoleARNAnnotation, arn)), nil
	}
	if err := c.annotate(ctx, sa, map[string]*string{podidentityv1alpha1.RoleARNAnnotation: &arn, podidentityv1alpha1.LinkedByAnnotation: &uid}); err != nil {
		return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, fmt.Sprintf("annotating ServiceAccount %s failed: %v", name, err)), err
	}
	c.events.Eventf(request, corev1.EventTypeNormal, "ServiceAccountLinked", "Annotated ServiceAccount %s with %s=%s", name, podidentityv1alpha1.RoleARNAnnotation, arn)
	return done, nil
}

// writesAccount says whether link writes the ServiceAccount (nil when absent):
// not when it already names the role, by this request or by hand, nor when
// it names another role (a conflict).
func writesAccount(sa *corev1.ServiceAccount, arn, uid string) bool {
	if sa == nil {
		return true
	}
	current, linkedBy := sa.Annotations[podidentityv1alpha1.RoleARNAnnotation], sa.Annotations[podidentityv1alpha1.LinkedByAnnotation]
	return !(current == arn && (linkedBy == uid || linkedBy == "")) && !(current != "" && linkedBy != uid)
}

// unlink removes the annotations the request added; an account linked by
// hand or by another request is left as it is. A ServiceAccount the request
// created goes with it through its owner reference.
func (c *controller) unlink(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) error {
	if set := request.Spec.Storage.ServiceAccounts; set != nil {
		for _, ns := range request.Status.Namespaces {
			if err := c.unlinkAccount(ctx, request, podidentityv1alpha1.ServiceAccountStorage{Namespace: ns.Name, Name: set.Name}); err != nil {
				return err
			}
		}
		return nil
	}
	return c.unlinkAccount(ctx, request, request.Spec.Storage.ServiceAccount)
}

// unlinkAccount removes the annotations the request added to one
// ServiceAccount.
func (c *controller) unlinkAccount(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest, ref podidentityv1alpha1.ServiceAccountStorage) error {
	sa, err := c.serviceAccounts.ServiceAccounts(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return unlinkFailed(ref, "reading it", err)
	}
	if sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != string(request.UID) {
		return nil
	}
	if err := c.annotate(ctx, sa, map[string]*string{podidentityv1alpha1.RoleARNAnnotation: nil, podidentityv1alpha1.LinkedByAnnotation: nil}); err != nil {
		if apierrors.IsConflict(err) {
			return err // changed since read: read it again at once
		}
		return unlinkFailed(ref, "patching it", err)
	}
	c.events.Eventf(request, corev1.EventTypeNormal, "ServiceAccountUnlinked", "Removed %s from ServiceAccount %s/%s", podidentityv1alpha1.RoleARNAnnotation, ref.Namespace, ref.Name)
	return nil
}

// unlinkFailed is retried with the request's own backoff, not the queue's
// 5 ms: each sync reads IAM again, and a refused write (a policy, a webhook)
// does not pass a few milliseconds later.
func unlinkFailed(ref podidentityv1alpha1.ServiceAccountStorage, doing string, err error) error {
	return &awscall.Failure{Reason: podidentityv1alpha1.ReasonWaitingForRole, Retry: true, Message: fmt.Sprintf(
		"removing %s from ServiceAccount %s/%s: %s failed: %v; retrying with backoff", podidentityv1alpha1.RoleARNAnnotation, ref.Namespace, ref.Name, doing, err)}
}

// annotate merge-patches annotations (nil removes one) of sa as it was
// read, touching no other: its UID and resourceVersion are in the patch, so
// the API server refuses it (Conflict, or Invalid for the UID) if the
// account was replaced or changed since.
func (c *controller) annotate(ctx context.Context, sa *corev1.ServiceAccount, annotations map[string]*string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"uid": sa.UID, "resourceVersion": sa.ResourceVersion, "annotations": annotations}})
	if err != nil {
		return err
	}
	_, err = c.serviceAccounts.ServiceAccounts(sa.Namespace).Patch(ctx, sa.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("annotating ServiceAccount %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return nil
}

// namespaceChange reads the namespace live and says how it differs from the
// instance pinned, "" when it is that one and not being deleted.
func (c *controller) namespaceChange(ctx context.Context, name, pin string) (string, error) {
	ns, err := c.namespaceNamed(ctx, name)
	switch {
	case err != nil:
		return "", err
	case ns == nil:
		return "was deleted", nil
	case string(ns.UID) != pin:
		return fmt.Sprintf("is another namespace now (UID %s, not %s)", ns.UID, pin), nil
	case ns.DeletionTimestamp != nil:
		return "is being deleted", nil
	}
	return "", nil
}
