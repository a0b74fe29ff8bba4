package issuerpublisher

import (
	"strings"

	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

// PodIdentityAvailable puts, where admins look (the ClusterOperator's
// Available message, `oc get clusteroperator workload-access`), what is
// wrong with pod identity without anything failing: the cluster's issuer
// is not the published one, so AWS STS refuses every token; or the issuer
// bucket's policy, which the operator keeps, lets anyone rewrite the keys
// or refuses them to readers. It stays True. The operator's parts all work and the fix is the cluster's
// configuration (docs/admission.md, "The cluster's issuer"); Available=False
// would page as ClusterOperatorDown, and Degraded is for the operator's own
// sustained failures, which a cluster that never opted in to STS (pod
// identity is Auto on AWS) does not have.
const PodIdentityAvailable = "PodIdentityAvailable"

// The runbooks the message sends the admin to.
const (
	IssuerMismatchRunbook     = "https://github.com/openshift/cluster-workload-access-operator/blob/main/docs/runbooks/WorkloadAccessServiceAccountIssuerMismatch.md"
	BucketPolicyUnsafeRunbook = "https://github.com/openshift/cluster-workload-access-operator/blob/main/docs/runbooks/WorkloadAccessIssuerBucketPolicyUnsafe.md"
)

// availableCondition derives PodIdentityAvailable from the
// ServiceAccountIssuerMatches and IssuerBucketPolicySafe conditions: a
// message only while the issuer is published and the cluster's differs
// from it, or while the bucket policy was read and found unsafe (policy is
// nil before it is read).
func availableCondition(matches, policy conditions.Condition) conditions.Condition {
	var reasons, messages []string
	if reason := ptr.Deref(matches.Reason, ""); ptr.Deref(matches.Status, "") == operatorv1.ConditionFalse &&
		(reason == ReasonIssuerDiffers || reason == ReasonAuthenticationAbsent) {
		reasons = append(reasons, reason)
		messages = append(messages, "pod identity injects AWS credentials that AWS STS refuses: "+ptr.Deref(matches.Message, "")+
			"; to make the cluster's tokens valid for STS, see "+IssuerMismatchRunbook)
	}
	if policy != nil {
		if reason := ptr.Deref(policy.Reason, ""); ptr.Deref(policy.Status, "") == operatorv1.ConditionFalse &&
			(reason == ReasonPolicyGrantsEveryoneMore || reason == ReasonPolicyDeniesAnonymousRead) {
			reasons = append(reasons, "IssuerBucketPolicy"+reason)
			messages = append(messages, ptr.Deref(policy.Message, "")+"; to remove them, see "+BucketPolicyUnsafeRunbook)
		}
	}
	if len(reasons) == 0 {
		return condition(PodIdentityAvailable, operatorv1.ConditionTrue, conditions.AsExpected, "")
	}
	return condition(PodIdentityAvailable, operatorv1.ConditionTrue, strings.Join(reasons, "And"), strings.Join(messages, "; and "))
}
