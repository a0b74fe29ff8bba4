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
	// the operator creates it from bindata.
	OperandNamespace = "openshift-workload-access"
	// OperatorName is the operator's component name: its binary, Deployment,
	// ServiceAccount and leader-election lock are named after it.
	OperatorName = "cluster-workload-access-operator"
	// ConfigName is the name of the WorkloadAccess singleton.
	ConfigName = operatorv1alpha1.WorkloadAccessName
	// ConfigCRDName is the CRD that serves WorkloadAccess.
	ConfigCRDName = "workloadaccesses.operator.openshift.io"
)

var (
	// GVR is the resource of the operator configuration.
	GVR = operatorv1alpha1.SchemeGroupVersion.WithResource("workloadaccesses")
	// GVK is the kind of the operator configuration.
	GVK = operatorv1alpha1.SchemeGroupVersion.WithKind("WorkloadAccess")
)

// GroupResource is a convenience for listers and errors.
func GroupResource() schema.GroupResource { return GVR.GroupResource() }
