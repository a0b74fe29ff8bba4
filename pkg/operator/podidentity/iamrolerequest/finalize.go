package iamrolerequest

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/iamrole"
)

// finalize deletes the role (only when its uid tag is the request's) and
// its inline policy, removes the annotations the request added, then the
// finalizer. Until IAM answers, the request stays, with Provisioned saying
// why; a request that never got a role (RoleARN empty) and cannot reach IAM
// (pod identity off, no credentials) is let go.
func (c *controller) finalize(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) error {
	if !slices.Contains(request.Finalizers, Finalizer) {
		return nil
	}
	deleted, refused, f := c.deleteRole(ctx, request)
	if f != nil {
		if request.Status.RoleARN == "" && (f.Reason == podidentityv1alpha1.ReasonPlatformNotSupported || f.Reason == podidentityv1alpha1.ReasonCredentialsMissing) {
			return c.removeFinalizer(ctx, request)
		}
		status := request.Status.DeepCopy()
		setCondition(status, request.Generation, metav1.Condition{Type: podidentityv1alpha1.ConditionProvisioned, Status: metav1.ConditionFalse,
			Reason: f.Reason, Message: "deleting the role: " + f.Message + "; the request keeps its finalizer " + Finalizer +
				" until the role is deleted (removing the finalizer by hand leaves the role in IAM)"})
		if err := c.writeStatus(ctx, request, status); err != nil {
			return err
		}
		return f
	}
	if deleted != "" {
		c.events.Eventf(request, corev1.EventTypeNormal, "RoleDeleted", "Deleted IAM role %s", deleted)
	}
	if refused != "" && request.Status.RoleARN != "" {
		// Keeping the finalizer would hold the request for ever; letting it go
		// says which role to look for, in case the grant was narrowed instead.
		c.events.Eventf(request, corev1.EventTypeWarning, "RoleNotFound",
			"IAM refused iam:GetRole on role %s, which under the operator's grant means it no longer exists; the request is let go (if the grant was narrowed instead, delete %s by hand)",
			refused, request.Status.RoleARN)
	}
	if err := c.unlink(ctx, request); err != nil {
		return err
	}
	return c.removeFinalizer(ctx, request)
}

// deleteRole deletes the request's role and its inline policy, when the
// role's request-uid tag is the request's, and returns its ARN; a role that
// does not exist, or is someone else's, is left alone. refused names the role
// when IAM refused to read it, which under the operator's grant means it does
// not exist (see mayBeAbsent): deleted by hand, or by an earlier pass whose
// answer was lost.
func (c *controller) deleteRole(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) (deleted, refused string, f *awscall.Failure) {
	env, f := c.environment(false)
	if f != nil {
		return "", "", f
	}
	client, _, f := c.connect(ctx, env.conn, env.creds)
	if f != nil {
		return "", "", f
	}
	name := iamrole.RoleName(env.infrastructureName, request.Name)
	got, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if isNoSuchEntity(err) {
		return "", "", nil
	}
	if mayBeAbsent(err) {
		return "", name, nil
	}
	if err != nil {
		return "", "", describe("iam:GetRole", "role "+name, err, env.creds)
	}
	if ownership(got.Role, request) != nil {
		return "", "", nil // someone else's role of that name: never touched
	}
	_, err = client.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(iamrole.PolicyName)})
	if err != nil && !isNoSuchEntity(err) {
		return "", "", describe("iam:DeleteRolePolicy", "role "+name, err, env.creds)
	}
	_, err = client.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
	if err != nil && !isNoSuchEntity(err) {
		f := describe("iam:DeleteRole", "role "+name, err, env.creds)
		if awscall.ErrorCode(err) == "DeleteConflict" {
			f.Message += " (detach the policies attached to the role by hand; the operator deletes only its inline policy " + iamrole.PolicyName + ")"
		}
		return "", "", f
	}
	return aws.ToString(got.Role.Arn), "", nil
}

func (c *controller) removeFinalizer(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) error {
	request.Finalizers = slices.DeleteFunc(request.Finalizers, func(f string) bool { return f == Finalizer })
	if _, err := c.requestClient.IAMRoleRequests().Update(ctx, request, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("removing finalizer %s: %w", Finalizer, err)
	}
	return nil
}
