package v1alpha1

import (
	operatorv1 "github.com/openshift/api/operator/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadAccessName is the only name a WorkloadAccess may have: the operator
// reads exactly one configuration.
const WorkloadAccessName = "cluster"

// WorkloadAccess configures cluster-workload-access-operator. The operator
// reports the health of each of its controllers in status.conditions, and
// the ClusterOperator "workload-access" summarises them.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=workloadaccesses,scope=Cluster,singular=workloadaccess
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Management",type=string,JSONPath=`.spec.managementState`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'cluster'",message="workloadaccess is a singleton: metadata.name must be 'cluster'"
type WorkloadAccess struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec holds the desired configuration.
	// +required
	Spec WorkloadAccessSpec `json:"spec"`

	// status holds what the operator observed and did.
	// +optional
	Status WorkloadAccessStatus `json:"status,omitempty"`
}

// WorkloadAccessSpec is the desired configuration of the operator.
// managementState, logLevel and operatorLogLevel are honoured; Managed,
// Unmanaged and Removed are the supported management states.
type WorkloadAccessSpec struct {
	operatorv1.OperatorSpec `json:",inline"`
}

// WorkloadAccessStatus reports the operator's controllers' conditions and the
// generations of the resources it manages.
type WorkloadAccessStatus struct {
	operatorv1.OperatorStatus `json:",inline"`
}

// WorkloadAccessList is a list of WorkloadAccess.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type WorkloadAccessList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []WorkloadAccess `json:"items"`
}
