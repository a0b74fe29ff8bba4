package iamrolerequest

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
// finalizer. Until IAM answers that the role is gone, the request stays,
// with Provisioned saying why and IAMRoleRequestDegraded set (unrevoked); a
// request that never got a role (RoleARN empty) and cannot reach IAM (pod
// identity off, no credentials) is let go.
func (c *controller) finalize(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) error {
	if !slices.Contains(request.Finalizers, Finalizer) {
		return nil
	}
	deleted, f := c.deleteRole(ctx, request)
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
		return unrevoked(request, f)
	}
	if deleted != "" {
		c.events.Eventf(request, corev1.EventTypeNormal, "RoleDeleted", "Deleted IAM role %s", deleted)
	}
	if err := c.unlink(ctx, request); err != nil {
		return err
	}
	return c.removeFinalizer(ctx, request)
}

// deleteRole deletes the request's role and its inline policy, when the
// role's request-uid tag is the request's, and returns its ARN; a role that
// IAM says does not exist (NoSuchEntity), or is someone else's, is left
// alone. A refused GetRole (AccessDenied) proves nothing: under the shipped
// grant IAM refuses it for a role that no longer exists (mayBeAbsent), but
// also when the grant was narrowed or an SCP denies it, and then the role
// and its trust stand. So it is taken as "no role" only for a request that
// never recorded one (RoleARN empty: nothing was made, or the role's ARN
// was never stored, see provision); a request with an ARN keeps it, and its
// finalizer, and is retried until IAM answers, or an admin who saw the role
// gone removes the finalizer.
func (c *controller) deleteRole(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) (deleted string, f *awscall.Failure) {
	env, f := c.environment(false)
	if f != nil {
		return "", f
	}
	client, _, f := c.connect(ctx, env.conn, env.creds)
	if f != nil {
		return "", f
	}
	name := iamrole.RoleName(env.infrastructureName, request.Name)
	got, err := client.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(name)})
	if isNoSuchEntity(err) {
		return "", nil
	}
	if mayBeAbsent(err) && request.Status.RoleARN == "" {
		return "", nil
	}
	if mayBeAbsent(err) {
		return "", unreadableRole(request, name, describe("iam:GetRole", "role "+name, err, env.creds))
	}
	if err != nil {
		return "", describe("iam:GetRole", "role "+name, err, env.creds)
	}
	if ownership(got.Role, request) != nil {
		return "", nil // someone else's role of that name: never touched
	}
	_, err = client.DeleteRolePolicy(ctx, &iam.DeleteRolePolicyInput{RoleName: aws.String(name), PolicyName: aws.String(iamrole.PolicyName)})
	if err != nil && !isNoSuchEntity(err) {
		return "", describe("iam:DeleteRolePolicy", "role "+name, err, env.creds)
	}
	_, err = client.DeleteRole(ctx, &iam.DeleteRoleInput{RoleName: aws.String(name)})
	if err != nil && !isNoSuchEntity(err) {
		f := describe("iam:DeleteRole", "role "+name, err, env.creds)
		if awscall.ErrorCode(err) == "DeleteConflict" {
			f.Message += " (detach the policies attached to the role by hand; the operator deletes only its inline policy " + iamrole.PolicyName + ")"
		}
		return "", f
	}
	return aws.ToString(got.Role.Arn), nil
}

// unreadableRole says what a refused GetRole of a role the request recorded
// means, and what to do.
func unreadableRole(request *podidentityv1alpha1.IAMRoleRequest, name string, f *awscall.Failure) *awscall.Failure {
	f.Message = fmt.Sprintf("IAM refused to read role %s (%s), which this request recorded as %s: either the role is gone "+
		"(under the shipped grant, limited to role/workload-access/*, IAM refuses iam:GetRole for a role that does not exist) or the operator's grant was narrowed "+
		"or a service control policy denies iam:GetRole, and the role still trusts %s. The operator keeps status.roleARN and the finalizer and retries with backoff. "+
		"If `aws iam get-role --role-name %s`, run as an admin of the account, answers NoSuchEntity, remove the finalizer %s "+
		"(as someone who may write ServiceAccounts in %s); otherwise restore iam:GetRole on arn:<partition>:iam::<account>:role/workload-access/* to the operator's credentials",
		name, f.Message, request.Status.RoleARN, trusteeOf(request), name, Finalizer, whereOf(request))
	f.Retry = true
	return f
}

func (c *controller) removeFinalizer(ctx context.Context, request *podidentityv1alpha1.IAMRoleRequest) error {
	request.Finalizers = slices.DeleteFunc(request.Finalizers, func(f string) bool { return f == Finalizer })
	if _, err := c.requestClient.IAMRoleRequests().Update(ctx, request, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("removing finalizer %s: %w", Finalizer, err)
	}
	return nil
}

// trusteeOf names whom the request's role trusts, for messages.
func trusteeOf(request *podidentityv1alpha1.IAMRoleRequest) string {
	if set := request.Spec.Storage.ServiceAccounts; set != nil {
		return fmt.Sprintf("ServiceAccount %s in the namespaces of the set", set.Name)
	}
	ref := request.Spec.Storage.ServiceAccount
	return fmt.Sprintf("ServiceAccount %s/%s", ref.Namespace, ref.Name)
}

// whereOf names where ServiceAccounts must be writable to let the request
// go, as the access-grants check asks.
func whereOf(request *podidentityv1alpha1.IAMRoleRequest) string {
	switch set := request.Spec.Storage.ServiceAccounts; {
	case set == nil:
		return "namespace " + request.Spec.Storage.ServiceAccount.Namespace
	case set.NamespaceSelector != nil:
		return "every namespace"
	default:
		return "namespaces " + strings.Join(set.Namespaces, ", ")
	}
}
