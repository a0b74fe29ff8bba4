// Package relatedobjects lists what `oc adm inspect clusteroperator/workload-access`
// (and so must-gather) collects. Keep it in step with the ClusterOperator
// manifest: the CVO publishes that copy before the operator ever runs.
package relatedobjects

import (
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/operatorclient"
)

// The issuer publisher's names (pkg/operator/issuerpublisher, which checks
// that they are its own: this package may not import a controller).
const (
	signingCertsNamespace    = "openshift-kube-apiserver"
	signingCertsConfigMap    = "bound-sa-token-signing-certs"
	issuerCredentialsRequest = "workload-access-issuer-s3"
)

// List returns every namespace, configuration object and resource type the
// operator owns.
func List() []configv1.ObjectReference {
	return []configv1.ObjectReference{
		{Group: operatorclient.GVR.Group, Resource: operatorclient.GVR.Resource, Name: operatorclient.ConfigName},
		{Resource: "namespaces", Name: operatorclient.OperatorNamespace},
		{Resource: "namespaces", Name: operatorclient.OperandNamespace},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: operatorclient.ConfigCRDName},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: operatorclient.OperatorName},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings", Name: operatorclient.OperatorName},
		// The webhook's cluster-wide reads (bundles, SubjectAccessReviews).
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: operatorclient.WebhookName},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings", Name: operatorclient.WebhookName},
		// Aggregated into admin, edit and view so developers can use Bundles.
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: operatorclient.BundlesEditClusterRole},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: operatorclient.BundlesViewClusterRole},
		{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: operatorclient.WebhookName},
		// The policy that refuses a pod asking for bundles the webhook never saw.
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies", Name: operatorclient.InjectionPolicyName},
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings", Name: operatorclient.InjectionPolicyName},
		// The policy that narrows the operator's own ClusterRole and share writes.
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies", Name: operatorclient.OperatorWritesPolicyName},
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings", Name: operatorclient.OperatorWritesPolicyName},
		// Every bundle, and the shares generated for ClusterBundles.
		{Group: "subscription.openshift.io", Resource: "clusterbundles"},
		{Group: "subscription.openshift.io", Resource: "bundles"},
		{Group: "sharedresource.openshift.io", Resource: "sharedsecrets"},
		{Group: "sharedresource.openshift.io", Resource: "sharedconfigmaps"},
		{Group: "console.openshift.io", Resource: "consoleyamlsamples", Name: operatorclient.ClusterBundleSample},
		{Group: "console.openshift.io", Resource: "consoleyamlsamples", Name: operatorclient.BundleSample},
		// The issuer publisher's inputs: the public keys it publishes, and the
		// request for its S3 credentials (never the Secret, whose name and
		// namespace the operator's namespace above already covers).
		{Resource: "configmaps", Namespace: signingCertsNamespace, Name: signingCertsConfigMap},
		{Group: "cloudcredential.openshift.io", Resource: "credentialsrequests", Namespace: "openshift-cloud-credential-operator", Name: issuerCredentialsRequest},
	}
}
