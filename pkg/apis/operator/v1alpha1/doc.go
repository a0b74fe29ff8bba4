// Package v1alpha1 holds the operator configuration API of
// cluster-workload-access-operator: the cluster-scoped singleton
// WorkloadAccess named "cluster".
//
// +k8s:deepcopy-gen=package
// +groupName=operator.openshift.io
// +kubebuilder:object:generate=true
package v1alpha1
