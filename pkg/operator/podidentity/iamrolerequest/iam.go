package iamrolerequest

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/iam"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
	"github.com/openshift/cluster-workload-access-operator/pkg/operator/podidentity/awscall"
)

// iamAPI is the part of IAM the controller calls, and nothing more: the
// CredentialsRequest workload-access-iam grants exactly these.
type iamAPI interface {
	GetOpenIDConnectProvider(context.Context, *iam.GetOpenIDConnectProviderInput, ...func(*iam.Options)) (*iam.GetOpenIDConnectProviderOutput, error)
	GetRole(context.Context, *iam.GetRoleInput, ...func(*iam.Options)) (*iam.GetRoleOutput, error)
	CreateRole(context.Context, *iam.CreateRoleInput, ...func(*iam.Options)) (*iam.CreateRoleOutput, error)
	TagRole(context.Context, *iam.TagRoleInput, ...func(*iam.Options)) (*iam.TagRoleOutput, error)
	UpdateAssumeRolePolicy(context.Context, *iam.UpdateAssumeRolePolicyInput, ...func(*iam.Options)) (*iam.UpdateAssumeRolePolicyOutput, error)
	PutRolePermissionsBoundary(context.Context, *iam.PutRolePermissionsBoundaryInput, ...func(*iam.Options)) (*iam.PutRolePermissionsBoundaryOutput, error)
	GetRolePolicy(context.Context, *iam.GetRolePolicyInput, ...func(*iam.Options)) (*iam.GetRolePolicyOutput, error)
	PutRolePolicy(context.Context, *iam.PutRolePolicyInput, ...func(*iam.Options)) (*iam.PutRolePolicyOutput, error)
	DeleteRolePolicy(context.Context, *iam.DeleteRolePolicyInput, ...func(*iam.Options)) (*iam.DeleteRolePolicyOutput, error)
	DeleteRole(context.Context, *iam.DeleteRoleInput, ...func(*iam.Options)) (*iam.DeleteRoleOutput, error)
}

func isNoSuchEntity(err error) bool { return awscall.ErrorCode(err) == "NoSuchEntity" }

var throttlingCodes = map[string]bool{
	"Throttling": true, "ThrottlingException": true, "RequestLimitExceeded": true,
	"TooManyRequestsException": true, "RequestThrottled": true, "SlowDown": true,
}

// deniedCodes, and awscall.CredentialsRefused, say the credentials may not
// make the call.
var deniedCodes = map[string]bool{
	"AccessDenied": true, "AccessDeniedException": true, "UnauthorizedOperation": true,
}

// describe turns a failed call into the Provisioned reason and a message:
// the call and what it was on, IAM's code and message, and what to do.
// Request IDs and URLs are left out (they would change the message, and so
// the status, at every retry) and the credentials are scrubbed.
func describe(call, on string, err error, creds awscall.Credentials) *awscall.Failure {
	where := call + " on " + on
	code, text, answered := awscall.Answer(err)
	if !answered {
		return &awscall.Failure{Reason: podidentityv1alpha1.ReasonIAMError, Message: creds.Scrub(fmt.Sprintf("%s: no answer: %s; retrying with backoff", where, awscall.Unanswered(err))), Retry: true}
	}
	said := awscall.Said(code, text)
	switch {
	case throttlingCodes[code]:
		return &awscall.Failure{Reason: podidentityv1alpha1.ReasonThrottled, Message: creds.Scrub(fmt.Sprintf(
			"%s: %s: IAM throttled the operator; it retries with backoff (other callers in the AWS account share IAM's rate limit)", where, said)), Retry: true}
	case deniedCodes[code] || awscall.CredentialsRefused(code):
		return &awscall.Failure{Reason: podidentityv1alpha1.ReasonAccessDenied, Message: creds.Scrub(fmt.Sprintf(
			"%s: %s: the operator's IAM credentials (Secret %s/%s, from the CredentialsRequest %s) must allow %s on it%s; retrying with backoff",
			where, said, operatorclient.OperatorNamespace, CredentialsSecret, CredentialsSecret, call, deniedHint(call, on))), Retry: true}
	case code == "MalformedPolicyDocument" && strings.Contains(call, "PutRolePolicy"):
		return &awscall.Failure{Reason: podidentityv1alpha1.ReasonInvalidPolicy, Message: creds.Scrub(fmt.Sprintf(
			"%s: %s: IAM refuses spec.providerSpec.statementEntries as a policy; fix them", where, said))}
	}
	return &awscall.Failure{Reason: podidentityv1alpha1.ReasonIAMError, Message: creds.Scrub(fmt.Sprintf("%s: %s; retrying with backoff", where, said)), Retry: true}
}

// deniedHint says what the shipped grant requires of a role it allows.
func deniedHint(call, on string) string {
	switch call {
	case "iam:CreateRole", "iam:PutRolePermissionsBoundary":
		return " (the CredentialsRequest workload-access-iam allows it only with a permissions boundary under arn:<partition>:iam::<account>:policy/workload-access/: " +
			"set spec.podIdentity.roles.permissionsBoundary of the WorkloadAccess to such a policy)"
	case "iam:TagRole":
		return " (the CredentialsRequest workload-access-iam allows it for tag keys under openshift.io/workload-access/ and kubernetes.io/cluster/ only)"
	case "iam:UpdateAssumeRolePolicy", "iam:PutRolePolicy", "iam:DeleteRolePolicy", "iam:DeleteRole":
		return " (the CredentialsRequest workload-access-iam allows it only on a role whose permissions boundary is under arn:<partition>:iam::<account>:policy/workload-access/: " +
			"if the role's boundary was removed in IAM, put it back with `aws iam put-role-permissions-boundary --role-name " + strings.TrimPrefix(on, "role ") +
			" --permissions-boundary <spec.podIdentity.roles.permissionsBoundary of the WorkloadAccess>`)"
	}
	return ""
}
