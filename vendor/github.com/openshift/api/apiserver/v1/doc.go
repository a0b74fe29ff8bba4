// +k8s:deepcopy-gen=package,register
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=com.github.openshift.api.apiserver.v1

// +kubebuilder:validation:Optional
// +groupName=apiserver.openshift.io
// Package v1 is the v1 version of the API.
package v1
