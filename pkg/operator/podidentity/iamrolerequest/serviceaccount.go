package iamrolerequest

import (
	"context"
	"encoding/json"
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
func (c *controller) link(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest, sa *corev1.ServiceAccount, arn string) (metav1.Condition, error) {
	ref := request.Spec.Storage.ServiceAccount
	name := ref.Namespace + "/" + ref.Name
	linked := func(status metav1.ConditionStatus, reason, message string) metav1.Condition {
		return metav1.Condition{Type: podidentityv1alpha1.ConditionServiceAccountLinked, Status: status, Reason: reason, Message: message}
	}
	if arn == "" {
		return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, "the role is not provisioned; see the Provisioned condition"), nil
	}
	uid := string(request.UID)
	done := linked(metav1.ConditionTrue, podidentityv1alpha1.ReasonLinked, fmt.Sprintf("ServiceAccount %s has %s=%s", name, podidentityv1alpha1.RoleARNAnnotation, arn))

	if sa == nil {
		created := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{
			Namespace: ref.Namespace, Name: ref.Name,
			Annotations: map[string]string{podidentityv1alpha1.RoleARNAnnotation: arn, podidentityv1alpha1.LinkedByAnnotation: uid},
			// Garbage collected with the request.
			OwnerReferences: []metav1.OwnerReference{{APIVersion: podidentityv1alpha1.SchemeGroupVersion.String(), Kind: "IAMRoleRequest", Name: request.Name, UID: request.UID}},
		}}
		_, err := c.serviceAccounts.ServiceAccounts(ref.Namespace).Create(ctx, created, metav1.CreateOptions{})
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
			"ServiceAccount %s already names role %s in %s, not %s; the operator never overwrites it: remove the annotation to link the account to this role, or make the request for another ServiceAccount",
			name, current, podidentityv1alpha1.RoleARNAnnotation, arn)), nil
	}
	if err := c.annotate(ctx, ref.Namespace, ref.Name, map[string]*string{podidentityv1alpha1.RoleARNAnnotation: &arn, podidentityv1alpha1.LinkedByAnnotation: &uid}); err != nil {
		return linked(metav1.ConditionFalse, podidentityv1alpha1.ReasonWaitingForRole, fmt.Sprintf("annotating ServiceAccount %s failed: %v", name, err)), err
	}
	c.events.Eventf(request, corev1.EventTypeNormal, "ServiceAccountLinked", "Annotated ServiceAccount %s with %s=%s", name, podidentityv1alpha1.RoleARNAnnotation, arn)
	return done, nil
}

// unlink removes the annotations the request added; an account linked by
// hand or by another request is left as it is. A ServiceAccount the request
// created goes with it through its owner reference.
func (c *controller) unlink(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) error {
	ref := request.Spec.Storage.ServiceAccount
	sa, err := c.serviceAccounts.ServiceAccounts(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading ServiceAccount %s/%s: %w", ref.Namespace, ref.Name, err)
	}
	if sa.Annotations[podidentityv1alpha1.LinkedByAnnotation] != string(request.UID) {
		return nil
	}
	if err := c.annotate(ctx, ref.Namespace, ref.Name, map[string]*string{podidentityv1alpha1.RoleARNAnnotation: nil, podidentityv1alpha1.LinkedByAnnotation: nil}); err != nil {
		return err
	}
	c.events.Eventf(request, corev1.EventTypeNormal, "ServiceAccountUnlinked", "Removed %s from ServiceAccount %s/%s", podidentityv1alpha1.RoleARNAnnotation, ref.Namespace, ref.Name)
	return nil
}

// annotate merge-patches annotations (nil removes one), touching no other.
func (c *controller) annotate(ctx context.Context, namespace, name string, annotations map[string]*string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	_, err = c.serviceAccounts.ServiceAccounts(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("annotating ServiceAccount %s/%s: %w", namespace, name, err)
	}
	return nil
}
