package issuerpublisher

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	"k8s.io/utils/ptr"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/conditions"
)

// PodIdentityAvailable puts, where admins look (the ClusterOperator's
// Available message, `oc get clusteroperator workload-access`), the one
// thing that makes pod identity useless without anything failing: the
// cluster's issuer is not the published one, so AWS STS refuses every token.
// It stays True. The operator's parts all work and the fix is the cluster's
// configuration (docs/admission.md, "The cluster's issuer"); Available=False
// would page as ClusterOperatorDown, and Degraded is for the operator's own
// sustained failures, which a cluster that never opted in to STS (pod
// identity is Auto on AWS) does not have.
const PodIdentityAvailable = "PodIdentityAvailable"

// IssuerMismatchRunbook is where the message sends the admin.
const IssuerMismatchRunbook = "https://github.com/openshift/cluster-workload-access-operator/blob/main/docs/runbooks/WorkloadAccessServiceAccountIssuerMismatch.md"

// availableCondition derives PodIdentityAvailable from the
// ServiceAccountIssuerMatches condition: a message only while the issuer
// is published and the cluster's differs from it.
func availableCondition(matches conditions.Condition) conditions.Condition {
	reason := ptr.Deref(matches.Reason, "")
	if ptr.Deref(matches.Status, "") != operatorv1.ConditionFalse || (reason != ReasonIssuerDiffers && reason != ReasonAuthenticationAbsent) {
		return condition(PodIdentityAvailable, operatorv1.ConditionTrue, conditions.AsExpected, "")
	}
	return condition(PodIdentityAvailable, operatorv1.ConditionTrue, reason,
		"pod identity injects AWS credentials that AWS STS refuses: "+ptr.Deref(matches.Message, "")+
			"; to make the cluster's tokens valid for STS, see "+IssuerMismatchRunbook)
}
