package framework

import "github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"

// The names the operator gives its objects, taken from the operator's own
// constants so that the tests and the binary cannot disagree on them.
const (
	OperatorNamespace   = operatorclient.OperatorNamespace
	OperandNamespace    = operatorclient.OperandNamespace
	ClusterOperatorName = operatorclient.ClusterOperatorName
	// OperatorName names the operator's Deployment and ServiceAccount.
	OperatorName = operatorclient.OperatorName
	// OperatorUser is the operator's ServiceAccount as the API server's
	// audit log and authorizer name it.
	OperatorUser = "system:serviceaccount:" + OperatorNamespace + ":" + OperatorName
)

// The webhook's objects, in OperandNamespace.
const (
	WebhookName          = operatorclient.WebhookName
	InjectionPolicyName  = operatorclient.InjectionPolicyName
	WebhookServingSecret = operatorclient.WebhookServingCertSecret
	WebhookCAConfigMap   = operatorclient.WebhookServingCAConfigMap
	WebhookSignerSecret  = operatorclient.WebhookSignerSecret
	// WebhookCABundleKey is the key of the CA bundle in WebhookCAConfigMap.
	WebhookCABundleKey = operatorclient.CABundleKey
)
