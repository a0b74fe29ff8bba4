package iamrole

import (
	"fmt"
	"strings"

	podidentityv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/podidentity/v1alpha1"
)

// BoundaryPathPrefix begins the path of every permissions boundary the
// operator's IAM grant lets it put on a role
// (arn:*:iam::*:policy/workload-access/*): the admin creates that policy,
// so no role the operator makes can do more than the admin approved.
const BoundaryPathPrefix = "/workload-access/"

// BoundaryProblem is why a permissions boundary cannot be used on AWS IAM,
// with the Provisioned reason and a message that says what to do.
type BoundaryProblem struct {
	Reason, Message string
}

// CheckBoundary says whether boundary, the WorkloadAccess's
// spec.podIdentity.roles.permissionsBoundary, is one AWS IAM lets the
// operator's grant use for a role in partition and, once known, account
// ("" before the operator has asked STS): nil when it is. Nothing is asked
// of IAM: a boundary that fails here would only earn an AccessDenied.
func CheckBoundary(boundary, partition, account string) *BoundaryProblem {
	if boundary == "" {
		return &BoundaryProblem{podidentityv1alpha1.ReasonPermissionsBoundaryNotSet,
			"spec.podIdentity.roles.permissionsBoundary of WorkloadAccess cluster is empty, and on AWS IAM the operator creates roles only with a permissions boundary " +
				"(its CredentialsRequest workload-access-iam allows no other): " + boundaryStep(partition, account, "")}
	}
	// arn:<partition>:iam::<account>:policy/<path>/<name>
	fields := strings.SplitN(boundary, ":", 6)
	// An ARN is printable ASCII without spaces; IAM names no account,
	// path or policy otherwise.
	unprintable := strings.IndexFunc(boundary, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0
	if unprintable || len(fields) != 6 || fields[0] != "arn" || fields[2] != "iam" || fields[3] != "" || !strings.HasPrefix(fields[5], "policy/") {
		return &BoundaryProblem{podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, fmt.Sprintf(
			"spec.podIdentity.roles.permissionsBoundary %q is not the ARN of a managed IAM policy: %s", boundary, boundaryStep(partition, account, ""))}
	}
	policyPath := strings.TrimPrefix(fields[5], "policy")
	name := strings.TrimPrefix(policyPath, BoundaryPathPrefix)
	switch {
	case !strings.HasPrefix(policyPath, BoundaryPathPrefix) || name == "" || strings.HasSuffix(name, "/"):
		return &BoundaryProblem{podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, fmt.Sprintf(
			"spec.podIdentity.roles.permissionsBoundary %s is not under the policy path %s, the only boundaries the CredentialsRequest workload-access-iam lets the operator put on a role: %s",
			boundary, BoundaryPathPrefix, boundaryStep(partition, account, fields[4]))}
	case !isAccountID(fields[4]):
		return &BoundaryProblem{podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, fmt.Sprintf(
			"spec.podIdentity.roles.permissionsBoundary %s names the account %q, which is not a 12-digit AWS account ID: %s",
			boundary, fields[4], boundaryStep(partition, account, ""))}
	case fields[1] != partition:
		return &BoundaryProblem{podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, fmt.Sprintf(
			"spec.podIdentity.roles.permissionsBoundary %s is in the partition %s, and the cluster's region is in %s, where IAM would not find it: name the policy as arn:%s:iam::%s:policy%s%s",
			boundary, fields[1], partition, partition, fields[4], BoundaryPathPrefix, name)}
	case account != "" && fields[4] != account:
		return &BoundaryProblem{podidentityv1alpha1.ReasonPermissionsBoundaryNotAllowed, fmt.Sprintf(
			"spec.podIdentity.roles.permissionsBoundary %s is a policy of the account %s, and the operator's credentials are of the account %s, whose roles can carry only that account's policies: %s",
			boundary, fields[4], account, boundaryStep(partition, account, account))}
	}
	return nil
}

// isAccountID says whether s is an AWS account ID: 12 digits.
func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// boundaryStep is the day-1 step that makes a usable boundary, as commands
// an admin can paste (docs/aws-roles.md gives the policy document).
func boundaryStep(partition, account, knownAccount string) string {
	if account == "" {
		account = knownAccount
	}
	if account == "" {
		account = "<account>"
	}
	return fmt.Sprintf("create a managed policy under the path %s that allows at most what any workload role may do "+
		"(`aws iam create-policy --path %s --policy-name workload-access-boundary --policy-document file://boundary.json`), then "+
		"`oc patch workloadaccess cluster --type merge -p '{\"spec\":{\"podIdentity\":{\"roles\":{\"permissionsBoundary\":\"arn:%s:iam::%s:policy%sworkload-access-boundary\"}}}}'` "+
		"(docs/aws-roles.md, day 1)", BoundaryPathPrefix, BoundaryPathPrefix, partition, account, BoundaryPathPrefix)
}
