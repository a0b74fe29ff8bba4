// Package operatorclient names the objects the operator is built around and
// gives library-go a v1helpers.OperatorClient for the WorkloadAccess
// configuration.
package operatorclient

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	operatorv1alpha1 "github.com/openshift/cluster-workload-access-operator/pkg/apis/operator/v1alpha1"
)

const (
	// ClusterOperatorName is what `oc get clusteroperator` shows.
	ClusterOperatorName = "workload-access"
	// OperatorNamespace runs the operator itself; the CVO creates it.
	OperatorNamespace = "openshift-workload-access-operator"
	// OperandNamespace runs what the operator manages (the admission webhook);
	// the CVO creates it, with the Role and RoleBinding that let the operator
	// work there.
	OperandNamespace = "openshift-workload-access"
	// OperatorName is the operator's component name: its binary, Deployment,
	// ServiceAccount and leader-election lock are named after it.
	OperatorName = "cluster-workload-access-operator"
	// ConfigName is the name of the WorkloadAccess singleton.
	ConfigName = operatorv1alpha1.WorkloadAccessName
	// ConfigCRDName is the CRD that serves WorkloadAccess.
	ConfigCRDName = "workloadaccesses.operator.openshift.io"
	// BundlesEditClusterRole and BundlesViewClusterRole, shipped in the
	// manifests, aggregate Bundles into the built-in admin, edit and view.
	BundlesEditClusterRole = "workload-access-bundles-edit"
	BundlesViewClusterRole = "workload-access-bundles-view"
	// ClusterBundleSample and BundleSample are the web console's examples
	// (ConsoleYAMLSamples in bindata/consolesamples).
	ClusterBundleSample = "subscription-cluster-bundle-example"
	BundleSample        = "subscription-namespaced-bundle-example"
)

// The admission webhook's objects, all in OperandNamespace except the
// cluster-scoped MutatingWebhookConfiguration.
const (
	// WebhookName names the webhook's Deployment, Service, ServiceAccount and
	// MutatingWebhookConfiguration.
	WebhookName = "workload-access-webhook"
	// InjectionPolicyName names the ValidatingAdmissionPolicy (and its
	// binding, shipped in manifests/) that refuses a pod asking for bundles
	// the webhook did not inject.
	InjectionPolicyName = "workload-access-injection-required"
	// AccessGrantsPolicyName names the ValidatingAdmissionPolicy (and its
	// binding) that refuses ScopeTemplates, ScopeInstances and
	// APIAccessPolicies while the access grants webhook is not configured.
	AccessGrantsPolicyName = "workload-access-access-grants-checked"
	// OperatorWritesPolicyName names the ValidatingAdmissionPolicy (and its
	// binding) that admits from the operator only the objects it generates:
	// carrying exactly one generator label, controlled by the object that
	// label names. The per-generator shape policies are found by must-gather
	// among all policies and need no name here.
	OperatorWritesPolicyName = "workload-access-operator-writes"
	// WebhookSignerSecret holds the CA that signs the serving certificate.
	WebhookSignerSecret = WebhookName + "-signer"
	// WebhookServingCAConfigMap holds the CA bundle (key ca-bundle.crt) the
	// API server must trust: the current signer and any older one not yet expired.
	WebhookServingCAConfigMap = WebhookName + "-serving-ca"
	// WebhookServingCertSecret is the serving pair mounted by the webhook pods.
	WebhookServingCertSecret = WebhookName + "-serving-cert"
	// CABundleKey is the ConfigMap key library-go's certrotation writes.
	CABundleKey = "ca-bundle.crt"
)

var (
	// GVR is the resource of the operator configuration.
	GVR = operatorv1alpha1.SchemeGroupVersion.WithResource("workloadaccesses")
	// GVK is the kind of the operator configuration.
	GVK = operatorv1alpha1.SchemeGroupVersion.WithKind("WorkloadAccess")
)

// GroupResource is a convenience for listers and errors.
func GroupResource() schema.GroupResource { return GVR.GroupResource() }
