// Package v1alpha1 holds the subscription injection API: namespaced Bundles
// and cluster-scoped ClusterBundles that name the Secrets (entitlement keys)
// and ConfigMaps (yum repository files) the admission webhook mounts into
// pods that ask for them.
//
// +k8s:deepcopy-gen=package
// +groupName=subscription.openshift.io
// +kubebuilder:object:generate=true
package v1alpha1
