// Package relatedobjects lists what `oc adm inspect clusteroperator/workload-access`
// (and so must-gather) collects. Keep it in step with the ClusterOperator
// manifest: the CVO publishes that copy before the operator ever runs.
package relatedobjects

import (
	configv1 "github.com/openshift/api/config/v1"

	"github.com/openshift/cluster-workload-access-operator/pkg/operator/frame/operatorclient"
)

// The issuer publisher's names (pkg/operator/podidentity/issuerpublisher, which checks
// that they are its own: this package may not import a controller).
const (
	signingCertsNamespace    = "openshift-kube-apiserver"
	signingCertsConfigMap    = "bound-sa-token-signing-certs"
	issuerCredentialsRequest = "workload-access-issuer-s3"
	// The IAMRoleRequest controller's IAM credentials (docs/aws-roles.md):
	// the request the cloud credential operator serves (manifests/…02_*).
	iamCredentialsRequest = "workload-access-iam"
	// The alerts, manifests/0000_90_workload-access_02_prometheusrule.yaml.
	prometheusRule = "workload-access"
	// Each namespace's default deny (manifests/…05_networkpolicies.yaml,
	// bindata/operand/default-deny-networkpolicy.yaml).
	defaultDenyNetworkPolicy = "default-deny-ingress"
	// The Role that lets the operator read back its own Events on
	// ClusterExtensions (cluster-scoped objects' Events live in "default";
	// manifests/…03_rbac.yaml). Its RoleBinding is collected with every
	// RoleBinding.
	eventsNamespace = "default"
	eventsRole      = "cluster-workload-access-operator-events"
)

// List returns every namespace, configuration object and resource type the
// operator owns.
func List() []configv1.ObjectReference {
	return []configv1.ObjectReference{
		{Group: operatorclient.GVR.Group, Resource: operatorclient.GVR.Resource, Name: operatorclient.ConfigName},
		{Resource: "namespaces", Name: operatorclient.OperatorNamespace},
		{Resource: "namespaces", Name: operatorclient.OperandNamespace},
		// Its API: every CRD it ships.
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: operatorclient.ConfigCRDName},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "bundles.subscription.openshift.io"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "clusterbundles.subscription.openshift.io"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "scopetemplates.operators.coreos.com"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "scopeinstances.operators.coreos.com"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "apiaccesspolicies.apiaccess.openshift.io"},
		{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "iamrolerequests.podidentity.openshift.io"},
		// All RBAC: what the operator generates (ClusterBundle, ScopeTemplate
		// and APIAccessPolicy roles, ScopeInstance and APIAccessPolicy
		// bindings) can be selected only by label, which relatedObjects
		// cannot express, and "who may do what" is most of what a support
		// case about access asks. Includes the payload's own RBAC.
		{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"},
		{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		{Group: "rbac.authorization.k8s.io", Resource: "roles", Namespace: eventsNamespace, Name: eventsRole},
		{Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Name: operatorclient.WebhookName},
		// The access grants check's registration.
		{Group: "admissionregistration.k8s.io", Resource: "validatingwebhookconfigurations", Name: operatorclient.WebhookName},
		// Every ValidatingAdmissionPolicy and binding: ours (injection
		// required, what the operator writes, ...) and whatever else on the
		// cluster may refuse the same requests.
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
		{Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"},
		// Every object of its kinds, and the shares generated for ClusterBundles.
		{Group: "subscription.openshift.io", Resource: "clusterbundles"},
		{Group: "subscription.openshift.io", Resource: "bundles"},
		{Group: "operators.coreos.com", Resource: "scopetemplates"},
		{Group: "operators.coreos.com", Resource: "scopeinstances"},
		{Group: "apiaccess.openshift.io", Resource: "apiaccesspolicies"},
		// Phase 2 of pod identity: each request names its role, its
		// ServiceAccount and, in conditions, the IAM error of the last sync.
		{Group: "podidentity.openshift.io", Resource: "iamrolerequests"},
		{Group: "sharedresource.openshift.io", Resource: "sharedsecrets"},
		{Group: "sharedresource.openshift.io", Resource: "sharedconfigmaps"},
		{Group: "console.openshift.io", Resource: "consoleyamlsamples", Name: operatorclient.ClusterBundleSample},
		{Group: "console.openshift.io", Resource: "consoleyamlsamples", Name: operatorclient.BundleSample},
		// The issuer publisher's inputs: the public keys it publishes, and the
		// request for its S3 credentials (never the Secret, whose name and
		// namespace the operator's namespace above already covers); the
		// request for the IAM credentials IAMRoleRequests are served with.
		{Resource: "configmaps", Namespace: signingCertsNamespace, Name: signingCertsConfigMap},
		{Group: "cloudcredential.openshift.io", Resource: "credentialsrequests", Namespace: "openshift-cloud-credential-operator", Name: issuerCredentialsRequest},
		{Group: "cloudcredential.openshift.io", Resource: "credentialsrequests", Namespace: "openshift-cloud-credential-operator", Name: iamCredentialsRequest},
		// What the cluster's Prometheus scrapes and alerts on (shipped by the CVO).
		{Group: "monitoring.coreos.com", Resource: "servicemonitors", Namespace: operatorclient.OperatorNamespace, Name: operatorclient.OperatorName},
		{Group: "monitoring.coreos.com", Resource: "servicemonitors", Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookName},
		{Group: "monitoring.coreos.com", Resource: "prometheusrules", Namespace: operatorclient.OperatorNamespace, Name: prometheusRule},
		// Who may reach the operator and the webhook (`oc adm inspect` of a
		// namespace does not collect NetworkPolicies).
		{Group: "networking.k8s.io", Resource: "networkpolicies", Namespace: operatorclient.OperatorNamespace, Name: operatorclient.OperatorName},
		{Group: "networking.k8s.io", Resource: "networkpolicies", Namespace: operatorclient.OperatorNamespace, Name: defaultDenyNetworkPolicy},
		{Group: "networking.k8s.io", Resource: "networkpolicies", Namespace: operatorclient.OperandNamespace, Name: operatorclient.WebhookName},
		{Group: "networking.k8s.io", Resource: "networkpolicies", Namespace: operatorclient.OperandNamespace, Name: defaultDenyNetworkPolicy},
	}
}
